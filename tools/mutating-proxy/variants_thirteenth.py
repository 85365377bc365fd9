"""The legal variants of the thirteenth reading: choices at the edges earlier readings left.

The specification read for what it leaves open and the others did not try: a header
template of its own for control frames, an IPv4 identification counted per QP, a UDP
checksum on some paths only, a timestamp clock whose unit is not a power of two, a NIC that
wakes from idle a little late, a queue whose latency grows as it fills, a quality-of-service
map per QP, and a DMA engine that issues the ragged edges of a write on their own. Each one
adds at most half of late_ns to an output (CONF-TIME-004) and keeps every order a rule
fixes. `faults.py` imports this module last, so the helpers it uses are defined.
"""

import copy

from faults import all_frames, combined
from mods import VARIANTS, each_frame, event_of, kind, variant


# ==== headers the device chooses ==========================================================

v = variant("ttl-control-128",
            "Its control path has a header template of its own: ACKs, SACKs, NACKs, probes "
            "and endpoint messages leave with IPv4 TTL or IPv6 hop limit 128, data packets "
            "with the data path's value; ENC-HOP-001 asks only for 64 or more.")


def _(ctx, f, item):
    if kind(f) == "data":
        return False
    if f.has("ipv4"):
        f.set("ipv4", "ttl", 128)
    else:
        f.set("ipv6", "hop_limit", 128)


all_frames(v, "ttl-control-128", _)


v = variant("ipv4-ident-per-qp",
            "Over IPv4 the identification field counts the frames of each peer QP on its "
            "own, from a start of 0x100 times the QP's low byte; the field is the device's "
            "choice (CONF-CMP-026).")


def _(ctx, f, item):
    if not f.has("ipv4"):
        return False
    qp = f.get("bth", "dest_qp")
    st = ctx.state.setdefault("ident-per-qp", {})
    n = st.get(qp, (qp & 0xFF) << 8)
    st[qp] = (n + 1) & 0xFFFF
    f.set("ipv4", "ident", n)


all_frames(v, "ipv4-ident-per-qp", _)


v = variant("udp-checksum-control-v4",
            "Over IPv4 the control path computes the UDP checksum and the data path leaves "
            "it 0, each as ENC-UDP-003 allows.")


def _(ctx, f, item):
    if f.has("ipv4"):
        f.seal(udp_checksum=kind(f) != "data")
    return False


all_frames(v, "udp-checksum-control-v4", _)


v = variant("dscp-per-qp",
            "A quality-of-service map per QP: frames of odd peer QPs carry DSCP 34 (AF41), "
            "of even ones DSCP 26 (AF31); the specification fixes no DSCP.")


def _(ctx, f, item):
    d = 34 if f.get("bth", "dest_qp") & 1 else 26
    if f.has("ipv4"):
        f.set("ipv4", "dscp", d)
    else:
        tc = f.get("ipv6", "traffic_class")
        f.set("ipv6", "traffic_class", (d << 2) | (tc & 3))


all_frames(v, "dscp-per-qp", _)


v = variant("vlan-pcp-per-qp",
            "On a tagged link the priority is mapped per QP: frames of odd peer QPs carry "
            "PCP 5, of even ones PCP 2; the link fixes only the VLAN ID.")


def _(ctx, f, item):
    if f.has("vlan"):
        f.set("vlan", "pcp", 5 if f.get("bth", "dest_qp") & 1 else 2)


all_frames(v, "vlan-pcp-per-qp", _)


# ==== a timestamp clock whose unit is not a power of two =================================

