"""The faults of the thirteenth reading: the edges earlier readings left thin.

The specification read for the rules no earlier fault broke: the encapsulation of control
frames (ethertypes, the IP protocol and next header, the tag's VID, the source MAC's group
bit, the UDP checksum over IPv4), reserved NAK codes and syndrome kinds, payload on opcodes
that carry none, endpoint operations seen from the NIC half, a PCIe DMA engine at page and
dword edges, clocks and counters of fixed width, the CPU half's commands and reports through
narrow mailboxes, the entry builder's registers, and a shared control-frame FIFO. Each fault
is one bug a NIC team could ship.
`faults.py` imports this module last, so the helpers it uses are defined.
"""

from faults import U24, in_cpu
from faults_eleventh import stale_field
from mods import (
    completion_entry, event_of, fault, frame_of, frames, kind, mutate_completion, out_events,
    out_frames, put, sound,
)

import roce


def device(ctx, f):
    return 0


# ==== encapsulation of control frames =====================================================

m = fault("ack-src-mac-group-bit",
          "The ACK path reads its source MAC from the station register shared with the "
          "multicast filter, whose group bit is set: ACKs leave with eth.src byte 0 bit 0 "
          "set.",
          ["ENC-ETH-002", "CONF-CMP-026"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item, m=m):
    f.set("eth", "src", f.get("eth", "src") | (1 << 40))


m = fault("ack-dst-mac-broadcast",
          "The neighbour table of the ACK path is never loaded, so ACKs are flooded: they "
          "leave with the broadcast address as eth.dst.",
          ["CONF-CMP-026"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item, m=m):
    f.set("eth", "dst", (1 << 48) - 1)


m = fault("probe-vid-reset-ones",
          "The VLAN register of the probe path resets to all ones and is never loaded: on a "
          "tagged link probes carry VID 0xFFF, which 802.1Q reserves.",
          ["ENC-VLAN-001", "CONF-CMP-026", "EV-PROBE-005"])


@out_frames(m, ("probe",))
def _(ctx, f, item, m=m):
    if f.has("vlan"):
        f.set("vlan", "vid", 0xFFF)


m = fault("ack-tag-inner-ethertype-zero",
          "The tag inserter of the ACK path writes the inner ethertype from a register only "
          "the data path loads: on a tagged link ACKs carry inner ethertype 0.",
          ["ENC-ETH-001", "ENC-FRAME-001", "ENC-ROCE-001", "CONF-CMP-001"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item, m=m):
    if f.has("vlan"):
        f.set("vlan", "ethertype", 0)


m = fault("nack-ipv4-protocol-zero",
          "The IPv4 header template of the NACK builder leaves protocol at its reset value "
          "0 instead of 17.",
          ["ENC-IPV4-001", "ENC-ROCE-001", "ENC-FRAME-001", "CONF-CMP-001", "RCV-NACK-001"])


@out_frames(m, ("nack",))
def _(ctx, f, item, m=m):
    if f.has("ipv4"):
        f.set("ipv4", "protocol", 0)


m = fault("sack-ipv6-next-header-zero",
          "Over IPv6 the SACK builder leaves next_header at its reset value 0 (a hop-by-hop "
          "options header) instead of 17.",
          ["ENC-IPV6-001", "ENC-ROCE-001", "ENC-FRAME-001", "CONF-CMP-001", "RCV-SACK-005"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item, m=m):
    if f.has("ipv6"):
        f.set("ipv6", "next_header", 0)


m = fault("ack-udp-checksum-before-icrc",
          "Over IPv4 the ACK path computes a UDP checksum before the ICRC is appended, over "
          "zeros where the ICRC goes: the checksum is non-zero and wrong.",
          ["ENC-UDP-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item, f in frames(outs, ("ack", "nak")):
        if not f.has("ipv4"):
            continue
        f.seal(udp_checksum=True)
        icrc = f.icrc_found()
        f.set_icrc(0)
        c = f.udp_checksum()
        f.set_icrc(icrc)
        if c == f.udp_checksum():
            continue
        f.set("udp", "checksum", c)
        put(ctx, m, item, f, seal=False)
    return outs


# ==== reserved codes and opcodes without payload =========================================

m = fault("nak-code-shifted-by-three",
          "The NAK encoder adds the code table's base offset twice: every NAK leaves with "
          "its code plus 3 (a remote access error as syndrome 0x65, a reserved code).",
          ["AETH-NAK-001", "AETH-MRC-001", "RCV-NAK-002", "RCV-PLACE-002", "AETH-SYN-001"])


@out_frames(m, ("nak",))
def _(ctx, f, item, m=m):
    s = f.get("aeth", "syndrome")
    f.set("aeth", "syndrome", (s & 0xE0) | ((s & 0x1F) + 3) & 0x1F)


m = fault("nak-kind-bit5-dropped",
          "The syndrome builder drops bit 5 of a NAK syndrome: every NAK leaves with kind "
          "10, which is reserved.",
          ["AETH-SYN-002", "AETH-MRC-001", "RCV-NAK-002", "AETH-SYN-001", "RCV-PLACE-002"])


@out_frames(m, ("nak",))
def _(ctx, f, item, m=m):
    f.set("aeth", "syndrome", f.get("aeth", "syndrome") & ~0x20)


m = fault("ack-min-payload-dword",
          "The small-frame path pads every packet to a 4-byte payload: ACKs carry four "
          "zero bytes after the AETH.",
          ["PAY-NONE-001"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item, m=m):
    if not f.payload:
        f.replace_payload(b"\x00" * 4, 0)


m = fault("probe-pad-of-last-data",
          "The probe builder copies pad_count from the BTH of the QP's last data packet and "
          "appends that many pad bytes.",
          ["PAY-NONE-001", "PAY-PAD-001", "EV-PROBE-005"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    pads = ctx.state.setdefault(m.name, {})
    for item in outs:
        f = frame_of(item)
        if f is None:
            continue
        qp = ctx.local_qp_of(f)
        if kind(f) == "data":
            pads[qp] = f.get("bth", "pad_count")
        elif kind(f) == "probe" and pads.get(qp):
            f.replace_payload(b"", pads[qp])
            put(ctx, m, item, f)
    return outs


m = fault("sack-pad-of-trigger",
          "The SACK builder copies BTH byte 1 of the write that triggers it, pad_count "
          "included, and appends that many pad bytes.",
          ["PAY-NONE-001", "PAY-PAD-001", "RCV-SACK-005", "PETH-RESP-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    pads = ctx.state.setdefault(m.name, {})
    for item, f in frames(ins, ("data",), only_sound=True):
        pads[f.get("bth", "dest_qp")] = f.get("bth", "pad_count")
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    pads = ctx.state.get(m.name) or {}
    for item, f in frames(outs, ("sack",)):
        p = pads.get(ctx.local_qp_of(f))
        if p and f.get("bth", "pad_count") == 0:
            f.replace_payload(b"", p)
            put(ctx, m, item, f)
    return outs


# ==== endpoint operations ==================================================================

m = fault("ersp-resv2-reset-ones",
          "The EETH builder leaves resv2 at its reset value 0xFFFF.",
          ["EETH-RESV-001", "CONF-CMP-033"])


@out_frames(m, ("ersp",))
def _(ctx, f, item, m=m):
    f.set("eeth", "resv2", 0xFFFF)


m = fault("ersp-answered",
          "The endpoint block does not check the opcode of what arrives at QPN 2: an "
          "endpoint response is answered with a response of its own, as if it were a "
          "request.",
          ["ERTH-RESP-001", "REC-IF-018"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    got = ctx.state.setdefault(m.name, [])
    for item, f in frames(ins, ("ersp",), only_sound=True):
        got.append((int(item["at"]), (item.get("input") or {}).get("port", 0), f))
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    got = ctx.state.get(m.name) or []
    ctx.state[m.name] = []
    for at, port, f in got:
        g = roce.parse(bytes(f.b))
        src, dst = g.get("eth", "src"), g.get("eth", "dst")
        g.set("eth", "src", dst)
        g.set("eth", "dst", src)
        ip = "ipv4" if g.has("ipv4") else "ipv6"
        src, dst = g.get(ip, "src"), g.get(ip, "dst")
        g.set(ip, "src", dst)
        g.set(ip, "dst", src)
        g.set("eeth", "status", 0)
        g.seal()
        outs.append({"at": at, "output": {"kind": "frame", "port": port, "bytes": g.hex()}})
        ctx.mutated(m.name)
    outs.sort(key=lambda it: int(it["at"]))
    return outs


m = fault("report-ersp-request-id-16bit",
          "The firmware copies an endpoint response's request_id through a 16-bit mailbox "
          "field: EndpointResponse reports lose bits 31:16 of request_id.",
          ["REC-IF-018", "CONF-CMP-032"])


@out_events(m, ("report:endpoint_response",))
def _(ctx, ev, item, m=m):
    ev["request_id"] = int(ev.get("request_id", 0)) & 0xFFFF


m = fault("report-ersp-port-status-shifted",
          "The firmware mailbox starts the port_status field one bit late: "
          "EndpointResponse reports carry the response's port_status shifted right by one.",
          ["REC-IF-018", "CONF-CMP-032"])


@out_events(m, ("report:endpoint_response",))
def _(ctx, ev, item, m=m):
    ev["port_status"] = int(ev.get("port_status", 0)) >> 1


# ==== the PCIe DMA engine ==================================================================

def dma_writes(outs):
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "dma_write" and (ev.get("payload") or {}).get(
                "bytes"):
            yield item, ev


m = fault("dma-4k-wraps-in-page",
          "The DMA engine splits a write at a 4 KiB boundary, as PCIe asks, but the piece "
          "after the boundary keeps the page of the first: those bytes land at the start of "
          "the same page.",
          ["RCV-PLACE-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    res = []
    for item in outs:
        ev = event_of(item)
        p = (ev or {}).get("payload") or {}
        if ev is None or ev.get("event") != "dma_write" or not p.get("bytes"):
            res.append(item)
            continue
        va = int(ev.get("va", 0))
        data = bytes.fromhex(p["bytes"])
        head = 4096 - (va & 0xFFF)
        if head >= len(data):
            res.append(item)
            continue
        first = dict(ev, payload={"bytes": data[:head].hex()})
        second = dict(ev, va=va & ~0xFFF, payload={"bytes": data[head:].hex()})
        res.append({"at": item["at"], "output": {"kind": "event", "event": first}})
        res.append({"at": item["at"], "output": {"kind": "event", "event": second}})
        ctx.mutated(m.name)
    return res


m = fault("dma-unaligned-head-zeroed",
          "A payload write that starts inside a dword is issued from the dword's start with "
          "every byte enable set: the bytes before the payload in that dword are "
          "overwritten with zeros.",
          ["RCV-PLACE-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item, ev in dma_writes(outs):
        va = int(ev.get("va", 0))
        k = va & 3
        if k:
            ev["va"] = va - k
            ev["payload"]["bytes"] = "00" * k + ev["payload"]["bytes"]
            ctx.mutated(m.name)
    return outs


m = fault("dma-tail-dword-ones",
          "A payload write that ends inside a dword is issued to the dword's end with every "
          "byte enable set, and the stale lanes of the write buffer hold ones: up to three "
          "bytes of 0xFF land after the payload.",
          ["RCV-PLACE-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item, ev in dma_writes(outs):
        n = len(ev["payload"]["bytes"]) // 2
        end = int(ev.get("va", 0)) + n
        k = (4 - end % 4) % 4
        if k:
            ev["payload"]["bytes"] += "ff" * k
            ctx.mutated(m.name)
    return outs


# ==== clocks and counters of fixed width ===================================================

m = fault("tseth-clock-15bit",
          "The timestamp counter of the send engine is 15 bits wide: TSETH tx_timestamp "
          "bit 15 is always 0, so the clock runs backwards every 32768 units.",
          ["SND-TS-002", "SND-TS-003"])


@out_frames(m, ("data",))
def _(ctx, f, item, m=m):
    if f.has("tseth"):
        f.set("tseth", "tx_timestamp", f.get("tseth", "tx_timestamp") & 0x7FFF)


m = fault("probe-ts-15bit",
          "The probe builder reads the timestamp clock through a 15-bit bus: PETH "
          "tx_timestamp bit 15 is always 0.",
          ["EV-PROBE-005", "SND-TS-003"])


@out_frames(m, ("probe",))
def _(ctx, f, item, m=m):
    f.set("peth", "tx_timestamp", f.get("peth", "tx_timestamp") & 0x7FFF)


m = fault("probe-answer-ts-of-last-write",
          "The probe answer reflects the TSETH timestamp of the QP's last write, kept for "
          "SACKs, instead of the probe's PETH timestamp.",
          ["CCS-TS-001", "PETH-RESP-001", "EV-PROBE-004", "RCV-SACK-007"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    last = ctx.state.setdefault(m.name, {})
    for item, f in frames(ins, ("data",), only_sound=True):
        last[f.get("bth", "dest_qp")] = f.get("tseth", "tx_timestamp") if f.has("tseth") else 0
    return ins


@out_frames(m, ("probe-answer",))
def _(ctx, f, item, m=m):
    last = ctx.state.get(m.name) or {}
    qp = ctx.local_qp_of(f)
    if qp in last:
        f.set("cc_state", "tx_timestamp", last[qp])


m = fault("sack-rcvd-bytes-8bit",
          "The received-bytes counter behind CC_STATE is 8 bits wide: rcvd_bytes wraps "
          "every 64 KiB instead of every 2^24 units.",
          ["CCS-BYTES-001", "RCV-SACK-007", "PETH-RESP-001", "EV-PROBE-004"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item, m=m):
    f.set("cc_state", "rcvd_bytes", f.get("cc_state", "rcvd_bytes") & 0xFF)


m = fault("nack-ts-of-previous-nack",
          "The NETH builder latches tx_timestamp one NACK late: each NACK of a QP reflects "
          "the timestamp of the packet the NACK before it named, the first reflects 0.",
          ["NETH-TS-001", "RCV-NACK-001"])
stale_field(m, ("nack",), "neth", "tx_timestamp", lambda ctx, f: ctx.local_qp_of(f), reset=0)


m = fault("ersp-request-id-of-previous",
          "The EETH builder latches request_id one response late: each endpoint response "
          "echoes the request_id of the request before it, the first echoes 0.",
          ["EETH-ECHO-001", "CONF-CMP-033"])
stale_field(m, ("ersp",), "eeth", "request_id", device, reset=0)


# ==== the CPU half's mailboxes ============================================================

m = fault("report-progress-snd-una-16bit",
          "The firmware mailbox that carries Progress reports has a 16-bit snd_una field: "
          "bits 23:16 of snd_una are lost.",
          ["REC-IF-002", "CONF-CMP-065"])


@out_events(m, ("report:progress",))
def _(ctx, ev, item, m=m):
    if "snd_una" in ev:
        ev["snd_una"] = int(ev["snd_una"]) & 0xFFFF


m = fault("report-nack-psn-16bit",
          "The firmware mailbox that carries Nack reports has a 16-bit PSN field: bits "
          "23:16 of the NACKed PSN are lost.",
          ["REC-IF-004"])


@out_events(m, ("report:nack",))
def _(ctx, ev, item, m=m):
    if "psn" in ev:
        ev["psn"] = int(ev["psn"]) & 0xFFFF


m = fault("cmd-retransmit-psn-16bit",
          "The command mailbox from the CPU half has a 16-bit PSN field: a Retransmit "
          "command's PSN loses bits 23:16 before the NIC half reads it.",
          ["REC-IF-010", "REC-RTO-004", "REC-IF-008", "SND-SCHED-001", "SND-SCHED-003",
           "SND-RTX-001", "SND-SEG-001"])


@in_cpu(m, ("retransmit",))
def _(ctx, c, item, m=m):
    c["psn"] = int(c.get("psn", 0)) & 0xFFFF


# ==== the completion-entry builder ========================================================

m = fault("cqe-imm-register-not-cleared",
          "The entry builder's imm register is not cleared between entries: an entry "
          "without an immediate carries the imm of the last entry that had one.",
          ["CQE-IMM-001", "CQE-SEND-001", "CQE-SEND-002", "CQE-RECV-001", "CQE-REJECT-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault(m.name, {"imm": 0})
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "completion":
            continue
        e = completion_entry(ev)
        if e.get("has_imm"):
            st["imm"] = int(e.get("imm", 0))
        elif st["imm"] and int(e.get("imm", 0)) != st["imm"]:
            mutate_completion(ev, lambda d, v=st["imm"]: d.update(imm=v))
            ctx.mutated(m.name)
    return outs


m = fault("cqe-qpn-top-byte-ones",
          "The entry builder writes qpn from a 32-bit register whose top byte resets to "
          "0xFF: the reserved byte 15 of every completion entry is 0xFF.",
          ["CQE-RESV-001", "CQE-LAYOUT-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "completion":
            continue
        e = completion_entry(ev)
        if e.get("qpn_resv") != 0xFF:
            mutate_completion(ev, lambda d: d.update(qpn_resv=0xFF))
            ctx.mutated(m.name)
    return outs


# ==== a shared control-frame FIFO =========================================================

m = fault("ctl-fifo-depth-two",
          "The control-frame FIFO holds two frames and has no back-pressure: of three or "
          "more ACKs, SACKs, NACKs and probe answers due at one instant, the third and "
          "later are lost.",
          ["RCV-SACK-001", "RCV-ACK-001", "RCV-ACK-003", "RCV-NACK-001", "EV-PROBE-004",
           "RCV-DUP-002", "RCV-SACK-004"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    seen = {}
    res = []
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) in ("ack", "nak", "sack", "nack", "probe-answer"):
            at = int(item["at"])
            seen[at] = seen.get(at, 0) + 1
            if seen[at] > 2:
                ctx.mutated(m.name)
                continue
        res.append(item)
    return res


# ==== the receive length check ============================================================

m = fault("rx-full-pmtu-discarded",
          "The receive length check compares the payload with the PMTU using < where it "
          "must use <=: a write that carries exactly the PMTU is discarded as too long.",
          ["RCV-SEG-001", "RCV-SEG-002", "RCV-PLACE-003", "RCV-SACK-001", "RCV-WIN-001",
           "RET-ORDER-001", "RCV-ACK-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    res = []
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) == "data" and sound(f) and len(f.payload) == ctx.pmtu():
            ctx.mutated(m.name)
            continue
        res.append(item)
    return res


# ==== the transmit scheduler ==============================================================

m = fault("data-psn-bit23-dropped",
          "The PSN register of the send engine is 23 bits wide: data packets whose PSN has "
          "bit 23 set leave with it clear.",
          ["SND-PSN-001", "BTH-PSN-001", "CONF-CMP-019"])


@out_frames(m, ("data",))
def _(ctx, f, item, m=m):
    f.set("bth", "psn", f.get("bth", "psn") & 0x7FFFFF)


m = fault("probe-psn-23bit",
          "The probe builder takes snd_nxt through a 23-bit field: a probe whose PSN has "
          "bit 23 set leaves with it clear.",
          ["EV-PROBE-005", "OPC-PSN-002"])


@out_frames(m, ("probe",))
def _(ctx, f, item, m=m):
    f.set("bth", "psn", f.get("bth", "psn") & 0x7FFFFF & U24)


# ==== reserved values on the answer and endpoint paths ====================================

m = fault("sack-m-reset-ones",
          "The register that drives SETH m resets to all ones and no marking policy writes "
          "it: every SACK and probe answer carries m = 3, a reserved value.",
          ["SETH-M-001", "RCV-SACK-006"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item, m=m):
    f.set("seth", "m", 3)


m = fault("probe-tver-one",
          "The BTH template of the probe builder was written for a later transport version: "
          "probes carry tver 1.",
          ["BTH-TVER-001", "EV-PROBE-005"])


@out_frames(m, ("probe",))
def _(ctx, f, item, m=m):
    f.set("bth", "tver", 1)


m = fault("ereq-psn-counter",
          "The endpoint block numbers its requests in the BTH: each endpoint request "
          "carries PSN 1, 2, 3 and so on instead of 0.",
          ["REC-IF-017", "OPC-PSN-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault(m.name, {"n": 0})
    for item, f in frames(outs, ("ereq",)):
        st["n"] += 1
        f.set("bth", "psn", st["n"] & U24)
        put(ctx, m, item, f)
    return outs
