"""A small RoCEv2/MRC frame parser and builder, written from spec/wire-format.md.

It knows Ethernet II, one 802.1Q tag, IPv4, IPv6, UDP, the BTH and the MRC extension headers
(METH, TSETH, RETH, ImmDt, AETH, SETH, CC_STATE, NETH, PETH, ERTH, EETH). Other opcodes keep
the bytes after the BTH as payload. The ICRC is zlib's CRC-32 over the masked fields of
section 7 of that chapter.

A Frame holds the bytes and the offset of each header. Fields are read and written by name,
`f.get("seth", "cack_psn")`, `f.set("bth", "psn", 7)`. `seal()` recomputes what a sender
derives: the IPv4 header checksum, a UDP checksum that is not zero (and the IPv6 one always),
and the ICRC. A fault that wants a bad checksum or ICRC changes fields and does not seal, or
seals and then breaks the value.

Standard library only, so that CI needs nothing but python3.
"""

import ipaddress
import struct
import zlib

ROCE_PORT = 4791

# Opcodes the device sends or receives (wire-format table 9).
MRC_WRITE_FIRST = 0xC6
MRC_WRITE_MIDDLE = 0xC7
MRC_WRITE_LAST = 0xC8
MRC_WRITE_LAST_IMM = 0xC9
MRC_WRITE_ONLY = 0xCA
MRC_WRITE_ONLY_IMM = 0xCB
MRC_ACK = 0xD1
MRC_ENDPOINT_REQUEST = 0xD8
MRC_ENDPOINT_RESPONSE = 0xD9
MRC_SACK = 0xDC
MRC_NACK = 0xDD
MRC_PROBE = 0xDE

WRITES = range(MRC_WRITE_FIRST, MRC_WRITE_ONLY_IMM + 1)

# Field tables: name -> (byte offset in the header, byte count, right shift, mask). A mask
# that is not contiguous keeps reserved bits in place, as the spec's `resv8` and SETH
# `resv1` are.
def _f(off, n, shift=0, mask=None):
    return (off, n, shift, (1 << (8 * n)) - 1 if mask is None else mask)


