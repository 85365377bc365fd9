"""Reads an OpenRDMA scenario: X.toml (the manifest) beside X.pcapng (the records), as the
specification's conformance chapter, section 3, lays them out. Enough of pcapng for the
files the suite writes: one section, little-endian, nanosecond timestamps."""

import json
import struct
import tomllib
from dataclasses import dataclass
from pathlib import Path

LINKTYPE_ETHERNET = 1
LINKTYPE_USER0 = 147
HOST_KINDS = {1: "host", 2: "cpu", 3: "event"}


@dataclass
class Record:
    at: int  # ns since the scenario's start
    inject: bool  # inject (into the device) or expect (from it)
    kind: str  # "frame", "host", "cpu" or "event"
    port: int = 0  # frames: the port
    data: bytes = b""  # frames: the Ethernet frame
    body: dict | None = None  # host, cpu, event: the JSON body


@dataclass
class Scenario:
    name: str
    manifest: dict
    records: list


def _options(buf):
    """pcapng options: (code, value) until opt_endofopt."""
    i = 0
    while i + 4 <= len(buf):
        code, length = struct.unpack_from("<HH", buf, i)
        if code == 0:
            return
        yield code, buf[i + 4 : i + 4 + length]
        i += 4 + (length + 3) // 4 * 4


def load(stem):
    """The scenario whose files are stem.toml and stem.pcapng."""
    stem = Path(stem)
    manifest = tomllib.loads(stem.with_suffix(".toml").read_text())
    data = stem.with_suffix(".pcapng").read_bytes()
    links, records, i = [], [], 0
    while i + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, i)
        if blen < 12 or i + blen > len(data):
            raise ValueError(f"{stem}.pcapng: bad block at byte {i}")
        body = data[i + 8 : i + blen - 4]
        if btype == 0x0A0D0D0A:
            if struct.unpack_from("<I", body, 0)[0] != 0x1A2B3C4D:
                raise ValueError(f"{stem}.pcapng: not a little-endian section")
        elif btype == 1:
            links.append(struct.unpack_from("<H", body, 0)[0])
        elif btype == 6:
            iface, hi, lo, caplen, _ = struct.unpack_from("<IIIII", body, 0)
            pkt = body[20 : 20 + caplen]
            inject = None
            for code, value in _options(body[20 + (caplen + 3) // 4 * 4 :]):
                if code == 2:  # epb_flags: bits 0-1, 01 inbound, 10 outbound
                    d = struct.unpack_from("<I", value, 0)[0] & 3
                    inject = {1: True, 2: False}.get(d, inject)
                elif code == 1 and inject is None:
                    text = value.decode()
                    if text.startswith(("inject", "expect")):
                        inject = text.startswith("inject")
            if inject is None:
                raise ValueError(f"{stem}.pcapng: a record at byte {i} has no direction")
            at = hi << 32 | lo
            if links[iface] == LINKTYPE_ETHERNET:
                records.append(Record(at, inject, "frame", port=iface, data=bytes(pkt)))
            elif links[iface] == LINKTYPE_USER0 and pkt[:4] == b"ORDM":
                kind = HOST_KINDS[pkt[5]]
                records.append(Record(at, inject, kind, body=json.loads(pkt[8:])))
        i += blen
    return Scenario(stem.name, manifest, records)
