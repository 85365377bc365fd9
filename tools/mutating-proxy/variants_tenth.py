"""The legal variants of the tenth reading: how a real NIC is built.

The specification read as the freedoms a pipelined NIC takes: a QP context cache that is
slow on a miss, a work request fetched from host memory before its first packet leaves, a
port that sends one frame at a time at line rate, a transmit queue whose head waits for a
retransmission's payload, a host bus with a few posted-write credits, reports moderated
by count and timer, an ACK engine apart from the SACK engine, engines per group of QPs
served in turn. Each one adds at most half of late_ns to an output (CONF-TIME-004) and
keeps every order a rule fixes: a QP's first transmissions (SND-ORDER-001), a sender note
after its frames (ORD-SEND-002), a group's host writes (CONF-CMP-092), a QP's reports
(REC-IF-015), an ACK after its SACK (RCV-DUP-002). `faults.py` imports this module last,
so the helpers it uses are defined.
"""

from faults import (
    _answer_queue, _is_memory, _is_report, _is_sender_note, _kinds, _output_group,
    _send_queue, combined, host_groups, instants, note_error_cq, on_tick, stall_behind,
)
from mods import completion_entry, event_of, frame_of, is_first, kind, latency_of, variant


# ---- helpers -------------------------------------------------------------------------------

def _group_queue(ctx, item):
    """The pipeline of a group of QPs: every output of the group (frames, host writes,
    reports), in one queue; outputs of no QP are in none."""
    of_qp, _ = host_groups(ctx)
    g = _output_group(ctx, item, of_qp)
    return g is not None, g


def _qp_of(ctx, item):
    """The device's QP an output is for: a frame's by its destination, a host write's or a
    report's by its `qpn` (a completion entry's by its entry)."""
    f = frame_of(item)
    if f is not None:
        return ctx.local_qp_of(f)
    ev = event_of(item)
    if ev is None:
        return None
    if ev.get("event") == "completion":
        return completion_entry(ev).get("qpn")
    return ev.get("qpn")


def context_cache(why, ways):
    """A QP context cache of `ways` entries, least recently used out: an output whose QP is
    not in the cache is a miss, made visible half of late_ns later, and every later output
    of the QP's group waits behind it (the group's pipeline stalls on the fetch)."""

    def missed(ctx):
        cache = ctx.state.setdefault(why + ":cache", [])

        def which(item):
            q = _qp_of(ctx, item)
            if q is None:
                return False
            hit = q in cache
            if hit:
                cache.remove(q)
            cache.append(q)
            if ways and len(cache) > ways:
                del cache[0]
            return not hit

        return which

    def hook(ctx, outs):
        return stall_behind(why, _group_queue, missed(ctx))(ctx, outs)

    return hook


def _first_packet(item):
    """The first transmission of a message's first packet: where a send engine starts a
    work request it has just fetched."""
    f = frame_of(item)
    return (f is not None and kind(f) == "data" and not f.get("bth", "rtx") and is_first(f))


def _rtx(item):
    f = frame_of(item)
    return f is not None and kind(f) == "data" and bool(f.get("bth", "rtx"))


def port_queue(why, cost, own):
    """One transmit queue per port: the port is busy `cost(ctx, item)` ns with each frame,
    from when the frame starts; with `own` the frame itself leaves at the end of it (a
    fetch it waits for), else at its start (its serialization); never more than
    half of late_ns after the device made it; a frame or a sender flag or completion waits
    for the frames of its group made before it (ORD-SEND-002). Every port keeps its order."""

    def hook(ctx, outs):
        st = ctx.state.setdefault(why, {"port": {}, "group": {}})
        of_qp, _ = host_groups(ctx)
        d = ctx.late_ns // 2
        for item in outs:
            t = int(item["at"])
            f = frame_of(item)
            g = _output_group(ctx, item, of_qp)
            if f is not None:
                p = item["output"].get("port", 0)
                # A QP's frames leave in the order they were made (SND-ORDER-001, and a
                # clock that never runs backwards, SND-TS-002), whatever their ports.
                start = min(max(t, st["port"].get(p, 0), st["group"].get(g, 0)), t + d)
                st["port"][p] = min(start + cost(ctx, item), t + d)
                nt = st["port"][p] if own else start
                st["group"][g] = max(st["group"].get(g, 0), nt)
            elif _is_sender_note(item):
                nt = max(t, st["group"].get(g, 0))
            else:
                continue
            if nt != t:
                item["at"] = nt
                ctx.mutated(why)
        return outs

    return hook


