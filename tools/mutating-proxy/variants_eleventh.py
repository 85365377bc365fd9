"""The legal variants of the eleventh reading: the edges of every freedom.

Each tolerance the specification gives, taken to its exact limit; the device that sends
only what it must and the one that sends every output it may; two freedoms that pass
alone, at once; choices among equal candidates made the other way; and the values it
leaves free in fields. `faults.py` imports this module last, so the helpers it uses are
defined.
"""

from faults import (
    _is_sender_note, _output_group, all_frames, combined, host_groups, instants, profile,
)
from mods import VARIANTS, each_frame, event_of, frame_of, kind, variant


def _path_engine_late(ctx, item):
    """Whether a frame is a retransmission on an odd position of its QP's EV profile: the
    one that the second of two path engines sends."""
    f = frame_of(item)
    if f is None or kind(f) != "data" or not f.get("bth", "rtx"):
        return False
    evs = profile(ctx, ctx.local_qp_of(f))
    return f.ev() in evs and evs.index(f.ev()) % 2 == 1


def rtx_path_engines(why):
    """Two retransmission engines, one for the even and one for the odd positions of a
    QP's EV profile: the odd one reads the payload again from host memory, so that its
    retransmissions leave half of late_ns after the device chose them, stamped when chosen
    (SND-TS-003.b). First transmissions and the even engine's retransmissions leave on
    time, before it when chosen after it. A sender flag or completion of the QP's group
    waits for the retransmissions made before it (ORD-SEND-002)."""

    def hook(ctx, outs):
        held = ctx.state.setdefault(why, {})
        of_qp, _ = host_groups(ctx)
        for item in outs:
            t = int(item["at"])
            g = _output_group(ctx, item, of_qp)
            if _path_engine_late(ctx, item):
                nt = t + ctx.late_ns // 2
                held[g] = max(held.get(g, 0), nt)
            elif _is_sender_note(item):
                nt = max(t, held.get(g, 0))
            else:
                continue
            if nt != t:
                item["at"] = nt
                ctx.mutated(why)
        return outs

    return hook


def stamp_clock(why, reading):
    """A timestamp clock of its own: each data packet and probe is stamped `reading(ctx,
    at)` for the time `at` the device made it; the stamps reflected back in SACKs and
    NACKs go back to the inner device's own (the input hook of timestamp-1ns)."""

    def hook(ctx, outs):
        st = ctx.state.setdefault("ts", {"data": {}, "probe": {}})

        def fn(ctx, f, item):
            qp = ctx.local_qp_of(f)
            outer = reading(ctx, int(item["at"])) & 0xFFFF
            if kind(f) == "data" and f.has("tseth"):
                st["data"][(qp, f.get("bth", "psn"))] = (f.get("tseth", "tx_timestamp"), outer)
                f.set("tseth", "tx_timestamp", outer)
            elif kind(f) == "probe":
                key = (qp, f.get("peth", "probe_id"))
                st["probe"][key] = (f.get("peth", "tx_timestamp"), outer)
                f.set("peth", "tx_timestamp", outer)
            else:
                return False

        return each_frame(ctx, outs, ("data", "probe"), fn, why)

    return hook


def _wraps_soon(ctx, at):
    # The epoch puts the counter 100 units before its wrap at the first stamp.
    first = ctx.state.setdefault("timestamp-wrap-soon:first", at)
    return at - first + 0x10000 - 100


STEP_REPORTS = ("ev_marked", "ev_state", "probe_answered", "nack")


def _step_report_qp(item):
    ev = event_of(item)
    if ev is None or ev.get("event") != "report" or ev.get("report") not in STEP_REPORTS:
        return None
    return ev.get("qpn")


def step_reports_reversed(why):
    """At one instant, each run of a QP's reports of EV steps and NACKs (EvMarked, EvState,
    ProbeAnswered, Nack), next to each other, is given in the reverse order: no step
    orders them (CONF-CMP-110.c)."""

    def hook(ctx, outs):
        res = []
        for group in instants(outs):
            i = 0
            while i < len(group):
                q = _step_report_qp(group[i])
                j = i + 1
                while q is not None and j < len(group) and _step_report_qp(group[j]) == q:
                    j += 1
                run = group[i:j]
                if len(run) > 1:
                    run = run[::-1]
                    ctx.mutated(why)
                res.extend(run)
                i = j
        return res

    return hook


def _encodings_max(ctx, f, item):
    # The greatest value of every field the link leaves free: hop limit 255, DSCP 63,
    # IPv4 identification 0xFFFF, priority 7 and DEI 1 in a tag.
    if f.has("ipv4"):
        f.set("ipv4", "ttl", 255)
        f.set("ipv4", "dscp", 63)
        f.set("ipv4", "ident", 0xFFFF)
    else:
        f.set("ipv6", "hop_limit", 255)
        tc = f.get("ipv6", "traffic_class")
        f.set("ipv6", "traffic_class", (63 << 2) | (tc & 3))
    if f.has("vlan"):
        f.set("vlan", "pcp", 7)
        f.set("vlan", "dei", 1)
    f.seal()
    return False


# ---- the variants ----------------------------------------------------------------------------

v = variant("rtx-path-engines",
            "It has a retransmission engine per path: the engine of the odd positions of a "
            "QP's EV profile reads the payload again, so its retransmissions leave half of "
            "late_ns after it chose them, stamped when chosen (SND-TS-003.b), while first "
            "transmissions chosen after them leave on time; a sender flag or completion "
            "waits for them (ORD-SEND-002).")
v.hooks["outputs"] = rtx_path_engines("rtx-path-engines")

