"""A fault of a sixteenth reading: a tail probe's answer that judges a packet sent after
the probe (SND-TAIL-002).

A tail probe takes the next per-EV sequence number of its EV, so a data packet sent on
the EV after it takes a higher one, and the probe's answer does not judge it. A sender
whose probe takes no number judges every transmission on the EV, and retransmits the
packets sent after the probe that the answer covers and does not show. `faults.py`
imports this module last, so the helpers it uses are defined.
"""

import copy

from faults import U24
from mods import fault, frame_of, kind, put


def covers_not_shown(f, psn):
    """Whether the SACK `f` covers `psn` and does not show it arrived."""
    cack = f.get("seth", "cack_psn")
    off = f.get("seth", "sack_offset")
    d = (psn - cack) & U24
    if d == 0 or d >= 1 << 23:
        return False
    if off < 1:
        return False
    i = (psn - cack - off) & U24
    return i < 64 and not f.get("seth", "sack_bitmap") >> i & 1


m = fault("probe-answer-judges-after-probe",
          "The tail-probe path gives a probe no per-EV sequence number: its answer infers "
          "lost every transmission on the EV that it covers and does not show, those sent "
          "after the probe too, which are retransmitted at once.",
          ["SND-TAIL-002", "SND-TAIL-003", "SND-RTX-004"])


def _state(ctx, m=m):
    return ctx.state.setdefault(m.name, {"after": {}, "probes": {}, "due": []})


@m.hook("inputs")
def _(ctx, ins, m=m):
    st = _state(ctx)
    for item in ins:
        f = frame_of(item)
        if f is None or kind(f) != "probe-answer":
            continue
        q = f.get("bth", "dest_qp")
        key = (q, f.get("seth", "entropy"), f.get("seth", "ack_psn_offset") & 0xFFFF)
        if st["probes"].pop(key, None) is None:
            continue
        for psn, sent in st["after"].get(key[:2], {}).items():
            if covers_not_shown(f, psn):
                st["due"].append((item["at"], sent))
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = _state(ctx)
    tail = ctx.nic.get("tail_probe") is not None
    due, st["due"] = st["due"], []
    res = []
    for item in outs:
        while due and due[0][0] < item["at"]:
            res.append(resend(ctx, *due.pop(0)))
        res.append(item)
        f = frame_of(item)
        if f is None or not tail:
            continue
        q = ctx.local_qp_of(f)
        if kind(f) == "probe":
            st["probes"][(q, f.ev(), f.get("peth", "probe_id"))] = True
            st["after"][(q, f.ev())] = {}
        elif kind(f) == "data":
            psn = f.get("bth", "psn")
            for (k, ev), sent in st["after"].items():
                if k == q:
                    sent.pop(psn, None)
            if (q, f.ev()) in st["after"]:
                st["after"][(q, f.ev())][psn] = item
    res.extend(resend(ctx, *d) for d in due)
    return res


def resend(ctx, at, sent, m=m):
    """A copy of the data packet `sent`, as a retransmission at `at`."""
    c = copy.deepcopy(sent)
    c["at"] = at
    f = frame_of(c)
    f.set("bth", "rtx", 1)
    put(ctx, m, c, f)
    return c