def _wire_ns(gbps):
    """The ns a frame takes on a link of `gbps`, its bytes and 20 of preamble and gap."""

    def cost(ctx, item):
        f = frame_of(item)
        return -(-(len(f.b) + 20) * 8 // gbps)

    return cost


def moderated(why, which, count):
    """Outputs `which` selects are held until `count` of them are pending or half of late_ns
    has passed since the first pending one, then given together in their order: the
    moderation of an interrupt or a doorbell by count and by timer."""

    def hook(ctx, outs):
        st = ctx.state.setdefault(why, {})
        d = ctx.late_ns // 2
        for item in outs:
            if not which(item) or not d:
                continue
            t = int(item["at"])
            b = st.get("b")
            if b is not None and b[0] < t:
                b = None  # the batch has left
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


def every_nth(why, which, n):
    """A test that selects every `n`-th output `which` selects, counted along the scenario."""

    def test(ctx):
        def sel(item):
            if not which(item):
                return False
            c = ctx.state[why + ":n"] = ctx.state.get(why + ":n", 0) + 1
            return c % n == 0

        return sel

    return test


def _bus_queue(ctx, item):
    """The host bus: one queue for every host write."""
    return _is_memory(item), "bus"


def groups_in_turn(why):
    """At each instant the outputs of several groups of QPs come group by group, the group
    served first turning by one at each instant with outputs of two groups: engines per
    group served round robin. Each group keeps its order; outputs of no group keep their
    places."""

    def hook(ctx, outs):
        of_qp, _ = host_groups(ctx)
        rank = {g: i for i, g in enumerate(sorted(set(of_qp.values())))}
        n = max(len(rank), 1)
        res = []
        for group in instants(outs):
            keys = [_output_group(ctx, o, of_qp) for o in group]
            if len({k for k in keys if k is not None}) > 1:
                turn = ctx.state[why] = ctx.state.get(why, 0) + 1
                slots = [i for i, k in enumerate(keys) if k is not None]
                order = sorted(slots, key=lambda i: (rank.get(keys[i], 0) - turn) % n)
                new = list(group)
                for i, j in zip(slots, order):
                    new[i] = group[j]
                if new != group:
                    ctx.mutated(why)
                group = new
            res.extend(group)
        return res

    return hook


# ---- the variants ----------------------------------------------------------------------------

v = variant("qpc-miss-first-late",
            "Its QP context cache starts empty: the first output of each QP (a frame, a host "
            "write or a report) waits half of late_ns for the context fetch, and the later "
            "outputs of the QP's group wait behind it in the group's pipeline.")
note_error_cq(v)
v.hooks["outputs"] = context_cache("qpc-miss-first-late", 0)

v = variant("qpc-cache-two-ways",
            "Its QP context cache holds two QPs, least recently used out: each output of a QP "
            "not in the cache waits half of late_ns for the fetch, and the later outputs of "
            "the QP's group wait behind it; with more than two QPs busy it misses often.")
note_error_cq(v)
v.hooks["outputs"] = context_cache("qpc-cache-two-ways", 2)

v = variant("wqe-fetch-late",
            "Its send engine fetches each work request from host memory after the token: the "
            "first packet of every message leaves half of late_ns after the device made it, "
            "and the QP group's later data, probes, sender flags and completions wait behind "
            "it (SND-ORDER-001 keeps; ORD-SEND-002); answers, receive writes and reports are "
            "on time.")
note_error_cq(v)
v.hooks["outputs"] = stall_behind("wqe-fetch-late", _send_queue, _first_packet)

v = variant("tx-serialized-100g",
            "Each port sends one frame at a time at 100 Gb/s: a frame starts when the frame "
            "before it on the port has left (its bytes, preamble and gap), never more than "
            "half of late_ns after the device made it; a sender flag or completion waits for "
            "its group's frames (ORD-SEND-002).")
note_error_cq(v)
v.hooks["outputs"] = port_queue("tx-serialized-100g", _wire_ns(100), False)


def _rtx_fetch(ctx, item):
    return ctx.late_ns // 2 if _rtx(item) else 0


v = variant("tx-fifo-rtx-fetch",
            "Each port has one transmit FIFO: a retransmission waits half of late_ns for its "
            "payload read from host memory, and every frame queued behind it on the port, of "
            "any QP, waits too (head-of-line blocking); a sender flag or completion waits for "
            "its group's frames (ORD-SEND-002); CONF-TIME-005.b bounds a retransmission late "
            "only.")
note_error_cq(v)
v.hooks["outputs"] = port_queue("tx-fifo-rtx-fetch", _rtx_fetch, True)

v = variant("reports-moderated-4",
            "Its report ring raises the CPU half's interrupt by count and by timer: a report is "
            "held until four are pending or half of late_ns has passed since the first "
            "pending one, and they are given together in their order (REC-IF-015).")
v.hooks["outputs"] = moderated("reports-moderated-4", _is_report, 4)

v = variant("entries-moderated-4",
            "Its completion engine writes entries in batches by count and by timer: an entry "
            "is held until four entries are pending or half of late_ns has passed since the "
            "first pending one, and the batch is written in order; flags and DMA writes "
            "made meanwhile are held with it, so that the host bus keeps its order "
            "(FLAG-ORDER-002, ORD-SEND-001).")
note_error_cq(v)


def _entries_moderated(ctx, outs):
    # Every host write made while entries are pending joins the batch, an entry counting.
    st = ctx.state.setdefault("entries-moderated-4", {})
    d = ctx.late_ns // 2
    for item in outs:
        if not _is_memory(item) or not d:
            continue
        ev = event_of(item)
        entry = ev.get("event") == "completion"
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
        if b[2] >= 4:
            b[0] = t
        for it in b[1]:
            if int(it["at"]) != b[0]:
                it["at"] = b[0]
                ctx.mutated("entries-moderated-4")
        if b[2] >= 4:
            del st["b"]
    return outs


v.hooks["outputs"] = _entries_moderated

v = variant("bus-credits-8",
            "Its host bus has eight posted-write credits: every eighth host write waits half "
            "of late_ns for credits to return, and every later host write, of any QP, waits "
            "behind it in the one bus queue; frames and reports are on time.")
_bus_every_8th = every_nth("bus-credits-8", _is_memory, 8)
v.hooks["outputs"] = (lambda ctx, outs: stall_behind(
    "bus-credits-8", _bus_queue, _bus_every_8th(ctx))(ctx, outs))

v = variant("acks-late-answers-behind",
            "Its transport ACK engine, apart from its SACK engine, adds half of late_ns to "
            "every transport ACK and NAK, and the QP's later SACKs, probe answers and NACKs "
            "wait behind it in one answer queue; data, writes and reports are on time.")
v.hooks["outputs"] = stall_behind("acks-late-answers-behind", _answer_queue,
                                  _kinds("ack", "nak"))

v = variant("acks-tick-256",
            "Its transport ACK engine runs on a 256 ns slot (less where half of late_ns is "
            "less): every transport ACK and NAK leaves at the next slot boundary, after the "
            "SACK made with it (RCV-DUP-002); SACKs and everything else are on time.")
v.hooks["outputs"] = on_tick("acks-tick-256", _kinds("ack", "nak"), 256)

v = variant("groups-in-turn",
            "It has an engine per group of QPs, served round robin: at one instant the "
            "outputs of several groups come group by group, the first group served turning "
            "at each instant; each group keeps its order (CONF-CMP-092.c, CONF-CMP-110.c).")
note_error_cq(v)
v.hooks["outputs"] = groups_in_turn("groups-in-turn")

v = variant("probes-fetch-late",
            "Its probe engine reads each probe's state from the QP context in host memory: "
            "a probe leaves half of late_ns after the device made it, and the QP group's "
            "later data, probes, sender flags and completions wait behind it (EV-PROBE-005 "
            "stamps it when it is sent); answers, receive writes and reports are on time.")
note_error_cq(v)
v.hooks["outputs"] = stall_behind("probes-fetch-late", _send_queue, _kinds("probe"))

combined("engines-apart",
         "Its ACK engine (acks-late-answers-behind), its report ring (reports-moderated-4) "
         "and its host bus (bus-credits-8) each take the latency of their own design, at "
         "once: answers, reports and host writes each as late as the tolerance allows in "
         "turn.",
         ["acks-late-answers-behind", "reports-moderated-4", "bus-credits-8"])

combined("qpc-miss-in-turn",
         "Its QP context cache starts empty (qpc-miss-first-late) and its engines per group "
         "of QPs are served round robin (groups-in-turn).",
         ["qpc-miss-first-late", "groups-in-turn"])

combined("tx-serialized-split-32",
         "Each port sends one frame at a time at 100 Gb/s (tx-serialized-100g), and its DMA "
         "engine cuts payload writes at 32-byte boundaries (dma-split-32).",
         ["tx-serialized-100g", "dma-split-32"])

v = variant("reports-ahead",
            "Its transmit path and host bus each add half of late_ns to every output, and "
            "its report ring none: as early as allowed on reports, as late as allowed on "
            "frames and host writes, so that an Armed or a Retransmitted is given before "
            "its packet leaves (CONF-TIME-004).")
v.hooks["outputs"] = latency_of("reports-ahead", lambda item: not _is_report(item))

v = variant("tx-serialized-25g",
            "Each port sends one frame at a time at 25 Gb/s, a full-size frame taking more "
            "than half of late_ns, so that a QP's frames behind it leave as late as the "
            "tolerance allows; a frame leaves at most half of late_ns after the device made "
            "it, and a sender flag or completion waits for its group's frames "
            "(ORD-SEND-002).")
note_error_cq(v)
v.hooks["outputs"] = port_queue("tx-serialized-25g", _wire_ns(25), False)

combined("wqe-fetch-stamp-at-wire",
         "Its send engine fetches each work request before the message's first packet "
         "(wqe-fetch-late), and its timestamp clock counts 1 ns units read as each packet "
         "leaves, after the fetch (timestamp-1ns, SND-TS-003.b).",
         ["wqe-fetch-late", "timestamp-1ns"])