def clock_3ns(name, epoch):
    """An outputs hook: data packets and probes stamped from a 3 ns clock that reads 0 at
    -`epoch` ns, the inner device's stamps kept to map the reflected ones back."""

    def hook(ctx, outs):
        st = ctx.state.setdefault("ts", {"data": {}, "probe": {}})

        def fn(ctx, f, item):
            qp = ctx.local_qp_of(f)
            outer = ((int(item["at"]) + epoch) // 3) & 0xFFFF
            if kind(f) == "data" and f.has("tseth"):
                st["data"][(qp, f.get("bth", "psn"))] = (f.get("tseth", "tx_timestamp"), outer)
                f.set("tseth", "tx_timestamp", outer)
            elif kind(f) == "probe":
                st["probe"][(qp, f.get("peth", "probe_id"))] = (f.get("peth", "tx_timestamp"),
                                                                outer)
                f.set("peth", "tx_timestamp", outer)
            else:
                return False

        return each_frame(ctx, outs, ("data", "probe"), fn, name)

    return hook


v = variant("timestamp-3ns",
            "Its timestamp clock runs at 333 MHz and counts 3 ns units from its own epoch "
            "(SND-TS-002 leaves the unit, of at least 1 ns, to the sender).")
v.hooks["outputs"] = clock_3ns("timestamp-3ns", 0x2D2D2)
# The reflected timestamps go back to the inner device's own clock, as for timestamp-1ns.
v.hooks["inputs"] = VARIANTS["timestamp-1ns"].hooks["inputs"]


v = variant("timestamp-3ns-wrap-soon",
            "Its 3 ns timestamp clock starts 48 units before its 16-bit wrap, so the stamps "
            "of a scenario's first packets wrap through 0 (SND-TS-002 counts modulo 2^16).")
v.hooks["outputs"] = clock_3ns("timestamp-3ns-wrap-soon", 3 * (0x10000 - 48))
v.hooks["inputs"] = VARIANTS["timestamp-1ns"].hooks["inputs"]


v = variant("ecn-ect1-control",
            "Its control frames (ACKs, SACKs, NACKs, probes, endpoint messages) are marked "
            "ECT(1); the IP fields of a frame other than its addresses are the device's "
            "choice (CONF-CMP-026).")


def _(ctx, f, item):
    if kind(f) == "data":
        return False
    if f.has("ipv4"):
        f.set("ipv4", "ecn", 1)
    else:
        tc = f.get("ipv6", "traffic_class")
        f.set("ipv6", "traffic_class", (tc & ~3) | 1)


all_frames(v, "ecn-ect1-control", _)


# ==== latency within late_ns ===============================================================

IDLE_NS = 10000


v = variant("wake-from-idle-late",
            "Its clocks are gated after 10 us without an input or an output: the first "
            "outputs after such a gap leave half of late_ns late while the pipeline wakes, "
            "and nothing behind them overtakes them.")


@v.hook("inputs")
def _(ctx, ins):
    st = ctx.state.setdefault("wake", {"last": 0, "until": 0})
    for item in ins:
        st.setdefault("in", []).append(int(item.get("at", 0)))
    return ins


@v.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("wake", {"last": 0, "until": 0})
    d = ctx.late_ns // 2
    ins = sorted(st.pop("in", []))
    for item in outs:
        t = int(item["at"])
        while ins and ins[0] <= t:
            st["last"] = max(st["last"], ins.pop(0))
        if t - st["last"] >= IDLE_NS:
            st["until"] = t + d
        nt = max(t, min(st["until"], t + d))
        st["last"] = t
        if nt != t:
            item["at"] = nt
            ctx.mutated("wake-from-idle-late")
    # Inputs after the last output of the batch still count as activity.
    for t in ins:
        st["last"] = max(st["last"], t)
    return outs


v = variant("latency-ramp",
            "Its output queue fills as a scenario runs: the n-th output of a scenario leaves "
            "16 n ns late, at most half of late_ns, so no output overtakes one made before "
            "it.")


@v.hook("outputs")
def _(ctx, outs):
    st = ctx.state.setdefault("ramp", {"n": 0})
    d = ctx.late_ns // 2
    for item in outs:
        st["n"] += 1
        lag = min(16 * st["n"], d)
        if lag:
            item["at"] = int(item["at"]) + lag
            ctx.mutated("latency-ramp")
    return outs


# ==== write granularity ====================================================================

v = variant("dma-split-ragged-edges",
            "Its DMA engine issues the ragged edges of a payload write on their own: the "
            "bytes up to the first 4-byte boundary, the whole dwords, then the bytes after "
            "the last 4-byte boundary, three writes in address order.")


@v.hook("outputs")
def _(ctx, outs):
    res = []
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "dma_write" or not (ev.get("payload") or {}).get(
                "bytes"):
            res.append(item)
            continue
        va = int(ev["va"])
        data = bytes.fromhex(ev["payload"]["bytes"])
        head = min(len(data), (4 - va % 4) % 4)
        tail = (va + len(data)) % 4 if len(data) > head else 0
        cuts = [0, head, len(data) - tail, len(data)]
        pieces = [(cuts[i], cuts[i + 1]) for i in range(3) if cuts[i + 1] > cuts[i]]
        if len(pieces) <= 1:
            res.append(item)
            continue
        for a, b in pieces:
            c = copy.deepcopy(item)
            e = c["output"]["event"]
            e["va"] = va + a
            e["payload"]["bytes"] = data[a:b].hex()
            res.append(c)
        ctx.mutated("dma-split-ragged-edges")
    return res


# ==== the choices above together with the latency the tolerance allows ====================

combined("timestamp-3ns-late",
         "Its 3 ns timestamp clock is read when a packet is built, and the packet, like "
         "each sender flag and completion that waits for it, leaves half of late_ns later: "
         "stamps read at the earliest SND-TS-003.b allows, in a unit that is not a power "
         "of two.",
         ["timestamp-3ns", "latency-data-only"])

combined("ragged-edges-late",
         "Its DMA engine issues the ragged edges of a payload write on their own "
         "(dma-split-ragged-edges) and posts each piece half of late_ns late, the later "
         "host writes of its group behind it (payload-writes-posted-late).",
         ["dma-split-ragged-edges", "payload-writes-posted-late"])
