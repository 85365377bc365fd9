#!/usr/bin/env python3
"""Writes the committed RoCEv2 captures of traces/captures from scapy's RoCE layer.

scapy (scapy.contrib.roce, GPL-2.0-only, https://scapy.net) builds the BTH and computes each
packet's ICRC itself; this script only chooses the packets and the extension-header bytes
that follow the BTH, and derives the variants (tags, FCS, snapshot length, link types,
corrupted bytes) from scapy's frames byte by byte. Run it from the repository root:

    python3 -m pip install scapy==2.8.0
    python3 traces/captures/make/scapy_roce.py traces/captures

The output is deterministic (fixed timestamps, no randomness).
"""

import struct
import sys
import zlib
from pathlib import Path

from scapy.contrib.roce import BTH, cnp
from scapy.layers.inet import IP, TCP, UDP, ICMP
from scapy.layers.inet6 import IPv6, ICMPv6EchoRequest
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw

MAC_A, MAC_B = "02:00:00:00:00:01", "02:00:00:00:00:02"
T0 = 1_767_225_600


def reth(va, rkey, length):
    return struct.pack("!QII", va, rkey, length)


def deth(qkey, src_qp):
    return struct.pack("!II", qkey, src_qp & 0xFFFFFF)


def rdeth(eec):
    return struct.pack("!I", eec & 0xFFFFFF)


def xrceth(srq):
    return struct.pack("!I", srq & 0xFFFFFF)


def aeth(syndrome, msn):
    return struct.pack("!I", (syndrome << 24) | (msn & 0xFFFFFF))


def immdt(v):
    return struct.pack("!I", v)


def ieth(rkey):
    return struct.pack("!I", rkey)


def atomiceth(va, rkey, swap, cmp):
    return struct.pack("!QIQQ", va, rkey, swap, cmp)


def atomicacketh(orig):
    return struct.pack("!Q", orig)


def feth(sel, plt):
    return struct.pack("!I", ((sel & 0x3) << 4) | (plt & 0xF))


def payload(n, seed):
    return bytes((seed * 31 + i * 7) & 0xFF for i in range(n))


def roce(op, headers, data, v6=False, psn=0, qp=0x11, ackreq=0, sport=0xC000, se=0):
    pad = (4 - len(data) % 4) % 4
    bth = BTH(opcode=op, padcount=pad, solicited=se, dqpn=qp, ackreq=ackreq, psn=psn)
    body = Raw(headers + data + b"\0" * pad)
    if v6:
        ip = IPv6(src="fd00::1", dst="fd00::2", tc=2, fl=0x1234, hlim=64)
    else:
        ip = IP(src="192.0.2.1", dst="192.0.2.2", tos=2, ttl=64, flags="DF", id=1)
    return bytes(Ether(src=MAC_A, dst=MAC_B) / ip / UDP(sport=sport, dport=4791) / bth / body)


