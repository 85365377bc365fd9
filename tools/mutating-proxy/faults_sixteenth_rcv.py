"""The faults of the sixteenth reading, responder side: the ICRC over the wrong span in one
packet kind, fields of a response taken from the wrong packet, registers of the wrong width,
clamps and pads at their edges, and outputs written in the wrong order or latched per step.

Each fault is one bug a NIC team building the responder could ship. `faults.py` imports this
module last, so the helpers it uses are defined.
"""

import struct
import zlib

from faults import completions, same_step_runs
from faults_fifteenth import responder_completion
from faults_thirteenth import dma_writes
from mods import (
    completion_entry, event_of, fault, flag_fields, flag_value, frames, is_first,
    mutate_completion, out_frames, put,
)

import roce


def responder_flag(ev):
    return ev.get("event") == "flag_write" and ev.get("side") == "responder"


# ---- the ICRC over the wrong span ---------------------------------------------------------

def icrc_of(f, ones=True, end=None, mask_flow_label=True):
    """The ICRC of frame `f` as a buggy CRC engine computes it: with or without the eight
    leading 0xFF bytes, up to byte `end` of the frame instead of the pad's end, and with or
    without the IPv6 flow label masked."""
    b = f.b
    ip = f.ip_off
    iph = bytearray(b[ip:ip + f.ip_hlen])
    if f.has("ipv4"):
        iph[1] = iph[8] = iph[10] = iph[11] = 0xFF
    else:
        iph[0] |= 0x0F
        iph[1] = 0xFF
        if mask_flow_label:
            iph[2] = iph[3] = 0xFF
        else:
            iph[1] = (iph[1] & 0x0F) | 0xF0
        iph[7] = 0xFF
    udp = bytearray(b[f.off["udp"]:f.off["udp"] + 8])
    udp[6] = udp[7] = 0xFF
    bth = bytearray(b[f.off["bth"]:f.off["bth"] + 12])
    bth[4] = 0xFF
    stop = f.icrc_off if end is None else end
    rest = b[f.off["bth"] + 12:stop]
    lead = b"\xff" * 8 if ones else b""
    return zlib.crc32(lead + bytes(iph) + bytes(udp) + bytes(bth) + bytes(rest))


def wrong_icrc(f, value):
    """Seals `f`, then puts `value` as its ICRC; a non-zero UDP checksum is computed over
    the wrong ICRC, as the sender's checksum unit sees it."""
    f.seal()
    if f.icrc_found() == (value & 0xFFFFFFFF):
        return False
    f.b[f.icrc_off:f.icrc_off + 4] = struct.pack("<I", value & 0xFFFFFFFF)
    if f.get("udp", "checksum"):
        f.set("udp", "checksum", f.udp_checksum())
    return True