FIELDS = {
    "eth": {"dst": _f(0, 6), "src": _f(6, 6), "ethertype": _f(12, 2)},
    "vlan": {
        "pcp": _f(0, 2, 13, 0x7),
        "dei": _f(0, 2, 12, 0x1),
        "vid": _f(0, 2, 0, 0xFFF),
        "ethertype": _f(2, 2),
    },
    "ipv4": {
        "version": _f(0, 1, 4, 0xF),
        "ihl": _f(0, 1, 0, 0xF),
        "dscp": _f(1, 1, 2, 0x3F),
        "ecn": _f(1, 1, 0, 0x3),
        "total_len": _f(2, 2),
        "ident": _f(4, 2),
        "flag_reserved": _f(6, 2, 15, 1),
        "dont_frag": _f(6, 2, 14, 1),
        "more_frags": _f(6, 2, 13, 1),
        "frag_offset": _f(6, 2, 0, 0x1FFF),
        "ttl": _f(8, 1),
        "protocol": _f(9, 1),
        "checksum": _f(10, 2),
        "src": _f(12, 4),
        "dst": _f(16, 4),
    },
    "ipv6": {
        "version": _f(0, 4, 28, 0xF),
        "traffic_class": _f(0, 4, 20, 0xFF),
        "flow_label": _f(0, 4, 0, 0xFFFFF),
        "payload_len": _f(4, 2),
        "next_header": _f(6, 1),
        "hop_limit": _f(7, 1),
        "src": _f(8, 16),
        "dst": _f(24, 16),
    },
    "udp": {"src_port": _f(0, 2), "dst_port": _f(2, 2), "length": _f(4, 2), "checksum": _f(6, 2)},
    "bth": {
        "opcode": _f(0, 1),
        "solicited": _f(1, 1, 7, 1),
        "mig_req": _f(1, 1, 6, 1),
        "pad_count": _f(1, 1, 4, 0x3),
        "tver": _f(1, 1, 0, 0xF),
        "pkey": _f(2, 2),
        "fecn": _f(4, 1, 7, 1),
        "becn": _f(4, 1, 6, 1),
        "resv6": _f(4, 1, 0, 0x3F),
        "dest_qp": _f(5, 3),
        "ack_req": _f(8, 1, 7, 1),
        "resv8": _f(8, 1, 0, 0x4F),
        "rtx": _f(8, 1, 5, 1),
        "ts": _f(8, 1, 4, 1),
        "psn": _f(9, 3),
    },
    "meth": {"rqmsn": _f(0, 2), "msn": _f(2, 2)},
    "tseth": {
        "tx_timestamp": _f(0, 2),
        "tsr": _f(2, 2, 15, 1),
        "resv": _f(2, 2, 4, 0x7FF),
        "ftype": _f(2, 2, 0, 0xF),
    },
    "reth": {"va": _f(0, 8), "rkey": _f(8, 4), "dma_len": _f(12, 4)},
    "immdt": {"imm": _f(0, 4)},
    "aeth": {"syndrome": _f(0, 1), "msn": _f(1, 3)},
    "seth": {
        "res_type": _f(0, 1, 4, 0xF),
        "next_header": _f(0, 2, 7, 0x1F),
        "m": _f(1, 1, 5, 0x3),
        "resv1": _f(1, 1, 0, 0x1D),
        "pr": _f(1, 1, 1, 1),
        "ack_psn_offset": _f(2, 2),
        "entropy": _f(4, 4),
        "spdcid": _f(8, 2),
        "dpdcid": _f(10, 2),
        "resv12": _f(12, 1),
        "cack_psn": _f(13, 3),
        "cc_type": _f(16, 1, 4, 0xF),
        "cc_flags": _f(16, 1, 0, 0xF),
        "mpr": _f(17, 1),
        "sack_offset": _f(18, 2),
        "sack_bitmap": _f(20, 8),
    },
    "cc_state": {
        "tx_timestamp": _f(0, 2),
        "resv": _f(2, 1, 7, 1),
        "ooo_count": _f(2, 2, 0, 0x7FFF),
        "r_c": _f(4, 1, 7, 1),
        "rcv_cwnd_pen": _f(4, 1, 0, 0x7F),
        "rcvd_bytes": _f(5, 3),
    },
    "neth": {
        "res_type": _f(0, 1, 4, 0xF),
        "next_header": _f(0, 2, 7, 0x1F),
        "resv1": _f(1, 1, 0, 0x7F),
        "reason": _f(2, 1),
        "vendor_info": _f(3, 1),
        "entropy": _f(4, 4),
        "spdcid": _f(8, 2),
        "dpdcid": _f(10, 2),
        "resv12": _f(12, 1),
        "nack_psn": _f(13, 3),
        "cc_type": _f(16, 1, 4, 0xF),
        "cc_flags": _f(16, 1, 0, 0xF),
        "resv17": _f(17, 1),
        "tx_timestamp": _f(18, 2),
    },
    "peth": {
        "resv0": _f(0, 4),
        "probe_id": _f(4, 2),
        "resv6": _f(6, 2),
        "spdcid": _f(8, 2),
        "dpdcid": _f(10, 2),
        "tx_timestamp": _f(12, 2),
        "tsr": _f(14, 2, 15, 1),
        "resv14": _f(14, 2, 4, 0x7FF),
        "ftype": _f(14, 2, 0, 0xF),
    },
    "erth": {
        "op": _f(0, 1),
        "resv1": _f(1, 3),
        "port_status": _f(4, 4),
        "request_id": _f(8, 4),
        "resv12": _f(12, 4),
    },
    "eeth": {
        "op": _f(0, 1),
        "status": _f(1, 1),
        "resv2": _f(2, 2),
        "port_status": _f(4, 4),
        "request_id": _f(8, 4),
        "data": _f(12, 24),
    },
}

HEADER_LEN = {
    "eth": 14, "vlan": 4, "ipv6": 40, "udp": 8, "bth": 12, "meth": 4, "tseth": 4, "reth": 16,
    "immdt": 4, "aeth": 4, "seth": 28, "cc_state": 8, "neth": 20, "peth": 16, "erth": 16,
    "eeth": 36,
}

SIGNED = {("seth", "ack_psn_offset"), ("seth", "sack_offset")}


def extension_headers(opcode, ts):
    """The extension headers that follow the BTH, in order (wire-format table 9)."""
    if MRC_WRITE_FIRST <= opcode <= MRC_WRITE_ONLY_IMM:
        hs = ["meth"] + (["tseth"] if ts else []) + ["reth"]
        if opcode in (MRC_WRITE_LAST_IMM, MRC_WRITE_ONLY_IMM):
            hs.append("immdt")
        return hs
    return {
        MRC_ACK: ["aeth"],
        MRC_ENDPOINT_REQUEST: ["erth"],
        MRC_ENDPOINT_RESPONSE: ["eeth"],
        MRC_SACK: ["seth", "cc_state"],
        MRC_NACK: ["neth"],
        MRC_PROBE: ["peth"],
    }.get(opcode, [])


