"""The faults of the tenth reading: interactions and shared state.

The specification read as a bug list of what a hardware team gets wrong when two things
happen together or share a table: two QPs of one retirement domain or of two, a table
indexed by too few bits, a counter or a register that one QP's event changes for another,
two outputs of two QPs at one instant that one arbiter serves, a command decoder whose
registers outlive the command. Each fault is one realistic RTL bug of that kind.
`faults.py` imports this module last, so the helpers it uses are defined.
"""

from faults import U24, in_cpu, profile, ring_faults
from mods import (
    completion_entry, cqe_decode, cqe_encode, delay, event_of, fault, frame_of, frames, kind,
    mutate_completion, out_frames, put, shared_mode, sound,
)


# ---- helpers -------------------------------------------------------------------------------


def domain_of(ctx, qp):
    """The retirement domain of a local QP: the QP itself in per-QP retirement."""
    if not shared_mode(ctx):
        return ("qp", qp)
    return ("domain", (ctx.qps.get(qp) or {}).get("domain", 0))


def write_inputs(ins):
    """The sound write frames among the inputs, with their items."""
    return frames(ins, ("data",), only_sound=True)


def report(ev, name):
    return ev is not None and ev.get("event") == "report" and ev.get("report") == name


def last_write_qp(ctx, at):
    """The local QP that received the latest write at or before `at`, and that time."""
    best = None
    for qp, ws in ctx.rx_writes.items():
        for w in ws:
            if int(w[0]) <= at and (best is None or int(w[0]) >= best[1]):
                best = (qp, int(w[0]))
    return best


def same_instant_second(m, kinds_of, key):
    """A one-output-per-cycle arbiter: of two outputs that `kinds_of(ctx, item)` accepts at
    one instant, for two different values of `key(ctx, item)`, the second is lost."""

    @m.hook("outputs")
    def _(ctx, outs, m=m):
        seen = ctx.state.setdefault(m.name, {})
        res = []
        for item in outs:
            if not kinds_of(ctx, item):
                res.append(item)
                continue
            at, k = int(item["at"]), key(ctx, item)
            first = seen.get(at)
            if first is not None and first != k:
                ctx.mutated(m.name)
                continue
            seen.setdefault(at, k)
            res.append(item)
        return res


def timer_sack(ctx, item):
    f = frame_of(item)
    return f is not None and kind(f) == "sack" and int(item["at"]) not in ctx.input_times


def frame_qp(ctx, item):
    return ctx.local_qp_of(frame_of(item))


def report_of(name):
    return lambda ctx, item: report(event_of(item), name)


def report_qp(ctx, item):
    return event_of(item).get("qpn")


# ==== receiving side: the retirement table, the SACK timer, the answer arbiter ==============

