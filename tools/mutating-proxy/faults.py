"""The faults and the legal variants.

Each fault is one realistic NIC bug, written from the specification as a hardware team's bug
list would read: its name, one sentence saying what is wrong in the hardware, and the
requirements it breaks, any of which a correct first divergence may name. A fault changes
one thing: what the device sends or writes (an output mutation), or how it reads what it is
given (an input mutation: a register too narrow, a field ignored, a configuration register
misread). Each variant is a choice the specification leaves to the device; it must pass every
scenario whose capabilities it claims.

The faults are grouped by the chapter of the rule they break.
"""

import copy
import json
import struct

import roce
from mods import (
    completion_entry, config, cqe_decode, cqe_encode, delay, device_cpu, each_frame, event_of,
    every, fault, flag_fields, flag_value, frame_of, frames, in_frames, is_first, is_last, kind,
    lag_behind, latency_of, mutate_completion, out_events, out_frames, put, put_frame, requester,
    responder, set_completion_entry, shared_mode, sound, variant,
)

# The source port a careless NIC uses for every control packet: EV 0xC0000000.
FIXED_EV = 0xC0000000
U24 = 0xFFFFFF


def other_ev(f):
    """A fixed EV that is surely not the frame's own."""
    return FIXED_EV if f.ev() != FIXED_EV else FIXED_EV + 0x10000


def refresh_udp(f):
    """Recomputes the UDP checksum alone, when the frame carries one (after a fault wrote
    a field the device computes last)."""
    if f.get("udp", "checksum"):
        f.set("udp", "checksum", f.udp_checksum())


# ==== wire format, section 2: encapsulation ===============================================

m = fault("sack-mac-unswapped",
          "The SACK builder copies the Ethernet header of the triggering packet without "
          "swapping source and destination MAC addresses.",
          ["CONF-CMP-026"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    src, dst = f.get("eth", "src"), f.get("eth", "dst")
    f.set("eth", "src", dst)
    f.set("eth", "dst", src)


m = fault("sack-ip-unswapped",
          "The SACK builder copies the IP addresses of the triggering packet without swapping "
          "them, so the SACK is addressed to the device itself.",
          ["CONF-CMP-026"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    h = "ipv4" if f.has("ipv4") else "ipv6"
    src, dst = f.get(h, "src"), f.get(h, "dst")
    f.set(h, "src", dst)
    f.set(h, "dst", src)


m = fault("sack-vlan-stripped",
          "The SACK path bypasses the VLAN insertion block, so SACKs leave untagged on a "
          "tagged link.",
          ["CONF-CMP-026"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.strip_vlan()


m = fault("ack-vlan-priority-tag",
          "Transport ACKs are tagged from the default VLAN register, VLAN ID 0 (a priority "
          "tag), instead of the link's VLAN.",
          ["CONF-CMP-026"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item):
    if f.has("vlan"):
        f.set("vlan", "vid", 0)


m = fault("ack-udp-port-4789",
          "Transport ACKs go to UDP port 4789, the VXLAN default left in the port register, "
          "instead of 4791.",
          ["ENC-UDP-001", "CONF-CMP-026"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item):
    f.set("udp", "dst_port", 4789)


m = fault("sack-udp-length-short",
          "The SACK builder writes the UDP length without the ICRC's 4 bytes.",
          ["ENC-LEN-001", "DEC-STRUCT-001", "CONF-CMP-001"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("udp", "length", f.get("udp", "length") - 4)


m = fault("data-ipv4-checksum-stale",
          "The IPv4 header checksum of data packets is computed before the TTL is written, "
          "so it is wrong on the wire.",
          ["ENC-IPV4-003"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if not f.has("ipv4"):
        return False
    ttl = f.get("ipv4", "ttl")
    f.set("ipv4", "ttl", 0)
    f.seal()
    f.set("ipv4", "ttl", ttl)
    return False


m = fault("nack-ttl-zero",
          "NACKs leave with IPv4 TTL 0, an unprogrammed TTL register, and die at the first "
          "router.",
          [], keywords=("ttl",))


@out_frames(m, ("nack",))
def _(ctx, f, item):
    if f.has("ipv4"):
        f.set("ipv4", "ttl", 0)


m = fault("sack-hop-limit-one",
          "SACKs over IPv6 leave with hop limit 1 and die at the first router.",
          [], keywords=("hop_limit",))


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    if f.has("ipv6"):
        f.set("ipv6", "hop_limit", 1)


m = fault("data-udp-checksum-no-pseudo",
          "Over IPv6 the UDP checksum of data packets is computed without the pseudo-header, "
          "so it is non-zero and wrong.",
          ["ENC-UDP-005"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if not f.has("ipv6"):
        return False
    f.seal()
    seg = bytearray(f.b[f.off["udp"]:f.ip_end])
    seg[6] = seg[7] = 0
    f.set("udp", "checksum", roce.checksum16(bytes(seg)) or 0xFFFF)
    return False


m = fault("probe-flow-label-high",
          "Probes over IPv6 carry 0xF in flow label bits 19:16, left over from a wider "
          "flow-label register.",
          ["ENC-EV-001", "CONF-CMP-017"])


@out_frames(m, ("probe",))
def _(ctx, f, item):
    if f.has("ipv6"):
        f.set("ipv6", "flow_label", f.get("ipv6", "flow_label") | 0xF0000)


m = fault("data-ev-low-half-v4",
          "Over IPv4 the UDP source port of data packets takes EV bits 15:0 instead of "
          "bits 31:16.",
          ["ENC-EV-002", "SND-PATH-001", "CONF-CMP-017", "SND-SPRAY-001", "SND-SPRAY-003",
           "SND-SPRAY-004", "SND-SPRAY-005"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.has("ipv4"):
        f.set("udp", "src_port", f.ev() & 0xFFFF)


# ==== wire format, section 7: the ICRC ====================================================

m = fault("rtx-icrc-stale",
          "A retransmission is sent with the ICRC of its first transmission, computed "
          "before the rtx bit was set.",
          ["ICRC-CALC-001", "CONF-CMP-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if not f.get("bth", "rtx"):
        return False
    f.set("bth", "rtx", 0)
    f.seal()
    stale = f.icrc_found()
    f.set("bth", "rtx", 1)
    f.set_icrc(stale)
    refresh_udp(f)
    return False


m = fault("nack-icrc-big-endian",
          "The NACK path appends the ICRC big-endian.",
          ["ICRC-ORDER-001", "ICRC-CALC-001", "CONF-CMP-001"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    f.seal()
    f.b[f.icrc_off:f.icrc_off + 4] = struct.pack(">I", f.icrc_found())
    refresh_udp(f)
    return False


m = fault("ack-icrc-unmasked",
          "The ICRC of transport ACKs is computed over the real TOS, TTL and header "
          "checksum instead of masking them with ones.",
          ["ICRC-MASK-001", "ICRC-CALC-001", "CONF-CMP-001"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item):
    f.seal()
    f.set_icrc(f.icrc_computed(mask_variant=False))
    refresh_udp(f)
    return False


# ==== wire format, section 3: the BTH =====================================================

m = fault("sack-pkey-no-membership",
          "SACKs carry P_Key 0x7FFF: the full-membership bit is dropped on the SACK path.",
          ["BTH-PKEY-001", "CONF-CMP-026"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("bth", "pkey", f.get("bth", "pkey") & 0x7FFF)


m = fault("sack-dest-qp-own",
          "SACKs are addressed to the device's own QP number, copied from the triggering "
          "packet, instead of the peer's.",
          ["RCV-SACK-005", "CONF-CMP-026", "EV-PROBE-004", "PETH-RESP-001"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    qp = ctx.local_qp_of(f)
    if qp is not None:
        f.set("bth", "dest_qp", qp)


m = fault("ack-becn-set",
          "Transport ACKs reflect FECN into BECN as an IBTA RC responder would, setting a bit "
          "MRC reserves.",
          ["BTH-RESV-002"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item):
    f.set("bth", "becn", 1)


m = fault("ersp-resv8-set",
          "Endpoint responses have BTH byte 8 bit 6 set, a reserved bit the response "
          "builder leaves uninitialised.",
          ["BTH-RESV-003", "CONF-CMP-033"])


@out_frames(m, ("ersp",))
def _(ctx, f, item):
    f.set("bth", "resv8", f.get("bth", "resv8") | 0x40)


m = fault("rtx-bit-clear",
          "Retransmissions leave with BTH rtx 0, as if they were first transmissions.",
          ["BTH-RTX-001", "SND-RTX-002", "REC-RTO-004"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    f.set("bth", "rtx", 0)


m = fault("ackreq-off-by-one",
          "AckReq is set on PSNs one past each multiple of ack_req_every instead of on the "
          "multiples.",
          ["SND-ACKREQ-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if is_last(f):
        return
    n = int(ctx.nic.get("ack_req_every", 16)) or 16
    f.set("bth", "ack_req", 1 if f.get("bth", "psn") % n == 1 else 0)


m = fault("ackreq-missing-on-last",
          "The last packet of a message carries AckReq only when its PSN is a multiple of "
          "ack_req_every.",
          ["SND-ACKREQ-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    n = int(ctx.nic.get("ack_req_every", 16)) or 16
    if is_last(f) and f.get("bth", "psn") % n:
        f.set("bth", "ack_req", 0)


m = fault("data-pad-missing",
          "Data packets are sent without pad bytes and with pad_count 0 when the payload is "
          "not a multiple of 4.",
          ["PAY-PAD-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if len(f.payload) % 4:
        f.replace_payload(f.payload, pad_count=0)


m = fault("probe-psn-zero",
          "Probes carry BTH PSN 0 instead of the next PSN the QP will assign.",
          ["EV-PROBE-005", "OPC-PSN-002"])


@out_frames(m, ("probe",))
def _(ctx, f, item):
    f.set("bth", "psn", 0)


m = fault("peer-qpn-16bit",
          "The peer-QPN register is 16 bits wide, so every packet to a peer QP at or above "
          "65536 goes to the wrong QP.",
          ["SND-QPN-001", "RCV-SACK-005", "RCV-ACK-002", "RCV-NACK-001", "RCV-NAK-002",
           "EV-PROBE-005"])


@out_frames(m, "*")
def _(ctx, f, item):
    f.set("bth", "dest_qp", f.get("bth", "dest_qp") & 0xFFFF)


# ==== wire format, sections 5.1 to 5.4, and sender segmentation ===========================

def first_va(ctx, f, name):
    """The RETH va of the first packet of a data packet's message, learnt from the first
    packets the device sent."""
    st = ctx.state.setdefault(name, {})
    key = (f.get("bth", "dest_qp"), f.get("meth", "msn"))
    if is_first(f):
        st[key] = f.get("reth", "va")
    return st.get(key)


m = fault("reth-va-first-only",
          "Every packet of a message carries the RETH va of its first packet, as an IBTA RC "
          "write does, instead of its own.",
          ["RETH-VA-002", "SND-SEG-003"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    va0 = first_va(ctx, f, "reth-va-first-only")
    if va0 is not None and not is_first(f):
        f.set("reth", "va", va0)


m2 = fault("reth-len-remaining",
           "RETH dma_len carries the bytes left from the packet to the end of the message "
           "(the withdrawn draft rule) instead of the message length.",
           ["RETH-LEN-003", "SND-SEG-003"])


@out_frames(m2, ("data",))
def _(ctx, f, item):
    va0 = first_va(ctx, f, "reth-len-remaining")
    if va0 is not None and not is_first(f):
        f.set("reth", "dma_len", f.get("reth", "dma_len") - (f.get("reth", "va") - va0))


m = fault("tx-va-32bit",
          "The remote-address register of the send engine is 32 bits wide: data packets "
          "carry RETH va with bits 63:32 cleared.",
          ["SND-SEG-003", "RETH-VA-002", "WR-EXEC-001", "TPL-EXPAND-003"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    f.set("reth", "va", f.get("reth", "va") & 0xFFFFFFFF)


m = fault("data-duplicated",
          "The transmit queue retries a first transmission: the packet leaves twice, both "
          "times with rtx 0.",
          ["SND-PSN-001", "BTH-RTX-001"])


@m.hook("outputs")
def _(ctx, outs):
    import copy
    st = ctx.state.setdefault("data-duplicated", set())
    res = []
    for item in outs:
        res.append(item)
        f = frame_of(item)
        if f is not None and kind(f) == "data" and not f.get("bth", "rtx"):
            key = (f.get("bth", "dest_qp"), f.get("meth", "msn"))
            if key not in st:
                st.add(key)
                res.append(copy.deepcopy(item))
                ctx.mutated("data-duplicated")
    return res


m = fault("meth-rqmsn-last",
          "A single-packet write without immediate carries the RQMSN of the last "
          "Write-with-Immediate instead of the next one.",
          ["METH-RQMSN-001", "SND-RQMSN-002"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.opcode == roce.MRC_WRITE_ONLY:
        f.set("meth", "rqmsn", (f.get("meth", "rqmsn") - 1) & 0xFFFF)


m = fault("immdt-little-endian",
          "The immediate is written into the ImmDt in host (little-endian) byte order.",
          ["IMMDT-LAYOUT-001", "SND-SEG-004", "WR-EXEC-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.has("immdt"):
        v = f.get("immdt", "imm")
        f.set("immdt", "imm", int.from_bytes(v.to_bytes(4, "big"), "little"))


m = fault("rtx-payload-offset",
          "A retransmission re-reads its payload from one byte past the packet's local "
          "address.",
          ["SND-RTX-001", "SND-SEG-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.get("bth", "rtx") and f.payload:
        # Host memory holds a mod 251 at address a (CONF-MEM-001).
        f.replace_payload(bytes((x + 1) % 251 for x in f.payload))


m = fault("rtx-timestamp-zero",
          "Retransmissions take their TSETH timestamp from a clock that was reset, so it runs "
          "backwards.",
          # A stamp of 0 more than 2^15 units after the last reads as ahead, modulo 2^16:
          # then only the steady rate of SND-TS-003 shows it.
          ["SND-TS-002", "SND-TS-003"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.get("bth", "rtx") and f.has("tseth"):
        f.set("tseth", "tx_timestamp", 0)


# ==== sender: paths ========================================================================

m = fault("spray-last-ev-unprogrammed",
          "The EV table holds one entry fewer than the profile, so packets meant for the "
          "profile's last EV leave with EV 0.",
          # CONF-CMP-017 reports an EV outside the profile under ENC-EV-001 or ENC-EV-002 too.
          ["SND-PATH-001", "CONF-CMP-017", "ENC-EV-002", "ENC-EV-001", "SND-SPRAY-001", "SND-SPRAY-003", "SND-SPRAY-004",
           "SND-SPRAY-005"])


@out_frames(m, ("data", "probe"))
def _(ctx, f, item):
    qp = ctx.qps.get(ctx.local_qp_of(f)) or {}
    profile = list(qp.get("evs") or []) + list(qp.get("backup_evs") or [])
    if len(profile) > 1 and f.ev() == profile[-1]:
        f.set_ev(0)


m = fault("rtx-same-ev",
          "Retransmissions go out on the EV of the lost transmission even when other EVs are "
          "usable.",
          ["SND-RTX-002", "SND-PATH-001", "SND-SPRAY-001", "SND-SPRAY-003", "SND-SPRAY-004",
           "SND-SPRAY-005"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    st = ctx.state.setdefault("rtx-same-ev", {})
    key = (f.get("bth", "dest_qp"), f.get("bth", "psn"))
    if f.get("bth", "rtx") and key in st:
        f.set_ev(st[key])
    st[key] = f.ev()


m = fault("probe-id-from-zero",
          "The probe_id counter starts at 0, so every probe carries one less than it should.",
          ["EV-PROBE-005"])


@out_frames(m, ("probe",))
def _(ctx, f, item):
    f.set("peth", "probe_id", (f.get("peth", "probe_id") - 1) & 0xFFFF)


m = fault("probe-ftype-zero",
          "Probes carry PETH ftype 0, the timestamp-format register left at reset.",
          ["EV-PROBE-005", "PETH-FTYPE-001"])


@out_frames(m, ("probe",))
def _(ctx, f, item):
    f.set("peth", "ftype", 0)


# ==== receiver: transport ACKs and NAKs ===================================================

m = fault("ack-msn-next",
          "Transport ACKs carry the domain's next MSN instead of the last one retired.",
          ["RCV-ACK-002", "AETH-MSN-001"])


@out_frames(m, ("ack",))
def _(ctx, f, item):
    f.set("aeth", "msn", (f.get("aeth", "msn") + 1) & 0xFFFF)


m = fault("ack-ev-fixed",
          "Transport ACKs leave on a fixed control source port instead of the EV of the "
          "packet that caused them.",
          ["RCV-ACK-002", "RCV-NAK-002"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item):
    f.set_ev(other_ev(f))


m = fault("nak-syndrome-psn-error",
          "A remote access error is NAKed with syndrome 0x60 (PSN sequence error) instead of "
          "0x62.",
          ["AETH-MRC-001", "RCV-PLACE-002", "RCV-NAK-002"])


@out_frames(m, ("nak",))
def _(ctx, f, item):
    if f.get("aeth", "syndrome") == 0x62:
        f.set("aeth", "syndrome", 0x60)


m = fault("ack-msn-12bit",
          "The MSN in transport ACKs comes from the 12-bit retirement-ring index, losing bits "
          "15:12.",
          ["AETH-MSN-001", "RCV-ACK-002", "RCV-NAK-002"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item):
    f.set("aeth", "msn", f.get("aeth", "msn") & 0xFFF)


m = fault("ack-not-repeated",
          "The ACK engine never sends an ACK for an MSN it already acknowledged, so a "
          "duplicate of a retired message gets no transport ACK.",
          ["RCV-DUP-002"])


@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("ack-not-repeated", set())
    keep = []
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "ack":
            key = (f.get("bth", "dest_qp"), f.get("aeth", "msn"))
            if key in st:
                ctx.mutated("ack-not-repeated")
                continue
            st.add(key)
        keep.append(item)
    return keep


# ==== receiver: SACKs =====================================================================

m = fault("sack-cack-epsn",
          "The cumulative-ACK register holds epsn instead of epsn - 1, so every SACK claims "
          "one PSN too many.",
          ["SETH-CACK-001", "RCV-SACK-005", "SETH-BITMAP-002", "SETH-ACKPSN-003"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "cack_psn", (f.get("seth", "cack_psn") + 1) & U24)
    if not f.get("seth", "pr"):
        f.set("seth", "ack_psn_offset", f.get("seth", "ack_psn_offset") - 1)
    f.set("seth", "sack_offset", f.get("seth", "sack_offset") - 1)


m = fault("sack-bitmap-shifted",
          "The SACK bitmap is taken from the receive bitmap one bit too low, so bit i reports "
          "PSN epsn + i - 1.",
          ["SETH-BITMAP-001", "SETH-BITMAP-002", "RCV-SACK-005"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "sack_bitmap", (f.get("seth", "sack_bitmap") << 1) & ((1 << 64) - 1))


m = fault("sack-mpr-zero",
          "The mpr register is not wired to the SACK builder: every SACK advertises mpr 0.",
          ["RCV-SACK-005"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "mpr", 0)


m = fault("sack-entropy-first",
          "A coalesced SACK reports the EV of the first write it covers instead of the "
          "triggering (latest) one.",
          ["SETH-EV-001", "RCV-SACK-005"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    qp = ctx.local_qp_of(f)
    writes = ctx.rx_writes.get(qp, [])
    st = ctx.state.setdefault("sack-entropy-first", {})
    used = st.get(qp, 0)
    at = int(item["at"])
    new = [w for w in writes[used:] if w[0] <= at]
    st[qp] = used + len(new)
    if len(new) > 1:
        f.set("seth", "entropy", new[0][2])


m = fault("sack-ev-fixed",
          "SACKs leave on a fixed control source port instead of the EV of their triggering "
          "packet.",
          ["RCV-SACK-006"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    f.set_ev(other_ev(f))


m = fault("sack-ts-zero",
          "The SACK builder does not reflect the TSETH timestamp: CC_STATE tx_timestamp is "
          "always 0.",
          ["CCS-TS-001", "RCV-SACK-007", "PETH-RESP-001", "EV-PROBE-004"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("cc_state", "tx_timestamp", 0)


m = fault("sack-ooo-zero",
          "The out-of-order counter is never read: CC_STATE ooo_count is always 0.",
          ["CCS-OOO-001", "RCV-SACK-007"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("cc_state", "ooo_count", 0)


m = fault("sack-rcvd-bytes-in-bytes",
          "CC_STATE rcvd_bytes counts bytes instead of 256-byte units.",
          ["CCS-BYTES-001", "RCV-SACK-007"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("cc_state", "rcvd_bytes", (f.get("cc_state", "rcvd_bytes") << 8) & U24)


m = fault("sack-resv12-garbage",
          "SETH byte 12, reserved, is left uninitialised (0xA5).",
          ["SETH-RESV-001"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "resv12", 0xA5)


m = fault("probe-answer-pr-clear",
          "Probe answers are sent with SETH pr 0, like any SACK.",
          ["SETH-PR-001", "PETH-RESP-001", "EV-PROBE-004"])


@out_frames(m, ("probe-answer",))
def _(ctx, f, item):
    f.set("seth", "pr", 0)


m = fault("probe-answer-id-missing",
          "Probe answers carry ack_psn_offset 0 instead of the probe's probe_id.",
          ["SETH-ACKPSN-002", "PETH-RESP-001", "EV-PROBE-004"])


@out_frames(m, ("probe-answer",))
def _(ctx, f, item):
    f.set("seth", "ack_psn_offset", 0)


m = fault("ackreq-ignored",
          "The receive pipeline drops the AckReq bit, so a write that asks for a SACK waits "
          "for coalescing or the timer.",
          ["RCV-SACK-001"])


@in_frames(m, ("data",))
def _(ctx, f, item):
    f.set("bth", "ack_req", 0)


m = fault("sack-timer-late",
          "The SACK timer's prescaler is wrong: a SACK the timer sends leaves 3 us late.",
          ["RCV-SACK-004", "RCV-ACK-001"])


@m.hook("outputs")
def _(ctx, outs):
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "sack" and int(item["at"]) not in ctx.input_times:
            delay(ctx, item, ctx.late_ns + 1000, "sack-timer-late")
    return outs


# ==== receiver: NACKs and the window ======================================================

m = fault("nack-reason-no-bitmap",
          "An out-of-window write is NACKed with reason NO_BITMAP instead of PSN_OOR_WINDOW.",
          ["RCV-WIN-002"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    if f.get("neth", "reason") == 0x0B:
        f.set("neth", "reason", 0x06)


m = fault("nack-ts-zero",
          "NACKs do not reflect the NACKed packet's timestamp: NETH tx_timestamp is 0.",
          ["NETH-TS-001", "RCV-NACK-001", "CONF-CMP-017"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    f.set("neth", "tx_timestamp", 0)


m = fault("nack-ev-fixed",
          "NACKs leave on a fixed control source port instead of the NACKed packet's EV.",
          ["RCV-NACK-001", "CONF-CMP-017"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    f.set_ev(other_ev(f))


m = fault("rcv-window-plus-128",
          "The window check compares against mpr + 1, so a responder accepts 128 PSNs beyond "
          "the window it advertises.",
          ["RCV-WIN-001", "RCV-WIN-002"])


@m.hook("start")
def _(ctx, manifest):
    if not responder(ctx) or requester(ctx):
        return manifest
    import copy
    manifest = copy.deepcopy(manifest)
    nic = manifest.setdefault("nic", {})
    nic["mpr"] = min(int(nic.get("mpr", 2)) + 1, 64)
    return manifest


@m.hook("outputs")
def _(ctx, outs):
    # The SACKs advertise the configured mpr; only the check is wrong.
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) in ("sack", "probe-answer") and f.get("seth", "mpr") != ctx.mpr():
            f.set("seth", "mpr", ctx.mpr())
            f.seal()
            put_frame(item, f)
    return outs


@m.hook("inputs")
def _(ctx, ins):
    # Exercised when a write arrives in the 128 PSNs past the window, judged from the
    # device's last SACK.
    if not responder(ctx) or requester(ctx):
        return ins
    w = ctx.mpr() * 128
    for item, f in frames(ins, ("data",)):
        qp = f.get("bth", "dest_qp")
        last = ctx.last_sack.get(qp)
        q = ctx.qps.get(qp) or {}
        epsn = ((last[1] + 1) & U24) if last else q.get("peer_initial_psn", 0)
        d = (f.get("bth", "psn") - epsn) & U24
        if w <= d < w + 128:
            ctx.mutated("rcv-window-plus-128")
    return ins


# ==== receiver: placement (DMA writes) ====================================================

m = fault("dma-va-plus-64",
          "The placement engine adds a 64-byte descriptor offset to every DMA write address.",
          ["RCV-PLACE-003"])


@out_events(m, ("dma_write",))
def _(ctx, ev, item):
    ev["va"] = int(ev["va"]) + 64


m = fault("dma-write-after-flag",
          "The write engine retries the last payload write of a message after the message's "
          "retirement flag.",
          ["FLAG-LAST-001"])


@m.hook("outputs")
def _(ctx, outs):
    res = []
    last = {}
    for item in outs:
        ev = event_of(item)
        res.append(item)
        if ev is None:
            continue
        if ev.get("event") == "dma_write":
            last[(ev.get("qpn"), ev.get("msn"))] = item
        elif ev.get("event") == "flag_write" and ev.get("side") == "responder":
            w = last.get((ev.get("qpn"), ev.get("msn")))
            if w is not None:
                import copy
                c = copy.deepcopy(w)
                c["at"] = item["at"]
                res.append(c)
                ctx.mutated("dma-write-after-flag")
    return res


m = fault("dma-duplicate",
          "The first payload write of each message is issued twice (a posted-write retry).",
          ["RCV-PLACE-004", "RCV-DUP-001"])


@m.hook("outputs")
def _(ctx, outs):
    import copy
    st = ctx.state.setdefault("dma-duplicate", set())
    res = []
    for item in outs:
        res.append(item)
        ev = event_of(item)
        if ev is not None and ev.get("event") == "dma_write":
            key = (ev.get("qpn"), ev.get("msn"))
            if key not in st:
                st.add(key)
                res.append(copy.deepcopy(item))
                ctx.mutated("dma-duplicate")
    return res


m = fault("dma-includes-pad",
          "The placement length is taken before the pad is removed, so the pad bytes are "
          "written after the payload.",
          ["RCV-PLACE-003"])


@m.hook("inputs")
def _(ctx, ins):
    # Remember the pad of each write the device is given.
    st = ctx.state.setdefault("dma-includes-pad", {})
    for item in ins:
        f = frame_of(item)
        if f is not None and f.is_write():
            st[(f.get("bth", "dest_qp"), f.get("bth", "psn"))] = f.get("bth", "pad_count")
    return ins


@out_events(m, ("dma_write",))
def _(ctx, ev, item):
    pad = ctx.state.get("dma-includes-pad", {}).get((ev.get("qpn"), ev.get("psn")), 0)
    if pad:
        ev["payload"]["bytes"] += "00" * pad


m = fault("flag-before-data",
          "The retirement flag is posted as soon as the last packet is accepted, ahead of the "
          "message's payload writes still queued.",
          ["FLAG-ORDER-001", "FLAG-ORDER-002"])


@m.hook("outputs")
def _(ctx, outs):
    res = list(outs)
    for i, item in enumerate(list(res)):
        ev = event_of(item)
        if ev is None or ev.get("event") != "flag_write" or ev.get("side") != "responder":
            continue
        key = (ev.get("qpn"), ev.get("msn"))
        j = next((k for k, o in enumerate(res)
                  if (event_of(o) or {}).get("event") == "dma_write"
                  and ((event_of(o) or {}).get("qpn"), (event_of(o) or {}).get("msn")) == key),
                 None)
        cur = res.index(item)
        if j is not None and j < cur:
            res.pop(cur)
            item["at"] = res[j]["at"]
            res.insert(j, item)
            ctx.mutated("flag-before-data")
    return res


m = fault("rx-va-32bit",
          "The address register of the placement engine is 32 bits wide: the RETH va is "
          "truncated to its low 32 bits when a write is received.",
          ["RCV-PLACE-003", "RCV-PLACE-002"])


@in_frames(m, ("data",))
def _(ctx, f, item):
    f.set("reth", "va", f.get("reth", "va") & 0xFFFFFFFF)


m = fault("rx-dma-len-16bit",
          "The message-length register is 16 bits wide: RETH dma_len loses bits 31:16 when a "
          "write is received.",
          ["RCV-MSG-001", "RCV-MSG-003", "FLAG-RECV-002", "RET-FLAG-001", "CQE-RECV-001",
           "RCV-PLACE-003"])


@in_frames(m, ("data",))
def _(ctx, f, item):
    f.set("reth", "dma_len", f.get("reth", "dma_len") & 0xFFFF)


m = fault("rx-rkey-16bit",
          "The rkey lookup uses only the low 16 bits of RETH rkey.",
          ["RCV-PLACE-002", "RCV-PLACE-003"])


@in_frames(m, ("data",))
def _(ctx, f, item):
    f.set("reth", "rkey", f.get("reth", "rkey") & 0xFFFF)


m = fault("rx-dest-qp-16bit",
          "The QP lookup of the receive pipeline uses only the low 16 bits of BTH dest_qp.",
          ["RCV-QP-001", "RCV-PLACE-003", "RCV-SACK-001", "RCV-SACK-005", "ERTH-RESP-001"])


@in_frames(m, "*")
def _(ctx, f, item):
    f.set("bth", "dest_qp", f.get("bth", "dest_qp") & 0xFFFF)


# ==== completion: flags ===================================================================

m = fault("recv-flag-slot-off-by-one",
          "The retirement flag slot is computed from MSN + 1, so each flag lands in the next "
          "message's slot.",
          ["FLAG-RECV-001", "RET-FLAG-001"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    if ev.get("side") != "responder":
        return
    q = ctx.qps.get(ev.get("qpn")) or {}
    base, slots = q.get("recv_flag_base"), q.get("recv_flag_slots")
    if base is None or not slots:
        return
    ev["addr"] = int(base) + 8 * ((int(ev["msn"]) + 1) % int(slots))


m = fault("recv-flag-slot-8bit",
          "The retirement-flag slot index is 8 bits wide: with more than 256 slots, MSN m "
          "lands in slot (m mod slots) mod 256.",
          ["FLAG-RECV-001", "RET-FLAG-001"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    if ev.get("side") != "responder":
        return
    q = ctx.qps.get(ev.get("qpn")) or {}
    base, slots = q.get("recv_flag_base"), q.get("recv_flag_slots")
    if base is None or not slots:
        return
    ev["addr"] = int(base) + 8 * ((int(ev["msn"]) % int(slots)) & 0xFF)


m = fault("recv-flag-twice",
          "The retirement flag is written twice, the second time by a write retry after the "
          "next message's flag.",
          ["FLAG-RECV-002", "RET-FLAG-001", "RET-ORDER-001", "FLAG-ORDER-001"])


@m.hook("outputs")
def _(ctx, outs):
    import copy
    res = []
    prev = None
    for item in outs:
        res.append(item)
        ev = event_of(item)
        if ev is not None and ev.get("event") == "flag_write" and ev.get("side") == "responder":
            if prev is not None and prev["output"]["event"].get("qpn") == ev.get("qpn"):
                c = copy.deepcopy(prev)
                c["at"] = item["at"]
                res.append(c)
                ctx.mutated("recv-flag-twice")
            prev = item
    return res


m = fault("flag-valid-clear",
          "Flags are written with the valid bit 0.",
          ["FLAG-VALID-001"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    d = flag_fields(int(ev["value"]))
    d["valid"] = 0
    ev["value"] = flag_value(d)


m = fault("send-flag-twice",
          "The sender flag is written twice, the second time by a completion retry.",
          ["FLAG-SEND-001", "ORD-SEND-003"])


@m.hook("outputs")
def _(ctx, outs):
    import copy
    res = []
    for item in outs:
        res.append(item)
        ev = event_of(item)
        if ev is not None and ev.get("event") == "flag_write" and ev.get("side") == "requester":
            res.append(copy.deepcopy(item))
            ctx.mutated("send-flag-twice")
    return res


m = fault("flag-flush-success",
          "A flushed work request's sender flag says SUCCESS: the status field is not "
          "updated on the flush path.",
          ["FLAG-STATUS-001", "FLAG-SEND-001"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    d = flag_fields(int(ev["value"]))
    if ev.get("side") == "requester" and d["status"] == 0x15:
        d["status"] = 0
        ev["value"] = flag_value(d)


m = fault("recv-flag-len-zero",
          "Retirement flags carry byte_len 0: the byte counter is read after it was cleared.",
          ["FLAG-RECV-002", "RET-FLAG-001", "FLAG-LEN-001"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    d = flag_fields(int(ev["value"]))
    if ev.get("side") == "responder" and d["byte_len"]:
        d["byte_len"] = 0
        ev["value"] = flag_value(d)


# ==== completion: completion entries ======================================================

def drop_events(m, pred):
    @m.hook("outputs")
    def _(ctx, outs, m=m):
        keep = []
        for item in outs:
            ev = event_of(item)
            if ev is not None and pred(ctx, ev):
                ctx.mutated(m.name)
                continue
            keep.append(item)
        return keep


m = fault("recv-cqe-missing",
          "Receive completions of Writes with Immediate are never written.",
          ["CQE-RECV-001", "WWI-ORDER-001"])
drop_events(m, lambda ctx, ev: ev.get("event") == "completion" and ev.get("side") == "responder")


m = fault("send-cqe-reordered",
          "The completion engine writes each pair of sender completions of one batch in "
          "reverse order, in ring order.",
          ["CQE-SEND-003", "RET-SEND-001", "CQE-RING-001"])


@m.hook("outputs")
def _(ctx, outs):
    def is_send_cqe(o):
        e = event_of(o) or {}
        return e.get("event") == "completion" and e.get("side") == "requester"

    pairs = []
    i = 0
    while i + 1 < len(outs):
        if is_send_cqe(outs[i]) and is_send_cqe(outs[i + 1]):
            pairs.append((i, i + 1))
            i += 2
        else:
            i += 1
    for a, b in pairs:
        ea, eb = event_of(outs[a]), event_of(outs[b])
        qa, qb = ea.get("queue"), eb.get("queue")
        outs[a]["output"]["event"], outs[b]["output"]["event"] = eb, ea
        # The ring slots stay in write order; their contents swap.
        if qa and qb and qa.get("cq") == qb.get("cq"):
            ea_entry, eb_entry = completion_entry(ea), completion_entry(eb)
            ea_entry["phase"], eb_entry["phase"] = eb_entry["phase"], ea_entry["phase"]
            for k in ("slot", "addr"):
                qa[k], qb[k] = qb[k], qa[k]
            from mods import set_completion_entry
            set_completion_entry(ea, ea_entry)
            set_completion_entry(eb, eb_entry)
        ctx.mutated("send-cqe-reordered")
    return outs


m = fault("send-cqe-missing",
          "The completion of a signaled work request that succeeds is not written when "
          "another completion of its QP is written in the same cycle.",
          ["CQE-SEND-001", "WR-SIGNALED-001", "RET-SEND-001"])


@m.hook("outputs")
def _(ctx, outs):
    res = []
    last = None
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "completion" and ev.get("side") == "requester":
            e = completion_entry(ev)
            key = (e.get("qpn"), item["at"])
            if key == last and e.get("status") == 0:
                ctx.mutated("send-cqe-missing")
                continue
            last = key
        res.append(item)
    return res


m = fault("cqe-slot-8bit",
          "The completion-queue producer index is 8 bits wide: in a queue of more than 256 "
          "entries, entry k lands in slot (k mod N) mod 256.",
          ["CQE-RING-001", "CQE-RING-004"])


@out_events(m, ("completion",))
def _(ctx, ev, item):
    q = ev.get("queue")
    if not q:
        return
    cq = ctx.cqs.get(q.get("cq")) or {}
    old = int(q["slot"])
    slot = old & 0xFF
    if slot != old:
        base = int(cq.get("base", int(q["addr"]) - 32 * old))
        q["slot"] = slot
        q["addr"] = base + 32 * slot


m = fault("cqe-phase-inverted",
          "The phase bit starts at 0 on the first pass over the ring instead of 1.",
          ["CQE-RING-001"])


@out_events(m, ("completion",))
def _(ctx, ev, item):
    if ev.get("queue"):
        mutate_completion(ev, lambda e: e.__setitem__("phase", not e["phase"]))


m = fault("cqe-slot-plus-one",
          "The completion producer index is incremented before the write, so entries land "
          "one slot ahead.",
          ["CQE-RING-001"])


@out_events(m, ("completion",))
def _(ctx, ev, item):
    q = ev.get("queue")
    if not q:
        return
    cq = ctx.cqs.get(q.get("cq")) or {}
    n = int(cq.get("entries") or 0)
    if n <= 1:
        return
    slot = (int(q["slot"]) + 1) % n
    q["slot"] = slot
    q["addr"] = int(cq["base"]) + 32 * slot


m = fault("send-cqe-after-flag",
          "The sender completion entry is posted after the sender flag of its request.",
          ["ORD-SEND-001", "ORD-SEND-003"])


@m.hook("outputs")
def _(ctx, outs):
    res = list(outs)
    i = 0
    while i < len(res):
        ev = event_of(res[i])
        if ev and ev.get("event") == "completion" and ev.get("side") == "requester":
            e = completion_entry(ev)
            for j in range(i + 1, len(res)):
                fe = event_of(res[j])
                if (fe and fe.get("event") == "flag_write" and fe.get("side") == "requester"
                        and fe.get("qpn") == e.get("qpn") and fe.get("msn") == e.get("msn")):
                    item = res.pop(i)
                    item["at"] = res[j - 1]["at"]
                    res.insert(j, item)
                    ctx.mutated("send-cqe-after-flag")
                    i -= 1
                    break
        i += 1
    return res


m = fault("send-cqe-has-imm",
          "Sender completions of Writes with Immediate copy has_imm from the work request.",
          ["CQE-IMM-002"])


@out_events(m, ("completion",))
def _(ctx, ev, item):
    if ev.get("side") != "requester":
        return

    def f(e):
        if e.get("opcode") == 1 and not e.get("is_receive"):
            e["has_imm"] = True

    mutate_completion(ev, f)


m = fault("reject-cqe-opcode-write",
          "Completions of tokens rejected as BadVersion or UnknownTemplate carry opcode WRITE "
          "instead of NONE.",
          ["CQE-OPCODE-001", "CQE-REJECT-001"])


@out_events(m, ("completion",))
def _(ctx, ev, item):
    def f(e):
        if e.get("opcode") == 0xFF:
            e["opcode"] = 0

    mutate_completion(ev, f)


# ==== host interface: doorbells and work requests (input mutations) =======================

def on_host_commands(m, fn):
    """Registers `fn(ctx, command)` over the host commands the inner device is given; it
    returns True when it changed the command."""

    @m.hook("inputs")
    def _(ctx, ins, m=m):
        for item in ins:
            body = item.get("input") or {}
            if body.get("kind") == "host" and fn(ctx, body.get("command") or {}):
                ctx.mutated(m.name)
        return ins


m = fault("db-bus-big-endian",
          "The doorbell register reads the 8 bytes of a bus write big-endian.",
          ["DB-FORMAT-002"])


def _(ctx, c):
    if c.get("command") == "doorbell_write" and c.get("offset") == 0 and len(c.get("bytes", "")) == 16:
        b = bytes.fromhex(c["bytes"])
        if b != b[::-1]:
            c["bytes"] = b[::-1].hex()
            return True
    return False


on_host_commands(m, _)


m = fault("db-partial-merged",
          "Two 4-byte writes to the two halves of one doorbell register are merged into a "
          "token by a write-combining buffer.",
          ["DB-MMIO-002"])


@m.hook("inputs")
def _(ctx, ins):
    res = []
    for item in ins:
        body = item.get("input") or {}
        c = body.get("command") or {}
        prev = res[-1] if res else None
        pc = ((prev or {}).get("input") or {}).get("command") or {}
        if (body.get("kind") == "host" and c.get("command") == "doorbell_write"
                and pc.get("command") == "doorbell_write"
                and c.get("register") == pc.get("register")
                and len(c.get("bytes", "")) == 8 and len(pc.get("bytes", "")) == 8
                and {c.get("offset"), pc.get("offset")} == {0, 4}):
            lo, hi = (pc, c) if pc.get("offset") == 0 else (c, pc)
            pc["offset"] = 0
            pc["bytes"] = lo["bytes"] + hi["bytes"]
            ctx.mutated("db-partial-merged")
            continue
        res.append(item)
    return res


m = fault("db-length-units-ignored",
          "The token's length_units field is ignored: every token asks for the template's "
          "default length.",
          ["DB-LENGTH-001", "TPL-EXPAND-004", "WR-EXEC-001", "SND-SEG-001", "SND-SEG-003",
           "TPL-EXPAND-007", "CQE-REJECT-001"])


def _(ctx, c):
    if c.get("command") == "doorbell":
        t = int(c["token"])
        if t & 0xFFFF:
            c["token"] = t & ~0xFFFF
            return True
    if c.get("command") == "doorbell_write" and c.get("offset") == 0 and len(c.get("bytes", "")) == 16:
        b = bytearray.fromhex(c["bytes"])
        if b[0] or b[1]:
            b[0] = b[1] = 0
            c["bytes"] = b.hex()
            return True
    return False


on_host_commands(m, _)


m = fault("db-template-id-8bit",
          "The template field of a token is decoded as 8 bits: template IDs 256 and above "
          "alias lower ones.",
          ["DB-TEMPLATE-001", "DB-ACCEPT-001", "CQE-REJECT-001",
           "DB-FORMAT-001"])


def _(ctx, c):
    if c.get("command") == "doorbell":
        t = int(c["token"])
        n = t & ~(0xF << 56)
        if n != t:
            c["token"] = n
            return True
    return False


on_host_commands(m, _)


m = fault("wr-len-16bit",
          "The work-request length register is 16 bits wide: a posted length or a template's "
          "default length loses bits 31:16.",
          ["WR-EXEC-001", "SND-SEG-001", "SND-SEG-003", "TPL-EXPAND-004"])


def _(ctx, c):
    if c.get("command") == "post_write" and int(c.get("length", 0)) > 0xFFFF:
        c["length"] = int(c["length"]) & 0xFFFF
        return True
    if c.get("command") == "set_template" and int(c.get("default_length", 0)) > 0xFFFF:
        c["default_length"] = int(c["default_length"]) & 0xFFFF
        return True
    return False


on_host_commands(m, _)


# ==== sender: reactions to SACKs, NACKs and ACKs (input mutations) ========================

m = fault("snd-ignores-peer-mpr",
          "The sender never loads W_peer from the SACK's mpr and keeps using its own window.",
          ["SND-WIN-002", "SND-WIN-001"])


@in_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    if f.get("seth", "mpr"):
        f.set("seth", "mpr", ctx.mpr())


m = fault("sack-bitmap-ignored",
          "The sender ignores the SACK bitmap and acts on the cumulative PSN alone.",
          ["SND-SACK-002", "SND-INFER-001", "SND-INFER-002", "SND-RTX-003"])


@in_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "sack_bitmap", 0)


m = fault("trim-as-resource",
          "A trim NACK is handled as a resource NACK: no SKIP, and the retransmission waits "
          "for nack_backoff.",
          ["SND-NACK-002", "EV-SKIP-001", "REC-IF-016", "REC-IF-008", "REC-IF-004"])


@in_frames(m, ("nack",))
def _(ctx, f, item):
    if f.get("neth", "reason") in (0x01, 0x02):
        f.set("neth", "reason", 0x0A)


m = fault("fatal-nack-ignored",
          "An UNEXP_EVENT NACK is handled as a resource NACK: the QP is not failed and the "
          "packet is retried.",
          ["SND-NACK-005", "RET-FLUSH-001", "REC-IF-009", "REC-IF-004"])


@in_frames(m, ("nack",))
def _(ctx, f, item):
    if f.get("neth", "reason") == 0x19:
        f.set("neth", "reason", 0x0A)


m = fault("sack-mark-ignored",
          "The sender ignores the SETH m field: marked EVs stay GOOD.",
          ["EV-SKIP-001", "EV-BAD-001", "REC-IF-005", "REC-IF-016"])


@in_frames(m, ("sack",))
def _(ctx, f, item):
    f.set("seth", "m", 0)


m = fault("nak-as-ack",
          "The sender reads any AETH as an ACK: a NAK completes the message with SUCCESS and "
          "the QP stays up.",
          ["SND-ACK-003", "SND-ACK-006", "RET-FLUSH-001", "CQE-STATUS-004", "CQE-SEND-002",
           "REC-IF-009"])


@in_frames(m, ("nak",))
def _(ctx, f, item):
    f.set("aeth", "syndrome", 0x1F)


# ==== recovery: reports to the CPU half ===================================================

m = fault("report-progress-stale",
          "Progress reports carry the snd_una of the previous report.",
          ["REC-IF-002"])


@out_events(m, ("report:progress",))
def _(ctx, ev, item):
    st = ctx.state.setdefault("report-progress-stale", {})
    qp = ev.get("qpn")
    prev = st.get(qp)
    st[qp] = ev.get("snd_una")
    if prev is not None:
        ev["snd_una"] = prev


m = fault("report-armed-missing",
          "The Armed report is never sent.",
          ["REC-IF-003"])
drop_events(m, lambda ctx, ev: ev.get("event") == "report" and ev.get("report") == "armed")

m = fault("report-nack-missing",
          "Nack reports are never sent.",
          ["REC-IF-004"])
drop_events(m, lambda ctx, ev: ev.get("event") == "report" and ev.get("report") == "nack")

m = fault("report-probe-answered-missing",
          "ProbeAnswered reports are never sent.",
          ["REC-IF-007"])
drop_events(m, lambda ctx, ev: ev.get("event") == "report"
            and ev.get("report") == "probe_answered")


m = fault("report-skip-return-missing",
          "The return of an EV from SKIP to GOOD is applied but not reported.",
          ["REC-IF-016"])


def _skip_return(ctx, ev):
    if ev.get("event") != "report" or ev.get("report") != "ev_state":
        return False
    st = ctx.state.setdefault("skip-return", {})
    key = (ev.get("qpn"), ev.get("ev"))
    prev = st.get(key)
    st[key] = ev.get("state")
    return prev == "SKIP" and ev.get("state") == "GOOD"


drop_events(m, _skip_return)


m = fault("report-lost-ev-missing",
          "Retransmitted reports of timeout retransmissions do not carry lost_ev.",
          ["REC-IF-008", "REC-EV-002"])


@out_events(m, ("report:retransmitted",))
def _(ctx, ev, item):
    if ev.get("cause") == "timeout" and ev.get("lost_ev") is not None:
        ev["lost_ev"] = None


m = fault("report-ev-state-wrong",
          "EvState reports of an EV entering ASSUMED_BAD say SKIP: the state encoder maps "
          "the two the same.",
          ["REC-IF-016"])


@out_events(m, ("report:ev_state",))
def _(ctx, ev, item):
    if ev.get("state") == "ASSUMED_BAD":
        ev["state"] = "SKIP"


m = fault("report-qp-error-cause",
          "QpError reports always name REC-RETRY-002 as the cause.",
          ["REC-IF-009"])


@out_events(m, ("report:qp_error",))
def _(ctx, ev, item):
    ev["requirement"] = "REC-RETRY-002"


# ==== timers and configuration registers ==================================================

def rx(ins, kinds, pred=None):
    """Whether the inputs hold a sound frame of `kinds` (that `pred` accepts)."""
    from mods import sound
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) in kinds and sound(f) and (pred is None or pred(f)):
            return True
    return False


def rx_skip(ins):
    """Whether an input can put an EV in SKIP (sender table 4)."""
    return (rx(ins, ("sack",), lambda f: f.get("seth", "m") == 1)
            or rx(ins, ("probe-answer",), lambda f: f.get("seth", "m") in (1, 2))
            or rx(ins, ("nack",), lambda f: f.get("neth", "reason") in (1, 2)))


def rx_wwi(ins):
    """Whether the inputs carry a Write-with-Immediate, received or to send."""
    if rx(ins, ("data",), lambda f: f.has("immdt")):
        return True
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") in ("post_write", "set_template") and c.get("opcode") == 1:
            return True
    return False


m = fault("sack-coalesce-plus-one",
          "The SACK coalescing counter compares against sack_coalesce + 1.",
          ["RCV-SACK-002"])
config(m, "nic", "sack_coalesce", lambda v: int(v) + 1, responder, reads=lambda c, i: rx(i, ("data",)))

m = fault("sack-coalesce-fixed-8",
          "The SACK coalescing counter is wired to 8, whatever sack_coalesce the QP is "
          "configured with.",
          ["RCV-SACK-002"])
config(m, "nic", "sack_coalesce", lambda v: 8, responder, reads=lambda c, i: rx(i, ("data",)))

m = fault("ack-coalesce-ignored",
          "The ACK coalescing register is ignored: every retirement is acknowledged at once.",
          ["RCV-ACK-001"])
config(m, "nic", "ack_coalesce", lambda v: 1,
       lambda ctx: responder(ctx) and "retirement" in ctx.requires,
       reads=lambda c, i: rx(i, ("data",)))

m = fault("skip-hold-halved",
          "The SKIP hold timer runs at twice its rate: an EV returns to GOOD after half of "
          "skip_hold.",
          ["EV-SKIP-002", "REC-IF-016", "SND-PATH-001", "EV-STATE-001"])
config(m, "nic", "skip_hold", lambda v: int(v) // 2,
       lambda ctx: requester(ctx) and "paths" in ctx.requires, reads=lambda c, i: rx_skip(i))

m = fault("nack-backoff-ignored",
          "The NACK back-off timer is not armed: a retransmission after a window or resource "
          "NACK leaves at once.",
          ["SND-NACK-004", "SND-SCHED-003"])
config(m, "nic", "nack_backoff", lambda v: 0, requester,
       reads=lambda c, i: rx(i, ("nack",), lambda f: f.get("neth", "reason") not in (1, 2, 0x19)))

m = fault("wwi-limit-plus-one",
          "The Write-with-Immediate limit check is off by one: wwi_limit + 1 are allowed.",
          ["WWI-LIMIT-001", "WWI-LIMIT-002"])
config(m, "nic", "wwi_limit", lambda v: int(v) + 1, lambda ctx: "write-immediate" in ctx.requires,
       reads=lambda c, i: rx_wwi(i))

m = fault("tail-probe-late",
          "The tail-probe timer runs at half its rate.",
          ["SND-TAIL-001"])
config(m, "nic", "tail_probe", lambda v: None if v is None else int(v) * 2,
       lambda ctx: "tail-probe" in ctx.requires)

m = fault("rto-doubled",
          "The on-board CPU half reads rto in units twice too large.",
          ["REC-RTO-001", "REC-RTO-003", "REC-RTO-005"])
config(m, "recovery", "rto", lambda v: int(v) * 2, device_cpu)

m = fault("backoff-ignored",
          "The on-board CPU half does not back off: every timeout is rto.",
          ["REC-RTO-005", "REC-RTO-003"])
config(m, "recovery", "backoff", lambda v: 1, device_cpu)

m = fault("retry-limit-plus-one",
          "The on-board CPU half allows one retry more than retry_limit.",
          ["REC-RETRY-002", "REC-RETRY-001"])
config(m, "recovery", "retry_limit", lambda v: int(v) + 1, device_cpu)

m = fault("probe-interval-doubled",
          "The on-board CPU half probes ASSUMED_BAD EVs every 2 x probe_interval.",
          ["REC-PROBE-001"])
config(m, "recovery", "probe_interval", lambda v: int(v) * 2, device_cpu)


# ==== endpoint operations ================================================================

m = fault("ereq-port-status-zero",
          "Endpoint requests carry port_status 0: the port-status register is not sampled.",
          ["ERTH-PORT-001", "REC-IF-017"])


@out_frames(m, ("ereq",))
def _(ctx, f, item):
    f.set("erth", "port_status", 0)


m = fault("ersp-request-id-swapped",
          "Endpoint responses echo request_id byte-swapped.",
          ["EETH-ECHO-001", "CONF-CMP-033", "EETH-LAYOUT-001"])


@out_frames(m, ("ersp",))
def _(ctx, f, item):
    v = f.get("eeth", "request_id")
    f.set("eeth", "request_id", int.from_bytes(v.to_bytes(4, "big"), "little"))


m = fault("ersp-ev-fixed",
          "Endpoint responses leave on a fixed source port instead of the request's EV.",
          ["ERTH-RESP-001", "CONF-CMP-033"])


@out_frames(m, ("ersp",))
def _(ctx, f, item):
    f.set_ev(other_ev(f))


m = fault("ersp-port-status-zero",
          "Endpoint responses carry port_status 0.",
          ["EETH-PORT-001", "CONF-CMP-033"])


@out_frames(m, ("ersp",))
def _(ctx, f, item):
    f.set("eeth", "port_status", 0)


# ==========================================================================================
# Legal variants
# ==========================================================================================

def repeat_last_before(v, before, kept, keep, again):
    """Registers on variant `v` an outputs hook that, before each frame of a kind in `before`
    to a QP whose last frame of kind `kept` left earlier, sends that frame again:
    `keep(item, f)` is what is kept of it, `again(kept, item, f)` the output item sent."""

    @v.hook("outputs")
    def _(ctx, outs, v=v):
        st = ctx.state.setdefault(v.name, {})
        res = []
        for item in outs:
            f = frame_of(item)
            if f is not None:
                k = kind(f)
                qp = f.get("bth", "dest_qp")
                if k in before and qp in st and st[qp][0] < int(item["at"]):
                    res.append(again(st[qp][1], item, f))
                    ctx.mutated(v.name)
                if k == kept:
                    st[qp] = (int(item["at"]), keep(item, f))
            res.append(item)
        return res


def _ack_on_ev_of(kept, item, f):
    """The kept ACK's bytes, sent on the EV of frame `f` at `item`'s time and port."""
    ack = roce.Frame(kept)
    ack.set_ev(f.ev())
    ack.seal()
    return {"at": item["at"], "output": {
        "kind": "frame", "port": item["output"].get("port", 0), "bytes": ack.hex()}}


v = variant("ack-repeat",
            "Before each SACK of a QP it has acknowledged before, the device repeats its last "
            "transport ACK, on the SACK's EV (a repeated MSN, CONF-CMP-037).")
repeat_last_before(v, ("sack", "probe-answer"), "ack", lambda item, f: bytes(f.b),
                   _ack_on_ev_of)


v = variant("ack-repeat-later",
            "The ACK engine sends every transport ACK a second time, half of late_ns after the "
            "first (a repeated MSN, CONF-CMP-037).")


@v.hook("outputs")
def _(ctx, outs):
    import copy
    res = []
    for item in outs:
        res.append(item)
        f = frame_of(item)
        if f is not None and kind(f) == "ack":
            c = copy.deepcopy(item)
            c["at"] = int(item["at"]) + ctx.late_ns // 2
            res.append(c)
            ctx.mutated("ack-repeat-later")
    return res


v = variant("latency",
            "Every output (frames, DMA writes, completions, flags, reports) becomes visible a "
            "fixed latency later (--delay-ns, 1000 by default: half the default late_ns).")

v.hooks["outputs"] = latency_of("latency", every, lambda ctx: ctx.args.get("delay_ns", 1000))


v = variant("latency-half-tolerance",
            "Every output becomes visible half of the scenario's own late_ns later, a latency "
            "inside every tolerance the scenario states.")

v.hooks["outputs"] = latency_of("latency-half-tolerance", every)


v = variant("latency-jitter",
            "Every output becomes visible between 0 and --delay-ns later, in the order the "
            "device made them.")


def jitter(why, bound):
    """Makes every output visible between 0 and `bound(ctx)` ns later, by a pseudo-random
    draw seeded by the scenario's name, never before an output the device made earlier."""

    def hook(ctx, outs):
        d = max(int(bound(ctx)), 0)
        st = ctx.state.setdefault(why, {"x": sum(map(ord, ctx.name)) or 1, "last": 0})
        for item in outs:
            st["x"] = (st["x"] * 1103515245 + 12345) & 0x7FFFFFFF
            t = int(item["at"])
            nt = max(t + st["x"] % (d + 1), st["last"])
            nt = min(nt, t + d)
            st["last"] = nt
            if nt != t:
                item["at"] = nt
                ctx.mutated(why)
        return outs

    return hook


v.hooks["outputs"] = jitter("latency-jitter", lambda ctx: ctx.args.get("delay_ns", 1000))


def split_writes(size):
    def hook(ctx, outs):
        import copy
        res = []
        for item in outs:
            ev = event_of(item)
            if ev is None or ev.get("event") != "dma_write":
                res.append(item)
                continue
            va = int(ev["va"])
            data = bytes.fromhex(ev["payload"]["bytes"])
            pieces = []
            pos = 0
            while pos < len(data):
                end = min(len(data), pos + size - (va + pos) % size)
                pieces.append((va + pos, data[pos:end]))
                pos = end
            if len(pieces) <= 1:
                res.append(item)
                continue
            for a, chunk in pieces:
                c = copy.deepcopy(item)
                e = c["output"]["event"]
                e["va"] = a
                e["payload"]["bytes"] = chunk.hex()
                res.append(c)
            ctx.mutated("dma-split")
        return res

    return hook


for _size in (64, 256):
    v = variant("dma-split-%d" % _size,
                "DMA writes are split at %d-byte address boundaries, as a PCIe bus with that "
                "maximum payload carries them." % _size)
    v.hooks["outputs"] = split_writes(_size)


def by_message(ev):
    return (ev.get("qpn"), ev.get("msn"))


def write_buffer(name, combine, key_of=by_message):
    """A write buffer in front of the DMA engine: it holds the payload writes of a message
    for up to half the scenario's late_ns and lets them out, as `combine` (a list of held
    writes -> the writes to issue) says, when the hold ends, when another write of the
    message cannot join them, or just before any other write of the message (its receive
    completion, its retirement flag), so that data always precedes its flag."""

    def hook(ctx, outs):
        st = ctx.state.setdefault(name, {})  # (qpn, msn) -> [deadline, [items]]
        hold = max(ctx.late_ns // 2, 1)
        res = []

        def flush(key, at):
            deadline, items = st.pop(key)
            out = combine(ctx, items)
            if out is not items:
                ctx.mutated(name)
            for o in out:
                o["at"] = min(at, deadline)
                res.append(o)

        for item in outs:
            t = int(item["at"])
            for key in [k for k, (d, _) in st.items() if d < t]:
                flush(key, st[key][0])
            ev = event_of(item)
            if ev is not None and ev.get("event") == "dma_write":
                key = key_of(ev)
                if key in st:
                    st[key][1].append(item)
                else:
                    st[key] = [t + hold, [item]]
                continue
            if ev is not None and ev.get("side") == "responder":
                key = key_of(ev)
                if key in st:
                    flush(key, t)
            res.append(item)
        for key in [k for k, (d, _) in st.items() if d <= ctx.until]:
            flush(key, st[key][0])
        return res

    return hook


def merge_contiguous(ctx, items):
    out = [items[0]]
    for item in items[1:]:
        pe, ev = event_of(out[-1]), event_of(item)
        if int(pe["va"]) + len(pe["payload"]["bytes"]) // 2 == int(ev["va"]):
            pe["payload"]["bytes"] += ev["payload"]["bytes"]
        else:
            out.append(item)
    return out if len(out) < len(items) else items


def reverse_order(ctx, items):
    return items[::-1] if len(items) > 1 else items


v = variant("dma-merge",
            "A write-combining buffer merges the contiguous payload writes of one message "
            "that reach it within half of late_ns, all before the message's flag.")
v.hooks["outputs"] = write_buffer("dma-merge", merge_contiguous)

v = variant("dma-reorder",
            "A write buffer issues the payload writes of one message that reach it within "
            "half of late_ns in reverse order, all before the message's flag.")
v.hooks["outputs"] = write_buffer("dma-reorder", reverse_order)


def all_frames(v, why, fn):
    @v.hook("outputs")
    def _(ctx, outs):
        from mods import each_frame
        return each_frame(ctx, outs, "*", fn, why)


v = variant("ipv4-ident-counter",
            "The IPv4 identification field counts frames (the other IP fields are the "
            "device's choice, CONF-CMP-026).")


def _(ctx, f, item):
    if f.has("ipv4"):
        n = ctx.state.get("ident", 0x1234)
        ctx.state["ident"] = (n + 1) & 0xFFFF
        f.set("ipv4", "ident", n)


all_frames(v, "ipv4-ident-counter", _)


v = variant("dscp-af31",
            "Every frame carries DSCP 26 (AF31), a traffic class for RDMA; the specification "
            "fixes no DSCP.")


def _(ctx, f, item):
    if f.has("ipv4"):
        f.set("ipv4", "dscp", 26)
    else:
        tc = f.get("ipv6", "traffic_class")
        f.set("ipv6", "traffic_class", (26 << 2) | (tc & 3))


all_frames(v, "dscp-af31", _)


v = variant("udp-checksum-v4",
            "Over IPv4 the device computes the UDP checksum, which ENC-UDP-003 allows.")


def _(ctx, f, item):
    if f.has("ipv4"):
        f.seal(udp_checksum=True)
    return False


all_frames(v, "udp-checksum-v4", _)


v = variant("ttl-255",
            "Every frame leaves with IPv4 TTL 255 or IPv6 hop limit 255.")


def _(ctx, f, item):
    f.set("ipv4" if f.has("ipv4") else "ipv6", "ttl" if f.has("ipv4") else "hop_limit", 255)


all_frames(v, "ttl-255", _)


v = variant("vlan-pcp-3",
            "Tagged frames carry priority code point 3, the usual lossless class for RoCE.")


def _(ctx, f, item):
    if f.has("vlan"):
        f.set("vlan", "pcp", 3)


all_frames(v, "vlan-pcp-3", _)


v = variant("eth-pad-8",
            "A 64-bit MAC datapath pads every frame to a multiple of 8 bytes with zeros after "
            "the IP packet (Ethernet padding, ENC-LEN-003).")


def _(ctx, f, item):
    f.ethernet_pad((len(f.b) + 7) // 8 * 8)
    return False


all_frames(v, "eth-pad-8", _)


v = variant("ecn-ect1",
            "MRC writes are marked ECT(1) instead of ECT(0) (ENC-ECN-001 allows either).")


def _(ctx, f, item):
    if kind(f) != "data":
        return False
    if f.has("ipv4"):
        if f.get("ipv4", "ecn") == 2:
            f.set("ipv4", "ecn", 1)
    elif f.get("ipv6", "traffic_class") & 3 == 2:
        f.set("ipv6", "traffic_class", (f.get("ipv6", "traffic_class") & ~3) | 1)


all_frames(v, "ecn-ect1", _)


v = variant("sack-repeat",
            "Every SACK is sent twice: the number of SACKs is the device's choice "
            "(CONF-CMP-007).")


@v.hook("outputs")
def _(ctx, outs):
    import copy
    res = []
    for item in outs:
        res.append(item)
        f = frame_of(item)
        if f is not None and kind(f) == "sack":
            res.append(copy.deepcopy(item))
            ctx.mutated("sack-repeat")
    return res


v = variant("ack-after-sack",
            "When one packet causes a transport ACK and a SACK, the SACK leaves first.")


@v.hook("outputs")
def _(ctx, outs):
    res = list(outs)
    for i in range(len(res) - 1):
        a, b = frame_of(res[i]), frame_of(res[i + 1])
        if (a is not None and b is not None and kind(a) == "ack" and kind(b) == "sack"
                and res[i]["at"] == res[i + 1]["at"]
                and a.get("bth", "dest_qp") == b.get("bth", "dest_qp")):
            res[i], res[i + 1] = res[i + 1], res[i]
            ctx.mutated("ack-after-sack")
    return res


v = variant("writes-before-frames",
            "At equal times the responder's memory writes (payload, receive completions, "
            "retirement flags) become visible before its frames leave.")


@v.hook("outputs")
def _(ctx, outs):
    def is_rx_write(o):
        ev = event_of(o)
        return ev is not None and (
            ev.get("event") == "dma_write"
            or (ev.get("event") in ("flag_write", "completion") and ev.get("side") == "responder"))

    res = []
    i = 0
    while i < len(outs):
        j = i
        while j < len(outs) and outs[j]["at"] == outs[i]["at"]:
            j += 1
        group = outs[i:j]
        writes = [o for o in group if is_rx_write(o)]
        frames = [o for o in group if frame_of(o) is not None]
        rest = [o for o in group if not is_rx_write(o) and frame_of(o) is None]
        new = writes + frames + rest if not rest else None
        if new is not None and new != group:
            ctx.mutated("writes-before-frames")
            res.extend(new)
        else:
            res.extend(group)
        i = j
    return res


v = variant("timestamp-1ns",
            "The device's timestamp clock counts 1 ns units from its own epoch (SND-TS-002 "
            "leaves the unit and the epoch to the sender).")


@v.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("ts", {"data": {}, "probe": {}})

    def fn(ctx, f, item):
        qp = ctx.local_qp_of(f)
        outer = (int(item["at"]) + 0x5A5A) & 0xFFFF
        if kind(f) == "data" and f.has("tseth"):
            st["data"][(qp, f.get("bth", "psn"))] = (f.get("tseth", "tx_timestamp"), outer)
            f.set("tseth", "tx_timestamp", outer)
        elif kind(f) == "probe":
            st["probe"][(qp, f.get("peth", "probe_id"))] = (f.get("peth", "tx_timestamp"), outer)
            f.set("peth", "tx_timestamp", outer)
        else:
            return False

    from mods import each_frame
    return each_frame(ctx, outs, ("data", "probe"), fn, "timestamp-1ns")


@v.hook("inputs")
def _(ctx, ins):
    # The reflected timestamps go back to the inner device's own clock.
    st = ctx.state.setdefault("ts", {"data": {}, "probe": {}})
    for item in ins:
        f = frame_of(item)
        if f is None:
            continue
        k = kind(f)
        qp = f.get("bth", "dest_qp")
        before = bytes(f.b)
        if k == "sack":
            psn = (f.get("seth", "cack_psn") + f.get("seth", "ack_psn_offset")) & U24
            got = st["data"].get((qp, psn))
            if got and f.get("cc_state", "tx_timestamp") == got[1]:
                f.set("cc_state", "tx_timestamp", got[0])
        elif k == "probe-answer":
            got = st["probe"].get((qp, f.get("seth", "ack_psn_offset") & 0xFFFF))
            if got and f.get("cc_state", "tx_timestamp") == got[1]:
                f.set("cc_state", "tx_timestamp", got[0])
        elif k == "nack":
            got = st["data"].get((qp, f.get("neth", "nack_psn")))
            if got and f.get("neth", "tx_timestamp") == got[1]:
                f.set("neth", "tx_timestamp", got[0])
        if bytes(f.b) != before:
            f.seal()
            put_frame(item, f)
    return ins


v = variant("cqe-bytes-only",
            "Completion events carry only the 32 bytes written to the queue, without the "
            "decoded entry (CONF-ADP-017).")


@out_events(v, ("completion",), "cqe-bytes-only")
def _(ctx, ev, item):
    if ev.get("queue") and "entry" in ev:
        del ev["entry"]


v = variant("cqe-clock-epoch",
            "Completion timestamps come from a nanosecond clock with another epoch (the low "
            "32 bits of the NIC's clock, CQE-TS-001).")


@out_events(v, ("completion",), "cqe-clock-epoch")
def _(ctx, ev, item):
    def f(e):
        if e.get("has_timestamp"):
            e["timestamp"] = (int(e["timestamp"]) + 0x10000000) & 0xFFFFFFFF

    mutate_completion(ev, f)


v = variant("frames-as-fields",
            "The device gives every frame as fields, leaving the framing, the lengths, the "
            "checksums and the ICRC to the runner (CONF-ADP-015).")


@v.hook("outputs")
def _(ctx, outs):
    for item in outs:
        f = frame_of(item)
        if f is None or len(f.b) != f.ip_end:
            continue  # Ethernet padding cannot be said in fields
        body = item["output"]
        body["fields"] = roce.to_fields(f)
        del body["bytes"]
        ctx.mutated("frames-as-fields")
    return outs


# ---- the freedoms of corpus/src/faults/variants.rs not yet mirrored above ----------------
# Each uses the clauses listed after its text; a departure from a SHOULD may make the
# verdict `non-strict`, never `fail`.

v = variant("own-seed",
            "Its random number generator is seeded apart from the reference's, so that a QP "
            "of the random policy draws other EVs from its pool (CONF-CMP-046.a).")
config(v, "nic", "seed", lambda x: int(x) ^ 0x5EED0F0DD5, lambda ctx: True)


v = variant("pdc-ids",
            "Its NETH and PETH encoder, shared with a UET design, writes the low 16 bits of the "
            "destination QP as spdcid and dpdcid of its NACKs and probes (NETH-PDC-001.a, "
            "PETH-PDC-001.a).",
            allows=("NETH-PDC-001.a", "PETH-PDC-001.a"))


@out_frames(v, ("nack", "probe"))
def _(ctx, f, item):
    h = "neth" if f.has("neth") else "peth"
    qp = f.get("bth", "dest_qp") & 0xFFFF
    f.set(h, "spdcid", qp)
    f.set(h, "dpdcid", qp)


v = variant("cc-type-vendor",
            "Runs a congestion control of its own and says so in its NACKs: cc_type 2 and "
            "cc_flags 1 (NETH-CC-001).",
            allows=("NETH-CC-001",))


@out_frames(v, ("nack",))
def _(ctx, f, item):
    f.set("neth", "cc_type", 2)
    f.set("neth", "cc_flags", 1)


v = variant("ts-format-vendor",
            "Stamps its writes in a timestamp format of its own, TSETH ftype 2 "
            "(TSETH-FTYPE-001.a).",
            allows=("TSETH-FTYPE-001.a",))


@out_frames(v, ("data",))
def _(ctx, f, item):
    if f.has("tseth"):
        f.set("tseth", "ftype", 2)


v = variant("ack-credit-count",
            "Its ACK engine, taken from an RC design, sends credit code 0x0A in its transport "
            "ACKs instead of 0x1F (AETH-MRC-002.a).",
            allows=("AETH-MRC-002.a",))


@out_frames(v, ("ack",))
def _(ctx, f, item):
    if f.get("aeth", "syndrome") == 0x1F:
        f.set("aeth", "syndrome", 0x0A)


v = variant("rtx-echo",
            "Its SACK and NACK engine copies the BTH rtx bit of the last write it received into "
            "the SACKs and NACKs it sends (BTH-RTX-002.a).",
            allows=("BTH-RTX-002.a",))


@v.hook("inputs")
def _(ctx, ins):
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) == "data":
            ctx.state["rtx-echo"] = f.get("bth", "rtx")
    return ins


@out_frames(v, ("sack", "probe-answer", "nack"))
def _(ctx, f, item):
    if ctx.state.get("rtx-echo"):
        f.set("bth", "rtx", 1)


v = variant("udp-checksum-v6-zero",
            "Its checksum offload works over IPv4 only: over IPv6 it sends UDP checksum 0 "
            "(ENC-UDP-004.a).",
            allows=("ENC-UDP-004.a",))


def _(ctx, f, item):
    if f.has("ipv6") and f.get("udp", "checksum"):
        f.seal(udp_checksum=False)
    return False


all_frames(v, "udp-checksum-v6-zero", _)


v = variant("vlan-tpid-88a8",
            "Tags its frames with TPID 0x88A8, an 802.1ad service tag (ENC-VLAN-002.b).",
            allows=("ENC-VLAN-002.b",))


def _(ctx, f, item):
    if f.has("vlan"):
        f.set("eth", "ethertype", 0x88A8)
    return False


all_frames(v, "vlan-tpid-88a8", _)


v = variant("ipv4-nop-options",
            "Pads its IPv4 headers with one 4-byte word of NOP options (ENC-IPV4-006.a).",
            allows=("ENC-IPV4-006.a",))


@v.hook("outputs")
def _(ctx, outs):
    for item in outs:
        f = frame_of(item)
        if f is None or not f.has("ipv4") or f.ip_hlen != 20:
            continue
        ip = f.off["ipv4"]
        b = bytearray(f.b)
        b[ip + 20:ip + 20] = b"\x01" * 4
        b[ip] = (b[ip] & 0xF0) | 6
        b[ip + 2:ip + 4] = (int.from_bytes(b[ip + 2:ip + 4], "big") + 4).to_bytes(2, "big")
        g = roce.Frame(bytes(b))
        g.seal()
        put_frame(item, g)
        ctx.mutated("ipv4-nop-options")
    return outs


v = variant("reports-repeated",
            "Its report ring delivers every Progress and Armed report twice, back to back: "
            "reports that hang on its own paths and timing (CONF-CMP-020.a).")


def _reports_twice(which):
    def hook(ctx, outs):
        import copy
        res = []
        for item in outs:
            res.append(item)
            ev = event_of(item)
            if ev is not None and ev.get("event") == "report" and which(ev.get("report")):
                res.append(copy.deepcopy(item))
                ctx.mutated("reports-twice")
        return res

    return hook


v.hook("outputs")(_reports_twice(lambda r: r in ("progress", "armed")))


v = variant("reports-unclaimed",
            "A device that does not claim cpu-split: its report ring delivers every report but "
            "QpError twice, back to back (CONF-CMP-012.c).")
v.caps_removed = ("cpu-split",)
v.hook("outputs")(_reports_twice(lambda r: r != "qp_error"))


# ==========================================================================================
# Faults written from a second reading of the specification: register widths, header
# fields of every frame kind, completion-entry and flag contents, configuration registers
# ==========================================================================================

def swap32(v):
    return int.from_bytes(int(v).to_bytes(4, "big"), "little")


# ---- NACKs -------------------------------------------------------------------------------

m = fault("nack-psn-16bit",
          "The NACKed-PSN register is 16 bits wide: NETH nack_psn and the NACK's BTH psn "
          "lose bits 23:16.",
          ["NETH-PSN-001", "RCV-NACK-001", "OPC-PSN-002"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    f.set("neth", "nack_psn", f.get("neth", "nack_psn") & 0xFFFF)
    f.set("bth", "psn", f.get("bth", "psn") & 0xFFFF)


m = fault("nack-bth-psn-zero",
          "The NACK builder leaves BTH psn at 0 instead of copying nack_psn into it.",
          ["RCV-NACK-001", "OPC-PSN-002"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    f.set("bth", "psn", 0)


m = fault("nack-resv17-mpr",
          "The NACK builder starts from the SACK template, so NETH byte 17, reserved, keeps "
          "the mpr value of the SETH.",
          ["NETH-RESV-001"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    f.set("neth", "resv17", ctx.mpr() or 1)


m = fault("nack-entropy-src-port-only",
          "Over IPv6 NETH entropy carries only the source-port half of the NACKed packet's "
          "EV: the flow-label half is not wired in.",
          ["NETH-PSN-001", "RCV-NACK-001", "ENC-EV-003"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    if f.has("ipv6"):
        f.set("neth", "entropy", f.get("neth", "entropy") & 0xFFFF0000)


# ---- SACKs and probe answers -------------------------------------------------------------

m = fault("sack-cack-23bit",
          "The cumulative-ACK register is 23 bits wide: SETH cack_psn and the SACK's BTH psn "
          "lose bit 23.",
          ["SETH-CACK-001", "RCV-SACK-005", "OPC-PSN-002", "SETH-BITMAP-002", "PETH-RESP-001",
           "SETH-ACKPSN-003"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "cack_psn", f.get("seth", "cack_psn") & 0x7FFFFF)
    f.set("bth", "psn", f.get("bth", "psn") & 0x7FFFFF)


m = fault("sack-bth-psn-trigger",
          "SACKs carry the triggering packet's PSN in BTH psn, as an IBTA ACK echoes it, "
          "instead of cack_psn.",
          ["RCV-SACK-005", "OPC-PSN-002"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    f.set("bth", "psn", (f.get("seth", "cack_psn") + f.get("seth", "ack_psn_offset")) & U24)


m = fault("sack-offset-zero",
          "The sack_offset register is never programmed: SACKs carry sack_offset 0 while the "
          "bitmap still starts at epsn.",
          ["RCV-SACK-005", "SETH-BITMAP-001", "SETH-BITMAP-002", "PETH-RESP-001"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "sack_offset", 0)


m = fault("sack-spdcid-qpn",
          "SACKs carry the low 16 bits of the local QPN in SETH spdcid, as a UET PDC "
          "identifier, where MRC wants 0.",
          ["RCV-SACK-005", "PETH-RESP-001"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    qp = ctx.local_qp_of(f)
    if qp is not None:
        f.set("seth", "spdcid", qp & 0xFFFF)


m = fault("sack-cwnd-pen-reset",
          "CC_STATE rcv_cwnd_pen keeps its reset value 0x7F on a responder that runs no "
          "congestion control.",
          ["RCV-SACK-007", "PETH-RESP-001"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("cc_state", "rcv_cwnd_pen", 0x7F)


m = fault("sack-ccs-resv-valid",
          "The out-of-order counter is written as a 16-bit word whose bit 15 is the counter's "
          "valid bit, so CC_STATE resv is 1.",
          ["CCS-RESV-001"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("cc_state", "resv", 1)


m = fault("sack-ts-bit-copied",
          "The SACK builder copies BTH byte 8 of the triggering write, so SACKs carry ts 1 "
          "when timestamps are on.",
          ["TSETH-PRESENT-002", "RCV-SACK-005"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    if ctx.nic.get("timestamps") and f.get("cc_state", "tx_timestamp"):
        f.set("bth", "ts", 1)


# ---- transport ACKs ----------------------------------------------------------------------

m = fault("ack-syndrome-bit7",
          "The ACK builder writes the credit field 0x1F into syndrome bits 7:3, so ACKs carry "
          "syndrome bit 7 set.",
          ["AETH-SYN-001", "RCV-ACK-002"])


@out_frames(m, ("ack",))
def _(ctx, f, item):
    f.set("aeth", "syndrome", f.get("aeth", "syndrome") | 0x80)


m = fault("aeth-msn-sign-extended",
          "The AETH msn is sign-extended from 16 to 24 bits: an MSN of 0x8000 or more carries "
          "bits 23:16 set.",
          ["AETH-MSN-001", "RCV-ACK-002", "RCV-NAK-002"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item):
    v = f.get("aeth", "msn")
    if v & 0x8000:
        f.set("aeth", "msn", v | 0xFF0000)


# ---- probes, timestamps, endpoint operations ---------------------------------------------

m = fault("probe-resv0-ev",
          "The probe builder writes the probe's EV into PETH bytes 0 to 3, reserved, from a "
          "header template it shares with the SETH.",
          ["PETH-RESV-001", "EV-PROBE-005"])


@out_frames(m, ("probe",))
def _(ctx, f, item):
    f.set("peth", "resv0", f.ev())


m = fault("tseth-ftype-5bit",
          "The TSETH ftype register is 5 bits wide and holds 0x11, so bit 4 of the TSETH resv "
          "field is set.",
          ["TSETH-RESV-001", "SND-TS-002"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.has("tseth"):
        f.set("tseth", "resv", f.get("tseth", "resv") | 1)


m = fault("ereq-dest-qp-1",
          "Endpoint requests go to QPN 1, the IBTA general-services QP, instead of QPN 2.",
          ["ERTH-QPN-001", "REC-IF-017"])


@out_frames(m, ("ereq",))
def _(ctx, f, item):
    f.set("bth", "dest_qp", 1)


m = fault("ersp-op-zero",
          "Endpoint responses carry op 0: the op of the request is not latched.",
          ["EETH-ECHO-001", "CONF-CMP-033"])


@out_frames(m, ("ersp",))
def _(ctx, f, item):
    f.set("eeth", "op", 0)


m = fault("ersp-status-unsupported",
          "Endpoint responses report status 1 (UNSUPPORTED_OP) even for an operation the NIC "
          "performed.",
          ["EETH-STATUS-001", "ERTH-RESP-001", "CONF-CMP-033"])


@out_frames(m, ("ersp",))
def _(ctx, f, item):
    if f.get("eeth", "status") == 0:
        f.set("eeth", "status", 1)


# ---- IP ----------------------------------------------------------------------------------

m = fault("data-ttl-32",
          "Data packets leave with IPv4 TTL or IPv6 hop limit 32, the default of an older "
          "stack, below the 64 the rule asks.",
          ["ENC-HOP-001"], keywords=("ttl", "hop_limit"))


@out_frames(m, ("data",))
def _(ctx, f, item):
    f.set("ipv4" if f.has("ipv4") else "ipv6", "ttl" if f.has("ipv4") else "hop_limit", 32)


m = fault("ack-ipv4-flags-shifted",
          "The IPv4 flags of transport ACKs are written one bit too high: DF lands in the "
          "reserved flag bit.",
          ["ENC-IPV4-004"])


@out_frames(m, ("ack",))
def _(ctx, f, item):
    if f.has("ipv4"):
        f.set("ipv4", "flag_reserved", f.get("ipv4", "dont_frag"))
        f.set("ipv4", "dont_frag", 0)


# ---- completion entries ------------------------------------------------------------------

def completions(m, side, fn):
    @out_events(m, ("completion",))
    def _(ctx, ev, item):
        if side is not None and ev.get("side") != side:
            return
        mutate_completion(ev, lambda e: fn(ctx, ev, e))


m = fault("recv-cqe-qpn-peer",
          "Receive completions carry the QP context's peer QPN instead of the receiving QP.",
          ["CQE-RECV-001"])


def _(ctx, ev, e):
    c = ctx.qps.get(e.get("qpn"))
    if e.get("is_receive") and c is not None and c.get("peer_qpn") is not None:
        e["qpn"] = int(c["peer_qpn"]) & U24


completions(m, "responder", _)


m = fault("recv-cqe-len-last-packet",
          "Receive completions carry the byte count of the message's last packet instead of "
          "the message's.",
          ["CQE-RECV-001"])


def _(ctx, ev, e):
    n, p = int(e.get("byte_len", 0)), ctx.pmtu()
    if e.get("is_receive") and n > p:
        e["byte_len"] = (n - 1) % p + 1


completions(m, "responder", _)


m = fault("recv-cqe-imm-wire-order",
          "Receive completions store the immediate in wire (big-endian) byte order.",
          ["CQE-RECV-001", "CQE-LAYOUT-001"])


def _(ctx, ev, e):
    if e.get("is_receive") and e.get("has_imm"):
        e["imm"] = swap32(e.get("imm", 0))


completions(m, "responder", _)


m = fault("send-cqe-msn-plus-one",
          "Sender completions carry the domain's MSN counter after the message (its MSN plus "
          "one) instead of the message's MSN.",
          ["CQE-SEND-001"])


def _(ctx, ev, e):
    if not e.get("is_receive") and e.get("status") == 0 and e.get("opcode") != 0xFF:
        e["msn"] = (int(e.get("msn", 0)) + 1) & 0xFFFF


completions(m, "requester", _)


m = fault("send-cqe-len-zero",
          "Successful sender completions carry byte_len 0, as failed ones do.",
          ["CQE-SEND-001"])


def _(ctx, ev, e):
    if not e.get("is_receive") and e.get("status") == 0:
        e["byte_len"] = 0


completions(m, "requester", _)


m = fault("send-cqe-is-receive",
          "Sender completions have is_receive 1: the bit is taken from the wrong end of the "
          "opcode decoder.",
          ["CQE-SEND-001", "CQE-SEND-002", "CQE-REJECT-001"])


def _(ctx, ev, e):
    e["is_receive"] = True


completions(m, "requester", _)


m = fault("cqe-wr-id-32bit",
          "The wr_id register of the completion engine is 32 bits wide: entries lose wr_id "
          "bits 63:32.",
          ["CQE-SEND-001", "CQE-SEND-002", "CQE-REJECT-001", "TPL-EXPAND-007"])


def _(ctx, ev, e):
    e["wr_id"] = int(e.get("wr_id", 0)) & 0xFFFFFFFF


completions(m, None, _)


m = fault("cqe-ts-flag-clear",
          "The has_timestamp bit is never set although the clock is written into timestamp.",
          ["CQE-TS-001"])


def _(ctx, ev, e):
    if e.get("has_timestamp") and int(e.get("timestamp", 0)):
        e["has_timestamp"] = False


completions(m, None, _)


m = fault("cqe-phase-byte",
          "The phase is written as a whole byte, 0xFF or 0x00, setting the reserved bits 7:1 "
          "of byte 31.",
          ["CQE-RESV-001"])


def _(ctx, ev, e):
    if e.get("phase"):
        e["owner_resv"] = 0x7F


completions(m, None, _)


# ---- flags -------------------------------------------------------------------------------

def flags(m, side, fn):
    @out_events(m, ("flag_write",))
    def _(ctx, ev, item):
        if side is not None and ev.get("side") != side:
            return
        d = flag_fields(int(ev["value"]))
        fn(ctx, ev, d)
        ev["value"] = flag_value(d)


m = fault("flag-resv-qpn",
          "Flags carry the low 7 bits of the QPN in resv, a debug aid left in the flag writer.",
          ["FLAG-RESV-001"])


def _(ctx, ev, d):
    d["resv"] = int(ev.get("qpn") or 0) & 0x7F


flags(m, None, _)


m = fault("send-flag-len-zero",
          "Successful sender flags carry byte_len 0: the length is only latched for "
          "retirement flags.",
          ["FLAG-LEN-001", "FLAG-SEND-001"])


def _(ctx, ev, d):
    if d["status"] == 0:
        d["byte_len"] = 0


flags(m, "requester", _)


m = fault("send-flag-generation-msn",
          "Sender flags carry the message's MSN as generation, as retirement flags do, "
          "instead of the token's seq.",
          ["FLAG-SEND-001"])


def _(ctx, ev, d):
    if ev.get("msn") is not None:
        d["generation"] = int(ev["msn"]) & 0xFFFF


flags(m, "requester", _)


# ---- configuration registers -------------------------------------------------------------

m = fault("pmtu-halved",
          "The PMTU register is read as the IBTA MTU code one step down: a PMTU of 1024 is "
          "taken as 512, so packets are cut at half the PMTU.",
          ["PAY-LEN-002", "SND-SEG-001"])
config(m, "nic", "pmtu", lambda v: max(256, int(v) // 2), requester)


m = fault("timestamps-always-on",
          "The timestamps enable bit is ignored: every MRC write carries ts 1 and a TSETH.",
          ["SND-TS-002", "TSETH-PRESENT-001"])
config(m, "nic", "timestamps", lambda v: True, requester)


# ==========================================================================================
# Faults written from a third reading of the specification, as a new hardware team's bug
# list: byte order of multi-byte fields, fields taken from the wrong packet, edges of
# windows, rings and regions, state shared between QPs, error paths
# ==========================================================================================

def swap16(v):
    return int.from_bytes(int(v).to_bytes(2, "big"), "little")


def swap24(v):
    return int.from_bytes(int(v).to_bytes(3, "big"), "little")


def swap64(v):
    return int.from_bytes(int(v).to_bytes(8, "big"), "little")


CONTROL = ("ack", "nak", "sack", "probe-answer", "nack")


# ---- encapsulation -----------------------------------------------------------------------

m = fault("sack-flow-label-zero",
          "Over IPv6 SACKs leave with flow label 0: the control-packet builder writes EV "
          "bits 31:16 into the source port but never EV bits 15:0 into the flow label.",
          ["RCV-SACK-006", "ENC-EV-001", "PETH-RESP-001", "CONF-CMP-017"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    if f.has("ipv6"):
        f.set("ipv6", "flow_label", f.get("ipv6", "flow_label") & 0xF0000)


m = fault("nack-src-port-byteswapped",
          "The NACK builder writes the UDP source port (EV bits 31:16) in little-endian byte "
          "order.",
          ["RCV-NACK-001", "ENC-EV-001", "ENC-EV-002", "CONF-CMP-017"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    f.set("udp", "src_port", swap16(f.get("udp", "src_port")))


m = fault("probe-udp-dst-port-le",
          "The probe builder writes UDP destination port 4791 little-endian, so probes go to "
          "port 46866.",
          ["ENC-UDP-001", "EV-PROBE-005"])


@out_frames(m, ("probe",))
def _(ctx, f, item):
    f.set("udp", "dst_port", swap16(f.get("udp", "dst_port")))


m = fault("ctl-ipv6-payload-len-header",
          "Over IPv6 the control-packet builder counts the 40-byte fixed header in "
          "payload_len.",
          ["ENC-LEN-001", "ENC-LEN-002", "DEC-STRUCT-001", "CONF-CMP-001"])


@out_frames(m, CONTROL)
def _(ctx, f, item):
    if f.has("ipv6"):
        f.set("ipv6", "payload_len", f.get("ipv6", "payload_len") + 40)


m = fault("data-ipv4-df-as-mf",
          "The IPv4 flags of data packets are written one bit too low: DF lands in MF, so "
          "every data packet is a first fragment.",
          ["ENC-IPV4-002", "ENC-ROCE-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.has("ipv4") and f.get("ipv4", "dont_frag"):
        f.set("ipv4", "dont_frag", 0)
        f.set("ipv4", "more_frags", 1)


m = fault("rx-flow-label-ignored",
          "Over IPv6 the receive parser builds the EV of a packet from its source port "
          "alone: EV bits 15:0, from the flow label, read as 0.",
          ["ENC-EV-001", "ENC-EV-003", "RCV-SACK-006", "SETH-EV-001", "RCV-NACK-001",
           "RCV-ACK-002", "RCV-NAK-002", "PETH-RESP-001", "ERTH-RESP-001", "CONF-CMP-017",
           "CONF-CMP-033"])


@in_frames(m, "*")
def _(ctx, f, item):
    if f.has("ipv6") and f.get("ipv6", "flow_label") & 0xFFFF:
        f.set("ipv6", "flow_label", f.get("ipv6", "flow_label") & 0xF0000)


# ---- BTH and the sender's data packets ---------------------------------------------------

m = fault("probe-dest-qp-local",
          "Probes are addressed to the sending QP's own number: the probe builder reads the "
          "local QPN register instead of peer_qpn.",
          ["EV-PROBE-005", "CONF-CMP-026"])


@out_frames(m, ("probe",))
def _(ctx, f, item):
    qp = ctx.local_qp_of(f)
    if qp is not None:
        f.set("bth", "dest_qp", int(qp) & U24)


m = fault("rtx-ackreq-dropped",
          "The retransmission path rebuilds the BTH from the PSN table, which does not hold "
          "AckReq: retransmissions carry ack_req 0.",
          ["SND-ACKREQ-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.get("bth", "rtx"):
        f.set("bth", "ack_req", 0)


m = fault("rtx-ts-from-first",
          "A retransmission carries the TSETH tx_timestamp of the first transmission of its "
          "PSN, kept in the retransmission buffer, instead of the clock at resending.",
          ["SND-TS-002", "SND-TS-003"])


@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("rtx-ts-from-first", {})
    for item in outs:
        f = frame_of(item)
        if f is None or kind(f) != "data" or not f.has("tseth"):
            continue
        key = (f.get("bth", "dest_qp"), f.get("bth", "psn"))
        if not f.get("bth", "rtx"):
            st[key] = f.get("tseth", "tx_timestamp")
        elif key in st and st[key] != f.get("tseth", "tx_timestamp"):
            f.set("tseth", "tx_timestamp", st[key])
            f.seal()
            put_frame(item, f)
            ctx.mutated("rtx-ts-from-first")
    return outs


m = fault("reth-va-words-swapped",
          "The 64-bit RETH va is written as two 32-bit words in the wrong order.",
          ["SND-SEG-003", "RETH-VA-002", "WR-EXEC-001", "TPL-EXPAND-003", "SND-RTX-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.has("reth"):
        v = f.get("reth", "va")
        f.set("reth", "va", ((v & 0xFFFFFFFF) << 32) | (v >> 32))


m = fault("reth-rkey-le",
          "The RETH rkey is written in host (little-endian) byte order.",
          ["SND-SEG-003", "RETH-RKEY-001", "RETH-LAYOUT-001", "WR-EXEC-001", "SND-RTX-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.has("reth"):
        f.set("reth", "rkey", swap32(f.get("reth", "rkey")))


m = fault("meth-fields-swapped",
          "The METH is written with rqmsn and msn in each other's place.",
          ["METH-MSN-001", "METH-RQMSN-001", "SND-MSN-002", "SND-RQMSN-002", "SND-RTX-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.has("meth"):
        a, b = f.get("meth", "rqmsn"), f.get("meth", "msn")
        f.set("meth", "rqmsn", b)
        f.set("meth", "msn", a)


m = fault("rtx-immdt-zero",
          "A retransmitted last packet of a Write-with-Immediate carries ImmDt 0: the "
          "immediate is read from the work request, already released.",
          ["SND-RTX-001", "SND-SEG-004"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.get("bth", "rtx") and f.has("immdt"):
        f.set("immdt", "imm", 0)


# ---- transport ACKs, SACKs, NACKs --------------------------------------------------------

m = fault("ack-msn-le",
          "The AETH msn is written little-endian across its three bytes.",
          ["AETH-MSN-001", "AETH-LAYOUT-001", "RCV-ACK-002", "RCV-NAK-002"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item):
    f.set("aeth", "msn", swap24(f.get("aeth", "msn")))


m = fault("sack-bitmap-le",
          "The 64-bit SACK bitmap is written in host (little-endian) byte order.",
          ["SETH-BITMAP-001", "SETH-BITMAP-002", "SETH-LAYOUT-001", "RCV-SACK-005",
           "PETH-RESP-001"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "sack_bitmap", swap64(f.get("seth", "sack_bitmap")))


m = fault("sack-entropy-le",
          "The SETH entropy (the triggering packet's EV) is written little-endian.",
          ["SETH-EV-001", "SETH-LAYOUT-001", "RCV-SACK-005", "PETH-RESP-001", "ENC-EV-003"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "entropy", swap32(f.get("seth", "entropy")))


m = fault("sack-cack-no-wrap",
          "The cumulative-ACK register never moves back numerically: once epsn wraps past "
          "0xFFFFFF, SACKs keep reporting cack_psn 0xFFFFFF.",
          ["SETH-CACK-001", "RCV-SACK-005", "BTH-PSN-001", "OPC-PSN-002", "SETH-BITMAP-002",
           "SETH-ACKPSN-003", "PETH-RESP-001"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    st = ctx.state.setdefault("sack-cack-no-wrap", {})
    qp = f.get("bth", "dest_qp")
    c = f.get("seth", "cack_psn")
    hi = st.get(qp)
    if hi is not None and c < hi and hi - c > 1 << 23:
        f.set("seth", "cack_psn", hi)
        f.set("bth", "psn", hi)
    else:
        st[qp] = c


m = fault("sack-rcvd-bytes-device-wide",
          "CC_STATE rcvd_bytes comes from one counter for the whole device instead of one per "
          "QP.",
          ["CCS-BYTES-001", "RCV-SACK-007", "PETH-RESP-001"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    st = ctx.state.setdefault("sack-rcvd-bytes-device-wide", {})
    qp = f.get("bth", "dest_qp")
    st[qp] = f.get("cc_state", "rcvd_bytes")
    f.set("cc_state", "rcvd_bytes", sum(st.values()) & U24)


m = fault("sack-ts-first-write",
          "A coalesced SACK reflects the TSETH timestamp of the first write it covers "
          "instead of its triggering (latest) write's.",
          ["CCS-TS-001", "RCV-SACK-007"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    st = ctx.state.setdefault("sack-ts-first-write", {})
    qp = ctx.local_qp_of(f)
    writes = ctx.rx_writes.get(qp) or []
    start = st.get(qp, 0)
    st[qp] = len(writes)
    covered = [w for w in writes[start:] if w[0] <= int(item["at"]) and w[3] is not None]
    if len(covered) > 1:
        f.set("cc_state", "tx_timestamp", covered[0][3])


m = fault("probe-answer-ev-last-write",
          "Probe answers leave on the EV of the QP's last received write, the SACK builder's "
          "latched EV, instead of the probe's.",
          ["RCV-SACK-006", "PETH-RESP-001", "EV-PROBE-004", "CONF-CMP-017"])


@out_frames(m, ("probe-answer",))
def _(ctx, f, item):
    writes = ctx.rx_writes.get(ctx.local_qp_of(f)) or []
    if writes:
        f.set_ev(writes[-1][2])


m = fault("probe-answer-id-le",
          "Probe answers echo the probe_id into ack_psn_offset byte-swapped.",
          ["SETH-ACKPSN-002", "SETH-LAYOUT-001", "PETH-RESP-001", "EV-PROBE-004"])


@out_frames(m, ("probe-answer",))
def _(ctx, f, item):
    f.set("seth", "ack_psn_offset", swap16(f.get("seth", "ack_psn_offset")))


m = fault("nack-ts-le",
          "NACKs reflect the NACKed packet's TSETH timestamp byte-swapped.",
          ["NETH-TS-001", "NETH-LAYOUT-001", "RCV-NACK-001"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    f.set("neth", "tx_timestamp", swap16(f.get("neth", "tx_timestamp")))


m = fault("rx-rtx-ignored",
          "The SACK trigger logic does not decode BTH rtx: a retransmission that arrives in "
          "order without AckReq waits for the coalescing count or the SACK timer.",
          ["RCV-SACK-001"])


@in_frames(m, ("data",))
def _(ctx, f, item):
    if f.get("bth", "rtx") and not f.get("bth", "ack_req"):
        f.set("bth", "rtx", 0)


# ---- probes and endpoint operations ------------------------------------------------------

m = fault("probe-id-le",
          "Probes carry PETH probe_id in little-endian byte order.",
          ["EV-PROBE-005", "PETH-LAYOUT-001"])


@out_frames(m, ("probe",))
def _(ctx, f, item):
    f.set("peth", "probe_id", swap16(f.get("peth", "probe_id")))


m = fault("ereq-request-id-le",
          "Endpoint requests carry ERTH request_id in little-endian byte order.",
          ["REC-IF-017", "ERTH-LAYOUT-001"])


@out_frames(m, ("ereq",))
def _(ctx, f, item):
    f.set("erth", "request_id", swap32(f.get("erth", "request_id")))


m = fault("ereq-resv12-request-id",
          "The request_id register is 64 bits wide and written whole: ERTH resv12, "
          "reserved, repeats the request_id.",
          ["ERTH-RESV-001"])


@out_frames(m, ("ereq",))
def _(ctx, f, item):
    f.set("erth", "resv12", f.get("erth", "request_id"))


# ---- completion entries and flags on error paths -----------------------------------------

m = fault("cqe-error-wr-id-zero",
          "Completions of failed work requests carry wr_id 0: the error path does not fetch "
          "the work request.",
          ["CQE-SEND-002", "CQE-SEND-001"])


def _(ctx, ev, e):
    if int(e.get("status", 0)) >= 0x10 and not e.get("is_receive"):
        e["wr_id"] = 0


completions(m, "requester", _)


m = fault("cqe-error-opcode-none",
          "Completions of failed work requests carry opcode NONE, as rejected tokens do.",
          ["CQE-SEND-002", "CQE-OPCODE-001", "CQE-SEND-001"])


def _(ctx, ev, e):
    if int(e.get("status", 0)) >= 0x10 and not e.get("is_receive"):
        e["opcode"] = 0xFF


completions(m, "requester", _)


m = fault("cqe-flush-as-cause",
          "Flushed work requests complete with RETRY_EXCEEDED: the flush path writes the "
          "QP's error cause into every completion instead of FLUSHED.",
          ["CQE-STATUS-001", "CQE-SEND-002", "RET-FLUSH-001"])


def _(ctx, ev, e):
    if int(e.get("status", 0)) == 0x15:
        e["status"] = 0x10


completions(m, "requester", _)


m = fault("cqe-phase-no-flip",
          "The phase bit is not inverted when the producer index wraps: every pass writes "
          "phase 1.",
          ["CQE-RING-001"])


@out_events(m, ("completion",))
def _(ctx, ev, item):
    if ev.get("queue") and not completion_entry(ev).get("phase"):
        mutate_completion(ev, lambda e: e.__setitem__("phase", True))


m = fault("reject-seq-gap-as-stale",
          "The token sequence check reports a token ahead of the expected seq as STALE_SEQ: "
          "the distance is compared as unsigned.",
          ["DB-SEQ-003", "CQE-REJECT-001"])


def _(ctx, ev, e):
    if int(e.get("status", 0)) == 0x04:
        e["status"] = 0x03


completions(m, None, _)


m = fault("recv-flag-base-first-qp",
          "Retirement flags of every QP are written at the flag base of the first QP "
          "created: the flag-base register is not switched per QP.",
          ["FLAG-RECV-001", "RET-FLAG-001", "FLAG-TABLE-001"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    if ev.get("side") != "responder" or not ctx.qps:
        return
    first = next(iter(ctx.qps.values()))
    q = ctx.qps.get(ev.get("qpn")) or {}
    if q is first or first.get("recv_flag_base") is None or q.get("recv_flag_base") is None:
        return
    ev["addr"] = int(ev["addr"]) - int(q["recv_flag_base"]) + int(first["recv_flag_base"])


m = fault("send-flag-generation-le",
          "Sender flags carry the token's seq in generation byte-swapped.",
          ["FLAG-SEND-001"])


def _(ctx, ev, d):
    d["generation"] = swap16(d["generation"])


flags(m, "requester", _)


m = fault("flag-error-status-in-len",
          "Flags of failed messages carry the status code in byte_len as well: the flag "
          "writer's error path reuses the length lane for the code.",
          ["FLAG-LEN-001"])


def _(ctx, ev, d):
    if d["status"]:
        d["byte_len"] = d["status"]


flags(m, None, _)


# ---- doorbells ---------------------------------------------------------------------------

m = fault("db-version-unchecked",
          "The token's version field is not checked: a token of any version is taken as "
          "version 1.",
          ["DB-VERSION-001", "DB-REJECT-001", "CQE-REJECT-001", "DB-ORDER-001"])


def _(ctx, c):
    if c.get("command") == "doorbell":
        t = int(c["token"])
        if t >> 60 != 1:
            c["token"] = (t & ~(0xF << 60)) | (1 << 60)
            return True
    if (c.get("command") == "doorbell_write" and c.get("offset") == 0
            and len(c.get("bytes", "")) == 16):
        b = bytearray.fromhex(c["bytes"])
        if b[7] >> 4 != 1:
            b[7] = (b[7] & 0x0F) | 0x10
            c["bytes"] = b.hex()
            return True
    return False


on_host_commands(m, _)


m = fault("db-remote-end-off-by-one",
          "The remote-range check compares the range's end with >= against the region "
          "length: a token whose range ends exactly at the end of the remote region is "
          "rejected with LENGTH_OUT_OF_RANGE.",
          ["DB-LENGTH-004", "DB-ACCEPT-001"])


@m.hook("inputs")
def _(ctx, ins):
    tpl = ctx.state.setdefault("db-remote-end-off-by-one", {})
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") == "set_template":
            tpl[c.get("template_id")] = dict(c)
            if int(c.get("remote_region_len", 0)) > 0:
                c["remote_region_len"] = int(c["remote_region_len"]) - 1
            continue
        token = None
        if c.get("command") == "doorbell":
            token = int(c["token"])
        elif (c.get("command") == "doorbell_write" and c.get("offset") == 0
              and len(c.get("bytes", "")) == 16):
            token = int.from_bytes(bytes.fromhex(c["bytes"]), "little")
        if token is None:
            continue
        t = tpl.get((token >> 48) & 0xFFF)
        if t is None:
            continue
        units, index = token & 0xFFFF, (token >> 16) & 0xFFFF
        length = int(t.get("default_length", 0)) if units == 0 else units * int(t.get("length_unit", 1))
        if index * int(t.get("remote_stride", 0)) + length == int(t.get("remote_region_len", -1)):
            ctx.mutated("db-remote-end-off-by-one")
    return ins


# ---- reports -----------------------------------------------------------------------------

m = fault("report-progress-qpn-latched",
          "The report builder latches the QPN of the first Progress of a cycle: a second QP's "
          "Progress in the same cycle carries the first QP's number.",
          ["REC-IF-002"])


@m.hook("outputs")
def _(ctx, outs):
    first = {}
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "report" or ev.get("report") != "progress":
            continue
        q = first.setdefault(item["at"], ev.get("qpn"))
        if ev.get("qpn") != q:
            ev["qpn"] = q
            ctx.mutated("report-progress-qpn-latched")
    return outs


# ==========================================================================================
# Legal variants written from a fourth reading, as another hardware team would build the
# NIC: other bus granularities, other orders of the outputs of one instant, a latency in one
# kind of output only, other IPv4 and SACK choices
# ===================================================================================

# ==========================================================================================

for _size in (128, 512):
    v = variant("dma-split-%d" % _size,
                "DMA writes are split at %d-byte address boundaries, as a PCIe bus with that "
                "maximum payload carries them." % _size)
    v.hooks["outputs"] = split_writes(_size)


def instants(outs):
    """The outputs in runs of equal time, in order."""
    i = 0
    while i < len(outs):
        j = i
        while j < len(outs) and outs[j]["at"] == outs[i]["at"]:
            j += 1
        yield outs[i:j]
        i = j


def is_dma(item):
    ev = event_of(item)
    return ev is not None and ev.get("event") == "dma_write"


def interleave(ctx, run):
    """The payload writes of a run, cut at 256-byte boundaries and issued one piece of each
    message in turn."""
    pieces = {}
    for item in split_writes(256)(ctx, run):
        ev = event_of(item)
        pieces.setdefault((ev.get("qpn"), ev.get("msn")), []).append(item)
    queues = list(pieces.values())
    res = []
    while queues:
        res.extend(q.pop(0) for q in queues)
        queues = [q for q in queues if q]
    return res


v = variant("dma-interleave",
            "A write buffer shared by every message holds the payload writes that reach it "
            "within half of late_ns and issues them cut into 256-byte pieces, one piece of "
            "each message in turn, all before the next flag or completion of the responder.")


def _interleave_held(ctx, items):
    return interleave(ctx, items) if len({by_message(event_of(i)) for i in items}) > 1 else items


v.hooks["outputs"] = write_buffer("dma-interleave", _interleave_held, lambda ev: 0)


def reorder_instants(why, key):
    """At each instant the outputs are given sorted by `key` (a stable sort, so outputs of
    equal key keep the device's order)."""

    def hook(ctx, outs):
        res = []
        for group in instants(outs):
            new = sorted(group, key=key)
            if new != group:
                ctx.mutated(why)
            res.extend(new)
        return res

    return hook


def _frame_qp_desc(item):
    f = frame_of(item)
    return 0 if f is None else -f.get("bth", "dest_qp")


v = variant("frames-qp-reversed",
            "Its transmit arbiter serves QPs from the highest number down: frames of several "
            "QPs that leave at one instant leave highest destination QP first, each QP's "
            "frames in their order.")


@v.hook("outputs")
def _(ctx, outs):
    res = []
    for group in instants(outs):
        slots = [i for i, o in enumerate(group) if frame_of(o) is not None]
        frames = sorted((group[i] for i in slots), key=_frame_qp_desc)
        new = list(group)
        for i, f in zip(slots, frames):
            new[i] = f
        if new != group:
            ctx.mutated("frames-qp-reversed")
        res.extend(new)
    return res


v = variant("frames-first",
            "At equal times its frames leave before its memory writes and reports become "
            "visible; the writes and reports keep their order.")
v.hooks["outputs"] = reorder_instants("frames-first",
                                      lambda o: 0 if frame_of(o) is not None else 1)

v = variant("events-first",
            "At equal times its memory writes and reports become visible before its frames "
            "leave; each keeps its order.")
v.hooks["outputs"] = reorder_instants("events-first",
                                      lambda o: 1 if frame_of(o) is not None else 0)


def _is_memory(item):
    ev = event_of(item)
    return ev is not None and ev.get("event") in ("dma_write", "flag_write", "completion")


def _is_report(item):
    ev = event_of(item)
    return ev is not None and ev.get("event") == "report"


def _frame_or_sender_note(item):
    # A sender flag or completion waits for the frames made before it (ORD-SEND-002).
    ev = event_of(item)
    if ev is not None:
        return ev.get("event") in ("flag_write", "completion") and ev.get("side") == "requester"
    return frame_of(item) is not None


v = variant("latency-frames-only",
            "Its transmit path adds half of late_ns to every frame; its memory writes and "
            "reports are on time, but for a sender flag or completion, which waits for the "
            "frames made before it (ORD-SEND-002).")
v.hooks["outputs"] = latency_of("latency-frames-only", _frame_or_sender_note)

v = variant("latency-memory-only",
            "Its host bus adds half of late_ns to every DMA write, flag and completion entry; "
            "its frames and reports are on time.")
v.hooks["outputs"] = latency_of("latency-memory-only", _is_memory)

v = variant("latency-reports-only",
            "Its report ring to the CPU half adds half of late_ns to every report; its frames "
            "and memory writes are on time.")
v.hooks["outputs"] = latency_of("latency-reports-only", _is_report)


v = variant("ipv4-ident-lfsr",
            "The IPv4 identification of each frame is the next state of a 16-bit LFSR (the "
            "other IP fields are the device's choice, CONF-CMP-026).")


def _(ctx, f, item):
    if f.has("ipv4"):
        n = ctx.state.get("lfsr", 0xACE1)
        n = (n >> 1) ^ (0xB400 if n & 1 else 0)
        ctx.state["lfsr"] = n
        f.set("ipv4", "ident", n)


all_frames(v, "ipv4-ident-lfsr", _)


v = variant("ipv4-df-clear",
            "Its IPv4 encoder leaves dont_frag 0 (ENC-IPV4-007 is a SHOULD).",
            allows=("ENC-IPV4-007",))


def _(ctx, f, item):
    if f.has("ipv4"):
        f.set("ipv4", "dont_frag", 0)


all_frames(v, "ipv4-df-clear", _)


v = variant("sack-every-write",
            "It sends a SACK for every write it accepts, as with sack_coalesce 1: the number "
            "of SACKs is the device's choice (CONF-CMP-007).")
config(v, "nic", "sack_coalesce", lambda x: 1, responder)


v = variant("dma-split-dwords",
            "DMA writes are cut into 4-byte pieces, one PCIe doubleword each (CONF-CMP-044 "
            "counts one output per byte placed).")
v.hooks["outputs"] = split_writes(4)


def _is_answer(item):
    f = frame_of(item)
    return f is not None and kind(f) in ("sack", "probe-answer", "ack", "nak", "nack")


def _is_sent_or_sender_note(item):
    f = frame_of(item)
    if f is not None:
        return kind(f) in ("data", "probe")
    return _frame_or_sender_note(item)


v = variant("latency-answers-only",
            "Its SACK, NACK and ACK engine adds half of late_ns to every answer; data, probes, "
            "memory writes and reports are on time.")
v.hooks["outputs"] = latency_of("latency-answers-only", _is_answer)

v = variant("latency-data-only",
            "Its send engine adds half of late_ns to every data packet and probe, and to each "
            "sender flag and completion, which waits for them (ORD-SEND-002); its answers, "
            "receive-side writes and reports are on time.")
v.hooks["outputs"] = latency_of("latency-data-only", _is_sent_or_sender_note)


def _is_sender_note(item):
    ev = event_of(item)
    return (ev is not None and ev.get("event") in ("flag_write", "completion")
            and ev.get("side") == "requester")


v = variant("sender-notes-first",
            "At equal times its sender flags and completions become visible before its frames "
            "leave: two interfaces, each in its own order; the host bus keeps its order "
            "(CONF-CMP-009).")


@v.hook("outputs")
def _(ctx, outs):
    res = []
    for group in instants(outs):
        slots = [i for i, o in enumerate(group) if frame_of(o) is not None or _is_sender_note(o)]
        moved = sorted((group[i] for i in slots), key=lambda o: 0 if _is_sender_note(o) else 1)
        new = list(group)
        for i, o in zip(slots, moved):
            new[i] = o
        if new != group:
            ctx.mutated("sender-notes-first")
        res.extend(new)
    return res


v = variant("dma-merge-across",
            "A write-combining buffer shared by every message merges contiguous payload writes "
            "that reach it within half of late_ns, across messages too, all before the next "
            "flag or completion of the responder.")
v.hooks["outputs"] = write_buffer("dma-merge-across", merge_contiguous, lambda ev: 0)


def _odd_sender_flag(item):
    ev = event_of(item)
    return (ev is not None and ev.get("event") == "flag_write"
            and ev.get("side") == "requester" and bool(int(ev.get("qpn") or 0) & 1))


v = variant("sender-flags-odd-qps-late",
            "Its sender flags leave through two write queues by QP parity, one slower: the "
            "sender flags of odd QPs become visible half of late_ns later, every other output "
            "on time, so that flags of two QPs may come in another order (no rule orders "
            "them).")
v.hooks["outputs"] = latency_of("sender-flags-odd-qps-late", _odd_sender_flag)


# ==========================================================================================
# The fourth reading: the sending side, as a requester's RTL team would get it wrong.
# ==========================================================================================

def per_qp(ctx, name):
    """The scratch state of fault `name`, one dict per destination QP."""
    return ctx.state.setdefault(name, {})


def msg_key(f):
    """A data frame's message: (destination QP, METH msn)."""
    return (f.get("bth", "dest_qp"), f.get("meth", "msn"))


def nic_int(ctx, key, default=0):
    v = ctx.nic.get(key)
    return default if v is None else int(v)


# ---- counters that wrap, and counters kept in the wrong place ----------------------------

m = fault("psn-wrap-skips-zero",
          "The PSN counter wraps from 0xFFFFFF to 1 instead of 0: the carry clears the "
          "counter after the increment instead of before.",
          ["SND-PSN-001", "BTH-PSN-001", "EV-PROBE-005", "OPC-PSN-002"])


@out_frames(m, ("data", "probe"))
def _(ctx, f, item):
    st = per_qp(ctx, "psn-wrap-skips-zero")
    qp, psn = f.get("bth", "dest_qp"), f.get("bth", "psn")
    if kind(f) == "data" and psn == U24:
        st[qp] = True
    elif st.get(qp) and psn < 0x800000:
        f.set("bth", "psn", psn + 1)


m = fault("ackreq-from-initial-psn",
          "The AckReq counter counts packets from the QP's initial PSN instead of testing the "
          "PSN itself: AckReq lands on initial_psn + k x ack_req_every.",
          ["SND-ACKREQ-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    every = nic_int(ctx, "ack_req_every")
    qp = ctx.qps.get(ctx.local_qp_of(f)) or {}
    if every <= 0:
        return
    base = int(qp.get("initial_psn", 0))
    want = is_last(f) or ((f.get("bth", "psn") - base) & U24) % every == 0
    f.set("bth", "ack_req", int(want))


m = fault("ackreq-every-plus-one",
          "The ack_req_every register is compared with a counter that starts at 1: AckReq "
          "comes every ack_req_every + 1 PSNs.",
          ["SND-ACKREQ-001"])
config(m, "nic", "ack_req_every", lambda v: int(v) + 1 if int(v) > 0 else v, requester)


m = fault("msn-per-qp-in-shared",
          "In shared retirement the MSN counter is kept per QP instead of per domain, so two "
          "QPs of one domain number their messages from 0 each.",
          ["SND-MSN-001", "METH-MSN-001", "SND-MSN-002", "RET-DOMAIN-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if not shared_mode(ctx):
        return
    st = per_qp(ctx, "msn-per-qp-in-shared")
    qp = f.get("bth", "dest_qp")
    names = st.setdefault(qp, {})
    msn = f.get("meth", "msn")
    if msn not in names:
        names[msn] = len(names)
    f.set("meth", "msn", names[msn] & 0xFFFF)


m = fault("rqmsn-counts-every-message",
          "The RQMSN counter advances on every message instead of on Writes with Immediate "
          "only: METH rqmsn carries the message's place among all the QP's messages.",
          ["SND-RQMSN-002", "METH-RQMSN-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    st = per_qp(ctx, "rqmsn-counts-every-message")
    names = st.setdefault(f.get("bth", "dest_qp"), {})
    msn = f.get("meth", "msn")
    if msn not in names:
        names[msn] = len(names) + 1
    f.set("meth", "rqmsn", names[msn] & 0xFFFF)


m = fault("immdt-previous-message",
          "The immediate register is latched one message late: a Write with Immediate "
          "carries the immediate of the QP's previous one, the first carries 0.",
          ["SND-SEG-004", "WR-EXEC-001", "TPL-EXPAND-005", "IMMDT-LAYOUT-001", "CQE-RECV-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if not f.has("immdt"):
        return
    st = per_qp(ctx, "immdt-previous-message")
    q = st.setdefault(f.get("bth", "dest_qp"), {"last": 0, "by_msn": {}})
    msn = f.get("meth", "msn")
    if msn not in q["by_msn"]:
        q["by_msn"][msn] = q["last"]
        q["last"] = f.get("immdt", "imm")
    f.set("immdt", "imm", q["by_msn"][msn])


# ---- the wrong packet's fields in a retransmission --------------------------------------

m = fault("rtx-reth-va-message-start",
          "The retransmission path rebuilds the RETH from the message descriptor: a "
          "retransmitted packet carries the va of its message's first packet.",
          ["SND-RTX-001", "SND-SEG-003", "RETH-VA-002"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    st = per_qp(ctx, "rtx-reth-va-message-start")
    if not f.get("bth", "rtx"):
        if is_first(f):
            st[msg_key(f)] = f.get("reth", "va")
        return
    va = st.get(msg_key(f))
    if va is not None:
        f.set("reth", "va", va)


m = fault("rtx-meth-current",
          "A retransmission takes its METH from the QP's current METH register, the one of "
          "the latest first transmission, instead of its own message's.",
          ["SND-RTX-001", "SND-MSN-002", "METH-MSN-001", "SND-RQMSN-002", "METH-RQMSN-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    st = per_qp(ctx, "rtx-meth-current")
    qp = f.get("bth", "dest_qp")
    if not f.get("bth", "rtx"):
        st[qp] = (f.get("meth", "rqmsn"), f.get("meth", "msn"))
    elif qp in st:
        f.set("meth", "rqmsn", st[qp][0])
        f.set("meth", "msn", st[qp][1])


m = fault("rtx-opcode-middle",
          "The retransmission path does not keep the packet's position: a retransmitted "
          "FIRST or LAST of a message without immediate leaves as a MIDDLE.",
          ["SND-RTX-001", "SND-SEG-002", "OPC-MRC-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.get("bth", "rtx") and f.opcode in (roce.MRC_WRITE_FIRST, roce.MRC_WRITE_LAST):
        f.set("bth", "opcode", roce.MRC_WRITE_MIDDLE)


m = fault("rtx-pad-latched",
          "A retransmission takes BTH pad_count from the QP's pad register, which holds the "
          "pad of the last data packet sent, instead of its own.",
          ["SND-RTX-001", "PAY-PAD-001", "SND-SEG-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    st = per_qp(ctx, "rtx-pad-latched")
    qp = f.get("bth", "dest_qp")
    last = st.get(qp)
    st[qp] = f.get("bth", "pad_count")
    if f.get("bth", "rtx") and last is not None and last <= len(f.payload):
        f.set("bth", "pad_count", last)


m = fault("tseth-tsr-set",
          "The TSETH builder sets tsr, the reflected-timestamp bit, in every data packet.",
          ["SND-TS-002"], keywords=("tsr",))


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.has("tseth"):
        f.set("tseth", "tsr", 1)


# ---- probes --------------------------------------------------------------------------------

m = fault("probe-psn-last-sent",
          "The probe builder reads the PSN of the last packet sent, snd_nxt - 1, instead of "
          "snd_nxt.",
          ["EV-PROBE-005", "OPC-PSN-002"])


@out_frames(m, ("probe",))
def _(ctx, f, item):
    f.set("bth", "psn", (f.get("bth", "psn") - 1) & U24)


m = fault("probe-id-per-ev",
          "The probe_id counter is kept per EV instead of per QP: each EV's first probe "
          "carries probe_id 1.",
          ["EV-PROBE-005"])


@out_frames(m, ("probe",))
def _(ctx, f, item):
    st = per_qp(ctx, "probe-id-per-ev")
    k = (f.get("bth", "dest_qp"), f.ev())
    st[k] = st.get(k, 0) + 1
    f.set("peth", "probe_id", st[k] & 0xFFFF)


m = fault("probe-ev-last-data",
          "Probes leave on the EV the spray engine chose last for a data packet of the QP "
          "instead of the EV the probe names.",
          ["EV-PROBE-005", "REC-IF-011", "SND-TAIL-001", "SND-SPRAY-009", "CONF-CMP-017"])


@out_frames(m, ("data", "probe"))
def _(ctx, f, item):
    st = per_qp(ctx, "probe-ev-last-data")
    qp = f.get("bth", "dest_qp")
    if kind(f) == "data":
        st[qp] = f.ev()
    elif qp in st:
        f.set_ev(st[qp])


# ---- reports to the CPU half -------------------------------------------------------------

m = fault("report-nack-reason-latched",
          "Nack reports carry the reason of the QP's first NACK: the reason register is "
          "loaded once.",
          ["REC-IF-004"])


@out_events(m, ("report:nack",))
def _(ctx, ev, item):
    st = per_qp(ctx, "report-nack-reason-latched")
    ev["reason"] = st.setdefault(ev.get("qpn"), ev.get("reason"))


m = fault("report-nack-psn-next",
          "Nack reports carry the NACKed PSN plus one, read from the PSN register after its "
          "increment.",
          ["REC-IF-004"])


@out_events(m, ("report:nack",))
def _(ctx, ev, item):
    ev["psn"] = (int(ev.get("psn", 0)) + 1) & U24


m = fault("report-ev-marked-on-change",
          "EvMarked is sent only when the mark changes the EV's state: a repeated mark on "
          "an EV already in SKIP or ASSUMED_BAD is not reported.",
          ["REC-IF-005"])


def _marked_again(ctx, ev):
    if ev.get("event") != "report" or ev.get("report") != "ev_marked":
        return False
    st = per_qp(ctx, "report-ev-marked-on-change")
    k = (ev.get("qpn"), ev.get("ev"), ev.get("mark"))
    seen = k in st
    st[k] = True
    return seen


drop_events(m, _marked_again)


m = fault("report-probe-answered-mark-none",
          "ProbeAnswered reports always carry mark NONE: the mark field is not wired to "
          "the report.",
          ["REC-IF-007"])


@out_events(m, ("report:probe_answered",))
def _(ctx, ev, item):
    ev["mark"] = "NONE"


m = fault("report-retransmitted-psn-latched",
          "The Retransmitted report latches the PSN of the first retransmission of a "
          "cycle: every other retransmission of that cycle is reported with it.",
          ["REC-IF-008"])


@m.hook("outputs")
def _(ctx, outs):
    first = {}
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "report" or ev.get("report") != "retransmitted":
            continue
        psn = first.setdefault((item["at"], ev.get("qpn")), ev.get("psn"))
        if ev.get("psn") != psn:
            ev["psn"] = psn
            ctx.mutated("report-retransmitted-psn-latched")
    return outs


m = fault("report-qp-error-twice",
          "QpError is sent twice: once when the QP fails and again when its flush "
          "completes.",
          ["REC-IF-009"])


@m.hook("outputs")
def _(ctx, outs):
    res = []
    for item in outs:
        res.append(item)
        ev = event_of(item)
        if ev is not None and ev.get("event") == "report" and ev.get("report") == "qp_error":
            res.append(json.loads(json.dumps(item)))
            ctx.mutated("report-qp-error-twice")
    return res


# ---- reactions to what the responder says (input mutations) ------------------------------

m = fault("snd-sack-offset-ignored",
          "The sender ignores SETH sack_offset: it reads the bitmap as starting at "
          "cack_psn + 1.",
          ["SND-SACK-002", "SND-INFER-001", "SND-INFER-002", "SND-RTX-004", "SND-RTX-003",
           "SND-SACK-004", "SND-SACK-001"])


@in_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    if f.get("seth", "sack_offset") != 1:
        f.set("seth", "sack_offset", 1)


m = fault("snd-always-skip-as-once",
          "The mark decoder takes ALWAYS_SKIP for SKIP_ONCE: an EV the responder marks as "
          "failed goes to SKIP, and its path comes back after skip_hold.",
          ["EV-BAD-001", "REC-IF-016", "REC-IF-005", "SND-PATH-001", "EV-STATE-001"])


@in_frames(m, ("sack",))
def _(ctx, f, item):
    if f.get("seth", "m") == 2:
        f.set("seth", "m", 1)


m = fault("snd-probe-answer-mark-ignored",
          "The sender ignores the mark of a probe answer: every answer brings its EV back "
          "to GOOD.",
          ["EV-PROBE-003", "EV-PROBE-002", "REC-IF-016", "REC-IF-007", "SND-PATH-001"])


@in_frames(m, ("probe-answer",))
def _(ctx, f, item):
    f.set("seth", "m", 0)


m = fault("snd-resource-nack-as-trim",
          "The NACK reason decoder maps every non-fatal reason to TRIMMED: a window or "
          "resource NACK puts the EV in SKIP and is retransmitted at once.",
          ["SND-NACK-003", "SND-NACK-004", "EV-SKIP-001", "REC-IF-016", "REC-IF-004",
           "SND-SCHED-003"])


@in_frames(m, ("nack",))
def _(ctx, f, item):
    if f.get("neth", "reason") not in (0x01, 0x02, 0x19):
        f.set("neth", "reason", 0x01)


m = fault("snd-mpr-half",
          "The sender reads SETH mpr in units of 64 PSNs instead of 128: W_peer is half "
          "what the responder allows.",
          ["SND-WIN-002", "SND-WIN-001"])


@in_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    if f.get("seth", "mpr") >= 2:
        f.set("seth", "mpr", f.get("seth", "mpr") // 2)


m = fault("snd-cack-exclusive",
          "The sender takes cack_psn as the first PSN not yet arrived: snd_una becomes "
          "cack_psn instead of cack_psn + 1.",
          ["SND-SACK-001", "SND-RTX-004", "REC-IF-002", "SND-WIN-001", "SND-SCHED-003",
           "REC-RTO-004"])


@in_frames(m, ("sack",))
def _(ctx, f, item):
    off = f.get("seth", "sack_offset")
    if off < 0x7FFF:
        f.set("seth", "cack_psn", (f.get("seth", "cack_psn") - 1) & U24)
        f.set("seth", "sack_offset", off + 1)


m = fault("snd-ack-msn-exclusive",
          "The ACK comparator uses < instead of <=: an AETH ACK completes the messages "
          "before its msn but not the message it names.",
          ["SND-ACK-001", "CQE-SEND-001", "FLAG-SEND-001", "FLAG-SEND-002", "RET-SEND-001",
           "SND-ACK-005"])


@in_frames(m, ("ack",))
def _(ctx, f, item):
    v = f.get("aeth", "msn")
    f.set("aeth", "msn", (v & 0xFF0000) | ((v - 1) & 0xFFFF))


# ---- timers and limits --------------------------------------------------------------------

m = fault("skip-hold-stuck",
          "The SKIP hold timer is never armed: an EV in SKIP stays there and its path is "
          "never used again.",
          ["EV-SKIP-002", "REC-IF-016", "SND-PATH-001", "EV-STATE-001", "SND-PATH-002"])
config(m, "nic", "skip_hold", lambda v: 1 << 40,
       lambda ctx: requester(ctx) and "paths" in ctx.requires, reads=lambda c, i: rx_skip(i))

m = fault("tail-probe-never",
          "The tail-probe timer is not started: a tail of lost packets waits for the "
          "retransmission timeout.",
          ["SND-TAIL-001", "EV-PROBE-005", "SND-TAIL-003"])


@m.hook("start")
def _(ctx, manifest):
    nic = manifest.get("nic")
    if not isinstance(nic, dict) or nic.get("tail_probe") is None:
        return manifest
    manifest = json.loads(json.dumps(manifest))
    del manifest["nic"]["tail_probe"]
    ctx.mutated("tail-probe-never")
    return manifest


m = fault("nack-backoff-doubled",
          "The NACK back-off timer runs at half its rate: a retransmission after a window "
          "or resource NACK waits 2 x nack_backoff.",
          ["SND-NACK-004", "SND-SCHED-003"])
config(m, "nic", "nack_backoff", lambda v: int(v) * 2, requester,
       reads=lambda c, i: rx(i, ("nack",), lambda f: f.get("neth", "reason") not in (1, 2, 0x19)))

m = fault("retry-limit-minus-one",
          "The on-board CPU half compares the retry counter with >= retry_limit: the QP "
          "fails one retry early.",
          ["REC-RETRY-002", "REC-RETRY-001", "REC-RTO-003"])
config(m, "recovery", "retry_limit", lambda v: max(int(v) - 1, 0), device_cpu)

m = fault("rto-max-ignored",
          "The on-board CPU half does not cap the back-off at rto_max: the timeout keeps "
          "doubling.",
          ["REC-RTO-005", "REC-RTO-003"])
config(m, "recovery", "rto_max", lambda v: 1 << 40, device_cpu)


# ==========================================================================================
# A fourth reading: the receiving side and the host interface (receiver.md, completion.md,
# host-interface.md, the receive rules of wire-format.md), as a responder's and a host
# engine's bug list.
# ==========================================================================================

def rx_state(ctx, m):
    """Per-mod scratch of the receive-side faults: the writes given in this batch and the
    PSNs the device placed, with the time of their first placement."""
    return ctx.state.setdefault(m.name + ":rx", {"batch": [], "placed": {}, "seen": {}})


def rx_info(f, at):
    """What a responder reads from a write it was given."""
    return {
        "at": at, "qp": f.get("bth", "dest_qp"), "psn": f.get("bth", "psn"),
        "msn": f.get("meth", "msn"), "rqmsn": f.get("meth", "rqmsn"),
        "ack_req": f.get("bth", "ack_req"), "rtx": f.get("bth", "rtx"), "op": f.opcode,
        "imm": f.get("immdt", "imm") if f.has("immdt") else None,
        "va": f.get("reth", "va"), "rkey": f.get("reth", "rkey"),
        "dma_len": f.get("reth", "dma_len"), "payload": f.payload, "ev": f.ev(),
        "last": is_last(f),
    }


def track_rx(m):
    """Registers an input hook that keeps the sound writes of each batch, in order."""

    @m.hook("inputs")
    def _(ctx, ins):
        st = rx_state(ctx, m)
        st["batch"] = []
        for item in ins:
            f = frame_of(item)
            if f is not None and f.is_write() and sound(f):
                w = rx_info(f, int(item["at"]))
                st["batch"].append(w)
                st["seen"].setdefault((w["qp"], w["msn"]), []).append(w)
        return ins


def learn_placed(st, outs):
    """Records the first time the device placed each (QP, PSN), from its DMA writes."""
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "dma_write":
            st["placed"].setdefault((ev.get("qpn"), ev.get("psn")), int(item["at"]))


def is_dup(st, w):
    """Whether a write the device was given repeats a PSN it had placed before."""
    t = st["placed"].get((w["qp"], w["psn"]))
    return t is not None and t < w["at"]


def trigger_of(st, qp, at, psn=None):
    """The write of QP `qp` given at `at` (with PSN `psn`, when said), or None."""
    for w in st["batch"]:
        if w["qp"] == qp and w["at"] == at and (psn is None or w["psn"] == psn):
            return w
    return None


def window_of(ctx, name, qp):
    """The receive window of QP `qp` as a mod follows it from the writes given: its epsn
    and the PSNs received after it (every write inside the window taken as accepted)."""
    wins = ctx.state.setdefault(name + ":win", {})
    if qp not in wins:
        q = ctx.qps.get(qp) or {}
        wins[qp] = {"epsn": int(q.get("peer_initial_psn", 0)) & U24, "got": set()}
    return wins[qp]


def window_take(ctx, win, p):
    """Marks PSN `p` received when it is new and inside the window, and moves epsn."""
    if (p - win["epsn"]) & U24 >= ctx.mpr() * 128:
        return
    win["got"].add(p)
    while win["epsn"] in win["got"]:
        win["got"].discard(win["epsn"])
        win["epsn"] = (win["epsn"] + 1) & U24


# ---- the receive window -------------------------------------------------------------------

m = fault("rcv-window-last-psn-oor",
          "The window comparator tests p - epsn >= W - 1: the last PSN of the window is "
          "NACKed as out of window and discarded.",
          ["RCV-WIN-001", "RCV-WIN-002", "RCV-PLACE-003"])


@m.hook("inputs")
def _(ctx, ins):
    st = ctx.state.setdefault("rcv-window-last-psn-oor", {})
    w = ctx.mpr() * 128
    for item, f in frames(ins, ("data",), only_sound=True):
        qp = f.get("bth", "dest_qp")
        if qp not in ctx.qps:
            continue
        win = window_of(ctx, "rcv-window-last-psn-oor", qp)
        epsn, p = win["epsn"], f.get("bth", "psn")
        if (p - epsn) & U24 == w - 1 and p not in win["got"]:
            # The device itself NACKs the PSN one further; the NACK names p again.
            f.set("bth", "psn", (epsn + w) & U24)
            f.seal()
            put_frame(item, f)
            st[(qp, (epsn + w) & U24, int(item["at"]))] = p
            ctx.mutated("rcv-window-last-psn-oor")
            continue
        window_take(ctx, win, p)
    return ins


@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.get("rcv-window-last-psn-oor", {})
    for item, f in frames(outs, ("nack",)):
        p = st.get((ctx.local_qp_of(f), f.get("neth", "nack_psn"), int(item["at"])))
        if p is not None:
            f.set("neth", "nack_psn", p)
            f.set("bth", "psn", p)
            f.seal()
            put_frame(item, f)
    return outs


m = fault("rcv-oor-as-duplicate",
          "The window comparator takes every PSN outside [epsn, epsn + W) as behind epsn: an "
          "out-of-window write is answered as a duplicate, with a SACK, instead of a NACK.",
          ["RCV-WIN-001", "RCV-WIN-002", "RCV-NACK-001"])


@in_frames(m, ("data",))
def _(ctx, f, item):
    qp = f.get("bth", "dest_qp")
    if qp not in ctx.qps:
        return
    win = window_of(ctx, "rcv-oor-as-duplicate", qp)
    d = (f.get("bth", "psn") - win["epsn"]) & U24
    if ctx.mpr() * 128 <= d < 0x800000:
        f.set("bth", "psn", (win["epsn"] - 1) & U24)
        return
    window_take(ctx, win, f.get("bth", "psn"))


# ---- duplicates -----------------------------------------------------------------------------

m = fault("rcv-dup-placed-again",
          "The duplicate check runs after the DMA engine was started: a duplicate's payload "
          "is written to host memory again before the packet is dropped.",
          ["RCV-DUP-001", "RCV-PLACE-004", "FLAG-LAST-001"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs):
    st = rx_state(ctx, m_dup_placed)
    learn_placed(st, outs)
    res = list(outs)
    for w in st["batch"]:
        if not is_dup(st, w) or not w["payload"]:
            continue
        res.append({"at": w["at"], "output": {"kind": "event", "event": {
            "event": "dma_write", "qpn": w["qp"], "psn": w["psn"], "msn": w["msn"],
            "va": w["va"], "payload": {"bytes": w["payload"].hex()}}}})
        ctx.mutated("rcv-dup-placed-again")
    res.sort(key=lambda o: int(o["at"]))
    return res


m_dup_placed = m


def dup_times(ctx, m, outs):
    """The (QP, time) of every duplicate given in this batch."""
    st = rx_state(ctx, m)
    learn_placed(st, outs)
    return {(w["qp"], w["at"]) for w in st["batch"] if is_dup(st, w)}


m = fault("rcv-dup-ack-before-sack",
          "The duplicate path queues the transport ACK ahead of the SACK, as the path of a "
          "new packet does: a duplicate of a retired message gets its ACK before its SACK.",
          ["RCV-DUP-002"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    dups = dup_times(ctx, m, outs)
    res = list(outs)
    i = 0
    while i + 1 < len(res):
        a, b = frame_of(res[i]), frame_of(res[i + 1])
        if (a is not None and b is not None and kind(a) == "sack" and kind(b) == "ack"
                and res[i]["at"] == res[i + 1]["at"]
                and (ctx.local_qp_of(a), int(res[i]["at"])) in dups
                and ctx.local_qp_of(a) == ctx.local_qp_of(b)):
            res[i], res[i + 1] = res[i + 1], res[i]
            ctx.mutated("rcv-dup-ack-before-sack")
            i += 2
            continue
        i += 1
    return res


m = fault("rcv-dup-retired-no-sack",
          "A duplicate whose message has retired is handed to the ACK engine alone: it gets "
          "its transport ACK but no SACK.",
          ["RCV-DUP-001", "RCV-SACK-001"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    dups = dup_times(ctx, m, outs)
    acked = set()
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "ack":
            acked.add((ctx.local_qp_of(f), int(item["at"])))
    keep = []
    for item in outs:
        f = frame_of(item)
        key = (ctx.local_qp_of(f), int(item["at"])) if f is not None else None
        if f is not None and kind(f) == "sack" and key in dups and key in acked:
            ctx.mutated("rcv-dup-retired-no-sack")
            continue
        keep.append(item)
    return keep


# ---- SACK content ---------------------------------------------------------------------------

m = fault("sack-bitmap-32bit",
          "Only the low word of the SACK bitmap register is wired: sack_bitmap bits 63:32 are "
          "always 0.",
          ["SETH-BITMAP-001", "RCV-SACK-005"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "sack_bitmap", f.get("seth", "sack_bitmap") & 0xFFFFFFFF)


m = fault("sack-bitmap-shift-high",
          "The SACK bitmap is taken from the receive bitmap one bit too high, so bit i reports "
          "PSN epsn + i + 1.",
          ["SETH-BITMAP-001", "SETH-BITMAP-002", "RCV-SACK-005"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "sack_bitmap", f.get("seth", "sack_bitmap") >> 1)


m = fault("sack-ackpsn-from-epsn",
          "ack_psn_offset is computed from epsn instead of cack_psn, so it points one PSN "
          "before the triggering packet.",
          ["SETH-ACKPSN-003", "RCV-SACK-005"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    off = f.get("seth", "ack_psn_offset")
    if off > -32768:
        f.set("seth", "ack_psn_offset", (off - 1) & 0xFFFF)


m = fault("sack-far-dup-offset-wraps",
          "ack_psn_offset is the low 16 bits of the PSN difference, not clamped: a duplicate "
          "far behind cack_psn gets an offset that wraps to an unrelated value.",
          ["SETH-ACKPSN-003", "RCV-SACK-005", "RCV-DUP-001"])
track_rx(m)


@out_frames(m, ("sack",))
def _(ctx, f, item):
    if f.get("seth", "ack_psn_offset") != -32768:
        return
    w = trigger_of(rx_state(ctx, m_far_dup), ctx.local_qp_of(f), int(item["at"]))
    if w is None:
        return
    f.set("seth", "ack_psn_offset", (w["psn"] - f.get("seth", "cack_psn")) & 0xFFFF)


m_far_dup = m


m = fault("sack-ooo-from-sack-bitmap",
          "ooo_count is the population count of the 64-bit SACK bitmap instead of every PSN "
          "received after cack_psn: PSNs beyond the bitmap's reach are not counted.",
          ["CCS-OOO-001", "RCV-SACK-007"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("cc_state", "ooo_count", bin(f.get("seth", "sack_bitmap")).count("1"))


m = fault("sack-rcvd-bytes-counts-dups",
          "The received-bytes counter is incremented before the duplicate check: CC_STATE "
          "rcvd_bytes counts the payload of duplicates too.",
          ["CCS-BYTES-001", "RCV-SACK-007", "RCV-DUP-001"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = rx_state(ctx, m)
    acc = st.setdefault("acc", {})
    extra = st.setdefault("extra", {})
    dups = {(w["qp"], w["at"]): w for w in st["batch"]}
    learn_placed(st, outs)
    done = set()
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "dma_write":
            q = ev.get("qpn")
            acc[q] = acc.get(q, 0) + len(ev.get("payload", {}).get("bytes", "")) // 2
            continue
        f = frame_of(item)
        if f is None or kind(f) not in ("sack", "probe-answer"):
            continue
        qp = ctx.local_qp_of(f)
        key = (qp, int(item["at"]))
        w = dups.get(key)
        if w is not None and is_dup(st, w) and key not in done:
            done.add(key)
            extra[qp] = extra.get(qp, 0) + len(w["payload"])
        got = f.get("cc_state", "rcvd_bytes")
        if not extra.get(qp) or got != (acc.get(qp, 0) // 256) & U24:
            continue
        f.set("cc_state", "rcvd_bytes", ((acc.get(qp, 0) + extra[qp]) // 256) & U24)
        f.seal()
        put_frame(item, f)
        if f.get("cc_state", "rcvd_bytes") != got:
            ctx.mutated("sack-rcvd-bytes-counts-dups")
    return outs


# ---- SACK triggers ----------------------------------------------------------------------------

def sack_drop(m, pred):
    """A SACK trigger the device lacks: drops each SACK whose triggering write (the write
    of its QP given at its time) meets `pred(ctx, f, w)` and that no other trigger
    explains (AckReq, rtx, the coalescing count)."""
    track_rx(m)

    @m.hook("outputs")
    def _(ctx, outs):
        st = rx_state(ctx, m)
        accepted = st.setdefault("accepted", {})
        last = st.setdefault("last_sack", {})
        learn_placed(st, outs)
        for w in st["batch"]:
            if not is_dup(st, w):
                accepted.setdefault(w["qp"], []).append(w["at"])
        coalesce = max(int(ctx.nic.get("sack_coalesce", 4)), 1)
        keep = []
        for item in outs:
            f = frame_of(item)
            if f is None or kind(f) not in ("sack", "probe-answer"):
                keep.append(item)
                continue
            qp, at = ctx.local_qp_of(f), int(item["at"])
            psn = (f.get("seth", "cack_psn") + f.get("seth", "ack_psn_offset")) & U24
            w = trigger_of(st, qp, at, psn)
            since = [t for t in accepted.get(qp, []) if last.get(qp, -1) < t <= at]
            if (w is not None and kind(f) == "sack" and not is_dup(st, w)
                    and not w["ack_req"] and not w["rtx"] and len(since) < coalesce
                    and pred(ctx, f, w)):
                ctx.mutated(m.name)
                continue
            last[qp] = at
            keep.append(item)
        return keep


m = fault("sack-hole-no-trigger",
          "A write accepted behind a hole does not trigger a SACK: the trigger logic compares "
          "the PSN with epsn only after the bitmap update.",
          ["RCV-SACK-001"])
sack_drop(m, lambda ctx, f, w: f.get("seth", "ack_psn_offset") >= 2)


m = fault("sack-fill-no-trigger",
          "A write that fills a hole does not trigger a SACK: the trigger logic looks only at "
          "whether the packet was in order, not at how far epsn moved.",
          ["RCV-SACK-001"])
sack_drop(m, lambda ctx, f, w: f.get("seth", "ack_psn_offset") < 0)


# ---- transport ACKs and NAKs ----------------------------------------------------------------

m = fault("ack-other-qps-missing",
          "Only the QP whose packet arrived is acknowledged: messages of other QPs of a "
          "shared domain that its arrival retires wait for no ACK.",
          ["RCV-ACK-003", "RCV-ACK-001"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = rx_state(ctx, m)
    keep = []
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "ack":
            at = int(item["at"])
            qps = {w["qp"] for w in st["batch"] if w["at"] == at}
            if qps and ctx.local_qp_of(f) not in qps:
                ctx.mutated("ack-other-qps-missing")
                continue
        keep.append(item)
    return keep


m = fault("ack-msn-domain-last",
          "The AETH msn is read from the domain's retirement pointer (the last MSN retired "
          "in the domain, by any QP) instead of the last MSN of the acknowledging QP.",
          ["RCV-ACK-003", "RCV-ACK-002", "AETH-MSN-001", "RCV-NAK-002"])


@m.hook("outputs")
def _(ctx, outs):
    last = ctx.state.setdefault("ack-msn-domain-last", {})
    if not shared_mode(ctx):
        return outs
    # The retirements of this batch, by time: the pointer an ACK reads is the domain's
    # after every retirement of its instant, whatever order the outputs come in.
    flags = []
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "flag_write" and ev.get("side") == "responder":
            dom = (ctx.qps.get(ev.get("qpn")) or {}).get("domain", 0)
            flags.append((int(item["at"]), dom, int(ev["msn"]), ev.get("qpn")))
    for item, f in frames(outs, ("ack",)):
        qp = ctx.local_qp_of(f)
        dom = (ctx.qps.get(qp) or {}).get("domain", 0)
        now = [x for x in flags if x[0] <= int(item["at"]) and x[1] == dom]
        d = (now[-1][2], now[-1][3]) if now else last.get(dom)
        # The pointer differs from the QP's own last MSN when another QP retired last.
        if d is not None and d[1] != qp and d[0] != f.get("aeth", "msn") & 0xFFFF:
            f.set("aeth", "msn", d[0])
            f.seal()
            put_frame(item, f)
            ctx.mutated("ack-msn-domain-last")
    for at, dom, msn, qpn in flags:
        last[dom] = (msn, qpn)
    return outs


m = fault("nak-msn-zero-before-retire",
          "A transport NAK sent before any message of the QP retired carries msn 0, as the "
          "withdrawn draft rule said, instead of the MSN before the domain's next.",
          ["RCV-NAK-002", "AETH-MSN-001"])


@m.hook("outputs")
def _(ctx, outs):
    retired = ctx.state.setdefault("nak-msn-zero-before-retire", set())
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "flag_write" and ev.get("side") == "responder":
            retired.add(ev.get("qpn"))
            continue
        f = frame_of(item)
        if f is None:
            continue
        qp = ctx.local_qp_of(f)
        if kind(f) == "ack":
            retired.add(qp)
        elif kind(f) == "nak" and qp not in retired and f.get("aeth", "msn"):
            f.set("aeth", "msn", 0)
            f.seal()
            put_frame(item, f)
            ctx.mutated("nak-msn-zero-before-retire")
    return outs


# ---- placement checks (input mutations) -------------------------------------------------------

def region_commands(m, fn):
    """Registers `fn(ctx, region)` over the `register_region` commands the device is
    given; it returns True when it changed the region."""

    @m.hook("inputs")
    def _(ctx, ins):
        for item in ins:
            c = (item.get("input") or {}).get("command") or {}
            if c.get("command") == "register_region":
                ctx.state.setdefault(m.name + ":regions", {})[c.get("rkey")] = dict(c)
                if fn(ctx, c):
                    ctx.state.setdefault(m.name + ":changed", set()).add(c.get("rkey"))
        return ins


def region_hit(m, pred):
    """Counts the fault exercised when a write names a changed region and
    `pred(region, va, length, dma_len)` says the change matters to it."""

    @m.hook("inputs")
    def _(ctx, ins):
        regions = ctx.state.get(m.name + ":regions", {})
        changed = ctx.state.get(m.name + ":changed", set())
        for item, f in frames(ins, ("data",), only_sound=True):
            r = regions.get(f.get("reth", "rkey"))
            if r is None or f.get("reth", "rkey") not in changed:
                continue
            if pred(r, f.get("reth", "va"), len(f.payload), f.get("reth", "dma_len")):
                ctx.mutated(m.name)
        return ins


m = fault("rx-region-end-exclusive",
          "The bounds check compares the end of the range with >= against the region's end: "
          "a write whose range ends exactly at the end of its region is NAKed.",
          ["RCV-PLACE-002", "RCV-PLACE-003"])


def _(ctx, c):
    if int(c.get("len", 0)) > 0:
        c["len"] = int(c["len"]) - 1
        return True
    return False


region_commands(m, _)
region_hit(m, lambda r, va, n, dl: n > 0 and va + n == int(r["base"]) + int(r["len"]))


m = fault("rx-region-start-unchecked",
          "The bounds check compares only the end of the range with the region's end: a "
          "write below the region's base is placed.",
          ["RCV-PLACE-002", "RCV-PLACE-003"])


def _(ctx, c):
    if int(c.get("base", 0)) > 0:
        c["len"] = int(c["len"]) + int(c["base"])
        c["base"] = 0
        return True
    return False


region_commands(m, _)
region_hit(m, lambda r, va, n, dl: va < int(r["base"]))


m = fault("rx-write-permission-ignored",
          "The region's remote-write permission bit is not checked: a write to a region "
          "registered without it is placed.",
          ["RCV-PLACE-002", "RCV-PLACE-003"])


def _(ctx, c):
    if not c.get("remote_write", True):
        c["remote_write"] = True
        return True
    return False


region_commands(m, _)
region_hit(m, lambda r, va, n, dl: True)


m = fault("rx-bounds-by-dma-len",
          "The bounds check uses RETH dma_len, the message's length, instead of the packet's "
          "payload length: a packet of a message that ends at its region's end is NAKed.",
          ["RCV-PLACE-002", "RCV-PLACE-003"])


@m.hook("inputs")
def _(ctx, ins):
    regions = ctx.state.setdefault("rx-bounds-by-dma-len", {})
    for item in ins:
        body = item.get("input") or {}
        c = body.get("command") or {}
        if body.get("kind") == "host" and c.get("command") == "register_region":
            regions[c.get("rkey")] = c
            continue
        f = frame_of(item)
        if f is None or not f.is_write() or not sound(f):
            continue
        r = regions.get(f.get("reth", "rkey"))
        if r is None or not r.get("remote_write", True):
            continue
        va, n, dl = f.get("reth", "va"), len(f.payload), f.get("reth", "dma_len")
        base, end = int(r["base"]), int(r["base"]) + int(r["len"])
        if base <= va and va + n <= end < va + dl:
            # An rkey no region has: the device NAKs the packet as this fault would.
            bad = next(k for k in range(0xFFFFFF00, 0x100000000) if k not in regions)
            f.set("reth", "rkey", bad)
            f.seal()
            put_frame(item, f)
            ctx.mutated("rx-bounds-by-dma-len")
    return ins


# ---- retirement flags and receive completions --------------------------------------------------

m = fault("recv-flag-slot-qp-count",
          "The retirement-flag slot is indexed by the QP's own count of retired messages "
          "instead of the domain MSN: in shared retirement flags land in the wrong slots.",
          ["FLAG-RECV-001", "RET-FLAG-001"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    if ev.get("side") != "responder":
        return
    q = ctx.qps.get(ev.get("qpn")) or {}
    base, slots = q.get("recv_flag_base"), q.get("recv_flag_slots")
    if base is None or not slots:
        return
    n = ctx.state.setdefault("recv-flag-slot-qp-count", {})
    k = n.get(ev.get("qpn"), 0)
    n[ev.get("qpn")] = k + 1
    ev["addr"] = int(base) + 8 * (k % int(slots))


m = fault("recv-flag-gen-rqmsn",
          "Retirement flags carry the message's METH rqmsn as generation instead of its msn: "
          "the flag writer reads the wrong half of the METH latch.",
          ["FLAG-RECV-002", "RET-FLAG-001"])
track_rx(m)


def _(ctx, ev, d):
    seen = rx_state(ctx, m_gen_rqmsn)["seen"].get((ev.get("qpn"), ev.get("msn")))
    if seen:
        d["generation"] = seen[0]["rqmsn"] & 0xFFFF


flags(m, "responder", _)
m_gen_rqmsn = m


def same_step_runs(outs, pick):
    """Groups consecutive outputs that `pick(ev)` selects and that share a time and a QP:
    the writes of messages that retired in one step."""
    runs, cur = [], []
    for item in outs:
        ev = event_of(item)
        if ev is None or not pick(ev):
            continue
        if cur and (cur[-1]["at"] != item["at"]
                    or event_of(cur[-1]).get("qpn") != ev.get("qpn")):
            runs.append(cur)
            cur = []
        cur.append(item)
    if cur:
        runs.append(cur)
    return runs


m = fault("recv-flag-len-latched",
          "When several messages retire in one step, every retirement flag carries the "
          "byte_len of the first of them: the length latch is loaded once per step.",
          ["FLAG-RECV-002", "RET-FLAG-001", "FLAG-LEN-001"])


@m.hook("outputs")
def _(ctx, outs):
    pick = lambda ev: ev.get("event") == "flag_write" and ev.get("side") == "responder"
    for run in same_step_runs(outs, pick):
        first = flag_fields(int(event_of(run[0])["value"]))["byte_len"]
        for item in run[1:]:
            ev = event_of(item)
            d = flag_fields(int(ev["value"]))
            if d["byte_len"] != first:
                d["byte_len"] = first
                ev["value"] = flag_value(d)
                ctx.mutated("recv-flag-len-latched")
    return outs


m = fault("recv-flag-before-cqe",
          "The retirement flag is posted before the message's receive completion: the flag "
          "and completion writers race, and the flag wins.",
          ["FLAG-ORDER-002", "WWI-ORDER-001", "CQE-RECV-001"])


@m.hook("outputs")
def _(ctx, outs):
    res = list(outs)
    for item in [o for o in outs if (event_of(o) or {}).get("event") == "flag_write"]:
        ev = event_of(item)
        if ev.get("side") != "responder":
            continue
        i = next(k for k, o in enumerate(res) if o is item)
        for j in range(i - 1, -1, -1):
            c = event_of(res[j])
            if (c is not None and c.get("event") == "completion" and c.get("side") == "responder"
                    and completion_entry(c).get("msn") == ev.get("msn")
                    and completion_entry(c).get("qpn") == ev.get("qpn")):
                res.pop(i)
                item["at"] = res[j]["at"]
                res.insert(j, item)
                ctx.mutated("recv-flag-before-cqe")
                break
    return res


m = fault("recv-cqe-imm-latched",
          "When several Writes with Immediate retire in one step, every receive completion "
          "carries the immediate of the first of them.",
          ["CQE-RECV-001", "WWI-ORDER-001"])


@m.hook("outputs")
def _(ctx, outs):
    pick = lambda ev: (ev.get("event") == "completion" and ev.get("side") == "responder"
                       and completion_entry(ev).get("is_receive"))
    for run in same_step_runs(outs, pick):
        first = completion_entry(event_of(run[0])).get("imm")
        for item in run[1:]:
            ev = event_of(item)
            if completion_entry(ev).get("imm") != first:
                mutate_completion(ev, lambda e: e.__setitem__("imm", first))
                ctx.mutated("recv-cqe-imm-latched")
    return outs


m = fault("recv-cqe-imm-lost-on-rtx",
          "The immediate is latched only from a first transmission: when the last packet of "
          "a Write with Immediate arrives as a retransmission, its receive completion carries "
          "imm 0.",
          ["CQE-RECV-001", "WWI-ORDER-001"])
track_rx(m)


def _(ctx, ev, e):
    seen = rx_state(ctx, m_imm_rtx)["seen"].get((e.get("qpn"), e.get("msn")), [])
    last = [w for w in seen if w["imm"] is not None]
    if e.get("is_receive") and last and last[0]["rtx"]:
        e["imm"] = 0


completions(m, "responder", _)
m_imm_rtx = m


m = fault("recv-cqe-msn-rqmsn",
          "Receive completions carry the message's METH rqmsn in msn instead of its MSN.",
          ["CQE-RECV-001"])
track_rx(m)


def _(ctx, ev, e):
    seen = rx_state(ctx, m_cqe_rqmsn)["seen"].get((e.get("qpn"), e.get("msn")))
    if e.get("is_receive") and seen:
        e["msn"] = seen[0]["rqmsn"] & 0xFFFF


completions(m, "responder", _)
m_cqe_rqmsn = m


m = fault("recv-cqe-qpn-latched",
          "The receive-completion builder latches the QPN of the first receive completion it "
          "writes: later receive completions of other QPs carry that QPN.",
          ["CQE-RECV-001", "CQE-ROUTE-001"])


def _(ctx, ev, e):
    if e.get("is_receive"):
        first = ctx.state.setdefault("recv-cqe-qpn-latched", e.get("qpn"))
        e["qpn"] = first


completions(m, "responder", _)


# ---- completion queues (the ring, re-simulated) ---------------------------------------------------

def ring_faults(m, target_of, index_of=None):
    """A completion-queue bug: the device writes each entry to the queue `target_of(ctx,
    ev, cq)` at the producer index `index_of(ctx, cq, k)` (k counting that queue's entries),
    with slot, address and phase computed again from the queue's own size."""

    @m.hook("outputs")
    def _(ctx, outs):
        counts = ctx.state.setdefault(m.name + ":k", {})
        for item in outs:
            ev = event_of(item)
            q = (ev or {}).get("queue") if ev and ev.get("event") == "completion" else None
            if not q or "bytes" not in q:
                continue
            cq = target_of(ctx, ev, q.get("cq"))
            c = ctx.cqs.get(cq)
            if c is None:
                continue
            n = int(c.get("entries", 1))
            k = counts.get(cq, 0)
            counts[cq] = k + 1
            if index_of is not None:
                k = index_of(ctx, cq, k)
            e = cqe_decode(bytes.fromhex(q["bytes"]))
            e["phase"] = (k // n) % 2 == 0
            new = {"cq": cq, "slot": k % n, "addr": int(c["base"]) + 32 * (k % n),
                   "bytes": cqe_encode(e).hex()}
            if any(q.get(x) != new[x] for x in new):
                q.update(new)
                ctx.mutated(m.name)
        return outs


m = fault("cqe-recv-to-send-cq",
          "Receive completions are written to the QP's send completion queue: the queue "
          "select bit of the completion writer is taken from the send path.",
          ["CQE-ROUTE-001", "CQE-RING-001", "CQE-RECV-001"])


def _(ctx, ev, cq):
    if ev.get("side") == "responder" and completion_entry(ev).get("is_receive"):
        q = ctx.qps.get(completion_entry(ev).get("qpn")) or {}
        if q.get("send_cq") is not None:
            return q["send_cq"]
    return cq


ring_faults(m, _)


m = fault("cqe-one-producer-index",
          "All completion queues share one producer index: each entry lands at the slot of "
          "the device-wide count of entries, not of its own queue's.",
          ["CQE-RING-001"])


def _(ctx, cq, k):
    n = ctx.state.get("cqe-one-producer-index:all", 0)
    ctx.state["cqe-one-producer-index:all"] = n + 1
    return n


ring_faults(m, lambda ctx, ev, cq: cq, _)


m = fault("cqe-ring-wrap-early",
          "The producer index wraps when it reaches N - 1, not N: the last slot of the ring "
          "is never written and the phase flips one entry early.",
          ["CQE-RING-001"])


def _(ctx, cq, k):
    n = int((ctx.cqs.get(cq) or {}).get("entries", 1))
    if n < 2:
        return k
    # Slot k mod (N - 1), with the phase of pass k div (N - 1).
    p, s = divmod(k, n - 1)
    return p * n + s


ring_faults(m, lambda ctx, ev, cq: cq, _)


m = fault("cq-full-unchecked",
          "The completion engine never compares its producer index with the consumer "
          "register: a full ring is overwritten and its QPs do not enter the error state.",
          ["CQE-RING-004", "CQE-RING-005", "RET-ERR-002", "REC-IF-009"])


@m.hook("inputs")
def _(ctx, ins):
    real = ctx.state.setdefault("cq-full-unchecked:n", {})
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") == "create_cq" and c.get("cq") not in real:
            real[c.get("cq")] = int(c.get("entries", 1))
            # The device is given a ring so large that it never finds it full.
            ctx.cqs[c.get("cq")] = dict(c)
            c["entries"] = min(max(int(c.get("entries", 1)), 1) << 16, 1 << 31)
        elif c.get("command") == "cq_consumer":
            ctx.state.setdefault("cq-full-unchecked:c", {})[c.get("cq")] = int(c["consumed"])
    return ins


@m.hook("outputs")
def _(ctx, outs):
    counts = ctx.state.setdefault("cq-full-unchecked:k", {})
    consumed = ctx.state.setdefault("cq-full-unchecked:c", {})
    for item in outs:
        ev = event_of(item)
        q = (ev or {}).get("queue") if ev and ev.get("event") == "completion" else None
        if not q or "bytes" not in q:
            continue
        cq = q.get("cq")
        c = ctx.cqs.get(cq)
        if c is None:
            continue
        n = int(c["entries"])
        k = counts.get(cq, 0)
        counts[cq] = k + 1
        if (k - consumed.get(cq, 0)) & 0xFFFFFFFF >= n:
            ctx.mutated("cq-full-unchecked")
        e = cqe_decode(bytes.fromhex(q["bytes"]))
        e["phase"] = (k // n) % 2 == 0
        q.update({"slot": k % n, "addr": int(c["base"]) + 32 * (k % n),
                  "bytes": cqe_encode(e).hex()})
    return outs


# ---- doorbells and templates (input mutations) ---------------------------------------------------

def templates_seen(ctx, m, c):
    """Keeps a copy of each template as software installed it."""
    ctx.state.setdefault(m.name + ":tpl", {})[c.get("template_id")] = dict(c)


def token_of(c):
    if c.get("command") == "doorbell":
        return int(c["token"])
    if (c.get("command") == "doorbell_write" and c.get("offset") == 0
            and len(c.get("bytes", "")) == 16):
        return int.from_bytes(bytes.fromhex(c["bytes"]), "little")
    return None


def set_token(c, t):
    if c.get("command") == "doorbell":
        c["token"] = t
    else:
        c["bytes"] = t.to_bytes(8, "little").hex()


def token_length(t, tpl):
    units = t & 0xFFFF
    return int(tpl.get("default_length", 0)) if units == 0 else units * int(tpl.get("length_unit", 1))


m = fault("db-length-product-32bit",
          "The token's length is computed as length_units x length_unit in a 32-bit "
          "multiplier: a product of 2^32 or more wraps, and the wrapped length is checked "
          "and sent.",
          ["DB-LENGTH-001", "DB-LENGTH-002", "CQE-REJECT-001", "DB-REJECT-001"])


@m.hook("inputs")
def _(ctx, ins):
    swaps = ctx.state.setdefault("db-length-product-32bit:swaps", {})
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") == "set_template":
            templates_seen(ctx, m_len32, c)
            continue
        t = token_of(c)
        tpl = ctx.state.get("db-length-product-32bit:tpl", {}).get((t or 0) >> 48 & 0xFFF)
        if t is None or tpl is None or not t & 0xFFFF:
            continue
        unit = int(tpl.get("length_unit", 1))
        if (t & 0xFFFF) * unit < 1 << 32 or unit > 1 << 31:
            continue
        units = (t & 0xFFFF) % ((1 << 32) // unit)
        if units == 0:
            continue
        nt = (t & ~0xFFFF) | units
        set_token(c, nt)
        swaps[nt] = t
        ctx.mutated("db-length-product-32bit")
    return ins


m_len32 = m


@out_events(m, ("completion",))
def _(ctx, ev, item):
    swaps = ctx.state.get("db-length-product-32bit:swaps", {})
    e = completion_entry(ev)
    if int(e.get("wr_id", 0)) in swaps:
        mutate_completion(ev, lambda e: e.__setitem__("wr_id", swaps[int(e["wr_id"])]))


m = fault("db-length-before-index",
          "The length checks run before the index check: a token whose index is out of range "
          "and whose range passes its region's end is rejected LENGTH_OUT_OF_RANGE.",
          ["DB-ORDER-001", "CQE-REJECT-001", "DB-INDEX-001"])


@m.hook("inputs")
def _(ctx, ins):
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") == "set_template":
            templates_seen(ctx, m_len_first, c)
    return ins


m_len_first = m


def _(ctx, ev, e):
    if int(e.get("status", 0)) != 0x05:
        return
    t = int(e.get("wr_id", 0))
    tpl = ctx.state.get("db-length-before-index:tpl", {}).get(t >> 48 & 0xFFF)
    if tpl is None:
        return
    n, i = token_length(t, tpl), (t >> 16) & 0xFFFF
    if (n > int(tpl.get("max_length", 0))
            or i * int(tpl.get("local_stride", 0)) + n > int(tpl.get("local_region_len", 0))
            or i * int(tpl.get("remote_stride", 0)) + n > int(tpl.get("remote_region_len", 0))):
        e["status"] = 0x06


completions(m, None, _)


m = fault("tpl-flag-slot-no-base",
          "The flag-slot adder is not wired: a token's sender flag goes to slot index "
          "instead of flag_base_slot + index.",
          ["TPL-EXPAND-006", "FLAG-SEND-001", "FLAG-TABLE-001"])


@m.hook("inputs")
def _(ctx, ins):
    tpls = ctx.state.setdefault("tpl-flag-slot-no-base", {})
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") == "set_template":
            tpls[c.get("template_id")] = dict(c)
        elif c.get("command") == "post_write":
            ctx.state["tpl-flag-slot-no-base:post"] = True
    return ins


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    # The flag a token's work request writes, one slot per index from the table's base:
    # without the adder it lands flag_base_slot slots lower.
    if ev.get("side") != "requester" or ctx.state.get("tpl-flag-slot-no-base:post"):
        return
    tpls = ctx.state.get("tpl-flag-slot-no-base", {}).values()
    bases = {int(t.get("flag_base_slot", 0)) for t in tpls if t.get("qpn") == ev.get("qpn")}
    if len(bases) == 1 and next(iter(bases)):
        ev["addr"] = int(ev["addr"]) - 8 * next(iter(bases))


def region_fits(c, side, stride):
    """Whether a template's slots of the default length fit its `side` region with
    `stride` (TPL-REGION-002), so that the NIC installs it."""
    n = int(c.get("slots", 1))
    need = (n - 1) * int(stride) + int(c.get("default_length", 0))
    return need <= int(c.get(side + "_region_len", 0))


m = fault("tpl-local-stride-ignored",
          "The local address is local_base for every slot: the local stride register is not "
          "applied, so slot i sends the payload of slot 0.",
          ["TPL-EXPAND-002", "WR-EXEC-001", "DB-LENGTH-003"])


@m.hook("inputs")
def _(ctx, ins):
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if (c.get("command") == "set_template" and c.get("local_stride")
                and region_fits(c, "local", c["local_stride"])):
            c["local_stride"] = 0
            ctx.state["tpl-local-stride-ignored"] = True
        elif ctx.state.get("tpl-local-stride-ignored"):
            t = token_of(c)
            if t is not None and (t >> 16) & 0xFFFF:
                ctx.mutated("tpl-local-stride-ignored")
    return ins


m = fault("tpl-remote-stride-local",
          "The remote address of slot i is computed with the local stride: remote_va = "
          "remote_base + index x local_stride.",
          ["TPL-EXPAND-003", "WR-EXEC-001", "DB-LENGTH-004"])


@m.hook("inputs")
def _(ctx, ins):
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if (c.get("command") == "set_template"
                and c.get("remote_stride") != c.get("local_stride")
                and region_fits(c, "remote", c.get("remote_stride", 0))
                and region_fits(c, "remote", c.get("local_stride", 0))):
            c["remote_stride"] = c.get("local_stride", 0)
            ctx.state["tpl-remote-stride-local"] = True
        elif ctx.state.get("tpl-remote-stride-local"):
            t = token_of(c)
            if t is not None and (t >> 16) & 0xFFFF:
                ctx.mutated("tpl-remote-stride-local")
    return ins


# ---- the error state -------------------------------------------------------------------------

m = fault("rcv-error-keeps-placing",
          "The error state stops the QP's send engine and acknowledgements but not its "
          "placement engine: writes that arrive after the QP failed are still placed.",
          ["RCV-QP-002"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = rx_state(ctx, m)
    failed = st.setdefault("failed", {})
    learn_placed(st, outs)
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "report" and ev.get("report") == "qp_error":
            failed.setdefault(ev.get("qpn"), int(item["at"]))
    res = list(outs)
    for w in st["batch"]:
        t = failed.get(w["qp"])
        if t is None or w["at"] <= t or not w["payload"] or is_dup(st, w):
            continue
        if (w["qp"], w["psn"]) in st["placed"]:
            continue
        st["placed"][(w["qp"], w["psn"])] = w["at"]
        res.append({"at": w["at"], "output": {"kind": "event", "event": {
            "event": "dma_write", "qpn": w["qp"], "psn": w["psn"], "msn": w["msn"],
            "va": w["va"], "payload": {"bytes": w["payload"].hex()}}}})
        ctx.mutated("rcv-error-keeps-placing")
    res.sort(key=lambda o: int(o["at"]))
    return res


# ==========================================================================================
# Legal variants written from a fifth reading, as other hardware teams would build the NIC:
# host writes of independent QPs in other orders, fewer capabilities claimed, other
# traffic classes for control frames, other bus pieces, a coarser clock
# ==========================================================================================

def host_groups(ctx):
    """The QPs whose host writes the specification orders among themselves, as groups: QPs
    of one retirement domain (RET-ORDER-001, FLAG-ORDER-001), QPs that share a completion
    queue (CQE-RING-001), and, with a device error queue, every QP (its rejections may land
    there). Returns qpn -> group key, the least QPN of the group, and cq -> group key."""
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb, key=str)] = min(ra, rb, key=str)

    shared = shared_mode(ctx)
    for qpn, c in ctx.qps.items():
        q = ("q", qpn)
        find(q)
        if shared:
            union(q, ("d", c.get("domain", 0)))
        for k in ("send_cq", "recv_cq"):
            if c.get(k) is not None:
                union(q, ("c", c.get(k)))
    if ctx.state.get("error_cq_set"):
        qs = [("q", q) for q in ctx.qps]
        for a in qs[1:]:
            union(qs[0], a)
    members = {}
    for qpn in ctx.qps:
        members.setdefault(find(("q", qpn)), []).append(qpn)
    least = {r: min(qs) for r, qs in members.items()}
    of_qp = {qpn: least[find(("q", qpn))] for qpn in ctx.qps}
    of_cq = {k[1]: least[find(k)] for k in list(parent) if k[0] == "c" and find(k) in least}
    return of_qp, of_cq


def note_error_cq(v):
    @v.hook("inputs")
    def _(ctx, ins):
        for item in ins:
            c = (item.get("input") or {}).get("command") or {}
            if c.get("command") == "set_error_cq":
                ctx.state["error_cq_set"] = True
        return ins


def host_group_of(ctx, ev):
    """The group key of a host write (a DMA write, a flag, a completion entry), or None."""
    of_qp, of_cq = host_groups(ctx)
    q = ev.get("queue")
    if ev.get("event") == "completion" and q and q.get("cq") is not None:
        return of_cq.get(q.get("cq"))
    if ev.get("event") == "completion":
        return of_qp.get(completion_entry(ev).get("qpn"))
    return of_qp.get(ev.get("qpn"))


def odd_groups_late(why, sides):
    """Host writes of the sides `sides` whose group has an odd least QPN become visible half
    of late_ns later, when the scenario has groups of both parities."""

    def hook(ctx, outs):
        of_qp, _ = host_groups(ctx)
        if len({g & 1 for g in of_qp.values()}) < 2:
            return outs
        for item in outs:
            ev = event_of(item)
            if ev is None or ev.get("event") not in ("dma_write", "flag_write", "completion"):
                continue
            side = "responder" if ev.get("event") == "dma_write" else ev.get("side")
            g = host_group_of(ctx, ev)
            if side in sides and g is not None and g & 1:
                delay(ctx, item, ctx.late_ns // 2, why)
        return outs

    return hook


v = variant("recv-writes-odd-domains-late",
            "Its host bus has a second, slower write queue for the QPs of odd retirement "
            "domains: their payload writes, receive completions and retirement flags become "
            "visible half of late_ns later, each domain's writes in order, so that two "
            "domains retire in another order (RET-ORDER-001 orders one domain).")
note_error_cq(v)
v.hook("outputs")(odd_groups_late("recv-writes-odd-domains-late", ("responder",)))

v = variant("send-notes-odd-cqs-late",
            "Its completion engine writes through two queues, one slower: the sender "
            "completions and flags of QPs whose completion queue (or QPN, without one) is "
            "odd become visible half of late_ns later, so that entries of two queues come in "
            "another interleaving (CQE-RING-001 orders one queue).")
note_error_cq(v)
v.hook("outputs")(odd_groups_late("send-notes-odd-cqs-late", ("requester",)))


v = variant("host-writes-qp-reversed",
            "Its host-bus arbiter serves QPs from the highest number down: of the writes "
            "made at one instant, those of independent QPs (no shared retirement domain or "
            "completion queue) are issued highest QP first, each QP's in their order.")
note_error_cq(v)


@v.hook("outputs")
def _(ctx, outs):
    res = []
    for group in instants(outs):
        slots, keys = [], []
        for i, o in enumerate(group):
            ev = event_of(o)
            if ev is None or ev.get("event") not in ("dma_write", "flag_write", "completion"):
                continue
            g = host_group_of(ctx, ev)
            if g is None:
                slots, keys = [], []
                break
            slots.append(i)
            keys.append(g)
        order = sorted(range(len(slots)), key=lambda k: -keys[k])
        new = list(group)
        for i, k in zip(slots, order):
            new[i] = group[slots[k]]
        if new != group:
            ctx.mutated("host-writes-qp-reversed")
        res.extend(new)
    return res


RETIREMENT_OUTPUTS = ("flag_write", "completion")

v = variant("retirement-unclaimed",
            "A receiver and sender block without a completion engine: it does not claim "
            "retirement, writes no flag and no completion entry, and sends no transport ACK "
            "or NAK (CONF-CMP-012.b).")
v.caps_removed = ("retirement", "shared-retirement", "per-qp-retirement", "completion-queues")


@v.hook("outputs")
def _(ctx, outs):
    res = []
    for item in outs:
        ev, f = event_of(item), frame_of(item)
        if ((ev is not None and ev.get("event") in RETIREMENT_OUTPUTS)
                or (f is not None and kind(f) in ("ack", "nak"))):
            ctx.mutated("retirement-unclaimed")
            continue
        res.append(item)
    return res


v = variant("ipv4-only",
            "A device that does not claim ipv6: the scenarios over IPv6 are unsupported for "
            "it, never failed (CONF-GEN-008).")
v.caps_removed = ("ipv6",)


@v.hook("start")
def _(ctx, manifest):
    if "ipv6" in ctx.requires:
        ctx.mutated("ipv4-only")
    return manifest


v = variant("receiver-block",
            "A receiver block alone: it claims responder, retirement, both retirement modes, "
            "write-immediate, paths, ipv4 and ipv6, and nothing of a sender.")
v.caps_removed = ("requester", "doorbell", "doorbell-bus", "cpu-split", "recovery",
                  "completion-queues", "endpoint", "spray-policies", "tail-probe")


@v.hook("start")
def _(ctx, manifest, v=v):
    if ctx.requires & set(v.caps_removed):
        ctx.mutated("receiver-block")
    return manifest


def is_control(f):
    return kind(f) in ("sack", "probe-answer", "ack", "nak", "nack", "ersp", "ereq")


v = variant("dscp-control-cs6",
            "Its control frames (SACKs, NACKs, ACKs, probe answers, endpoint messages) carry "
            "DSCP 48 (CS6), its data and probes DSCP 26: no rule fixes a DSCP (CONF-CMP-026).")


def _(ctx, f, item):
    dscp = 48 if is_control(f) else 26
    if f.has("ipv4"):
        f.set("ipv4", "dscp", dscp)
    else:
        tc = f.get("ipv6", "traffic_class")
        f.set("ipv6", "traffic_class", (dscp << 2) | (tc & 3))


all_frames(v, "dscp-control-cs6", _)


v = variant("vlan-pcp-control-6",
            "Tagged control frames carry priority code point 6, tagged data and probes 3: a "
            "higher class for acknowledgements, which no rule forbids.")


def _(ctx, f, item):
    if f.has("vlan"):
        f.set("vlan", "pcp", 6 if is_control(f) else 3)


all_frames(v, "vlan-pcp-control-6", _)


v = variant("ecn-control-ect0",
            "Its control frames and probes are marked ECT(0), as its writes are: ENC-ECN-001 "
            "asks ECN-capable marks of MRC writes and forbids them of no other frame.")


def _(ctx, f, item):
    if kind(f) == "data":
        return False
    if f.has("ipv4"):
        if f.get("ipv4", "ecn") == 0:
            f.set("ipv4", "ecn", 2)
    elif f.get("ipv6", "traffic_class") & 3 == 0:
        f.set("ipv6", "traffic_class", f.get("ipv6", "traffic_class") | 2)


all_frames(v, "ecn-control-ect0", _)


def split_from_start(size, reverse=False):
    """DMA writes cut into pieces of `size` bytes counted from each write's start, not at
    address boundaries; with `reverse`, a write's pieces are issued last piece first."""

    def hook(ctx, outs):
        import copy
        res = []
        for item in outs:
            ev = event_of(item)
            data = (bytes.fromhex(ev["payload"]["bytes"])
                    if ev is not None and ev.get("event") == "dma_write" else b"")
            if len(data) <= size:
                res.append(item)
                continue
            pieces = []
            for pos in range(0, len(data), size):
                c = copy.deepcopy(item)
                c["output"]["event"]["va"] = int(ev["va"]) + pos
                c["output"]["event"]["payload"]["bytes"] = data[pos:pos + size].hex()
                pieces.append(c)
            res.extend(pieces[::-1] if reverse else pieces)
            ctx.mutated("dma-split")
        return res

    return hook


v = variant("dma-split-unaligned-96",
            "Its DMA engine cuts every payload write into 96-byte pieces counted from the "
            "write's start, whatever their address alignment (RCV-PLACE-003.b).")
v.hooks["outputs"] = split_from_start(96)

v = variant("dma-split-descending",
            "Its DMA engine cuts every payload write into 64-byte pieces and issues them from "
            "the highest address down, all before the message's flag (RCV-PLACE-003.b).")
v.hooks["outputs"] = split_from_start(64, reverse=True)


v = variant("sack-repeat-later",
            "Its SACK engine sends every SACK a second time half of late_ns after the first, "
            "unchanged: the number of SACKs is the device's choice (CONF-CMP-007.b).")


@v.hook("outputs")
def _(ctx, outs):
    import copy
    res = list(outs)
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "sack":
            c = copy.deepcopy(item)
            delay(ctx, c, ctx.late_ns // 2, "sack-repeat-later")
            res.append(c)
    res.sort(key=lambda o: int(o["at"]))
    return res


v = variant("timestamp-64ns",
            "Its timestamp clock counts 64 ns units from its own epoch (SND-TS-002 leaves "
            "the unit, of at least 1 ns, to the sender).")
TS_64NS = v


@v.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("ts", {"data": {}, "probe": {}})

    def fn(ctx, f, item):
        qp = ctx.local_qp_of(f)
        outer = ((int(item["at"]) + 0x3C3C0) // 64) & 0xFFFF
        if kind(f) == "data" and f.has("tseth"):
            st["data"][(qp, f.get("bth", "psn"))] = (f.get("tseth", "tx_timestamp"), outer)
            f.set("tseth", "tx_timestamp", outer)
        elif kind(f) == "probe":
            st["probe"][(qp, f.get("peth", "probe_id"))] = (f.get("peth", "tx_timestamp"), outer)
            f.set("peth", "tx_timestamp", outer)
        else:
            return False

    from mods import each_frame
    return each_frame(ctx, outs, ("data", "probe"), fn, "timestamp-64ns")


# The reflected timestamps go back to the inner device's own clock, as for timestamp-1ns.
TS_64NS.hooks["inputs"] = __import__("mods").VARIANTS["timestamp-1ns"].hooks["inputs"]


v = variant("cqe-no-clock",
            "A completion engine without a clock: every entry has has_timestamp 0 and "
            "timestamp 0 (CQE-TS-001.b; the clock is a SHOULD).",
            allows=("CQE-TS-001",))


@out_events(v, ("completion",))
def _(ctx, ev, item):
    def fn(e):
        e["has_timestamp"] = False
        e["timestamp"] = 0

    mutate_completion(ev, fn)


def _is_probe(item):
    f = frame_of(item)
    return f is not None and kind(f) == "probe"


v = variant("latency-probes-only",
            "Its probe engine adds half of late_ns to every probe, commanded or its own, and "
            "reads its 64 ns timestamp clock as the probe leaves; data, answers, memory "
            "writes and reports are on time, so that data may go before a probe "
            "(CONF-CMP-049).")


def _late_probes(ctx, outs):
    outs = latency_of("latency-probes-only", _is_probe)(ctx, outs)
    return TS_64NS.hooks["outputs"](ctx, outs)


v.hooks["outputs"] = _late_probes
v.hooks["inputs"] = TS_64NS.hooks["inputs"]


# ---- the fifth reading: the host interface and completions ---------------------------------------

def host_templates(ctx, m):
    """The templates software installed, by ID, as the mod `m` saw them."""
    return ctx.state.setdefault(m.name + ":tpl", {})


def track_templates(m):
    @m.hook("inputs")
    def _(ctx, ins):
        tpls = host_templates(ctx, m)
        for item in ins:
            c = (item.get("input") or {}).get("command") or {}
            if c.get("command") == "set_template":
                tpls[c.get("template_id")] = dict(c)
        return ins


def misread_tokens(m, fn):
    """A bug of the token decoder: the device acts on `fn(ctx, t, tpl)` instead of the token t
    the producer stored (None: t), while its completions still carry the stored value as
    wr_id, which is latched from the register, not from the decoder."""
    track_templates(m)

    @m.hook("inputs")
    def _(ctx, ins):
        tpls = host_templates(ctx, m)
        swaps = ctx.state.setdefault(m.name + ":swaps", {})
        for item in ins:
            c = (item.get("input") or {}).get("command") or {}
            t = token_of(c)
            if t is None:
                continue
            n = fn(ctx, t, tpls.get(t >> 48 & 0xFFF))
            if n is None or n == t:
                continue
            set_token(c, n)
            swaps[n] = t
            ctx.mutated(m.name)
        return ins

    @out_events(m, ("completion",))
    def _(ctx, ev, item):
        swaps = ctx.state.get(m.name + ":swaps", {})
        e = completion_entry(ev)
        if not e.get("is_receive") and int(e.get("wr_id", 0)) in swaps:
            mutate_completion(ev, lambda e: e.__setitem__("wr_id", swaps[int(e["wr_id"])]))


def with_units(t, units):
    return (t & ~0xFFFF) | (units & 0xFFFF)


def too_long(t, tpl):
    """The token with 65535 length units, which its template rejects for its length when
    that passes max_length: how a bug that rejects a good token is shown to the device."""
    if 0xFFFF * int(tpl.get("length_unit", 1)) <= int(tpl.get("max_length", 0)):
        return None
    return with_units(t, 0xFFFF)


m = fault("db-index-bit15-dropped",
          "The index field of a token is decoded as 15 bits: a token for slot 32768 or above "
          "acts on slot index - 32768.",
          ["DB-FORMAT-001", "DB-INDEX-001", "TPL-EXPAND-002", "TPL-EXPAND-003",
           "TPL-EXPAND-005", "TPL-EXPAND-006", "DB-ACCEPT-001", "CQE-REJECT-001",
           "WR-EXEC-001", "SND-SEG-003", "FLAG-SEND-001", "DB-LENGTH-003", "DB-LENGTH-004"])
misread_tokens(m, lambda ctx, t, tpl: t & ~(1 << 31) if t >> 31 & 1 else None)


m = fault("db-units-bit15-dropped",
          "The length_units field of a token is decoded as 15 bits: a token of 32768 units or "
          "more asks for 32768 units less.",
          ["DB-FORMAT-001", "DB-LENGTH-001", "DB-LENGTH-002", "DB-LENGTH-003",
           "DB-LENGTH-004", "TPL-EXPAND-004", "WR-EXEC-001", "SND-SEG-001", "SND-SEG-003",
           "CQE-REJECT-001", "DB-ACCEPT-001", "CQE-SEND-001", "FLAG-SEND-001", "FLAG-LEN-001"])
misread_tokens(m, lambda ctx, t, tpl: t & ~0x8000 if t & 0x8000 else None)


def _(ctx, t, tpl):
    if tpl is None or t & 0xFFFF:
        return None
    unit, ml = int(tpl.get("length_unit", 1)), int(tpl.get("max_length", 0))
    if ml == int(tpl.get("default_length", 0)) or ml % unit or not 0 < ml // unit <= 0xFFFF:
        return None
    return with_units(t, ml // unit)


m = fault("db-zero-units-max-length",
          "A token with length_units 0 asks for the template's max_length instead of its "
          "default_length: the length multiplexer selects the wrong register.",
          ["DB-LENGTH-001", "TPL-EXPAND-004", "WR-EXEC-001", "SND-SEG-001", "SND-SEG-003",
           "DB-LENGTH-003", "DB-LENGTH-004", "CQE-REJECT-001", "DB-ACCEPT-001",
           "CQE-SEND-001", "FLAG-SEND-001", "FLAG-LEN-001", "RCV-PLACE-002"])
misread_tokens(m, _)


def _(ctx, t, tpl):
    if tpl is None or token_length(t, tpl) != int(tpl.get("max_length", 0)):
        return None
    return too_long(t, tpl)


m = fault("db-max-length-exclusive",
          "The max_length check compares with >= : a token that asks for exactly the "
          "template's max_length is rejected LENGTH_OUT_OF_RANGE.",
          ["DB-LENGTH-002", "DB-ACCEPT-001", "CQE-REJECT-001"])
misread_tokens(m, _)


def _(ctx, t, tpl):
    if tpl is None:
        return None
    i = (t >> 16) & 0xFFFF
    end = i * int(tpl.get("local_stride", 0)) + token_length(t, tpl)
    if end != int(tpl.get("local_region_len", 0)) or i >= int(tpl.get("slots", 1)):
        return None
    return too_long(t, tpl)


m = fault("db-local-end-exclusive",
          "The local-range check compares the range's end with >= against the region length: "
          "a token whose local range ends exactly at the end of the local region is rejected "
          "LENGTH_OUT_OF_RANGE.",
          ["DB-LENGTH-003", "DB-ACCEPT-001", "CQE-REJECT-001"])
misread_tokens(m, _)


def tpl_of_qp(ctx, m, qpn):
    """The one template of a QP, or None when it has none or several."""
    ts = [t for t in host_templates(ctx, m).values() if t.get("qpn") == qpn]
    return ts[0] if len(ts) == 1 else None


def imm_faults(m, fn):
    """A bug of the immediate adder: `fn(base, index)` is the immediate slot `index` of a
    template with `imm_base` base carries."""
    track_templates(m)

    @out_frames(m, ("data",))
    def _(ctx, f, item):
        if not f.has("immdt"):
            return
        tpl = tpl_of_qp(ctx, m, ctx.local_qp_of(f))
        if tpl is None:
            return
        base, v = int(tpl.get("imm_base", 0)), f.get("immdt", "imm")
        i = (v - base) & 0xFFFFFFFF
        if i < int(tpl.get("slots", 1)):
            f.set("immdt", "imm", fn(base, i) & 0xFFFFFFFF)


m = fault("tpl-imm-no-index",
          "The immediate adder is not wired: every Write with Immediate of a template carries "
          "imm_base, whatever its slot.",
          ["TPL-EXPAND-005", "WR-EXEC-001", "SND-SEG-004", "CQE-RECV-001"])
imm_faults(m, lambda base, i: base)


m = fault("tpl-imm-carry-16",
          "The immediate adder is 16 bits wide: imm_base + index loses the carry out of bit "
          "15, so the immediate's high half is always imm_base's.",
          ["TPL-EXPAND-005", "WR-EXEC-001", "SND-SEG-004", "CQE-RECV-001"])
imm_faults(m, lambda base, i: (base & 0xFFFF0000) | ((base + i) & 0xFFFF))


def template_register(m, key, fn):
    """A template register the device misreads: `fn(value)` is what it holds."""

    @m.hook("inputs")
    def _(ctx, ins):
        for item in ins:
            c = (item.get("input") or {}).get("command") or {}
            if c.get("command") == "set_template" and key in c:
                n = fn(c[key])
                if n != c[key]:
                    c[key] = n
                    ctx.mutated(m.name)
        return ins


m = fault("tpl-every-template-signaled",
          "The template's signaled bit is not latched and reads 1: unsignaled work requests "
          "write a completion entry on success too.",
          ["WR-SIGNALED-001", "TPL-EXPAND-001", "CQE-SEND-001", "CQE-RING-001"])
template_register(m, "signaled", lambda v: True)


m = fault("tpl-no-template-signaled",
          "The template's signaled bit is not latched and reads 0: signaled work requests "
          "from tokens write no completion entry on success.",
          ["WR-SIGNALED-001", "TPL-EXPAND-001", "CQE-SEND-001", "CQE-SEND-003",
           "RET-SEND-001", "ORD-SEND-001"])
template_register(m, "signaled", lambda v: False)


m = fault("tpl-disable-ignored",
          "The enabled bit of a template is not checked: tokens for a disabled template are "
          "accepted and executed.",
          ["DB-TEMPLATE-001", "CQE-REJECT-001", "CQE-OPCODE-001", "DB-REJECT-001",
           "CQE-REJECT-002", "TPL-KEY-002", "FLAG-SEND-003", "TPL-INSTALL-002"])
template_register(m, "enabled", lambda v: True)


m = fault("tpl-deregister-keeps-templates",
          "Ending a local registration does not disable the templates under its key: their "
          "tokens are still accepted and read memory no longer registered.",
          ["TPL-KEY-002", "TPL-INSTALL-004", "DB-TEMPLATE-001", "CQE-REJECT-001",
           "CQE-OPCODE-001", "CQE-REJECT-002", "DB-REJECT-001", "FLAG-SEND-003"])


@m.hook("inputs")
def _(ctx, ins):
    keep = []
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") == "deregister_local":
            ctx.mutated("tpl-deregister-keeps-templates")
            continue
        keep.append(item)
    return keep


# Completion entries and flags.

def last_packet_len(ctx, n):
    p = ctx.pmtu()
    return (n - 1) % p + 1 if n > p else n


m = fault("send-cqe-len-last-packet",
          "Sender completions carry the byte count of the message's last packet instead of "
          "the message's length.",
          ["CQE-SEND-001"])
completions(m, "requester",
            lambda ctx, ev, e: e.__setitem__("byte_len", last_packet_len(ctx, int(e["byte_len"])))
            if not e.get("is_receive") else None)


m = fault("recv-flag-len-last-packet",
          "Retirement flags carry the byte count of the message's last packet instead of the "
          "bytes the message placed.",
          ["FLAG-RECV-002", "RET-FLAG-001", "FLAG-LEN-001"])
flags(m, "responder",
      lambda ctx, ev, d: d.__setitem__("byte_len", last_packet_len(ctx, d["byte_len"])))


m = fault("send-flag-len-last-packet",
          "Sender flags carry the byte count of the message's last packet instead of the "
          "message's length.",
          ["FLAG-SEND-001", "FLAG-LEN-001"])
flags(m, "requester",
      lambda ctx, ev, d: d.__setitem__("byte_len", last_packet_len(ctx, d["byte_len"])))


def status_faults(m, table):
    """A bug of the status encoder shared by entries and flags: status s is written as
    table[s]."""

    def _(ctx, ev, e):
        s = int(e.get("status", 0))
        if s in table and not e.get("is_receive"):
            e["status"] = table[s]

    completions(m, None, _)

    def _(ctx, ev, d):
        if d["status"] in table:
            d["status"] = table[d["status"]]

    flags(m, "requester", _)


m = fault("status-nak-codes-swapped",
          "The status encoder swaps the codes of the two AETH NAKs: an invalid request "
          "completes REMOTE_ACCESS_ERROR and an access error REMOTE_INVALID_REQUEST.",
          ["CQE-STATUS-004", "CQE-STATUS-001", "CQE-SEND-002", "FLAG-STATUS-001",
           "FLAG-SEND-001", "RET-FLUSH-001", "SND-ACK-003"])
status_faults(m, {0x11: 0x12, 0x12: 0x11})


m = fault("status-fatal-nack-as-op-error",
          "A message ended by a fatal MRC NACK completes REMOTE_OP_ERROR, the code of the "
          "AETH NAK path, instead of FATAL_NACK.",
          ["CQE-STATUS-001", "CQE-SEND-002", "FLAG-STATUS-001", "FLAG-SEND-001",
           "RET-FLUSH-001"])
status_faults(m, {0x14: 0x13})


m = fault("status-retry-as-flushed",
          "The message whose retries ran out completes FLUSHED, like the messages behind it, "
          "instead of RETRY_EXCEEDED.",
          ["CQE-STATUS-001", "CQE-SEND-002", "FLAG-STATUS-001", "FLAG-SEND-001",
           "RET-FLUSH-001"])
status_faults(m, {0x10: 0x15})


m = fault("cqe-error-len-kept",
          "Completions of failed work requests carry the request's length in byte_len: the "
          "error path does not clear the length latch.",
          ["CQE-SEND-002"])


track_templates(m)


@m.hook("inputs")
def _(ctx, ins, m=m):
    lens = ctx.state.setdefault("cqe-error-len-kept", {})
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        t = token_of(c)
        tpl = host_templates(ctx, m).get(t >> 48 & 0xFFF) if t is not None else None
        if c.get("command") == "post_write":
            lens[int(c.get("wr_id", 0))] = int(c.get("length", 0))
        elif tpl is not None:
            lens[t] = token_length(t, tpl)
    return ins


def _(ctx, ev, e):
    n = ctx.state.get("cqe-error-len-kept", {}).get(int(e.get("wr_id", 0)))
    if int(e.get("status", 0)) >= 0x10 and not e.get("is_receive") and n:
        e["byte_len"] = n


completions(m, "requester", _)


def reject_completions(m, fn):
    """A bug of the completions of rejected tokens (status 0x01 to 0x0F)."""
    completions(m, None, lambda ctx, ev, e: fn(ctx, ev, e)
                if 0x01 <= int(e.get("status", 0)) <= 0x0F else None)


m = fault("reject-index-as-length",
          "A token whose index is out of range is reported LENGTH_OUT_OF_RANGE: the range "
          "check of the slot shares the length check's status.",
          ["DB-INDEX-001", "CQE-REJECT-001", "DB-ORDER-001"])
reject_completions(m, lambda ctx, ev, e: e.__setitem__("status", 0x06)
                   if e["status"] == 0x05 else None)


m = fault("reject-unknown-as-bad-version",
          "A token naming no usable template is reported BAD_VERSION: both checks of the "
          "token's header share one status.",
          ["DB-TEMPLATE-001", "CQE-REJECT-001", "TPL-INSTALL-001", "TPL-KEY-002"])
reject_completions(m, lambda ctx, ev, e: e.__setitem__("status", 0x01)
                   if e["status"] == 0x02 else None)


def _(ctx, ev, e):
    if 0x03 <= e["status"] <= 0x06:
        e["qpn"], e["opcode"] = 0, 0xFF


m = fault("reject-named-no-template",
          "Completions of tokens rejected after the template check (a stale or early seq, an "
          "index or length out of range) carry qpn 0 and opcode NONE, as if the token named "
          "no template.",
          ["CQE-REJECT-001", "CQE-OPCODE-001"])
reject_completions(m, _)


m = fault("reject-to-error-cq",
          "Every rejected token completes in the device error queue, even when it names a "
          "template whose QP has a send queue.",
          ["CQE-REJECT-002", "CQE-RING-001", "CQE-ROUTE-001"])


@m.hook("inputs")
def _(ctx, ins):
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") == "set_error_cq":
            ctx.state["reject-to-error-cq"] = c.get("cq")
    return ins


def _(ctx, ev, cq):
    e = completion_entry(ev)
    if 0x03 <= int(e.get("status", 0)) <= 0x06 and ctx.state.get("reject-to-error-cq") is not None:
        return ctx.state["reject-to-error-cq"]
    return cq


ring_faults(m, _)


def cq_consumer(m, fn):
    """A bug of the consumer register: the device holds `fn(count, entries)`. The bug shows
    when a QP fails while its queue, by the count software wrote, had a free slot."""

    @m.hook("inputs")
    def _(ctx, ins):
        regs = ctx.state.setdefault(m.name + ":c", {})
        for item in ins:
            c = (item.get("input") or {}).get("command") or {}
            if c.get("command") == "cq_consumer":
                q = ctx.cqs.get(c.get("cq")) or {}
                n = fn(int(c["consumed"]), int(q.get("entries", 1)))
                regs[c.get("cq")] = (int(c["consumed"]), n)
                c["consumed"] = n
        return ins

    @m.hook("outputs")
    def _(ctx, outs):
        regs = ctx.state.setdefault(m.name + ":c", {})
        counts = ctx.state.setdefault(m.name + ":k", {})
        stopped = ctx.state.setdefault(m.name + ":stopped", set())
        for item in outs:
            ev = event_of(item) or {}
            q = ev.get("queue") if ev.get("event") == "completion" else None
            if q:
                counts[q.get("cq")] = counts.get(q.get("cq"), 0) + 1
            if ev.get("event") != "report" or ev.get("report") != "qp_error":
                continue
            for cq, c in ctx.cqs.items():
                real, held = regs.get(cq, (0, 0))
                n, k = int(c.get("entries", 1)), counts.get(cq, 0)
                if (k - real) % (1 << 32) >= n:
                    # Full by the count software wrote: stopped whatever the register.
                    stopped.add(cq)
                elif cq not in stopped and (k - held) % (1 << 32) >= n:
                    ctx.mutated(m.name)
        return outs


m = fault("cq-consumer-as-slot",
          "The consumer register is taken as a slot index, not as a total: once the "
          "consumer has gone round the ring, the queue looks full and its QPs fail.",
          ["CQE-RING-004", "CQE-RING-005", "RET-ERR-002", "REC-IF-009", "RET-FLUSH-001"])
cq_consumer(m, lambda c, n: c % n)


m = fault("cq-consumer-minus-one",
          "The free-slot test reads the consumer register one entry short, so a queue is "
          "found full with one slot still free.",
          ["CQE-RING-004", "CQE-RING-005", "RET-ERR-002", "REC-IF-009", "RET-FLUSH-001"])
cq_consumer(m, lambda c, n: c - 1 if c > 0 else c)


m = fault("cqe-qpn-sign-extended",
          "The QPN of a completion entry is sign-extended from 24 bits: with bit 23 set, the "
          "reserved byte 15 is 0xFF.",
          ["CQE-RESV-001", "CQE-LAYOUT-001"])
completions(m, None, lambda ctx, ev, e: e.__setitem__("qpn_resv", 0xFF)
            if int(e.get("qpn", 0)) >> 23 & 1 else None)


m = fault("recv-cqe-imm-bit31-lost",
          "Receive completions lose bit 31 of the immediate: the ImmDt latch is 31 bits "
          "wide.",
          ["CQE-RECV-001"])
completions(m, "responder", lambda ctx, ev, e: e.__setitem__("imm", int(e["imm"]) & 0x7FFFFFFF)
            if e.get("is_receive") else None)


m = fault("recv-cqe-len-16bit",
          "The byte count of receive completions is 16 bits wide: a message of 64 KiB or more "
          "is reported without bits 31:16.",
          ["CQE-RECV-001"])
completions(m, "responder", lambda ctx, ev, e: e.__setitem__("byte_len", int(e["byte_len"]) & 0xFFFF)
            if e.get("is_receive") else None)


m = fault("send-cqe-len-16bit",
          "The byte count of sender completions is 16 bits wide: a message of 64 KiB or more "
          "is reported without bits 31:16.",
          ["CQE-SEND-001"])
completions(m, "requester", lambda ctx, ev, e: e.__setitem__("byte_len", int(e["byte_len"]) & 0xFFFF)
            if not e.get("is_receive") else None)


m = fault("recv-flag-len-16bit",
          "The byte count of retirement flags is 16 bits wide: a message of 64 KiB or more is "
          "reported without bits 31:16.",
          ["FLAG-RECV-002", "RET-FLAG-001", "FLAG-LEN-001"])
flags(m, "responder", lambda ctx, ev, d: d.__setitem__("byte_len", d["byte_len"] & 0xFFFF))


m = fault("cqe-wr-id-60bit",
          "The wr_id register of the completion engine is 60 bits wide: sender completions "
          "lose bits 63:60, a token's version among them.",
          ["CQE-SEND-001", "CQE-SEND-002", "CQE-REJECT-001", "TPL-EXPAND-007"])
completions(m, "requester", lambda ctx, ev, e: e.__setitem__("wr_id", int(e["wr_id"]) & ((1 << 60) - 1))
            if not e.get("is_receive") else None)


m = fault("tpl-toggle-resets-seq",
          "Disabling or re-enabling a template resets its expected seq to 0, as installing "
          "one does: the toggle goes through the install path.",
          ["TPL-INSTALL-003", "DB-SEQ-001", "DB-SEQ-002", "DB-SEQ-003", "DB-ACCEPT-001",
           "CQE-REJECT-001", "DB-REJECT-001"])


@m.hook("inputs")
def _(ctx, ins):
    tpls = ctx.state.setdefault("tpl-toggle-resets-seq", {})
    res = []
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") == "set_template":
            old = tpls.get(c.get("template_id"))
            if old is not None and old != c and dict(old, enabled=c.get("enabled")) == c:
                # An installation of another version first: the device then installs
                # this one too, and both set the expected seq to 0.
                other = dict(c, imm_base=(int(c.get("imm_base", 0)) ^ 1) & 0xFFFFFFFF)
                res.append({"at": item["at"], "input": dict(item["input"], command=other)})
                ctx.mutated("tpl-toggle-resets-seq")
            tpls[c.get("template_id")] = dict(c)
        res.append(item)
    return res


m = fault("send-complete-on-sack",
          "The sender completes a message when a SACK covers its last packet, not when its "
          "transport ACK arrives: under coalesced ACKs its flag and entry come early.",
          ["SND-ACK-005", "SND-ACK-001", "FLAG-SEND-001", "CQE-SEND-001", "RET-SEND-001"])


def ack_like(f, msn):
    """A transport ACK of `msn` (credit code 0x1F) with the link, IP, UDP and BTH headers of
    the frame `f`, sealed."""
    bth = f.off["bth"]
    data = bytearray(f.b[:bth + 12]) + bytes([0x1F]) + (msn & 0xFFFFFF).to_bytes(3, "big")
    data += b"\x00" * 4
    ip, udp, end = f.ip_off, f.off["udp"], len(data)
    data[udp + 4:udp + 6] = (end - udp).to_bytes(2, "big")
    if f.has("ipv4"):
        data[ip + 2:ip + 4] = (end - ip).to_bytes(2, "big")
    else:
        data[ip + 4:ip + 6] = (end - ip - 40).to_bytes(2, "big")
    data[bth] = roce.MRC_ACK
    g = roce.parse(bytes(data))
    for name in ("pad_count", "ack_req", "ts", "rtx"):
        g.set("bth", name, 0)
    g.ethernet_pad()
    return g.seal()


@m.hook("inputs")
def _(ctx, ins):
    # The device acts on a SACK whose cack_psn passes a message's last PSN as on a
    # transport ACK of the latest such message: an ACK is given right after the SACK.
    ends = ctx.state.setdefault("send-complete-on-sack", {})
    res = []
    for item in ins:
        res.append(item)
        f = frame_of(item)
        if f is None or kind(f) != "sack" or not sound(f):
            continue
        cack = f.get("seth", "cack_psn")
        mine = ends.get(f.get("bth", "dest_qp")) or []
        covered = [e for e in mine if (cack - e[0]) % (1 << 24) < (1 << 23)]
        if not covered:
            continue
        ends[f.get("bth", "dest_qp")] = [e for e in mine if e not in covered]
        ack = copy.deepcopy(item)
        put_frame(ack, ack_like(f, covered[-1][1]))
        res.append(ack)
        ctx.mutated("send-complete-on-sack")
    return res


@m.hook("outputs")
def _(ctx, outs):
    ends = ctx.state.setdefault("send-complete-on-sack", {})
    for item in outs:
        f = frame_of(item)
        if f is None or kind(f) != "data" or not is_last(f) or f.get("bth", "rtx"):
            continue
        qp = ctx.local_qp_of(f)
        if qp is not None:
            ends.setdefault(qp, []).append((f.get("bth", "psn"), f.get("meth", "msn")))
    return outs


def template_valid(c):
    """Whether software's template passes the rules the NIC checks at installation that its
    own fields decide (host-interface section 3.2, less the key and the flag table)."""
    unit, n = int(c.get("length_unit", 0)), int(c.get("slots", 0))
    return (int(c.get("template_id", 0)) < 4096 and int(c.get("qpn", 0)) > 2
            and c.get("opcode") in (0, 1) and 1 <= n <= 1 << 16
            and 0 < unit <= 1 << 31 and unit & (unit - 1) == 0
            and int(c.get("default_length", 0)) <= int(c.get("max_length", 0)) <= 1 << 31
            and region_fits(c, "local", c.get("local_stride", 0))
            and region_fits(c, "remote", c.get("remote_stride", 0)))


def token_verdict(tpl, expected, t):
    """The status the checks of host-interface section 2.3 give token t, 0 when accepted."""
    if t >> 60 != 1:
        return 0x01
    if tpl is None or not tpl.get("enabled"):
        return 0x02
    behind = (expected - (t >> 32 & 0xFFFF)) & 0xFFFF
    if behind:
        return 0x03 if behind < 0x8000 else 0x04
    i, n = t >> 16 & 0xFFFF, token_length(t, tpl)
    if i >= int(tpl.get("slots", 1)):
        return 0x05
    if (n > int(tpl.get("max_length", 0))
            or i * int(tpl.get("local_stride", 0)) + n > int(tpl.get("local_region_len", 0))
            or i * int(tpl.get("remote_stride", 0)) + n > int(tpl.get("remote_region_len", 0))):
        return 0x06
    return 0


m = fault("tpl-reinstall-keeps-seq",
          "Installing a template again under an ID in use keeps the expected seq of the "
          "version it replaces instead of setting it to 0.",
          ["TPL-INSTALL-003", "DB-SEQ-001", "DB-SEQ-002", "DB-SEQ-003", "DB-ACCEPT-001",
           "CQE-REJECT-001", "DB-REJECT-001"])


@m.hook("inputs")
def _(ctx, ins):
    # Per template ID: [template, the device's expected seq, what the faulty NIC adds].
    st = ctx.state.setdefault("tpl-reinstall-keeps-seq", {})
    swaps = ctx.state.setdefault("tpl-reinstall-keeps-seq:swaps", {})
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") == "set_template" and template_valid(c):
            s = st.get(c.get("template_id"))
            if s is None:
                st[c.get("template_id")] = [dict(c), 0, 0]
            elif dict(s[0], enabled=c.get("enabled")) == c:
                s[0] = dict(c)
            else:
                st[c.get("template_id")] = [dict(c), 0, (s[1] + s[2]) & 0xFFFF]
            continue
        if c.get("command") == "deregister_local":
            for s in st.values():
                if s[0].get("local_lkey") == c.get("lkey"):
                    s[0]["enabled"] = False
            continue
        t = token_of(c)
        s = st.get(t >> 48 & 0xFFF) if t is not None else None
        if s is None:
            continue
        n = t
        if s[2]:
            n = (t & ~(0xFFFF << 32)) | (((t >> 32) - s[2]) & 0xFFFF) << 32
            set_token(c, n)
            swaps[n] = t
            ctx.mutated("tpl-reinstall-keeps-seq")
        if token_verdict(s[0], s[1], n) == 0:
            s[1] = (s[1] + 1) & 0xFFFF
            swaps[(s[0].get("qpn"), n >> 32 & 0xFFFF)] = t >> 32 & 0xFFFF
    return ins


@m.hook("outputs")
def _(ctx, outs):
    swaps = ctx.state.get("tpl-reinstall-keeps-seq:swaps", {})
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("side") != "requester":
            continue
        if ev.get("event") == "completion":
            e = completion_entry(ev)
            if int(e.get("wr_id", 0)) in swaps:
                e["wr_id"] = swaps[int(e["wr_id"])]
                set_completion_entry(ev, e)
        elif ev.get("event") == "flag_write":
            d = flag_fields(int(ev["value"]))
            g = swaps.get((ev.get("qpn"), d["generation"]))
            if g is not None and g != d["generation"]:
                d["generation"] = g
                ev["value"] = flag_value(d)
    return outs


# ==========================================================================================
# A fifth reading: the receiving side alone (receiver.md and the receive rules of
# wire-format.md), as an RTL team would get a responder wrong: frame checks skipped for one
# kind of packet, legal oddities rejected, checks done after placement, window edges, and
# SACK, NACK and ACK fields latched from the wrong packet or counted in the wrong place.
# ==========================================================================================

def rx5_write_at(ctx, qp, at, psn=None):
    """Index in ctx.rx_writes[qp] of the write given at `at` (with PSN `psn`), or None."""
    ws = ctx.rx_writes.get(qp, [])
    for i in range(len(ws) - 1, -1, -1):
        if ws[i][0] == at and (psn is None or ws[i][1] == psn):
            return i
    return None


def rx5_trigger_psn(f):
    """The PSN a SACK names as its triggering packet."""
    return (f.get("seth", "cack_psn") + f.get("seth", "ack_psn_offset")) & U24


def rx5_placed(ctx, m, w, why):
    """A DMA write of write `w`'s payload, as a device that placed it would make."""
    ctx.mutated(why)
    return {"at": w["at"], "output": {"kind": "event", "event": {
        "event": "dma_write", "qpn": w["qp"], "psn": w["psn"], "msn": w["msn"],
        "va": w["va"], "payload": {"bytes": w["payload"].hex()}}}}


# ---- frame checks skipped for one kind of packet (input mutations) -----------------------

def rx5_unsound_write(f):
    """Whether a received write fails only its ICRC (its IP and UDP checksums hold)."""
    if f.icrc_ok():
        return False
    if f.has("ipv4") and f.ipv4_checksum() != f.get("ipv4", "checksum"):
        return False
    c = f.get("udp", "checksum")
    return c == 0 or c == f.udp_checksum()


def rx5_fix(m, pred, fix):
    """An input hook that gives the device, repaired by `fix(f)`, each received frame that
    `pred(ctx, f)` says the faulty NIC would not have discarded."""

    @m.hook("inputs")
    def _(ctx, ins):
        for item in ins:
            f = frame_of(item)
            if f is None or not pred(ctx, f):
                continue
            before = bytes(f.b)
            fix(f)
            if bytes(f.b) != before:
                put_frame(item, f)
                ctx.mutated(m.name)
        return ins


m = fault("rx-icrc-unchecked-only",
          "The ICRC checker sits in the multi-packet pipeline: a one-packet write (ONLY or "
          "ONLY with immediate) bypasses it, so one with a wrong ICRC is accepted.",
          ["ICRC-VERIFY-001", "RCV-FRAME-001"])
rx5_fix(m, lambda ctx, f: f.is_write() and f.opcode in (roce.MRC_WRITE_ONLY,
                                                           roce.MRC_WRITE_ONLY_IMM)
        and rx5_unsound_write(f),
        lambda f: f.set_icrc(f.icrc_computed()))


m = fault("rx-ipv4-checksum-unchecked",
          "The receive parser does not verify the IPv4 header checksum, relying on the ICRC, "
          "which masks it: a write with a wrong header checksum is accepted.",
          ["ENC-IPV4-003", "RCV-FRAME-001"])


def _(ctx, f):
    return (f.has("ipv4") and f.is_write() and f.icrc_ok()
            and f.ipv4_checksum() != f.get("ipv4", "checksum"))


rx5_fix(m, _, lambda f: f.set("ipv4", "checksum", f.ipv4_checksum()))


m = fault("rx-udp-checksum-unchecked",
          "The receive parser does not verify a non-zero UDP checksum, relying on the ICRC: a "
          "write with a wrong UDP checksum is accepted, over IPv4 and IPv6.",
          ["ENC-UDP-006", "RCV-FRAME-001"])


def _(ctx, f):
    c = f.get("udp", "checksum")
    ok4 = not f.has("ipv4") or f.ipv4_checksum() == f.get("ipv4", "checksum")
    return f.is_write() and f.icrc_ok() and ok4 and c != 0 and c != f.udp_checksum()


rx5_fix(m, _, lambda f: f.set("udp", "checksum", f.udp_checksum()))


m = fault("rx-ipv4-fragment-accepted",
          "The receive parser ignores the IPv4 more-fragments flag and fragment offset: a "
          "fragment that carries a whole write is processed as RoCEv2.",
          ["ENC-IPV4-002", "RCV-FRAME-001", "ENC-ROCE-001"])


def _(ctx, f):
    return (f.has("ipv4") and f.is_write() and f.icrc_ok()
            and (f.get("ipv4", "more_frags") or f.get("ipv4", "frag_offset")))


def _fix(f):
    f.set("ipv4", "more_frags", 0)
    f.set("ipv4", "frag_offset", 0)
    f.seal()


rx5_fix(m, _, _fix)


m = fault("rx-udp-port-unchecked",
          "The receive parser classifies a UDP datagram as RoCEv2 by its opcode and BTH, "
          "without testing the destination port: a write sent to another port is processed.",
          ["ENC-UDP-001", "ENC-ROCE-001", "RCV-FRAME-001"])


def rx5_udp_at(b):
    """The offset of the UDP header of an Ethernet frame over IPv4 or IPv6, or None."""
    at, et = 12, int.from_bytes(b[12:14], "big")
    if et in (0x8100, 0x88A8):
        at, et = 16, int.from_bytes(b[16:18], "big")
    if et == 0x0800 and len(b) > at + 2 and b[at + 11] == 17:
        return at + 2 + (b[at + 2] & 0xF) * 4
    if et == 0x86DD and len(b) > at + 8 and b[at + 8] == 17:
        return at + 2 + 40
    return None


@m.hook("inputs")
def _(ctx, ins):
    for item in ins:
        body = item.get("input") or {}
        if body.get("kind") != "frame" or "bytes" not in body:
            continue
        b = bytearray.fromhex(body["bytes"])
        u = rx5_udp_at(b)
        if u is None or len(b) < u + 8 or int.from_bytes(b[u + 2:u + 4], "big") == 4791:
            continue
        b[u + 2:u + 4] = (4791).to_bytes(2, "big")
        try:
            f = roce.parse(bytes(b))
        except ValueError:
            continue
        if f is None or not f.is_write():
            continue
        f.seal()
        put_frame(item, f)
        ctx.mutated("rx-udp-port-unchecked")
    return ins


# ---- legal oddities rejected (input mutations: the frame is made one the NIC drops) -------

def rx5_reject(m, pred):
    """An input hook that spoils the ICRC of each sound received frame `pred(ctx, f)`
    names, so that the device discards it as the too-strict NIC does."""

    @m.hook("inputs")
    def _(ctx, ins):
        for item in ins:
            f = frame_of(item)
            if f is None or not sound(f) or not pred(ctx, f):
                continue
            f.set_icrc(f.icrc_found() ^ 0x1)
            f.seal(icrc=False)
            put_frame(item, f)
            ctx.mutated(m.name)
        return ins


m = fault("rx-tver-rejected",
          "The BTH check rejects a non-zero tver, as an IBTA header check does: such a write "
          "is dropped.",
          ["BTH-TVER-001"])
rx5_reject(m, lambda ctx, f: f.is_write() and f.get("bth", "tver") != 0)


m = fault("rx-bth-byte4-rejected",
          "The BTH check rejects FECN, BECN or the reserved bits of byte 4 set: such a write "
          "is dropped.",
          ["BTH-RESV-002", "DEC-RESV-001"])
rx5_reject(m, lambda ctx, f: f.is_write() and (f.get("bth", "fecn") or f.get("bth", "becn")
                                                or f.get("bth", "resv6")))


m = fault("rx-tseth-ftype-rejected",
          "The TSETH check accepts only ftype 1: a write stamped in another format is "
          "dropped.",
          ["TSETH-FTYPE-001"])
rx5_reject(m, lambda ctx, f: f.is_write() and f.has("tseth") and f.get("tseth", "ftype") != 1)


m = fault("rx-pad-nonzero-rejected",
          "The pad checker drops a write whose pad bytes are not zero.",
          ["PAY-PAD-002"])
rx5_reject(m, lambda ctx, f: f.is_write() and f.get("bth", "pad_count")
           and any(f.b[f.pad_off:f.icrc_off]))


m = fault("rx-ipv4-options-rejected",
          "The IPv4 parser handles IHL 5 only: a write whose IPv4 header carries options is "
          "dropped.",
          ["ENC-IPV4-006"])
rx5_reject(m, lambda ctx, f: f.has("ipv4") and f.get("ipv4", "ihl") > 5)


m = fault("rx-eth-padding-rejected",
          "The length checker compares the frame's length with the IP total length and drops "
          "a frame with Ethernet padding after the IP packet.",
          ["ENC-LEN-003"])
rx5_reject(m, lambda ctx, f: f.is_write() and len(f.b) > f.ip_end)


m = fault("rx-vlan-88a8-rejected",
          "The VLAN parser knows TPID 0x8100 only: a write tagged 0x88A8 is not taken as "
          "RoCEv2 and is dropped.",
          ["ENC-VLAN-002"])
rx5_reject(m, lambda ctx, f: f.get("eth", "ethertype") == 0x88A8)


m = fault("rx-udp-zero-checksum-v6-rejected",
          "Over IPv6 the UDP checker takes checksum 0 for a wrong checksum, as RFC 8200 has "
          "a plain UDP receiver do: such a write is dropped.",
          ["ENC-UDP-004"])
rx5_reject(m, lambda ctx, f: f.has("ipv6") and f.is_write()
           and f.get("udp", "checksum") == 0)


m = fault("probe-peth-fields-rejected",
          "The probe parser drops a probe whose PETH ftype is not 1 or whose spdcid or "
          "dpdcid is not 0, so the probe goes unanswered.",
          ["PETH-FTYPE-001", "PETH-PDC-001", "PETH-RESP-001", "EV-PROBE-004"])
rx5_reject(m, lambda ctx, f: kind(f) == "probe" and (
    f.get("peth", "ftype") != 1 or f.get("peth", "spdcid") or f.get("peth", "dpdcid")))


m = fault("probe-rtx-rejected",
          "The probe parser checks BTH rtx as on a write and drops a probe that has it set, "
          "so the probe goes unanswered.",
          ["BTH-RTX-002", "PETH-RESP-001", "EV-PROBE-004"])
rx5_reject(m, lambda ctx, f: kind(f) == "probe" and f.get("bth", "rtx"))


m = fault("rx-flow-label-20bit-ev",
          "Over IPv6 the receive parser ORs all 20 bits of the flow label into the EV: flow "
          "label bits 19:16 land in EV bits 19:16, the low bits of the source-port half.",
          ["ENC-EV-001", "ENC-EV-003", "SETH-EV-001", "RCV-SACK-006", "RCV-SACK-005"])


def _(ctx, f):
    return f.has("ipv6") and f.is_write() and sound(f) and f.get("ipv6", "flow_label") >> 16


def _fix(f):
    fl = f.get("ipv6", "flow_label")
    f.set("udp", "src_port", f.get("udp", "src_port") | (fl >> 16))
    f.set("ipv6", "flow_label", fl & 0xFFFF)
    f.seal()


rx5_fix(m, _, _fix)


# ---- checks done after placement (output additions) ---------------------------------------

def rx5_place_rejected(m, pred):
    """The payload of each write given in this batch that `pred(ctx, w, outs)` says the
    device rejected is placed anyway, at the write's own time."""
    track_rx(m)

    @m.hook("outputs")
    def _(ctx, outs):
        st = rx_state(ctx, m)
        learn_placed(st, outs)
        res = list(outs)
        for w in st["batch"]:
            if not w["payload"] or is_dup(st, w):
                continue
            if pred(ctx, w, outs):
                res.append(rx5_placed(ctx, m, w, m.name))
        res.sort(key=lambda o: int(o["at"]))
        return res


def rx5_answered(ctx, w, outs, kinds, pred=lambda f: True):
    """Whether the device answered write `w` with a frame of `kinds` at its time."""
    for item in outs:
        f = frame_of(item)
        if (f is not None and kind(f) in kinds and int(item["at"]) == w["at"]
                and ctx.local_qp_of(f) == w["qp"] and pred(f)):
            return True
    return False


m = fault("rx-oor-placed",
          "The window check's verdict arrives after the DMA engine started: an out-of-window "
          "write is NACKed, but its payload is written to host memory first.",
          ["RCV-WIN-002", "RCV-REJECT-001", "RCV-PLACE-003"])
rx5_place_rejected(m, lambda ctx, w, outs: rx5_answered(
    ctx, w, outs, ("nack",), lambda f: f.get("neth", "nack_psn") == w["psn"]
    and f.get("neth", "reason") == 0x0B))


m = fault("rx-access-error-placed",
          "The rkey and bounds check runs in parallel with placement: a write NAKed for a "
          "remote access error has its payload written all the same.",
          ["RCV-PLACE-002", "RCV-REJECT-001", "RCV-PLACE-003"])
rx5_place_rejected(m, lambda ctx, w, outs: rx5_answered(ctx, w, outs, ("nak",)))


m = fault("rx-unknown-qp-placed",
          "The QP lookup finishes after the DMA engine started from the RETH: a write to a QP "
          "the NIC does not have is placed before it is dropped.",
          ["RCV-QP-001", "RCV-REJECT-001", "RCV-PLACE-003"])


@m.hook("inputs")
def _(ctx, ins):
    st = ctx.state.setdefault("rx-unknown-qp-placed", {"batch": []})
    st["batch"] = []
    for item in ins:
        f = frame_of(item)
        if f is not None and f.is_write() and sound(f) and f.payload:
            qp = f.get("bth", "dest_qp")
            if qp not in ctx.qps:
                st["batch"].append(rx_info(f, int(item["at"])))
    return ins


@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.get("rx-unknown-qp-placed", {"batch": []})
    if not st["batch"]:
        return outs
    res = list(outs) + [rx5_placed(ctx, m_unknown_qp, w, "rx-unknown-qp-placed")
                        for w in st["batch"]]
    res.sort(key=lambda o: int(o["at"]))
    return res


m_unknown_qp = m


m = fault("rx-short-middle-placed",
          "The PMTU size check is wired for FIRST packets only: a MIDDLE shorter than the "
          "PMTU is placed.",
          ["RCV-SEG-002", "PAY-LEN-002", "RCV-REJECT-001"])
rx5_place_rejected(m, lambda ctx, w, outs: w["op"] == roce.MRC_WRITE_MIDDLE
                   and 0 < len(w["payload"]) < ctx.pmtu())


m = fault("rx-oversize-placed",
          "The payload-length check compares against the PMTU register's next size up: a "
          "write carrying more than the PMTU is placed.",
          ["RCV-SEG-001", "RCV-REJECT-001"])
rx5_place_rejected(m, lambda ctx, w, outs: len(w["payload"]) > ctx.pmtu())


# ---- the window's edges -------------------------------------------------------------------

m = fault("rcv-window-no-wrap",
          "The window check compares PSNs as plain 24-bit numbers: once epsn + W passes 2^24, "
          "a new PSN after the wrap is below epsn and is answered as a duplicate, not placed.",
          ["RCV-WIN-001", "BTH-PSN-002", "RCV-PLACE-003", "RCV-DUP-001"])


@m.hook("inputs")
def _(ctx, ins):
    st = ctx.state.setdefault("rcv-window-no-wrap", {})
    for item, f in frames(ins, ("data",), only_sound=True):
        qp = f.get("bth", "dest_qp")
        if qp not in ctx.qps:
            continue
        win = window_of(ctx, "rcv-window-no-wrap", qp)
        p, e = f.get("bth", "psn"), win["epsn"]
        if (p - e) & U24 < ctx.mpr() * 128 and p < e:
            f.set("bth", "psn", (e - 1) & U24)
            f.seal()
            put_frame(item, f)
            st[(qp, int(item["at"]))] = p
            ctx.mutated("rcv-window-no-wrap")
            continue
        window_take(ctx, win, p)
    return ins


@out_frames(m, ("sack",))
def _(ctx, f, item):
    p = ctx.state.get("rcv-window-no-wrap", {}).get((ctx.local_qp_of(f), int(item["at"])))
    if p is None:
        return
    d = (p - f.get("seth", "cack_psn")) & U24
    d = d - (1 << 24) if d >= 0x800000 else d
    f.set("seth", "ack_psn_offset", max(-32768, min(32767, d)) & 0xFFFF)


m = fault("nack-psn-epsn",
          "The NACK builder takes nack_psn from the epsn register instead of the NACKed "
          "packet's PSN.",
          ["RCV-NACK-001", "NETH-PSN-001", "OPC-PSN-002", "RCV-WIN-002"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    qp = ctx.local_qp_of(f)
    win = window_of(ctx, "nack-psn-epsn", qp)
    f.set("neth", "nack_psn", win["epsn"])
    f.set("bth", "psn", win["epsn"])


@in_frames(m, ("data",), why="nack-psn-epsn:follow")
def _(ctx, f, item):
    qp = f.get("bth", "dest_qp")
    if qp in ctx.qps:
        window_take(ctx, window_of(ctx, "nack-psn-epsn", qp), f.get("bth", "psn"))


# ---- SACK contents from the wrong packet or the wrong PSN ---------------------------------

m = fault("sack-bitmap-from-trigger",
          "The SACK bitmap is read from the receive bitmap at the triggering packet's PSN "
          "instead of at epsn, while sack_offset still says 1: behind a hole, bit i reports "
          "PSN p + 1 + i.",
          ["SETH-BITMAP-001", "RCV-SACK-005", "SETH-BITMAP-002"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    off = f.get("seth", "ack_psn_offset")
    if off >= 1:
        f.set("seth", "sack_bitmap", f.get("seth", "sack_bitmap") >> off)


m = fault("sack-cack-from-trigger",
          "The cumulative-ACK register is loaded from the PSN of the packet just accepted, "
          "not from epsn - 1: a SACK for a write behind a hole claims every PSN up to it.",
          ["SETH-CACK-001", "RCV-SACK-005", "OPC-PSN-002", "SETH-ACKPSN-003",
           "SETH-BITMAP-002"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    off = f.get("seth", "ack_psn_offset")
    if 2 <= off < 0x8000:
        cack = (f.get("seth", "cack_psn") + off) & U24
        f.set("seth", "cack_psn", cack)
        f.set("bth", "psn", cack)
        f.set("seth", "ack_psn_offset", 0)
        f.set("seth", "sack_bitmap", f.get("seth", "sack_bitmap") >> off)


def rx5_previous_write(ctx, f, item, psn=None):
    """The write of the frame's QP given just before its triggering write, or None."""
    qp = ctx.local_qp_of(f)
    i = rx5_write_at(ctx, qp, int(item["at"]), psn)
    if not i:
        return None
    return ctx.rx_writes[qp][i - 1]


m = fault("sack-ev-previous-write",
          "The EV register of the SACK builder is latched one write late: a SACK leaves on "
          "the EV of the write its QP received before its triggering packet.",
          ["RCV-SACK-006", "CONF-CMP-017"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    prev = rx5_previous_write(ctx, f, item, rx5_trigger_psn(f))
    if prev is not None:
        f.set_ev(prev[2])


m = fault("sack-ts-previous-write",
          "The timestamp latch of the SACK builder is loaded one write late: CC_STATE "
          "tx_timestamp carries the stamp of the write received before the triggering one.",
          ["CCS-TS-001", "RCV-SACK-007"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    prev = rx5_previous_write(ctx, f, item, rx5_trigger_psn(f))
    if prev is not None:
        f.set("cc_state", "tx_timestamp", prev[3] or 0)


m = fault("ack-ev-previous-write",
          "The ACK builder's EV register is latched one write late: a transport ACK or NAK "
          "leaves on the EV of the write its QP received before the one that caused it.",
          ["RCV-ACK-002", "RCV-NAK-002", "CONF-CMP-017"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item):
    prev = rx5_previous_write(ctx, f, item)
    if prev is not None:
        f.set_ev(prev[2])


# ---- CC_STATE counted per path instead of per QP -------------------------------------------

def rx5_psn_ev(ctx, qp, psn):
    """The EV of the latest write of QP `qp` with PSN `psn`, or None."""
    for at, p, ev, ts in reversed(ctx.rx_writes.get(qp, [])):
        if p == psn:
            return ev
    return None


m = fault("sack-rcvd-bytes-per-ev",
          "CC_STATE rcvd_bytes comes from a counter per EV, the path table's, instead of one "
          "per QP: a SACK reports only the bytes that arrived on its triggering packet's EV.",
          ["CCS-BYTES-001", "RCV-SACK-007"])


@m.hook("outputs")
def _(ctx, outs):
    acc = ctx.state.setdefault("sack-rcvd-bytes-per-ev", {})
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "dma_write":
            q = ev.get("qpn")
            e = rx5_psn_ev(ctx, q, ev.get("psn"))
            n = len(ev.get("payload", {}).get("bytes", "")) // 2
            acc[(q, e)] = acc.get((q, e), 0) + n
            continue
        f = frame_of(item)
        if f is None or kind(f) != "sack":
            continue
        qp = ctx.local_qp_of(f)
        v = (acc.get((qp, f.get("seth", "entropy")), 0) // 256) & U24
        if v != f.get("cc_state", "rcvd_bytes"):
            f.set("cc_state", "rcvd_bytes", v)
            f.seal()
            put_frame(item, f)
            ctx.mutated("sack-rcvd-bytes-per-ev")
    return outs


m = fault("sack-ooo-per-ev",
          "CC_STATE ooo_count comes from a counter per EV: a SACK counts only the PSNs after "
          "cack_psn that arrived on its triggering packet's EV.",
          ["CCS-OOO-001", "RCV-SACK-007"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    qp = ctx.local_qp_of(f)
    e = f.get("seth", "entropy")
    base = (f.get("seth", "cack_psn") + f.get("seth", "sack_offset")) & U24
    bm = f.get("seth", "sack_bitmap")
    n = sum(1 for i in range(64)
            if bm >> i & 1 and rx5_psn_ev(ctx, qp, (base + i) & U24) == e)
    f.set("cc_state", "ooo_count", n)


# ---- timers, NAKs and the error state ------------------------------------------------------

m = fault("sack-timer-restarted",
          "Every accepted write restarts the SACK timer: the timer's SACK leaves sack_delay "
          "after the last write of a burst instead of after the first.",
          ["RCV-SACK-004"])


@m.hook("outputs")
def _(ctx, outs):
    delay_ns = int(ctx.nic.get("sack_delay", 1000))
    for item, f in frames(outs, ("sack",)):
        qp, at = ctx.local_qp_of(f), int(item["at"])
        if at in ctx.input_times:
            continue
        ws = [w[0] for w in ctx.rx_writes.get(qp, []) if w[0] < at]
        if ws and ws[-1] + delay_ns > at:
            delay(ctx, item, ws[-1] + delay_ns - at, "sack-timer-restarted")
    return outs


m = fault("nak-msn-last-acked",
          "The NAK builder reads the MSN register of the last transport ACK sent, not the "
          "last message retired: with ACK coalescing a NAK leaves out the messages retired "
          "since, and before any ACK it carries the register's reset value 0xFFFF.",
          ["RCV-NAK-002", "AETH-MSN-001"])


@m.hook("outputs")
def _(ctx, outs):
    acked = ctx.state.setdefault("nak-msn-last-acked", {})
    for item in outs:
        f = frame_of(item)
        if f is None:
            continue
        qp = ctx.local_qp_of(f)
        if kind(f) == "ack":
            acked[qp] = f.get("aeth", "msn")
        elif kind(f) == "nak":
            v = acked.get(qp, 0xFFFF)
            if v != f.get("aeth", "msn"):
                f.set("aeth", "msn", v)
                f.seal()
                put_frame(item, f)
                ctx.mutated("nak-msn-last-acked")
    return outs


m = fault("rcv-error-still-sacks",
          "The error state gates placement but not the SACK engine: each write that reaches a "
          "failed QP is answered with the QP's last SACK again.",
          ["RCV-QP-002", "SND-ERR-001"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = rx_state(ctx, m)
    failed = st.setdefault("failed", {})
    sacks = st.setdefault("sacks", {})
    res = list(outs)
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "report" and ev.get("report") == "qp_error":
            failed.setdefault(ev.get("qpn"), int(item["at"]))
        f = frame_of(item)
        if f is not None and kind(f) == "nack" and f.get("neth", "reason") == 0x19:
            failed.setdefault(ctx.local_qp_of(f), int(item["at"]))
        if f is not None and kind(f) == "sack":
            sacks[ctx.local_qp_of(f)] = item
    for w in st["batch"]:
        t = failed.get(w["qp"])
        last = sacks.get(w["qp"])
        if t is None or w["at"] <= t or last is None:
            continue
        copy = json.loads(json.dumps(last))
        copy["at"] = w["at"]
        res.append(copy)
        ctx.mutated("rcv-error-still-sacks")
    res.sort(key=lambda o: int(o["at"]))
    return res


m = fault("probe-answer-other-qp",
          "The probe answer is built from the SACK state of the QP that received the last "
          "write, not of the probe's QP: its cack_psn and bitmap belong to another QP.",
          ["PETH-RESP-001", "EV-PROBE-004", "RCV-SACK-005", "SETH-CACK-001"])


@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("probe-answer-other-qp", {})
    last_qp = None
    for qp, ws in ctx.rx_writes.items():
        if ws and (last_qp is None or ws[-1][0] > ctx.rx_writes[last_qp][-1][0]):
            last_qp = qp
    for item, f in frames(outs, ("sack", "probe-answer")):
        qp = ctx.local_qp_of(f)
        if kind(f) == "sack":
            st[qp] = (f.get("seth", "cack_psn"), f.get("seth", "sack_bitmap"))
            continue
        other = st.get(last_qp)
        if last_qp is None or last_qp == qp or other is None:
            continue
        if other == (f.get("seth", "cack_psn"), f.get("seth", "sack_bitmap")):
            continue
        f.set("seth", "cack_psn", other[0])
        f.set("bth", "psn", other[0])
        f.set("seth", "sack_bitmap", other[1])
        f.seal()
        put_frame(item, f)
        ctx.mutated("probe-answer-other-qp")
    return outs


# ---- NACKs and probe answers from the wrong packet -----------------------------------------

def rx5_nacked_previous(ctx, f, item):
    """The write of a NACK's QP given just before the write it NACKs, or None."""
    return rx5_previous_write(ctx, f, item, f.get("neth", "nack_psn"))


m = fault("nack-ts-previous-write",
          "The NACK builder's timestamp latch is loaded one write late: NETH tx_timestamp "
          "carries the stamp of the write received before the NACKed one.",
          ["NETH-TS-001", "RCV-NACK-001"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    prev = rx5_nacked_previous(ctx, f, item)
    if prev is not None:
        f.set("neth", "tx_timestamp", prev[3] or 0)


m = fault("nack-ev-previous-write",
          "The NACK builder's EV latch is loaded one write late: a NACK carries in NETH "
          "entropy, and travels on, the EV of the write received before the NACKed one.",
          ["RCV-NACK-001", "NETH-PSN-001", "CONF-CMP-017"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    prev = rx5_nacked_previous(ctx, f, item)
    if prev is not None:
        f.set("neth", "entropy", prev[2])
        f.set_ev(prev[2])


def rx5_probe_at(ctx, qp, at):
    """The probe received by QP `qp` at `at`, as (EV, probe_id, timestamp), or None."""
    return ctx.state.get("rx5:probes", {}).get((qp, at))


def rx5_track_probes(m):
    """Keeps the probes each QP receives, by QP and time."""

    @m.hook("inputs")
    def _(ctx, ins):
        probes = ctx.state.setdefault("rx5:probes", {})
        for item in ins:
            f = frame_of(item)
            if f is not None and kind(f) == "probe" and sound(f):
                probes[(f.get("bth", "dest_qp"), int(item["at"]))] = (
                    f.ev(), f.get("peth", "probe_id"), f.get("peth", "tx_timestamp"),
                    f.get("bth", "psn"))
        return ins


def rx5_last_write(ctx, qp, at):
    """The latest write QP `qp` received at or before `at`, or None."""
    ws = [w for w in ctx.rx_writes.get(qp, []) if w[0] <= at]
    return ws[-1] if ws else None


m = fault("probe-answer-ts-last-write",
          "The probe answer takes CC_STATE tx_timestamp from the SACK builder's latch, the "
          "stamp of the QP's last received write, instead of the probe's PETH timestamp.",
          ["PETH-RESP-001", "EV-PROBE-004", "CCS-TS-001", "RCV-SACK-007"])


@out_frames(m, ("probe-answer",))
def _(ctx, f, item):
    w = rx5_last_write(ctx, ctx.local_qp_of(f), int(item["at"]))
    if w is not None:
        f.set("cc_state", "tx_timestamp", w[3] or 0)


m = fault("probe-answer-entropy-last-write",
          "The probe answer takes SETH entropy from the SACK builder's latch, the EV of the "
          "QP's last received write, though it travels on the probe's EV.",
          ["PETH-RESP-001", "EV-PROBE-004", "SETH-EV-001", "RCV-SACK-005"])


@out_frames(m, ("probe-answer",))
def _(ctx, f, item):
    w = rx5_last_write(ctx, ctx.local_qp_of(f), int(item["at"]))
    if w is not None:
        f.set("seth", "entropy", w[2])


m = fault("probe-psn-recorded",
          "The probe path shares the write path's PSN tracker: a probe's BTH psn is marked "
          "received, so the next SACKs claim a PSN no write carried.",
          ["PETH-PSN-001", "SETH-CACK-001", "SETH-BITMAP-001", "RCV-SACK-005"])
rx5_track_probes(m)


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    qp, at = ctx.local_qp_of(f), int(item["at"])
    marked = ctx.state.setdefault("probe-psn-recorded", {})
    for (q, t), p in ctx.state.get("rx5:probes", {}).items():
        if q == qp and t <= at:
            marked.setdefault(q, set()).add(p[3])
    cack = f.get("seth", "cack_psn")
    bm = f.get("seth", "sack_bitmap")
    got = set()
    for p in marked.get(qp, ()):
        d = (p - cack) & U24
        if 1 <= d <= 64 and not (d >= 2 and bm >> (d - 1) & 1):
            got.add(d)
    if not got:
        return
    for d in got:
        bm |= 1 << (d - 1)
    while bm & 1:
        bm >>= 1
        cack = (cack + 1) & U24
    f.set("seth", "sack_bitmap", bm & ((1 << 64) - 1))
    f.set("seth", "cack_psn", cack)
    f.set("bth", "psn", cack)


# ---- duplicates and timers ------------------------------------------------------------------

m = fault("sack-dup-ev-of-original",
          "A duplicate's SACK takes its EV from the PSN table, which holds the EV of the "
          "copy first accepted: SETH entropy and the SACK's own EV are the original's, not "
          "the duplicate's.",
          ["RCV-SACK-006", "SETH-EV-001", "RCV-SACK-005", "RCV-DUP-001"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    qp, at = ctx.local_qp_of(f), int(item["at"])
    psn = rx5_trigger_psn(f)
    copies = [w for w in ctx.rx_writes.get(qp, []) if w[1] == psn and w[0] <= at]
    if len(copies) >= 2 and copies[-1][0] == at and copies[0][2] != copies[-1][2]:
        f.set("seth", "entropy", copies[0][2])
        f.set_ev(copies[0][2])


m = fault("sack-pr-on-duplicate",
          "The pr bit of the SACK builder is set by the probe path and by the duplicate path "
          "alike: a duplicate's SACK carries pr 1.",
          ["SETH-PR-001", "RCV-SACK-005", "RCV-DUP-001"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    if f.get("seth", "ack_psn_offset") >= 0x8000 or f.get("seth", "ack_psn_offset") < 0:
        f.set("seth", "pr", 1)


m = fault("sack-stops-ack-timer",
          "A SACK sent at once stops the SACK timer even while it owes a transport ACK held "
          "back by coalescing, as the withdrawn draft rule said: that ACK is never sent by "
          "the timer.",
          ["RCV-SACK-008", "RCV-ACK-001"])


@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("sack-stops-ack-timer", {"ack": {}, "sack": {}})
    keep = []
    for item in outs:
        f = frame_of(item)
        if f is None or kind(f) not in ("ack", "sack", "probe-answer"):
            keep.append(item)
            continue
        qp, at = ctx.local_qp_of(f), int(item["at"])
        if kind(f) != "ack":
            if at in ctx.input_times:
                st["sack"][qp] = at
            keep.append(item)
            continue
        timer = at not in ctx.input_times
        if timer and st["sack"].get(qp, -1) > st["ack"].get(qp, -1):
            ctx.mutated("sack-stops-ack-timer")
            continue
        st["ack"][qp] = at
        keep.append(item)
    return keep


# ==========================================================================================
# A fifth reading: the sending side, the paths and the CPU half's recovery (sender.md,
# recovery.md, the EV, probe and path parts of wire-format.md), as an RTL team would get
# them wrong.
# ==========================================================================================

def profile(ctx, qpn):
    """The EVs of a local QP's profile, primaries then backups."""
    c = ctx.qps.get(qpn) or {}
    return list(c.get("evs") or []) + list(c.get("backup_evs") or [])


def in_cpu(m, cmds):
    """Registers `fn(ctx, c, item)` as a mutation of the CPU commands `cmds` the NIC is
    given; `fn` changes the command in place, or returns "drop" to lose it or "twice" to
    take it twice."""

    def deco(fn):
        @m.hook("inputs")
        def _(ctx, ins):
            res = []
            for item in ins:
                body = item.get("input") or {}
                c = body.get("command") or {}
                if body.get("kind") != "cpu" or c.get("cmd") not in cmds:
                    res.append(item)
                    continue
                before = json.dumps(c, sort_keys=True)
                r = fn(ctx, c, item)
                if r == "drop":
                    ctx.mutated(m.name)
                    continue
                res.append(item)
                if r == "twice":
                    res.append(json.loads(json.dumps(item)))
                    ctx.mutated(m.name)
                elif json.dumps(c, sort_keys=True) != before:
                    ctx.mutated(m.name)
            return res

        return fn

    return deco


def report_of(item, name):
    """The report event of an output item when it is a report `name`, else None."""
    ev = event_of(item)
    if ev is None or ev.get("event") != "report" or ev.get("report") != name:
        return None
    return ev


def ev_states(ctx, outs):
    """Follows the EV states the device reports (REC-IF-016); every EV starts GOOD."""
    st = ctx.state.setdefault("fifth:ev-states", {})
    for item in outs:
        ev = report_of(item, "ev_state")
        if ev is not None:
            st[(ev.get("qpn"), ev.get("ev"))] = ev.get("state")
    return st


# ---- commands of the CPU half, misapplied ------------------------------------------------

m = fault("cmd-probe-next-ev",
          "The probe command's EV is looked up one entry too far in the QP's profile: the "
          "probe leaves on the EV after the one named.",
          ["REC-IF-011", "EV-PROBE-005"])


@in_cpu(m, ("probe",))
def _(ctx, c, item):
    evs = profile(ctx, c.get("qpn"))
    if c.get("ev") in evs and len(evs) > 1:
        c["ev"] = evs[(evs.index(c["ev"]) + 1) % len(evs)]


m = fault("cmd-probe-usable-only",
          "The probe engine shares the data path's usable-pool filter: a probe commanded on "
          "an EV that is not GOOD is dropped.",
          ["REC-IF-011", "EV-PROBE-005"])


@m.hook("outputs")
def _(ctx, outs):
    ev_states(ctx, outs)
    return outs


@in_cpu(m, ("probe",))
def _(ctx, c, item):
    st = ctx.state.setdefault("fifth:ev-states", {})
    if st.get((c.get("qpn"), c.get("ev")), "GOOD") != "GOOD":
        return "drop"


m = fault("cmd-probe-twice",
          "The command FIFO's write pointer advances twice on a probe command: every "
          "commanded probe is sent twice.",
          ["REC-IF-011", "EV-PROBE-005"])


@in_cpu(m, ("probe",))
def _(ctx, c, item):
    return "twice"


m = fault("cmd-set-ev-state-next-ev",
          "SetEvState is applied to the EV after the one named in the QP's profile: the "
          "state register is indexed one entry too far.",
          ["REC-IF-012", "EV-STATE-003", "REC-IF-016", "SND-PATH-001",
           "EV-DENY-001", "EV-DENY-002", "EV-STATE-001"])


@in_cpu(m, ("set_ev_state",))
def _(ctx, c, item):
    evs = profile(ctx, c.get("qpn"))
    if c.get("ev") in evs and len(evs) > 1:
        c["ev"] = evs[(evs.index(c["ev"]) + 1) % len(evs)]


m = fault("cmd-allow-ignored",
          "A SetEvState to GOOD is ignored: the state register has no write path back to "
          "GOOD, so a denied or blamed EV stays out of use.",
          ["EV-DENY-002", "REC-IF-012", "EV-STATE-003", "REC-IF-016", "SND-PATH-001"])


@in_cpu(m, ("set_ev_state",))
def _(ctx, c, item):
    if c.get("state") == "GOOD":
        return "drop"


m = fault("cmd-assumed-bad-as-skip",
          "The state decoder of SetEvState takes ASSUMED_BAD for SKIP: an EV the CPU half "
          "blames comes back by itself after skip_hold.",
          ["EV-STATE-003", "REC-IF-012", "REC-IF-016", "SND-PATH-001",
           "EV-STATE-001"])


@in_cpu(m, ("set_ev_state",))
def _(ctx, c, item):
    if c.get("state") == "ASSUMED_BAD":
        c["state"] = "SKIP"


m = fault("cmd-retransmit-psn-next",
          "The Retransmit command's PSN is latched after the increment of the command "
          "register: the NIC retransmits from the PSN after the one named.",
          ["REC-IF-010", "REC-RTO-004", "REC-IF-008", "SND-SCHED-001", "SND-SCHED-003"])


@in_cpu(m, ("retransmit",))
def _(ctx, c, item):
    c["psn"] = (int(c.get("psn", 0)) + 1) & U24


m = fault("cmd-qp-error-ignored",
          "The QpError command is not decoded: a QP whose retry limit the CPU half found "
          "exceeded keeps running.",
          ["REC-IF-013", "REC-RETRY-002", "RET-FLUSH-001", "SND-ERR-001", "REC-IF-009",
           "CQE-SEND-002"])


@in_cpu(m, ("qp_error",))
def _(ctx, c, item):
    return "drop"


# ---- reports to the CPU half, with the wrong contents --------------------------------------

m = fault("report-rtx-lost-ev-new",
          "The Retransmitted report reads lost_ev after the spray engine chose the new EV: "
          "it names the EV of the retransmission instead of the one presumed lost.",
          ["REC-IF-008", "REC-EV-002"])


@m.hook("outputs")
def _(ctx, outs):
    sent = {}
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "data" and f.get("bth", "rtx"):
            sent[(ctx.local_qp_of(f), f.get("bth", "psn"))] = f.ev()
    for item in outs:
        ev = report_of(item, "retransmitted")
        if ev is None or ev.get("lost_ev") is None:
            continue
        new = sent.get((ev.get("qpn"), ev.get("psn")))
        if new is not None and new != ev.get("lost_ev"):
            ev["lost_ev"] = new
            ctx.mutated("report-rtx-lost-ev-new")
    return outs


m = fault("report-rtx-cause-swapped",
          "The cause field of the Retransmitted report has its two NIC codes swapped: a "
          "retransmission by loss inference is reported as caused by a NACK, and the "
          "reverse.",
          ["REC-IF-008"])


@out_events(m, ("report:retransmitted",))
def _(ctx, ev, item):
    swap = {"sack_inference": "nack", "nack": "sack_inference"}
    ev["cause"] = swap.get(ev.get("cause"), ev.get("cause"))


m = fault("report-resend-lost-ev",
          "A resend after a timeout reports the EV it leaves on as lost_ev, as a "
          "retransmission from the queue does: the CPU half blames a path that delivered.",
          ["REC-IF-008", "REC-EV-002"])


@m.hook("outputs")
def _(ctx, outs):
    sent = {}
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "data":
            sent[(ctx.local_qp_of(f), f.get("bth", "psn"))] = f.ev()
    for item in outs:
        ev = report_of(item, "retransmitted")
        if ev is None or ev.get("cause") != "timeout" or ev.get("lost_ev") is not None:
            continue
        new = sent.get((ev.get("qpn"), ev.get("psn")))
        if new is not None:
            ev["lost_ev"] = new
            ctx.mutated("report-resend-lost-ev")
    return outs


m = fault("report-progress-outstanding-minus-one",
          "Progress counts outstanding PSNs as snd_nxt - 1 - snd_una: one short whenever "
          "any is outstanding.",
          ["REC-IF-002", "REC-RTO-001"])


@out_events(m, ("report:progress",))
def _(ctx, ev, item):
    if int(ev.get("outstanding", 0)) > 0:
        ev["outstanding"] = int(ev["outstanding"]) - 1


m = fault("report-progress-awaiting-stale",
          "Progress carries the count of messages awaiting ACK of the QP's previous "
          "Progress: the counter is sampled before the ACK is applied.",
          ["REC-IF-002", "REC-RTO-001"])


@out_events(m, ("report:progress",))
def _(ctx, ev, item):
    st = per_qp(ctx, "report-progress-awaiting-stale")
    q = ev.get("qpn")
    now = ev.get("awaiting_ack")
    if q in st:
        ev["awaiting_ack"] = st[q]
    st[q] = now


m = fault("report-ev-state-old",
          "EvState reports carry the EV's state before the transition: the report is built "
          "from the state register before it is written.",
          ["REC-IF-016"])


@out_events(m, ("report:ev_state",))
def _(ctx, ev, item):
    st = per_qp(ctx, "report-ev-state-old")
    k = (ev.get("qpn"), ev.get("ev"))
    new = ev.get("state")
    ev["state"] = st.get(k, "GOOD")
    st[k] = new


m = fault("report-armed-every-packet",
          "Armed is sent for every first transmission, not only when the QP goes from "
          "idle to busy.",
          ["REC-IF-020", "REC-IF-003"])


@m.hook("outputs")
def _(ctx, outs):
    armed = ctx.state.setdefault("report-armed-every-packet", {})
    res = []
    for item in outs:
        ev = report_of(item, "armed") or report_of(item, "progress")
        if ev is not None and (ev.get("report") == "armed" or ev.get("qpn") in armed):
            armed[ev.get("qpn")] = ev.get("snd_una")
        res.append(item)
        f = frame_of(item)
        if f is None or kind(f) != "data" or f.get("bth", "rtx"):
            continue
        q = ctx.local_qp_of(f)
        if q not in armed:
            continue
        nxt = outs[outs.index(item) + 1] if outs.index(item) + 1 < len(outs) else None
        if nxt is not None and report_of(nxt, "armed") is not None:
            continue
        res.append({"at": item["at"], "output": {"kind": "event", "event": {
            "event": "report", "report": "armed", "qpn": q, "snd_una": armed[q]}}})
        ctx.mutated("report-armed-every-packet")
    return res


m = fault("report-progress-on-duplicate",
          "Progress is sent for every SACK and ACK of a QP, also one that moves nothing: a "
          "duplicate restarts the CPU half's timer and clears its retry counter.",
          ["REC-IF-019", "REC-IF-002", "REC-RTO-002", "REC-RTO-001", "REC-RETRY-001"])


@m.hook("inputs")
def _(ctx, ins):
    st = ctx.state.setdefault("report-progress-on-duplicate", {"acks": []})
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) in ("sack", "ack") and sound(f):
            st["acks"].append((int(item["at"]), f.get("bth", "dest_qp")))
    return ins


@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("report-progress-on-duplicate", {"acks": []})
    last = st.setdefault("last", {})
    failed = st.setdefault("failed", set())
    reported = set()
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "report":
            continue
        if ev.get("report") == "progress":
            reported.add((int(item["at"]), ev.get("qpn")))
        elif ev.get("report") == "qp_error":
            failed.add(ev.get("qpn"))
    res = list(outs)
    keep = []
    for at, q in st["acks"]:
        if at > ctx.until:
            keep.append((at, q))
            continue
        if (at, q) in reported or q not in last or q in failed:
            continue
        res.append({"at": at, "output": {"kind": "event", "event": dict(last[q])}})
        ctx.mutated("report-progress-on-duplicate")
    st["acks"] = keep
    for item in outs:
        ev = report_of(item, "progress")
        if ev is not None:
            last[ev.get("qpn")] = dict(ev)
    res.sort(key=lambda o: int(o["at"]))
    return res


# ---- the retransmission queue and the retransmissions ------------------------------------

m = fault("rtx-queue-lifo",
          "The retransmission queue is a stack: retransmissions that leave together leave "
          "newest PSN first.",
          ["SND-SCHED-003", "SND-SCHED-001"])


@m.hook("outputs")
def _(ctx, outs):
    groups = {}
    for i, item in enumerate(outs):
        f = frame_of(item)
        if f is not None and kind(f) == "data" and f.get("bth", "rtx"):
            groups.setdefault((int(item["at"]), ctx.local_qp_of(f)), []).append(i)
    res = list(outs)
    for idx in groups.values():
        if len(idx) < 2:
            continue
        for a, b in zip(idx, reversed(idx)):
            res[a] = dict(outs[b], at=outs[a]["at"])
        ctx.mutated("rtx-queue-lifo")
    return res


m = fault("rtx-second-dropped",
          "The retransmission queue keeps one bit per PSN that is never cleared: a PSN "
          "retransmitted once is never retransmitted again, whoever asks.",
          ["SND-RTX-003", "REC-RTO-004", "REC-IF-010", "SND-NACK-002", "SND-NACK-004",
           "REC-IF-008", "SND-RTX-005"])


@m.hook("outputs")
def _(ctx, outs):
    st = per_qp(ctx, "rtx-second-dropped")
    gone = set()
    res = []
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "data" and f.get("bth", "rtx"):
            k = (ctx.local_qp_of(f), f.get("bth", "psn"))
            if k in st:
                gone.add((int(item["at"]), k))
                ctx.mutated("rtx-second-dropped")
                continue
            st[k] = True
        res.append(item)
    if gone:
        keep = []
        for item in res:
            ev = report_of(item, "retransmitted")
            if ev is not None and (int(item["at"]), (ev.get("qpn"), ev.get("psn"))) in gone:
                continue
            keep.append(item)
        res = keep
    return res


m = fault("ackreq-on-every-rtx",
          "The retransmission path forces AckReq, to hear sooner whether the repair "
          "arrived: every retransmission carries ack_req 1.",
          ["SND-ACKREQ-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.get("bth", "rtx"):
        f.set("bth", "ack_req", 1)


m = fault("rtx-timeout-bit-clear",
          "Retransmissions the CPU half orders after a timeout go through the first-"
          "transmission path: they carry BTH rtx 0.",
          ["BTH-RTX-001", "SND-RTX-002", "SND-RTX-001"])


@m.hook("outputs")
def _(ctx, outs):
    timed = set()
    for item in outs:
        ev = report_of(item, "retransmitted")
        if ev is not None and ev.get("cause") == "timeout":
            timed.add((int(item["at"]), ev.get("qpn"), ev.get("psn")))

    def fn(ctx, f, item):
        k = (int(item["at"]), ctx.local_qp_of(f), f.get("bth", "psn"))
        if f.get("bth", "rtx") and k in timed:
            f.set("bth", "rtx", 0)

    return each_frame(ctx, outs, ("data",), fn, "rtx-timeout-bit-clear")


# ---- segmentation --------------------------------------------------------------------------

m = fault("seg-exact-pmtu-last-as-middle",
          "The last-packet test compares the bytes left with > PMTU instead of >= : when a "
          "message's length is an exact multiple of the PMTU its last packet is labelled "
          "MIDDLE (and a one-packet message FIRST).",
          ["SND-SEG-002", "OPC-MRC-001", "SND-ACKREQ-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if len(f.payload) != ctx.pmtu():
        return
    if f.opcode == roce.MRC_WRITE_LAST:
        f.set("bth", "opcode", roce.MRC_WRITE_MIDDLE)
    elif f.opcode == roce.MRC_WRITE_ONLY:
        f.set("bth", "opcode", roce.MRC_WRITE_FIRST)


m = fault("imm-first-packet-only",
          "The immediate is latched for the message's first packet: in a Write with "
          "Immediate of several packets the last packet leaves as a plain LAST, without "
          "ImmDt.",
          ["SND-SEG-004", "SND-SEG-002", "OPC-MRC-001", "WR-EXEC-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.opcode != roce.MRC_WRITE_LAST_IMM:
        return
    at = f.off["immdt"]
    del f.b[at:at + 4]
    f.b[f.off["bth"]] = roce.MRC_WRITE_LAST
    f._fix_lengths(f.ip_end - 4)
    f.parse()


# ---- probes and paths ----------------------------------------------------------------------

m = fault("probe-consumes-psn",
          "The probe builder takes its PSN from the data path's counter and advances it: "
          "every probe consumes a PSN, so the data packets after it skip one.",
          ["EV-PROBE-005", "SND-PSN-001", "PETH-PSN-001"])


@out_frames(m, ("data", "probe"))
def _(ctx, f, item):
    st = per_qp(ctx, "probe-consumes-psn")
    qp = f.get("bth", "dest_qp")
    q = st.setdefault(qp, [])
    psn = f.get("bth", "psn")
    if kind(f) == "probe":
        q.append(psn)
        return
    k = sum(1 for p in q if ((psn - p) & U24) < 0x800000)
    if k:
        f.set("bth", "psn", (psn + k) & U24)


m = fault("spray-rr-skips-last",
          "The round-robin cursor wraps at n - 1 instead of n: the last primary EV of the "
          "profile is never used, its turn going to the first.",
          ["SND-SPRAY-001", "SND-PATH-001"])


# The cursor is one stage of the EV choice: the filters after it still apply, so the first
# EV takes the last one's turn only while the device holds it GOOD and, for a
# retransmission, it is not the EV the PSN last left on (SND-RTX-002). A retransmission is
# not the cursor's: where the inner device avoided the last EV, believing the PSN left on
# it, the device avoids the first, where it did. A Retransmitted report names the EV the
# device really used.
@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("spray-rr-skips-last", {"states": {}, "last": {}, "moved": set()})
    same = lambda a, b: a is not None and b is not None and a >> 16 == b >> 16
    for item in outs:
        ev = report_of(item, "ev_state")
        if ev is not None:
            st["states"][(ev.get("qpn"), ev.get("ev"))] = ev.get("state")
            continue
        ev = report_of(item, "retransmitted")
        if ev is not None:
            evs = list((ctx.qps.get(ev.get("qpn")) or {}).get("evs") or [])
            moved = (ev.get("qpn"), ev.get("psn")) in st["moved"]
            if evs and moved and ev.get("lost_ev") == evs[-1]:
                ev["lost_ev"] = evs[0]
                ctx.mutated("spray-rr-skips-last")
            continue
        f = frame_of(item)
        if f is None or kind(f) != "data":
            continue
        qp = ctx.local_qp_of(f)
        c = ctx.qps.get(qp) or {}
        evs = list(c.get("evs") or [])
        key = (qp, f.get("bth", "psn"))
        prev = st["last"].get(key)
        last = f.ev() == evs[-1] or (not f.has("ipv6") and same(f.ev(), evs[-1])) \
            if evs else False
        ok = st["states"].get((qp, evs[0]) if evs else None, "GOOD") == "GOOD" and \
            not (f.get("bth", "rtx") and same(prev, evs[0]))
        if c.get("spray") == "round-robin" and len(evs) >= 3 and last and ok:
            each_frame(ctx, [item], ("data",), lambda c_, g, i_: g.set_ev(evs[0]),
                       "spray-rr-skips-last")
            f = frame_of(item)
            st["moved"].add(key)
        elif f.get("bth", "rtx") and key in st["moved"] and same(prev, f.ev()) and \
                st["states"].get((qp, evs[-1]), "GOOD") == "GOOD":
            # The inner device chose the first EV as not the one the PSN left on; it was.
            each_frame(ctx, [item], ("data",), lambda c_, g, i_: g.set_ev(evs[-1]),
                       "spray-rr-skips-last")
            f = frame_of(item)
        st["last"][key] = f.ev()
    return outs


m = fault("probe-after-qp-error",
          "The probe queue is not flushed by the error state: the last probe the QP sent "
          "is sent once more after the QP failed.",
          ["SND-ERR-001"])


@m.hook("outputs")
def _(ctx, outs):
    st = per_qp(ctx, "probe-after-qp-error")
    res = []
    for item in outs:
        res.append(item)
        f = frame_of(item)
        if f is not None and kind(f) == "probe":
            st[ctx.local_qp_of(f)] = item
            continue
        ev = report_of(item, "qp_error")
        if ev is None or ev.get("qpn") not in st:
            continue
        again = json.loads(json.dumps(st.pop(ev.get("qpn"))))
        p = frame_of(again)
        p.set("peth", "probe_id", (p.get("peth", "probe_id") + 1) & 0xFFFF)
        p.seal()
        put_frame(again, p)
        again["at"] = item["at"]
        res.append(again)
        ctx.mutated("probe-after-qp-error")
    return res


# ---- what the sender reads from the responder (input mutations) --------------------------

m = fault("snd-sack-bitmap-low-word",
          "The sender's SACK bitmap register is 32 bits wide: bits 63:32 of sack_bitmap "
          "are read as 0.",
          ["SND-SACK-002", "SND-INFER-001", "SND-INFER-002", "SND-RTX-004", "SND-RTX-003",
           "SND-TAIL-003", "REC-IF-008"])


@in_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "sack_bitmap", f.get("seth", "sack_bitmap") & 0xFFFFFFFF)


m = fault("snd-probe-answer-pr-ignored",
          "The sender does not decode SETH pr: a probe answer is taken as a plain SACK, so "
          "its mark is applied as a SACK's and no probe is answered.",
          ["EV-PROBE-002", "EV-PROBE-003", "REC-IF-007", "SND-TAIL-003", "REC-IF-016",
           "SND-PATH-001", "REC-IF-005"])


@in_frames(m, ("probe-answer",))
def _(ctx, f, item):
    f.set("seth", "pr", 0)


m = fault("snd-entropy-16bit",
          "The sender's EV lookup for SACKs and probe answers uses the low 16 bits of SETH "
          "entropy: marks and answers reach the wrong EV, or none.",
          ["EV-SKIP-001", "EV-BAD-001", "EV-PROBE-002", "EV-PROBE-003", "REC-IF-005",
           "REC-IF-016", "REC-IF-007", "SND-PATH-001"])


@in_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    if f.get("seth", "m") or f.get("seth", "pr"):
        f.set("seth", "entropy", f.get("seth", "entropy") & 0xFFFF)


m = fault("snd-nack-psn-16bit",
          "The sender reads NETH nack_psn into a 16-bit register: a NACK of a PSN above "
          "0xFFFF names another PSN.",
          ["SND-NACK-001", "SND-NACK-002", "SND-NACK-004", "REC-IF-004", "EV-SKIP-001"])


@in_frames(m, ("nack",))
def _(ctx, f, item):
    f.set("neth", "nack_psn", f.get("neth", "nack_psn") & 0xFFFF)


m = fault("snd-lasthop-trim-fatal",
          "The NACK reason decoder knows TRIMMED (0x01) but not TRIMMED_LASTHOP (0x02), "
          "which falls to the fatal branch: a last-hop trim ends the QP.",
          ["SND-NACK-002", "SND-NACK-005", "REC-IF-004", "REC-IF-009", "EV-SKIP-001"])


@in_frames(m, ("nack",))
def _(ctx, f, item):
    if f.get("neth", "reason") == 0x02:
        f.set("neth", "reason", 0x19)


m = fault("snd-stale-nack-clamped",
          "The NACK PSN comparator clamps a PSN behind snd_una to snd_una: a stale NACK is "
          "acted on as a NACK of the oldest outstanding PSN.",
          ["SND-NACK-001", "SND-NACK-002", "SND-NACK-004", "REC-IF-004", "EV-SKIP-001"])


@in_frames(m, ("nack",))
def _(ctx, f, item):
    st = ctx.state.get("snd-stale-nack-clamped:una", {})
    qp = f.get("bth", "dest_qp")
    una = st.get(qp)
    p = f.get("neth", "nack_psn")
    if una is None or f.get("neth", "reason") == 0x19:
        return
    if 0 < ((una - p) & U24) < 0x800000 and (qp, una) in ctx.tx:
        f.set("neth", "nack_psn", una)


@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("snd-stale-nack-clamped:una", {})
    for item in outs:
        ev = report_of(item, "progress")
        if ev is not None and int(ev.get("outstanding", 0)) > 0:
            st[ev.get("qpn")] = ev.get("snd_una")
    return outs


m = fault("snd-ack-msn-ahead",
          "The ACK comparator reads AETH msn one ahead: an ACK also completes the message "
          "after the one it names, when all its packets have been sent.",
          ["SND-ACK-001", "SND-ACK-005", "SND-ACK-002", "CQE-SEND-001", "FLAG-SEND-001",
           "FLAG-SEND-002", "RET-SEND-001"])


@in_frames(m, ("ack",))
def _(ctx, f, item):
    v = f.get("aeth", "msn")
    f.set("aeth", "msn", (v & 0xFF0000) | ((v + 1) & 0xFFFF))


# ---- the timestamp clock's rate (SND-TS-003) -----------------------------------------------

m = fault("probe-ts-last-data",
          "Probes are stamped with the TSETH timestamp of the QP's last data packet, a latch "
          "the data path fills, instead of a reading of the clock as the probe leaves.",
          ["SND-TS-003", "EV-PROBE-005"])


@out_frames(m, ("data", "probe"))
def _(ctx, f, item):
    st = per_qp(ctx, "probe-ts-last-data")
    qp = f.get("bth", "dest_qp")
    if kind(f) == "data":
        if f.has("tseth"):
            st[qp] = f.get("tseth", "tx_timestamp")
        return False
    if qp in st:
        f.set("peth", "tx_timestamp", st[qp])


# ==========================================================================================
# The sixth reading: freedoms in combination, with two QPs, at their edges, and the SHOULDs
# and MAYs of the wire format one by one.
# ==========================================================================================

def combined(name, text, parts, allows=()):
    """A variant made of the choices of the variants `parts`, each hook kind run in the
    order of `parts`: in `dma-split-64-late` a write is cut before it is delayed, in
    `stamp-then-late` a packet is stamped before it is delayed. A part that changes the
    hello is not combined, since hello hooks do not chain."""
    v = variant(name, text, allows)
    for part in parts:
        p = __import__("mods").VARIANTS[part]
        if "hello" in p.hooks:
            raise ValueError("%s: %s changes the hello" % (name, part))
        v.caps_removed = tuple(v.caps_removed) + tuple(p.caps_removed)
        v.allows = tuple(v.allows) + tuple(p.allows)
        for which, fn in p.hooks.items():
            v.hook(which)(fn)
    return v


combined("dma-split-64-late",
         "Its DMA engine cuts payload writes at 64-byte boundaries, and every output (frames, "
         "writes, completions, flags, reports) becomes visible half of late_ns later: a "
         "PCIe bus of small payloads behind the slowest pipeline the tolerance allows.",
         ["dma-split-64", "latency-half-tolerance"])

combined("sack-every-write-ack-later",
         "It sends a SACK for every write it accepts, and its ACK engine sends every "
         "transport ACK a second time half of late_ns after the first (CONF-CMP-007.b, "
         "CONF-CMP-037).",
         ["sack-every-write", "ack-repeat-later"])

combined("own-seed-late-data",
         "Its random number generator is seeded apart from the reference's, and its send "
         "engine adds half of late_ns to every data packet and probe, retransmissions "
         "included, and to the sender flags and completions that wait for them.",
         ["own-seed", "latency-data-only"])

combined("latency-half-ts-64ns",
         "Every output becomes visible half of late_ns later, and its timestamp clock counts "
         "64 ns units from its own epoch, read as each data packet and probe leaves.",
         ["latency-half-tolerance", "timestamp-64ns"])

combined("cqe-minimal-late",
         "A completion engine without a clock that gives only the 32 bytes of each entry, "
         "behind a host bus that adds half of late_ns to every write, flag and entry "
         "(CQE-TS-001.b, CONF-ADP-017).",
         ["cqe-bytes-only", "cqe-no-clock", "latency-memory-only"])


def _output_group(ctx, item, of_qp):
    """The group of QPs (least QPN, as host_groups gives it) an output belongs to, or None:
    a frame by the device's QP that sends it, a host write by its QP or queue, a report by
    its QP."""
    f = frame_of(item)
    if f is not None:
        return of_qp.get(ctx.local_qp_of(f))
    ev = event_of(item)
    if ev is None:
        return None
    if ev.get("event") in ("dma_write", "flag_write", "completion"):
        return host_group_of(ctx, ev)
    if ev.get("event") == "report":
        return of_qp.get(ev.get("qpn"))
    return None


def groups_all_late(why, parity):
    """Every output of the QPs of groups whose least QPN has `parity` becomes visible half
    of late_ns later, when the scenario has groups of both parities."""

    def hook(ctx, outs):
        of_qp, _ = host_groups(ctx)
        if len({g & 1 for g in of_qp.values()}) < 2:
            return outs
        for item in outs:
            g = _output_group(ctx, item, of_qp)
            if g is not None and g & 1 == parity:
                delay(ctx, item, ctx.late_ns // 2, why)
        return outs

    return hook


for _parity, _name in ((1, "odd"), (0, "even")):
    v = variant("%s-groups-all-late" % _name,
                "Each group of QPs that a rule ties together (a retirement domain, a "
                "completion queue) runs in a pipeline of its own, and the pipelines of %s "
                "groups are slower: every output of their QPs (frames, writes, completions, "
                "flags, reports) becomes visible half of late_ns later, the other QPs' on "
                "time." % _name)
    note_error_cq(v)
    v.hook("outputs")(groups_all_late("%s-groups-all-late" % _name, _parity))


v = variant("qp-reversed-all",
            "One arbiter for every output serves groups of QPs from the highest QP down: of "
            "the outputs made at one instant (frames, writes, completions, flags, reports), "
            "those of independent groups leave highest group first, each group's in their "
            "order.")
note_error_cq(v)


@v.hook("outputs")
def _(ctx, outs):
    of_qp, _ = host_groups(ctx)
    res = []
    for group in instants(outs):
        keys = [_output_group(ctx, o, of_qp) for o in group]
        slots = [i for i, k in enumerate(keys) if k is not None]
        if len(slots) < len(group):
            res.extend(group)
            continue
        order = sorted(slots, key=lambda i: -keys[i])
        new = [group[i] for i in order]
        if new != group:
            ctx.mutated("qp-reversed-all")
        res.extend(new)
    return res


v = variant("sack-marking-holes",
            "Its responder has a marking policy of its own and claims sack-marking: a SACK "
            "that reports PSNs received behind a hole asks the requester to skip the EV once "
            "(m SKIP_ONCE) and carries the number of such PSNs, up to 127, as its window "
            "penalty (RCV-SACK-006.b).")


@v.hook("hello")
def _(caps):
    return list(caps) + ([] if "sack-marking" in caps else ["sack-marking"])


@out_frames(v, ("sack", "probe-answer"))
def _(ctx, f, item):
    ooo = f.get("cc_state", "ooo_count")
    if ooo:
        f.set("seth", "m", 1)
        f.set("cc_state", "rcv_cwnd_pen", min(ooo, 127))


v = variant("encodings-all",
            "Every free encoding choice at once: IPv4 TTL and IPv6 hop limit 64 (the least "
            "ENC-HOP-001.c allows), DSCP 34 with ECT(1) on writes, an IPv4 identification "
            "from a 16-bit LFSR, dont_frag 0, the UDP checksum computed over IPv4, tags with "
            "TPID 0x88A8 and priority 5, and Ethernet padding to a multiple of 8 bytes with "
            "0x55.",
            allows=("ENC-IPV4-007", "ENC-VLAN-002.b"))


def _(ctx, f, item):
    if f.has("ipv4"):
        f.set("ipv4", "ttl", 64)
        f.set("ipv4", "dscp", 34)
        if kind(f) == "data" and f.get("ipv4", "ecn") == 2:
            f.set("ipv4", "ecn", 1)
        n = ctx.state.get("encodings-all:lfsr", 0xBEEF)
        n = (n >> 1) ^ (0xB400 if n & 1 else 0)
        ctx.state["encodings-all:lfsr"] = n
        f.set("ipv4", "ident", n)
        f.set("ipv4", "dont_frag", 0)
    else:
        f.set("ipv6", "hop_limit", 64)
        tc = f.get("ipv6", "traffic_class")
        if kind(f) == "data" and tc & 3 == 2:
            tc = (tc & ~3) | 1
        f.set("ipv6", "traffic_class", (34 << 2) | (tc & 3))
    if f.has("vlan"):
        f.set("vlan", "pcp", 5)
        f.set("eth", "ethertype", 0x88A8)
    f.seal(udp_checksum=True if f.has("ipv4") else None)
    n = (len(f.b) + 7) // 8 * 8 - len(f.b)
    f.b.extend(b"\x55" * n)
    return False


all_frames(v, "encodings-all", _)


v = variant("eth-pad-ones",
            "Its MAC pads every frame to a multiple of 16 bytes after the IP packet with 0xFF "
            "bytes: ENC-LEN-003 makes padding the receiver's to ignore and fixes no value.")


def _(ctx, f, item):
    n = (len(f.b) + 15) // 16 * 16 - len(f.b)
    f.b.extend(b"\xff" * n)
    return False


all_frames(v, "eth-pad-ones", _)


v = variant("pay-pad-ones",
            "Its payload aligner fills the pad bytes before the ICRC with 0xFF, the value its "
            "shift register holds (PAY-PAD-002.a is a SHOULD).",
            allows=("PAY-PAD-002.a",))


@out_frames(v, ("data",))
def _(ctx, f, item):
    if f.pad_off < f.icrc_off:
        f.b[f.pad_off:f.icrc_off] = b"\xff" * (f.icrc_off - f.pad_off)


v = variant("nack-vendor-info",
            "Its NACK engine documents a vendor_info of its own: the internal cause of the "
            "NACK, 0x80 plus the reason (NETH-VENDOR-001.a).",
            allows=("NETH-VENDOR-001.a",))


@out_frames(v, ("nack",))
def _(ctx, f, item):
    f.set("neth", "vendor_info", 0x80 | (f.get("neth", "reason") & 0x7F))


v = variant("ack-psn-zero",
            "Its ACK engine sends BTH psn 0 in every transport ACK and NAK, whose PSN no "
            "receiver reads (OPC-PSN-002.b is a SHOULD, OPC-PSN-002.d).",
            allows=("OPC-PSN-002.b",))


@out_frames(v, ("ack", "nak"))
def _(ctx, f, item):
    f.set("bth", "psn", 0)


v = variant("ersp-vendor-data",
            "Its endpoint responder fills the EETH data with a diagnostic record of its own "
            "(the request ID and port status, repeated) and echoes the request ID's low 24 "
            "bits as BTH psn (EETH-DATA-001.a, OPC-PSN-002.c are SHOULDs).",
            allows=("EETH-DATA-001.a", "OPC-PSN-002.c"))


@out_frames(v, ("ersp",))
def _(ctx, f, item):
    rid = f.get("eeth", "request_id")
    rec = struct.pack(">II", rid, f.get("eeth", "port_status") & 0xFFFFFFFF)
    f.set("eeth", "data", int.from_bytes(rec * 3, "big"))
    f.set("bth", "psn", rid & U24)


def _ev_rotation(ctx, qpn, inverse=False):
    """The EV permutation of QP `qpn` (a local QPN): each EV of its primary list goes to the
    next one, and each backup EV to the next backup, so that a primary stays a primary."""
    c = ctx.qps.get(qpn) or {}
    perm = {}
    for evs in (list(c.get("evs") or []), list(c.get("backup_evs") or [])):
        for i, e in enumerate(evs):
            a, b = e, evs[(i + 1) % len(evs)]
            perm[b if inverse else a] = a if inverse else b
    return perm


v = variant("spray-own-rotation",
            "A device without spray-policies whose EV table is filled one entry on: where the "
            "reference's policy gives the k-th EV of a QP's primary (or backup) list, it "
            "sends on the (k+1)-th, and it keeps every EV's state, reports and commands by "
            "the EVs it uses, so that it sprays another permutation of the usable pool "
            "(CONF-CMP-027).")
v.caps_removed = ("spray-policies",)


def own_spray(v, perm):
    """Registers on variant `v` the hooks of a device that sprays its own permutation of each
    QP's EVs: `perm(ctx, qpn, inverse)` maps the reference's EV to the device's (or back,
    with `inverse`). The CPU half's commands and the answers that name an EV are mapped
    back; reports and frames that name one are mapped to the device's."""

    @v.hook("inputs")
    def _(ctx, ins, v=v):
        for item in ins:
            body = item.get("input") or {}
            c = body.get("command") or {}
            if body.get("kind") == "cpu" and c.get("cmd") in ("probe", "set_ev_state"):
                new = perm(ctx, c.get("qpn"), True).get(c.get("ev"), c.get("ev"))
                if new != c.get("ev"):
                    c["ev"] = new
                    ctx.mutated(v.name)

        def back(ctx, f, item):
            h = "neth" if f.has("neth") else "seth"
            inv = perm(ctx, f.get("bth", "dest_qp"), True)
            e = f.get(h, "entropy")
            f.set(h, "entropy", inv.get(e, e))

        return each_frame(ctx, ins, ("sack", "probe-answer", "nack"), back, v.name)

    @v.hook("outputs")
    def _(ctx, outs, v=v):
        for item in outs:
            ev = event_of(item)
            if ev is None or ev.get("event") != "report":
                continue
            if ev.get("report") not in ("ev_marked", "ev_state", "probe_answered",
                                        "retransmitted"):
                continue
            p = perm(ctx, ev.get("qpn"), False)
            for k in ("ev", "lost_ev"):
                if ev.get(k) is not None and p.get(ev[k], ev[k]) != ev[k]:
                    ev[k] = p[ev[k]]
                    ctx.mutated(v.name)

        def out(ctx, f, item):
            p = perm(ctx, ctx.local_qp_of(f), False)
            f.set_ev(p.get(f.ev(), f.ev()))

        return each_frame(ctx, outs, ("data", "probe"), out, v.name)


own_spray(v, _ev_rotation)


combined("spray-own-rotation-late",
         "Its EV table is filled one entry on (spray-own-rotation), and every output becomes "
         "visible half of late_ns later: another permutation of the usable pool, with every "
         "retransmission as late as the tolerance allows.",
         ["spray-own-rotation", "latency-half-tolerance"])

combined("dma-split-dwords-late",
         "DMA writes are cut into 4-byte pieces, and every output becomes visible half of "
         "late_ns later: the most outputs CONF-CMP-044 allows, at the greatest latency.",
         ["dma-split-dwords", "latency-half-tolerance"])


def _own_group_is_odd(ctx, qpn, of_qp):
    """Whether every QP of the host group of `qpn` (a retirement domain, a completion queue)
    is odd, so that its sender flags and entries can be late without passing an even QP's."""
    g = of_qp.get(qpn)
    return g is not None and all(q & 1 for q, h in of_qp.items() if h == g)


v = variant("odd-qps-frames-late",
            "Its transmit path has a second, slower queue for odd QPs: the SACKs, NACKs and "
            "ACKs of an odd QP leave half of late_ns later, and so do its data packets and "
            "probes, with the sender flags and completions that wait for them "
            "(ORD-SEND-002), where no even QP shares its queue or domain; its receive "
            "writes and reports are on time.")
note_error_cq(v)


@v.hook("outputs")
def _(ctx, outs):
    of_qp, _ = host_groups(ctx)
    for item in outs:
        f, ev = frame_of(item), event_of(item)
        if f is not None:
            qp = ctx.local_qp_of(f)
            if qp is None or not qp & 1:
                continue
            if kind(f) in ("data", "probe") and not _own_group_is_odd(ctx, qp, of_qp):
                continue
            delay(ctx, item, ctx.late_ns // 2, "odd-qps-frames-late")
        elif _is_sender_note(item):
            if ev.get("event") == "flag_write":
                qp = ev.get("qpn")
            else:
                qp = completion_entry(ev).get("qpn")
            if qp is not None and qp & 1 and _own_group_is_odd(ctx, qp, of_qp):
                delay(ctx, item, ctx.late_ns // 2, "odd-qps-frames-late")
    return outs


v = variant("ecn-writes-not-ect",
            "Its IP encoder marks no frame ECN-capable, its writes included: it leaves the "
            "network no way to mark congestion (ENC-ECN-001 is a SHOULD).",
            allows=("ENC-ECN-001",))


@out_frames(v, ("data",))
def _(ctx, f, item):
    if f.has("ipv4"):
        f.set("ipv4", "ecn", 0)
    else:
        f.set("ipv6", "traffic_class", f.get("ipv6", "traffic_class") & ~3)


v = variant("nack-res-type-uet",
            "Its NETH encoder, shared with a UET design, writes that design's res_type 1 and "
            "next_header 2 in every NACK (NETH-TYPE-001.a is a SHOULD; no receiver reads "
            "them).",
            allows=("NETH-TYPE-001.a",))


@out_frames(v, ("nack",))
def _(ctx, f, item):
    f.set("neth", "res_type", 1)
    f.set("neth", "next_header", 2)


combined("stamp-then-late",
         "Its send engine reads its 1 ns timestamp clock when it builds a data packet or "
         "probe, and the packet, like each sender flag and completion that waits for it, "
         "leaves half of late_ns later: every stamp is read at the earliest SND-TS-003.b "
         "allows.",
         ["timestamp-1ns", "latency-data-only"])

combined("stamp-early-64ns-late",
         "Its 64 ns timestamp clock is read when a packet is built, and every output "
         "becomes visible half of late_ns later: stamps read at the earliest SND-TS-003.b "
         "allows, in a coarse unit, along every round trip of a scenario.",
         ["timestamp-64ns", "latency-half-tolerance"])


v = variant("jitter-half-tolerance",
            "Every output becomes visible between 0 and half of late_ns later, by a "
            "pseudo-random draw, never before an output the device made earlier: a "
            "pipeline whose latency varies over the whole range CONF-TIME-004 allows.")
v.hooks["outputs"] = jitter("jitter-half-tolerance", lambda ctx: ctx.late_ns // 2)


v = variant("bth-migreq-set",
            "Its BTH encoder, taken from an RC design in the migrated state, sets mig_req to "
            "1 in every frame, as many RoCE NICs do: no rule of MRC gives the bit a value.")


@out_frames(v, "*")
def _(ctx, f, item):
    f.set("bth", "mig_req", 1)


v = variant("vlan-dei-probes",
            "Tagged probes, probe answers, SACKs and transport ACKs carry the drop eligible "
            "indicator (DEI 1): a later one repeats what a lost one said, and no rule fixes "
            "the bit.")


@out_frames(v, ("probe", "sack", "probe-answer", "ack"))
def _(ctx, f, item):
    if f.has("vlan"):
        f.set("vlan", "dei", 1)


v = variant("dma-zero-length-flush",
            "Before each retirement flag its DMA engine issues a zero-length write at the end "
            "of the message's last payload write, as a PCIe flush that orders the payload "
            "ahead of the flag: a write without payload places nothing (RCV-PLACE-003.b).")


@v.hook("outputs")
def _(ctx, outs):
    import copy
    last = ctx.state.setdefault("dma-zero-length-flush", {})
    res = []
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "dma_write":
            last[by_message(ev)] = item
        elif (ev is not None and ev.get("event") == "flag_write"
              and ev.get("side") == "responder" and by_message(ev) in last):
            c = copy.deepcopy(last.pop(by_message(ev)))
            w = c["output"]["event"]
            w["va"] = int(w["va"]) + len(w["payload"]["bytes"]) // 2
            w["payload"]["bytes"] = ""
            c["at"] = item["at"]
            res.append(c)
            ctx.mutated("dma-zero-length-flush")
        res.append(item)
    return res


# ==========================================================================================
# A sixth reading: the sending side, the paths and the CPU half's recovery again, looking
# for bugs that show only in combination or at an edge: two QPs at one instant, the second
# message of a batch, a retransmission of a retransmission, a command while a probe is
# out, wraps, the last EV of a profile, a window exactly full, counters that saturate.
# ==========================================================================================

def sixth_data_in_order(ctx, outs):
    """The data frames of the outputs, in output order, as (index, item, frame)."""
    res = []
    for i, item in enumerate(outs):
        f = frame_of(item)
        if f is not None and kind(f) == "data":
            res.append((i, item, f))
    return res


def sixth_put(ctx, item, f, why):
    f.seal()
    put_frame(item, f)
    ctx.mutated(why)


# ---- two QPs at one instant -----------------------------------------------------------------

m = fault("data-dest-qp-batch-latched",
          "The header builder loads peer_qpn once per transmit cycle: when two QPs send at "
          "one instant, the second QP's packets carry the first QP's dest_qp.",
          ["SND-QPN-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    first = {}
    for _i, item, f in sixth_data_in_order(ctx, outs):
        at = int(item["at"])
        qp = f.get("bth", "dest_qp")
        if at not in first:
            first[at] = qp
        elif first[at] != qp:
            f.set("bth", "dest_qp", first[at])
            sixth_put(ctx, item, f, m.name)
    return outs


m = fault("report-progress-snd-una-latched",
          "The report builder latches snd_una of the first Progress of a cycle: a second QP's "
          "Progress at the same instant carries the first QP's snd_una.",
          ["REC-IF-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    first = {}
    for item in outs:
        ev = report_of(item, "progress")
        if ev is None:
            continue
        at = int(item["at"])
        if at not in first:
            first[at] = (ev.get("qpn"), ev.get("snd_una"))
        elif first[at][0] != ev.get("qpn") and ev.get("snd_una") != first[at][1]:
            ev["snd_una"] = first[at][1]
            ctx.mutated(m.name)
    return outs


m = fault("cmd-set-ev-state-all-qps",
          "The EV state table is indexed by EV alone, not by QP and EV: a SetEvState for one "
          "QP also sets the EV in every other QP whose profile holds it.",
          ["REC-IF-012", "EV-STATE-003", "REC-IF-016", "SND-PATH-001", "EV-STATE-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    res = []
    for item in ins:
        res.append(item)
        body = item.get("input") or {}
        c = body.get("command") or {}
        if body.get("kind") != "cpu" or c.get("cmd") != "set_ev_state":
            continue
        for q in sorted(ctx.qps):
            if q != c.get("qpn") and c.get("ev") in profile(ctx, q):
                again = json.loads(json.dumps(item))
                again["input"]["command"]["qpn"] = q
                res.append(again)
                ctx.mutated(m.name)
    return res


# ---- the second message of a batch ------------------------------------------------------

m = fault("reth-va-continues-next-message",
          "The remote-address counter is reloaded only when the send engine goes idle: a "
          "message sent right behind another starts at the previous message's end instead of "
          "its own remote_va.",
          ["SND-SEG-003", "RETH-VA-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = per_qp(ctx, "reth-va-continues-next-message")
    for _i, item, f in sixth_data_in_order(ctx, outs):
        qp = f.get("bth", "dest_qp")
        psn = f.get("bth", "psn")
        q = st.setdefault(qp, {"va": {}, "end": None, "at": None, "msn": None, "shift": 0})
        at = int(item["at"])
        if f.get("bth", "rtx"):
            if (psn) in q["va"] and q["va"][psn] != f.get("reth", "va"):
                f.set("reth", "va", q["va"][psn])
                sixth_put(ctx, item, f, m.name)
            continue
        msn = f.get("meth", "msn")
        va = f.get("reth", "va")
        if msn != q["msn"]:
            busy = q["at"] is not None and at == q["at"] and q["end"] is not None
            q["shift"] = ((q["end"] - va) if busy and is_first(f) else 0)
            q["msn"] = msn
        new = (va + q["shift"]) & 0xFFFFFFFFFFFFFFFF
        q["va"][psn] = new
        q["end"] = (va + len(f.payload) + q["shift"]) & 0xFFFFFFFFFFFFFFFF
        q["at"] = at
        if new != va:
            f.set("reth", "va", new)
            sixth_put(ctx, item, f, m.name)
    return outs


m = fault("ackreq-last-of-batch-only",
          "The last-packet AckReq is set only on the last packet of a doorbell batch: of two "
          "messages sent back to back, the first one's last packet leaves without AckReq "
          "(unless its PSN is a multiple of ack_req_every).",
          ["SND-ACKREQ-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    every = int(ctx.nic.get("ack_req_every", 0) or 0)
    data = sixth_data_in_order(ctx, outs)
    for n, (_i, item, f) in enumerate(data):
        if f.get("bth", "rtx") or not is_last(f) or n + 1 >= len(data):
            continue
        _j, nitem, nf = data[n + 1]
        if (int(nitem["at"]) != int(item["at"]) or nf.get("bth", "rtx")
                or nf.get("bth", "dest_qp") != f.get("bth", "dest_qp")):
            continue
        psn = f.get("bth", "psn")
        if every and psn % every == 0:
            continue
        if f.get("bth", "ack_req"):
            f.set("bth", "ack_req", 0)
            sixth_put(ctx, item, f, m.name)
    return outs


# ---- a retransmission of a retransmission ---------------------------------------------------

m = fault("rtx-bit-toggled",
          "The retransmission path toggles BTH rtx instead of setting it: a retransmission of a "
          "retransmission leaves with rtx 0.",
          ["BTH-RTX-001", "SND-RTX-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = per_qp(ctx, "rtx-bit-toggled")
    for _i, item, f in sixth_data_in_order(ctx, outs):
        if not f.get("bth", "rtx"):
            continue
        k = (f.get("bth", "dest_qp"), f.get("bth", "psn"))
        st[k] = st.get(k, 0) + 1
        if st[k] % 2 == 0:
            f.set("bth", "rtx", 0)
            sixth_put(ctx, item, f, m.name)
    return outs


m = fault("rtx-avoids-first-ev",
          "The EV a retransmission avoids is the PSN's first transmission's, kept in the PSN "
          "table, not its latest: a second retransmission may go back on the EV of the first.",
          ["SND-RTX-002", "SND-PATH-001", "SND-SPRAY-001", "SND-SPRAY-003", "SND-SPRAY-004",
           "SND-SPRAY-005"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = per_qp(ctx, "rtx-avoids-first-ev")
    for _i, item, f in sixth_data_in_order(ctx, outs):
        k = (f.get("bth", "dest_qp"), f.get("bth", "psn"))
        evs = st.setdefault(k, [])
        if f.get("bth", "rtx") and len(evs) >= 2 and evs[-1] != evs[0] and f.ev() != evs[-1]:
            f.set_ev(evs[-1])
            sixth_put(ctx, item, f, m.name)
        evs.append(f.ev())
    return outs


m = fault("report-rtx-lost-ev-first",
          "The Retransmitted report reads lost_ev from the PSN table, which keeps the EV of "
          "the first transmission: a second retransmission blames the first one's path.",
          ["REC-IF-008", "REC-EV-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = per_qp(ctx, "report-rtx-lost-ev-first")
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "data":
            st.setdefault((ctx.local_qp_of(f), f.get("bth", "psn")), f.ev())
            continue
        ev = report_of(item, "retransmitted")
        if ev is None or ev.get("lost_ev") is None:
            continue
        first = st.get((ev.get("qpn"), ev.get("psn")))
        if first is not None and first != ev.get("lost_ev"):
            ev["lost_ev"] = first
            ctx.mutated(m.name)
    return outs


m = fault("report-rtx-nack-no-lost-ev",
          "The Retransmitted report fills lost_ev only for timeouts: a retransmission a NACK "
          "or an inference caused is reported with no lost_ev.",
          ["REC-IF-008"])


@out_events(m, ("report:retransmitted",))
def _(ctx, ev, item):
    if ev.get("cause") in ("nack", "sack_inference") and ev.get("lost_ev") is not None:
        ev["lost_ev"] = None


# ---- a command while a probe is out --------------------------------------------------------

m = fault("cmd-probe-while-outstanding-dropped",
          "The probe engine keeps one probe per EV in flight: a Probe command for an EV whose "
          "last probe has not been answered is dropped.",
          ["REC-IF-011", "EV-PROBE-005"])


@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("sixth:probes-out", set())
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "probe":
            st.add((ctx.local_qp_of(f), f.ev()))
    return outs


@m.hook("inputs")
def _(ctx, ins, m=m):
    st = ctx.state.setdefault("sixth:probes-out", set())
    res = []
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) == "probe-answer" and sound(f):
            st.discard((f.get("bth", "dest_qp"), f.get("seth", "entropy")))
        body = item.get("input") or {}
        c = body.get("command") or {}
        if body.get("kind") == "cpu" and c.get("cmd") == "probe" and \
                (c.get("qpn"), c.get("ev")) in st:
            ctx.mutated(m.name)
            continue
        res.append(item)
    return res


m = fault("cmd-retransmit-behind-probe-lost",
          "A Retransmit command that arrives while the QP has a probe out is overwritten in "
          "the command register by the probe engine and lost.",
          ["REC-IF-010", "REC-RTO-004", "REC-IF-008", "SND-SCHED-001"])


@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("sixth:probe-out-qp", set())
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "probe":
            st.add(ctx.local_qp_of(f))
    return outs


@m.hook("inputs")
def _(ctx, ins, m=m):
    st = ctx.state.setdefault("sixth:probe-out-qp", set())
    res = []
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) == "probe-answer" and sound(f):
            st.discard(f.get("bth", "dest_qp"))
        body = item.get("input") or {}
        c = body.get("command") or {}
        if body.get("kind") == "cpu" and c.get("cmd") == "retransmit" and c.get("qpn") in st:
            ctx.mutated(m.name)
            continue
        res.append(item)
    return res


m = fault("evmarked-on-probe-answer",
          "EvMarked is sent for every SACK with a mark, probe answers included: a probe answer "
          "with m = SKIP_ONCE or ALWAYS_SKIP is also reported as a mark.",
          ["REC-IF-005"])


@m.hook("inputs")
def _(ctx, ins):
    st = ctx.state.setdefault("evmarked-on-probe-answer", [])
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) == "probe-answer" and sound(f) and f.get("seth", "m") in (1, 2):
            qp = ctx.peer_to_local.get(f.get("bth", "dest_qp"), f.get("bth", "dest_qp"))
            qp = f.get("bth", "dest_qp")
            st.append((int(item["at"]), qp, f.get("seth", "entropy"), f.get("seth", "m")))
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault("evmarked-on-probe-answer", [])
    keep, res = [], list(outs)
    names = {1: "SKIP_ONCE", 2: "ALWAYS_SKIP"}
    for at, qp, ev, mark in st:
        if at > ctx.until:
            keep.append((at, qp, ev, mark))
            continue
        answered = [item for item in outs if int(item["at"]) == at and
                    (report_of(item, "probe_answered") or {}).get("ev") == ev]
        if not answered:
            continue
        tmpl = report_of(answered[0], "probe_answered")
        res.insert(res.index(answered[0]), {"at": at, "output": {"kind": "event", "event": {
            "event": "report", "report": "ev_marked", "qpn": tmpl.get("qpn"), "ev": ev,
            "mark": tmpl.get("mark") if tmpl.get("mark") not in (None, "NONE") else names[mark]}}})
        ctx.mutated(m.name)
    st[:] = keep
    return res


# ---- wraps and counters that saturate ------------------------------------------------------

m = fault("tseth-ts-saturates",
          "The timestamp counter saturates at 0xFFFF instead of wrapping modulo 2^16: once it "
          "reaches the top, every data packet and probe of the QP carries 0xFFFF.",
          ["SND-TS-002", "SND-TS-003", "EV-PROBE-005"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = per_qp(ctx, "tseth-ts-saturates")
    for item, f in frames(outs, ("data", "probe")):
        hdr = "tseth" if kind(f) == "data" else "peth"
        if not f.has(hdr):
            continue
        qp = f.get("bth", "dest_qp")
        ts = f.get(hdr, "tx_timestamp")
        q = st.setdefault(qp, {"last": None, "top": False})
        if q["last"] is not None and ts < q["last"] and q["last"] - ts > 0x8000:
            q["top"] = True
        q["last"] = ts
        if q["top"] and ts != 0xFFFF:
            f.set(hdr, "tx_timestamp", 0xFFFF)
            sixth_put(ctx, item, f, m.name)
    return outs


m = fault("report-outstanding-saturating",
          "Progress counts outstanding PSNs as snd_nxt - snd_una with a saturating "
          "subtraction on 24-bit values: across the PSN wrap it reports 0.",
          ["REC-IF-002", "REC-RTO-001"])


@out_events(m, ("report:progress",))
def _(ctx, ev, item):
    una = int(ev.get("snd_una", 0))
    n = int(ev.get("outstanding", 0))
    if n and una + n > U24 + 1:
        ev["outstanding"] = 0


m = fault("meth-msn-15bit",
          "The MSN counter of the send engine is 15 bits wide: METH msn loses bit 15.",
          ["SND-MSN-001", "SND-MSN-002", "METH-MSN-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    f.set("meth", "msn", f.get("meth", "msn") & 0x7FFF)


m = fault("rtx-dropped-behind-wrap",
          "The retransmission queue compares a queued PSN with snd_una as a plain integer: "
          "after the PSN wrap, a PSN numerically below snd_una is taken as acknowledged and "
          "dropped unsent.",
          ["SND-SCHED-003", "SND-RTX-003", "REC-RTO-004", "REC-IF-010", "SND-NACK-002",
           "SND-NACK-004", "REC-IF-008"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    una = ctx.state.setdefault("rtx-dropped-behind-wrap", {})
    gone = set()
    res = []
    for item in outs:
        ev = report_of(item, "progress") or report_of(item, "armed")
        if ev is not None:
            una[ev.get("qpn")] = int(ev.get("snd_una", 0))
        f = frame_of(item)
        if f is not None and kind(f) == "data" and f.get("bth", "rtx"):
            q = ctx.local_qp_of(f)
            p = f.get("bth", "psn")
            u = una.get(q)
            if u is not None and p < u and ((p - u) & U24) < 0x800000:
                gone.add((int(item["at"]), q, p))
                ctx.mutated(m.name)
                continue
        res.append(item)
    return [item for item in res if not (
        report_of(item, "retransmitted") is not None and
        (int(item["at"]), report_of(item, "retransmitted").get("qpn"),
         report_of(item, "retransmitted").get("psn")) in gone)]


# ---- the last EV of a profile --------------------------------------------------------------

m = fault("spray-backup-last-unused",
          "The cursor over the backup EVs wraps at n - 1: the last backup EV of the profile is "
          "never used, its turn going to the first backup.",
          ["SND-SPRAY-001", "SND-PATH-001", "SND-SPRAY-003", "SND-SPRAY-002", "EV-STATE-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    c = ctx.qps.get(ctx.local_qp_of(f)) or {}
    b = list(c.get("backup_evs") or [])
    if len(b) >= 2 and f.ev() == b[-1]:
        f.set_ev(b[0])


m = fault("tail-probe-skips-last-ev",
          "The tail-probe timer scans the profile's EVs 0 to n - 2: no tail probe is ever sent "
          "on the profile's last EV.",
          ["SND-TAIL-001", "EV-PROBE-005", "SND-TAIL-003"])


@m.hook("inputs")
def _(ctx, ins):
    st = ctx.state.setdefault("tail-probe-skips-last-ev", set())
    for item in ins:
        body = item.get("input") or {}
        c = body.get("command") or {}
        if body.get("kind") == "cpu" and c.get("cmd") == "probe":
            st.add((c.get("qpn"), c.get("ev")))
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    cmd = ctx.state.setdefault("tail-probe-skips-last-ev", set())
    res = []
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "probe":
            q = ctx.local_qp_of(f)
            c = ctx.qps.get(q) or {}
            evs = profile(ctx, q)
            if c.get("tail_probe") is not None or ctx.nic.get("tail_probe"):
                if evs and f.ev() == evs[-1] and (q, f.ev()) not in cmd:
                    ctx.mutated(m.name)
                    continue
            cmd.discard((q, f.ev()))
        res.append(item)
    return res


# ---- reports around the error state and the timer ------------------------------------------

m = fault("progress-on-failing-input",
          "Progress is sent for an ACK that completes messages even when the same NAK moves "
          "the QP to the error state.",
          ["REC-IF-002", "REC-IF-019"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    last = ctx.state.setdefault("progress-on-failing-input", {})
    res = []
    for item in outs:
        ev = report_of(item, "progress") or report_of(item, "armed")
        if ev is not None:
            last[ev.get("qpn")] = int(ev.get("snd_una", 0))
        e = report_of(item, "qp_error")
        if e is not None and e.get("requirement") == "SND-ACK-003" and e.get("qpn") in last:
            res.append({"at": item["at"], "output": {"kind": "event", "event": {
                "event": "report", "report": "progress", "qpn": e.get("qpn"),
                "snd_una": last[e.get("qpn")], "outstanding": 0, "awaiting_ack": 0}}})
            ctx.mutated(m.name)
        res.append(item)
    return res


m = fault("armed-once-per-qp",
          "The Armed latch is cleared only when the QP is created: after a Progress that "
          "leaves nothing outstanding, the next first transmission sends no Armed.",
          ["REC-IF-003", "REC-RTO-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = per_qp(ctx, "armed-once-per-qp")
    res = []
    for item in outs:
        ev = report_of(item, "armed")
        if ev is not None:
            if ev.get("qpn") in st:
                ctx.mutated(m.name)
                continue
            st[ev.get("qpn")] = True
        res.append(item)
    return res


m = fault("reports-same-instant-swapped",
          "The report FIFO's two write ports are swapped: of two reports of one QP made at one "
          "instant, the second is delivered first.",
          ["REC-IF-015"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    res = list(outs)
    idx = [i for i, item in enumerate(outs)
           if (event_of(item) or {}).get("event") == "report"]
    done = set()
    for a, b in zip(idx, idx[1:]):
        if a in done or b in done:
            continue
        ea, eb = event_of(outs[a]), event_of(outs[b])
        if (int(outs[a]["at"]) == int(outs[b]["at"]) and ea.get("qpn") == eb.get("qpn")
                and ea.get("report") != eb.get("report")):
            res[a], res[b] = dict(outs[b]), dict(outs[a])
            done.update((a, b))
            ctx.mutated(m.name)
    return res


# ---- what the sender reads from the responder, at the edges --------------------------------

m = fault("snd-stale-sack-discarded",
          "The sender discards a SACK whose cumulative PSN is behind the latest one whole, as a "
          "duplicate, instead of applying its bitmap, mpr and mark.",
          ["SND-SACK-005", "SND-SACK-002", "SND-WIN-002", "EV-SKIP-001", "EV-BAD-001",
           "REC-IF-005", "REC-IF-016", "SND-INFER-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    st = per_qp(ctx, "snd-stale-sack-discarded")
    res = []
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) == "sack" and sound(f):
            qp = f.get("bth", "dest_qp")
            c = f.get("seth", "cack_psn")
            if qp in st and 0 < ((st[qp] - c) & U24) < 0x800000:
                ctx.mutated(m.name)
                continue
            st[qp] = c
        res.append(item)
    return res


m = fault("snd-sack-offset-unsigned",
          "The sender reads SETH sack_offset as unsigned: a bitmap based before the cumulative "
          "PSN seems to lie beyond any window, and the whole SACK is discarded as a violation.",
          ["SND-SACK-004", "SND-SACK-005", "SND-SACK-001", "SND-SACK-002", "SND-WIN-002",
           "REC-IF-002"])


@in_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    if f.get("seth", "sack_offset") < 0:
        f.set("seth", "sack_offset", 0x7FFF)


# ---- a window exactly full ------------------------------------------------------------------

m = fault("window-full-one-short",
          "The window check compares with <= min(W_own, W_peer) - 1 instead of <: the PSN "
          "that fills the window exactly waits for the next acknowledgement.",
          ["SND-WIN-001", "SND-WIN-002", "SND-SCHED-001", "SND-WIN-003"])


@m.hook("inputs")
def _(ctx, ins):
    st = ctx.state.setdefault("window-full-one-short", {"acks": {}, "wpeer": {}})
    for item, f in frames(ins, ("sack", "ack", "nack"), only_sound=True):
        qp = f.get("bth", "dest_qp")
        st["acks"].setdefault(qp, []).append(int(item["at"]))
        if kind(f) == "sack" and f.get("seth", "mpr"):
            st["wpeer"][qp] = f.get("seth", "mpr") * 128
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault("window-full-one-short", {"acks": {}, "wpeer": {}})
    una = st.setdefault("una", {})
    held = st.setdefault("held", {})
    own = ctx.mpr() * 128
    res = []
    for item in outs:
        ev = report_of(item, "progress") or report_of(item, "armed")
        if ev is not None:
            una[ev.get("qpn")] = int(ev.get("snd_una", 0))
        f = frame_of(item)
        if f is None or kind(f) != "data" or f.get("bth", "rtx"):
            res.append(item)
            continue
        q = ctx.local_qp_of(f)
        at = int(item["at"])
        if q in held:
            held[q]["items"].append(item)
            continue
        w = min(own, st["wpeer"].get(q, own))
        if q in una and ((f.get("bth", "psn") - una[q]) & U24) == w - 1:
            held[q] = {"at": at, "items": [item]}
            ctx.mutated(m.name)
            continue
        res.append(item)
    for q in list(held):
        h = held[q]
        later = [t for t in st["acks"].get(q, []) if h["at"] < t <= ctx.until]
        if not later:
            continue
        t = min(later)
        for item in h["items"]:
            res.append(dict(item, at=max(int(item["at"]), t)))
        del held[q]
    res.sort(key=lambda o: int(o["at"]))
    return res


# ==========================================================================================
# A sixth reading: the host side at its edges and in combination (host-interface.md,
# completion.md), as the team writing the doorbell decoder, the template expander and the
# completion engine would get it wrong when two things happen at once or a field is at its
# limit: two tokens in one cycle, a change between two tokens of one instant, the last slot
# of a ring, a byte counter at a PMTU multiple or at 0, a flag written for a failure, fields
# latched from the other QP of a pair.
# ==========================================================================================

def host_commands(ins):
    """The host commands of a batch, with their items, in order."""
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if (item.get("input") or {}).get("kind") == "host" and c.get("command"):
            yield item, c


class TokenBook:
    """What a correct NIC holds of the templates: each installed template and its expected
    seq (host-interface section 2.3 and 3.3), kept from the commands the device is given."""

    def __init__(self, start_seq=None):
        self.tpl = {}
        self.expected = {}
        # The expected seq an installation sets: 0, or the scenario's start state.
        self.start_seq = start_seq or {}

    def command(self, c):
        """Follows a template command; returns the token's verdict for a token, else None."""
        if c.get("command") == "set_template" and template_valid(c):
            i = c.get("template_id")
            old = self.tpl.get(i)
            if old is None or dict(old, enabled=c.get("enabled")) != c:
                self.expected[i] = self.start_seq.get(i, 0)
            self.tpl[i] = dict(c)
        elif c.get("command") == "deregister_local":
            for t in self.tpl.values():
                if t.get("local_lkey") == c.get("lkey"):
                    t["enabled"] = False
        return None

    def verdict(self, t):
        i = t >> 48 & 0xFFF
        return token_verdict(self.tpl.get(i), self.expected.get(i, 0), t)

    def accept(self, t):
        i = t >> 48 & 0xFFF
        self.expected[i] = (self.expected.get(i, 0) + 1) & 0xFFFF


def token_book(ctx, m):
    return ctx.state.setdefault(m.name + ":book", TokenBook(getattr(ctx, "start_seq", None)))


def restore_wr_ids(m):
    """Completions carry the token the producer stored as wr_id, whatever the device was
    given; sender flags carry its seq. `swaps` maps what the device was given back."""

    @m.hook("outputs")
    def _(ctx, outs):
        swaps = ctx.state.get(m.name + ":swaps", {})
        gens = ctx.state.get(m.name + ":gens", {})
        for item in outs:
            ev = event_of(item)
            if ev is None or ev.get("side") == "responder":
                continue
            if ev.get("event") == "completion":
                e = completion_entry(ev)
                if int(e.get("wr_id", 0)) in swaps and not e.get("is_receive"):
                    e["wr_id"] = swaps[int(e["wr_id"])]
                    set_completion_entry(ev, e)
            elif ev.get("event") == "flag_write":
                d = flag_fields(int(ev["value"]))
                g = gens.get((ev.get("qpn"), d["generation"]))
                if g is not None and g != d["generation"]:
                    d["generation"] = g
                    ev["value"] = flag_value(d)
        return outs


def token_faults(m, fn, on_command=None):
    """A bug of the doorbell decoder that depends on the NIC's state or on the tokens of the
    same instant: `fn(ctx, book, t, at, seen)` gives the token the device acts on (None: t),
    `seen` listing the tokens already given at this instant as (token, verdict), and each
    template change among them as (None, template ID).
    `on_command(ctx, c)` sees every host command, in order, before the book does."""

    @m.hook("inputs")
    def _(ctx, ins):
        book = token_book(ctx, m)
        swaps = ctx.state.setdefault(m.name + ":swaps", {})
        gens = ctx.state.setdefault(m.name + ":gens", {})
        seen = {}
        for item, c in host_commands(ins):
            if on_command is not None:
                on_command(ctx, c)
            book.command(c)
            at = int(item.get("at", 0))
            if c.get("command") == "set_template":
                seen.setdefault(at, []).append((None, c.get("template_id")))
            t = token_of(c)
            if t is None:
                continue
            n = fn(ctx, book, t, at, seen.setdefault(at, []))
            if n is not None and n != t:
                set_token(c, n)
                swaps[n] = t
                tpl = book.tpl.get(n >> 48 & 0xFFF) or {}
                gens[(tpl.get("qpn"), n >> 32 & 0xFFFF)] = t >> 32 & 0xFFFF
                ctx.mutated(m.name)
            else:
                n = t
            v = book.verdict(n)
            if v == 0:
                book.accept(n)
            seen[at].append((t, v))
        return ins

    restore_wr_ids(m)


def with_template(t, i):
    return (t & ~(0xFFF << 48)) | (i & 0xFFF) << 48


def with_seq(t, s):
    return (t & ~(0xFFFF << 32)) | (s & 0xFFFF) << 32


def with_index(t, i):
    return (t & ~(0xFFFF << 16)) | (i & 0xFFFF) << 16


# ---- doorbells: two tokens at once, and fields at their limits -------------------------------

m = fault("db-batch-template-latched",
          "The template field is latched once per cycle: a second token that reaches the "
          "doorbell registers at the same instant as one for another template is decoded "
          "with the first token's template.",
          ["DB-MMIO-003", "DB-ACCEPT-001", "DB-SEQ-002", "DB-SEQ-003",
           "CQE-REJECT-001", "CQE-REJECT-002", "DB-REJECT-001", "WR-EXEC-001",
           "CQE-SEND-001", "FLAG-SEND-001", "TPL-EXPAND-001"])


def tokens_since_change(seen, i):
    """The (token, verdict) pairs of `seen` after the last change of template `i`."""
    out = []
    for t, v in seen:
        if t is None and v == i:
            out = []
        elif t is not None:
            out.append((t, v))
    return out


def _(ctx, book, t, at, seen):
    first = next((s for s, v in seen if s is not None), None)
    if first is None or first >> 48 & 0xFFF == t >> 48 & 0xFFF:
        return None
    if any(s is None for s, v in seen):
        return None
    return with_template(t, first >> 48 & 0xFFF)


token_faults(m, _)


m = fault("db-batch-seq-read-once",
          "The expected seq is read once per cycle: a second token of one template at the "
          "same instant as an accepted one is compared with the expected seq before the first "
          "advanced it, and rejected SEQ_GAP.",
          ["DB-SEQ-001", "DB-SEQ-003", "DB-ACCEPT-001", "CQE-REJECT-001", "CQE-SEND-001",
           "FLAG-SEND-001", "WR-EXEC-001"])


def _(ctx, book, t, at, seen):
    i = t >> 48 & 0xFFF
    same = [s for s, v in tokens_since_change(seen, i) if v == 0 and s >> 48 & 0xFFF == i]
    if not same or book.verdict(t) != 0:
        return None
    # Checked against the seq the first token was accepted under: this one looks ahead.
    return with_seq(t, (t >> 32) + 1)


token_faults(m, _)


m = fault("db-seq-per-qp",
          "The expected seq is kept per QP instead of per template: two templates of one QP "
          "share one counter, so each template's tokens are judged against the other's too.",
          ["DB-SEQ-001", "DB-SEQ-002", "DB-SEQ-003", "DB-ACCEPT-001", "CQE-REJECT-001",
           "DB-REJECT-001", "CQE-SEND-001", "FLAG-SEND-001", "WR-EXEC-001"])


def _(ctx, book, t, at, seen):
    tpl = book.tpl.get(t >> 48 & 0xFFF)
    if tpl is None or not tpl.get("enabled"):
        return None
    per_qp = ctx.state.setdefault("db-seq-per-qp:qp", {})
    q = tpl.get("qpn")
    e_qp = per_qp.get(q, 0)
    e_tpl = book.expected.get(t >> 48 & 0xFFF, 0)
    # The device, which keeps the template's count, is given the seq that stands where
    # this token stands against the QP's count.
    n = with_seq(t, e_tpl - e_qp + (t >> 32))
    if book.verdict(n) == 0:
        per_qp[q] = (e_qp + 1) & 0xFFFF
    return n


def _reset(ctx, c, m=m):
    # Installing a template sets the QP's count to 0 as well; a toggle does not.
    if c.get("command") != "set_template" or not template_valid(c):
        return
    old = token_book(ctx, m).tpl.get(c.get("template_id"))
    if old is None or dict(old, enabled=c.get("enabled")) != c:
        ctx.state.setdefault("db-seq-per-qp:qp", {})[c.get("qpn")] = 0


token_faults(m, _, _reset)


m = fault("db-last-slot-rejected",
          "The index check compares with slots - 1: a token for the template's last slot is "
          "rejected INDEX_OUT_OF_RANGE.",
          ["DB-INDEX-001", "DB-ORDER-001", "DB-ACCEPT-001", "CQE-REJECT-001",
           "DB-LENGTH-003", "DB-LENGTH-004", "CQE-SEND-001", "FLAG-SEND-001", "WR-EXEC-001"])


def _(ctx, book, t, at, seen):
    tpl = book.tpl.get(t >> 48 & 0xFFF)
    n = int((tpl or {}).get("slots", 0))
    if not tpl or not 1 <= n < 0x10000 or t >> 16 & 0xFFFF != n - 1:
        return None
    return with_index(t, n)


token_faults(m, _)


m = fault("db-units-ffff-as-default",
          "The length decoder takes length_units 0xFFFF, all ones, for the default-length "
          "code: such a token asks for the template's default_length.",
          ["DB-LENGTH-001", "TPL-EXPAND-004", "WR-EXEC-001", "SND-SEG-001", "SND-SEG-003",
           "DB-LENGTH-002", "DB-LENGTH-003", "DB-LENGTH-004", "DB-ACCEPT-001",
           "CQE-REJECT-001", "CQE-SEND-001", "FLAG-SEND-001", "FLAG-LEN-001",
           "RCV-PLACE-002"])
token_faults(m, lambda ctx, book, t, at, seen: t & ~0xFFFF if t & 0xFFFF == 0xFFFF else None)


m = fault("db-template-4095-unknown",
          "The template lookup uses ID 4095, all ones, as its empty-entry marker: a token "
          "for template 4095 is rejected UNKNOWN_TEMPLATE.",
          ["DB-TEMPLATE-001", "DB-ORDER-001", "DB-FORMAT-001", "DB-ACCEPT-001", "TPL-ID-001",
           "CQE-REJECT-001", "CQE-REJECT-002", "CQE-OPCODE-001", "WR-EXEC-001",
           "CQE-SEND-001", "FLAG-SEND-001", "DB-LENGTH-002"])


def _(ctx, book, t, at, seen):
    if t >> 48 & 0xFFF != 0xFFF or not (book.tpl.get(0xFFF) or {}).get("enabled"):
        return None
    free = [i for i in range(4095) if not (book.tpl.get(i) or {}).get("enabled")]
    return with_template(t, free[-1]) if free else None


token_faults(m, _)


m = fault("db-seq-wrap-stuck",
          "The expected-seq register is 17 bits wide: once the template accepts seq 0xFFFF "
          "it expects 0x10000, which no token carries, and rejects every later token "
          "SEQ_GAP.",
          ["DB-SEQ-001", "DB-SEQ-003", "DB-ACCEPT-001", "CQE-REJECT-001", "CQE-SEND-001",
           "FLAG-SEND-001", "WR-EXEC-001"])


def _(ctx, book, t, at, seen):
    stuck = ctx.state.setdefault("db-seq-wrap-stuck:stuck", set())
    i = t >> 48 & 0xFFF
    if i in stuck and book.verdict(t) == 0:
        return with_seq(t, (t >> 32) + 1)
    if book.verdict(t) == 0 and t >> 32 & 0xFFFF == 0xFFFF:
        stuck.add(i)
    return None


def _reset(ctx, c):
    if c.get("command") == "set_template" and template_valid(c):
        ctx.state.setdefault("db-seq-wrap-stuck:stuck", set()).discard(c.get("template_id"))


token_faults(m, _, _reset)


m = fault("db-straddle-taken",
          "The doorbell decoder ignores the offset of a bus write: an 8-byte write that "
          "starts inside one register and straddles the next is taken as a token.",
          ["DB-MMIO-002", "DB-FORMAT-002", "DB-ACCEPT-001", "CQE-REJECT-001",
           "DB-REJECT-001"])


@m.hook("inputs")
def _(ctx, ins):
    for item, c in host_commands(ins):
        if (c.get("command") == "doorbell_write" and c.get("offset")
                and len(c.get("bytes", "")) == 16):
            c["offset"] = 0
            ctx.mutated("db-straddle-taken")
    return ins


m = fault("tpl-change-before-instant",
          "A template change is applied at the start of the cycle it arrives in: a token "
          "given at the same instant before the change is expanded from the new template.",
          ["TPL-INSTALL-002", "TPL-INSTALL-003", "DB-SEQ-001",
           "WR-EXEC-001", "TPL-EXPAND-001", "TPL-EXPAND-002", "TPL-EXPAND-003",
           "TPL-EXPAND-004", "TPL-EXPAND-005", "TPL-EXPAND-006", "SND-SEG-003",
           "SND-SEG-004", "DB-ACCEPT-001", "CQE-REJECT-001", "FLAG-SEND-001",
           "CQE-SEND-001", "DB-TEMPLATE-001"])


@m.hook("inputs")
def _(ctx, ins):
    out = list(ins)
    for i, item in enumerate(list(out)):
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") != "set_template":
            continue
        j = out.index(item)
        k = j
        while k > 0 and int(out[k - 1].get("at", 0)) == int(item.get("at", 0)):
            k -= 1
        before = [token_of((o.get("input") or {}).get("command") or {}) for o in out[k:j]]
        if any(t is not None and t >> 48 & 0xFFF == c.get("template_id") for t in before):
            out.insert(k, out.pop(j))
            ctx.mutated("tpl-change-before-instant")
    return out


# ---- completion queues: the last slot, one phase, one cycle ---------------------------------

def queue_entries(m, fn):
    """A bug of the completion writer: `fn(ctx, item, ev, q, e, c)` may change the decoded
    entry `e` and the placement `q` (cq, slot, addr) of each entry written to a queue `c`."""

    @m.hook("outputs")
    def _(ctx, outs):
        for item in outs:
            ev = event_of(item)
            q = (ev or {}).get("queue") if ev and ev.get("event") == "completion" else None
            if not q or "bytes" not in q or ctx.cqs.get(q.get("cq")) is None:
                continue
            before = json.dumps(q, sort_keys=True)
            e = cqe_decode(bytes.fromhex(q["bytes"]))
            fn(ctx, item, ev, q, e, ctx.cqs[q.get("cq")])
            q["bytes"] = cqe_encode(e).hex()
            if "entry" in ev:
                ev["entry"] = dict(ev["entry"], phase=e["phase"])
            if json.dumps(q, sort_keys=True) != before:
                ctx.mutated(m.name)
        return outs


m = fault("cqe-last-slot-phase-next",
          "The phase register flips when the producer index reaches slot N - 1, before the "
          "write: the entry in the last slot of each pass carries the next pass's phase.",
          ["CQE-RING-001"])


def _(ctx, item, ev, q, e, c):
    n = int(c.get("entries", 1))
    if n > 1 and int(q.get("slot", 0)) == n - 1:
        e["phase"] = not e["phase"]


queue_entries(m, _)


m = fault("cqe-phase-device-wide",
          "One phase register serves every completion queue: it flips whenever any queue "
          "wraps, so the entries of the other queues carry the wrong phase from then on.",
          ["CQE-RING-001"])


def _(ctx, item, ev, q, e, c):
    st = ctx.state.setdefault("cqe-phase-device-wide", {"flips": 0, "k": {}})
    cq, n = q.get("cq"), int(c.get("entries", 1))
    k = st["k"].get(cq, 0)
    st["k"][cq] = k + 1
    if k and k % n == 0:
        st["flips"] += 1
    e["phase"] = st["flips"] % 2 == 0


queue_entries(m, _)


m = fault("cqe-slot-once-per-cycle",
          "The producer index advances once per cycle: entries written to one queue at the "
          "same instant all go to one slot, each over the one before.",
          ["CQE-RING-001", "CQE-SEND-001", "CQE-SEND-002", "CQE-RECV-001",
           "CQE-REJECT-001", "CQE-SEND-003"])


def _(ctx, item, ev, q, e, c):
    st = ctx.state.setdefault("cqe-slot-once-per-cycle", {})
    cq, n, at = q.get("cq"), int(c.get("entries", 1)), int(item.get("at", 0))
    last_at, k = st.get(cq, (None, -1))
    if at != last_at:
        k += 1
    st[cq] = (at, k)
    e["phase"] = (k // n) % 2 == 0
    q["slot"], q["addr"] = k % n, int(c["base"]) + 32 * (k % n)


queue_entries(m, _)


m = fault("cqe-one-entry-ring-phase",
          "The phase is bit log2(N) of the entry count, with log2 computed from a leading-zero "
          "count that gives 1 for N = 1: a queue of one entry flips its phase every second "
          "entry.",
          ["CQE-RING-001"])


def _(ctx, item, ev, q, e, c):
    if int(c.get("entries", 1)) != 1:
        return
    st = ctx.state.setdefault("cqe-one-entry-ring-phase", {})
    k = st.get(q.get("cq"), 0)
    st[q.get("cq")] = k + 1
    e["phase"] = (k >> 1) % 2 == 0


queue_entries(m, _)


m = fault("reject-unknown-to-last-qp-cq",
          "The queue select of rejected tokens is latched from the last token that named a "
          "template: a token that names no usable template completes in the send queue of "
          "the QP of the token before it, not in the device error queue.",
          ["CQE-REJECT-002", "CQE-ROUTE-001", "CQE-RING-001"])


@m.hook("inputs")
def _(ctx, ins):
    tpls = ctx.state.setdefault("reject-unknown-to-last-qp-cq:tpl", {})
    routes = ctx.state.setdefault("reject-unknown-to-last-qp-cq:to", {})
    for item, c in host_commands(ins):
        if c.get("command") == "set_template":
            tpls[c.get("template_id")] = dict(c)
        t = token_of(c)
        if t is None:
            continue
        tpl = tpls.get(t >> 48 & 0xFFF)
        q = (ctx.qps.get((tpl or {}).get("qpn")) or {}).get("send_cq")
        if t >> 60 == 1 and tpl is not None and tpl.get("enabled") and q is not None:
            ctx.state["reject-unknown-to-last-qp-cq"] = q
        elif ctx.state.get("reject-unknown-to-last-qp-cq") is not None:
            routes[t] = ctx.state["reject-unknown-to-last-qp-cq"]
    return ins


def _(ctx, ev, cq):
    e = completion_entry(ev)
    if int(e.get("status", 0)) in (0x01, 0x02) and not e.get("is_receive"):
        return ctx.state.get("reject-unknown-to-last-qp-cq:to", {}).get(int(e["wr_id"]), cq)
    return cq


ring_faults(m, _)


# ---- flags and retirement: several at once, byte counts at their edges ----------------------

def same_domain(ctx, a, b):
    """Whether two local QPs retire in one domain (shared retirement, one domain number)."""
    if a == b:
        return True
    if not shared_mode(ctx):
        return False
    qa, qb = ctx.qps.get(a) or {}, ctx.qps.get(b) or {}
    return qa.get("domain", 0) == qb.get("domain", 0)


m = fault("recv-flags-step-reversed",
          "When one input retires several messages of a domain, the flag writer pops them "
          "from a stack: their retirement flags are written newest first.",
          ["FLAG-RECV-002", "FLAG-ORDER-001", "RET-ORDER-001",
           "RET-FLAG-001", "FLAG-ORDER-002"])


@m.hook("outputs")
def _(ctx, outs):
    groups = {}
    for i, item in enumerate(outs):
        ev = event_of(item)
        if ev and ev.get("event") == "flag_write" and ev.get("side") == "responder":
            q = ev.get("qpn")
            key = next((k for k in groups if k[0] == int(item["at"])
                        and same_domain(ctx, k[1], q)), (int(item["at"]), q))
            groups.setdefault(key, []).append(i)
    for idx in groups.values():
        if len(idx) < 2:
            continue
        items = [outs[i] for i in idx]
        for i, item in zip(idx, reversed(items)):
            outs[i] = item
        ctx.mutated("recv-flags-step-reversed")
    return outs


def trigger_qps(ctx, at):
    """The local QPs whose writes were injected at `at`."""
    return [qp for qp, ws in ctx.rx_writes.items() if any(w[0] == at for w in ws)]


m = fault("recv-flag-base-of-trigger",
          "In shared retirement the flag writer takes the flag base and slot count from the "
          "context of the QP whose packet caused the retirement: a message of another QP of "
          "the domain, retired by it, is flagged in the wrong QP's ring.",
          ["FLAG-RECV-001", "RET-FLAG-001", "FLAG-TABLE-001", "FLAG-RECV-002"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    if ev.get("side") != "responder":
        return
    by = [q for q in trigger_qps(ctx, int(item["at"])) if q != ev.get("qpn")
          and same_domain(ctx, q, ev.get("qpn"))]
    if len(by) != 1:
        return
    other = ctx.qps.get(by[0]) or {}
    n = int(other.get("recv_flag_slots", 0))
    if n <= 0 or n & (n - 1) or n > 1 << 15 or ev.get("msn") is None:
        return
    ev["addr"] = int(other.get("recv_flag_base", 0)) + 8 * (int(ev["msn"]) % n)


m = fault("recv-cqe-qpn-of-trigger",
          "In shared retirement the receive-completion writer takes the QPN from the packet "
          "that caused the retirement: a Write with Immediate of another QP of the domain, "
          "retired by it, completes under the wrong QPN.",
          ["CQE-RECV-001", "CQE-ROUTE-001"])


@m.hook("outputs")
def _(ctx, outs):
    for item in outs:
        ev = event_of(item)
        if not ev or ev.get("event") != "completion" or ev.get("side") != "responder":
            continue
        e = completion_entry(ev)
        by = [q for q in trigger_qps(ctx, int(item["at"])) if q != e.get("qpn")
              and same_domain(ctx, q, e.get("qpn"))]
        if e.get("is_receive") and len(by) == 1:
            e["qpn"] = by[0]
            set_completion_entry(ev, e)
            ctx.mutated("recv-cqe-qpn-of-trigger")
    return outs


m = fault("recv-len-pmtu-multiple-short",
          "The receive byte counter adds the last packet's length as the message length "
          "modulo the PMTU: a message whose length is a multiple of the PMTU is counted one "
          "PMTU short in its retirement flag and receive completion.",
          ["FLAG-RECV-002", "RET-FLAG-001", "FLAG-LEN-001", "CQE-RECV-001"])


def _(ctx, ev, d):
    if d["status"] == 0 and d["byte_len"] and d["byte_len"] % ctx.pmtu() == 0:
        d["byte_len"] -= ctx.pmtu()


flags(m, "responder", _)


def _(ctx, ev, e):
    n = int(e.get("byte_len", 0))
    if e.get("is_receive") and n and n % ctx.pmtu() == 0:
        e["byte_len"] = n - ctx.pmtu()


completions(m, "responder", _)


m = fault("recv-zero-len-stale",
          "The byte counter is loaded by payload writes only: a zero-length message's "
          "retirement flag and receive completion carry the byte count of the QP's message "
          "before it.",
          ["FLAG-RECV-002", "RET-FLAG-001", "FLAG-LEN-001", "CQE-RECV-001"])


def _(ctx, ev, d):
    last = ctx.state.setdefault("recv-zero-len-stale:f", {})
    q = ev.get("qpn")
    if d["status"] == 0 and d["byte_len"] == 0 and last.get(q):
        d["byte_len"] = last[q]
    elif d["status"] == 0:
        last[q] = d["byte_len"]


flags(m, "responder", _)


def _(ctx, ev, e):
    last = ctx.state.setdefault("recv-zero-len-stale:c", {})
    q = e.get("qpn")
    if not e.get("is_receive"):
        return
    if int(e.get("byte_len", 0)) == 0 and last.get(q):
        e["byte_len"] = last[q]
    else:
        last[q] = int(e.get("byte_len", 0))


completions(m, "responder", _)


m = fault("send-zero-len-stale",
          "The sender's completion length latch is loaded from the last packet sent: a "
          "zero-length message completes with the byte count of the QP's message before it, "
          "in its sender flag and its completion entry.",
          ["FLAG-SEND-001", "FLAG-LEN-001", "CQE-SEND-001"])


def _(ctx, ev, d):
    last = ctx.state.setdefault("send-zero-len-stale:f", {})
    q = ev.get("qpn")
    if d["status"] == 0 and d["byte_len"] == 0 and last.get(q):
        d["byte_len"] = last[q]
    elif d["status"] == 0:
        last[q] = d["byte_len"]


flags(m, "requester", _)


def _(ctx, ev, e):
    last = ctx.state.setdefault("send-zero-len-stale:c", {})
    q = e.get("qpn")
    if e.get("is_receive") or int(e.get("status", 0)) != 0:
        return
    if int(e.get("byte_len", 0)) == 0 and last.get(q):
        e["byte_len"] = last[q]
    else:
        last[q] = int(e.get("byte_len", 0))


completions(m, "requester", _)


m = fault("recv-flag-on-failure",
          "A message that fails at the receiver after some of its packets were placed gets "
          "a retirement flag anyway, with the status of the NAK the responder sent and "
          "byte_len 0.",
          ["FLAG-RECV-003", "RET-ERR-001", "FLAG-RECV-002", "FLAG-STATUS-001"])


@m.hook("inputs")
def _(ctx, ins):
    st = ctx.state.setdefault("recv-flag-on-failure:in", {})
    for item in ins:
        f = frame_of(item)
        if f is not None and f.is_write() and sound(f) and f.has("meth"):
            st[(int(item["at"]), f.get("bth", "dest_qp"))] = f.get("meth", "msn")
    return ins


@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.get("recv-flag-on-failure:in", {})
    added = []
    for item, f in frames(outs, ("nak",)):
        qp = ctx.local_qp_of(f)
        msn = st.get((int(item["at"]), qp))
        c = ctx.qps.get(qp) or {}
        n = int(c.get("recv_flag_slots", 0))
        if msn is None or n <= 0 or n & (n - 1) or n > 1 << 15:
            continue
        code = {0x61: 0x11, 0x62: 0x12}.get(f.get("aeth", "syndrome"), 0x13)
        v = flag_value({"generation": msn, "status": code, "valid": 1, "resv": 0,
                        "byte_len": 0})
        added.append({"at": item["at"], "output": {"kind": "event", "event": {
            "event": "flag_write", "qpn": qp, "side": "responder", "msn": msn,
            "addr": int(c.get("recv_flag_base", 0)) + 8 * (msn % n), "value": v}}})
        ctx.mutated("recv-flag-on-failure")
    if added:
        outs = outs + added
        outs.sort(key=lambda o: int(o["at"]))
    return outs


m = fault("flush-newest-first",
          "When a QP enters the error state its pending messages are completed from the tail "
          "of the send queue: their completion entries and sender flags come newest first.",
          ["RET-FLUSH-001", "CQE-SEND-003", "RET-SEND-001", "CQE-SEND-002",
           "CQE-STATUS-001", "FLAG-SEND-001", "FLAG-STATUS-001"])


@m.hook("outputs")
def _(ctx, outs):
    ents, flg = {}, {}
    for i, item in enumerate(outs):
        ev = event_of(item)
        if not ev or ev.get("side") != "requester":
            continue
        key = (int(item["at"]), ev.get("qpn"))
        if ev.get("event") == "completion":
            e = completion_entry(ev)
            if int(e.get("status", 0)) >= 0x10 and not e.get("is_receive"):
                ents.setdefault((key[0], e.get("qpn")), []).append(i)
        elif ev.get("event") == "flag_write" and flag_fields(int(ev["value"]))["status"] >= 0x10:
            flg.setdefault(key, []).append(i)
    for idx in ents.values():
        if len(idx) < 2:
            continue
        evs = [event_of(outs[i]) for i in idx]
        es = [completion_entry(ev) for ev in evs]
        for ev, e, src in zip(evs, es, reversed(es)):
            new = dict(src, phase=e["phase"])
            set_completion_entry(ev, new)
        ctx.mutated("flush-newest-first")
    for idx in flg.values():
        if len(idx) < 2:
            continue
        items = [outs[i] for i in idx]
        for i, item in zip(idx, reversed(items)):
            outs[i] = item
        ctx.mutated("flush-newest-first")
    return outs


m = fault("flag-failure-valid-clear",
          "The flag writer's error path builds the word from the status alone: flags of "
          "failed messages are written with valid 0.",
          ["FLAG-VALID-001", "FLAG-SEND-001"])
flags(m, None, lambda ctx, ev, d: d.__setitem__("valid", 0) if d["status"] else None)


m = fault("send-cqe-qpn-latched-cycle",
          "The completion engine latches the QPN once per cycle: sender completions of two "
          "QPs written at the same instant both carry the QPN of the first.",
          ["CQE-SEND-001", "CQE-SEND-002", "CQE-REJECT-001", "CQE-ROUTE-001"])


@m.hook("outputs")
def _(ctx, outs):
    first = {}
    for item in outs:
        ev = event_of(item)
        if not ev or ev.get("event") != "completion" or ev.get("side") == "responder":
            continue
        e = completion_entry(ev)
        if e.get("is_receive"):
            continue
        q = first.setdefault(int(item["at"]), e.get("qpn"))
        if q != e.get("qpn"):
            e["qpn"] = q
            set_completion_entry(ev, e)
            ctx.mutated("send-cqe-qpn-latched-cycle")
    return outs


m = fault("send-flag-base-latched-cycle",
          "The sender flag writer latches the flag base once per cycle: sender flags of two "
          "QPs written at the same instant both go to the flag array of the first.",
          ["FLAG-SEND-001", "TPL-EXPAND-006", "FLAG-TABLE-001"])


@m.hook("outputs")
def _(ctx, outs):
    first = {}
    for item in outs:
        ev = event_of(item)
        if not ev or ev.get("event") != "flag_write" or ev.get("side") != "requester":
            continue
        q = first.setdefault(int(item["at"]), ev.get("qpn"))
        if q == ev.get("qpn"):
            continue
        a = int((ctx.qps.get(q) or {}).get("send_flag_base", 0))
        b = int((ctx.qps.get(ev.get("qpn")) or {}).get("send_flag_base", 0))
        if a != b:
            ev["addr"] = int(ev["addr"]) - b + a
            ctx.mutated("send-flag-base-latched-cycle")
    return outs


m = fault("send-flag-slot-carry-16",
          "The flag-slot adder is 16 bits wide: flag_base_slot + index loses its carry, so a "
          "sender flag whose slot is 65536 or more lands 65536 slots low.",
          ["TPL-EXPAND-006", "FLAG-SEND-001", "FLAG-TABLE-001"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    if ev.get("side") != "requester":
        return
    base = int((ctx.qps.get(ev.get("qpn")) or {}).get("send_flag_base", 0))
    s = (int(ev["addr"]) - base) // 8
    if s >= 1 << 16:
        ev["addr"] = base + 8 * (s & 0xFFFF)


m = fault("recv-flag-slots-top-bit",
          "The retirement-flag slot count is taken by its highest set bit: a context whose "
          "count is not a power of two from 1 to 2^15, which has no retirement flags, "
          "writes them over the largest power of two below it.",
          ["RET-FLAG-001", "FLAG-RECV-001", "FLAG-RECV-002", "FLAG-TABLE-001"])


@m.hook("inputs")
def _(ctx, ins):
    for item, c in host_commands(ins):
        if c.get("command") != "create_qp":
            continue
        n = int(c.get("recv_flag_slots", 0))
        if n > 0 and (n & (n - 1) or n > 1 << 15):
            c["recv_flag_slots"] = 1 << (min(n, 1 << 15).bit_length() - 1)
            ctx.mutated("recv-flag-slots-top-bit")
    return ins


# ==========================================================================================
# A sixth reading: the receiving side again (receiver.md and the responder rules of
# wire-format.md), for bugs that show only in combination or at an edge: the window's far
# edge after the wrap, a duplicate of a packet that was itself out of order, a SACK built
# from the state before its triggering packet, counters that round, saturate or count the
# wrong packets, an acknowledgement on the EV of the wrong packet or the wrong QP, a
# zero-length message, and a failed QP that still answers a probe.
# ==========================================================================================

def rx6_psn_as(m, test):
    """Registers the input and output hooks of a window fault that makes the device NACK a
    write it should have accepted: the write is given to the device with the PSN just past
    the window (which the device NACKs), and the NACK is made to name the write's own PSN
    again. `test(ctx, win, p)` says whether the faulty comparator rejects PSN `p`."""

    @m.hook("inputs")
    def _(ctx, ins):
        st = ctx.state.setdefault(m.name, {})
        w = ctx.mpr() * 128
        for item, f in frames(ins, ("data",), only_sound=True):
            qp = f.get("bth", "dest_qp")
            if qp not in ctx.qps:
                continue
            win = window_of(ctx, m.name, qp)
            p = f.get("bth", "psn")
            if test(ctx, win, p):
                edge = (win["epsn"] + w) & U24
                f.set("bth", "psn", edge)
                f.seal()
                put_frame(item, f)
                st[(qp, edge, int(item["at"]))] = p
                ctx.mutated(m.name)
                continue
            window_take(ctx, win, p)
        return ins

    @m.hook("outputs")
    def _(ctx, outs):
        st = ctx.state.get(m.name, {})
        for item, f in frames(outs, ("nack",)):
            p = st.get((ctx.local_qp_of(f), f.get("neth", "nack_psn"), int(item["at"])))
            if p is not None:
                f.set("neth", "nack_psn", p)
                f.set("bth", "psn", p)
                f.seal()
                put_frame(item, f)
        return outs


# ---- the window's edges ---------------------------------------------------------------------

m = fault("rcv-window-edge-wrapped-oor",
          "The far edge of the window is kept as the 24-bit sum epsn + W and compared as a "
          "plain number: once that sum wraps past 2^24, every new PSN from epsn up to the wrap "
          "is NACKed as out of window and discarded.",
          ["RCV-WIN-001", "RCV-WIN-002", "BTH-PSN-002", "RCV-PLACE-003"])


def _edge_wrapped(ctx, win, p):
    w = ctx.mpr() * 128
    edge = (win["epsn"] + w) & U24
    return (edge < win["epsn"] and (p - win["epsn"]) & U24 < w and p >= edge
            and p not in win["got"])


rx6_psn_as(m, _edge_wrapped)


m = fault("rcv-far-dup-as-oor",
          "The duplicate comparator reuses the 16-bit subtractor of ack_psn_offset: a PSN more "
          "than 32768 behind epsn is not seen as a duplicate and is NACKed as out of window "
          "instead of SACKed.",
          ["RCV-WIN-001", "RCV-DUP-001", "RCV-WIN-002", "RCV-SACK-001"])


def _far_behind(ctx, win, p):
    back = (win["epsn"] - p) & U24
    return 0x8000 < back <= 0x800000


rx6_psn_as(m, _far_behind)


m = fault("rcv-window-edge-inclusive",
          "The window comparator tests p - epsn > W instead of >= W: the PSN just past the "
          "window's far edge is accepted and placed instead of NACKed.",
          ["RCV-WIN-001", "RCV-WIN-002", "RCV-REJECT-001", "RCV-PLACE-003"])
track_rx(m)


@m.hook("inputs")
def _(ctx, ins, m=m):
    edge = ctx.state.setdefault(m.name + ":edge", set())
    w = ctx.mpr() * 128
    for item, f in frames(ins, ("data",), only_sound=True):
        qp = f.get("bth", "dest_qp")
        if qp not in ctx.qps:
            continue
        win = window_of(ctx, m.name, qp)
        p = f.get("bth", "psn")
        if (p - win["epsn"]) & U24 == w and p not in win["got"]:
            edge.add((qp, p, int(item["at"])))
            win["got"].add(p)
            continue
        window_take(ctx, win, p)
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    edge = ctx.state.get(m.name + ":edge", set())
    st = rx_state(ctx, m)
    res = []
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "nack":
            key = (ctx.local_qp_of(f), f.get("neth", "nack_psn"), int(item["at"]))
            if key in edge:
                w = trigger_of(st, key[0], key[2], key[1])
                if w is not None and w["payload"]:
                    res.append(rx5_placed(ctx, m, w, m.name))
                else:
                    ctx.mutated(m.name)
                continue
        res.append(item)
    return res


# ---- duplicates of packets that arrived out of order ---------------------------------------

def rx6_dup_sacks(ctx, m, outs):
    """The SACKs of this batch triggered by a duplicate of a PSN after cack_psn (a packet
    that was itself accepted out of order), with the duplicate write."""
    st = rx_state(ctx, m)
    learn_placed(st, outs)
    found = []
    for item, f in frames(outs, ("sack",)):
        off = f.get("seth", "ack_psn_offset")
        if off < 2:
            continue
        w = trigger_of(st, ctx.local_qp_of(f), int(item["at"]), rx5_trigger_psn(f))
        if w is not None and is_dup(st, w):
            found.append((item, w))
    return found


m = fault("rcv-dup-above-epsn-silent",
          "The duplicate path is entered only for PSNs before epsn: a duplicate of a packet "
          "that was accepted out of order, whose bit is set in the receive bitmap, is dropped "
          "without the SACK a duplicate gets.",
          ["RCV-DUP-001", "RCV-SACK-001", "RCV-WIN-001"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    drop = {id(item) for item, _ in rx6_dup_sacks(ctx, m, outs)}
    if drop:
        ctx.mutated(m.name)
    return [item for item in outs if id(item) not in drop]


m = fault("rcv-dup-above-epsn-placed",
          "The bitmap test of the duplicate check runs after the DMA engine was started: a "
          "duplicate of a packet accepted out of order is SACKed as a duplicate, but its "
          "payload is written to host memory again.",
          ["RCV-DUP-001", "RCV-PLACE-004", "RCV-PLACE-003"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    res = list(outs)
    for _, w in rx6_dup_sacks(ctx, m, outs):
        if w["payload"]:
            res.append(rx5_placed(ctx, m, w, m.name))
    res.sort(key=lambda o: int(o["at"]))
    return res


# ---- SACK contents at the edges --------------------------------------------------------------

m = fault("sack-state-before-trigger",
          "The SACK builder reads the receive bitmap and epsn in the same cycle as the "
          "triggering write is accepted, so a SACK sent at once reports the state before "
          "that write: it is missing from cack_psn, the bitmap and ooo_count.",
          ["SETH-CACK-001", "SETH-BITMAP-001", "RCV-SACK-005", "RCV-WIN-003", "CCS-OOO-001",
           "RCV-SACK-007", "SETH-ACKPSN-003"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    at = int(item["at"])
    if at not in ctx.input_times:
        return
    qp, p = ctx.local_qp_of(f), rx5_trigger_psn(f)
    copies = [w for w in ctx.rx_writes.get(qp, []) if w[1] == p and w[0] <= at]
    if len(copies) != 1 or copies[0][0] != at:
        return
    cack, bm = f.get("seth", "cack_psn"), f.get("seth", "sack_bitmap")
    ooo = f.get("cc_state", "ooo_count")
    d = (p - cack) & U24
    if d == 0 or d >= 0x800000:
        back = (cack - p) & U24
        if back >= 63:
            return
        nb = ((1 << (back + 1)) - 2) | (bm << (back + 1))
        f.set("seth", "cack_psn", (p - 1) & U24)
        f.set("bth", "psn", (p - 1) & U24)
        f.set("seth", "sack_bitmap", nb & ((1 << 64) - 1))
        f.set("seth", "ack_psn_offset", 1)
        f.set("cc_state", "ooo_count", min(0x7FFF, ooo + back))
    elif 2 <= d <= 64:
        f.set("seth", "sack_bitmap", bm & ~(1 << (d - 1)))
        f.set("cc_state", "ooo_count", max(0, ooo - 1))


m = fault("sack-cack-saturates-at-zero",
          "cack_psn is computed as epsn - 1 by a saturating decrement: while epsn is 0, at the "
          "start of a connection from PSN 0 or after the wrap, SACKs carry cack_psn 0 instead "
          "of 0xFFFFFF.",
          ["SETH-CACK-001", "RCV-SACK-005", "OPC-PSN-002", "BTH-PSN-002"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    if f.get("seth", "cack_psn") == U24:
        f.set("seth", "cack_psn", 0)
        f.set("bth", "psn", 0)


m = fault("sack-ackpsn-unsigned",
          "ack_psn_offset comes from an unsigned subtractor that saturates at 0: the SACK of a "
          "duplicate before cack_psn points at cack_psn instead of behind it.",
          ["SETH-ACKPSN-003", "RCV-SACK-005", "RCV-DUP-001"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    if f.get("seth", "ack_psn_offset") < 0:
        f.set("seth", "ack_psn_offset", 0)


m = fault("sack-ackpsn-no-wrap",
          "ack_psn_offset is the plain difference of the triggering PSN and cack_psn, clamped "
          "to 16 bits, without the 2^24 wrap: a packet after the wrap SACKed while cack_psn is "
          "still before it gets offset -32768.",
          ["SETH-ACKPSN-003", "RCV-SACK-005", "BTH-PSN-002"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    p, cack = rx5_trigger_psn(f), f.get("seth", "cack_psn")
    plain = max(-32768, min(32767, p - cack))
    if plain != f.get("seth", "ack_psn_offset"):
        f.set("seth", "ack_psn_offset", plain & 0xFFFF)


m = fault("sack-bitmap-drops-after-wrap",
          "The SACK bitmap builder compares PSNs as plain 24-bit numbers: while epsn is before "
          "the wrap, PSNs received after it are left out of the bitmap.",
          ["SETH-BITMAP-001", "RCV-SACK-005", "BTH-PSN-002"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    base = (f.get("seth", "cack_psn") + 1) & U24
    if base + 63 <= U24:
        return
    keep = (1 << (U24 - base + 1)) - 1
    f.set("seth", "sack_bitmap", f.get("seth", "sack_bitmap") & keep)


m = fault("sack-bitmap-bit63-lost",
          "The SACK bitmap passes through a signed 64-bit shift that clears its top bit: "
          "PSN epsn + 63 is never reported.",
          ["SETH-BITMAP-001", "RCV-SACK-005"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "sack_bitmap", f.get("seth", "sack_bitmap") & ~(1 << 63))


m = fault("sack-mpr-minus-one",
          "The mpr field is written from a 6-bit register field that holds mpr - 1, the "
          "0-based encoding of 1 to 64: every SACK advertises one unit less than the window.",
          ["RCV-SACK-005"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "mpr", (f.get("seth", "mpr") - 1) & 0xFF)


m = fault("rcv-hole-sack-first-only",
          "The behind-a-hole trigger is a flag set by the first packet after epsn and cleared "
          "only when epsn moves: a second packet behind the same hole waits for the SACK "
          "timer instead of being SACKed at once.",
          ["RCV-SACK-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault(m.name, {})
    dl = int(ctx.nic.get("sack_delay", 1000))
    for item in outs:
        f = frame_of(item)
        if f is None or kind(f) != "sack" or int(item["at"]) not in ctx.input_times:
            continue
        qp, cack = ctx.local_qp_of(f), f.get("seth", "cack_psn")
        p = rx5_trigger_psn(f)
        if f.get("seth", "ack_psn_offset") < 2:
            st.pop(qp, None)
            continue
        at = int(item["at"])
        if len([w for w in ctx.rx_writes.get(qp, []) if w[1] == p and w[0] <= at]) != 1:
            continue
        if st.get(qp) == cack:
            delay(ctx, item, dl, m.name)
        st[qp] = cack
    return outs


# ---- CC_STATE counters that round, count or keep the wrong things ------------------------

def rx6_rcvd_bytes(m, add, event="dma_write"):
    """Registers an output hook that keeps a per-QP byte counter of its own, `add(ctx,
    event)` bytes for each `event` (by default each DMA write of a received payload; None:
    count nothing), and writes it, in 256-byte units, into the CC_STATE of every SACK."""

    @m.hook("outputs")
    def _(ctx, outs):
        acc = ctx.state.setdefault(m.name + ":bytes", {})
        batch = []
        for item in outs:
            ev = event_of(item)
            if ev is not None and ev.get("event") == event:
                n = add(ctx, ev, int(item["at"]))
                if n is not None:
                    batch.append((int(item["at"]), ev.get("qpn"), n))
        for item, f in frames(outs, ("sack", "probe-answer")):
            qp, at = ctx.local_qp_of(f), int(item["at"])
            total = acc.get(qp, 0) + sum(n for t, q, n in batch if q == qp and t <= at)
            v = (total // 256) & U24
            if v != f.get("cc_state", "rcvd_bytes"):
                f.set("cc_state", "rcvd_bytes", v)
                put(ctx, m, item, f)
        for _, q, n in batch:
            acc[q] = acc.get(q, 0) + n
        return outs


def _payload_len(ev):
    return len(ev.get("payload", {}).get("bytes", "")) // 2


m = fault("sack-rcvd-bytes-per-packet-units",
          "The received-bytes counter adds each write's payload length shifted right by 8, so "
          "the remainders below 256 bytes are lost packet by packet: CC_STATE rcvd_bytes falls "
          "behind once packets are not multiples of 256 bytes.",
          ["CCS-BYTES-001", "RCV-SACK-007"])
rx6_rcvd_bytes(m, lambda ctx, ev, at: (_payload_len(ev) >> 8) * 256)


m = fault("sack-rcvd-bytes-with-pad",
          "The received-bytes counter is fed from the parser's payload length before the pad "
          "is removed: CC_STATE rcvd_bytes counts the pad bytes of every write.",
          ["CCS-BYTES-001", "RCV-SACK-007", "PAY-PAD-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    pads = ctx.state.setdefault(m.name + ":pad", {})
    for item in ins:
        f = frame_of(item)
        if f is not None and f.is_write() and sound(f):
            pads[(f.get("bth", "dest_qp"), f.get("bth", "psn"))] = f.get("bth", "pad_count")
    return ins


rx6_rcvd_bytes(m, lambda ctx, ev, at: _payload_len(ev) + ctx.state.get(
    "sack-rcvd-bytes-with-pad:pad", {}).get((ev.get("qpn"), ev.get("psn")), 0))


m = fault("sack-rcvd-bytes-counts-rejected",
          "The received-bytes counter is incremented by the parser, before the window, size "
          "and access checks: CC_STATE rcvd_bytes counts the payload of writes that were "
          "NACKed, NAKed or dropped.",
          ["CCS-BYTES-001", "RCV-SACK-007", "RCV-REJECT-001"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = rx_state(ctx, m)
    learn_placed(st, outs)
    acc = ctx.state.setdefault(m.name + ":bytes", {})
    extra = ctx.state.setdefault(m.name + ":extra", {})
    rejected = [w for w in st["batch"] if w["payload"] and w["qp"] in ctx.qps
                and st["placed"].get((w["qp"], w["psn"])) is None]
    placed = [(int(item["at"]), event_of(item)) for item in outs
              if (event_of(item) or {}).get("event") == "dma_write"]
    for item, f in frames(outs, ("sack", "probe-answer")):
        qp, at = ctx.local_qp_of(f), int(item["at"])
        more = sum(len(w["payload"]) for w in rejected if w["qp"] == qp and w["at"] <= at)
        if not extra.get(qp) and not more:
            continue
        total = (acc.get(qp, 0) + extra.get(qp, 0) + more
                 + sum(_payload_len(ev) for t, ev in placed if ev.get("qpn") == qp and t <= at))
        v = (total // 256) & U24
        if v != f.get("cc_state", "rcvd_bytes"):
            f.set("cc_state", "rcvd_bytes", v)
            put(ctx, m, item, f)
    for _, ev in placed:
        acc[ev.get("qpn")] = acc.get(ev.get("qpn"), 0) + _payload_len(ev)
    for w in rejected:
        extra[w["qp"]] = extra.get(w["qp"], 0) + len(w["payload"])
    return outs


m = fault("sack-ooo-never-cleared",
          "The out-of-order counter counts every write accepted behind a hole and is never "
          "decremented when the hole fills: CC_STATE ooo_count only grows.",
          ["CCS-OOO-001", "RCV-SACK-007"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    seen = ctx.state.setdefault("sack-ooo-never-cleared", {})
    qp = ctx.local_qp_of(f)
    got = seen.setdefault(qp, set())
    at = int(item["at"])
    if kind(f) == "sack" and at in ctx.input_times and f.get("seth", "ack_psn_offset") >= 2:
        p = rx5_trigger_psn(f)
        if len([w for w in ctx.rx_writes.get(qp, []) if w[1] == p and w[0] <= at]) == 1:
            got.add(p)
    n = min(0x7FFF, len(got))
    if n > f.get("cc_state", "ooo_count"):
        f.set("cc_state", "ooo_count", n)


# ---- acknowledgements on the EV of the wrong packet -----------------------------------------

m = fault("ack-other-qp-own-ev",
          "A transport ACK that a write of another QP causes, by retiring messages of a shared "
          "domain, leaves on the EV of its own QP's last write instead of the EV of the packet "
          "that caused it.",
          ["RCV-ACK-002", "RCV-ACK-003", "CONF-CMP-017"])


@out_frames(m, ("ack",))
def _(ctx, f, item):
    qp, at = ctx.local_qp_of(f), int(item["at"])
    if at not in ctx.input_times or rx5_write_at(ctx, qp, at) is not None:
        return
    if not any(rx5_write_at(ctx, q, at) is not None for q in ctx.rx_writes if q != qp):
        return
    w = rx5_last_write(ctx, qp, at)
    if w is not None:
        f.set_ev(w[2])


m = fault("ack-timer-ev-at-arm",
          "The EV of a transport ACK held back by coalescing is latched when the retirement "
          "starts the SACK timer: the timer's ACK leaves on the EV of that write instead of "
          "the QP's most recently received one.",
          ["RCV-ACK-002", "CONF-CMP-017"])


@out_frames(m, ("ack",))
def _(ctx, f, item):
    qp, at = ctx.local_qp_of(f), int(item["at"])
    if at in ctx.input_times:
        return
    arm = at - int(ctx.nic.get("sack_delay", 1000))
    i = rx5_write_at(ctx, qp, arm)
    if i is not None:
        f.set_ev(ctx.rx_writes[qp][i][2])


m = fault("nak-ev-last-accepted",
          "The ACK builder's EV latch is loaded only by accepted writes: a transport NAK for a "
          "remote access error leaves on the EV of the QP's last accepted write instead of "
          "the refused packet's.",
          ["RCV-NAK-002", "CONF-CMP-017"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    last = ctx.state.setdefault(m.name, {})
    for item in outs:
        ev = event_of(item)
        at = int(item["at"])
        if ev is not None and ev.get("event") == "dma_write":
            i = rx5_write_at(ctx, ev.get("qpn"), at, ev.get("psn"))
            if i is not None:
                last[ev.get("qpn")] = ctx.rx_writes[ev.get("qpn")][i][2]
            continue
        f = frame_of(item)
        if f is None or kind(f) != "nak":
            continue
        e = last.get(ctx.local_qp_of(f))
        if e is not None and e != f.ev():
            f.set_ev(e)
            put(ctx, m, item, f)
    return outs


# ---- refused packets that still count ------------------------------------------------------

m = fault("rx-access-error-sacked",
          "The bitmap bit is set when the write enters the placement stage, before the rkey "
          "and bounds check: a write NAKed for a remote access error is not placed, but later "
          "SACKs report it as received.",
          ["RCV-PLACE-002", "SETH-BITMAP-001", "SETH-CACK-001", "RCV-SACK-005",
           "RCV-REJECT-001"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = rx_state(ctx, m)
    marked = ctx.state.setdefault(m.name + ":marked", {})
    for item in outs:
        f = frame_of(item)
        if f is None:
            continue
        qp, at = ctx.local_qp_of(f), int(item["at"])
        if kind(f) == "nak":
            w = trigger_of(st, qp, at)
            if w is not None:
                marked.setdefault(qp, set()).add(w["psn"])
            continue
        if kind(f) not in ("sack", "probe-answer") or not marked.get(qp):
            continue
        cack, bm = f.get("seth", "cack_psn"), f.get("seth", "sack_bitmap")
        for p in marked[qp]:
            d = (p - cack) & U24
            if 1 <= d <= 64:
                bm |= 1 << (d - 1)
        while bm & 1:
            bm >>= 1
            cack = (cack + 1) & U24
        if (cack, bm) != (f.get("seth", "cack_psn"), f.get("seth", "sack_bitmap")):
            f.set("seth", "sack_bitmap", bm)
            f.set("seth", "cack_psn", cack)
            f.set("bth", "psn", cack)
            put(ctx, m, item, f)
    return outs


# ---- a zero-length message -----------------------------------------------------------------

m = fault("rcv-zero-length-never-complete",
          "A message is complete when a placement finishes with the placed bytes equal to "
          "dma_len: a zero-length message, which places nothing, never completes, so it and "
          "every message after it in its domain never retire.",
          ["RCV-MSG-003", "RET-ORDER-001", "RET-FLAG-001", "FLAG-RECV-002", "CQE-RECV-001",
           "RCV-ACK-001", "RCV-ACK-002"])


def rx_stuck_after(m, stuck):
    """Registers an output hook for a message that never completes: from the first
    retirement flag or receive completion whose byte_len `stuck(n)` says the device cannot
    complete, no retirement flag, receive completion or transport ACK is given."""

    @m.hook("outputs")
    def _(ctx, outs):
        st = ctx.state.setdefault(m.name, {"blocked": False})
        keep = []
        for item in outs:
            ev = event_of(item)
            f = frame_of(item)
            if ev is not None and ev.get("side") == "responder":
                if ev.get("event") == "flag_write":
                    st["blocked"] |= stuck(flag_fields(int(ev["value"]))["byte_len"])
                if ev.get("event") == "completion":
                    st["blocked"] |= stuck(completion_entry(ev).get("byte_len", -1))
                if st["blocked"] and ev.get("event") in ("flag_write", "completion"):
                    ctx.mutated(m.name)
                    continue
            if st["blocked"] and f is not None and kind(f) == "ack":
                ctx.mutated(m.name)
                continue
            keep.append(item)
        return keep


rx_stuck_after(m, lambda n: n == 0)


# ---- a failed QP that still answers a probe -----------------------------------------------

m = fault("rcv-error-answers-probe",
          "The probe path bypasses the QP's error state: a probe that reaches a failed QP is "
          "answered with the QP's last SACK state, as if it were still running.",
          ["RCV-QP-002", "EV-PROBE-004"])
rx5_track_probes(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault(m.name, {"failed": {}, "sack": {}, "done": set()})
    res = list(outs)
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "report" and ev.get("report") == "qp_error":
            st["failed"].setdefault(ev.get("qpn"), int(item["at"]))
        f = frame_of(item)
        if f is not None and kind(f) == "nack" and f.get("neth", "reason") == 0x19:
            st["failed"].setdefault(ctx.local_qp_of(f), int(item["at"]))
        if f is not None and kind(f) in ("sack", "probe-answer"):
            st["sack"][ctx.local_qp_of(f)] = item
    for (qp, at), (ev, pid, ts, _psn) in ctx.state.get("rx5:probes", {}).items():
        t = st["failed"].get(qp)
        last = st["sack"].get(qp)
        if t is None or at <= t or last is None or (qp, at) in st["done"]:
            continue
        st["done"].add((qp, at))
        f = frame_of(last)
        f.set("seth", "pr", 1)
        f.set("seth", "ack_psn_offset", pid & 0xFFFF)
        f.set("seth", "entropy", ev)
        f.set("cc_state", "tx_timestamp", ts or 0)
        f.set_ev(ev)
        f.seal()
        copy = json.loads(json.dumps(last))
        copy["at"] = at
        put_frame(copy, f)
        res.append(copy)
        ctx.mutated(m.name)
    res.sort(key=lambda o: int(o["at"]))
    return res


# ==========================================================================================
# A seventh reading: the sending side, the paths and the CPU half's recovery (sender.md,
# recovery.md, the requester parts of wire-format.md), as an RTL team builds them: a field
# packed at the wrong offset or in the wrong byte order, an intermediate result in a
# register too narrow, a field of a received header read from the wrong bits, a cached copy
# of the EV state refreshed one packet late, a timer in the wrong unit.
# ==========================================================================================

# ---- fields packed in the wrong byte order or at the wrong offset --------------------------

def seventh_swapped(name, text, reqs, kinds, header, field, swap, sent=True):
    """A fault of one field with its bytes in the wrong order: in the frames of `kinds` the
    device sends (`sent`), or in those it receives, as it reads them."""
    m = fault(name, text, reqs)

    def fn(ctx, f, item):
        if f.has(header):
            f.set(header, field, swap(f.get(header, field) & ((1 << 32) - 1)))

    (out_frames if sent else in_frames)(m, kinds)(fn)
    return m


seventh_swapped("meth-msn-bytes-swapped",
                "The METH msn is written with its two bytes in the wrong order.",
                ["METH-MSN-001", "SND-MSN-002", "METH-LAYOUT-001", "SND-MSN-001", "SND-RTX-001"],
                ("data",), "meth", "msn", swap16)
seventh_swapped("meth-rqmsn-bytes-swapped",
                "The METH rqmsn is written with its two bytes in the wrong order.",
                ["METH-RQMSN-001", "SND-RQMSN-002", "METH-LAYOUT-001", "SND-RTX-001"],
                ("data",), "meth", "rqmsn", swap16)
seventh_swapped("tseth-ts-bytes-swapped",
                "The TSETH tx_timestamp is written with its two bytes in the wrong order, so the "
                "stamps on the wire jump back each time the clock's low byte wraps.",
                ["SND-TS-002", "SND-TS-003", "TSETH-LAYOUT-001", "TSETH-TS-001"],
                ("data",), "tseth", "tx_timestamp", swap16)
seventh_swapped("probe-ts-bytes-swapped",
                "The PETH tx_timestamp of probes is written with its two bytes in the wrong "
                "order.",
                ["EV-PROBE-005", "SND-TS-003", "SND-TS-002", "PETH-LAYOUT-001"],
                ("probe",), "peth", "tx_timestamp", swap16)
seventh_swapped("reth-dma-len-bytes-swapped",
                "The RETH dma_len is written in host (little-endian) byte order.",
                ["SND-SEG-003", "RETH-LEN-003", "RETH-LAYOUT-001", "SND-RTX-001", "WR-EXEC-001",
                 "RETH-LEN-001", "RETH-VA-001"],
                ("data",), "reth", "dma_len", swap32)


m = fault("tseth-ftype-high-nibble",
          "The second TSETH word is packed from the wrong end: ftype lands in bits 15:12, "
          "where tsr and the reserved bits are, and bits 3:0 read 0.",
          ["TSETH-RESV-001", "SND-TS-002", "TSETH-FTYPE-001", "TSETH-LAYOUT-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if f.has("tseth"):
        ft = f.get("tseth", "ftype")
        f.set("tseth", "ftype", 0)
        f.set("tseth", "tsr", (ft >> 3) & 1)
        f.set("tseth", "resv", (ft & 7) << 8)


m = fault("probe-id-in-resv6",
          "The probe builder writes probe_id two bytes too far, into PETH bytes 6 and 7, "
          "reserved, and leaves bytes 4 and 5 at 0.",
          ["EV-PROBE-005", "PETH-RESV-001", "PETH-LAYOUT-001"])


@out_frames(m, ("probe",))
def _(ctx, f, item):
    f.set("peth", "resv6", f.get("peth", "probe_id"))
    f.set("peth", "probe_id", 0)


# ---- intermediate results in a register too narrow ------------------------------------------

m = fault("reth-va-offset-16bit",
          "The offset k x PMTU added to remote_va is computed in a 16-bit register: from the "
          "64 KiB of a message on, RETH va starts again at remote_va.",
          ["SND-SEG-003", "RETH-VA-002", "SND-RTX-001", "WR-EXEC-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    base = first_va(ctx, f, "reth-va-offset-16bit")
    if base is None:
        return
    off = (f.get("reth", "va") - base) & ((1 << 64) - 1)
    if off >= 1 << 16 and off < 1 << 40:
        f.set("reth", "va", (base + (off & 0xFFFF)) & ((1 << 64) - 1))


m = fault("tx-local-offset-16bit",
          "The offset k x PMTU added to local_va is computed in a 16-bit register: from the "
          "64 KiB of a message on, each packet carries the payload read 64 KiB lower in the "
          "message.",
          ["SND-SEG-001", "SND-RTX-001", "RCV-PLACE-003"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    st = ctx.state.setdefault("tx-local-offset-16bit", {})
    base = first_va(ctx, f, "tx-local-offset-16bit:va")
    if base is None:
        return
    off = (f.get("reth", "va") - base) & ((1 << 64) - 1)
    if off >= 1 << 40:
        return
    key = msg_key(f)
    if off < 1 << 16:
        st[(key, off)] = f.payload
        return
    src = st.get((key, off & 0xFFFF))
    if src is not None and len(src) == len(f.payload) and src != f.payload:
        f.replace_payload(src)


m = fault("ackreq-every-mask",
          "The AckReq multiple test is psn & (ack_req_every - 1) == 0, right only for a power "
          "of two: with any other ack_req_every AckReq lands on the wrong PSNs.",
          ["SND-ACKREQ-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    e = nic_int(ctx, "ack_req_every", 16)
    if e <= 0 or e & (e - 1) == 0 or is_last(f):
        return
    f.set("bth", "ack_req", int((f.get("bth", "psn") & (e - 1)) == 0))


# ---- fields of received headers read from the wrong bits ------------------------------------

m = fault("snd-sack-bitmap-bit-reversed",
          "The sender reads the SACK bitmap from the wrong end: bit i stands, for it, for "
          "PSN cack_psn + sack_offset + 63 - i.",
          ["SND-SACK-002", "SND-INFER-001", "SND-INFER-002", "SND-RTX-003", "SND-SACK-003",
           "SETH-BITMAP-001", "SND-SACK-001", "REC-IF-005", "REC-IF-007"])


@in_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    b = f.get("seth", "sack_bitmap")
    f.set("seth", "sack_bitmap", int("{:064b}".format(b)[::-1], 2))


seventh_swapped("snd-cack-bytes-swapped",
                "The sender reads SETH cack_psn with its three bytes in the wrong order.",
                ["SND-SACK-001", "SND-SACK-003", "SND-SACK-005", "SETH-CACK-001", "SND-SACK-002",
                 "REC-IF-005", "REC-IF-007", "SND-INFER-001", "EV-PROBE-002", "EV-PROBE-003"],
                ("sack", "probe-answer"), "seth", "cack_psn", swap24, sent=False)


seventh_swapped("snd-sack-offset-bytes-swapped",
                "The sender reads SETH sack_offset with its two bytes in the wrong order: an "
                "offset of 1 reads 256.",
                ["SND-SACK-004", "SND-SACK-002", "SND-SACK-005", "SND-INFER-002", "SND-SACK-003",
                 "REC-IF-005", "REC-IF-007", "SND-INFER-001", "SND-SACK-001", "EV-PROBE-002",
                 "EV-PROBE-003"],
                ("sack", "probe-answer"), "seth", "sack_offset",
                lambda v: swap16(v & 0xFFFF), sent=False)


m = fault("snd-entropy-halves-swapped",
          "The sender reads SETH entropy with its two 16-bit halves swapped: marks and probe "
          "answers are taken for another EV, usually one outside the profile.",
          ["EV-SKIP-001", "EV-BAD-001", "EV-PROBE-002", "EV-PROBE-003", "REC-IF-005",
           "REC-IF-007", "REC-IF-016", "SND-PATH-001", "SND-TAIL-003", "EV-STATE-001"])


@in_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    e = f.get("seth", "entropy")
    f.set("seth", "entropy", ((e & 0xFFFF) << 16) | (e >> 16))


m = fault("snd-nack-reason-vendor-byte",
          "The sender reads the NACK reason one byte too far, from NETH vendor_info: every "
          "NACK is taken for reason 0, unknown, and handled as a resource NACK.",
          ["SND-NACK-002", "SND-NACK-004", "SND-NACK-005", "EV-SKIP-001", "REC-IF-004", "REC-IF-008", "RET-FLUSH-001", "REC-IF-009", "REC-IF-016"])


@in_frames(m, ("nack",))
def _(ctx, f, item):
    f.set("neth", "reason", f.get("neth", "vendor_info"))


seventh_swapped("snd-nack-psn-bytes-swapped",
                "The sender reads NETH nack_psn with its three bytes in the wrong order.",
                ["SND-NACK-001", "SND-NACK-002", "SND-NACK-004", "REC-IF-004", "NETH-PSN-001",
                 "REC-IF-008", "EV-SKIP-001"],
                ("nack",), "neth", "nack_psn", swap24, sent=False)


m = fault("snd-aeth-msn-high-bits",
          "The sender reads the AETH msn one byte too early, bits 23:8 of the field instead "
          "of bits 15:0: an ACK for MSN 5 reads as one for MSN 0.",
          ["SND-ACK-001", "SND-ACK-002", "SND-ACK-005", "SND-ACK-003", "CQE-SEND-001",
           "FLAG-SEND-001", "REC-IF-002", "RET-SEND-001", "AETH-MSN-001", "FLAG-SEND-002",
           "FLAG-STATUS-001"])


@in_frames(m, ("ack", "nak"))
def _(ctx, f, item):
    f.set("aeth", "msn", (f.get("aeth", "msn") >> 8) & 0xFFFF)


seventh_swapped("snd-probe-answer-id-bytes-swapped",
                "The sender matches a probe answer's ack_psn_offset against its probe_id with "
                "the two bytes in the wrong order, so a tail probe's answer is not taken as its "
                "answer.",
                ["SND-TAIL-003", "REC-IF-007", "SND-TAIL-001"],
                ("probe-answer",), "seth", "ack_psn_offset",
                lambda v: swap16(v & 0xFFFF), sent=False)


# ---- a cached copy of the EV state, refreshed one packet late -------------------------------

def seventh_stale_ev(m, name, changes):
    """The spray engine's copy of a QP's EV states is refreshed after each data packet it
    sends: the first data packet of the QP strictly after an input `changes(ctx, item)`
    names as (qpn, ev) still goes on that EV."""

    @m.hook("inputs")
    def _(ctx, ins):
        st = ctx.state.setdefault(name, {})
        for item in ins:
            for qp, ev in changes(ctx, item):
                if qp is not None and ev in profile(ctx, qp):
                    st[qp] = (int(item["at"]), ev)
        return ins

    @m.hook("outputs")
    def _(ctx, outs):
        st = ctx.state.setdefault(name, {})
        for item, f in frames(outs, ("data",)):
            qp = ctx.local_qp_of(f)
            pend = st.get(qp)
            if pend is None or int(item["at"]) <= pend[0]:
                continue
            del st[qp]
            if f.ev() != pend[1]:
                f.set_ev(pend[1])
                f.seal()
                put_frame(item, f)
                ctx.mutated(name)
        return outs


m = fault("ev-deny-applied-late",
          "The spray engine keeps a copy of the EV state table that it refreshes after each "
          "packet: the first data packet after a SetEvState that takes an EV out of GOOD "
          "still goes on that EV.",
          ["EV-DENY-001", "EV-STATE-001", "SND-PATH-001", "EV-STATE-003", "REC-IF-012",
           "SND-RTX-002", "SND-SPRAY-001", "SND-SPRAY-003", "SND-SPRAY-004", "SND-SPRAY-005"])


def _seventh_cmd_changes(ctx, item):
    body = item.get("input") or {}
    c = body.get("command") or {}
    if body.get("kind") == "cpu" and c.get("cmd") == "set_ev_state" and c.get("state") != "GOOD":
        return [(c.get("qpn"), c.get("ev"))]
    return []


seventh_stale_ev(m, "ev-deny-applied-late", _seventh_cmd_changes)


m = fault("sack-mark-applied-late",
          "The spray engine's copy of the EV states is refreshed after each packet: the first "
          "data packet after a SACK that marks an EV SKIP_ONCE or ALWAYS_SKIP still goes on "
          "that EV.",
          ["EV-SKIP-001", "EV-BAD-001", "EV-STATE-001", "SND-PATH-001", "SND-RTX-002",
           "SND-SPRAY-001", "SND-SPRAY-003", "SND-SPRAY-004", "SND-SPRAY-005"])


def _seventh_mark_changes(ctx, item):
    f = frame_of(item)
    if f is None or kind(f) != "sack" or not sound(f) or f.get("seth", "m") not in (1, 2):
        return []
    return [(f.get("bth", "dest_qp"), f.get("seth", "entropy"))]


seventh_stale_ev(m, "sack-mark-applied-late", _seventh_mark_changes)


m = fault("trim-skip-applied-late",
          "The spray engine's copy of the EV states is refreshed after each packet: the first "
          "data packet after a NACK TRIMMED still goes on the EV the trim put in SKIP.",
          ["EV-SKIP-001", "EV-STATE-001", "SND-PATH-001", "SND-NACK-002", "SND-RTX-002",
           "SND-SPRAY-001", "SND-SPRAY-003", "SND-SPRAY-004", "SND-SPRAY-005"])


def _seventh_trim_changes(ctx, item):
    f = frame_of(item)
    if f is None or kind(f) != "nack" or not sound(f) or f.get("neth", "reason") not in (1, 2):
        return []
    qp = f.get("bth", "dest_qp")
    sent = ctx.tx.get((qp, f.get("neth", "nack_psn")))
    return [(qp, sent[0])] if sent else []


seventh_stale_ev(m, "trim-skip-applied-late", _seventh_trim_changes)


# ---- decoders and adders of the send engine -------------------------------------------------

m = fault("ackreq-on-first-not-last",
          "The last-packet AckReq is wired to the opcode decoder's first-packet output: FIRST "
          "packets carry AckReq and LAST packets do not, unless their PSN is a multiple of "
          "ack_req_every.",
          ["SND-ACKREQ-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    op = f.opcode
    if op not in (roce.MRC_WRITE_FIRST, roce.MRC_WRITE_LAST, roce.MRC_WRITE_LAST_IMM):
        return
    e = nic_int(ctx, "ack_req_every", 16)
    mult = e > 0 and f.get("bth", "psn") % e == 0
    f.set("bth", "ack_req", int(op == roce.MRC_WRITE_FIRST or mult))


m = fault("reth-va-carry-32",
          "The RETH va adder adds k x PMTU to the low 32 bits of remote_va alone and drops "
          "the carry: a message that crosses a 4 GiB boundary wraps to the start of its "
          "4 GiB block.",
          ["SND-SEG-003", "RETH-VA-002", "SND-RTX-001", "WR-EXEC-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    base = first_va(ctx, f, "reth-va-carry-32")
    if base is None:
        return
    va = f.get("reth", "va")
    if va >> 32 != base >> 32:
        f.set("reth", "va", (base & ~0xFFFFFFFF) | (va & 0xFFFFFFFF))


m = fault("probe-id-same-cycle",
          "The probe_id counter is read before it is written back: two probes a QP sends at "
          "one instant carry the same probe_id.",
          ["EV-PROBE-005", "SND-TAIL-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    last = {}
    for item, f in frames(outs, ("probe",)):
        key = (f.get("bth", "dest_qp"), int(item["at"]))
        pid = f.get("peth", "probe_id")
        if key in last and last[key] != pid:
            f.set("peth", "probe_id", last[key])
            put(ctx, m, item, f)
        else:
            last[key] = pid
    return outs


# ==========================================================================================
# A seventh reading: the host side as an RTL team builds it (host-interface.md,
# completion.md): a comparison written with the wrong bound, a field packed at the wrong
# offset or in the wrong byte order, an adder or register too narrow, a cached copy that
# goes stale, a table entry an error path changes, the wrong context read when two are live.
# ==========================================================================================

# ---- doorbells: the bus, the registers, the bounds -----------------------------------------

m = fault("db-seq-half-ring-stale",
          "The sequence comparator tests behind <= 2^15 for StaleSeq instead of < 2^15: a "
          "token exactly half the ring ahead of the expected seq is reported STALE_SEQ, "
          "not SEQ_GAP.",
          ["DB-SEQ-002", "DB-SEQ-003", "CQE-REJECT-001"])


def _(ctx, book, t, at, seen):
    i = t >> 48 & 0xFFF
    e = book.expected.get(i, 0)
    if book.verdict(t) != 0x04 or (e - (t >> 32)) & 0xFFFF != 0x8000:
        return None
    return with_seq(t, e - 1)


token_faults(m, _)


m = fault("db-partial-zero-extended",
          "The doorbell decoder checks the offset of a bus write but not its byte enables: a "
          "write of fewer than 8 bytes at offset 0 is zero-extended and taken as a token.",
          ["DB-MMIO-002", "DB-ACCEPT-001", "DB-REJECT-001", "CQE-REJECT-001",
           "CQE-REJECT-002", "DB-VERSION-001"])


@m.hook("inputs")
def _(ctx, ins):
    for item, c in host_commands(ins):
        b = c.get("bytes", "")
        if c.get("command") == "doorbell_write" and c.get("offset") == 0 and 0 < len(b) < 16:
            c["bytes"] = b + "0" * (16 - len(b))
            ctx.mutated("db-partial-zero-extended")
    return ins


m = fault("db-register-zero-only",
          "The doorbell address decoder compares every address bit with register 0's: a "
          "token written to any other doorbell register is dropped.",
          ["DB-MMIO-003", "DB-ACCEPT-001", "DB-SEQ-001", "DB-SEQ-003", "CQE-REJECT-001",
           "WR-EXEC-001", "FLAG-SEND-001", "CQE-SEND-001"])


@m.hook("inputs")
def _(ctx, ins):
    for item, c in host_commands(ins):
        if (c.get("command") == "doorbell_write" and c.get("register")
                and token_of(c) is not None):
            c["bytes"] = ""
            ctx.mutated("db-register-zero-only")
    return ins


m = fault("db-dwords-swapped",
          "The doorbell register's two 32-bit lanes are wired crossed: the bus's bytes 0 to 3 "
          "land in the token's bits 63:32 and bytes 4 to 7 in bits 31:0.",
          ["DB-FORMAT-002", "DB-FORMAT-001", "DB-ACCEPT-001", "DB-VERSION-001",
           "DB-TEMPLATE-001", "CQE-REJECT-001", "CQE-REJECT-002",
           "WR-EXEC-001", "FLAG-SEND-001", "CQE-SEND-001", "DB-REJECT-001"])


@m.hook("inputs")
def _(ctx, ins):
    for item, c in host_commands(ins):
        if c.get("command") == "doorbell_write" and token_of(c) is not None:
            b = c["bytes"]
            if b[8:] + b[:8] != b:
                c["bytes"] = b[8:] + b[:8]
                ctx.mutated("db-dwords-swapped")
    return ins


m = fault("reject-advances-seq",
          "The expected seq is written back in the cycle the sequence check passes, before "
          "the index and length checks: a token rejected INDEX_OUT_OF_RANGE or "
          "LENGTH_OUT_OF_RANGE consumes its seq.",
          ["DB-REJECT-001", "DB-SEQ-001", "DB-SEQ-002", "DB-SEQ-003", "DB-ACCEPT-001",
           "CQE-REJECT-001", "CQE-SEND-001", "FLAG-SEND-001", "WR-EXEC-001"])
REJECT_ADVANCES = m


def _(ctx, book, t, at, seen):
    ahead = ctx.state.setdefault("reject-advances-seq:d", {})
    i = t >> 48 & 0xFFF
    n = with_seq(t, (t >> 32) - ahead.get(i, 0))
    if book.verdict(n) in (0x05, 0x06):
        ahead[i] = ahead.get(i, 0) + 1
    return n


def _reset(ctx, c):
    if c.get("command") != "set_template" or not template_valid(c):
        return
    old = token_book(ctx, REJECT_ADVANCES).tpl.get(c.get("template_id"))
    if old is None or dict(old, enabled=c.get("enabled")) != c:
        ctx.state.setdefault("reject-advances-seq:d", {})[c.get("template_id")] = 0


token_faults(m, _, _reset)


# ---- templates: a narrow adder, a stale cache, an error path that writes -------------------

m = fault("tpl-remote-va-carry-lost",
          "The remote-address adder adds index x remote_stride to the low 32 bits of "
          "remote_base alone: a slot whose address crosses a 4 GiB boundary from the base "
          "loses the carry into bits 63:32.",
          ["TPL-EXPAND-003", "SND-SEG-003", "RETH-VA-002", "WR-EXEC-001"])
track_templates(m)


@out_frames(m, ("data",))
def _(ctx, f, item, m=m):
    if not f.has("reth"):
        return
    va = f.get("reth", "va")
    for tpl in host_templates(ctx, m).values():
        base = int(tpl.get("remote_base", 0))
        if base <= va < base + int(tpl.get("remote_region_len", 0)) and va >> 32 != base >> 32:
            f.set("reth", "va", (base >> 32) << 32 | (va & 0xFFFFFFFF))
            return


m = fault("tpl-cache-stale",
          "The doorbell unit keeps the template it used last in a one-entry cache that a "
          "template write does not update: tokens for that template are expanded and "
          "sequence-checked from the old copy until a token for another template evicts it.",
          ["TPL-INSTALL-002", "TPL-INSTALL-003", "DB-SEQ-001",
           "DB-SEQ-002", "DB-SEQ-003", "WR-EXEC-001", "TPL-EXPAND-001", "TPL-EXPAND-002",
           "TPL-EXPAND-003", "TPL-EXPAND-004", "TPL-EXPAND-005", "TPL-EXPAND-006",
           "SND-SEG-003", "SND-SEG-004", "DB-ACCEPT-001", "CQE-REJECT-001", "FLAG-SEND-001",
           "CQE-SEND-001", "DB-TEMPLATE-001", "WR-SIGNALED-001"])


@m.hook("inputs")
def _(ctx, ins):
    st = ctx.state.setdefault("tpl-cache-stale", {"cached": None, "held": []})
    out = []
    for item in ins:
        inp = item.get("input") or {}
        c = inp.get("command") or {} if inp.get("kind") == "host" else {}
        if c.get("command") == "set_template" and c.get("template_id") == st["cached"]:
            st["held"].append(item)
            continue
        t = token_of(c)
        if t is not None and t >> 60 == 1:
            i = t >> 48 & 0xFFF
            if i != st["cached"]:
                for h in st["held"]:
                    h["at"] = item.get("at")
                    out.append(h)
                st["held"] = []
                st["cached"] = i
            elif st["held"]:
                ctx.mutated("tpl-cache-stale")
        out.append(item)
    return out


def local_key_covers(regs, c):
    """Whether a registration readable by the NIC covers the template's local region."""
    r = regs.get(c.get("local_lkey"))
    if not r or not r.get("local_read"):
        return False
    lo, n = int(c.get("local_base", 0)), int(c.get("local_region_len", 0))
    return int(r.get("base", 0)) <= lo and lo + n <= int(r.get("base", 0)) + int(r.get("len", 0))


m = fault("tpl-refused-install-disables",
          "An installation clears the table entry's enable bit before the validity checks "
          "run, and a refused one leaves it clear: trying to replace a template with an "
          "invalid one disables the template it was to replace.",
          ["TPL-INSTALL-001", "TPL-KEY-001", "DB-TEMPLATE-001", "DB-ACCEPT-001",
           "CQE-REJECT-001", "CQE-REJECT-002", "CQE-OPCODE-001", "WR-EXEC-001",
           "FLAG-SEND-001", "CQE-SEND-001"])


@m.hook("inputs")
def _(ctx, ins):
    regs = ctx.state.setdefault("tpl-refused-install-disables:regs", {})
    tpls = ctx.state.setdefault("tpl-refused-install-disables:tpl", {})
    for item, c in host_commands(ins):
        cmd = c.get("command")
        if cmd == "register_local":
            regs[c.get("lkey")] = dict(c)
        elif cmd == "deregister_local":
            regs.pop(c.get("lkey"), None)
            for t in tpls.values():
                if t.get("local_lkey") == c.get("lkey"):
                    t["enabled"] = False
        elif cmd == "set_template":
            i = c.get("template_id")
            ok = template_valid(c) and (not c.get("enabled") or local_key_covers(regs, c))
            old = tpls.get(i)
            if ok:
                tpls[i] = dict(c)
            elif old is not None and old.get("enabled") and int(i) < 4096:
                old["enabled"] = False
                c.clear()
                c.update(old)
                ctx.mutated("tpl-refused-install-disables")
    return ins


m = fault("reject-stale-writes-flag",
          "The rejection path shares the flag writer's request line with the completion path: "
          "a token rejected after the template check writes a flag at its slot, with the "
          "token's seq as generation and the rejection's status.",
          ["FLAG-SEND-003", "DB-REJECT-001", "FLAG-STATUS-001", "FLAG-SEND-001",
           "FLAG-LEN-001"])
track_templates(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    added = []
    for item in outs:
        ev = event_of(item)
        if not ev or ev.get("event") != "completion":
            continue
        e = completion_entry(ev)
        w = int(e.get("wr_id", 0))
        tpl = host_templates(ctx, m).get(w >> 48 & 0xFFF)
        if not 0x03 <= int(e.get("status", 0)) <= 0x06 or tpl is None:
            continue
        q = ctx.qps.get(tpl.get("qpn")) or {}
        s = int(tpl.get("flag_base_slot", 0)) + (w >> 16 & 0xFFFF)
        if s >= int(q.get("send_flag_slots", 0)):
            continue
        v = flag_value({"generation": w >> 32 & 0xFFFF, "status": int(e["status"]),
                        "valid": 1, "resv": 0, "byte_len": 0})
        added.append({"at": item["at"], "output": {"kind": "event", "event": {
            "event": "flag_write", "qpn": tpl.get("qpn"), "side": "requester", "msn": 0,
            "addr": int(q.get("send_flag_base", 0)) + 8 * s, "value": v}}})
        ctx.mutated("reject-stale-writes-flag")
    if added:
        outs = outs + added
        outs.sort(key=lambda o: int(o["at"]))
    return outs


# ---- completion queues: the consumer register, the slot address, the entry's bytes ---------

m = fault("cq-consumer-plus-one",
          "The consumer register is loaded with the count plus one, a pre-increment meant "
          "for a slot pointer: a queue is found full one entry late, and the entry that "
          "should have found no free slot overwrites one the consumer has not released.",
          ["CQE-RING-004", "CQE-RING-005", "RET-ERR-002", "REC-IF-009", "RET-FLUSH-001",
           "CQE-RING-001"])


@m.hook("inputs")
def _(ctx, ins):
    real = ctx.state.setdefault("cq-consumer-plus-one:c", {})
    for item, c in host_commands(ins):
        if c.get("command") == "cq_consumer":
            real[c.get("cq")] = int(c["consumed"])
            c["consumed"] = (int(c["consumed"]) + 1) & 0xFFFFFFFF
    return ins


@m.hook("outputs")
def _(ctx, outs):
    real = ctx.state.setdefault("cq-consumer-plus-one:c", {})
    counts = ctx.state.setdefault("cq-consumer-plus-one:k", {})
    for item in outs:
        ev = event_of(item) or {}
        q = ev.get("queue") if ev.get("event") == "completion" else None
        if not q or ctx.cqs.get(q.get("cq")) is None:
            continue
        cq, n = q.get("cq"), int(ctx.cqs[q.get("cq")].get("entries", 1))
        k = counts.get(cq, 0)
        counts[cq] = k + 1
        if cq in real and (k - real[cq]) & 0xFFFFFFFF >= n:
            ctx.mutated("cq-consumer-plus-one")
    return outs


m = fault("cq-consumer-after-instant",
          "The consumer register's write port is served after the completion engine in a "
          "cycle: a consumer write at the same instant as an input that completes messages "
          "takes effect only after that input's completions.",
          ["CQE-RING-004", "CQE-RING-005", "RET-ERR-002", "REC-IF-009", "RET-FLUSH-001",
           "CQE-RING-001"])


@m.hook("inputs")
def _(ctx, ins):
    out = list(ins)
    for item in list(ins):
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") != "cq_consumer":
            continue
        j = out.index(item)
        k = j
        while k + 1 < len(out) and int(out[k + 1].get("at", 0)) == int(item.get("at", 0)):
            k += 1
        if k > j:
            out.insert(k, out.pop(j))
            ctx.mutated("cq-consumer-after-instant")
    return out


m = fault("cqe-addr-stride-16",
          "The slot address is base + 16 x slot: the shifter of the address generator "
          "shifts by 4, the size of the previous entry format.",
          ["CQE-RING-001", "CQE-RING-003", "CQE-SETUP-001"])


def _(ctx, item, ev, q, e, c):
    q["addr"] = int(c["base"]) + 16 * int(q.get("slot", 0))


queue_entries(m, _)


m = fault("cqe-addr-high-word-lost",
          "The queue base register keeps bits 31:0 alone: entries of a queue at 4 GiB or "
          "above are written below 4 GiB.",
          ["CQE-RING-001", "CQE-RING-003", "CQE-SETUP-001"])


def _(ctx, item, ev, q, e, c):
    q["addr"] = (int(c["base"]) + 32 * int(q.get("slot", 0))) & 0xFFFFFFFF


queue_entries(m, _)


m = fault("cqe-msn-big-endian",
          "The msn of a completion entry is written big-endian: the entry builder swaps "
          "the two bytes as it does for the wire.",
          ["CQE-LAYOUT-001", "CQE-SEND-001", "CQE-SEND-002", "CQE-RECV-001"])
completions(m, None, lambda ctx, ev, e: e.__setitem__("msn", swap16(int(e.get("msn", 0)))))


m = fault("recv-cqe-len-imm-swapped",
          "Receive completions carry byte_len in bytes 20 to 23 and the immediate in bytes "
          "16 to 19: the two lanes of the receive-entry builder are crossed.",
          ["CQE-LAYOUT-001", "CQE-RECV-001"])


def _(ctx, ev, e):
    if e.get("is_receive"):
        e["byte_len"], e["imm"] = e.get("imm", 0), e.get("byte_len", 0)


completions(m, "responder", _)


m = fault("cqe-flag-bits-shifted",
          "The flag bits of byte 10 are packed from bit 1: has_imm lands in is_receive, "
          "is_receive in has_timestamp, and has_timestamp in the reserved bit 3.",
          ["CQE-LAYOUT-001", "CQE-RESV-001", "CQE-IMM-002", "CQE-SEND-001", "CQE-RECV-001",
           "CQE-TS-001", "CQE-REJECT-001", "CQE-SEND-002"])


def _(ctx, ev, e):
    h, r, t = bool(e.get("has_imm")), bool(e.get("is_receive")), bool(e.get("has_timestamp"))
    e["has_imm"], e["is_receive"], e["has_timestamp"] = False, h, r
    e["flags_resv"] = int(e.get("flags_resv", 0)) | int(t)


completions(m, None, _)


m = fault("cqe-phase-bit7",
          "The phase is written into bit 7 of byte 31 instead of bit 0: a byte-wide "
          "owner field was narrowed at the wrong end.",
          ["CQE-RING-001", "CQE-RESV-001", "CQE-LAYOUT-001", "CQE-RING-003"])


def _(ctx, item, ev, q, e, c):
    e["owner_resv"] = (int(e.get("owner_resv", 0)) & 0x3F) | (int(bool(e["phase"])) << 6)
    e["phase"] = False


queue_entries(m, _)


m = fault("cqe-wr-id-words-swapped",
          "The 64-bit wr_id is written as two 32-bit words in the wrong order: bits 31:0 "
          "land in bytes 4 to 7 and bits 63:32 in bytes 0 to 3.",
          ["CQE-LAYOUT-001", "CQE-SEND-001", "CQE-SEND-002", "CQE-REJECT-001",
           "TPL-EXPAND-007"])


def _(ctx, ev, e):
    w = int(e.get("wr_id", 0))
    e["wr_id"] = (w & 0xFFFFFFFF) << 32 | w >> 32


completions(m, None, _)


m = fault("recv-cq-first-qp",
          "The receive-queue select register is loaded when the first QP is created and "
          "never again: every QP's receive completions go to the receive queue of the "
          "first QP.",
          ["CQE-ROUTE-001", "CQE-RING-001", "CQE-RECV-001"])


def _(ctx, ev, cq):
    if ev.get("side") != "responder" or not completion_entry(ev).get("is_receive"):
        return cq
    first = next((q.get("recv_cq") for q in ctx.qps.values()
                  if q.get("recv_cq") is not None), None)
    return cq if first is None else first


ring_faults(m, _)


# ---- flags: the word's lanes, the slot mask ------------------------------------------------

m = fault("flag-status-one-bit-low",
          "The flag writer packs status at bits 46:39 instead of 47:40: status bit 0 lands "
          "on the valid bit and the rest one bit low.",
          ["FLAG-LAYOUT-001", "FLAG-STATUS-001", "FLAG-SEND-001", "FLAG-VALID-001"])


def _(ctx, ev, d):
    if d["status"]:
        d["valid"] |= d["status"] & 1
        d["status"] >>= 1


flags(m, None, _)


m = fault("flag-len-big-endian",
          "The flag writer stores byte_len big-endian, as the RETH carries dma_len.",
          ["FLAG-LAYOUT-001", "FLAG-LEN-001", "FLAG-SEND-001", "FLAG-RECV-002",
           "RET-FLAG-001"])
flags(m, None, lambda ctx, ev, d: d.__setitem__("byte_len", swap32(d["byte_len"])))


m = fault("recv-flag-slot-mask-count",
          "The retirement-flag slot is MSN AND rx_flag_slots instead of MSN AND "
          "(rx_flag_slots - 1): the mask was built from the count, not the count less one.",
          ["FLAG-RECV-001", "RET-FLAG-001", "FLAG-TABLE-001", "FLAG-RECV-002"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    c = ctx.qps.get(ev.get("qpn")) or {}
    n = int(c.get("recv_flag_slots", 0))
    if ev.get("side") != "responder" or ev.get("msn") is None or n <= 0 or n & (n - 1):
        return
    ev["addr"] = int(c.get("recv_flag_base", 0)) + 8 * (int(ev["msn"]) & n)


m = fault("recv-flag-base-ored",
          "The retirement-flag address is recv_flag_base OR 8 x slot, not the sum: right only "
          "when the base is aligned to the size of the QP's ring of flags.",
          ["FLAG-RECV-001", "RET-FLAG-001", "FLAG-TABLE-001", "FLAG-RECV-002"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    c = ctx.qps.get(ev.get("qpn")) or {}
    n = int(c.get("recv_flag_slots", 0))
    if ev.get("side") != "responder" or ev.get("msn") is None or n <= 0 or n & (n - 1):
        return
    ev["addr"] = int(c.get("recv_flag_base", 0)) | 8 * (int(ev["msn"]) % n)


# ---- Write-with-Immediate: the limit's comparators -----------------------------------------

m = fault("wwi-limit-minus-one",
          "Both Write-with-Immediate limit comparators use >= where > is meant: the sender "
          "holds a message back with wwi_limit - 1 outstanding, and the responder refuses "
          "an RQMSN exactly wwi_limit ahead.",
          ["WWI-LIMIT-001", "WWI-LIMIT-002"])
config(m, "nic", "wwi_limit", lambda v: int(v) - 1 if int(v) > 1 else int(v),
       lambda ctx: "write-immediate" in ctx.requires)


# ---- the error state and the device registers, once more ------------------------------------

m = fault("flush-token-takes-msn",
          "A token for a QP in the error state goes through the MSN counter as a new message "
          "does: its FLUSHED completion and sender flag carry the QP's next MSN instead of 0.",
          ["RET-FLUSH-001", "CQE-SEND-002", "CQE-SEND-001"])


@m.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("flush-token-takes-msn", {"msn": {}, "failed": {}})
    for item in outs:
        ev = event_of(item)
        if not ev or ev.get("side") != "requester":
            continue
        at = int(item["at"])
        if ev.get("event") == "completion":
            e = completion_entry(ev)
            if e.get("is_receive") or not 0x10 <= int(e.get("status", 0)) <= 0x15:
                continue
            q, msn = e.get("qpn"), int(e.get("msn", 0))
            failed = st["failed"].get(q)
            if e["status"] == 0x15 and msn == 0 and failed is not None and failed < at:
                e["msn"] = (st["msn"].get(q, 0) + 1) & 0xFFFF
                set_completion_entry(ev, e)
                st["msn"][q] = e["msn"]
                st.setdefault("flag", {})[(q, at)] = e["msn"]
                ctx.mutated("flush-token-takes-msn")
                continue
            st["msn"][q] = max(st["msn"].get(q, 0), msn)
            st["failed"].setdefault(q, at)
        elif ev.get("event") == "flag_write":
            n = st.get("flag", {}).get((ev.get("qpn"), at))
            if n is not None and int(ev.get("msn", 0)) == 0:
                ev["msn"] = n
    return outs


m = fault("error-cq-register-unwritten",
          "The device-error-queue register is loaded only at reset: set_error_cq is dropped, "
          "and tokens that name no usable template complete in the first queue created.",
          ["CQE-REJECT-002", "CQE-ROUTE-001", "CQE-RING-001", "CQE-SETUP-003"])


def _(ctx, ev, cq):
    e = completion_entry(ev)
    first = next(iter(ctx.cqs), None)
    if int(e.get("status", 0)) in (0x01, 0x02) and not e.get("is_receive") and first is not None:
        return first
    return cq


ring_faults(m, _)


m = fault("send-flag-stride-4",
          "The sender flag address is send_flag_base + 4 x flag_slot: the flag writer kept "
          "the 4-byte stride of a 32-bit flag format.",
          ["FLAG-SEND-001", "FLAG-TABLE-001", "TPL-EXPAND-006", "FLAG-WRITE-001"])


@out_events(m, ("flag_write",))
def _(ctx, ev, item):
    if ev.get("side") != "requester":
        return
    base = int((ctx.qps.get(ev.get("qpn")) or {}).get("send_flag_base", 0))
    off = int(ev["addr"]) - base
    if off > 0 and off % 8 == 0:
        ev["addr"] = base + off // 2


m = fault("cqe-addr-no-wrap",
          "The entry address is a running pointer that adds 32 per entry and is not reset "
          "when the producer index wraps: from the second pass on, entries are written past "
          "the end of the ring.",
          ["CQE-RING-001", "CQE-RING-003", "CQE-SETUP-001"])


def _(ctx, item, ev, q, e, c):
    st = ctx.state.setdefault("cqe-addr-no-wrap", {})
    k = st.get(q.get("cq"), 0)
    st[q.get("cq")] = k + 1
    q["addr"] = int(c["base"]) + 32 * k


queue_entries(m, _)


# ==========================================================================================
# A seventh reading: the receiving side as an RTL team builds it (receiver.md and the
# responder rules of wire-format.md): fields packed at the wrong bit offset or with their
# bytes in the wrong order, registers too narrow, comparisons at a bound written with the
# wrong operator, serial-number arithmetic at half the PSN space, state read in the cycle
# it is written, and the context of the wrong QP read when two QPs answer at one instant.
# ==========================================================================================

def rx7_swap(v, n):
    """`v` as `n` bytes in the other byte order."""
    return int.from_bytes(v.to_bytes(n, "big"), "little")


# ---- fields packed in the wrong byte order ---------------------------------------------------

m = fault("sack-cack-le",
          "The SETH builder writes cack_psn little-endian across its three bytes; the BTH psn "
          "next to it is right.",
          ["SETH-CACK-001", "SETH-LAYOUT-001", "RCV-SACK-005", "SETH-BITMAP-002",
           "SETH-ACKPSN-003", "PETH-RESP-001", "EV-PROBE-004", "OPC-PSN-002"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "cack_psn", rx7_swap(f.get("seth", "cack_psn"), 3))


m = fault("sack-offset-le",
          "The SETH builder writes sack_offset little-endian: every SACK says the bitmap "
          "starts 256 PSNs after cack_psn.",
          ["RCV-SACK-005", "SETH-LAYOUT-001", "SETH-BITMAP-001", "SETH-BITMAP-002",
           "PETH-RESP-001", "EV-PROBE-004"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("seth", "sack_offset", rx7_swap(f.get("seth", "sack_offset") & 0xFFFF, 2))


m = fault("sack-rcvd-bytes-le",
          "The CC_STATE builder writes rcvd_bytes little-endian across its three bytes.",
          ["CCS-BYTES-001", "CCS-LAYOUT-001", "RCV-SACK-007", "PETH-RESP-001", "EV-PROBE-004"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("cc_state", "rcvd_bytes", rx7_swap(f.get("cc_state", "rcvd_bytes"), 3))


m = fault("sack-ts-le",
          "The CC_STATE builder writes the reflected tx_timestamp little-endian.",
          ["CCS-TS-001", "CCS-LAYOUT-001", "RCV-SACK-007", "PETH-RESP-001", "EV-PROBE-004"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("cc_state", "tx_timestamp", rx7_swap(f.get("cc_state", "tx_timestamp"), 2))


m = fault("sack-ooo-bit-high",
          "The out-of-order counter is packed one bit too high in CC_STATE bytes 2 and 3: "
          "ooo_count reads twice the count, and bit 14 of the count lands in resv.",
          ["CCS-OOO-001", "CCS-LAYOUT-001", "RCV-SACK-007", "CCS-RESV-001", "PETH-RESP-001",
           "EV-PROBE-004"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    v = f.get("cc_state", "ooo_count") << 1
    f.set("cc_state", "ooo_count", v & 0x7FFF)
    f.set("cc_state", "resv", (v >> 15) & 1)


m = fault("nack-psn-le",
          "The NETH builder writes nack_psn little-endian across its three bytes; the BTH psn "
          "is right.",
          ["NETH-PSN-001", "NETH-LAYOUT-001", "RCV-NACK-001", "OPC-PSN-002", "RCV-WIN-002"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    f.set("neth", "nack_psn", rx7_swap(f.get("neth", "nack_psn"), 3))


m = fault("nack-entropy-le",
          "The NETH builder writes entropy, the NACKed packet's EV, little-endian.",
          ["NETH-PSN-001", "NETH-LAYOUT-001", "RCV-NACK-001", "ENC-EV-003"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    f.set("neth", "entropy", rx7_swap(f.get("neth", "entropy"), 4))


m = fault("nack-reason-in-vendor-info",
          "The NETH builder writes the reason one byte too far, into vendor_info, and leaves "
          "the reason byte 0.",
          ["RCV-NACK-001", "NETH-LAYOUT-001", "NETH-REASON-001", "RCV-WIN-002",
           "NETH-VENDOR-001", "WWI-LIMIT-002"])


@out_frames(m, ("nack",))
def _(ctx, f, item):
    f.set("neth", "vendor_info", f.get("neth", "reason"))
    f.set("neth", "reason", 0)


m = fault("ack-msn-byte-high",
          "The AETH builder writes the 16-bit MSN into bytes 1 and 2 instead of 2 and 3: the "
          "msn field reads the MSN times 256.",
          ["AETH-MSN-001", "AETH-LAYOUT-001", "RCV-ACK-002", "RCV-NAK-002", "RCV-DUP-002"])


@out_frames(m, ("ack", "nak"))
def _(ctx, f, item):
    f.set("aeth", "msn", (f.get("aeth", "msn") << 8) & U24)


m = fault("sack-bitmap-bit0-set",
          "Bit 0 of the SACK bitmap is wired to the bitmap's valid bit: it is always 1, as "
          "if PSN epsn had arrived.",
          ["SETH-BITMAP-002", "SETH-BITMAP-001", "RCV-SACK-005", "PETH-RESP-001",
           "EV-PROBE-004"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    if f.get("seth", "sack_offset") == 1:
        f.set("seth", "sack_bitmap", f.get("seth", "sack_bitmap") | 1)


# ---- registers too narrow ----------------------------------------------------------------

m = fault("sack-ooo-6bit",
          "The out-of-order counter is 6 bits wide, sized for the 64-bit SACK bitmap: a "
          "count of 64 or more PSNs after cack_psn is reported modulo 64.",
          ["CCS-OOO-001", "RCV-SACK-007"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    f.set("cc_state", "ooo_count", f.get("cc_state", "ooo_count") & 0x3F)


m = fault("rcv-placed-bytes-16bit",
          "The placed-bytes counter of a message entry is 16 bits wide: a message of 64 KiB "
          "or more never reaches its dma_len, so it and every message after it in its domain "
          "never retire.",
          ["RCV-MSG-003", "RET-ORDER-001", "RET-FLAG-001", "FLAG-RECV-002", "CQE-RECV-001",
           "RCV-ACK-001", "RCV-ACK-002"])


rx_stuck_after(m, lambda n: n >= 0x10000)


# ---- input fields read in the wrong byte order ---------------------------------------------

m = fault("rx-rkey-le",
          "The receive parser reads RETH rkey little-endian: the region lookup misses, and "
          "writes are NAKed or placed through another region.",
          ["RCV-PLACE-002", "RCV-PLACE-003", "RETH-LAYOUT-001", "RETH-RKEY-001"])


@in_frames(m, ("data",))
def _(ctx, f, item):
    f.set("reth", "rkey", rx7_swap(f.get("reth", "rkey"), 4))


m = fault("rx-va-words-swapped",
          "The receive parser loads the 64-bit RETH va as two 32-bit words in the wrong "
          "order.",
          ["RCV-PLACE-003", "RCV-PLACE-002", "RETH-LAYOUT-001", "RETH-VA-002"])


@in_frames(m, ("data",))
def _(ctx, f, item):
    va = f.get("reth", "va")
    f.set("reth", "va", ((va & 0xFFFFFFFF) << 32) | (va >> 32))


m = fault("rx-tseth-ts-le",
          "The receive parser latches the TSETH tx_timestamp little-endian: SACKs and NACKs "
          "reflect it byte-swapped.",
          ["CCS-TS-001", "RCV-SACK-007", "NETH-TS-001", "RCV-NACK-001", "TSETH-LAYOUT-001"])


@in_frames(m, ("data",))
def _(ctx, f, item):
    if f.has("tseth"):
        f.set("tseth", "tx_timestamp", rx7_swap(f.get("tseth", "tx_timestamp"), 2))


# ---- the wrong QP's context when two QPs answer at one instant ------------------------------

def rx7_same_instant(m, kinds, copy_fields):
    """Registers an output hook for a builder that latches its fields once per cycle: of
    two frames of `kinds` for different QPs at one instant, the second carries the
    `copy_fields` (header, field) of the first."""

    @m.hook("outputs")
    def _(ctx, outs):
        first = {}
        for item in outs:
            f = frame_of(item)
            if f is None or kind(f) not in kinds:
                continue
            at, qp = int(item["at"]), ctx.local_qp_of(f)
            if at not in first:
                first[at] = (qp, [f.get(h, n) for h, n in copy_fields])
                continue
            q0, vals = first[at]
            if q0 == qp:
                continue
            before = bytes(f.b)
            for (h, n), v in zip(copy_fields, vals):
                f.set(h, n, v)
            if bytes(f.b) != before:
                put(ctx, m, item, f)
        return outs


m = fault("sack-state-latched-cycle",
          "The SACK builder reads the QP context once per cycle: when two QPs send SACKs at one "
          "instant, the second carries the first QP's cack_psn and bitmap.",
          ["SETH-CACK-001", "SETH-BITMAP-001", "RCV-SACK-005", "OPC-PSN-002", "SETH-ACKPSN-003",
           "SETH-BITMAP-002", "PETH-RESP-001", "EV-PROBE-004"])
rx7_same_instant(m, ("sack", "probe-answer"),
                 [("seth", "cack_psn"), ("bth", "psn"), ("seth", "sack_bitmap")])


m = fault("ack-msn-latched-cycle",
          "The ACK builder reads the retired-MSN register once per cycle: when two QPs send "
          "transport ACKs at one instant, the second carries the first QP's msn.",
          ["AETH-MSN-001", "RCV-ACK-002", "RCV-ACK-003"])
rx7_same_instant(m, ("ack",), [("aeth", "msn")])


m = fault("sack-rcvd-bytes-latched-cycle",
          "The CC_STATE builder reads the received-bytes counter once per cycle: when two QPs "
          "send SACKs at one instant, the second carries the first QP's rcvd_bytes.",
          ["CCS-BYTES-001", "RCV-SACK-007", "PETH-RESP-001", "EV-PROBE-004"])
rx7_same_instant(m, ("sack", "probe-answer"), [("cc_state", "rcvd_bytes")])


m = fault("ack-dest-qp-of-trigger",
          "A transport ACK that a write of another QP causes, by retiring messages of a shared "
          "domain, is addressed to the peer QP of the QP that received the write: the ACK "
          "builder takes dest_qp from the triggering packet's QP context.",
          ["RCV-ACK-003", "RCV-ACK-002", "CONF-CMP-026"])


@out_frames(m, ("ack",))
def _(ctx, f, item):
    qp, at = ctx.local_qp_of(f), int(item["at"])
    if at not in ctx.input_times or rx5_write_at(ctx, qp, at) is not None:
        return
    for q in ctx.rx_writes:
        if q != qp and rx5_write_at(ctx, q, at) is not None:
            peer = (ctx.qps.get(q) or {}).get("peer_qpn")
            if peer is not None:
                f.set("bth", "dest_qp", int(peer) & U24)
            return


# ---- comparisons at a bound written with the wrong operator --------------------------------

m = fault("rcv-dup-last-retired-no-ack",
          "The retired-message test of the duplicate path compares the duplicate's MSN with "
          "the last retired MSN using < instead of <=: a duplicate of the message that retired "
          "last gets its SACK but no transport ACK.",
          ["RCV-DUP-002"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = rx_state(ctx, m)
    learn_placed(st, outs)
    res = []
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "ack" and int(item["at"]) in ctx.input_times:
            qp, at = ctx.local_qp_of(f), int(item["at"])
            w = trigger_of(st, qp, at)
            if (w is not None and is_dup(st, w)
                    and (w["msn"] & 0xFFFF) == (f.get("aeth", "msn") & 0xFFFF)):
                ctx.mutated(m.name)
                continue
        res.append(item)
    return res


m = fault("rcv-half-space-as-dup",
          "The before-epsn comparator tests (epsn - p) mod 2^24 >= 2^23 instead of > 2^23: a "
          "write exactly half the PSN space ahead of epsn is taken as a duplicate and SACKed "
          "instead of NACKed as out of window.",
          ["RCV-WIN-001", "BTH-PSN-002", "RCV-WIN-002", "RCV-DUP-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    for item, f in frames(ins, ("data",), only_sound=True):
        qp = f.get("bth", "dest_qp")
        if qp not in ctx.qps:
            continue
        win = window_of(ctx, m.name, qp)
        p = f.get("bth", "psn")
        if (p - win["epsn"]) & U24 == 0x800000:
            # The device is given a far duplicate in its place: its answer is the SACK of
            # a duplicate with ack_psn_offset clamped, as the faulty comparator gives.
            f.set("bth", "psn", (win["epsn"] - 0x8001) & U24)
            put(ctx, m, item, f)
            continue
        window_take(ctx, win, p)
    return ins



m = fault("ack-coalesce-exclusive",
          "The ACK coalescing counter is compared with > ack_coalesce instead of >=: the "
          "transport ACK due at once after ack_coalesce retirements waits for one more, or "
          "for the SACK timer.",
          ["RCV-ACK-001"])
config(m, "nic", "ack_coalesce", lambda v: int(v) + 1,
       lambda ctx: responder(ctx) and "retirement" in ctx.requires,
       reads=lambda c, i: rx(i, ("data",)))


# ---- an address adder too narrow -----------------------------------------------------------

m = fault("dma-addr-carry-32",
          "The placement engine splits a payload into bus writes with a 32-bit address adder "
          "that drops the carry into bit 32: bytes after a 4 GiB boundary land at the start "
          "of the same 4 GiB block.",
          ["RCV-PLACE-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    res = []
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "dma_write":
            res.append(item)
            continue
        va = int(ev["va"])
        data = bytes.fromhex(ev["payload"]["bytes"])
        cut = (1 << 32) - (va & 0xFFFFFFFF)
        if cut >= len(data):
            res.append(item)
            continue
        for a, chunk in ((va, data[:cut]), (va & ~0xFFFFFFFF & ((1 << 64) - 1), data[cut:])):
            c = copy.deepcopy(item)
            c["output"]["event"]["va"] = a
            c["output"]["event"]["payload"]["bytes"] = chunk.hex()
            res.append(c)
        ctx.mutated(m.name)
    return res


# ---- the SACK bitmap read from a ring of 64-bit words ---------------------------------------

m = fault("sack-bitmap-aligned-shift",
          "The SACK bitmap is cut from two words of the receive ring as lo >> s | hi << "
          "(64 - s); when epsn is a multiple of 64, s is 0 and the shift by 64 is taken as a "
          "shift by 0, so PSN epsn + 64 + i is reported in bit i too.",
          ["SETH-BITMAP-001", "RCV-SACK-005", "SETH-BITMAP-002", "PETH-RESP-001",
           "EV-PROBE-004"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    epsn = (f.get("seth", "cack_psn") + 1) & U24
    if epsn % 64 or f.get("seth", "sack_offset") != 1:
        return
    at = int(item["at"])
    hi = 0
    for w in ctx.rx_writes.get(ctx.local_qp_of(f), []):
        d = (w[1] - epsn) & U24
        if w[0] <= at and 64 <= d < 128:
            hi |= 1 << (d - 64)
    if hi:
        f.set("seth", "sack_bitmap", f.get("seth", "sack_bitmap") | hi)


m = fault("sack-entropy-src-port-only",
          "Over IPv6 SETH entropy carries only the source-port half of the triggering "
          "packet's EV: the flow-label half is not wired into the SACK builder.",
          ["SETH-EV-001", "RCV-SACK-005", "ENC-EV-003", "PETH-RESP-001", "EV-PROBE-004"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    if f.has("ipv6"):
        f.set("seth", "entropy", f.get("seth", "entropy") & 0xFFFF0000)


# ==========================================================================================
# An eighth reading: the host side as a team puts the pieces together (host-interface.md,
# completion.md): state shared that must be separate and separate that must be shared, the
# second instance of a queue or a table, a reset that clears too much, a cache not
# invalidated, configuration read at the wrong moment or in the wrong unit, and writes to
# host memory that land in pieces.
# ==========================================================================================

def host8_rewrite(m, fn, counted=True):
    """A device that misreads host commands: it acts on `fn(ctx, c)` (a copy of each host
    command; None: as given; a list: several commands at that instant) instead of `c`. The
    proxy's context keeps what software wrote. Unless `counted` is False, a command changed
    counts as a mutation (the mod then counts the reads that matter itself)."""

    @m.hook("inputs")
    def _(ctx, ins):
        out = []
        for item in ins:
            inp = item.get("input") or {}
            c = inp.get("command") if inp.get("kind") == "host" else None
            r = fn(ctx, copy.deepcopy(c)) if c else None
            rs = r if isinstance(r, list) else [r]
            if r is None or rs == [c]:
                out.append(item)
                continue
            for x in rs:
                out.append(dict(item, input=dict(inp, command=x)))
            if counted:
                ctx.mutated(m.name)
        return out


def host8_first(ctx, m, key, value):
    """The value of the first command that set `key`: a register loaded once."""
    return ctx.state.setdefault(m.name + ":" + key, value)


# ---- the second QP, the second queue: registers loaded once --------------------------------

m = fault("send-cq-first-qp",
          "The send-queue select register is loaded when the first QP is created and never "
          "again: every QP's sender completions, and those of tokens rejected for its "
          "templates, go to the send queue of the first QP.",
          ["CQE-ROUTE-001", "CQE-RING-001", "CQE-REJECT-002", "CQE-SEND-001", "CQE-SEND-002",
           "CQE-RING-004", "CQE-RING-005", "RET-ERR-002", "REC-IF-009", "RET-FLUSH-001"])


def _(ctx, c, m=m):
    if c.get("command") != "create_qp" or c.get("send_cq") is None:
        return None
    c["send_cq"] = host8_first(ctx, m, "cq", c["send_cq"])
    return c


host8_rewrite(m, _)


m = fault("send-flag-base-first-qp",
          "The sender flag-base register is loaded when the first QP is created and never "
          "again: every QP's sender flags are written in the first QP's flag array.",
          ["FLAG-SEND-001", "FLAG-TABLE-001", "TPL-EXPAND-006", "FLAG-WRITE-001"])


def _(ctx, c, m=m):
    if c.get("command") != "create_qp" or c.get("send_flag_base") is None:
        return None
    c["send_flag_base"] = host8_first(ctx, m, "base", c["send_flag_base"])
    c["send_flag_slots"] = host8_first(ctx, m, "slots", c.get("send_flag_slots"))
    return c


host8_rewrite(m, _)


m = fault("cq-base-of-first-queue",
          "The queue base register is loaded by the first create_cq alone: the entries of "
          "every other queue are written at the first queue's base, each at its own slot.",
          ["CQE-RING-001", "CQE-ROUTE-001", "CQE-SETUP-001", "CQE-RING-003"])


def _(ctx, c, m=m):
    if c.get("command") != "create_cq":
        return None
    c["base"] = host8_first(ctx, m, "base", c.get("base"))
    return c


host8_rewrite(m, _)


CQ_FULL_REQS = ["CQE-RING-001", "CQE-RING-004", "CQE-RING-005", "RET-ERR-002", "REC-IF-009",
                "RET-FLUSH-001", "CQE-SEND-002", "FLAG-SEND-001", "RCV-QP-002"]

m = fault("cq-entries-of-first-queue",
          "The ring-size register is loaded by the first create_cq alone: every queue wraps, "
          "and is found full, at the size of the first queue.",
          CQ_FULL_REQS)


def _(ctx, c, m=m):
    if c.get("command") != "create_cq":
        return None
    c["entries"] = host8_first(ctx, m, "entries", c.get("entries"))
    return c


host8_rewrite(m, _)


m = fault("cq-consumer-register-shared",
          "One consumer register serves every completion queue: a write of one queue's "
          "count sets the count of each, so a queue whose own count is behind it looks "
          "full and stops taking entries.",
          CQ_FULL_REQS)


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault(m.name, {"k": {}, "stopped": set()})
    # The register holds the last count software wrote, to any queue, by each output's time.
    writes = [(int(it["at"]), int(c["consumed"])) for it, c in ctx.state.get(m.name + ":w", [])]
    kept = []
    for item in outs:
        ev = event_of(item) or {}
        q = ev.get("queue") if ev.get("event") == "completion" else None
        c = ctx.cqs.get(q.get("cq")) if q else None
        if c is None:
            kept.append(item)
            continue
        k = st["k"].get(q["cq"], 0)
        st["k"][q["cq"]] = k + 1
        shared = max((w for w in writes if w[0] <= int(item["at"])), default=None)
        if shared is not None and (k - shared[1]) & 0xFFFFFFFF >= int(c.get("entries", 1)):
            st["stopped"].add(q["cq"])
        if q["cq"] in st["stopped"]:
            ctx.mutated(m.name)
            continue
        kept.append(item)
    return kept


@m.hook("inputs")
def _(ctx, ins, m=m):
    w = ctx.state.setdefault(m.name + ":w", [])
    w.extend((item, c) for item, c in host_commands(ins) if c.get("command") == "cq_consumer")
    return ins


# ---- a unit misread: bytes for entries and slots -------------------------------------------

m = fault("cq-entries-as-bytes",
          "The ring-size field of a completion queue is read as its size in bytes: a queue "
          "of N entries is taken to hold N / 32 of them, at least one.",
          CQ_FULL_REQS)


def _(ctx, c):
    if c.get("command") != "create_cq" or int(c.get("entries", 0)) < 2:
        return None
    c["entries"] = max(1, int(c["entries"]) // 32)
    return c


host8_rewrite(m, _)


m = fault("cq-consumer-in-bytes",
          "The consumer register is read as a byte offset into the ring, as the slot "
          "addresses are: the count software writes is divided by 32, so the queue is found "
          "full while the consumer has released its entries.",
          CQ_FULL_REQS)


def _(ctx, c):
    if c.get("command") != "cq_consumer" or int(c.get("consumed", 0)) == 0:
        return None
    c["consumed"] = int(c["consumed"]) // 32
    return c


host8_rewrite(m, _)


m = fault("recv-flag-slots-as-bytes",
          "The retirement-flag count of a QP context is read as the size of its flag ring in "
          "bytes: a QP of n slots gets n / 8, and one of fewer than 8 slots none, which "
          "disables its flags.",
          ["FLAG-RECV-001", "RET-FLAG-001", "FLAG-RECV-002", "FLAG-ORDER-001"])


def _(ctx, c):
    if c.get("command") != "create_qp" or not c.get("recv_flag_slots"):
        return None
    c["recv_flag_slots"] = int(c["recv_flag_slots"]) // 8
    return c


host8_rewrite(m, _)


# ---- one register for two directions ---------------------------------------------------------

m = fault("send-flag-at-recv-base",
          "One flag-base register serves both directions of a QP: sender flags are written "
          "from the QP's retirement-flag base instead of its sender-flag base.",
          ["FLAG-SEND-001", "FLAG-TABLE-001", "TPL-EXPAND-006", "FLAG-WRITE-001"])


def _(ctx, c):
    if c.get("command") != "create_qp" or c.get("recv_flag_base") is None:
        return None
    c["send_flag_base"] = c["recv_flag_base"]
    return c


host8_rewrite(m, _)


m = fault("recv-flag-at-send-base",
          "One flag-base register serves both directions of a QP: retirement flags are "
          "written from the QP's sender-flag base instead of its retirement-flag base.",
          ["FLAG-RECV-001", "RET-FLAG-001", "FLAG-TABLE-001"])


def _(ctx, c):
    if c.get("command") != "create_qp" or c.get("send_flag_base") is None:
        return None
    c["recv_flag_base"] = c["send_flag_base"]
    return c


host8_rewrite(m, _)


m = fault("tpl-flag-base-first-template",
          "The flag-slot adder reads flag_base_slot from the first template installed: every "
          "later template, and every later version of it, reports in the first one's flag "
          "slots.",
          ["TPL-EXPAND-006", "FLAG-SEND-001", "TPL-INSTALL-002",
           "FLAG-TABLE-001"])


def host8_flags_fit(ctx, c):
    """Whether a template's flag slots lie in its QP's sender flag array (TPL-FLAG-001)."""
    q = ctx.qps.get(c.get("qpn")) or {}
    end = int(c.get("flag_base_slot", 0)) + int(c.get("slots", 0))
    return end <= min(int(q.get("send_flag_slots", 0)), 1 << 32)


def _(ctx, c, m=m):
    if (c.get("command") != "set_template" or not template_valid(c)
            or not host8_flags_fit(ctx, c)):
        return None
    first = host8_first(ctx, m, "flag", c.get("flag_base_slot"))
    if host8_flags_fit(ctx, dict(c, flag_base_slot=first)):
        c["flag_base_slot"] = first
    return c


host8_rewrite(m, _)


# ---- the expected seq: one counter where the spec keeps one per template ---------------------

SEQ_REQS = ["DB-SEQ-001", "DB-SEQ-002", "DB-SEQ-003", "DB-ACCEPT-001", "CQE-REJECT-001",
            "DB-REJECT-001", "CQE-SEND-001", "FLAG-SEND-001", "WR-EXEC-001", "CQE-REJECT-002"]


def host8_shared_seq(m, key_of, resets):
    """A doorbell unit that keeps the expected seq in counters keyed by `key_of(ctx, tpl)`
    instead of per template; installing a template clears the counters `resets(ctx, c)`
    names."""
    counters = m.name + ":n"

    def _(ctx, book, t, at, seen):
        tpl = book.tpl.get(t >> 48 & 0xFFF)
        if t >> 60 != 1 or tpl is None or not tpl.get("enabled"):
            return None
        n = ctx.state.setdefault(counters, {})
        k = key_of(ctx, tpl)
        e_key = n.get(k, 0)
        e_tpl = book.expected.get(t >> 48 & 0xFFF, 0)
        # The device keeps the template's count: it is given the seq that stands where this
        # token stands against the shared count.
        s = with_seq(t, e_tpl - e_key + (t >> 32))
        if book.verdict(s) == 0:
            n[k] = (e_key + 1) & 0xFFFF
        return s

    def _reset(ctx, c):
        if c.get("command") == "doorbell_write":
            ctx.state[m.name + ":reg"] = c.get("register")
        elif c.get("command") == "doorbell":
            ctx.state[m.name + ":reg"] = None
        if c.get("command") != "set_template" or not template_valid(c):
            return
        old = token_book(ctx, m).tpl.get(c.get("template_id"))
        if old is None or dict(old, enabled=c.get("enabled")) != c:
            for k in resets(ctx, c):
                ctx.state.setdefault(counters, {})[k] = 0

    token_faults(m, _, _reset)


m = fault("db-seq-device-wide",
          "The expected seq is one register for the whole device instead of one per "
          "template: the tokens of every template are checked against, and advance, one "
          "count.",
          SEQ_REQS)
host8_shared_seq(m, lambda ctx, tpl: 0, lambda ctx, c: [0])


m = fault("db-seq-per-register",
          "The expected seq is kept per doorbell register instead of per template: the "
          "tokens of one template that come through two registers are checked against two "
          "counts, and two templates that share a register share one.",
          SEQ_REQS + ["DB-MMIO-003"])


def _(ctx, tpl, m=m):
    # A token given whole, without its register, keeps its template's count.
    r = ctx.state.get(m.name + ":reg")
    return ("register", r) if r is not None else ("template", tpl.get("template_id"))


host8_shared_seq(m, _, lambda ctx, c: [("template", c.get("template_id"))])


# ---- a reset that clears too much ------------------------------------------------------------

m = fault("tpl-install-resets-all-seqs",
          "Installing a template clears the whole expected-seq table instead of the entry "
          "of the template installed: every other template's next token is checked against "
          "seq 0.",
          SEQ_REQS + ["TPL-INSTALL-003"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    book = token_book(ctx, m)
    regs = ctx.state.setdefault(m.name + ":regs", {})
    cleared = ctx.state.setdefault(m.name + ":cleared", set())
    out = []
    for item in ins:
        inp = item.get("input") or {}
        c = inp.get("command") if inp.get("kind") == "host" else None
        out.append(item)
        if not c:
            continue
        if c.get("command") == "register_local":
            regs[c.get("lkey")] = dict(c)
        elif c.get("command") == "deregister_local":
            regs.pop(c.get("lkey"), None)
        # A template command the device takes: valid, its flags in the table, its key good;
        # a new version of it clears its count (and, here, every other).
        taken = (c.get("command") == "set_template" and template_valid(c)
                 and host8_flags_fit(ctx, c)
                 and (not c.get("enabled") or local_key_covers(regs, c)))
        old = book.tpl.get(c.get("template_id"))
        fresh = taken and (old is None or dict(old, enabled=c.get("enabled")) != c)
        if c.get("command") == "set_template":
            cleared.discard(c.get("template_id"))
        if c.get("command") != "set_template" or taken:
            book.command(c)
        t = token_of(c)
        if t is not None and t >> 48 & 0xFFF in cleared:
            # A token of a template whose count the installation cleared: the device
            # judges it against 0.
            cleared.discard(t >> 48 & 0xFFF)
            ctx.mutated(m.name)
        if t is not None and book.verdict(t) == 0:
            book.accept(t)
        if not fresh:
            continue
        for i, tpl in sorted(book.tpl.items()):
            if i == c.get("template_id") or book.expected.get(i, 0) == 0:
                continue
            # Installing another version and then the same template again is how the device
            # is told to forget the count, and only the count (TPL-INSTALL-003).
            other = dict(tpl, imm_base=(int(tpl.get("imm_base", 0)) + 1) & 0xFFFFFFFF)
            out.append(dict(item, input=dict(inp, command=other)))
            out.append(dict(item, input=dict(inp, command=dict(tpl))))
            book.expected[i] = 0
            cleared.add(i)
    return out


m = fault("deregister-disables-every-template",
          "Ending a local registration disables every installed template, not only those "
          "under its key: the enable bits are cleared by a broadcast instead of by a match "
          "on local_lkey.",
          ["TPL-KEY-002", "DB-TEMPLATE-001", "DB-ACCEPT-001", "CQE-REJECT-001",
           "CQE-REJECT-002", "CQE-OPCODE-001", "WR-EXEC-001", "FLAG-SEND-001", "CQE-SEND-001",
           "DB-SEQ-001"])


def _(ctx, book, t, at, seen, m=m):
    dead = ctx.state.get(m.name + ":dead", set())
    i = t >> 48 & 0xFFF
    if t >> 60 != 1 or i not in dead:
        return None
    # The device is shown the token under an ID it has no template for.
    free = next(j for j in range(4095, -1, -1) if j not in book.tpl)
    return with_template(t, free)


def _on(ctx, c, m=m):
    dead = ctx.state.setdefault(m.name + ":dead", set())
    book = token_book(ctx, m)
    if c.get("command") == "deregister_local":
        dead.update(i for i, tpl in book.tpl.items()
                    if tpl.get("enabled") and tpl.get("local_lkey") != c.get("lkey"))
    elif c.get("command") == "set_template":
        dead.discard(c.get("template_id"))


token_faults(m, _, _on)


m = fault("lkey-cache-after-deregister",
          "The key table is read through a one-entry cache of the last key looked up, which "
          "ending a registration does not clear: a template installed right after under the "
          "key just deregistered is accepted and reads memory no registration covers.",
          ["TPL-KEY-001", "TPL-KEY-002", "TPL-INSTALL-001", "DB-TEMPLATE-001",
           "CQE-REJECT-001", "CQE-REJECT-002", "CQE-OPCODE-001", "DB-ACCEPT-001",
           "WR-EXEC-001", "FLAG-SEND-001", "CQE-SEND-001", "SND-SEG-001"])


def _(ctx, c, m=m):
    st = ctx.state.setdefault(m.name, {"regs": {}, "cache": None})
    cmd = c.get("command")
    if cmd == "register_local":
        st["regs"][c.get("lkey")] = dict(c)
        st["cache"] = None
    elif cmd == "deregister_local":
        # Ending a registration looks the key up: the cache keeps the entry removed.
        st["cache"] = st["regs"].pop(c.get("lkey"), None)
    elif cmd == "set_template" and c.get("enabled"):
        hit = st["cache"]
        k = c.get("local_lkey")
        if k in st["regs"]:
            st["cache"] = st["regs"][k]
        elif hit is not None and hit.get("lkey") == k:
            # The stale entry answers: the device behaves as if the key were registered.
            st["regs"][k] = hit
            return [dict(hit), c]
    return None


host8_rewrite(m, _)


# ---- completion queues: two producers, entries and flags in pieces ---------------------------

m = fault("reject-cqe-own-producer-index",
          "The rejection path keeps a producer index of its own for each queue: in a queue "
          "that takes both, error completions of rejected tokens and completions of work "
          "requests each count only their own kind and land on each other's slots.",
          ["CQE-RING-001", "CQE-REJECT-002", "CQE-REJECT-001", "CQE-SEND-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    counts = ctx.state.setdefault(m.name, {})
    for item in outs:
        ev = event_of(item)
        q = (ev or {}).get("queue") if ev and ev.get("event") == "completion" else None
        if not q or "bytes" not in q or ctx.cqs.get(q.get("cq")) is None:
            continue
        c = ctx.cqs[q["cq"]]
        n = int(c.get("entries", 1))
        e = cqe_decode(bytes.fromhex(q["bytes"]))
        rej = not e["is_receive"] and 0x01 <= int(e["status"]) <= 0x06
        k = counts.get((q["cq"], rej), 0)
        counts[(q["cq"], rej)] = k + 1
        e["phase"] = (k // n) % 2 == 0
        new = {"slot": k % n, "addr": int(c["base"]) + 32 * (k % n),
               "bytes": cqe_encode(e).hex()}
        if any(q.get(x) != new[x] for x in new):
            q.update(new)
            if "entry" in ev:
                ev["entry"] = dict(ev["entry"], phase=e["phase"])
            ctx.mutated(m.name)
    return outs


m = fault("cqe-high-half-first",
          "The completion writer sends an entry as two 16-byte writes, bytes 16 to 31 "
          "first: when the owner byte lands, bytes 0 to 15 still hold what the slot held "
          "before (zeros on the first pass).",
          ["CQE-RING-003", "CQE-SEND-001", "CQE-SEND-002", "CQE-RECV-001", "CQE-REJECT-001",
           "CQE-LAYOUT-001", "CQE-OPCODE-001", "CQE-STATUS-001", "CQE-IMM-002", "TPL-EXPAND-007"])


def _(ctx, item, ev, q, e, c, m=m):
    old = ctx.state.setdefault(m.name, {})
    new = cqe_encode(e)
    key = (q.get("cq"), q.get("slot"))
    seen = old.get(key, bytes(32))[:16] + new[16:]
    old[key] = new
    e.clear()
    e.update(cqe_decode(seen))
    if "entry" in ev:
        ev["entry"] = dict(e)


queue_entries(m, _)


m = fault("flag-high-word-first",
          "The flag writer sends a flag as two 4-byte writes, the high word (generation, "
          "status, valid) first: a waiter that matches the generation reads the byte_len "
          "the slot held before, until the low word lands.",
          ["FLAG-WRITE-001", "FLAG-LEN-001", "FLAG-SEND-001", "FLAG-RECV-002",
           "RET-FLAG-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    old = ctx.state.setdefault(m.name, {})
    out = []
    for item in outs:
        ev = event_of(item)
        if not ev or ev.get("event") != "flag_write":
            out.append(item)
            continue
        v, a = int(ev["value"]), int(ev["addr"])
        seen = (v & ~0xFFFFFFFF) | (old.get(a, 0) & 0xFFFFFFFF)
        old[a] = v
        if seen != v:
            first = copy.deepcopy(item)
            event_of(first)["value"] = seen
            out.append(first)
            ctx.mutated(m.name)
        out.append(item)
    return out


# ---- doorbells: two tokens in one bus write, a token while the last is expanded --------------

m = fault("db-two-tokens-one-write",
          "The doorbell decoder splits a write of 16 bytes at offset 0 into two tokens, for "
          "the register and the next one, instead of ignoring a write longer than 8 bytes.",
          ["DB-MMIO-002", "DB-ACCEPT-001", "DB-SEQ-001", "CQE-REJECT-001", "DB-REJECT-001",
           "WR-EXEC-001", "CQE-SEND-001", "FLAG-SEND-001", "DB-SEQ-002", "DB-SEQ-003"])


def _(ctx, c):
    if (c.get("command") != "doorbell_write" or c.get("offset") != 0
            or len(c.get("bytes", "")) != 32):
        return None
    r = int(c.get("register", 0))
    return [dict(c, bytes=c["bytes"][:16]), dict(c, register=r + 1, bytes=c["bytes"][16:])]


host8_rewrite(m, _)


m = fault("db-busy-token-dropped",
          "The doorbell unit has no queue in front of its expander: a token that reaches it "
          "at the same instant as an accepted one, while that one is still being expanded, "
          "is dropped without a completion.",
          ["DB-ACCEPT-001", "CQE-REJECT-001", "DB-MMIO-003", "ORD-NIC-002", "WR-EXEC-001",
           "FLAG-SEND-001", "CQE-SEND-001", "DB-SEQ-001", "DB-SEQ-003", "CQE-REJECT-002"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    book = token_book(ctx, m)
    busy = None
    out = []
    for item in ins:
        inp = item.get("input") or {}
        c = inp.get("command") if inp.get("kind") == "host" else None
        t = token_of(c) if c else None
        if t is not None and busy == int(item.get("at", 0)):
            ctx.mutated(m.name)
            continue
        out.append(item)
        if not c:
            continue
        book.command(c)
        if t is not None and book.verdict(t) == 0:
            book.accept(t)
            busy = int(item.get("at", 0))
    return out


# ---- template fields read when the message completes, not when its token was accepted --------

def host8_accepted(m):
    """Follows the tokens the device accepts: per QP, the accepted tokens not yet completed,
    each with its template ID, index and the flag slot it expanded to; and per template its
    versions, with the time each was installed."""

    @m.hook("inputs")
    def _(ctx, ins):
        book = token_book(ctx, m)
        pend = ctx.state.setdefault(m.name + ":pend", {})
        vers = ctx.state.setdefault(m.name + ":vers", {})
        for item, c in host_commands(ins):
            book.command(c)
            i = c.get("template_id")
            if c.get("command") == "set_template" and book.tpl.get(i) == c:
                vers.setdefault(i, []).append((int(item.get("at", 0)), dict(c)))
            t = token_of(c)
            if t is None or book.verdict(t) != 0:
                continue
            book.accept(t)
            tpl = book.tpl[t >> 48 & 0xFFF]
            pend.setdefault(tpl.get("qpn"), []).append({
                "token": t, "tid": t >> 48 & 0xFFF, "index": t >> 16 & 0xFFFF,
                "seq": t >> 32 & 0xFFFF, "tpl": dict(tpl),
                "slot": int(tpl.get("flag_base_slot", 0)) + (t >> 16 & 0xFFFF)})
        return ins


def host8_version_at(ctx, m, tid, at):
    """The template `tid` as installed at time `at`: the last version given at or before."""
    cur = None
    for t, tpl in ctx.state.get(m.name + ":vers", {}).get(tid, []):
        if t <= at:
            cur = tpl
    return cur


def host8_token_of_flag(ctx, m, ev):
    """The accepted token a sender flag completes, taken off the pending list."""
    pend = ctx.state.get(m.name + ":pend", {}).get(ev.get("qpn"), [])
    q = ctx.qps.get(ev.get("qpn")) or {}
    g = flag_fields(int(ev["value"]))["generation"]
    for j, p in enumerate(pend):
        if p["seq"] == g and int(ev["addr"]) == int(q.get("send_flag_base", 0)) + 8 * p["slot"]:
            return pend.pop(j)
    return None


m = fault("tpl-flag-slot-at-completion",
          "The flag slot is computed when the message completes, from the template as it is "
          "then: a message whose template was changed after its token was accepted reports "
          "in the new version's flag slot.",
          ["TPL-INSTALL-002", "TPL-EXPAND-006", "FLAG-SEND-001"])
host8_accepted(m)


@out_events(m, ("flag_write",))
def _(ctx, ev, item, m=m):
    if ev.get("side") != "requester":
        return
    p = host8_token_of_flag(ctx, m, ev)
    now = p and host8_version_at(ctx, m, p["tid"], int(item["at"]))
    if now and now.get("enabled"):
        base = int((ctx.qps.get(ev.get("qpn")) or {}).get("send_flag_base", 0))
        ev["addr"] = base + 8 * (int(now.get("flag_base_slot", 0)) + p["index"])


m = fault("tpl-signaled-at-completion",
          "Whether a successful message writes a completion entry is read from the template "
          "when the message completes: a message whose template was changed after its token "
          "was accepted follows the new version's signaled bit.",
          ["TPL-INSTALL-002", "WR-SIGNALED-001", "TPL-EXPAND-001", "CQE-SEND-001"])
host8_accepted(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    out = []
    for item in outs:
        ev = event_of(item)
        if ev and ev.get("event") == "flag_write" and ev.get("side") == "requester":
            p = host8_token_of_flag(ctx, m, ev)
            now = p and host8_version_at(ctx, m, p["tid"], int(item["at"]))
            d = flag_fields(int(ev["value"]))
            q = ctx.qps.get(ev.get("qpn")) or {}
            if (now and now.get("enabled") and d["status"] == 0 and q.get("send_cq") is None
                    and bool(now.get("signaled")) != bool(p["tpl"].get("signaled"))):
                ctx.mutated(m.name)
                if now.get("signaled"):
                    e = {"wr_id": p["token"], "status": 0, "opcode": int(p["tpl"]["opcode"]),
                         "has_imm": False, "is_receive": False, "has_timestamp": True,
                         "flags_resv": 0, "resv1": 0, "qpn": ev.get("qpn"), "qpn_resv": 0,
                         "byte_len": d["byte_len"], "imm": 0,
                         "timestamp": int(item["at"]) & 0xFFFFFFFF,
                         "msn": int(ev.get("msn", 0)) & 0xFFFF, "resv2": 0, "phase": False,
                         "owner_resv": 0}
                    out.append({"at": item["at"], "output": {"kind": "event", "event": {
                        "event": "completion", "side": "requester", "entry": e}}})
                else:
                    ctx.state.setdefault(m.name + ":drop", set()).add(p["token"])
        out.append(item)
    drop = ctx.state.get(m.name + ":drop", set())
    kept = []
    for item in out:
        ev = event_of(item)
        if ev and ev.get("event") == "completion" and ev.get("side") == "requester":
            e = completion_entry(ev)
            if int(e.get("status", 1)) == 0 and int(e.get("wr_id", 0)) in drop:
                drop.discard(int(e["wr_id"]))
                continue
        kept.append(item)
    return kept


# ==========================================================================================
# An eighth reading: the sending side, the paths and the CPU half's recovery (sender.md,
# recovery.md, the requester parts of wire-format.md), as the bugs a team makes when the
# pieces meet: state kept once for the device where the spec keeps one per QP, and the
# reverse; the second QP or profile, tested only with one; a copy loaded at QP creation and
# never refreshed; a field of a command or report narrower on one side of the boundary
# than on the other; a register read in the wrong unit; a report given the QP of another.
# ==========================================================================================

def eighth_created(ctx):
    """The local QPs in the order they were created."""
    return list(ctx.qps)


def eighth_first_qp(ctx):
    qps = eighth_created(ctx)
    return qps[0] if qps else None


def eighth_put(ctx, item, f, name):
    f.seal()
    put_frame(item, f)
    ctx.mutated(name)


def eighth_reports(outs):
    """The report events of `outs`, with their items."""
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "report":
            yield item, ev


# ---- state kept once for the device where the spec keeps one per QP -----------------------

m = fault("spray-cursor-shared",
          "The round-robin cursor is one register for the device, not one per QP: a QP's "
          "first transmission takes the EV after the one any QP took last.",
          ["SND-SPRAY-001", "SND-PATH-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    if len(ctx.qps) < 2:
        return outs
    st = ctx.state.setdefault("spray-cursor-shared", {})
    for item in outs:
        f = frame_of(item)
        if f is None or kind(f) != "data" or f.get("bth", "rtx"):
            continue
        qp = ctx.local_qp_of(f)
        c = ctx.qps.get(qp) or {}
        evs = list(c.get("evs") or [])
        if str(c.get("spray", "round-robin")) != "round-robin" or len(evs) < 2:
            continue
        total = st.get("total", 0)
        own = st.get(qp, 0)
        st["total"] = total + 1
        st[qp] = own + 1
        if f.ev() not in evs:
            continue
        new = evs[(evs.index(f.ev()) + total - own) % len(evs)]
        if new != f.ev():
            f.set_ev(new)
            eighth_put(ctx, item, f, m.name)
    return outs


m = fault("msn-counter-device-wide",
          "Under per-QP retirement the MSN counter is still one for the device: a QP's message "
          "takes the next MSN after any QP's last message.",
          ["SND-MSN-001", "RET-DOMAIN-001", "SND-MSN-002", "METH-MSN-001"])


@out_frames(m, ("data",))
def _(ctx, f, item):
    if shared_mode(ctx) or len(ctx.qps) < 2:
        return
    st = ctx.state.setdefault("msn-counter-device-wide", {"next": 0, "map": {}})
    key = (f.get("bth", "dest_qp"), f.get("meth", "msn"))
    if key not in st["map"]:
        st["map"][key] = st["next"] & 0xFFFF
        st["next"] += 1
    f.set("meth", "msn", st["map"][key])


m = fault("probe-id-device-counter",
          "The probe_id counter is one for the device, not one per QP: a QP's probe takes the "
          "next value after any QP's last probe.",
          ["EV-PROBE-005", "SND-TAIL-003"])


@out_frames(m, ("probe",))
def _(ctx, f, item):
    st = ctx.state.setdefault("probe-id-device-counter", {"n": 0})
    st["n"] += 1
    f.set("peth", "probe_id", st["n"] & 0xFFFF)


m = fault("armed-latch-shared",
          "The Armed latch is one for the device: while one QP is armed, another QP's first "
          "transmission from idle sends no Armed.",
          ["REC-IF-003", "REC-RTO-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    armed = ctx.state.setdefault("armed-latch-shared", set())
    res = []
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "report":
            q = ev.get("qpn")
            if ev.get("report") == "progress" and not ev.get("outstanding") \
                    and not ev.get("awaiting_ack"):
                armed.discard(q)
            elif ev.get("report") == "armed":
                if armed - {q}:
                    ctx.mutated(m.name)
                    continue
                armed.add(q)
        res.append(item)
    return res


m = fault("progress-awaiting-domain",
          "Under shared retirement the awaiting-ACK count of Progress is read from the "
          "domain's counter: it counts the messages of every QP of the domain.",
          ["REC-IF-002", "REC-RTO-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    if not shared_mode(ctx) or len(ctx.qps) < 2:
        return outs
    last = ctx.state.setdefault("progress-awaiting-domain", {})
    for item, ev in eighth_reports(outs):
        if ev.get("report") != "progress":
            continue
        q = ev.get("qpn")
        own = int(ev.get("awaiting_ack") or 0)
        dom = (ctx.qps.get(q) or {}).get("domain")
        extra = sum(n for p, n in last.items()
                    if p != q and (ctx.qps.get(p) or {}).get("domain") == dom)
        last[q] = own
        if extra:
            ev["awaiting_ack"] = own + extra
            ctx.mutated(m.name)
    return outs


# ---- the second QP, tested only with one --------------------------------------------------

m = fault("second-qp-initial-psn-zero",
          "The initial_psn register is loaded only when the first QP is created: every later "
          "QP starts its PSNs at 0.",
          ["SND-PSN-001", "BTH-PSN-001", "EV-PROBE-005"])


@out_frames(m, ("data", "probe"))
def _(ctx, f, item):
    qp = ctx.local_qp_of(f)
    if qp is None or qp == eighth_first_qp(ctx):
        return
    ip = int((ctx.qps.get(qp) or {}).get("initial_psn", 0)) & U24
    if ip:
        f.set("bth", "psn", (f.get("bth", "psn") - ip) & U24)


m = fault("second-qp-first-profile",
          "The EV profile table holds one profile: every QP sprays over the EVs of the first "
          "QP created, at the positions its own profile would use.",
          ["SND-PATH-001", "EV-STATE-001", "SND-SPRAY-001", "SND-SPRAY-003", "EV-PROBE-005"])


@out_frames(m, ("data", "probe"))
def _(ctx, f, item):
    qp = ctx.local_qp_of(f)
    first = eighth_first_qp(ctx)
    if qp is None or qp == first:
        return
    own, base = profile(ctx, qp), profile(ctx, first)
    if f.ev() in own and base:
        f.set_ev(base[own.index(f.ev()) % len(base)])


m = fault("qp-error-stops-device",
          "The error state is a flag of the send engine, not of the QP: once one QP fails, "
          "no QP of the device sends again.",
          ["SND-SEG-001", "SND-ORDER-001", "SND-SCHED-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault("qp-error-stops-device", {})
    res = []
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "report" and ev.get("report") == "qp_error":
            st.setdefault("qp", ev.get("qpn"))
        f = frame_of(item)
        if f is not None and "qp" in st and kind(f) in ("data", "probe"):
            qp = ctx.local_qp_of(f)
            if qp is not None and qp != st["qp"]:
                ctx.mutated(m.name)
                continue
        res.append(item)
    return res


# ---- commands and reports across the boundary ---------------------------------------------

m = fault("cmd-qpn-latched",
          "The command decoder latches the QPN one command late: each CPU command acts on the "
          "QP the command before it named.",
          ["REC-IF-010", "REC-IF-011", "REC-IF-012", "REC-IF-013", "REC-IF-014", "REC-RTO-004",
           "EV-STATE-003", "EV-PROBE-005", "REC-IF-016", "SND-PATH-001"])


@in_cpu(m, ("retransmit", "probe", "set_ev_state", "qp_error"))
def _(ctx, c, item):
    st = ctx.state.setdefault("cmd-qpn-latched", {})
    prev = st.get("prev")
    st["prev"] = c.get("qpn")
    if prev is not None:
        c["qpn"] = prev


m = fault("cmd-qpn-16bit",
          "The command decoder reads 16 bits of the QPN: a command for a QP numbered 2^16 or "
          "above names another QP, usually none, and is lost.",
          ["REC-IF-010", "REC-IF-011", "REC-IF-012", "REC-IF-013", "REC-RTO-004",
           "EV-STATE-003", "EV-PROBE-005", "REC-IF-016"])


@in_cpu(m, ("retransmit", "probe", "set_ev_state", "qp_error"))
def _(ctx, c, item):
    if c.get("qpn") is not None:
        c["qpn"] = int(c["qpn"]) & 0xFFFF


m = fault("cmd-ev-16bit",
          "The command decoder reads 16 bits of the EV: a Probe or SetEvState for an EV of 2^16 "
          "or above names an EV outside the profile.",
          ["REC-IF-011", "REC-IF-012", "EV-STATE-003", "EV-PROBE-005", "REC-IF-016",
           "SND-PATH-001", "EV-DENY-001", "EV-DENY-002", "EV-STATE-001"])


@in_cpu(m, ("probe", "set_ev_state"))
def _(ctx, c, item):
    if c.get("ev") is not None:
        c["ev"] = int(c["ev"]) & 0xFFFF


m = fault("report-qpn-16bit",
          "The report FIFO keeps 16 bits of the QPN: a report of a QP numbered 2^16 or above "
          "names another QP.",
          ["REC-IF-002", "REC-IF-003", "REC-IF-004", "REC-IF-005", "REC-IF-007", "REC-IF-008",
           "REC-IF-009", "REC-IF-016"])


@out_events(m, ("report",))
def _(ctx, ev, item):
    if ev.get("qpn") is not None:
        ev["qpn"] = int(ev["qpn"]) & 0xFFFF


m = fault("report-ev-16bit",
          "The report FIFO keeps 16 bits of the EV: EvState, EvMarked, ProbeAnswered and the "
          "lost_ev of Retransmitted name an EV of 2^16 or above by its low half.",
          ["REC-IF-005", "REC-IF-007", "REC-IF-008", "REC-IF-016"])


@out_events(m, ("report",))
def _(ctx, ev, item):
    for k in ("ev", "lost_ev"):
        if ev.get(k) is not None:
            ev[k] = int(ev[k]) & 0xFFFF


m = fault("report-qpn-last-input",
          "The report builder takes the QPN from the ingress pipeline's register: a report made "
          "at the instant a frame arrives names the QP of the last frame of that instant.",
          ["REC-IF-002", "REC-IF-003", "REC-IF-004", "REC-IF-005", "REC-IF-007", "REC-IF-008",
           "REC-IF-009", "REC-IF-016", "REC-IF-015"])


@m.hook("inputs")
def _(ctx, ins):
    st = ctx.state.setdefault("report-qpn-last-input", {})
    for item in ins:
        f = frame_of(item)
        if f is not None and sound(f) and f.get("bth", "dest_qp") in ctx.qps:
            st[int(item["at"])] = f.get("bth", "dest_qp")
    return ins


@out_events(m, ("report",))
def _(ctx, ev, item):
    q = ctx.state.get("report-qpn-last-input", {}).get(int(item["at"]))
    if q is not None and ev.get("qpn") in ctx.qps:
        ev["qpn"] = q


m = fault("ev-report-qpn-by-ev",
          "The EV report path finds the QP by a device-wide lookup of the EV: EvState, EvMarked "
          "and ProbeAnswered of an EV two QPs hold name the first QP created that holds it.",
          ["REC-IF-005", "REC-IF-007", "REC-IF-016"])


@out_events(m, ("report:ev_state", "report:ev_marked", "report:probe_answered"))
def _(ctx, ev, item):
    for q in eighth_created(ctx):
        if ev.get("ev") in profile(ctx, q):
            ev["qpn"] = q
            return


m = fault("armed-snd-una-from-create",
          "Armed carries snd_una from a copy of the QP context loaded when the QP was created: "
          "every Armed reports the initial PSN.",
          ["REC-IF-003"])


@out_events(m, ("report:armed",))
def _(ctx, ev, item):
    c = ctx.qps.get(ev.get("qpn"))
    if c is not None:
        ev["snd_una"] = int(c.get("initial_psn", 0)) & U24


m = fault("cmd-retransmit-psn-from-initial",
          "The NIC reads the PSN of Retransmit as a count of packets since the QP's initial "
          "PSN: it retransmits from initial_psn + psn.",
          ["REC-IF-010", "REC-RTO-004", "REC-IF-008", "SND-SCHED-001", "SND-SCHED-003"])


@in_cpu(m, ("retransmit",))
def _(ctx, c, item):
    ip = int((ctx.qps.get(c.get("qpn")) or {}).get("initial_psn", 0)) & U24
    if ip:
        c["psn"] = (int(c.get("psn", 0)) + ip) & U24


# ---- the CPU half's registers, read in the wrong unit or acted on twice ------------------

m = fault("rto-read-as-us",
          "The CPU half's timer counts microseconds and is loaded with rto as given in "
          "nanoseconds: every timeout is a thousand times too long.",
          ["REC-RTO-001", "REC-RTO-003", "REC-RTO-005", "REC-IF-010", "REC-RTO-004",
           "REC-IF-008", "REC-RETRY-002", "REC-IF-013", "REC-EV-002"])
config(m, "recovery", "rto", lambda v: int(v) * 1000, device_cpu)


m = fault("probe-interval-from-rto",
          "The CPU half loads its probe timer from the rto register instead of probe_interval: "
          "an ASSUMED_BAD EV is probed every rto.",
          ["REC-PROBE-001", "REC-IF-011", "EV-PROBE-005"])


@m.hook("start")
def _(ctx, manifest, m=m):
    rec = manifest.get("recovery")
    if not device_cpu(ctx) or not isinstance(rec, dict):
        return manifest
    if rec.get("rto") is None or rec.get("probe_interval") in (None, rec.get("rto")):
        return manifest
    manifest = copy.deepcopy(manifest)
    manifest["recovery"]["probe_interval"] = manifest["recovery"]["rto"]
    ctx.mutated(m.name)
    return manifest


m = fault("cpu-expiry-counted-twice",
          "The CPU half's timer handler runs twice for each expiry: the retry counter and the "
          "back-off advance two steps per timeout.",
          ["REC-RETRY-001", "REC-RTO-005", "REC-RETRY-002", "REC-IF-013", "REC-RTO-003",
           "REC-IF-010", "REC-RTO-004", "REC-IF-008"])


@m.hook("start")
def _(ctx, manifest, m=m):
    rec = manifest.get("recovery")
    if not device_cpu(ctx) or not isinstance(rec, dict):
        return manifest
    new = dict(rec)
    if rec.get("retry_limit") is not None:
        new["retry_limit"] = int(rec["retry_limit"]) // 2
    if rec.get("backoff") is not None and float(rec["backoff"]) > 1:
        b = rec["backoff"]
        new["backoff"] = b * b
    if new == rec:
        return manifest
    manifest = copy.deepcopy(manifest)
    manifest["recovery"] = new
    ctx.mutated(m.name)
    return manifest
# ==========================================================================================
# The seventh reading: legal designs read as an RTL team chooses its micro-architecture:
# outputs on a coarse clock tick, a pipeline of its own per group of QPs with its own
# latency, write queues that post a flag or an entry late and make the later writes of its
# group wait behind it, entries coalesced two to a cache line, a device error queue
# written apart, one answer engine slower than the others, retransmissions paced as late as
# the tolerance allows, and page-sized bus writes.
# ==========================================================================================

def seventh_tick(ctx, most):
    """The coarsest power-of-two tick, at most `most` ns, below half of late_ns, so that an
    output moved to the next tick is never later than CONF-TIME-004 allows."""
    t = most
    while t > 1 and t > ctx.late_ns // 2:
        t //= 2
    return t


def on_tick(why, which, most):
    """The outputs `which` selects become visible at the next multiple of the tick: an
    interface clocked coarser than the nanosecond. Rounding up keeps their order."""

    def hook(ctx, outs):
        k = seventh_tick(ctx, most)
        for item in outs:
            if which(item):
                t = int(item["at"])
                nt = (t + k - 1) // k * k
                if nt != t:
                    item["at"] = nt
                    ctx.mutated(why)
        return outs

    return hook


v = variant("output-tick-512",
            "Its output interfaces are clocked by a 512 ns tick (less where half of late_ns is "
            "less): every output (frames, writes, completions, flags, reports) becomes "
            "visible at the next tick after the device made it.")
v.hooks["outputs"] = on_tick("output-tick-512", lambda item: True, 512)

v = variant("frames-tick-256",
            "Its transmit scheduler runs on a 256 ns slot: every frame leaves at the next slot "
            "boundary, and each sender flag and completion, which waits for the frames made "
            "before it (ORD-SEND-002), too; receive-side writes and reports are on time.")
v.hooks["outputs"] = on_tick("frames-tick-256", _frame_or_sender_note, 256)

v = variant("memory-tick-512",
            "Its host bus interface issues writes on a 512 ns tick: every DMA write, flag and "
            "completion entry becomes visible at the next tick, in the order the device made "
            "them; frames and reports are on time.")
v.hooks["outputs"] = on_tick("memory-tick-512", _is_memory, 512)


def _group_rank(of_qp):
    """The rank of each group key among the scenario's groups, least first."""
    return {g: i for i, g in enumerate(sorted(set(of_qp.values())))}


v = variant("group-latency-spread",
            "Each group of QPs that a rule ties together runs in a pipeline of its own with a "
            "latency of its own: the first group's outputs are on time, the second's a "
            "quarter of late_ns later, the third's half of late_ns later, and so on in turn, "
            "each group's outputs in their order.")
note_error_cq(v)


@v.hook("outputs")
def _(ctx, outs):
    of_qp, _ = host_groups(ctx)
    rank = _group_rank(of_qp)
    for item in outs:
        g = _output_group(ctx, item, of_qp)
        if g is not None:
            delay(ctx, item, ctx.late_ns // 4 * (rank.get(g, 0) % 3), "group-latency-spread")
    return outs


v = variant("group-jitter",
            "Each group of QPs that a rule ties together runs in a pipeline of its own whose "
            "latency varies between 0 and half of late_ns by a pseudo-random draw, never "
            "before an earlier output of its group: the groups' outputs interleave in any "
            "order the draws give.")
note_error_cq(v)


@v.hook("outputs")
def _(ctx, outs):
    of_qp, _ = host_groups(ctx)
    d = max(ctx.late_ns // 2, 0)
    st = ctx.state.setdefault("group-jitter", {"x": sum(map(ord, ctx.name)) or 1, "last": {}})
    for item in outs:
        g = _output_group(ctx, item, of_qp)
        st["x"] = (st["x"] * 1103515245 + 12345) & 0x7FFFFFFF
        t = int(item["at"])
        nt = min(max(t + st["x"] % (d + 1), st["last"].get(g, 0)), t + d)
        st["last"][g] = nt
        if nt != t:
            item["at"] = nt
            ctx.mutated("group-jitter")
    return outs


def _error_queue_entry(ctx, item):
    """Whether an output is an entry of the device error queue that no QP also writes to."""
    ev = event_of(item)
    if ev is None or ev.get("event") != "completion":
        return False
    cq = (ev.get("queue") or {}).get("cq")
    if cq is None or cq != ctx.state.get("seventh:error-cq"):
        return False
    return all(cq not in (c.get("send_cq"), c.get("recv_cq")) for c in ctx.qps.values())


def track_error_cq(v):
    @v.hook("inputs")
    def _(ctx, ins):
        for item in ins:
            c = (item.get("input") or {}).get("command") or {}
            if c.get("command") == "set_error_cq":
                ctx.state["seventh:error-cq"] = c.get("cq")
        return ins


v = variant("error-queue-late",
            "Its rejection engine writes the device error queue through a write queue of its "
            "own, half of late_ns slower: an entry of that queue may come after entries and "
            "flags of QPs made after it (CQE-REJECT-002 names the queue, CQE-RING-001 orders "
            "its own ring).")
track_error_cq(v)
v.hooks["outputs"] = (lambda ctx, outs: latency_of(
    "error-queue-late", lambda item: _error_queue_entry(ctx, item))(ctx, outs))

v = variant("sender-notes-late",
            "Its completion engine for sent work requests is slower: every sender flag and "
            "completion entry becomes visible half of late_ns later, but the entries of the "
            "device error queue, written by its rejection engine, are on time, so that they "
            "may pass entries made before them.")
track_error_cq(v)
v.hooks["outputs"] = (lambda ctx, outs: latency_of(
    "sender-notes-late",
    lambda item: _is_sender_note(item) and not _error_queue_entry(ctx, item))(ctx, outs))


def stall_behind(why, key_of, which):
    """One queue per key: the outputs `which` selects become visible half of late_ns
    later, and every later output of the same key (`key_of`, None for outputs not in any
    queue) waits behind them, as in a queue whose head stalls: each queue keeps its order,
    and no output is later than half of late_ns."""
    return lag_behind(why, key_of,
                      lambda ctx, item: ctx.late_ns // 2 if which(item) else 0)


def _host_queue(ctx, item):
    """The write queue of a host write: its group of QPs."""
    if not _is_memory(item):
        return False, None
    return True, host_group_of(ctx, event_of(item))


def posted_late(why, which):
    """The host writes `which` selects are posted half of late_ns late, and the later host
    writes of their group wait behind them."""
    return stall_behind(why, _host_queue, which)


def _event_is(name):
    """A test of whether an output is a host event of kind `name`."""

    def which(item):
        ev = event_of(item)
        return ev is not None and ev.get("event") == name

    return which


_is_flag = _event_is("flag_write")
_is_entry = _event_is("completion")


v = variant("flags-posted-late",
            "Its flag writer posts every flag (retirement and sender) half of late_ns after "
            "the device made it, and the later host writes of the flag's group wait behind "
            "it in one queue; frames and reports are on time, so a transport ACK may leave "
            "before the flag of the message it acknowledges is visible.")
note_error_cq(v)
v.hooks["outputs"] = posted_late("flags-posted-late", _is_flag)

v = variant("entries-posted-late",
            "Its completion writer posts every completion entry half of late_ns after the "
            "device made it, and the later host writes of the entry's group (its flag among "
            "them) wait behind it in one queue; frames and reports are on time.")
note_error_cq(v)
v.hooks["outputs"] = posted_late("entries-posted-late", _is_entry)


v = variant("cqe-line-pairs",
            "Its completion writer fills 64-byte cache lines: an entry in an even slot is "
            "held until the entry of the next slot of its queue, when that one is made "
            "within half of late_ns, and both are written together; the host writes of the "
            "group made in between (a flag) wait behind it.")
note_error_cq(v)


@v.hook("outputs")
def _(ctx, outs):
    of_qp, _ = host_groups(ctx)
    for i, item in enumerate(outs):
        ev = event_of(item)
        q = (ev or {}).get("queue") if _is_entry(item) else None
        if not q or int(q.get("slot", 1)) % 2:
            continue
        t, g = int(item["at"]), host_group_of(ctx, ev)
        for j in range(i + 1, len(outs)):
            e2 = event_of(outs[j])
            if int(outs[j]["at"]) > t + ctx.late_ns // 2:
                break
            q2 = (e2 or {}).get("queue") if _is_entry(outs[j]) else None
            if q2 and q2.get("cq") == q.get("cq"):
                to = int(outs[j]["at"])
                for k in range(i, j):
                    if k == i or (_is_memory(outs[k]) and
                                  host_group_of(ctx, event_of(outs[k])) == g):
                        if int(outs[k]["at"]) != to:
                            outs[k]["at"] = to
                            ctx.mutated("cqe-line-pairs")
                break
    return outs


def _kinds(*names):
    def which(item):
        f = frame_of(item)
        return f is not None and kind(f) in names

    return which


v = variant("acks-only-late",
            "Its transport ACK engine, apart from its SACK engine, adds half of late_ns to "
            "every transport ACK and NAK; SACKs, NACKs, data, probes, writes and reports are "
            "on time.")
v.hooks["outputs"] = latency_of("acks-only-late", _kinds("ack", "nak"))

def _answer_queue(ctx, item):
    """The answer queue of a QP: its SACKs, probe answers, transport ACKs, NAKs and NACKs."""
    if not _is_answer(item):
        return False, None
    return True, ctx.local_qp_of(frame_of(item))


v = variant("sacks-late-answers-behind",
            "Its SACK engine adds half of late_ns to every SACK and probe answer, and the "
            "QP's later transport ACKs, NAKs and NACKs wait behind it in one answer queue, so "
            "that an ACK still follows its SACK (RCV-DUP-002); data, probes, writes and "
            "reports are on time.")
v.hooks["outputs"] = stall_behind("sacks-late-answers-behind", _answer_queue,
                                  _kinds("sack", "probe-answer"))

v = variant("nacks-only-late",
            "Its NACK engine adds half of late_ns to every NACK; SACKs, transport ACKs, data, "
            "probes, writes and reports are on time.")
v.hooks["outputs"] = latency_of("nacks-only-late", _kinds("nack"))


def _rtx(item):
    f = frame_of(item)
    return f is not None and kind(f) == "data" and bool(f.get("bth", "rtx"))


def _send_queue(ctx, item):
    """The send queue of a group of QPs: its data packets and probes, and its sender
    flags and completions, which wait for them (ORD-SEND-002)."""
    f = frame_of(item)
    if f is not None and kind(f) not in ("data", "probe"):
        return False, None
    if f is None and not _is_sender_note(item):
        return False, None
    of_qp, _ = host_groups(ctx)
    return True, _output_group(ctx, item, of_qp)


v = variant("rtx-paced-late",
            "Its send queue paces every retransmission half of late_ns after it was decided, "
            "and the data packets, probes, sender flags and completions of the QP's group "
            "queued after it wait behind it, each stamped when it was built; answers, "
            "receive writes and reports are on time.")
note_error_cq(v)
v.hooks["outputs"] = stall_behind("rtx-paced-late", _send_queue, _rtx)

v = variant("dma-split-4096",
            "DMA writes are split at 4 KiB page boundaries, as an IOMMU that translates one "
            "page per request issues them.")
v.hooks["outputs"] = split_writes(4096)

combined("flags-late-split-64",
         "Its flag writer posts every flag half of late_ns late with the later writes of its "
         "group behind it (flags-posted-late), and its DMA engine cuts payload writes at "
         "64-byte boundaries.",
         ["dma-split-64", "flags-posted-late"])

combined("acks-late-sack-every-write",
         "It sends a SACK for every write it accepts, and its transport ACK engine adds half "
         "of late_ns to every ACK and NAK: many SACKs, each ACK as late as allowed.",
         ["sack-every-write", "acks-only-late"])


# ==========================================================================================
# The eighth reading: legal designs read as the policy choices a team makes where the
# specification leaves them open, and how they combine: a report engine that builds each
# Progress late from the registers it then reads, report rings with a queue per QP whose
# head stalls or whose latency varies, a report ring on a coarse tick, another spray order
# and first EV, receive entries posted late with the QP's later writes behind them, and
# each of these at the greatest latency the tolerance allows or with two QPs whose
# pipelines differ.
# ==========================================================================================

def _report_qp(ctx, item):
    """The report queue of an output: its QP, for reports of a QP."""
    if not _is_report(item):
        return False, None
    q = event_of(item).get("qpn")
    return q is not None, q


def _report_is(*names):
    """A test of whether an output is a report of one of the kinds `names`."""

    def which(item):
        ev = event_of(item)
        return ev is not None and ev.get("event") == "report" and ev.get("report") in names

    return which


def _count_outstanding(ev, nxt):
    """Counts, into a Progress report, the PSNs from its snd_una to `nxt`, the QP's snd_nxt
    when the report is built, where that is more than the report says."""
    if nxt is None:
        return False
    o = (nxt - int(ev.get("snd_una", 0))) & U24
    if o >= 0x800000 or o <= int(ev.get("outstanding", 0)):
        return False
    ev["outstanding"] = o
    return True


v = variant("progress-built-late",
            "Its report engine builds each Progress half of late_ns after the SACK or ACK step "
            "that called for it: the snd_una the step left, and outstanding read from the "
            "QP's send registers as they are then, so that a first transmission sent in "
            "between is counted and its Armed, made with the packet, comes first; every other "
            "report is on time (REC-IF-002, REC-IF-003).")


@v.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("progress-built-late", {"nxt": {}, "pending": []})
    nxt = st["nxt"]
    # Reports given in an earlier batch are out of reach.
    pend = [p for p in st["pending"] if int(p["at"]) > ctx.prev_until]
    d = ctx.late_ns // 2
    for item in outs:
        t = int(item["at"])
        f = frame_of(item)
        if f is not None and kind(f) == "data" and not f.get("bth", "rtx"):
            q = ctx.local_qp_of(f)
            p = (f.get("bth", "psn") + 1) & U24
            if q not in nxt or ((p - nxt[q]) & U24) < 0x800000:
                nxt[q] = p
            for pi in pend:
                e = event_of(pi)
                if e.get("qpn") == q and int(pi["at"]) >= t and _count_outstanding(e, nxt[q]):
                    ctx.mutated("progress-built-late: counted")
            continue
        ev = report_of(item, "progress")
        if ev is None or not d:
            continue
        delay(ctx, item, d, "progress-built-late")
        # The device gives the frames of an instant before its events: those already seen
        # were sent before the report is built.
        if _count_outstanding(ev, nxt.get(ev.get("qpn"))):
            ctx.mutated("progress-built-late: counted")
        pend.append(item)
    st["pending"] = pend
    return outs


v = variant("progress-late-reports-behind",
            "Its report ring has a queue per QP, and the step that makes a Progress posts it "
            "half of late_ns late: the QP's later reports (Armed, Nack, EvMarked, EvState, "
            "ProbeAnswered, Retransmitted) wait behind it, each QP's in the order they were "
            "made (REC-IF-015); frames and host writes are on time.")
v.hooks["outputs"] = stall_behind("progress-late-reports-behind", _report_qp,
                                  _report_is("progress"))

v = variant("armed-late-reports-behind",
            "Its send engine posts each Armed to the QP's report queue half of late_ns after "
            "the data packet that made it left, and the QP's later reports wait behind it; "
            "frames and host writes are on time.")
v.hooks["outputs"] = stall_behind("armed-late-reports-behind", _report_qp,
                                  _report_is("armed"))

v = variant("retransmitted-late-reports-behind",
            "Its retransmission engine posts each Retransmitted report half of late_ns after "
            "the retransmission left, and the QP's later reports wait behind it in the QP's "
            "report queue; frames and host writes are on time.")
v.hooks["outputs"] = stall_behind("retransmitted-late-reports-behind", _report_qp,
                                  _report_is("retransmitted"))

v = variant("ev-reports-late-reports-behind",
            "Its EV table posts each EvMarked, EvState and ProbeAnswered half of late_ns after "
            "the step that made it, and the QP's later reports (a Progress of the same SACK "
            "among them) wait behind it; frames and host writes are on time.")
v.hooks["outputs"] = stall_behind("ev-reports-late-reports-behind", _report_qp,
                                  _report_is("ev_marked", "ev_state", "probe_answered"))


def _qp_parity_late(why, which, parity):
    """The outputs `which` selects of QPs whose number has `parity` become visible half of
    late_ns later, when the scenario has QPs of both parities."""

    def hook(ctx, outs):
        if len({q & 1 for q in ctx.qps if isinstance(q, int)}) < 2:
            return outs
        for item in outs:
            ok, q = _report_qp(ctx, item)
            if ok and which(item) and isinstance(q, int) and q & 1 == parity:
                delay(ctx, item, ctx.late_ns // 2, why)
        return outs

    return hook


for _parity, _name in ((1, "odd"), (0, "even")):
    v = variant("reports-%s-qps-late" % _name,
                "Its report ring has a queue per QP, and the queues of %s QPs are served "
                "half of late_ns later: their reports come in their order, the other QPs' "
                "on time, so that the reports of two QPs interleave otherwise (REC-IF-015 "
                "orders one QP's)." % _name)
    v.hooks["outputs"] = _qp_parity_late("reports-%s-qps-late" % _name, _is_report, _parity)


v = variant("reports-jitter-per-qp",
            "Its report ring has a queue per QP whose latency varies between 0 and half of "
            "late_ns by a pseudo-random draw, never before an earlier report of the QP: the "
            "reports of two QPs interleave in any order the draws give; frames and host "
            "writes are on time.")


@v.hook("outputs")
def _(ctx, outs):
    d = max(ctx.late_ns // 2, 0)
    st = ctx.state.setdefault("reports-jitter-per-qp",
                              {"x": sum(map(ord, ctx.name)) * 7 + 1, "last": {}})
    for item in outs:
        ok, q = _report_qp(ctx, item)
        if not ok:
            continue
        st["x"] = (st["x"] * 1103515245 + 12345) & 0x7FFFFFFF
        t = int(item["at"])
        nt = min(max(t + st["x"] % (d + 1), st["last"].get(q, 0)), t + d)
        st["last"][q] = nt
        if nt != t:
            item["at"] = nt
            ctx.mutated("reports-jitter-per-qp")
    return outs


v = variant("reports-tick-coarse",
            "Its report ring to the CPU half is drained on the coarsest tick below half of "
            "late_ns (a power of two of nanoseconds): every report becomes visible at the "
            "next tick, in order; frames and host writes are on time.")
v.hooks["outputs"] = on_tick("reports-tick-coarse", _is_report, 1 << 20)


def _ev_reversal(ctx, qpn, inverse=False):
    """The EV permutation of QP `qpn` that reverses its primary list and its backup list:
    the k-th EV of a list goes to the (n-1-k)-th, so that a primary stays a primary. It is
    its own inverse."""
    c = ctx.qps.get(qpn) or {}
    perm = {}
    for evs in (list(c.get("evs") or []), list(c.get("backup_evs") or [])):
        for i, e in enumerate(evs):
            perm[e] = evs[len(evs) - 1 - i]
    return perm


v = variant("spray-own-reversed",
            "A device without spray-policies whose spray cursor starts at the last EV of a "
            "QP's primary (or backup) list and walks it downwards: where the reference's "
            "policy gives the k-th EV of a list of n, it sends on the (n-k)-th, and it keeps "
            "every EV's state, reports and commands by the EVs it uses, so that a QP's first "
            "EV and its order are its own (CONF-CMP-027).")
v.caps_removed = ("spray-policies",)
own_spray(v, _ev_reversal)


def _is_receive_entry(item):
    ev = event_of(item)
    return (ev is not None and ev.get("event") == "completion"
            and ev.get("side") == "responder")


v = variant("recv-entries-posted-late",
            "Its receive completion writer posts every receive entry half of late_ns after "
            "the device made it, and the later host writes of the entry's group (the "
            "message's retirement flag among them) wait behind it; frames and reports are on "
            "time, so a transport ACK may leave before its message's entry is visible.")
note_error_cq(v)
v.hooks["outputs"] = posted_late("recv-entries-posted-late", _is_receive_entry)

combined("progress-built-late-frames-late",
         "Its report engine builds each Progress half of late_ns late, counting the first "
         "transmissions its send engine made by then (progress-built-late), and its transmit "
         "path adds half of late_ns to every frame after the send engine made it, with the "
         "sender flags and completions that wait for them: reports and frames each as late "
         "as allowed.",
         ["progress-built-late", "latency-frames-only"])

combined("progress-built-late-odd-groups",
         "Its report engine builds each Progress half of late_ns late (progress-built-late), "
         "and the pipelines of odd groups of QPs are slower: every output of their QPs "
         "becomes visible half of late_ns later, the other QPs' on time.",
         ["progress-built-late", "odd-groups-all-late"])

combined("armed-late-data-late",
         "Its send engine adds half of late_ns to every data packet and probe, with the "
         "sender flags and completions that wait for them, and posts each Armed half of "
         "late_ns after its packet was made, the QP's later reports behind it.",
         ["latency-data-only", "armed-late-reports-behind"])

combined("spray-own-reversed-late",
         "Its spray cursor starts at the last EV of each list and walks it downwards "
         "(spray-own-reversed), and every output becomes visible half of late_ns later.",
         ["spray-own-reversed", "latency-half-tolerance"])

combined("spray-own-reversed-even-groups",
         "Its spray cursor starts at the last EV of each list and walks it downwards "
         "(spray-own-reversed), and the pipelines of even groups of QPs are slower: every "
         "output of their QPs becomes visible half of late_ns later.",
         ["spray-own-reversed", "even-groups-all-late"])

combined("reports-odd-qps-late-frames-tick",
         "Its report queues of odd QPs are served half of late_ns later (reports-odd-qps-late), "
         "and its transmit scheduler runs on a 256 ns slot (frames-tick-256).",
         ["reports-odd-qps-late", "frames-tick-256"])

combined("recv-entries-late-split-64",
         "Its receive completion writer posts entries half of late_ns late with the group's "
         "later writes behind them (recv-entries-posted-late), and its DMA engine cuts "
         "payload writes at 64-byte boundaries.",
         ["dma-split-64", "recv-entries-posted-late"])


# The fault the eighth reading's Progress rule still catches: a Progress posted late with
# the counts of its step, behind the Armed of a packet sent in between.

m = fault("progress-latched-late",
          "The report engine latches a Progress's counts at the SACK or ACK step and posts it "
          "half of late_ns later, behind the Armed of a data packet sent in between: a "
          "Progress that says nothing is outstanding then stops the CPU half's timer that "
          "the Armed started for that packet.",
          ["REC-IF-015", "REC-IF-002"])
m.hooks["outputs"] = latency_of("progress-latched-late", _report_is("progress"))


# ==========================================================================================
# An eighth reading: the receiving side as a system integrates it (receiver.md and the
# responder rules of wire-format.md): state kept once for the device where the spec keeps
# it per QP or per domain, the context of the first QP or region used for the second, a
# ring word not cleared when the window jumps, a register read in the wrong unit, an answer
# built from the state of the packet that arrived last on the device, and two answers due
# in one cycle where only one leaves.
# ==========================================================================================

def rx8_replay(ctx, qp, at):
    """The receive window of QP `qp` after the writes given up to time `at`, replayed from
    the writes the proxy saw (every write inside the window taken as accepted)."""
    q = ctx.qps.get(qp) or {}
    win = {"epsn": int(q.get("peer_initial_psn", 0)) & U24, "got": set()}
    for w in ctx.rx_writes.get(qp, []):
        if w[0] <= at:
            window_take(ctx, win, w[1])
    return win


def rx8_device_last(ctx, at):
    """The write the device received last at or before `at`, over every QP: (QP, write)."""
    best = None
    for qp, ws in ctx.rx_writes.items():
        if qp not in ctx.qps:
            continue
        for w in ws:
            if w[0] <= at and (best is None or w[0] > best[1][0]):
                best = (qp, w)
    return best


def rx8_own_last(ctx, qp, at):
    ws = [w for w in ctx.rx_writes.get(qp, []) if w[0] <= at]
    return ws[-1] if ws else None


def rx8_from_device_latch(m, apply):
    """Registers an output hook for a SACK builder whose triggering-packet latch is one for
    the device: a SACK whose QP received its last write before another QP received one
    takes that other write's fields, by `apply(f, write)`."""

    @out_frames(m, ("sack",))
    def _(ctx, f, item):
        qp, at = ctx.local_qp_of(f), int(item["at"])
        own = rx8_own_last(ctx, qp, at)
        dev = rx8_device_last(ctx, at)
        if own is None or dev is None or dev[0] == qp or dev[1][0] <= own[0]:
            return
        apply(f, dev[1])


def rx8_first_qp(ctx):
    return next(iter(ctx.qps), None)


def rx8_retired(outs, fn):
    """Calls `fn(qp, msn, byte_len, item)` on each retirement flag of the responder."""
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "flag_write" and ev.get("side") == "responder":
            fn(ev.get("qpn"), ev.get("msn"), flag_fields(int(ev["value"]))["byte_len"], item)


def rx8_as_duplicate(m, pred):
    """Registers the hooks of a fault whose duplicate test says yes to a new write: the
    device is given, in its place, a write of the PSN before epsn (a duplicate to any
    design), and the SACK it answers with is made to point at the write's own PSN.
    `pred(ctx, qp, p, win)` says whether the faulty test takes PSN `p` for a duplicate;
    `after(ctx, qp, win, e0)` may follow each accepted write."""

    @m.hook("inputs")
    def _(ctx, ins):
        st = ctx.state.setdefault(m.name, {})
        for item, f in frames(ins, ("data",), only_sound=True):
            qp = f.get("bth", "dest_qp")
            if qp not in ctx.qps:
                continue
            win = window_of(ctx, m.name, qp)
            p = f.get("bth", "psn")
            d = (p - win["epsn"]) & U24
            new = d < ctx.mpr() * 128 and p not in win["got"]
            if new and pred(ctx, qp, p, win):
                dup = (win["epsn"] - 1) & U24
                f.set("bth", "psn", dup)
                f.seal()
                put_frame(item, f)
                st[(qp, int(item["at"]))] = (dup, p)
                ctx.mutated(m.name)
                continue
            e0 = win["epsn"]
            window_take(ctx, win, p)
            hook = ctx.state.get(m.name + ":after")
            if hook is not None:
                hook(ctx, qp, win, e0)
        return ins

    @out_frames(m, ("sack",))
    def _(ctx, f, item):
        got = ctx.state.get(m.name, {}).get((ctx.local_qp_of(f), int(item["at"])))
        if got is None or rx5_trigger_psn(f) != got[0]:
            return
        off = (got[1] - f.get("seth", "cack_psn")) & U24
        f.set("seth", "ack_psn_offset", min(off, 0x7FFF))


# ---- state kept once for the device --------------------------------------------------------

m = fault("sack-ooo-device-wide",
          "CC_STATE ooo_count comes from one out-of-order counter for the device instead of "
          "one per QP: a SACK counts the PSNs received after cack_psn on every QP.",
          ["CCS-OOO-001", "RCV-SACK-007", "PETH-RESP-001", "EV-PROBE-004"])


@out_frames(m, ("sack", "probe-answer"))
def _(ctx, f, item):
    qp, at = ctx.local_qp_of(f), int(item["at"])
    others = sum(len(rx8_replay(ctx, q, at)["got"]) for q in ctx.qps if q != qp)
    if others:
        f.set("cc_state", "ooo_count", min(f.get("cc_state", "ooo_count") + others, 0x7FFF))


m = fault("sack-ts-device-latch",
          "The timestamp latch of the SACK builder is one for the device: a SACK the timer "
          "sends reflects the TSETH tx_timestamp of the write the device received last, "
          "whichever QP it was for.",
          ["CCS-TS-001", "RCV-SACK-007", "RCV-SACK-004"])
rx8_from_device_latch(m, lambda f, w: f.set("cc_state", "tx_timestamp", w[3] or 0))


def _rx8_ev(f, w):
    f.set("seth", "entropy", w[2])
    f.set_ev(w[2])


m = fault("sack-ev-device-latch",
          "The EV latch of the SACK builder is one for the device: a SACK the timer sends "
          "carries in SETH entropy, and travels on, the EV of the write the device received "
          "last, whichever QP it was for.",
          ["SETH-EV-001", "RCV-SACK-005", "RCV-SACK-006", "RCV-SACK-004", "CONF-CMP-017"])
rx8_from_device_latch(m, _rx8_ev)


m = fault("ack-msn-device-register",
          "The AETH msn is read from one last-retired-MSN register for the device instead "
          "of one per QP: with a retirement domain per QP, an ACK or NAK sent after another "
          "QP retired a message carries that QP's MSN.",
          ["AETH-MSN-001", "RCV-ACK-002", "RCV-ACK-003", "RCV-NAK-002", "RCV-DUP-002",
           "RCV-ACK-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault(m.name, {})
    flags = []
    rx8_retired(outs, lambda qp, msn, n, item: flags.append((int(item["at"]), qp, msn)))
    for item, f in frames(outs, ("ack", "nak")):
        qp, at = ctx.local_qp_of(f), int(item["at"])
        # The register holds the latest retirement by this time; the QP's own retirement
        # at this very time is the one that caused the ACK.
        before = [x for x in flags if x[0] <= at]
        last = st.get("last")
        if before:
            top = max(x[0] for x in before)
            own = [x for x in before if x[0] == top and x[1] == qp]
            last = (own or before)[-1][1:]
        if last is None:
            continue
        q2, msn = last
        dom = (ctx.qps.get(qp) or {}).get("domain")
        shared = shared_mode(ctx) and dom == (
            ctx.qps.get(q2) or {}).get("domain")
        if q2 == qp or shared:
            continue
        if f.get("aeth", "msn") != msn & U24:
            f.set("aeth", "msn", msn & U24)
            put(ctx, m, item, f)
    if flags:
        st["last"] = flags[-1][1:]
    return outs


m = fault("sack-timer-device-wide",
          "There is one SACK timer for the device: while it runs for one QP, a write of "
          "another QP that should start that QP's timer does not, and its SACK is not sent.",
          ["RCV-SACK-004", "RCV-ACK-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    fired = ctx.state.setdefault(m.name, [])
    d = int(ctx.nic.get("sack_delay", 1000))
    res = []
    for item in outs:
        f = frame_of(item)
        at = int(item["at"])
        if f is not None and kind(f) == "sack" and at not in ctx.input_times:
            qp = ctx.local_qp_of(f)
            if any(q != qp and at - d < t <= at for q, t in fired):
                ctx.mutated(m.name)
                continue
            fired.append((qp, at))
        res.append(item)
    return res


m = fault("retire-cursor-device-wide",
          "The retirement engine keeps one cursor for the device: with a retirement domain "
          "per QP, a QP's complete message waits until every message another QP began "
          "receiving before it has retired.",
          ["RET-DOMAIN-001", "RET-ORDER-001", "RET-ORDER-002", "FLAG-ORDER-001",
           "RCV-ACK-001", "FLAG-RECV-001", "RET-FLAG-001"])


def _rx8_retire_item(ev, f):
    """The QP of a retirement output (flag, receive completion, transport ACK), or None."""
    if ev is not None and ev.get("side") == "responder" and ev.get("event") in (
            "flag_write", "completion"):
        return ev.get("qpn") if ev.get("event") == "flag_write" else (
            completion_entry(ev).get("qpn"))
    return None


@m.hook("outputs")
def _(ctx, outs, m=m):
    if shared_mode(ctx) or len(ctx.qps) < 2:
        return outs
    st = ctx.state.setdefault(m.name, {"order": [], "done": set(), "held": {}})
    res = []

    def blocked(qp, msn):
        if (qp, msn) not in st["order"]:
            st["order"].append((qp, msn))
        for k in st["order"][:st["order"].index((qp, msn))]:
            if k[0] != qp and k not in st["done"]:
                return True
        return False

    def release(at):
        moved = True
        while moved:
            moved = False
            for qp, q in st["held"].items():
                while q:
                    ev = event_of(q[0])
                    if ev is not None and ev.get("event") == "flag_write":
                        if blocked(qp, ev.get("msn")):
                            break
                        st["done"].add((qp, ev.get("msn")))
                        moved = True
                    item = q.pop(0)
                    item["at"] = max(int(item["at"]), at)
                    res.append(item)

    for item in outs:
        ev, f = event_of(item), frame_of(item)
        if ev is not None and ev.get("event") == "dma_write":
            k = (ev.get("qpn"), ev.get("msn"))
            if k not in st["order"]:
                st["order"].append(k)
        qp = _rx8_retire_item(ev, f)
        if qp is None and f is not None and kind(f) == "ack":
            qp = ctx.local_qp_of(f)
        if qp is None:
            res.append(item)
            continue
        q = st["held"].setdefault(qp, [])
        if not q and ev is not None and ev.get("event") == "flag_write" and not blocked(
                qp, ev.get("msn")):
            st["done"].add((qp, ev.get("msn")))
            res.append(item)
            release(int(item["at"]))
            continue
        if not q and (ev is None or ev.get("event") != "flag_write"):
            res.append(item)
            continue
        q.append(item)
        ctx.mutated(m.name)
    res.sort(key=lambda o: int(o["at"]))
    return res


m = fault("rcv-bitmap-shared-qps",
          "The receive bitmap is one ring for the device, indexed by PSN bits alone: a new "
          "write is taken as a duplicate while another QP has the same PSN received ahead "
          "of its epsn.",
          ["RCV-WIN-001", "RCV-WIN-003", "RCV-PLACE-003", "RCV-DUP-001", "SETH-BITMAP-001",
           "SETH-CACK-001", "RCV-MSG-003", "RET-ORDER-001"])


def _rx8_shared_bit(ctx, qp, p, win, m=m):
    for q in ctx.qps:
        if q != qp and p in window_of(ctx, m.name, q)["got"]:
            return True
    return False


rx8_as_duplicate(m, _rx8_shared_bit)


# ---- the first QP's or region's context used for the second --------------------------------

m = fault("answers-peer-of-first-qp",
          "The responder's answer builder reads peer_qpn from the context of the first QP "
          "created: SACKs, NACKs and transport ACKs of every other QP are addressed to the "
          "first QP's peer.",
          ["RCV-SACK-005", "RCV-ACK-002", "RCV-NACK-001", "RCV-NAK-002", "CONF-CMP-026",
           "PETH-RESP-001", "EV-PROBE-004", "RCV-ACK-003"])


@out_frames(m, ("sack", "probe-answer", "nack", "ack", "nak"))
def _(ctx, f, item):
    first = rx8_first_qp(ctx)
    qp = ctx.local_qp_of(f)
    if first is None or qp is None or qp == first:
        return
    f.set("bth", "dest_qp", int(ctx.qps[first].get("peer_qpn", 0)) & U24)


m = fault("rcv-epsn-init-first-qp",
          "The receive window of every QP starts at the peer_initial_psn of the first QP "
          "created: the register is latched once, not per QP.",
          ["RCV-WIN-001", "RCV-WIN-003", "SETH-CACK-001", "RCV-SACK-005", "RCV-PLACE-003"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    first = rx8_first_qp(ctx)
    for item in ins:
        body = item.get("input") or {}
        c = body.get("command") or {}
        if body.get("kind") != "host" or c.get("command") != "create_qp" or first is None:
            continue
        want = (ctx.qps.get(first) or {}).get("peer_initial_psn")
        if c.get("qpn") != first and want is not None and c.get("peer_initial_psn") != want:
            c = dict(c)
            c["peer_initial_psn"] = want
            body["command"] = c
            ctx.mutated(m.name)
    return ins


m = fault("rx-bounds-of-first-region",
          "The bounds check reads base and length from the first region registered, a cached "
          "entry the lookup does not refresh: a write inside a second region but outside the "
          "first is NAKed.",
          ["RCV-PLACE-002", "RCV-PLACE-003"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    regs = ctx.state.setdefault(m.name, [])
    for item in ins:
        body = item.get("input") or {}
        c = body.get("command") or {}
        if body.get("kind") == "host" and c.get("command") == "register_region":
            regs.append(dict(c))
            continue
        f = frame_of(item)
        if f is None or not f.is_write() or not sound(f) or len(regs) < 2:
            continue
        rkey = f.get("reth", "rkey")
        mine = [r for r in regs[1:] if r.get("rkey") == rkey and r.get("remote_write")]
        if rkey == regs[0].get("rkey") or not mine:
            continue
        va, n = f.get("reth", "va"), len(f.payload)
        b, ln = int(regs[0].get("base", 0)), int(regs[0].get("len", 0))
        if b <= va and va + n <= b + ln:
            continue
        keys = {r.get("rkey") for r in regs}
        bad = rkey ^ 0x5A5A0000
        while bad in keys:
            bad = (bad + 1) & 0xFFFFFFFF
        f.set("reth", "rkey", bad)
        put(ctx, m, item, f)
    return ins


m = fault("rcv-one-open-message-per-qp",
          "The message table holds one open message per QP: a new write of a second message "
          "that arrives while another message of its QP has not retired is discarded.",
          ["RCV-MSG-003", "RCV-PLACE-003", "RCV-WIN-003", "RET-ORDER-001", "RCV-SACK-001",
           "RCV-SACK-005", "SETH-CACK-001", "SETH-BITMAP-001", "RCV-ACK-001"])


def rx8_region_ok(st, f):
    """Whether a write passes the region check against the regions registered so far."""
    r = st["regions"].get(f.get("reth", "rkey"))
    va = f.get("reth", "va")
    return bool(r and r.get("remote_write") and int(r.get("base", 0)) <= va
                and va + len(f.payload) <= int(r.get("base", 0)) + int(r.get("len", 0)))


@m.hook("inputs")
def _(ctx, ins, m=m):
    st = ctx.state.setdefault(m.name, {"open": {}, "retired": set()})
    regs = st.setdefault("regions", {})
    keep = []
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") == "register_region":
            regs[c.get("rkey")] = dict(c)
        f = frame_of(item)
        qp = f.get("bth", "dest_qp") if f is not None and f.is_write() else None
        if qp is None or not sound(f) or qp not in ctx.qps:
            keep.append(item)
            continue
        win = window_of(ctx, m.name, qp)
        p, msn = f.get("bth", "psn"), f.get("meth", "msn")
        new = (p - win["epsn"]) & U24 < ctx.mpr() * 128 and p not in win["got"]
        # The region check comes before the message table (RCV-CHECK-001).
        if new and (qp, msn) not in st["retired"] and rx8_region_ok(st, f):
            op = st["open"].setdefault(qp, set())
            if op - {msn}:
                ctx.mutated(m.name)
                continue
            op.add(msn)
        window_take(ctx, win, p)
        keep.append(item)
    return keep


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault(m.name, {"open": {}, "retired": set()})

    def done(qp, msn, _n, _item):
        st["retired"].add((qp, msn))
        st["open"].get(qp, set()).discard(msn)

    rx8_retired(outs, done)
    return outs


# ---- a ring word not cleared, a register read in the wrong unit -----------------------------

m = fault("rcv-ring-word-stale-on-jump",
          "The receive ring clears a 64-bit word when epsn steps out of it one PSN at a time: "
          "when a hole fill moves epsn past a word boundary by more than one PSN, the words "
          "it leaves keep their bits, and PSNs one window later that map to them are taken "
          "as duplicates.",
          ["RCV-WIN-001", "RCV-WIN-003", "RCV-PLACE-003", "RCV-DUP-001", "SETH-BITMAP-001",
           "SETH-CACK-001", "RCV-MSG-003", "RET-ORDER-001"])


def _rx8_stale(ctx, qp, p, win, m=m):
    return (p % (ctx.mpr() * 128)) in ctx.state.get(m.name + ":stale", {}).get(qp, set())


def _rx8_after(ctx, qp, win, e0, m=m):
    e1, w = win["epsn"], ctx.mpr() * 128
    jump = (e1 - e0) & U24
    top = e1 - e1 % 64
    if jump < 2 or (e0 // 64) == (e1 // 64):
        return
    stale = ctx.state.setdefault(m.name + ":stale", {}).setdefault(qp, set())
    for i in range(((top - (e0 - e0 % 64)) & U24)):
        stale.add((e0 - e0 % 64 + i) % w)


def _rx8_install(ctx, ins, m=m):
    ctx.state[m.name + ":after"] = _rx8_after
    return ins


m.hook("inputs")(_rx8_install)
rx8_as_duplicate(m, _rx8_stale)


m = fault("rcv-window-mpr-64",
          "The window comparator reads mpr in units of 64 PSNs, the bitmap word, instead of "
          "128: the upper half of the window it advertises is NACKed as out of window.",
          ["RCV-WIN-001", "RCV-WIN-002", "RCV-PLACE-003", "RCV-SACK-005"])
rx6_psn_as(m, lambda ctx, win, p: (
    ctx.mpr() * 64 <= (p - win["epsn"]) & U24 < ctx.mpr() * 128 and p not in win["got"]))


m = fault("sack-rcvd-bytes-counts-pmtu",
          "The received-bytes counter adds the PMTU for every accepted write, counting "
          "packets times PMTU instead of payload bytes: CC_STATE rcvd_bytes runs ahead "
          "whenever a write is shorter than the PMTU.",
          ["CCS-BYTES-001", "RCV-SACK-007", "PETH-RESP-001", "EV-PROBE-004"])


def _rx8_pmtu_bytes(ctx, ev, at, m=m):
    seen = ctx.state.setdefault(m.name + ":psn", set())
    k = (ev.get("qpn"), ev.get("psn"))
    if k in seen:
        return None
    seen.add(k)
    return ctx.pmtu()


rx6_rcvd_bytes(m, _rx8_pmtu_bytes)


m = fault("sack-rcvd-bytes-at-retire",
          "The received-bytes counter is fed by the retirement engine with each message's "
          "length when it retires, instead of by each accepted write: CC_STATE rcvd_bytes "
          "leaves out the writes of messages not yet retired.",
          ["CCS-BYTES-001", "RCV-SACK-007", "PETH-RESP-001", "EV-PROBE-004"])


def _rx8_retired_bytes(ctx, ev, at):
    if ev.get("side") != "responder":
        return None
    return flag_fields(int(ev["value"]))["byte_len"]


rx6_rcvd_bytes(m, _rx8_retired_bytes, event="flag_write")


m = fault("sack-cack-from-retirement",
          "The cumulative-ACK register is written by the retirement engine: cack_psn is the "
          "last PSN of the QP's last retired message, not epsn - 1, while sack_offset is set "
          "so that the bitmap still starts at epsn.",
          ["SETH-CACK-001", "RCV-SACK-005", "OPC-PSN-002", "SETH-ACKPSN-003", "PETH-RESP-001",
           "EV-PROBE-004"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = rx_state(ctx, m)
    last = st.setdefault("lastpsn", {})
    events = []
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "flag_write" and ev.get("side") == "responder":
            events.append(item)
            continue
        f = frame_of(item)
        if f is None or kind(f) not in ("sack", "probe-answer"):
            continue
        for e in events:
            ee = event_of(e)
            ws = [w for w in st["seen"].get((ee.get("qpn"), ee.get("msn")), []) if w["last"]]
            if ws:
                last[ee.get("qpn")] = ws[-1]["psn"]
        events = []
        qp = ctx.local_qp_of(f)
        init = int((ctx.qps.get(qp) or {}).get("peer_initial_psn", 0))
        cack = f.get("seth", "cack_psn")
        new = last.get(qp, (init - 1) & U24)
        if new == cack or f.get("seth", "sack_offset") != 1:
            continue
        back = (cack - new) & U24
        if back >= 0x7FFF:
            continue
        trig = (cack + f.get("seth", "ack_psn_offset")) & U24
        f.set("seth", "cack_psn", new)
        f.set("bth", "psn", new)
        f.set("seth", "sack_offset", back + 1)
        if not f.get("seth", "pr"):
            off = (trig - new) & U24
            off = off - (1 << 24) if off >= 0x800000 else off
            f.set("seth", "ack_psn_offset", max(-0x8000, min(off, 0x7FFF)) & 0xFFFF)
        put(ctx, m, item, f)
    return outs


# ---- the answer to a duplicate, and the long run --------------------------------------------

m = fault("ack-dup-msn-of-duplicate",
          "The duplicate path hands the duplicate's own METH msn to the ACK builder: the "
          "transport ACK of a duplicate carries the MSN of the duplicate's message instead "
          "of the last message of the QP that retired.",
          ["RCV-DUP-002", "RCV-ACK-002", "AETH-MSN-001"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = rx_state(ctx, m)
    learn_placed(st, outs)
    for item in outs:
        f = frame_of(item)
        if f is None or kind(f) != "ack" or int(item["at"]) not in ctx.input_times:
            continue
        w = trigger_of(st, ctx.local_qp_of(f), int(item["at"]))
        if w is not None and is_dup(st, w) and f.get("aeth", "msn") != w["msn"]:
            f.set("aeth", "msn", w["msn"] & U24)
            put(ctx, m, item, f)
    return outs


m = fault("rcv-dup-retired-no-wrap",
          "The retired-message test of the duplicate path compares MSNs as plain 16-bit "
          "numbers: once the domain's MSN has wrapped past 0xFFFF, a duplicate of a message "
          "retired before the wrap gets its SACK but no transport ACK.",
          ["RCV-DUP-002"])
track_rx(m)


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = rx_state(ctx, m)
    learn_placed(st, outs)
    res = []
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "ack" and int(item["at"]) in ctx.input_times:
            w = trigger_of(st, ctx.local_qp_of(f), int(item["at"]))
            if (w is not None and is_dup(st, w)
                    and (w["msn"] & 0xFFFF) > (f.get("aeth", "msn") & 0xFFFF)):
                ctx.mutated(m.name)
                continue
        res.append(item)
    return res


# ---- two answers due in one cycle ------------------------------------------------------------

def rx8_one_slot(m, drop):
    """Registers an output hook for a per-QP answer queue with one slot per cycle: when a
    transport ACK and a SACK of one QP are due at one instant, the one of kind `drop` is
    lost."""

    @m.hook("outputs")
    def _(ctx, outs):
        by = {}
        for item in outs:
            f = frame_of(item)
            if f is not None and kind(f) in ("ack", "sack"):
                by.setdefault((ctx.local_qp_of(f), int(item["at"])), set()).add(kind(f))
        res = []
        for item in outs:
            f = frame_of(item)
            if f is not None and kind(f) == drop and len(
                    by.get((ctx.local_qp_of(f), int(item["at"])), ())) == 2:
                ctx.mutated(m.name)
                continue
            res.append(item)
        return res


m = fault("sack-lost-to-ack-same-cycle",
          "The answer queue of a QP takes one packet per cycle: when a write both retires a "
          "message and triggers a SACK, the transport ACK takes the slot and the SACK is "
          "lost.",
          ["RCV-SACK-001", "RCV-SACK-002", "RCV-DUP-001", "CONF-CMP-055"])
rx8_one_slot(m, "sack")


m = fault("ack-lost-to-sack-same-cycle",
          "The answer queue of a QP takes one packet per cycle: when a write both retires a "
          "message and triggers a SACK, the SACK takes the slot and the transport ACK is "
          "lost.",
          ["RCV-ACK-001", "RCV-ACK-002", "RCV-DUP-002", "RCV-ACK-003"])
rx8_one_slot(m, "ack")


# ==========================================================================================
# The ninth reading: legal designs read as the freedoms a NIC takes at the edges and under
# load: the order of outputs of different kinds at one instant, outputs given in the next
# batch, bursts held and released, SACKs sent more often, stamps on a clock of its own per
# QP, host writes in other pieces and pairs, error-path writes slower than the others, one
# kind of output slower than the rest; and the fault of timers that fire early.
# ==========================================================================================

v = variant("dma-split-32",
            "DMA writes are split at 32-byte address boundaries, as a host bus with a 32-byte "
            "write granule carries them (RCV-PLACE-003.b).")
v.hooks["outputs"] = split_writes(32)

combined("dma-merge-page-split",
         "A write-combining buffer merges the contiguous payload writes of one message that "
         "reach it within half of late_ns (dma-merge), and its IOMMU then cuts the merged "
         "writes at 4 KiB page boundaries (RCV-PLACE-003.b).",
         ["dma-merge", "dma-split-4096"])


def pair_with_next(why, which, same):
    """A write queue that fills wider lines: an output `which` selects is held until the
    next output `which` selects with the same key (`same(ctx, item)`), when that one is made
    within half of late_ns, and both are written together; the host writes of the key made
    in between wait behind the held one. Within one batch's outputs."""

    def hook(ctx, outs):
        closed = set()
        for i, item in enumerate(outs):
            if i in closed or not which(item):
                continue
            t, g = int(item["at"]), same(ctx, item)
            for j in range(i + 1, len(outs)):
                if int(outs[j]["at"]) > t + ctx.late_ns // 2:
                    break
                if which(outs[j]) and same(ctx, outs[j]) == g:
                    to = int(outs[j]["at"])
                    for k in range(i, j):
                        if k == i or (_is_memory(outs[k])
                                      and host_group_of(ctx, event_of(outs[k])) == g):
                            if int(outs[k]["at"]) != to:
                                outs[k]["at"] = to
                                ctx.mutated(why)
                    closed.add(j)
                    break
        return outs

    return hook


def _host_group(ctx, item):
    return host_group_of(ctx, event_of(item))


v = variant("flags-coalesced-pairs",
            "Its flag writer fills 16-byte lines: a flag (retirement or sender) is held until "
            "the next flag of its group of QPs, when that one is made within half of "
            "late_ns, and both are written together, each as its own aligned 8-byte word "
            "(FLAG-WRITE-001); the group's host writes made in between wait behind it.")
note_error_cq(v)
v.hooks["outputs"] = pair_with_next("flags-coalesced-pairs", _is_flag, _host_group)


def _all_input_times(m, why):
    """Keeps, per batch, the times of every input (frames, host and CPU commands)."""

    @m.hook("inputs")
    def _(ctx, ins, why=why):
        ctx.state[why + ":inputs"] = sorted({int(i.get("at", 0)) for i in ins})
        return ins


# A first draft of a variant whose timers fired early, as CONF-TIME-005.a tolerates an
# output early, is a fault: EV-SKIP-002 returns an EV "as soon as" skip_hold has passed and
# RCV-SACK-004 starts the SACK timer to expire sack_delay later, never sooner.

m = fault("timers-early",
          "The timer block loads each comparator with its deadline less a fixed pipeline "
          "allowance the rest of the pipeline does not add: every timer (the SKIP hold, the "
          "SACK timer, the ACK coalescing timer, the NACK back-off) fires half of early_ns "
          "before its deadline.",
          ["EV-SKIP-002", "SND-PATH-002", "RCV-SACK-004", "RCV-ACK-001", "SND-NACK-004"])
_all_input_times(m, "timers-early")


@m.hook("outputs")
def _(ctx, outs, m=m):
    early = int(ctx.tol.get("early_ns", 1000)) // 2
    ins = ctx.state.get(m.name + ":inputs") or []
    floor = ctx.prev_until
    for item in outs:
        t = int(item["at"])
        last_in = max([x for x in ins if x <= t], default=None)
        if last_in == t:
            floor = t
            continue
        lo = max(floor, (last_in + 1) if last_in is not None else 0)
        nt = max(t - early, lo)
        if nt < t:
            item["at"] = nt
            ctx.mutated(m.name)
        floor = int(item["at"])
    return outs


v = variant("timestamp-per-qp-32ns",
            "Its timestamp clocks count 32 ns units, one clock per QP whose epoch is the "
            "QP's creation (SND-TS-003.a: one clock for each QP, from its creation, an "
            "epoch of the sender's choosing).")
TS_PER_QP = v


@v.hook("inputs")
def _(ctx, ins):
    born = ctx.state.setdefault("ninth:born", {})
    for item in ins:
        c = (item.get("input") or {}).get("command") or {}
        if c.get("command") == "create_qp":
            born.setdefault(c.get("qpn"), int(item.get("at", 0)))
    return ins


@v.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("ts", {"data": {}, "probe": {}})
    born = ctx.state.setdefault("ninth:born", {})

    def fn(ctx, f, item):
        qp = ctx.local_qp_of(f)
        outer = ((int(item["at"]) - born.get(qp, 0)) // 32) & 0xFFFF
        if kind(f) == "data" and f.has("tseth"):
            st["data"][(qp, f.get("bth", "psn"))] = (f.get("tseth", "tx_timestamp"), outer)
            f.set("tseth", "tx_timestamp", outer)
        elif kind(f) == "probe":
            st["probe"][(qp, f.get("peth", "probe_id"))] = (f.get("peth", "tx_timestamp"), outer)
            f.set("peth", "tx_timestamp", outer)
        else:
            return False

    return each_frame(ctx, outs, ("data", "probe"), fn, "timestamp-per-qp-32ns")


# The reflected timestamps go back to the inner device's own clock, as for timestamp-1ns.
TS_PER_QP.hook("inputs")(__import__("mods").VARIANTS["timestamp-1ns"].hooks["inputs"])


v = variant("cqe-clock-coarse-256",
            "Its completion engine reads a nanosecond clock of 256 ns resolution with an "
            "epoch of its own: every timestamp is a multiple of 256, taken as the entry is "
            "written (CQE-TS-001.a).")


@out_events(v, ("completion",), "cqe-clock-coarse-256")
def _(ctx, ev, item):
    def f(e):
        if e.get("has_timestamp"):
            e["timestamp"] = ((int(item["at"]) + 0x30000000) // 256 * 256) & 0xFFFFFFFF

    mutate_completion(ev, f)


v = variant("payload-writes-posted-late",
            "Its DMA engine posts every payload write half of late_ns after the device made "
            "it, and the later host writes of the write's group (the message's completion "
            "and flag among them) wait behind it; frames and reports are on time, so a SACK "
            "or an ACK may leave before the bytes it covers land (RCV-PLACE-003.a orders "
            "them before the flag only).")
note_error_cq(v)
v.hooks["outputs"] = posted_late("payload-writes-posted-late", is_dma)

v = variant("endpoint-late",
            "Its endpoint engine adds half of late_ns to every endpoint request and "
            "response it sends; everything else is on time.")
v.hooks["outputs"] = latency_of("endpoint-late", _kinds("ereq", "ersp"))

v = variant("probe-answers-late",
            "Its probe answer engine, apart from its SACK engine, adds half of late_ns to "
            "every probe answer; SACKs, ACKs, NACKs, data, writes and reports are on time.")
v.hooks["outputs"] = latency_of("probe-answers-late", _kinds("probe-answer"))


v = variant("data-burst-4",
            "Its transmit queue sends the first transmissions of a QP in bursts: a data "
            "packet waits until four of the QP's packets are ready or half of late_ns has "
            "passed since the first of the burst, and the burst leaves at once, each packet "
            "stamped when it was built (SND-TS-003.b); the QP's later data, probes, "
            "retransmissions and sender notes wait behind the burst (ORD-SEND-002).")
note_error_cq(v)


@v.hook("outputs")
def _(ctx, outs):
    # group -> [deadline, release, data packets in the burst, every item queued in it]
    st = ctx.state.setdefault("data-burst-4", {})
    of_qp, _ = host_groups(ctx)
    d = ctx.late_ns // 2
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) not in ("data", "probe"):
            continue
        if f is None and not _is_sender_note(item):
            continue
        g = _output_group(ctx, item, of_qp)
        t = int(item["at"])
        b = st.get(g)
        if b is not None and b[1] < t:
            b = None  # the burst has left
        first = f is not None and kind(f) == "data" and not f.get("bth", "rtx")
        if b is None:
            if not (first and d):
                continue
            b = st[g] = [t + d, t + d, 0, []]
        b[3].append(item)
        if first:
            b[2] += 1
            if b[2] == 4:
                # The burst is full: it leaves now, with what the queue holds of it.
                b[1] = t
        for it in b[3]:
            if int(it["at"]) != b[1]:
                it["at"] = b[1]
                ctx.mutated("data-burst-4")
        if b[2] == 4:
            del st[g]
    return outs


def _instant_rank(item):
    if _is_report(item):
        return 0
    return 1 if frame_of(item) is not None else 2


v = variant("instant-reports-frames-memory",
            "At one instant its report ring is served first, its transmit path second and its "
            "host bus last: the reports, frames and host writes made at one time come in "
            "that order, each interface in its own order (CONF-CMP-110.c).")
v.hooks["outputs"] = reorder_instants("instant-reports-frames-memory", _instant_rank)


v = variant("interfaces-jitter",
            "Its transmit path, host bus and report ring each have a latency of their own "
            "that varies between 0 and half of late_ns by a pseudo-random draw, each "
            "interface in its order; a sender flag or completion also waits for the frames "
            "made before it (ORD-SEND-002).")


@v.hook("outputs")
def _(ctx, outs):
    d = max(ctx.late_ns // 2, 0)
    st = ctx.state.setdefault("interfaces-jitter",
                              {"x": sum(map(ord, ctx.name)) * 13 + 5, "last": {}})
    last = st["last"]
    for item in outs:
        lane = "frame" if frame_of(item) is not None else (
            "report" if _is_report(item) else "memory")
        st["x"] = (st["x"] * 1103515245 + 12345) & 0x7FFFFFFF
        t = int(item["at"])
        lo = last.get(lane, 0)
        if _is_sender_note(item):
            lo = max(lo, last.get("frame", 0))
        nt = min(max(t + st["x"] % (d + 1), lo), t + d)
        if nt < lo:
            # Never before an earlier output of the lane: the lane is late at most d.
            nt = lo
        last[lane] = nt
        if nt != t:
            item["at"] = nt
            ctx.mutated("interfaces-jitter")
    return outs


def _error_note(item):
    """A flag or completion entry with a status other than success."""
    ev = event_of(item)
    if ev is None:
        return False
    if ev.get("event") == "flag_write":
        return flag_fields(int(ev.get("value", 0)))["status"] != 0
    if ev.get("event") == "completion":
        return completion_entry(ev).get("status", 0) != 0
    return False


v = variant("error-notes-posted-late",
            "Its error path is slower: every flag and completion entry with a status other "
            "than success (a flush, a rejection, an error) is posted half of late_ns after "
            "the device made it, and the later host writes of its group wait behind it; "
            "frames and reports are on time.")
note_error_cq(v)
v.hooks["outputs"] = posted_late("error-notes-posted-late", _error_note)


v = variant("batch-edge-deferred",
            "It gives every output made at the very end of a batch (at its `until`) in the "
            "answer to the next advance, with the same time, which CONF-ADP-007.a allows "
            "(the previous until, both included).")


@v.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("batch-edge-deferred", [])
    mine = [o for o in st if int(o["at"]) == ctx.prev_until]
    del st[:]
    keep = []
    for item in outs:
        if int(item["at"]) == ctx.until and ctx.until > ctx.prev_until:
            st.append(item)
            ctx.mutated("batch-edge-deferred")
        else:
            keep.append(item)
    return mine + keep


v = variant("sack-with-each-ack",
            "Its answer engine repeats the QP's last SACK, unchanged and on its own EV, just "
            "before each transport ACK of the QP when that SACK left earlier: the number of "
            "SACKs is the device's choice (CONF-CMP-007.b).")


def _at_time_of(kept, item, f):
    """A copy of the kept output item, at `item`'s time."""
    c = copy.deepcopy(kept)
    c["at"] = item["at"]
    return c


repeat_last_before(v, ("ack",), "sack", lambda item, f: copy.deepcopy(item), _at_time_of)


combined("data-burst-4-ts-per-qp",
         "Its timestamp clocks count 32 ns units from each QP's creation, read as each packet "
         "is built (timestamp-per-qp-32ns), and its transmit queue sends a QP's first "
         "transmissions in bursts of four or after half of late_ns (data-burst-4).",
         ["timestamp-per-qp-32ns", "data-burst-4"])

combined("payload-late-split-32",
         "Its DMA engine cuts payload writes at 32-byte boundaries and posts each piece half "
         "of late_ns late, the later host writes of its group behind it "
         "(payload-writes-posted-late).",
         ["dma-split-32", "payload-writes-posted-late"])
# The ninth reading (error paths and limits) lives in a module of its own.
import faults_ninth  # noqa: E402,F401

# The tenth reading (interactions and shared state) lives in a module of its own.
import faults_tenth  # noqa: E402,F401
# The tenth reading (legal designs: how a real NIC is built) lives in a module of its own.
import variants_tenth  # noqa: E402,F401
# The eleventh reading (legal designs: the edges of every freedom) lives in a module of its own.
import variants_eleventh  # noqa: E402,F401
# The eleventh reading (pipelines, caches and hazards) lives in a module of its own.
import faults_eleventh  # noqa: E402,F401
# The twelfth reading (legal designs: how real NICs are built) lives in a module of its own.
import variants_twelfth  # noqa: E402,F401
# The weak-catch reading's variant (an ACK of an MSN retired but not yet acknowledged).
import variants_weak  # noqa: E402,F401
# The thirteenth reading (the edges earlier readings left thin) lives in a module of its own.
import faults_thirteenth  # noqa: E402,F401
# The thirteenth reading (legal designs: choices at the edges) lives in a module of its own.
import variants_thirteenth  # noqa: E402,F401
# The fourteenth reading, responder side, lives in a module of its own.
import faults_fourteenth_rcv  # noqa: E402,F401
# The fifteenth reading: register widths, fields of the wrong packet, edges.
import faults_fifteenth  # noqa: E402,F401
# The fifteenth reading, retirement side, lives in a module of its own.
import faults_fifteenth_ret  # noqa: E402,F401
# The fifteenth reading (the latency of answers) lives in a module of its own.
import faults_fifteenth_lat  # noqa: E402,F401
# The fifteenth reading (tail probes and their sequence numbers).
import faults_tail_sequence  # noqa: E402,F401
# The fifteenth reading (the cumulative PSN of probe answers).
import faults_fifteenth_mpr  # noqa: E402,F401
# The sixteenth reading, sender side (doorbell versions, one-instant events, reports).
import faults_sixteenth_snd  # noqa: E402,F401
# The sixteenth reading (legal designs an outside team would make) lives in a module of its own.
import variants_sixteenth  # noqa: E402,F401
# The sixteenth reading (a probe answer that judges packets sent after the probe).
import faults_sixteenth  # noqa: E402,F401
# The sixteenth reading, responder side, lives in a module of its own.
import faults_sixteenth_rcv  # noqa: E402,F401
