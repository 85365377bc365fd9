"""The legal variants of the sixteenth reading: choices an outside team would make.

The specification read again for every MAY, SHOULD and choice it leaves, and for the
combinations real designs make: a MAC that pads to the minimum frame, a control path with
a header template of its own (IP options, padding, classes), a checksum offload on one
path only, a rtx bit its answer engine always sets, DMA writes cut at sizes and edges the
earlier readings did not try, a completion clock that wraps, SACK coalescing at a lower
count, answers and reports moderated by count and by timer. Each one adds at most half of
late_ns to an output (CONF-TIME-004) and keeps every order a rule fixes. `faults.py`
imports this module last, so the helpers it uses are defined.
"""

import copy

from faults import (
    _is_answer, _is_memory, _is_report, all_frames, combined, note_error_cq, split_writes,
)
from mods import (
    config, event_of, frame_of, kind, mutate_completion, out_events, put_frame, responder,
    variant,
)
import roce


# ==== frames ==============================================================================

v = variant("eth-pad-min-64",
            "Its MAC pads every frame shorter than 64 bytes with zeros after the IP packet, "
            "counting the minimum without the frame check sequence: Ethernet padding, which "
            "ENC-LEN-003 makes the receiver's to ignore.")


def _(ctx, f, item):
    f.ethernet_pad(64)
    return False


all_frames(v, "eth-pad-min-64", _)


def _control(f):
    return kind(f) != "data"


v = variant("eth-pad-control-32",
            "Its control path pads ACKs, SACKs, NACKs, probes and endpoint messages to a "
            "multiple of 32 bytes with 0x5A after the IP packet; data frames are not padded "
            "(ENC-LEN-003 fixes no value and no length).")


def _(ctx, f, item):
    if not _control(f):
        return False
    n = (len(f.b) + 31) // 32 * 32
    if n > len(f.b):
        f.b.extend(b"\x5a" * (n - len(f.b)))
    return False


all_frames(v, "eth-pad-control-32", _)


def _ipv4_options(why, words, which):
    """An outputs hook that inserts `words` 4-byte words of IPv4 options (NOPs, then an
    end-of-options byte and zeros) into the frames `which(f)` selects."""

    opts = b"\x01" * (4 * words - 4) + b"\x00" * 4

    def hook(ctx, outs):
        for item in outs:
            f = frame_of(item)
            if f is None or not f.has("ipv4") or f.ip_hlen != 20 or not which(f):
                continue
            ip = f.off["ipv4"]
            b = bytearray(f.b)
            b[ip + 20:ip + 20] = opts
            b[ip] = (b[ip] & 0xF0) | (5 + words)
            total = int.from_bytes(b[ip + 2:ip + 4], "big") + 4 * words
            b[ip + 2:ip + 4] = total.to_bytes(2, "big")
            g = roce.Frame(bytes(b))
            g.seal()
            put_frame(item, g)
            ctx.mutated(why)
        return outs

    return hook


v = variant("ipv4-options-control",
            "Its control path writes IPv4 headers of 28 bytes: two words of options, NOPs "
            "and an end-of-options byte, in every ACK, SACK, NACK, probe and endpoint "
            "message; data packets carry none (ENC-IPV4-006.a is a SHOULD NOT).",
            allows=("ENC-IPV4-006.a",))
v.hooks["outputs"] = _ipv4_options("ipv4-options-control", 2, _control)


v = variant("ctl-rtx-set",
            "Its answer and probe engines start from the header of a retransmitted write: "
            "every SACK, probe answer, NACK and probe leaves with BTH rtx 1 (BTH-RTX-002.a "
            "is a SHOULD, and a receiver ignores the bit).",
            allows=("BTH-RTX-002.a",))


def _(ctx, f, item):
    if kind(f) not in ("sack", "probe-answer", "nack", "probe"):
        return False
    f.set("bth", "rtx", 1)


all_frames(v, "ctl-rtx-set", _)


v = variant("udp-checksum-v6-data-zero",
            "Over IPv6 its data path leaves the UDP checksum 0 while its control path "
            "computes it: the offload engine sits on the control path only (ENC-UDP-004.a "
            "is a SHOULD).",
            allows=("ENC-UDP-004.a",))


