"""The faults of the ninth reading: the error paths and the limits.

The specification read as a bug list of what happens when things go wrong or reach a bound:
a template that breaks one rule of its installation, a NAK or NACK and the status it leaves,
the flush of a QP in error and what it still writes, a full completion queue, a write
rejected for its size or its MSN, and the retirement domain a failed QP leaves. Each fault is
one realistic RTL bug on such a path: a check that is missing or off by one, a status code
taken from the wrong bits, a field left from another packet, a reject that still changes
state. `faults.py` imports this module last, so the helpers it uses are defined.
"""

import roce
from faults import U24, rx5_answered, rx5_place_rejected, rx_state, track_rx, trigger_of
from mods import (
    completion_entry, event_of, fault, flag_fields, flag_value, frame_of, kind,
    mutate_completion, out_frames, put, shared_mode,
)

FLUSHED = 0x15


# ---- helpers -------------------------------------------------------------------------------

def template_installed(m, fix):
    """An input hook for a NIC whose template check misses one rule: `fix(ctx, command)`
    changes a set_template that breaks it into one the device installs, and says so."""

    @m.hook("inputs")
    def _(ctx, ins, m=m):
        for item in ins:
            body = item.get("input") or {}
            c = body.get("command") or {}
            if body.get("kind") == "host" and c.get("command") == "set_template" and fix(ctx, c):
                ctx.mutated(m.name)
        return ins


def is_requester(ev, name):
    return ev.get("event") == name and ev.get("side") == "requester"


def flag_status(ev):
    return flag_fields(int(ev["value"]))["status"]


def set_flag(ev, **kw):
    d = flag_fields(int(ev["value"]))
    d.update(kw)
    ev["value"] = flag_value(d)


def qp_errors(ctx, m, outs):
    """Records, per QP, the time and cause of its first QpError report; returns the map."""
    errs = ctx.state.setdefault(m.name + ":err", {})
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "report" and ev.get("report") == "qp_error":
            errs.setdefault(ev.get("qpn"), (int(item["at"]), ev.get("requirement")))
    return errs


def sent_data(ctx, m, outs):
    """Records the data frames the device sent, per (local QP, PSN), and the MSNs per QP."""
    st = ctx.state.setdefault(m.name + ":tx", {"frames": {}, "msns": {}})
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "data":
            qp = ctx.local_qp_of(f)
            st["frames"][(qp, f.get("bth", "psn"))] = (bytes(f.b), item["output"].get("port", 0))
            st["msns"].setdefault(qp, set()).add(f.get("meth", "msn"))
            st["last"] = st.get("last", {})
            st["last"][qp] = f.get("bth", "psn")
    return st


def resent(ctx, m, raw, port, at):
    """A retransmission of a frame the device sent: the same bytes with `rtx` set."""
    f = roce.Frame(raw)
    f.set("bth", "rtx", 1)
    f.seal()
    ctx.mutated(m.name)
    return {"at": at, "output": {"kind": "frame", "port": port, "bytes": f.hex()}}


def domain_of(ctx, qp):
    return (ctx.qps.get(qp) or {}).get("domain", qp)


# ==== host interface: template installation (TPL-INSTALL-001) ================================

TPL = ["TPL-INSTALL-001", "DB-TEMPLATE-001"]

m = fault("tpl-opcode-bit0-only",
          "The template's opcode register keeps bit 0 alone: an opcode other than WRITE and "
          "WRITE_WITH_IMM is installed as one of them instead of being refused.",
          ["TPL-OPCODE-001"] + TPL)


def _(ctx, c):
    op = c.get("opcode")
    if isinstance(op, int) and op not in (0, 1):
        c["opcode"] = op & 1
        return True
    return False


template_installed(m, _)


m = fault("tpl-slots-zero-as-one",
          "The slot-count check tests slots - 1 on a saturating subtractor: a template with "
          "0 slots is installed as one with a single slot.",
          ["TPL-SLOTS-001"] + TPL)
