"""The faults of the sixteenth reading, sender side: the doorbell decoder, the requester's
schedulers and its reports to the CPU half, as an RTL team building the requester gets
them wrong: fields latched at the wrong stage, compares at an edge, and two events of one
instant where the logic takes only one.

Each fault is one bug a NIC team could ship. `faults.py` imports this module last, so the
helpers it uses are defined.
"""

from faults import misread_tokens, report_of, token_of
from mods import (
    completion_entry, fault, frame_of, frames, kind, mutate_completion, out_events, put,
)


# ==== the doorbell decoder: versions 3 to 15 ===============================================

m = fault("db-version-two-bits",
          "The version check reads bits 61:60 of the token only: versions 5, 9 and 13 "
          "are taken as version 1 and accepted.",
          ["DB-VERSION-001", "DB-REJECT-001", "CQE-REJECT-001", "DB-ORDER-001"])
misread_tokens(m, lambda ctx, t, tpl: (t & ~(0xF << 60)) | (1 << 60)
               if t >> 60 in (5, 9, 13) else None)


m = fault("db-version-top-bit-ignored",
          "The version comparator is three bits wide and bit 63 is not wired: a token of "
          "version 9 is taken as version 1 and accepted.",
          ["DB-VERSION-001", "DB-REJECT-001", "CQE-REJECT-001", "DB-ORDER-001"])
misread_tokens(m, lambda ctx, t, tpl: (t & ~(0xF << 60)) | (1 << 60)
               if t >> 60 == 9 else None)


m = fault("db-version-high-as-template",
          "The version check knows only the values 0 and 2: a token of version 3 to 15 "
          "goes on to the template lookup with the version bits in the template number, "
          "and is rejected UNKNOWN_TEMPLATE instead of BAD_VERSION.",
          ["DB-VERSION-001", "CQE-REJECT-001", "CQE-STATUS-001", "DB-ORDER-001"])


@out_events(m, ("completion",))
def _(ctx, ev, item):
    e = completion_entry(ev)
    if e.get("is_receive") or e.get("status") != 0x01:
        return
    if int(e.get("wr_id", 0)) >> 60 in (0, 1, 2):
        return
    mutate_completion(ev, lambda e: e.__setitem__("status", 0x02))


# ==== completions latched from the wrong doorbell ==========================================