m = fault("ret-table-msn-tag-only",
          "In per-QP retirement the responder keeps one retirement table for the device, "
          "tagged by MSN alone: a write whose MSN another QP holds open is taken for a "
          "write of a message that belongs to another QP and discarded.",
          ["RET-DOMAIN-001", "RET-CAP-001", "RCV-MSG-001", "RET-ORDER-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    if shared_mode(ctx) or len(ctx.qps) < 2:
        return ins
    open_ = ctx.state.setdefault(m.name, {})
    res = []
    for item in ins:
        f = frame_of(item)
        if f is None or not f.is_write() or not sound(f):
            res.append(item)
            continue
        qp, msn = f.get("bth", "dest_qp"), f.get("meth", "msn")
        owner = open_.get(msn)
        if owner is not None and owner != qp and qp in ctx.qps:
            ctx.mutated(m.name)
            continue
        if qp in ctx.qps:
            open_[msn] = qp
        res.append(item)
    return res


@m.hook("outputs")
def _(ctx, outs, m=m):
    open_ = ctx.state.setdefault(m.name, {})
    for item in outs:
        ev, f = event_of(item), frame_of(item)
        if ev is not None and ev.get("event") == "flag_write" and ev.get("side") == "responder":
            if open_.get(ev.get("msn")) == ev.get("qpn"):
                del open_[ev.get("msn")]
        elif f is not None and kind(f) == "ack":
            qp, top = ctx.local_qp_of(f), f.get("aeth", "msn") & 0xFFFF
            for msn in [k for k, q in open_.items() if q == qp and (top - k) & 0xFFFF < 0x8000]:
                del open_[msn]
    return outs


m = fault("sack-timer-restarted-by-other-qp",
          "The SACK timers of the QPs share one restart strobe: a write accepted by one QP "
          "restarts the running timer of every other QP, whose SACK then comes sack_delay "
          "after the other QP's write instead of after its own.",
          ["RCV-SACK-004", "RCV-ACK-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    d = int(ctx.nic.get("sack_delay", 1000))
    for item in outs:
        if not timer_sack(ctx, item):
            continue
        qp, at = frame_qp(ctx, item), int(item["at"])
        others = [int(w[0]) for q, ws in ctx.rx_writes.items() if q != qp for w in ws
                  if at - d < int(w[0]) < at]
        if others:
            delay(ctx, item, max(others) + d - at, m.name)
    return outs


m = fault("sack-same-instant-second-dropped",
          "The SACK builder serves one QP per cycle and its request from the timers is a "
          "pulse: when two QPs' SACK timers expire at one instant, the second QP's SACK is "
          "never sent.",
          ["RCV-SACK-004", "RCV-SACK-001"])
same_instant_second(m, timer_sack, frame_qp)


m = fault("sack-same-instant-ev-of-first",
          "When two QPs' SACKs leave at one instant, the second one takes its EV from the "
          "entropy register the first one loaded: it carries, and travels on, the first "
          "QP's last EV.",
          ["SETH-EV-001", "RCV-SACK-005", "RCV-SACK-004", "CONF-CMP-017"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    seen = ctx.state.setdefault(m.name, {})
    for item, f in frames(outs, ("sack",)):
        at, qp = int(item["at"]), ctx.local_qp_of(f)
        first = seen.setdefault(at, (qp, f.ev()))
        if first[0] != qp and f.ev() != first[1]:
            f.set("seth", "entropy", first[1])
            f.set_ev(first[1])
            put(ctx, m, item, f)
    return outs


m = fault("ack-same-instant-second-dropped",
          "The transport ACK generator takes one request per cycle: when a packet of one QP "
          "retires messages of two QPs of its domain, only the first QP's ACK is sent.",
          ["RCV-ACK-003", "RCV-ACK-001", "RCV-ACK-002"])
same_instant_second(m, lambda ctx, item: frame_of(item) is not None
                    and kind(frame_of(item)) == "ack", frame_qp)


m = fault("flag-of-released-before-trigger",
          "Messages of other QPs that a packet releases from the retirement table leave "
          "through a bypass of the flag queue: their retirement flags are written before "
          "every other output of that instant, the DMA write and flag of the packet's own "
          "message and their own receive completions among them.",
          ["FLAG-ORDER-001", "FLAG-RECV-002", "FLAG-ORDER-002", "RET-ORDER-001",
           "RET-FLAG-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    if len(ctx.qps) < 2:
        return outs
    by_at = {}
    for i, item in enumerate(outs):
        by_at.setdefault(int(item["at"]), []).append(i)
    res = list(outs)
    for at, idx in by_at.items():
        trig = last_write_qp(ctx, at)
        if trig is None or trig[1] != at:
            continue
        items = [outs[i] for i in idx]
        evs = [event_of(x) for x in items]
        own = [j for j, ev in enumerate(evs) if ev is not None and ev.get("side") == "responder"
               and ev.get("event") in ("dma_write", "flag_write") and ev.get("qpn") == trig[0]]
        other = [j for j, ev in enumerate(evs) if ev is not None and ev.get("side") ==
                 "responder" and ev.get("event") == "flag_write" and ev.get("qpn") != trig[0]]
        if not own or not other or min(other) < min(own):
            continue
        order = other + [j for j in range(len(items)) if j not in other]
        for pos, j in zip(idx, order):
            res[pos] = items[j]
        ctx.mutated(m.name)
    return res


m = fault("recv-cqe-cq-of-trigger",
          "The completion writer takes the receive queue from the context of the QP whose "
          "packet it is handling: a receive completion of another QP, retired by that "
          "packet, goes to the packet's QP's receive queue.",
          ["CQE-ROUTE-001", "CQE-RING-001", "CQE-RECV-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    for item, f in write_inputs(ins):
        ctx.state[m.name + ":qp"] = f.get("bth", "dest_qp")
    return ins


def _(ctx, ev, cq, m=m):
    e = completion_entry(ev)
    if ev.get("side") != "responder" or not e.get("is_receive"):
        return cq
    trig = ctx.qps.get(ctx.state.get(m.name + ":qp")) or {}
    return trig.get("recv_cq", cq) if trig.get("recv_cq") is not None else cq


ring_faults(m, _)


m = fault("rcv-epsn-table-low-bits",
          "The receive context (epsn and bitmap) is looked up by the QPN's four low bits "
          "with no tag: two QPs whose numbers agree in those bits share one receive window.",
          ["RCV-WIN-001", "RCV-WIN-003", "RCV-PLACE-003", "SETH-CACK-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    for item, f in write_inputs(ins):
        qp = f.get("bth", "dest_qp")
        if qp not in ctx.qps:
            continue
        alias = next((q for q in ctx.qps if q != qp and (q & 0xF) == (qp & 0xF)
                      and list(ctx.qps).index(q) < list(ctx.qps).index(qp)), None)
        if alias is not None:
            f.set("bth", "dest_qp", alias)
            put(ctx, m, item, f)
    return ins


# ==== sending side: counters, arbiters and the ACK check of a shared domain ================

m = fault("snd-msn-domain-select-zero",
          "The domain select of the MSN counters is tied to 0: in shared retirement every QP "
          "takes its MSNs from domain 0's counter, whatever domain it was created in.",
          ["SND-MSN-001", "RET-DOMAIN-001", "METH-MSN-001", "SND-MSN-002"])


@out_frames(m, ("data",))
def _(ctx, f, item, m=m):
    if not shared_mode(ctx):
        return
    doms = {(c or {}).get("domain", 0) for c in ctx.qps.values()}
    if len(doms) < 2:
        return
    st = ctx.state.setdefault(m.name, {"next": 0, "map": {}})
    qp = ctx.local_qp_of(f)
    key = (domain_of(ctx, qp), f.get("meth", "msn"))
    if key not in st["map"]:
        st["map"][key] = st["next"] & 0xFFFF
        st["next"] += 1
    f.set("meth", "msn", st["map"][key])


m = fault("ack-ahead-check-qp-count",
          "In shared retirement the check of SND-ACK-002 compares the AETH msn with the "
          "QP's own count of messages instead of the domain's next MSN: an ACK that covers "
          "a QP's message whose domain MSN is at or above that count is discarded.",
          ["SND-ACK-001", "SND-ACK-002", "CQE-SEND-001", "FLAG-SEND-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    sent = ctx.state.setdefault(m.name, {})
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "data":
            sent.setdefault(ctx.local_qp_of(f), set()).add(f.get("meth", "msn"))
    return outs


@m.hook("inputs")
def _(ctx, ins, m=m):
    if not shared_mode(ctx) or len(ctx.qps) < 2:
        return ins
    sent = ctx.state.setdefault(m.name, {})
    res = []
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) == "ack" and sound(f):
            qp = f.get("bth", "dest_qp")
            n = len(sent.get(qp, ()))
            msn = f.get("aeth", "msn") & 0xFFFF
            if qp in ctx.qps and n and msn >= n and msn < 0x8000:
                ctx.mutated(m.name)
                continue
        res.append(item)
    return res


m = fault("data-same-instant-second-qp-dropped",
          "The transmit arbiter grants one QP per cycle but both QPs' schedulers take the "
          "grant as theirs: when two QPs send a packet at one instant, the second QP's packet "
          "is lost inside the NIC, though its QP counts it sent.",
          ["SND-SEG-001", "SND-SCHED-001", "SND-ORDER-001"])
same_instant_second(m, lambda ctx, item: frame_of(item) is not None
                    and kind(frame_of(item)) == "data" and not frame_of(item).get("bth", "rtx"),
                    frame_qp)


m = fault("armed-same-instant-second-dropped",
          "The report FIFO takes one Armed per cycle: when two QPs send their first packet "
          "at one instant, the second QP's Armed is lost and the CPU half never starts its "
          "timer.",
          ["REC-IF-003", "REC-RTO-001"])
same_instant_second(m, report_of("armed"), report_qp)


m = fault("progress-same-instant-second-dropped",
          "The report FIFO takes one Progress per cycle: when SACKs of two QPs are handled at "
          "one instant, the second QP's Progress is lost and the CPU half keeps its timer "
          "running.",
          ["REC-IF-002", "REC-IF-015", "REC-RTO-001"])
same_instant_second(m, report_of("progress"), report_qp)


m = fault("progress-same-instant-una-of-first",
          "The Progress builder reads snd_una from a register the SACK path loads once per "
          "cycle: when SACKs of two QPs are handled at one instant, the second QP's Progress "
          "carries the first QP's snd_una.",
          ["REC-IF-002", "REC-RTO-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    seen = ctx.state.setdefault(m.name, {})
    for item in outs:
        ev = event_of(item)
        if not report(ev, "progress"):
            continue
        at = int(item["at"])
        first = seen.setdefault(at, (ev.get("qpn"), ev.get("snd_una")))
        if first[0] != ev.get("qpn") and ev.get("snd_una") != first[1]:
            ev["snd_una"] = first[1]
            ctx.mutated(m.name)
    return outs


m = fault("cmd-retransmit-psn-loaded-once",
          "The PSN register of the command decoder has a load enable that the first "
          "Retransmit clears and nothing sets again: every later Retransmit, of whatever QP, "
          "re-sends from the PSN of the first.",
          ["REC-IF-010", "REC-RTO-004"])


@in_cpu(m, ("retransmit",))
def _(ctx, c, item, m=m):
    st = ctx.state.setdefault(m.name, {})
    if "psn" in st:
        c["psn"] = st["psn"]
    else:
        st["psn"] = c.get("psn")


m = fault("cmd-probe-ev-of-set-ev-state",
          "Probe and SetEvState share the command decoder's EV register, and Probe does not "
          "load it: a Probe is sent on the EV of the last SetEvState, of whatever QP.",
          ["REC-IF-011", "EV-PROBE-005"])


@in_cpu(m, ("probe", "set_ev_state"))
def _(ctx, c, item, m=m):
    if c.get("cmd") == "set_ev_state":
        ctx.state[m.name] = c.get("ev")
    elif ctx.state.get(m.name) is not None:
        c["ev"] = ctx.state[m.name]


m = fault("probe-psn-device-last-sent",
          "The probe builder reads BTH psn from the transmit path's last-PSN register, one for "
          "the device: a probe carries the PSN after the last data packet any QP sent, not "
          "its own QP's snd_nxt.",
          ["EV-PROBE-005", "PETH-LAYOUT-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item in outs:
        f = frame_of(item)
        if f is None:
            continue
        if kind(f) == "data":
            ctx.state[m.name] = (ctx.local_qp_of(f), (f.get("bth", "psn") + 1) & U24)
        elif kind(f) == "probe" and ctx.state.get(m.name):
            qp, psn = ctx.state[m.name]
            if qp != ctx.local_qp_of(f) and f.get("bth", "psn") != psn:
                f.set("bth", "psn", psn)
                put(ctx, m, item, f)
    return outs


m = fault("nak-fails-every-qp",
          "The AETH NAK handler raises the error request of the QP-error logic without "
          "latching the QP number, so the request reaches every QP: a fatal NAK to one QP "
          "fails every QP of the device, as a QpError command would.",
          ["RET-ERR-002", "SND-ACK-003", "SND-ACK-006"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    if len(ctx.qps) < 2:
        return ins
    done = ctx.state.setdefault(m.name, set())
    res = []
    for item in ins:
        res.append(item)
        f = frame_of(item)
        if f is None or kind(f) != "nak" or not sound(f):
            continue
        qp = f.get("bth", "dest_qp")
        done.add(qp)
        for q in ctx.qps:
            if q not in done:
                done.add(q)
                res.append({"at": item["at"], "input": {
                    "kind": "cpu", "command": {"cmd": "qp_error", "qpn": q}}})
                ctx.mutated(m.name)
    return res


m = fault("sack-applied-to-low-bits-alias",
          "The sender's SACK lookup takes the QP context by the four low bits of BTH "
          "dest_qp: a SACK for a QP whose number agrees in those bits with a QP created "
          "before it updates the older QP.",
          ["SND-SACK-001", "REC-IF-002"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    order = list(ctx.qps)
    for item, f in frames(ins, ("sack", "probe-answer", "nack"), only_sound=True):
        qp = f.get("bth", "dest_qp")
        if qp not in ctx.qps:
            continue
        alias = next((q for q in order[:order.index(qp)] if (q & 0xF) == (qp & 0xF)), None)
        if alias is not None:
            f.set("bth", "dest_qp", alias)
            put(ctx, m, item, f)
    return ins


m = fault("ev-state-index-profile-position",
          "The EV state RAM is addressed by the EV's position in its profile alone, one "
          "row for the device: a SetEvState for one QP's EV also sets the EV at the same "
          "position of every other QP.",
          ["EV-STATE-003", "REC-IF-012", "EV-STATE-001", "SND-PATH-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    res = []
    for item in ins:
        res.append(item)
        body = item.get("input") or {}
        c = body.get("command") or {}
        if body.get("kind") != "cpu" or c.get("cmd") != "set_ev_state":
            continue
        own = profile(ctx, c.get("qpn"))
        if c.get("ev") not in own:
            continue
        pos = own.index(c.get("ev"))
        for q in ctx.qps:
            p = profile(ctx, q)
            if q != c.get("qpn") and pos < len(p) and p[pos] != c.get("ev"):
                res.append({"at": item["at"], "input": {"kind": "cpu", "command": dict(
                    c, qpn=q, ev=p[pos])}})
                ctx.mutated(m.name)
    return res


# ==== host side: what a shared domain numbers per QP, the queues of two QPs ================

def own_index(ctx, m, qp, msn):
    """The place of message `msn` among the messages of `qp` the device has shown: how many
    of that QP's MSNs seen so far come before it (modulo 2^16)."""
    seen = ctx.state.setdefault(m.name + ":seen", {}).setdefault(qp, set())
    seen.add(msn)
    return sum(1 for x in seen if 0 < (msn - x) & 0xFFFF < 0x8000)


def see_responder_msns(ctx, m, outs):
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("side") == "responder" and ev.get("event") in (
                "dma_write", "flag_write"):
            ctx.state.setdefault(m.name + ":seen", {}).setdefault(
                ev.get("qpn"), set()).add(ev.get("msn"))


def shared_domain_qps(ctx):
    if not shared_mode(ctx):
        return False
    doms = [(c or {}).get("domain", 0) for c in ctx.qps.values()]
    return len(doms) != len(set(doms))


m = fault("recv-flag-slot-own-count",
          "In shared retirement the retirement flag slot is indexed by the QP's own count "
          "of retired messages instead of the message's domain MSN: a QP's flags land at "
          "the slots of its first messages.",
          ["FLAG-RECV-001", "RET-FLAG-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    if not shared_domain_qps(ctx):
        return outs
    see_responder_msns(ctx, m, outs)
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "flag_write" or ev.get("side") != "responder":
            continue
        c = ctx.qps.get(ev.get("qpn")) or {}
        slots, base = c.get("recv_flag_slots"), c.get("recv_flag_base")
        if not slots or base is None:
            continue
        k = own_index(ctx, m, ev.get("qpn"), ev.get("msn"))
        addr = int(base) + 8 * (k % int(slots))
        if ev.get("addr") != addr:
            ev["addr"] = addr
            ctx.mutated(m.name)
    return outs


m = fault("recv-cqe-msn-own-count",
          "In shared retirement the receive completion's msn comes from the QP's own "
          "count of retired messages, not from the message's domain MSN.",
          ["CQE-RECV-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    if not shared_domain_qps(ctx):
        return outs
    see_responder_msns(ctx, m, outs)
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "completion" or ev.get("side") != "responder":
            continue
        e = completion_entry(ev)
        if not e.get("is_receive"):
            continue
        k = own_index(ctx, m, e.get("qpn"), e.get("msn"))
        if k != e.get("msn"):
            mutate_completion(ev, lambda d, k=k: d.update(msn=k))
            ctx.mutated(m.name)
    return outs


m = fault("ack-msn-own-count",
          "In shared retirement the transport ACK's msn comes from the QP's own count of "
          "retired messages minus one, not from the domain MSN of its last retired message.",
          ["RCV-ACK-003", "RCV-ACK-002", "AETH-MSN-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    if not shared_domain_qps(ctx):
        return outs
    see_responder_msns(ctx, m, outs)
    for item, f in frames(outs, ("ack",)):
        qp, msn = ctx.local_qp_of(f), f.get("aeth", "msn") & 0xFFFF
        k = own_index(ctx, m, qp, msn)
        if k != msn:
            f.set("aeth", "msn", k)
            put(ctx, m, item, f)
    return outs


m = fault("send-cqe-msn-own-count",
          "In shared retirement the sender completion's msn comes from the QP's own count "
          "of accepted messages, not from the message's domain MSN.",
          ["CQE-SEND-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    if not shared_domain_qps(ctx):
        return outs
    sent = ctx.state.setdefault(m.name + ":seen", {})
    for item in outs:
        f, ev = frame_of(item), event_of(item)
        if f is not None and kind(f) == "data":
            sent.setdefault(ctx.local_qp_of(f), set()).add(f.get("meth", "msn"))
        if ev is None or ev.get("event") != "completion" or ev.get("side") != "requester":
            continue
        e = completion_entry(ev)
        if e.get("is_receive") or int(e.get("status", 0)) != 0:
            continue
        k = own_index(ctx, m, e.get("qpn"), e.get("msn"))
        if k != e.get("msn"):
            mutate_completion(ev, lambda d, k=k: d.update(msn=k))
            ctx.mutated(m.name)
    return outs


m = fault("cq-producer-index-per-qp",
          "The producer index of a completion queue is kept in each QP's context: two QPs "
          "that report to one queue each count from slot 0 and overwrite each other's "
          "entries.",
          ["CQE-RING-001", "CQE-RING-004"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    counts = ctx.state.setdefault(m.name, {})
    for item in outs:
        ev = event_of(item)
        q = (ev or {}).get("queue") if ev and ev.get("event") == "completion" else None
        if not q or "bytes" not in q or q.get("cq") not in ctx.cqs:
            continue
        c = ctx.cqs[q["cq"]]
        e = cqe_decode(bytes.fromhex(q["bytes"]))
        key = (q["cq"], e.get("qpn"))
        n = int(c.get("entries", 1))
        k = counts.get(key, 0)
        counts[key] = k + 1
        e["phase"] = (k // n) % 2 == 0
        new = {"slot": k % n, "addr": int(c["base"]) + 32 * (k % n), "bytes": cqe_encode(e).hex()}
        if any(q.get(x) != new[x] for x in new):
            q.update(new)
            ctx.mutated(m.name)
    return outs


m = fault("cq-full-fails-every-queue",
          "The queue-full condition is one line for the device: when one completion queue "
          "is found full, the QPs of every queue enter the error state a cycle later, as a "
          "QpError command would put them.",
          ["RET-ERR-002", "CQE-RING-005"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item in outs:
        ev = event_of(item)
        if report(ev, "qp_error") and ev.get("requirement") == "CQE-RING-004":
            cq = (ctx.qps.get(ev.get("qpn")) or {}).get("send_cq")
            pend = ctx.state.setdefault(m.name, {})
            for q, c in ctx.qps.items():
                if c.get("send_cq") != cq and q not in pend:
                    pend[q] = int(item["at"]) + 1
    return outs


@m.hook("inputs")
def _(ctx, ins, m=m):
    pend = ctx.state.get(m.name) or {}
    todo = [(at, q) for q, at in pend.items() if at is not None]
    if not todo or not ins:
        return ins
    res = list(ins)
    for at, q in todo:
        pend[q] = None
        res.append({"at": max(at, min(int(x["at"]) for x in ins)), "input": {
            "kind": "cpu", "command": {"cmd": "qp_error", "qpn": q}}})
        ctx.mutated(m.name)
    res.sort(key=lambda x: int(x["at"]))
    return res


m = fault("cq-index-ram-half-depth",
          "The producer-index RAM of the completion queues has one entry per two queue "
          "numbers, addressed by bits 31:1: two queues numbered 2k and 2k + 1 count their "
          "entries together, and each writes at the slot after the other's last.",
          ["CQE-RING-001", "CQE-RING-004"])


def _(ctx, cq, k, m=m):
    counts = ctx.state.setdefault(m.name + ":all", {})
    alias = [c for c in ctx.cqs if c != cq and (c >> 1) == (cq >> 1)]
    return k + sum(counts.get(a, 0) for a in alias) if alias else k


def _count(m):
    @m.hook("outputs")
    def _(ctx, outs, m=m):
        counts = ctx.state.setdefault(m.name + ":all", {})
        for item in outs:
            ev = event_of(item)
            q = (ev or {}).get("queue") if ev and ev.get("event") == "completion" else None
            if q and q.get("cq") is not None:
                counts[q["cq"]] = counts.get(q["cq"], 0) + 1
        return outs


ring_faults(m, lambda ctx, ev, cq: cq, _)
_count(m)


m = fault("flag-same-instant-second-qp-dropped",
          "The flag writer takes the flag requests of one QP per cycle and drops a request "
          "it cannot take: when flags of two QPs are due at one instant, those of the second "
          "QP are never written.",
          ["FLAG-SEND-001", "FLAG-RECV-002", "RET-FLAG-001"])
same_instant_second(m, lambda ctx, item: (event_of(item) or {}).get("event") == "flag_write",
                    lambda ctx, item: (event_of(item).get("side"), event_of(item).get("qpn")))