combined("rtx-path-engines-1ns",
         "Its timestamp clock counts 1 ns units (timestamp-1ns), read when a path engine "
         "chooses a packet, and its retransmission engine per path gives the odd positions' "
         "retransmissions half of late_ns later (rtx-path-engines): a stamp behind one given "
         "before it by up to late_ns / 2 units less the time between them, the exact edge "
         "of SND-TS-003.b.",
         ["timestamp-1ns", "rtx-path-engines"])

v = variant("timestamp-wrap-soon",
            "Its timestamp clock counts 1 ns units from an epoch 100 units before the 16-bit "
            "counter wraps at the first stamp, so that every QP's stamps wrap within the "
            "scenario (SND-TS-002.c: modulo 2^16; SND-TS-003.a: an epoch of its choosing).")
v.hooks["outputs"] = stamp_clock("timestamp-wrap-soon", _wraps_soon)
v.hooks["inputs"] = VARIANTS["timestamp-1ns"].hooks["inputs"]

v = variant("timestamp-1ms",
            "Its timestamp clock counts 1 ms units, a clock that barely moves within a "
            "scenario: SND-TS-002.c sets a unit no shorter than 1 ns and no longest one.")
v.hooks["outputs"] = stamp_clock("timestamp-1ms", lambda ctx, at: at // 1_000_000 + 0x1234)
v.hooks["inputs"] = VARIANTS["timestamp-1ns"].hooks["inputs"]

v = variant("step-reports-reversed",
            "At one instant its report ring gives each run of a QP's EvMarked, EvState, "
            "ProbeAnswered and Nack reports in the reverse order it made them: no step orders "
            "the reports of one EV step or of one NACK (CONF-CMP-110.c).")
v.hooks["outputs"] = step_reports_reversed("step-reports-reversed")

combined("step-reports-reversed-late",
         "Its report ring adds half of late_ns to every report (latency-reports-only) and "
         "gives the reports of one step in the reverse order (step-reports-reversed).",
         ["latency-reports-only", "step-reports-reversed"])

v = variant("encodings-max",
            "Every field the link leaves free at its greatest value: IPv4 TTL and IPv6 hop "
            "limit 255, DSCP 63, IPv4 identification 0xFFFF, and in a tag priority 7 with DEI "
            "1 (CONF-CMP-026.d; ENC-HOP-001 sets no upper bound).")
all_frames(v, "encodings-max", _encodings_max)

combined("entries-late-split-dwords",
         "Its DMA engine cuts payload writes into 4-byte pieces (dma-split-dwords), and its "
         "completion writer posts every entry half of late_ns late with the group's later "
         "writes behind it (entries-posted-late).",
         ["dma-split-dwords", "entries-posted-late"])

combined("every-repeat",
         "Every output it may repeat, repeated: each SACK twice (sack-repeat), each "
         "transport ACK again half of late_ns later (ack-repeat-later), each Progress and "
         "Armed twice (reports-repeated): the most answers and reports CONF-CMP-007.b, "
         "CONF-CMP-037.a and CONF-CMP-020.a allow.",
         ["sack-repeat", "ack-repeat-later", "reports-repeated"])

combined("acks-late-frames-reversed",
         "Its transport ACK engine adds half of late_ns to every ACK and NAK "
         "(acks-only-late), and its transmit arbiter serves QPs from the highest number "
         "down at one instant (frames-qp-reversed).",
         ["acks-only-late", "frames-qp-reversed"])

combined("descending-flags-late",
         "Its DMA engine issues 64-byte pieces from the highest address down "
         "(dma-split-descending), and its flag writer posts every flag half of late_ns late "
         "with its group's later writes behind it (flags-posted-late).",
         ["dma-split-descending", "flags-posted-late"])

combined("latency-half-reversed-all",
         "Every output half of late_ns late (latency-half-tolerance), and one arbiter for "
         "every output serving groups of QPs from the highest down at one instant "
         "(qp-reversed-all).",
         ["latency-half-tolerance", "qp-reversed-all"])

combined("rtx-path-engines-own-seed",
         "Its retransmission engine per path gives the odd positions' retransmissions half "
         "of late_ns late (rtx-path-engines), and its random generator is seeded apart from "
         "the reference's (own-seed).",
         ["rtx-path-engines", "own-seed"])

combined("reports-moderated-reversed",
         "Its report ring raises the interrupt by count and by timer (reports-moderated-4) "
         "and gives the reports of one step in the reverse order (step-reports-reversed).",
         ["reports-moderated-4", "step-reports-reversed"])

combined("stamp-early-wrap",
         "Its 1 ns timestamp clock wraps within the scenario (timestamp-wrap-soon), read "
         "when the send engine builds a packet, and its send engine adds half of late_ns to "
         "every data packet and probe (latency-data-only): readings taken as early as "
         "SND-TS-003.b allows, across the counter's wrap.",
         ["timestamp-wrap-soon", "latency-data-only"])

combined("every-repeat-late",
         "Every output it may repeat, repeated (every-repeat), and every output half of "
         "late_ns late (latency-half-tolerance).",
         ["every-repeat", "latency-half-tolerance"])

v = variant("sender-block",
            "A sender block alone: it claims requester, doorbell, doorbell-bus, paths, "
            "cpu-split, recovery, spray-policies, tail-probe, ipv4 and ipv6, and nothing of a "
            "receiver or a completion engine (CONF-CMP-012.b, CONF-GEN-008).")
v.caps_removed = ("responder", "retirement", "shared-retirement", "per-qp-retirement",
                  "write-immediate", "completion-queues", "endpoint", "sack-marking")


@v.hook("start")
def _(ctx, manifest, v=v):
    if ctx.requires & set(v.caps_removed):
        ctx.mutated("sender-block")
    return manifest