def _(ctx, f, item):
    if f.has("ipv6") and kind(f) == "data" and f.get("udp", "checksum"):
        f.seal(udp_checksum=False)
    return False


all_frames(v, "udp-checksum-v6-data-zero", _)


v = variant("ttl-per-ip-version",
            "Its IPv4 and IPv6 encoders have templates of their own: IPv4 TTL 128, IPv6 hop "
            "limit 65; ENC-HOP-001 asks only for 64 or more.")


def _(ctx, f, item):
    if f.has("ipv4"):
        f.set("ipv4", "ttl", 128)
    else:
        f.set("ipv6", "hop_limit", 65)


all_frames(v, "ttl-per-ip-version", _)


# ==== host writes =========================================================================

v = variant("dma-split-16",
            "DMA writes are split at 16-byte address boundaries, as a host bus with a "
            "16-byte write granule carries them (RCV-PLACE-003.b).")
v.hooks["outputs"] = split_writes(16)


v = variant("dma-split-2048",
            "DMA writes are split at 2 KiB address boundaries, the largest payload its "
            "host link carries (RCV-PLACE-003.b).")
v.hooks["outputs"] = split_writes(2048)


def _split_by(why, cuts):
    """An outputs hook that cuts each DMA write into the pieces `cuts(len)` gives, as
    lengths from the write's start, issued in address order."""

    def hook(ctx, outs):
        res = []
        for item in outs:
            ev = event_of(item)
            if ev is None or ev.get("event") != "dma_write":
                res.append(item)
                continue
            va = int(ev["va"])
            data = bytes.fromhex(ev["payload"]["bytes"])
            lens = [n for n in cuts(len(data)) if n > 0]
            if len(lens) <= 1:
                res.append(item)
                continue
            pos = 0
            for n in lens:
                c = copy.deepcopy(item)
                e = c["output"]["event"]
                e["va"] = va + pos
                e["payload"]["bytes"] = data[pos:pos + n].hex()
                res.append(c)
                pos += n
            ctx.mutated(why)
        return res

    return hook


v = variant("dma-split-first-byte",
            "Its DMA engine issues the first byte of every payload write on its own, then "
            "the rest in one write: a byte-enable quirk of its bus bridge (RCV-PLACE-003.b).")
v.hooks["outputs"] = _split_by("dma-split-first-byte", lambda n: [1, n - 1])


v = variant("dma-split-unaligned-100",
            "Its DMA engine cuts every payload write into 100-byte pieces counted from the "
            "write's start, a size that is not a multiple of 4, whatever the address "
            "alignment (RCV-PLACE-003.b).")
v.hooks["outputs"] = _split_by("dma-split-unaligned-100",
                               lambda n: [min(100, n - i) for i in range(0, n, 100)])


combined("dma-interleave-late",
         "A write buffer shared by every message issues payload writes in 256-byte pieces, "
         "one piece of each message in turn (dma-interleave), and every output becomes "
         "visible half of late_ns later (latency-half-tolerance).",
         ["dma-interleave", "latency-half-tolerance"])


# ==== completions =========================================================================

v = variant("cqe-clock-wrap",
            "Its completion clock is a nanosecond counter whose low 32 bits wrap 4096 ns "
            "after the scenario's start: later entries carry small timestamps again "
            "(CQE-TS-001.a asks only for the low 32 bits).")


@out_events(v, ("completion",), "cqe-clock-wrap")
def _(ctx, ev, item):
    def f(e):
        if e.get("has_timestamp"):
            e["timestamp"] = (int(e["timestamp"]) + 0xFFFFF000) & 0xFFFFFFFF

    mutate_completion(ev, f)


def _host_moderated(why, count):
    """Completion entries held until `count` are pending or half of late_ns has passed
    since the first pending one; every host write made meanwhile joins the batch, so that
    the host bus keeps its order."""

    def hook(ctx, outs):
        st = ctx.state.setdefault(why, {})
        d = ctx.late_ns // 2
        for item in outs:
            if not _is_memory(item) or not d:
                continue
            entry = event_of(item).get("event") == "completion"
            t = int(item["at"])
            b = st.get("b")
            if b is not None and b[0] < t:
                b = None
            if b is None:
                if not entry:
                    continue
                b = st["b"] = [t + d, [], 0]
            b[1].append(item)
            b[2] += entry
            if b[2] >= count:
                b[0] = t
            for it in b[1]:
                if int(it["at"]) != b[0]:
                    it["at"] = b[0]
                    ctx.mutated(why)
            if b[2] >= count:
                del st["b"]
        return outs

    return hook