class FrameError(Exception):
    """The bytes are not a RoCEv2 frame this parser can follow."""


def checksum16(data):
    """The Internet checksum (RFC 1071) of `data`."""
    if len(data) % 2:
        data = data + b"\x00"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


class Frame:
    """A parsed RoCEv2 frame: its bytes and where each header starts."""

    def __init__(self, data):
        self.b = bytearray(data)
        self.off = {}
        self.parse()

    # ---- structure -------------------------------------------------------------------

    def parse(self):
        b = self.b
        self.off = {}
        if len(b) < 14:
            raise FrameError("frame shorter than an Ethernet header")
        self.off["eth"] = 0
        pos = 12
        ethertype = int.from_bytes(b[12:14], "big")
        if ethertype in (0x8100, 0x88A8):
            if len(b) < 18:
                raise FrameError("802.1Q tag truncated")
            self.off["vlan"] = 14
            ethertype = int.from_bytes(b[16:18], "big")
            pos = 16
        ip = pos + 2
        self.ip_off = ip
        if ethertype == 0x0800:
            if len(b) < ip + 20:
                raise FrameError("IPv4 header truncated")
            ihl = b[ip] & 0xF
            if b[ip] >> 4 != 4 or ihl < 5:
                raise FrameError("not an IPv4 header this parser follows")
            self.off["ipv4"] = ip
            self.ip_hlen = ihl * 4
            if b[ip + 9] != 17:
                raise FrameError("IPv4 protocol is not UDP")
            ip_end = ip + int.from_bytes(b[ip + 2:ip + 4], "big")
        elif ethertype == 0x86DD:
            if len(b) < ip + 40:
                raise FrameError("IPv6 header truncated")
            self.off["ipv6"] = ip
            self.ip_hlen = 40
            if b[ip + 6] != 17:
                raise FrameError("IPv6 next header is not UDP")
            ip_end = ip + 40 + int.from_bytes(b[ip + 4:ip + 6], "big")
        else:
            raise FrameError("ethertype 0x%04x is neither IPv4 nor IPv6" % ethertype)
        if ip_end > len(b) or ip_end < ip + self.ip_hlen + 8 + 16:
            raise FrameError("IP length does not fit the frame")
        self.ip_end = ip_end
        udp = ip + self.ip_hlen
        self.off["udp"] = udp
        if int.from_bytes(b[udp + 2:udp + 4], "big") != ROCE_PORT:
            raise FrameError("UDP destination port is not 4791")
        bth = udp + 8
        self.off["bth"] = bth
        opcode = b[bth]
        ts = (b[bth + 8] >> 4) & 1
        pos = bth + 12
        self.icrc_off = ip_end - 4
        for h in extension_headers(opcode, ts):
            if pos + HEADER_LEN[h] > self.icrc_off:
                raise FrameError("%s truncated" % h.upper())
            self.off[h] = pos
            pos += HEADER_LEN[h]
        self.payload_off = pos
        pad = (b[bth + 1] >> 4) & 3
        if pos + pad > self.icrc_off:
            raise FrameError("pad truncated")
        self.pad_off = self.icrc_off - pad

    def has(self, header):
        return header in self.off

    @property
    def opcode(self):
        return self.b[self.off["bth"]]

    def is_write(self):
        return MRC_WRITE_FIRST <= self.opcode <= MRC_WRITE_ONLY_IMM

    @property
    def payload(self):
        return bytes(self.b[self.payload_off:self.pad_off])

    def __bytes__(self):
        return bytes(self.b)

    def hex(self):
        return self.b.hex()

    # ---- fields ----------------------------------------------------------------------

    def get(self, header, name):
        off, n, shift, mask = FIELDS[header][name]
        at = self.off[header] + off
        v = (int.from_bytes(self.b[at:at + n], "big") >> shift) & mask
        if (header, name) in SIGNED and v >= 0x8000:
            v -= 0x10000
        return v

    def set(self, header, name, value):
        off, n, shift, mask = FIELDS[header][name]
        at = self.off[header] + off
        cur = int.from_bytes(self.b[at:at + n], "big")
        cur = (cur & ~(mask << shift)) | ((int(value) & mask) << shift)
        self.b[at:at + n] = cur.to_bytes(n, "big")

    # ---- the EV (wire-format section 2.7) ----------------------------------------------

    def ev(self):
        hi = self.get("udp", "src_port") << 16
        if self.has("ipv6"):
            return hi | (self.get("ipv6", "flow_label") & 0xFFFF)
        return hi

    def set_ev(self, ev):
        self.set("udp", "src_port", (ev >> 16) & 0xFFFF)
        if self.has("ipv6"):
            self.set("ipv6", "flow_label", ev & 0xFFFF)

    # ---- checksums and the ICRC ------------------------------------------------------

    def icrc_found(self):
        return struct.unpack("<I", bytes(self.b[self.icrc_off:self.icrc_off + 4]))[0]

    def icrc_computed(self, mask_variant=True):
        """The ICRC over the masked fields (wire-format section 7). With `mask_variant`
        False the IP fields that table 28 masks are left as they are (a bug to model)."""
        b = self.b
        ip = self.ip_off
        iph = bytearray(b[ip:ip + self.ip_hlen])
        if mask_variant:
            if self.has("ipv4"):
                iph[1] = 0xFF
                iph[8] = 0xFF
                iph[10] = 0xFF
                iph[11] = 0xFF
            else:
                iph[0] |= 0x0F
                iph[1] = iph[2] = iph[3] = 0xFF
                iph[7] = 0xFF
        udp = bytearray(b[self.off["udp"]:self.off["udp"] + 8])
        udp[6] = udp[7] = 0xFF
        bth = bytearray(b[self.off["bth"]:self.off["bth"] + 12])
        bth[4] = 0xFF
        rest = b[self.off["bth"] + 12:self.icrc_off]
        return zlib.crc32(b"\xff" * 8 + bytes(iph) + bytes(udp) + bytes(bth) + bytes(rest))

    def icrc_ok(self):
        return self.icrc_found() == self.icrc_computed()

    def set_icrc(self, value):
        self.b[self.icrc_off:self.icrc_off + 4] = struct.pack("<I", value & 0xFFFFFFFF)

    def udp_checksum(self):
        b = self.b
        udp = self.off["udp"]
        seg = bytearray(b[udp:self.ip_end])
        seg[6] = seg[7] = 0
        if self.has("ipv6"):
            ip = self.off["ipv6"]
            pseudo = bytes(b[ip + 8:ip + 40]) + struct.pack("!IxxxB", len(seg), 17)
        else:
            ip = self.off["ipv4"]
            pseudo = bytes(b[ip + 12:ip + 20]) + struct.pack("!xBH", 17, len(seg))
        c = checksum16(pseudo + bytes(seg))
        return c or 0xFFFF

    def ipv4_checksum(self):
        ip = self.off["ipv4"]
        h = bytearray(self.b[ip:ip + self.ip_hlen])
        h[10] = h[11] = 0
        return checksum16(bytes(h))

    def seal(self, udp_checksum=None, icrc=True):
        """Recomputes the derived fields: the IPv4 header checksum; the UDP checksum when it
        is not zero, as the sender of the frame computes one (or as `udp_checksum` says:
        True computes it, False zeroes it); then the ICRC."""
        if self.has("ipv4"):
            self.set("ipv4", "checksum", self.ipv4_checksum())
        want = udp_checksum
        if want is None:
            want = self.get("udp", "checksum") != 0
        if want:
            # The ICRC does not cover the UDP checksum, so the order does not matter; the
            # UDP checksum covers the ICRC, so the ICRC goes first.
            if icrc:
                self.set_icrc(self.icrc_computed())
            self.set("udp", "checksum", self.udp_checksum())
        else:
            self.set("udp", "checksum", 0)
            if icrc:
                self.set_icrc(self.icrc_computed())
        return self

    # ---- structural edits ------------------------------------------------------------

    def replace_payload(self, payload, pad_count=None):
        """Puts `payload` (and `pad_count` zero pad bytes, by default what PAY-PAD-001
        asks) in place of the payload and pad, and fixes the lengths; seal() afterwards."""
        if pad_count is None:
            pad_count = (4 - len(payload) % 4) % 4
        tail = bytes(self.b[self.icrc_off:])  # ICRC and Ethernet padding
        self.b[self.payload_off:] = bytes(payload) + b"\x00" * pad_count + tail
        self.set("bth", "pad_count", pad_count)
        self._fix_lengths(len(self.b) - len(tail) + 4)
        self.parse()

    def _fix_lengths(self, ip_end):
        ip = self.ip_off
        udp_len = ip_end - self.off["udp"]
        self.set("udp", "length", udp_len)
        if self.has("ipv4"):
            self.set("ipv4", "total_len", ip_end - ip)
        else:
            self.set("ipv6", "payload_len", ip_end - ip - 40)

    def strip_vlan(self):
        """Removes the 802.1Q tag."""
        if not self.has("vlan"):
            return
        ethertype = self.b[16:18]
        del self.b[12:16]
        self.b[12:14] = ethertype
        self.parse()

    def ethernet_pad(self, minimum=60):
        """Pads the frame with zero bytes after the IP packet up to `minimum` bytes."""
        if len(self.b) < minimum:
            self.b.extend(b"\x00" * (minimum - len(self.b)))


