"""A legal variant of the weak-catch reading: a transport ACK builder that reads the QP's last
retired MSN when it sends (RCV-ACK-002.a), half of late_ns after the ACK was due
(CONF-TIME-004). With `ack_coalesce` above 1 it may name a message retired but not yet
acknowledged (CONF-CMP-127)."""

from mods import event_of, flag_fields, frame_of, kind, put_frame, variant
from roce import MRC_WRITE_LAST, MRC_WRITE_LAST_IMM, MRC_WRITE_ONLY, MRC_WRITE_ONLY_IMM

LASTS = (MRC_WRITE_LAST, MRC_WRITE_LAST_IMM, MRC_WRITE_ONLY, MRC_WRITE_ONLY_IMM)


def acks_read_retired(why):
    """Each positive ACK leaves half of late_ns late. Until it leaves, every successful
    retirement flag of its QP rebuilds it with that flag's MSN, and the BTH psn with the
    PSN of the last packet of that message received: a LAST or ONLY packet the device
    placed, not one its receive checks discarded."""

    def inputs(ctx, ins):
        st = ctx.state.setdefault(why, {"held": [], "psn": {}, "lasts": {}})
        for item in ins:
            f = frame_of(item)
            if f is not None and f.opcode in LASTS and f.has("meth"):
                key = (f.get("bth", "dest_qp"), f.get("bth", "psn"))
                st["lasts"][key] = f.get("meth", "msn")
        return ins

    def hook(ctx, outs):
        st = ctx.state.setdefault(why, {"held": [], "psn": {}, "lasts": {}})
        d = ctx.late_ns // 2
        if not d:
            return outs
        for item in outs:
            ev = event_of(item)
            t = int(item["at"])
            if ev is not None and ev.get("event") == "dma_write":
                q, p = ev.get("qpn"), ev.get("psn")
                if (q, p) in st["lasts"]:
                    st["psn"][(q, st["lasts"][(q, p)])] = p
            if (ev is not None and ev.get("event") == "flag_write"
                  and ev.get("side") == "responder"
                  and flag_fields(int(ev.get("value", 0)))["status"] == 0):
                q, msn = ev.get("qpn"), ev.get("msn")
                st["held"] = [h for h in st["held"] if int(h["at"]) >= t]
                for h in st["held"]:
                    f = frame_of(h)
                    if ctx.local_qp_of(f) != q or f.get("aeth", "msn") == msn:
                        continue
                    f.set("aeth", "msn", msn)
                    psn = st["psn"].get((q, msn))
                    if psn is not None:
                        f.set("bth", "psn", psn)
                    f.seal()
                    put_frame(h, f)
                    ctx.mutated(why)
            f = frame_of(item)
            if f is None or kind(f) != "ack" or f.get("aeth", "msn") >> 16:
                continue
            item["at"] = t + d
            st["held"].append(item)
            ctx.mutated(why)
        return outs

    return inputs, hook


v = variant("acks-read-retired",
            "Its transport ACK builder lags the data path by half of late_ns and builds each "
            "ACK when it sends it, with the MSN of the last message of the QP retired by then "
            "and the PSN of that message's last packet, on the EV of the packet that caused "
            "it (RCV-ACK-002.a read when it is sent; CONF-TIME-004; CONF-CMP-127).")
v.hooks["inputs"], v.hooks["outputs"] = acks_read_retired("acks-read-retired")