template_installed(m, lambda ctx, c: c.get("slots") == 0 and c.update(slots=1) is None)


m = fault("tpl-unit-top-bit",
          "The length-unit register keeps the highest set bit of the unit only: a unit that "
          "is not a power of two is installed rounded down instead of being refused.",
          ["TPL-UNIT-001"] + TPL)


def _(ctx, c):
    u = c.get("length_unit")
    if not isinstance(u, int) or u <= 0 or u & (u - 1) == 0:
        return False
    c["length_unit"] = 1 << (u.bit_length() - 1)
    return True


template_installed(m, _)


m = fault("tpl-max-length-32bit-bound",
          "The max_length check compares with 2^32, the overflow of its 32-bit register, "
          "instead of 2^31: a max_length just above 2^31 is installed.",
          ["TPL-LEN-001"] + TPL)


def _(ctx, c):
    n = c.get("max_length")
    if isinstance(n, int) and (1 << 31) < n < (1 << 32):
        c["max_length"] = 1 << 31
        return True
    return False


template_installed(m, _)


m = fault("tpl-default-above-max",
          "The template check never compares default_length with max_length: a template "
          "whose default length exceeds its maximum is installed.",
          ["TPL-LEN-002"] + TPL)


def _(ctx, c):
    d, n = c.get("default_length"), c.get("max_length")
    if isinstance(d, int) and isinstance(n, int) and n < d <= (1 << 31):
        c["max_length"] = d
        return True
    return False


template_installed(m, _)


m = fault("tpl-region-end-carry-lost",
          "The region-end adder of the template check is 64 bits wide and drops its carry: "
          "a local or remote region that reaches past 2^64 - 1 wraps and is installed.",
          ["TPL-REGION-001"] + TPL)


def _(ctx, c):
    done = False
    for side in ("local", "remote"):
        b, n = c.get(side + "_base"), c.get(side + "_region_len")
        if isinstance(b, int) and isinstance(n, int) and b + n > (1 << 64) - 1:
            c[side + "_base"] = (1 << 64) - 1 - n
            done = True
    return done


template_installed(m, _)


m = fault("tpl-local-region-unchecked",
          "The slot-range check of the template is wired for the remote region only: a "
          "template whose last slot runs past the end of its local region is installed.",
          ["TPL-REGION-002"] + TPL)


def _(ctx, c):
    try:
        need = (c["slots"] - 1) * c["local_stride"] + c["default_length"]
        rneed = (c["slots"] - 1) * c["remote_stride"] + c["default_length"]
    except (KeyError, TypeError):
        return False
    if c["slots"] < 1 or rneed > c.get("remote_region_len", 0) or need <= c["local_region_len"]:
        return False
    if c.get("local_base", 0) + need > (1 << 64) - 1:
        return False
    c["local_region_len"] = need
    return True


template_installed(m, _)


m = fault("tpl-flag-last-slot-unchecked",
          "The flag-slot check of the template tests its first flag slot only: a template "
          "whose last flag slot lies past the end of the flag table is installed.",
          ["TPL-FLAG-001"] + TPL)


def _(ctx, c):
    q = ctx.qps.get(c.get("qpn")) or {}
    n, base, slots = q.get("send_flag_slots"), c.get("flag_base_slot"), c.get("slots")
    if not all(isinstance(x, int) for x in (n, base, slots)) or not 0 < slots <= n:
        return False
    if base >= n or base + slots <= n:
        return False
    c["flag_base_slot"] = n - slots
    return True


template_installed(m, _)


# ==== completion: statuses and the flush of a QP in error ===================================