# Fields a sender derives, which a device giving a frame as fields may leave to the runner
# (spec/conformance.md, CONF-ADP-015).
DERIVED = {("bth", "pad_count"), ("ipv4", "ihl"), ("ipv4", "total_len"), ("ipv4", "checksum"),
           ("ipv6", "payload_len"), ("udp", "length"), ("udp", "checksum")}


def _text(header, name, value):
    if header == "eth" and name in ("src", "dst"):
        return ":".join("%02x" % x for x in value.to_bytes(6, "big"))
    if header == "ipv4" and name in ("src", "dst"):
        return str(ipaddress.IPv4Address(value))
    if header == "ipv6" and name in ("src", "dst"):
        return str(ipaddress.IPv6Address(value))
    return value


def to_fields(f, derived=False):
    """The frame as the adapter protocol's `fields` give it: one object per header under its
    key (`vlan` too, one tag), with `payload` in hexadecimal: what a device that leaves the
    framing to the runner gives instead of bytes. `openrdma dissect --json` has the same
    headers but gives `vlan` as a list of tags. Derived fields are left out unless
    `derived`."""
    out = {}
    for h in sorted(f.off, key=lambda k: f.off[k]):
        d = {}
        for name, (_off, _n, _shift, mask) in FIELDS[h].items():
            if not derived and (h, name) in DERIVED:
                continue
            v = f.get(h, name)
            if mask == 1:
                v = bool(v)
            elif h == "eeth" and name == "data":
                v = list(v.to_bytes(24, "big"))
            else:
                v = _text(h, name, v)
            d[name] = v
        if h == "ipv4":
            d["options"] = list(f.b[f.off["ipv4"] + 20:f.off["ipv4"] + f.ip_hlen])
        out[h] = d
    out["payload"] = f.payload.hex()
    return out