def standard_frames():
    """One frame per IBTA opcode family that RoCE devices send, IPv4 and IPv6."""
    out = []
    psn = 100
    rows = [
        # RC
        (0x00, b"", 256), (0x01, b"", 256), (0x02, b"", 17), (0x03, immdt(0xDEADBEEF), 9),
        (0x04, b"", 16), (0x05, immdt(0x01020304), 5),
        (0x06, reth(0x7F0000001000, 0xABCD1234, 4096), 256), (0x07, b"", 256), (0x08, b"", 33),
        (0x09, immdt(7), 11), (0x0A, reth(0x1000, 0x42, 13), 13),
        (0x0B, reth(0x2000, 0x43, 3) + immdt(0xCAFEF00D), 3),
        (0x0C, reth(0xFFFF000000000000, 7, 65536), 0),
        (0x0D, aeth(0x1F, 5), 256), (0x0E, b"", 256), (0x0F, aeth(0x1F, 6), 40),
        (0x10, aeth(0x00, 7), 8), (0x11, aeth(0x60, 0xABCDEF), 0), (0x11, aeth(0x2E, 9), 0),
        (0x12, aeth(0x00, 10) + atomicacketh(0x0123456789ABCDEF), 0),
        (0x13, atomiceth(0x3000, 9, 0x55, 0xAA), 0), (0x14, atomiceth(0x3008, 9, 1, 0), 0),
        (0x16, ieth(0x11223344), 20), (0x17, ieth(0x55667788), 2),
        # UC
        (0x20, b"", 64), (0x21, b"", 64), (0x22, b"", 3), (0x23, immdt(1), 1), (0x24, b"", 0),
        (0x25, immdt(2), 4), (0x26, reth(0x4000, 0x99, 200), 64), (0x27, b"", 64),
        (0x28, b"", 72), (0x29, immdt(3), 8), (0x2A, reth(0x5000, 0x98, 21), 21),
        (0x2B, reth(0x6000, 0x97, 6) + immdt(4), 6),
        # RD
        (0x44, rdeth(0x123) + deth(0x80010000, 0x77), 12),
        (0x4A, rdeth(0x124) + deth(0x80010000, 0x77) + reth(0x7000, 5, 8), 8),
        (0x51, rdeth(0x125) + aeth(0x1F, 3), 0),
        (0x53, rdeth(0x126) + deth(1, 2) + atomiceth(0x8000, 3, 4, 5), 0),
        # UD
        (0x64, deth(0x11111111, 0x222), 32), (0x65, deth(0x11111111, 0x223) + immdt(9), 7),
        # XRC
        (0xA4, xrceth(0x345), 24), (0xAA, xrceth(0x346) + reth(0x9000, 6, 10), 10),
        (0xB1, aeth(0x1F, 12), 0), (0xB3, xrceth(0x347) + atomiceth(0xA000, 1, 2, 3), 0),
    ]
    for i, (op, hdrs, n) in enumerate(rows):
        out.append(roce(op, hdrs, payload(n, i), v6=(i % 3 == 2), psn=psn + i,
                        ackreq=(i % 2), se=(i % 5 == 0)))
    # The largest PSN and QP, and a CNP as a ConnectX sends it.
    out.append(roce(0x04, b"", b"hello roce v2!!!", psn=0xFFFFFF, qp=0xFFFFFF))
    c = Ether(src=MAC_A, dst=MAC_B) / IP(src="192.0.2.1", dst="192.0.2.2", tos=0xC2) / \
        UDP(sport=0, dport=4791) / cnp(0x12)
    out.append(bytes(c))
    return out


def ibta15_frames():
    """FLUSH and ATOMIC WRITE (IBTA 1.5 memory placement extensions), RC and XRC."""
    rows = [
        (0x1C, feth(0, 1) + reth(0x7F0000002000, 0xABCD1235, 4096), b""),
        (0x1D, reth(0x7F0000003000, 0xABCD1236, 8), payload(8, 60)),
        (0xBC, xrceth(0x348) + feth(1, 3) + reth(0, 0x44, 0), b""),
        (0xBD, xrceth(0x349) + reth(0xB000, 0x45, 8), payload(8, 61)),
    ]
    return [roce(op, hdrs, data, v6=(i % 2 == 1), psn=200 + i, ackreq=1)
            for i, (op, hdrs, data) in enumerate(rows)]


def other_frames():
    """Frames of other protocols: they never change the exit code."""
    return [
        bytes(Ether(src=MAC_A, dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="192.0.2.1", pdst="192.0.2.2")),
        bytes(Ether(src=MAC_A, dst=MAC_B) / IP(src="192.0.2.1", dst="192.0.2.2") /
              TCP(sport=40000, dport=22, flags="S")),
        bytes(Ether(src=MAC_A, dst=MAC_B) / IPv6(src="fd00::1", dst="fd00::2") /
              ICMPv6EchoRequest(id=1, seq=1)),
        bytes(Ether(src=MAC_A, dst=MAC_B) / IP(src="192.0.2.1", dst="192.0.2.2") /
              UDP(sport=5353, dport=53) / Raw(b"\x12\x34" + b"\0" * 10)),
        bytes(Ether(src=MAC_A, dst=MAC_B) / IP(src="192.0.2.1", dst="192.0.2.2") / ICMP()),
    ]


