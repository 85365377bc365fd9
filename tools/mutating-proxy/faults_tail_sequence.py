"""A fault of tail probing: the probe's own per-EV sequence number (SND-TAIL-002).

A tail probe takes the next per-EV sequence number of its EV, so its answer judges every
transmission sent on the EV before it, the latest one too. A sender that gives the probe
none keeps the EV's counter at its latest data transmission, and the answer spares that
one. `faults.py` imports this module last, so the helpers it uses are defined.
"""

from mods import fault, frame_of, kind
from faults import report_of


m = fault("probe-answer-spares-last-tx",
          "The tail-probe path does not give a probe a per-EV sequence number: it stores "
          "the EV's counter as it stands, the number of the EV's latest data transmission. "
          "The probe's answer infers lost only the transmissions below that number, so the "
          "latest one before the probe is never retransmitted by it.",
          ["SND-TAIL-002", "SND-TAIL-003"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    st = ctx.state.setdefault(m.name, {"last": {}, "probes": {}, "spare": set()})
    for item in ins:
        f = frame_of(item)
        if f is None or kind(f) != "probe-answer":
            continue
        q = f.get("bth", "dest_qp")
        key = (q, f.get("seth", "entropy"), f.get("seth", "ack_psn_offset") & 0xFFFF)
        psn = st["probes"].pop(key, None)
        if psn is not None:
            st["spare"].add((q, psn))
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault(m.name, {"last": {}, "probes": {}, "spare": set()})
    tail = ctx.nic.get("tail_probe") is not None
    dropped, res = set(), []
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "data":
            q, psn = ctx.local_qp_of(f), f.get("bth", "psn")
            if f.get("bth", "rtx") and (q, psn) in st["spare"]:
                st["spare"].discard((q, psn))
                dropped.add((q, psn))
                ctx.mutated(m.name)
                continue
            st["last"][(q, f.ev())] = psn
        elif f is not None and kind(f) == "probe" and tail:
            q = ctx.local_qp_of(f)
            psn = st["last"].get((q, f.ev()))
            if psn is not None:
                st["probes"][(q, f.ev(), f.get("peth", "probe_id"))] = psn
        res.append(item)
    # The answer's retransmissions go at once: a later one of the PSN has another cause.
    st["spare"].clear()
    return [item for item in res if not (
        report_of(item, "retransmitted") is not None
        and (report_of(item, "retransmitted").get("qpn"),
             report_of(item, "retransmitted").get("psn")) in dropped)]