def parse(data):
    """A Frame, or None when the bytes are not a RoCEv2 frame this parser follows."""
    try:
        return Frame(data)
    except (FrameError, IndexError, struct.error):
        return None


# ---- pcapng -----------------------------------------------------------------------------


def pcapng_frames(path):
    """The Ethernet frames of a pcapng file, as (interface, epb flags, bytes), in order."""
    with open(path, "rb") as fh:
        data = fh.read()
    out = []
    links = []
    pos = 0
    endian = "<"
    while pos + 12 <= len(data):
        btype, blen = struct.unpack(endian + "II", data[pos:pos + 8])
        if btype == 0x0A0D0D0A:
            magic = data[pos + 8:pos + 12]
            endian = "<" if magic == b"\x4d\x3c\x2b\x1a" else ">"
            btype, blen = struct.unpack(endian + "II", data[pos:pos + 8])
            links = []
        if blen < 12 or pos + blen > len(data):
            raise ValueError("%s: block at byte %d is cut" % (path, pos))
        body = data[pos + 8:pos + blen - 4]
        if btype == 1:
            links.append(struct.unpack(endian + "H", body[0:2])[0])
        elif btype == 6:
            iface, _hi, _lo, caplen, _orig = struct.unpack(endian + "IIIII", body[0:20])
            pkt = body[20:20 + caplen]
            flags = 0
            opts = body[20 + ((caplen + 3) & ~3):]
            o = 0
            while o + 4 <= len(opts):
                code, olen = struct.unpack(endian + "HH", opts[o:o + 4])
                if code == 0:
                    break
                if code == 2 and olen == 4:
                    flags = struct.unpack(endian + "I", opts[o + 4:o + 8])[0]
                o += 4 + ((olen + 3) & ~3)
            if iface < len(links) and links[iface] == 1:
                out.append((iface, flags, bytes(pkt)))
        pos += blen
    return out