v = variant("entries-moderated-2",
            "Its completion engine writes entries in pairs, by count and by timer: an entry "
            "is held until a second one is pending or half of late_ns has passed, and the "
            "host writes made meanwhile are held with it in order (FLAG-ORDER-002, "
            "ORD-SEND-001).")
note_error_cq(v)
v.hooks["outputs"] = _host_moderated("entries-moderated-2", 2)


# ==== answers and reports ===============================================================

v = variant("sack-coalesce-half",
            "Its SACK coalescing counter fires at half of sack_coalesce (at least 1): more "
            "SACKs than the register asks, and the number of SACKs is the device's choice "
            "(CONF-CMP-007.b).")
config(v, "nic", "sack_coalesce", lambda x: max(1, int(x) // 2), responder)


def _moderated(why, which, count):
    """Outputs `which` selects are held until `count` are pending or half of late_ns has
    passed since the first pending one, then given together in their order."""

    def hook(ctx, outs):
        st = ctx.state.setdefault(why, {})
        d = ctx.late_ns // 2
        for item in outs:
            if not which(item) or not d:
                continue
            t = int(item["at"])
            b = st.get("b")
            if b is not None and b[0] < t:
                b = None
            if b is None:
                b = st["b"] = [t + d, []]
            b[1].append(item)
            if len(b[1]) >= count:
                b[0] = t
            for it in b[1]:
                if int(it["at"]) != b[0]:
                    it["at"] = b[0]
                    ctx.mutated(why)
            if len(b[1]) >= count:
                del st["b"]
        return outs

    return hook


v = variant("answers-moderated-4",
            "Its answer engine hands SACKs, probe answers, ACKs, NAKs and NACKs to the MAC in "
            "batches by count and by timer: an answer is held until four are pending or half "
            "of late_ns has passed since the first, then all leave in their order.")
v.hooks["outputs"] = _moderated("answers-moderated-4", _is_answer, 4)


v = variant("reports-timer-only",
            "Its report ring raises the CPU half's interrupt by timer alone: every report "
            "is held until half of late_ns has passed since the first pending one, then all "
            "are given together in their order (REC-IF-015).")
v.hooks["outputs"] = _moderated("reports-timer-only", _is_report, 1 << 30)


# ==== several choices at once ===========================================================

combined("control-template-late",
         "A control path with a template of its own: IPv4 options (ipv4-options-control), "
         "padding to 32 bytes (eth-pad-control-32), TTL 128 (ttl-control-128), DSCP CS6 "
         "(dscp-control-cs6), ECT(1) (ecn-ect1-control), and every answer half of late_ns "
         "late (latency-answers-only).",
         ["ipv4-options-control", "eth-pad-control-32", "ttl-control-128", "dscp-control-cs6",
          "ecn-ect1-control", "latency-answers-only"])

combined("sack-coalesce-half-late",
         "Its SACK coalescing fires at half of sack_coalesce (sack-coalesce-half), and every "
         "output becomes visible half of late_ns later (latency-half-tolerance).",
         ["sack-coalesce-half", "latency-half-tolerance"])

combined("sixteenth-all",
         "Every choice of the sixteenth reading at once: minimum-frame padding, rtx 1 in "
         "answers and probes, no UDP checksum on IPv6 data, TTL per IP version, the first "
         "byte of each DMA write apart, a wrapping completion clock, entries in pairs, SACK "
         "coalescing at half the count and reports by timer.",
         ["eth-pad-min-64", "ctl-rtx-set", "udp-checksum-v6-data-zero", "ttl-per-ip-version",
          "dma-split-first-byte", "cqe-clock-wrap", "entries-moderated-2",
          "sack-coalesce-half", "reports-timer-only"])