m = fault("send-cqe-wr-id-of-latest-token",
          "The completion engine reads wr_id from the doorbell register of the template, "
          "which the next token has overwritten: a message completes with the wr_id of "
          "the latest token accepted for its template.",
          ["CQE-SEND-001", "TPL-EXPAND-007", "CQE-SEND-002"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    last = ctx.state.setdefault(m.name, {})
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        t = token_of(c)
        if t is not None and t >> 60 == 1:
            last[t >> 48 & 0xFFF] = t
    return ins


@out_events(m, ("completion",))
def _(ctx, ev, item, m=m):
    last = ctx.state.setdefault(m.name, {})
    e = completion_entry(ev)
    w = int(e.get("wr_id", 0))
    if e.get("is_receive") or e.get("status") != 0 or w >> 60 != 1:
        return
    n = last.get(w >> 48 & 0xFFF)
    if n is not None and n != w:
        mutate_completion(ev, lambda e: e.__setitem__("wr_id", n))


# ==== two acknowledgements at one instant ==================================================

def same_instant_drop(m, first_kinds, second_kinds):
    """The ingress of the sender takes one acknowledgement per QP per cycle: a frame of
    `second_kinds` that arrives at the instant a frame of `first_kinds` arrived for the
    same QP is lost."""

    @m.hook("inputs")
    def _(ctx, ins, m=m):
        seen, res = set(), []
        for item in ins:
            f = frame_of(item)
            if f is None:
                res.append(item)
                continue
            k = kind(f)
            key = (int(item.get("at", 0)), f.get("bth", "dest_qp"))
            if k in second_kinds and key in seen:
                ctx.mutated(m.name)
                continue
            if k in first_kinds:
                seen.add(key)
            res.append(item)
        return res


m = fault("snd-second-sack-same-instant-lost",
          "The SACK decoder of the sender has one slot per QP per cycle: of two SACKs of "
          "one QP that arrive at one instant, the second is lost.",
          ["SND-SACK-001", "SND-SACK-002", "SND-INFER-001", "REC-IF-002", "SND-SACK-005",
           "SND-WIN-002", "EV-SKIP-001", "REC-IF-005", "REC-IF-016"])
same_instant_drop(m, ("sack",), ("sack",))


m = fault("snd-ack-behind-sack-same-instant-lost",
          "The AETH and SETH decoders share one context write port: a transport ACK that "
          "arrives at the instant a SACK of its QP arrived is lost.",
          ["SND-ACK-001", "SND-ACK-005", "CQE-SEND-001", "FLAG-SEND-001", "REC-IF-002",
           "RET-SEND-001"])
same_instant_drop(m, ("sack", "probe-answer"), ("ack", "nak"))


m = fault("snd-nack-behind-sack-same-instant-lost",
          "The NACK decoder shares the SACK decoder's context write port: a NACK that "
          "arrives at the instant a SACK of its QP arrived is lost.",
          ["SND-NACK-001", "SND-NACK-002", "SND-NACK-004", "REC-IF-004", "EV-SKIP-001",
           "REC-IF-008", "SND-NACK-005", "REC-IF-016"])
same_instant_drop(m, ("sack", "probe-answer"), ("nack",))


m = fault("snd-probe-answer-behind-sack-lost",
          "The probe-answer path shares the SACK decoder's slot: a probe answer that "
          "arrives at the instant a plain SACK of its QP arrived is lost.",
          ["REC-IF-007", "SND-TAIL-003", "EV-PROBE-002", "EV-PROBE-003", "REC-IF-016"])
same_instant_drop(m, ("sack",), ("probe-answer",))


# ==== the transmit scheduler at one instant ================================================

def same_instant_pairs(outs, ctx, pred_a, pred_b):
    """Index pairs (i, j), i < j, of data or probe frames of one QP at one instant where
    outs[i] satisfies pred_a and outs[j] pred_b."""
    fr = [(i, item, frame_of(item)) for i, item in enumerate(outs)]
    fr = [(i, item, f) for i, item, f in fr if f is not None]
    for a, (i, ia, fa) in enumerate(fr):
        for (j, ib, fb) in fr[a + 1:]:
            if int(ia["at"]) != int(ib["at"]):
                continue
            if ctx.local_qp_of(fa) != ctx.local_qp_of(fb):
                continue
            if pred_a(fa) and pred_b(fb):
                yield i, j


def is_rtx(f):
    return kind(f) == "data" and bool(f.get("bth", "rtx"))


def is_new(f):
    return kind(f) == "data" and not f.get("bth", "rtx")


def is_probe(f):
    return kind(f) == "probe"


m = fault("sched-new-before-rtx-same-instant",
          "The transmit arbiter looks at the new-packet queue before the retransmission "
          "queue: when both have a packet of one QP at one instant, the new packet leaves "
          "first.",
          ["SND-SCHED-001", "SND-SCHED-003", "SND-ORDER-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for i, j in list(same_instant_pairs(outs, ctx, is_rtx, is_new))[:1]:
        outs[i], outs[j] = outs[j], outs[i]
        ctx.mutated(m.name)
    return outs


m = fault("sched-data-before-probe-same-instant",
          "The probe queue is served after the data queues in a cycle: a probe and a data "
          "packet of one QP due at one instant leave data first.",
          ["SND-SCHED-001", "REC-IF-011", "EV-PROBE-005"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    pairs = list(same_instant_pairs(outs, ctx, is_probe, lambda f: kind(f) == "data"))
    if pairs:
        i, j = pairs[0]
        outs.insert(i, outs.pop(j))
        ctx.mutated(m.name)
    return outs


m = fault("data-new-lost-behind-rtx",
          "The transmit arbiter grants the retransmission queue and the new-packet "
          "scheduler takes the grant as its own: a first transmission due at the instant "
          "a retransmission of its QP leaves is lost.",
          ["SND-SEG-001", "SND-SCHED-001", "SND-ORDER-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    drop = {j for _, j in same_instant_pairs(outs, ctx, is_rtx, is_new)}
    if drop:
        ctx.mutated(m.name)
    return [o for k, o in enumerate(outs) if k not in drop]


m = fault("data-ev-of-previous-packet",
          "The header stage reads the EV from the spray register after the next packet's "
          "choice has been written: each data packet of a QP sent at the same instant as "
          "the one before it travels on that one's EV, while the PSN table keeps the EV "
          "chosen, which a Retransmitted report then names as lost.",
          ["SND-PATH-001", "SND-SPRAY-001", "SND-SPRAY-003", "SND-SPRAY-004",
           "SND-SPRAY-005", "SND-RTX-002", "CONF-CMP-017", "REC-IF-008"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    last = {}
    for item, f in frames(outs, ("data",)):
        q, at = ctx.local_qp_of(f), int(item["at"])
        prev = last.get(q)
        last[q] = (at, f.ev())
        if prev is not None and prev[0] == at and prev[1] != f.ev():
            f.set_ev(prev[1])
            put(ctx, m, item, f)
    return outs


# ==== AckReq at the edges of a batch ========================================================

m = fault("ackreq-lost-on-second-same-instant",
          "The AckReq stage computes one flag per cycle: of two data packets of a QP that "
          "leave at one instant, the second carries the first's ack_req.",
          ["SND-ACKREQ-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    last = {}
    for item, f in frames(outs, ("data",)):
        q, at = ctx.local_qp_of(f), int(item["at"])
        prev = last.get(q)
        a = f.get("bth", "ack_req")
        last[q] = (at, a)
        if prev is not None and prev[0] == at and prev[1] != a:
            f.set("bth", "ack_req", prev[1])
            put(ctx, m, item, f)
            last[q] = (at, prev[1])
    return outs


# ==== reports with a stale field ===========================================================

def stale_report_field(m, report, field):
    """Reports `report` of a QP carry `field` of the QP's previous such report; the first
    carries its own."""

    @out_events(m, ("report:" + report,))
    def _(ctx, ev, item, m=m):
        st = ctx.state.setdefault(m.name, {})
        q = ev.get("qpn")
        own = ev.get(field)
        if q in st:
            ev[field] = st[q]
        st[q] = own


m = fault("report-rtx-cause-of-previous",
          "The cause register of the Retransmitted report is loaded one report late: "
          "each report of a QP carries the cause of the retransmission before it.",
          ["REC-IF-008"])
stale_report_field(m, "retransmitted", "cause")


m = fault("report-ev-marked-mark-of-previous",
          "The mark field of EvMarked is latched one report late: each EvMarked of a QP "
          "carries the mark of the EvMarked before it.",
          ["REC-IF-005"])
stale_report_field(m, "ev_marked", "mark")


m = fault("report-probe-answered-ev-of-previous",
          "The EV field of ProbeAnswered is latched one report late: each ProbeAnswered "
          "of a QP names the EV of the answer before it.",
          ["REC-IF-007"])
stale_report_field(m, "probe_answered", "ev")


m = fault("report-ev-state-ev-of-previous",
          "The EvState builder latches the EV one transition late: each EvState of a QP "
          "gives its new state with the EV of the transition before it.",
          ["REC-IF-016"])
stale_report_field(m, "ev_state", "ev")


m = fault("report-nack-psn-of-previous",
          "The Nack report's PSN register is loaded one report late: each Nack report of "
          "a QP carries the PSN of the NACK before it.",
          ["REC-IF-004"])
stale_report_field(m, "nack", "psn")


m = fault("report-progress-outstanding-of-previous",
          "The outstanding count of Progress is sampled before the SACK is applied: each "
          "Progress carries the count of the QP's previous Progress.",
          ["REC-IF-002", "REC-RTO-001"])
stale_report_field(m, "progress", "outstanding")


# ==== the peer's window ====================================================================

m = fault("snd-mpr-zero-restores-own-window",
          "A SACK with mpr 0 loads W_peer with W_own, as at reset, instead of leaving it: "
          "a window the responder narrowed opens again on its next SACK without mpr.",
          ["SND-WIN-002", "SND-WIN-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    st = ctx.state.setdefault(m.name, {})
    own = ctx.mpr()
    for item, f in frames(ins, ("sack", "probe-answer"), only_sound=True):
        q = f.get("bth", "dest_qp")
        mpr = f.get("seth", "mpr")
        if mpr:
            st[q] = mpr
        elif st.get(q, own) < own:
            f.set("seth", "mpr", own)
            put(ctx, m, item, f)
            st[q] = own
    return ins


# ==== Armed made by a retransmission ======================================================

m = fault("report-armed-on-retransmission",
          "The Armed trigger tests that nothing is in flight after the retransmission path "
          "has released the PSN's place: a retransmission sends Armed, with the QP's "
          "snd_una, though it is no first transmission.",
          ["REC-IF-020", "REC-IF-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    una = ctx.state.setdefault(m.name, {})
    res = []
    for item in outs:
        res.append(item)
        ev = report_of(item, "progress") or report_of(item, "armed")
        if ev is not None:
            una[ev.get("qpn")] = int(ev.get("snd_una", 0))
        f = frame_of(item)
        if f is None or not is_rtx(f):
            continue
        q = ctx.local_qp_of(f)
        if q not in una:
            continue
        res.append({"at": item["at"], "output": {"kind": "event", "event": {
            "event": "report", "report": "armed", "qpn": q, "snd_una": una[q]}}})
        ctx.mutated(m.name)
    return res


m = fault("report-rtx-nack-as-inference",
          "The cause encoder of the Retransmitted report has the codes of a NACK and of "
          "loss inference on one line: a retransmission a NACK caused is reported as "
          "inferred from a SACK.",
          ["REC-IF-008"])


@out_events(m, ("report:retransmitted",))
def _(ctx, ev, item):
    if ev.get("cause") == "nack":
        ev["cause"] = "sack_inference"