m = fault("sack-icrc-without-cc-state",
          "The SACK builder appends CC_STATE after the CRC engine has closed: the ICRC of a "
          "SACK covers the packet up to the end of the SETH only.",
          ["ICRC-COVER-001", "ICRC-CALC-001", "CONF-CMP-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item, f in frames(outs, ("sack",)):
        if f.has("cc_state") and wrong_icrc(f, icrc_of(f, end=f.off["cc_state"])):
            put(ctx, m, item, f, seal=False)
    return outs


m = fault("nack-icrc-without-leading-ones",
          "The NACK path seeds its CRC engine with the IP header: the eight 0xFF bytes that "
          "stand for the LRH are left out of the ICRC of NACKs.",
          ["ICRC-COVER-001", "ICRC-CALC-001", "CONF-CMP-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item, f in frames(outs, ("nack",)):
        if wrong_icrc(f, icrc_of(f, ones=False)):
            put(ctx, m, item, f, seal=False)
    return outs


m = fault("sack-icrc-v6-flow-label-unmasked",
          "Over IPv6 the SACK builder masks the traffic class and the hop limit for the ICRC "
          "but not the flow label, which it writes after the CRC unit has read the header.",
          ["ICRC-MASK-001", "ICRC-CALC-001", "CONF-CMP-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item, f in frames(outs, ("sack", "probe-answer")):
        if f.has("ipv6") and wrong_icrc(f, icrc_of(f, mask_flow_label=False)):
            put(ctx, m, item, f, seal=False)
    return outs


# ---- fields of a response taken from the wrong packet -----------------------------------

def track_rx_messages(ctx, ins, key):
    """Per (local QP, MSN) of the writes injected: the EV, time, PSN and RETH va of the
    message's first packet, and the PSN, EV and time of every packet."""
    st = ctx.state.setdefault(key, {"first": {}, "pkts": {}, "last_msn": {}})
    for item, f in frames(ins, ("data",), only_sound=True):
        if not f.has("meth"):
            continue
        k = (f.get("bth", "dest_qp"), f.get("meth", "msn"))
        at = int(item.get("at", 0))
        if is_first(f) and k not in st["first"]:
            st["first"][k] = {"ev": f.ev(), "at": at, "psn": f.get("bth", "psn"),
                              "va": f.get("reth", "va") if f.has("reth") else None,
                              "len": f.get("reth", "dma_len") if f.has("reth") else None}
        st["pkts"].setdefault(k, []).append((f.get("bth", "psn"), f.ev(), at))
        st["last_msn"][f.get("bth", "dest_qp")] = f.get("meth", "msn")
    return st


m = fault("ack-ev-of-first-packet",
          "The transport ACK takes its EV from the message context, loaded by the message's "
          "first packet: an ACK leaves on the EV of the first packet of the message it "
          "acknowledges instead of the EV of the packet that caused it.",
          ["RCV-ACK-002", "CONF-CMP-017"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    track_rx_messages(ctx, ins, m.name)
    return ins


@out_frames(m, ("ack",))
def _(ctx, f, item, m=m):
    st = ctx.state.get(m.name)
    qp = ctx.local_qp_of(f)
    if st is None or qp is None:
        return
    first = st["first"].get((qp, f.get("aeth", "msn") & 0xFFFF))
    if first is not None:
        f.set_ev(first["ev"])


m = fault("rx-va-from-previous-arrival",
          "The placement engine ignores the RETH va of a packet that is not the first of its "
          "message and places it where the previous packet of the message it received ended, "
          "as if packets always arrived in order.",
          ["RCV-PLACE-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    last = ctx.state.setdefault(m.name, {})
    for item, ev in dma_writes(outs):
        k = (ev.get("qpn"), ev.get("msn"))
        n = len(ev["payload"]["bytes"]) // 2
        va = int(ev.get("va", 0))
        prev = last.get(k)
        if prev is not None and ev.get("psn") is not None and prev[0] is not None \
                and int(ev["psn"]) != (prev[0] + 1) & 0xFFFFFF and int(ev["psn"]) != prev[0]:
            bad = prev[1]
            if bad != va:
                ev["va"] = bad
                ctx.mutated(m.name)
            va = bad
        last[k] = (None if ev.get("psn") is None else int(ev["psn"]), va + n)
    return outs


m = fault("dma-same-instant-payload-of-first",
          "The receive data buffer has one read port per cycle: when two writes of one QP "
          "are placed at one instant, the second's DMA write carries the first's bytes.",
          ["RCV-PLACE-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    first = {}
    for item, ev in dma_writes(outs):
        k = (item.get("at"), ev.get("qpn"))
        data = ev["payload"]["bytes"]
        if k not in first:
            first[k] = (ev.get("psn"), data)
            continue
        psn, fdata = first[k]
        if psn == ev.get("psn"):
            continue
        n = len(data)
        bad = (fdata + "00" * n)[:n]
        if bad != data:
            ev["payload"]["bytes"] = bad
            ctx.mutated(m.name)
    return outs


m = fault("ack-msn-of-first-retired",
          "The ACK builder latches the MSN at the first retirement of a step: when one input "
          "retires several messages of a QP, its transport ACK names the first of them "
          "instead of the last.",
          ["AETH-MSN-001", "RCV-ACK-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    firsts = {}
    for run in same_step_runs(outs, responder_flag):
        if len(run) > 1:
            ev = event_of(run[0])
            firsts[(run[0]["at"], ev.get("qpn"))] = ev.get("msn")
    if not firsts:
        return outs
    for item, f in frames(outs, ("ack",)):
        msn = firsts.get((item.get("at"), ctx.local_qp_of(f)))
        if msn is not None and msn != f.get("aeth", "msn"):
            f.set("aeth", "msn", msn)
            put(ctx, m, item, f)
    return outs


m = fault("sack-ttl-of-trigger",
          "The SACK builder takes the IP header of the triggering write as its template and "
          "keeps its TTL or hop limit as received instead of the sender's own value.",
          ["ENC-HOP-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    hops = ctx.state.setdefault(m.name, {})
    for item, f in frames(ins, ("data",), only_sound=True):
        h = f.get("ipv4", "ttl") if f.has("ipv4") else f.get("ipv6", "hop_limit")
        hops[(f.get("bth", "dest_qp"), f.get("bth", "psn"))] = h
    return ins


@out_frames(m, ("sack",))
def _(ctx, f, item, m=m):
    hops = ctx.state.get(m.name) or {}
    trig = (f.get("seth", "cack_psn") + f.get("seth", "ack_psn_offset")) & 0xFFFFFF
    h = hops.get((ctx.local_qp_of(f), trig))
    if h is None:
        return
    if f.has("ipv4"):
        f.set("ipv4", "ttl", h)
    else:
        f.set("ipv6", "hop_limit", h)


m = fault("nack-ip-len-of-trigger",
          "The NACK builder starts from the IPv4 header of the NACKed write and rewrites "
          "every field but total_len: NACKs carry the write's IP length.",
          ["ENC-LEN-001", "ENC-LEN-002", "DEC-STRUCT-001", "CONF-CMP-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    lens = ctx.state.setdefault(m.name, {})
    for item, f in frames(ins, ("data",), only_sound=True):
        if f.has("ipv4"):
            lens[(f.get("bth", "dest_qp"), f.get("bth", "psn"))] = f.get("ipv4", "total_len")
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    lens = ctx.state.get(m.name) or {}
    for item, f in frames(outs, ("nack",)):
        if not f.has("ipv4"):
            continue
        n = lens.get((ctx.local_qp_of(f), f.get("neth", "nack_psn")))
        if n is None or n == f.get("ipv4", "total_len"):
            continue
        ip = f.off["ipv4"]
        b = f.b
        b[ip + 2:ip + 4] = n.to_bytes(2, "big")
        h = bytearray(b[ip:ip + f.ip_hlen])
        h[10] = h[11] = 0
        b[ip + 10:ip + 12] = roce.checksum16(bytes(h)).to_bytes(2, "big")
        body = item.get("output")
        body["bytes"] = b.hex()
        body.pop("fields", None)
        ctx.mutated(m.name)
    return outs


# ---- registers of the wrong width ---------------------------------------------------------

def narrowed(field, bits):
    """A completion entry's `field` kept in its low `bits` bits (for `completions`)."""
    def narrow(ctx, ev, e):
        if field in e:
            e[field] &= (1 << bits) - 1
    return narrow


m = fault("recv-cqe-msn-8bit",
          "The msn field of receive completions is written from an 8-bit copy of the "
          "retirement pointer: from MSN 256 on, receive completions carry msn mod 256.",
          ["CQE-RECV-001"])


completions(m, "responder", narrowed("msn", 8))


m = fault("recv-cqe-qpn-16bit",
          "The entry builder of receive completions takes the QP number through a 16-bit "
          "field of the retirement table: a receive completion of a QP at or above 65536 "
          "carries the QPN without bits 23:16.",
          ["CQE-RECV-001"])


completions(m, "responder", narrowed("qpn", 16))


m = fault("recv-flag-addr-32bit",
          "The address register of the retirement-flag writer is 32 bits wide: a flag whose "
          "slot lies at or above 4 GiB is written with address bits 63:32 cleared.",
          ["FLAG-RECV-001", "RET-FLAG-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item in outs:
        ev = event_of(item)
        if ev is not None and responder_flag(ev) and int(ev.get("addr", 0)) >> 32:
            ev["addr"] = int(ev["addr"]) & 0xFFFFFFFF
            ctx.mutated(m.name)
    return outs


m = fault("rx-dma-len-24bit",
          "The message-length register of the receive pipeline is 24 bits wide: RETH "
          "dma_len loses bits 31:24 when a write is received.",
          ["RCV-MSG-001", "RCV-MSG-003", "FLAG-RECV-002", "RET-FLAG-001", "CQE-RECV-001",
           "RCV-PLACE-003"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    for item, f in frames(ins, ("data",), only_sound=True):
        if f.has("reth") and f.get("reth", "dma_len") >> 24:
            f.set("reth", "dma_len", f.get("reth", "dma_len") & 0xFFFFFF)
            put(ctx, m, item, f)
    return ins


# ---- clamps and pads at their edges ------------------------------------------------------

m = fault("sack-ackpsn-far-behind-clamped-high",
          "The offset clamp of the SACK builder has one bound: a trigger 2^15 or more PSNs "
          "before cack_psn is clamped to +0x7FFF instead of -0x8000.",
          ["SETH-ACKPSN-003", "RCV-SACK-005"])


@out_frames(m, ("sack",))
def _(ctx, f, item, m=m):
    if f.get("seth", "ack_psn_offset") == -0x8000:
        f.set("seth", "ack_psn_offset", 0x7FFF)


m = fault("rx-msg-len-pad-removed-twice",
          "The pad is subtracted from the last packet's length by the parser and again by the "
          "length counter: receive completions and retirement flags of a message whose "
          "length is not a multiple of 4 count its pad bytes too few.",
          ["CQE-RECV-001", "FLAG-RECV-002", "RET-FLAG-001", "FLAG-LEN-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item in outs:
        ev = event_of(item)
        if ev is None:
            continue
        if responder_completion(ev):
            n = completion_entry(ev).get("byte_len", 0)
            if n & 3:
                mutate_completion(ev, lambda e: e.update(byte_len=n - (-n & 3)))
                ctx.mutated(m.name)
        elif responder_flag(ev):
            d = flag_fields(int(ev["value"]))
            if d["byte_len"] & 3:
                d["byte_len"] -= -d["byte_len"] & 3
                ev["value"] = flag_value(d)
                ctx.mutated(m.name)
    return outs


m = fault("dma-zero-len-writes-dword",
          "The DMA engine has no zero-length write: a message of zero bytes is placed as one "
          "4-byte write of zeros at its address.",
          ["RCV-PLACE-003"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    track_rx_messages(ctx, ins, m.name)
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.get(m.name)
    if st is None:
        return outs
    done = ctx.state.setdefault(m.name + ".done", set())
    res = []
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "dma_write":
            # The reference's own write of the message, if it makes one.
            done.add((ev.get("qpn"), ev.get("msn")))
        if ev is not None and ev.get("event") in ("flag_write", "completion") \
                and ev.get("side") == "responder":
            qpn = ev.get("qpn") if ev.get("event") == "flag_write" \
                else completion_entry(ev).get("qpn")
            msn = ev.get("msn") if ev.get("event") == "flag_write" \
                else completion_entry(ev).get("msn")
            first = st["first"].get((qpn, msn))
            if first is not None and first["len"] == 0 and first["va"] is not None \
                    and (qpn, msn) not in done:
                done.add((qpn, msn))
                res.append({"at": item["at"], "output": {"kind": "event", "event": {
                    "event": "dma_write", "qpn": qpn, "psn": first["psn"], "msn": msn,
                    "va": first["va"], "payload": {"bytes": "00000000"}}}})
                ctx.mutated(m.name)
        res.append(item)
    return res


m = fault("dma-tail-lanes-reversed",
          "The byte-lane steering of a write's partial last dword is wired in reverse: the "
          "bytes after the last dword boundary of a payload write land in reverse order.",
          ["RCV-PLACE-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item, ev in dma_writes(outs):
        data = bytes.fromhex(ev["payload"]["bytes"])
        va = int(ev.get("va", 0))
        end = va + len(data)
        k = end % 4
        if k < 2 or len(data) < k:
            continue
        bad = data[:len(data) - k] + data[len(data) - k:][::-1]
        if bad != data:
            ev["payload"]["bytes"] = bad.hex()
            ctx.mutated(m.name)
    return outs


m = fault("recv-flag-words-swapped",
          "The retirement-flag writer puts the 64-bit flag on the bus as two 32-bit words in "
          "the wrong order: byte_len lands in the high word and generation, status and valid "
          "in the low word.",
          ["FLAG-RECV-002", "RET-FLAG-001", "FLAG-VALID-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item in outs:
        ev = event_of(item)
        if ev is not None and responder_flag(ev):
            v = int(ev["value"])
            bad = ((v & 0xFFFFFFFF) << 32) | (v >> 32)
            if bad != v:
                ev["value"] = bad
                ctx.mutated(m.name)
    return outs


m = fault("rx-rkey-24bit",
          "The rkey lookup keeps the 24-bit region index and drops the 8-bit key in bits "
          "31:24 of RETH rkey.",
          ["RCV-PLACE-002", "RCV-PLACE-003"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    for item, f in frames(ins, ("data",), only_sound=True):
        if f.has("reth") and f.get("reth", "rkey") >> 24:
            f.set("reth", "rkey", f.get("reth", "rkey") & 0xFFFFFF)
            put(ctx, m, item, f)
    return ins
