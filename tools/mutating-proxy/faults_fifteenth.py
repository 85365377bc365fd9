"""The faults of the fifteenth reading: register widths, fields taken from the wrong packet
of a message, and edges of messages and rings.

Each fault is one bug a NIC team could ship. `faults.py` imports this module last, so the
helpers it uses are defined.
"""

from faults import U24, host_commands
from mods import (
    event_of, fault, flag_fields, flag_value, frame_of, frames, is_first, is_last,
    mutate_completion, out_events, out_frames, put,
)


def responder_completion(ev):
    return ev.get("event") == "completion" and ev.get("side") == "responder"


def track_packets(ctx, outs, key):
    """Counts the distinct PSNs of the payload writes of each (QP, MSN) of the responder."""
    seen = ctx.state.setdefault(key, {})
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "dma_write":
            seen.setdefault((ev.get("qpn"), ev.get("msn")), set()).add(ev.get("psn"))
    return seen


# ==== fields taken from the wrong packet of a message =====================================

m = fault("recv-cqe-opcode-of-first-packet",
          "The receive completion takes its opcode from the message's first packet: a "
          "Write-with-Immediate of several packets completes as a plain WRITE.",
          ["CQE-RECV-001", "CQE-OPCODE-001", "CQE-IMM-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    seen = track_packets(ctx, outs, m.name)
    for item in outs:
        ev = event_of(item)
        if ev is None or not responder_completion(ev):
            continue
        e = ev.get("entry") or {}
        if len(seen.get((e.get("qpn"), e.get("msn")), ())) < 2 or e.get("opcode") != 1:
            continue

        def f(e):
            e["opcode"] = 0

        mutate_completion(ev, f)
        ctx.mutated(m.name)
    return outs


m = fault("tseth-ts-per-message",
          "The TSETH timestamp is latched when a message starts: every packet of the "
          "message carries the clock of its first packet.",
          ["SND-TS-002", "SND-TS-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    first = ctx.state.setdefault(m.name, {})
    for item, f in frames(outs, ("data",)):
        if not f.has("tseth") or f.get("bth", "rtx"):
            continue
        qp = ctx.local_qp_of(f)
        ts = f.get("tseth", "tx_timestamp")
        if is_first(f):
            first[qp] = ts
        elif qp in first and first[qp] != ts:
            f.set("tseth", "tx_timestamp", first[qp])
            put(ctx, m, item, f)
    return outs


m = fault("data-pad-on-every-packet",
          "The pad count is computed once per message from its length and written into "
          "every packet's BTH: middle packets carry the last packet's pad bytes too.",
          ["PAY-PAD-001", "PAY-LEN-002", "SND-SEG-001"])


@out_frames(m, ("data",))
def _(ctx, f, item, m=m):
    if is_last(f) or not f.has("reth"):
        return
    pad = -f.get("reth", "dma_len") & 3
    if pad and f.get("bth", "pad_count") == 0:
        f.replace_payload(f.payload, pad)


m = fault("rtx-meth-msn-of-first-in-queue",
          "A batch of retransmissions takes the METH of the first packet queued: every "
          "retransmission of the batch carries the msn and rqmsn of the first.",
          ["METH-MSN-001", "METH-RQMSN-001", "SND-RTX-001", "SND-MSN-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    lead = {}
    for item, f in frames(outs, ("data",)):
        if not f.has("meth") or not f.get("bth", "rtx"):
            continue
        key = (item["at"], ctx.local_qp_of(f))
        if key not in lead:
            lead[key] = (f.get("meth", "msn"), f.get("meth", "rqmsn"))
            continue
        msn, rq = lead[key]
        if (f.get("meth", "msn"), f.get("meth", "rqmsn")) != (msn, rq):
            f.set("meth", "msn", msn)
            f.set("meth", "rqmsn", rq)
            put(ctx, m, item, f)
    return outs


# ==== register widths ======================================================================

def psn_delta_16(psn, first):
    """A PSN difference computed on the low 16 bits without wrap, as a signed value."""
    return (psn & 0xFFFF) - (first & 0xFFFF)


m = fault("reth-va-psn-delta-16bit",
          "The segmenter computes a packet's RETH va from its distance to the message's "
          "first PSN on the low 16 bits without wrap: past a 16-bit PSN boundary inside a "
          "message the address falls 2^16 PMTUs short.",
          ["SND-SEG-003", "RETH-VA-002", "WR-EXEC-001", "SND-RTX-001", "TPL-EXPAND-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    first = ctx.state.setdefault(m.name, {})
    for item, f in frames(outs, ("data",)):
        if not f.has("reth") or not f.has("meth"):
            continue
        key = (ctx.local_qp_of(f), f.get("meth", "msn"))
        psn = f.get("bth", "psn")
        if is_first(f):
            first[key] = psn
            continue
        if key not in first:
            continue
        k = (psn - first[key]) & U24
        bad = psn_delta_16(psn, first[key])
        if bad != k:
            va = f.get("reth", "va") + (bad - k) * ctx.pmtu()
            f.set("reth", "va", va & ((1 << 64) - 1))
            put(ctx, m, item, f)
    return outs


m = fault("rx-va-psn-delta-16bit",
          "The responder places a packet at its message's first address plus its PSN "
          "distance times the PMTU, the distance taken on the low 16 bits without wrap: "
          "past a 16-bit PSN boundary inside a message the bytes land 2^16 PMTUs low.",
          ["RCV-PLACE-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    first = ctx.state.setdefault(m.name, {})
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "dma_write" or ev.get("psn") is None:
            continue
        key = (ev.get("qpn"), ev.get("msn"))
        psn, va = int(ev["psn"]), int(ev.get("va", 0))
        if key not in first:
            first[key] = psn
            continue
        k = (psn - first[key]) & U24
        bad = psn_delta_16(psn, first[key])
        if bad != k and k < 0x8000:
            ev["va"] = (va + (bad - k) * ctx.pmtu()) & ((1 << 64) - 1)
            ctx.mutated(m.name)
    return outs


m = fault("recv-flag-gen-15bit",
          "The retirement flag's generation register is 15 bits wide: from MSN 0x8000 on "
          "flags carry a generation without bit 15.",
          ["FLAG-RECV-002", "RET-FLAG-001"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item, m=m):
    if ev.get("side") != "responder":
        return
    d = flag_fields(int(ev["value"]))
    d["generation"] &= 0x7FFF
    ev["value"] = flag_value(d)


m = fault("send-flag-gen-15bit",
          "The sender flag's generation register is 15 bits wide: a token seq of 0x8000 or "
          "more loses bit 15 in the flag.",
          ["FLAG-SEND-001", "TPL-EXPAND-007"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item, m=m):
    if ev.get("side") != "requester":
        return
    d = flag_fields(int(ev["value"]))
    d["generation"] &= 0x7FFF
    ev["value"] = flag_value(d)


m = fault("cq-consumer-16bit",
          "The consumer register of a completion queue keeps 16 bits of the count: once "
          "software has consumed 2^16 entries the queue looks full.",
          ["CQE-RING-004", "CQE-RING-005", "RET-ERR-002", "REC-IF-009", "RET-FLUSH-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    for item, c in host_commands(ins):
        if c.get("command") == "cq_consumer" and int(c["consumed"]) > 0xFFFF:
            c["consumed"] = int(c["consumed"]) & 0xFFFF
            ctx.mutated(m.name)
    return ins


m = fault("cqe-status-16bit-write",
          "The completion engine writes status as a 16-bit value: byte 11, reserved, "
          "repeats the status of a failed entry.",
          ["CQE-RESV-001", "CQE-LAYOUT-001"])


@out_events(m, ("completion",))
def _(ctx, ev, item, m=m):
    e = ev.get("entry") or {}
    if not e.get("status"):
        return

    def f(e):
        e["resv1"] = e["status"]

    mutate_completion(ev, f)


# ==== lengths and byte enables ==============================================================

m = fault("rx-msg-len-counts-pad",
          "The message-length counter adds each packet's payload before the pad is removed: "
          "receive completions and retirement flags of a message whose length is not a "
          "multiple of 4 count its pad bytes.",
          ["CQE-RECV-001", "FLAG-LEN-001", "RET-FLAG-001", "FLAG-RECV-002"])


@out_events(m, ("completion", "flag_write"))
def _(ctx, ev, item, m=m):
    if ev.get("side") != "responder":
        return
    if ev.get("event") == "flag_write":
        d = flag_fields(int(ev["value"]))
        if d["status"] == 0 and d["byte_len"] & 3:
            d["byte_len"] += -d["byte_len"] & 3
            ev["value"] = flag_value(d)
        return
    e = ev.get("entry") or {}
    if e.get("status") == 0 and int(e.get("byte_len", 0)) & 3:
        def f(e):
            e["byte_len"] += -e["byte_len"] & 3

        mutate_completion(ev, f)


m = fault("dma-last-be-one-lane-short",
          "The last-dword byte enables of a DMA write are computed one lane short: a "
          "payload write whose end is not dword aligned loses its last byte.",
          ["RCV-PLACE-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item in outs:
        ev = event_of(item)
        p = (ev or {}).get("payload") or {}
        if ev is None or ev.get("event") != "dma_write" or not p.get("bytes"):
            continue
        n = len(p["bytes"]) // 2
        if (int(ev.get("va", 0)) + n) % 4 and n > 1:
            p["bytes"] = p["bytes"][:-2]
            ctx.mutated(m.name)
    return outs


m = fault("data-ipv4-len-without-icrc",
          "Over IPv4 the data path writes total_len before the ICRC is appended: it is 4 "
          "bytes short.",
          ["ENC-LEN-001", "ENC-LEN-002", "DEC-STRUCT-001", "CONF-CMP-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item, f in frames(outs, ("data",)):
        if not f.has("ipv4"):
            continue
        f.seal()
        f.set("ipv4", "total_len", f.get("ipv4", "total_len") - 4)
        f.set("ipv4", "checksum", 0)
        f.set("ipv4", "checksum", f.ipv4_checksum())
        put(ctx, m, item, f, seal=False)
    return outs


m = fault("recv-cqe-wr-id-msn",
          "Receive completions carry the message's MSN in wr_id: the wr_id register is "
          "shared with the path that writes the MSN.",
          ["CQE-RECV-001"])


@out_events(m, ("completion",))
def _(ctx, ev, item, m=m):
    if ev.get("side") != "responder":
        return
    e = ev.get("entry") or {}
    if e.get("msn"):
        def f(e):
            e["wr_id"] = e["msn"]

        mutate_completion(ev, f)


# ==== order of outputs =======================================================================

m = fault("data-same-instant-pair-swapped",
          "The transmit scheduler has two lanes and drains the second first: two data "
          "packets of a QP sent at one instant leave in reverse order, and with them "
          "the order of the EVs the spray policy chose.",
          ["SND-ORDER-001", "SND-SPRAY-001", "SND-SPRAY-004"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    res = list(outs)
    i = 0
    while i + 1 < len(res):
        a, b = res[i], res[i + 1]
        fa, fb = frame_of(a), frame_of(b)
        if (fa is not None and fb is not None and fa.is_write() and fb.is_write()
                and a["at"] == b["at"] and ctx.local_qp_of(fa) == ctx.local_qp_of(fb)
                and not fa.get("bth", "rtx") and not fb.get("bth", "rtx")):
            res[i], res[i + 1] = b, a
            ctx.mutated(m.name)
            i += 2
            continue
        i += 1
    return res


m = fault("recv-cqe-after-flag-of-next",
          "The receive completion waits in a queue the flag writer does not: when one input "
          "retires two messages, the first's completion is written after the second's flag.",
          ["FLAG-ORDER-002", "CQE-RECV-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    res = list(outs)
    for i, item in enumerate(res):
        ev = event_of(item)
        if ev is None or not responder_completion(ev):
            continue
        # Find the next responder flag of another MSN at the same instant.
        for j in range(i + 1, len(res)):
            ej = event_of(res[j])
            if res[j]["at"] != item["at"]:
                break
            if (ej is not None and ej.get("event") == "flag_write"
                    and ej.get("side") == "responder"
                    and ej.get("msn") != (ev.get("entry") or {}).get("msn")):
                res.insert(j, res.pop(i))
                ctx.mutated(m.name)
                return res
    return res


# ==== message edges =========================================================================

m = fault("ackreq-on-penultimate",
          "The AckReq of a message's last packet is set one packet early, on the packet "
          "before the last, when the message has more than one packet.",
          ["SND-ACKREQ-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    prev = {}
    for item, f in frames(outs, ("data",)):
        if f.get("bth", "rtx"):
            continue
        qp = ctx.local_qp_of(f)
        if is_last(f) and not is_first(f) and f.get("bth", "ack_req") and qp in prev:
            pi, pf = prev[qp]
            f.set("bth", "ack_req", 0)
            put(ctx, m, item, f)
            if not pf.get("bth", "ack_req"):
                pf.set("bth", "ack_req", 1)
                put(ctx, m, pi, pf)
        prev[qp] = (item, f)
    return outs


m = fault("sack-ooo-16bit-distance",
          "The out-of-order count is a PSN distance taken on the low 16 bits: after a "
          "16-bit PSN boundary between cack_psn and the highest PSN received, CC_STATE "
          "ooo_count is 2^16 too large, saturated at its field.",
          ["CCS-OOO-001", "RCV-SACK-007"])


@out_frames(m, ("sack",))
def _(ctx, f, item, m=m):
    n = f.get("cc_state", "ooo_count")
    cack = f.get("seth", "cack_psn")
    if n and ((cack + n) & U24) >> 16 != cack >> 16:
        f.set("cc_state", "ooo_count", 0x7FFF)



m = fault("nack-psn-after-step",
          "The NACKed-PSN register is loaded after the receive PSN counter steps: NACKs name "
          "the PSN after the one they refuse, in NETH nack_psn and BTH psn.",
          ["NETH-PSN-001", "RCV-NACK-001", "OPC-PSN-002"])


@out_frames(m, ("nack",))
def _(ctx, f, item, m=m):
    p = (f.get("neth", "nack_psn") + 1) & U24
    f.set("neth", "nack_psn", p)
    f.set("bth", "psn", p)


m = fault("sack-cack-carry-late",
          "The cumulative-ACK register carries from bit 15 into bits 23:16 one SACK late: "
          "the first SACK after cack_psn crosses a 16-bit boundary keeps the old bits "
          "23:16.",
          ["SETH-CACK-001", "RCV-SACK-005", "OPC-PSN-002", "BTH-PSN-001", "PETH-RESP-001",
           "SETH-ACKPSN-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    last = ctx.state.setdefault(m.name, {})
    for item, f in frames(outs, ("sack", "probe-answer")):
        qp = ctx.local_qp_of(f)
        cack = f.get("seth", "cack_psn")
        old = last.get(qp)
        last[qp] = cack
        if old is None or old >> 16 == cack >> 16 or ((cack - old) & U24) >= 0x10000:
            continue
        bad = (old & 0xFF0000) | (cack & 0xFFFF)
        f.set("seth", "cack_psn", bad)
        f.set("bth", "psn", bad)
        put(ctx, m, item, f)
    return outs