def pcap(path, records, linktype=1, big=False):
    """records: (bytes, orig_len) pairs."""
    e = ">" if big else "<"
    with open(path, "wb") as f:
        f.write(struct.pack(e + "IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for i, (data, orig) in enumerate(records):
            f.write(struct.pack(e + "IIII", T0, i, len(data), orig))
            f.write(data)


def whole(frames):
    return [(f, len(f)) for f in frames]


def tag_stack(frame, tags):
    """Inserts tags ((tpid, vid), ...) after the MAC addresses, outermost first."""
    out = frame[:12]
    for tpid, vid in tags:
        out += struct.pack("!HH", tpid, vid)
    return out + frame[12:]


def fcs(frame):
    return frame + struct.pack("<I", zlib.crc32(frame) & 0xFFFFFFFF)


def sll(frame):
    return struct.pack("!HHH", 4, 1, 6) + frame[6:12] + b"\0\0" + frame[12:14] + frame[14:]


def sll2(frame):
    return frame[12:14] + b"\0\0" + struct.pack("!IHBB", 3, 1, 4, 6) + frame[6:12] + b"\0\0" + \
        frame[14:]


def corrupt(frames):
    """Flips one byte that the ICRC covers in each RoCE frame (a bad ICRC), and one that it
    masks in every other (the ICRC stays good)."""
    out = []
    for i, f in enumerate(frames):
        b = bytearray(f)
        ip = 14
        v6 = b[12:14] == b"\x86\xdd"
        udp = ip + (40 if v6 else 20)
        if i % 2 == 0:
            b[udp + 8 + 11] ^= 0x01          # BTH psn: covered
        else:
            b[udp + 8 + 4] ^= 0x40           # BTH byte 4 (becn): masked
        out.append(bytes(b))
    return out


def main(dest):
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    std = standard_frames()
    other = other_frames()
    pcap(dest / "scapy-roce.pcap", whole(std))
    pcap(dest / "scapy-roce-be.pcap", whole(std[:8]), big=True)
    pcap(dest / "scapy-mixed.pcap", whole(std[:4] + other + std[4:6]))
    # A TCP frame whose IP length claims more than it holds: another protocol's broken
    # frame, which changes the exit code only under --strict.
    tcp = bytearray(other[1])
    tcp[16:18] = struct.pack("!H", len(tcp) - 14 + 20)
    pcap(dest / "scapy-broken-tcp.pcap", whole([std[0], bytes(tcp)]))
    pcap(dest / "scapy-qinq.pcap",
         whole([tag_stack(f, [(0x88A8, 10), (0x8100, 100)]) for f in std[:12]] +
               [tag_stack(std[12], [(0x9100, 7), (0x88A8, 10), (0x8100, 100)])] +
               [tag_stack(std[13], [(0x8100, 5)])]))
    # FCS declared in the link-type word: the pcap specification's F bit with the length in
    # 16-bit words in bits 29-31, and libpcap's own bit 26 with the length in bits 28-31.
    pcap(dest / "scapy-fcs.pcap", whole([fcs(f) for f in std[:10]]), linktype=0x5000_0001)
    pcap(dest / "scapy-fcs-libpcap.pcap", whole([fcs(f) for f in std[10:20]]),
         linktype=0x2400_0001)
    pcap(dest / "scapy-snaplen96.pcap", [(f[:96], len(f)) for f in std + other])
    pcap(dest / "scapy-snaplen-cut.pcap",
         [(f[:n], len(f)) for n, f in zip([40, 50, 58, 62, 66, 70, 80], std)])
    pcap(dest / "scapy-sll.pcap", whole([sll(f) for f in std[:16]]), linktype=113)
    pcap(dest / "scapy-sll2.pcap", whole([sll2(f) for f in std[16:32]]), linktype=276)
    pcap(dest / "scapy-rawip.pcap", whole([f[14:] for f in std]), linktype=101)
    v4 = [f for f in std if f[12:14] == b"\x08\x00"]
    v6 = [f for f in std if f[12:14] == b"\x86\xdd"]
    pcap(dest / "scapy-ipv4.pcap", whole([f[14:] for f in v4[:8]]), linktype=228)
    pcap(dest / "scapy-ipv6.pcap", whole([f[14:] for f in v6[:8]]), linktype=229)
    pcap(dest / "scapy-corrupted.pcap", whole(corrupt(std)))
    pcap(dest / "scapy-ibta15.pcap", whole(ibta15_frames()))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "traces/captures")