m = fault("status-other-nak-low-bits",
          "The status of a failing AETH is 0x10 plus the syndrome's two low bits: the NAKs "
          "0x61 to 0x63 come out right, but a PSN sequence error NAK 0x60 completes "
          "RETRY_EXCEEDED instead of REMOTE_OP_ERROR.",
          ["SND-ACK-006", "CQE-STATUS-001", "CQE-SEND-002", "FLAG-STATUS-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    odd = ctx.state.setdefault(m.name, set())
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) == "nak":
            s = f.get("aeth", "syndrome")
            if s & 0x1F not in (1, 2, 3) or (s >> 5) & 3 != 3:
                odd.add(f.get("bth", "dest_qp"))
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    odd = ctx.state.get(m.name, set())
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("qpn") not in odd:
            continue
        if is_requester(ev, "completion") and completion_entry(ev).get("status") == 0x13:
            mutate_completion(ev, lambda e: e.update(status=0x10))
            ctx.mutated(m.name)
        elif is_requester(ev, "flag_write") and flag_status(ev) == 0x13:
            set_flag(ev, status=0x10)
            ctx.mutated(m.name)
    return outs


m = fault("cqe-flush-as-success",
          "The status multiplexer of the completion writer has no FLUSHED input: the "
          "entries of flushed work requests say SUCCESS, while their flags say FLUSHED.",
          ["CQE-STATUS-001", "CQE-SEND-002", "RET-FLUSH-001", "FLAG-STATUS-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item in outs:
        ev = event_of(item)
        if (ev is not None and is_requester(ev, "completion")
                and completion_entry(ev).get("status") == FLUSHED):
            mutate_completion(ev, lambda e: e.update(status=0))
            ctx.mutated(m.name)
    return outs


m = fault("flush-skips-unsent",
          "The flush walks the retransmission queue instead of the send queue: when a QP "
          "enters the error state, messages it had accepted but not yet sent are never "
          "completed.",
          ["RET-FLUSH-001", "RET-SEND-001", "CQE-SEND-002", "FLAG-SEND-001",
           "WR-SIGNALED-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = sent_data(ctx, m, outs)
    res = []
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("side") == "requester":
            if ev.get("event") == "completion":
                e = completion_entry(ev)
                st_, msn = e.get("status"), e.get("msn")
            elif ev.get("event") == "flag_write":
                st_, msn = flag_status(ev), ev.get("msn")
            else:
                st_ = msn = None
            if st_ == FLUSHED and msn not in st["msns"].get(ev.get("qpn"), set()):
                ctx.mutated(m.name)
                continue
        res.append(item)
    return res


m = fault("flush-token-no-flag",
          "A token that reaches a QP already in error completes through the rejection path, "
          "which writes no flag: its FLUSHED completion entry comes, its sender flag never.",
          ["RET-FLUSH-001", "FLAG-SEND-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    errs = qp_errors(ctx, m, outs)
    res = []
    for item in outs:
        ev = event_of(item)
        if (ev is not None and is_requester(ev, "flag_write") and flag_status(ev) == FLUSHED
                and ev.get("qpn") in errs and int(item["at"]) > errs[ev.get("qpn")][0]):
            ctx.mutated(m.name)
            continue
        res.append(item)
    return res


def fail_runs(outs):
    """The failed completions and flags of each QP at one instant, in order: a map from
    (QP, time, "completion" or "flag_write") to the events, for runs whose first failure has
    a cause status (not FLUSHED)."""
    runs = {}
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("side") != "requester":
            continue
        if ev.get("event") not in ("completion", "flag_write"):
            continue
        runs.setdefault((ev.get("qpn"), int(item["at"]), ev["event"]), []).append(ev)
    return runs


def status_of(ev):
    if ev.get("event") == "completion":
        return completion_entry(ev).get("status")
    return flag_status(ev)


def set_status(ev, s):
    if ev.get("event") == "completion":
        mutate_completion(ev, lambda e: e.update(status=s))
    else:
        set_flag(ev, status=s)


m = fault("flush-cause-on-newest",
          "The flush takes the cause's status from a register read when the flush ends: the "
          "newest pending message gets the status of the cause and the oldest FLUSHED.",
          ["RET-FLUSH-001", "CQE-STATUS-001", "CQE-SEND-002", "FLAG-STATUS-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for evs in fail_runs(outs).values():
        fails = [e for e in evs if status_of(e) not in (0,)]
        if len(fails) < 2 or status_of(fails[0]) == FLUSHED or status_of(fails[-1]) != FLUSHED:
            continue
        cause = status_of(fails[0])
        set_status(fails[0], FLUSHED)
        set_status(fails[-1], cause)
        ctx.mutated(m.name)
    return outs


m = fault("nak-fails-covered-messages",
          "The AETH NAK path moves the QP to the error state before it applies the NAK's "
          "msn: the messages the NAK acknowledges fail with it, the oldest with the NAK's "
          "status and the others FLUSHED, instead of completing with SUCCESS.",
          ["SND-ACK-003", "RET-SEND-001", "CQE-STATUS-001", "FLAG-STATUS-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for evs in fail_runs(outs).values():
        ss = [status_of(e) for e in evs]
        causes = [s for s in ss if s in (0x11, 0x12, 0x13)]
        if not causes or ss[0] != 0:
            continue
        for i, e in enumerate(evs):
            set_status(e, causes[0] if i == 0 else FLUSHED)
            if e.get("event") == "flag_write":
                set_flag(e, byte_len=0)
            else:
                mutate_completion(e, lambda x: x.update(byte_len=0))
        ctx.mutated(m.name)
    return outs


m = fault("report-qp-error-rx-missing",
          "QpError is raised by the send engine alone: a QP that the responder half moved to "
          "the error state (WWI-LIMIT-002) is never reported to the CPU half.",
          ["REC-IF-009", "WWI-LIMIT-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    res = []
    for item in outs:
        ev = event_of(item)
        if (ev is not None and ev.get("report") == "qp_error"
                and ev.get("requirement") == "WWI-LIMIT-002"):
            ctx.mutated(m.name)
            continue
        res.append(item)
    return res


m = fault("cq-full-fails-one-qp",
          "A full completion queue moves only the QP whose completion found it full to the "
          "error state: the other QPs that report to the queue are neither failed, flushed "
          "nor reported.",
          ["CQE-RING-004", "CQE-RING-005", "RET-ERR-002", "REC-IF-009"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    first = ctx.state.setdefault(m.name, {})
    spared = set()
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("report") == "qp_error" and ev.get(
                "requirement") == "CQE-RING-004":
            t = int(item["at"])
            if first.setdefault(t, ev.get("qpn")) != ev.get("qpn"):
                spared.add(ev.get("qpn"))
    res = []
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("qpn") in spared and (
                ev.get("report") == "qp_error"
                or (ev.get("side") == "requester" and status_of_any(ev) == FLUSHED)):
            ctx.mutated(m.name)
            continue
        res.append(item)
    return res


def status_of_any(ev):
    if ev.get("event") in ("completion", "flag_write"):
        return status_of(ev)
    return None


m = fault("cq-full-drops-flags",
          "The sender flag writer waits behind the completion writer: once a queue is full, "
          "the flags of the messages whose entries could not be written are dropped with "
          "them.",
          ["CQE-RING-005", "FLAG-SEND-001", "RET-SEND-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    errs = qp_errors(ctx, m, outs)
    full = ctx.state.setdefault(m.name + ":full", {})
    for qp, (t, why) in errs.items():
        if why == "CQE-RING-004":
            cq = (ctx.qps.get(qp) or {}).get("send_cq")
            full.setdefault(cq, t)
    if not full:
        return outs
    written = set()
    for item in outs:
        ev = event_of(item)
        if ev is not None and is_requester(ev, "completion"):
            e = completion_entry(ev)
            written.add((e.get("qpn"), e.get("msn")))
    res = []
    for item in outs:
        ev = event_of(item)
        if ev is not None and is_requester(ev, "flag_write"):
            cq = (ctx.qps.get(ev.get("qpn")) or {}).get("send_cq")
            t = full.get(cq)
            if (t is not None and int(item["at"]) >= t
                    and (ev.get("qpn"), ev.get("msn")) not in written):
                ctx.mutated(m.name)
                continue
        res.append(item)
    return res


m = fault("reject-cqe-msn-next",
          "The error completion of a token rejected after the template check reads msn from "
          "the QP's MSN counter, as an accepted token does: it carries the QP's next MSN "
          "instead of 0.",
          ["CQE-REJECT-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault(m.name, {})
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "data":
            qp = ctx.local_qp_of(f)
            st[qp] = max(st.get(qp, 0), f.get("meth", "msn") + 1)
            continue
        ev = event_of(item)
        if ev is None or not is_requester(ev, "completion"):
            continue
        e = completion_entry(ev)
        nxt = st.get(e.get("qpn"), 0) & 0xFFFF
        if 0 < e.get("status", 0) < 0x10 and e.get("qpn") and nxt and e.get("msn") != nxt:
            mutate_completion(ev, lambda x, nxt=nxt: x.update(msn=nxt))
            ctx.mutated(m.name)
    return outs


# ==== receiver: writes rejected for their size or their MSN ================================

m = fault("rx-short-first-placed",
          "The PMTU size check is wired for MIDDLE packets only: a FIRST shorter than the "
          "PMTU is placed.",
          ["RCV-SEG-002", "PAY-LEN-002", "RCV-REJECT-001"])
rx5_place_rejected(m, lambda ctx, w, outs: w["op"] == roce.MRC_WRITE_FIRST
                   and 0 < len(w["payload"]) < ctx.pmtu())


def retired_msns(ctx, m, outs, before):
    """The MSNs retired in each domain, from the responder's flags: those of earlier batches
    and those of this batch before time `before`."""
    done = ctx.state.setdefault(m.name + ":retired", {})
    out = {d: set(s) for d, s in done.items()}
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "flag_write" and ev.get("side") == "responder":
            d = domain_of(ctx, ev.get("qpn"))
            if int(item["at"]) < before:
                out.setdefault(d, set()).add(ev.get("msn"))
    return out


def note_retired(m):
    """Keeps, past the batch, the MSNs each domain retired."""

    @m.hook("outputs")
    def _(ctx, outs, m=m):
        done = ctx.state.setdefault(m.name + ":retired", {})
        for item in outs:
            ev = event_of(item)
            if ev is not None and ev.get("event") == "flag_write" and ev.get(
                    "side") == "responder":
                done.setdefault(domain_of(ctx, ev.get("qpn")), set()).add(ev.get("msn"))
        return outs


def msn_offset(ctx, m, w, outs):
    """(offset of the write's MSN from its domain's next MSN, capacity C) or None when the
    device placed the write (it was not rejected)."""
    st = rx_state(ctx, m)
    if st["placed"].get((w["qp"], w["psn"])) == w["at"] or w["qp"] not in ctx.qps:
        return None
    done = retired_msns(ctx, m, outs, w["at"]).get(domain_of(ctx, w["qp"]), set())
    nxt = 0
    while nxt in done:
        nxt += 1
    shared = shared_mode(ctx)
    cap = 4096 if shared else ctx.mpr() * 128
    return (w["msn"] - nxt) & 0xFFFF, cap


def place_by_msn(m, pred):
    """The write is placed when `pred` holds of its MSN's offset and the device rejected it
    without an answer (a NAK or NACK answers a check made before the MSN's, RCV-CHECK-001)."""
    rx5_place_rejected(m, lambda ctx, w, outs: pred(msn_offset(ctx, m, w, outs))
                       and not rx5_answered(ctx, w, outs, ("nak", "nack")))
    note_retired(m)


m = fault("rcv-retired-msn-placed",
          "The retirement table's lookup takes an MSN behind the next one for a free entry: a "
          "new PSN that names a message already retired opens it again and is placed.",
          ["FLAG-LAST-002", "RET-CAP-002", "RCV-REJECT-001"])
place_by_msn(m, lambda o: o is not None and o[0] >= 0x8000)


m = fault("rcv-msn-table-edge-accepted",
          "The capacity check of the retirement table compares offset > C instead of >= C: "
          "a write naming MSN next + C is accepted and placed.",
          ["RCV-MSG-002", "RET-CAP-002", "RET-CAP-001", "RCV-REJECT-001"])
place_by_msn(m, lambda o: o is not None and o[0] == o[1])


m = fault("rcv-msn-table-index-wraps",
          "The retirement table is indexed by the MSN modulo its size with no capacity "
          "check: a write naming an MSN far beyond the table takes the entry of another "
          "message and is placed.",
          ["RCV-MSG-002", "RET-CAP-002", "RCV-REJECT-001"])
place_by_msn(m, lambda o: o is not None and o[1] < o[0] < 0x8000)


m = fault("nak-msn-of-failed-message",
          "The NAK builder writes the METH msn of the rejected write into the AETH instead of "
          "the MSN before the domain's next: a remote access NAK claims the failed message "
          "itself.",
          ["RCV-NAK-002", "AETH-MSN-001"])
track_rx(m)


@out_frames(m, ("nak",))
def _(ctx, f, item, m=m):
    w = trigger_of(rx_state(ctx, m), ctx.local_qp_of(f), int(item["at"]))
    if w is not None:
        f.set("aeth", "msn", w["msn"] & U24)


m = fault("wwi-nack-reason-oor",
          "The Write-with-Immediate limit check shares the window check's NACK path: a write "
          "beyond wwi_limit is NACKed PSN_OOR_WINDOW instead of UNEXP_EVENT, though the QP "
          "fails.",
          ["WWI-LIMIT-002", "RCV-NACK-001"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    if f.get("neth", "reason") == 0x19:
        f.set("neth", "reason", 0x0B)


# ---- the retirement domain a failed QP leaves ------------------------------------------------

m = fault("ret-error-domain-stalls",
          "The retirement pointer does not pass over the MSNs of a failed QP's removed "
          "entries: in a shared domain the messages of the other QPs behind them never "
          "retire, flag, complete or get their transport ACK.",
          ["RET-ERR-001", "RET-ORDER-001", "RET-ORDER-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    errs = qp_errors(ctx, m, outs)
    stalled = {}
    for qp, (t, why) in errs.items():
        if why == "WWI-LIMIT-002":
            stalled.setdefault(domain_of(ctx, qp), (t, qp))
    if not stalled:
        return outs
    res = []
    for item in outs:
        ev = event_of(item)
        qp = None
        if ev is not None and ev.get("side") == "responder" and ev.get("event") in (
                "flag_write", "completion"):
            qp = ev.get("qpn")
        f = frame_of(item)
        if f is not None and kind(f) == "ack":
            qp = ctx.local_qp_of(f)
        s = stalled.get(domain_of(ctx, qp)) if qp is not None else None
        if s is not None and qp != s[1] and int(item["at"]) >= s[0]:
            ctx.mutated(m.name)
            continue
        res.append(item)
    return res


m = fault("ret-error-keeps-entries",
          "The error state does not clear the failed QP's entries from the retirement "
          "table: a complete message of the failed QP retires when the domain's pointer "
          "reaches it, with its retirement flag.",
          ["RET-ERR-001", "FLAG-RECV-003"])
track_rx(m)


def complete_msgs(st, qp):
    """The messages of QP `qp` whose every byte arrived: {msn: length}."""
    got = {}
    for (q, msn), ws in st["seen"].items():
        if q != qp or not ws:
            continue
        psns = {}
        for w in ws:
            psns[w["psn"]] = len(w["payload"])
        n = ws[0]["dma_len"]
        if sum(psns.values()) == n and any(w["last"] for w in ws):
            got[msn] = n
    return got


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = rx_state(ctx, m)
    errs = qp_errors(ctx, m, outs)
    done = ctx.state.setdefault(m.name + ":done", set())
    res, after = [], []
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "flag_write" and ev.get("side") == "responder":
            d = domain_of(ctx, ev.get("qpn"))
            for qp, (t, why) in errs.items():
                if why != "WWI-LIMIT-002" or qp == ev.get("qpn") or domain_of(ctx, qp) != d:
                    continue
                if int(item["at"]) < t:
                    continue
                after.extend(kept_entries(ctx, m, st, qp, ev.get("msn"), item["at"], done))
            done.add((ev.get("qpn"), ev.get("msn")))
        res.append(item)
        res.extend(after)
        after = []
    return res


def kept_entries(ctx, m, st, qp, last, at, done):
    """The flags of the failed QP's complete messages that follow MSN `last` in the domain,
    one after another: they retire as the pointer reaches them."""
    flags = []
    for msn, n in sorted(complete_msgs(st, qp).items()):
        if msn == (last + 1) & 0xFFFF and (qp, msn) not in done:
            done.add((qp, msn))
            flags.append(ret_flag(ctx, qp, msn, n, at))
            ctx.mutated(m.name)
            last = msn
    return flags


def ret_flag(ctx, qp, msn, n, at):
    q = ctx.qps.get(qp) or {}
    slots = int(q.get("recv_flag_slots", 1)) or 1
    addr = int(q.get("recv_flag_base", 0)) + 8 * (msn % slots)
    v = flag_value({"generation": msn, "status": 0, "valid": 1, "resv": 0, "byte_len": n})
    return {"at": at, "output": {"kind": "event", "event": {
        "event": "flag_write", "qpn": qp, "side": "responder", "msn": msn, "addr": addr,
        "value": v}}}


# ==== sender: a NAK or NACK that ends the QP, and what a QP in error still sends ============

m = fault("snd-psn-seq-nak-as-ack",
          "The AETH decoder tests for a NAK by a non-zero NAK code: a NAK with code 0, a PSN "
          "sequence error, is taken for an ACK, completes its message with SUCCESS and the "
          "QP stays up.",
          ["SND-ACK-006", "RET-FLUSH-001", "CQE-STATUS-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) == "nak" and f.get("aeth", "syndrome") == 0x60:
            f.set("aeth", "syndrome", 0x1F)
            put(ctx, m, item, f)
    return ins


m = fault("fatal-nack-retransmits",
          "The NACK handler queues the NACKed PSN for retransmission before it decodes the "
          "reason: a fatal UNEXP_EVENT NACK has its PSN sent once more as the QP fails, "
          "after the flush wrote the message's sender flag.",
          ["SND-NACK-005", "SND-ERR-001", "ORD-SEND-002"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    due = ctx.state.setdefault(m.name + ":due", [])
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) == "nack" and f.get("neth", "reason") == 0x19:
            due.append((f.get("bth", "dest_qp"), f.get("neth", "nack_psn"), int(item["at"])))
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = sent_data(ctx, m, outs)
    due = ctx.state.get(m.name + ":due", [])
    res = list(outs)
    for qp, psn, at in due:
        got = st["frames"].get((qp, psn))
        if got is not None:
            res.append(resent(ctx, m, got[0], got[1], at))
    due.clear()
    res.sort(key=lambda o: int(o["at"]))
    return res


m = fault("retry-exceeded-last-rtx-sent",
          "The retransmission the CPU half commanded at its last timeout is already in the "
          "transmit queue when the QP fails at the retry limit, and the error state does not "
          "flush that queue: it leaves after the QP failed, after the flush wrote the "
          "message's sender flag.",
          ["SND-ERR-001", "ORD-SEND-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = sent_data(ctx, m, outs)
    res = list(outs)
    for item in outs:
        ev = event_of(item)
        if (ev is not None and ev.get("report") == "qp_error"
                and ev.get("requirement") == "REC-RETRY-002"):
            qp = ev.get("qpn")
            psn = st.get("last", {}).get(qp)
            got = st["frames"].get((qp, psn))
            if got is not None:
                res.append(resent(ctx, m, got[0], got[1], int(item["at"])))
    res.sort(key=lambda o: int(o["at"]))
    return res


