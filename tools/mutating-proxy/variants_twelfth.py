"""The legal variants of the twelfth reading: how a real NIC is built, once more.

The specification read by a hardware architect: a receive path that stores a whole frame
before it acts on it, a transmit path that stores a whole frame before it sends it, a DMA
engine whose writes take time by their size, a completion entry written before the
payload's last piece, a timer wheel with coarse ticks, a doorbell poller, probes sent by
firmware on a slower clock, an answer engine on a slot, pipelines merged by a crossbar, and
retirement that advances several messages at once. Each one adds at most half of late_ns
to an output (CONF-TIME-004) and keeps every order a rule fixes. `faults.py` imports this
module last, so the helpers it uses are defined.
"""

from faults import (
    _answer_queue, _is_answer, _is_memory, _output_group, _send_queue, combined,
    host_groups, instants, note_error_cq, on_tick, seventh_tick,
)
from mods import completion_entry, event_of, fault, frame_of, kind, lag_behind, put_frame, variant


# ---- helpers -------------------------------------------------------------------------------

def _group_queue(ctx, item):
    """The pipeline of a group of QPs: every output of the group, in one queue."""
    of_qp, _ = host_groups(ctx)
    g = _output_group(ctx, item, of_qp)
    return g is not None, g


def _host_group_queue(ctx, item):
    """The host-write queue of a group of QPs."""
    if not _is_memory(item):
        return False, None
    return _group_queue(ctx, item)


def note_inputs(why):
    """An inputs hook that keeps, for the batch being run, the instants of its inputs: for
    each, the length of the longest frame that came in then (0 for a host or CPU input
    alone) and whether the host rang a doorbell then."""

    def hook(ctx, ins):
        seen = ctx.state[why + ":in"] = {}
        bells = ctx.state[why + ":bell"] = set()
        for item in ins:
            t = int(item.get("at", 0))
            body = item.get("input") or {}
            f = frame_of(item)
            seen[t] = max(seen.get(t, 0), len(f.b) if f is not None else 0)
            c = body.get("command") or {}
            if body.get("kind") == "host" and c.get("command") in ("doorbell",
                                                                   "doorbell_write"):
                bells.add(t)
        return ins

    return hook


def wire_ns(nbytes, gbps):
    """The ns `nbytes` of a frame, with 20 bytes of preamble and gap, take at `gbps`."""
    return -(-(nbytes + 20) * 8 // gbps)


def inputs_late(why, cost, key_of=None):
    """An inputs hook: the device acts on each input `cost(ctx, item)` ns after it came
    (at most half of late_ns), each after the input before it in its queue (`key_of(ctx,
    item)`; one queue for every input without it; None keeps an input on time and in no
    queue). An input whose new time is past the batch's `until` is held and given to the
    device in the batch that reaches it, before the inputs that came after it."""

    def hook(ctx, ins):
        st = ctx.state.setdefault(why, {"held": [], "last": {}})
        d = ctx.late_ns // 2
        for item in ins:
            key = key_of(ctx, item) if key_of else "all"
            if key is not None:
                t = int(item.get("at", 0))
                nt = max(t + max(0, min(cost(ctx, item), d)), st["last"].get(key, 0))
                st["last"][key] = nt
                if nt != t:
                    item["at"] = nt
                    ctx.mutated(why)
            st["held"].append(item)
        now = [i for i in st["held"] if int(i["at"]) <= ctx.until]
        st["held"] = [i for i in st["held"] if int(i["at"]) > ctx.until]
        for i in now:
            if int(i["at"]) < ctx.prev_until:
                i["at"] = ctx.prev_until
        return sorted(now, key=lambda i: int(i["at"]))

    return hook


def _rx_cost(why, gbps):
    def lag(ctx, item):
        n = ctx.state.get(why + ":in", {}).get(int(item["at"]), 0)
        return wire_ns(n, gbps) if n else 0

    return lag


def _wire_cost(gbps):
    """The ns a frame takes on a wire of `gbps`; 0 for anything else."""

    def lag(ctx, item):
        f = frame_of(item)
        return wire_ns(len(f.b), gbps) if f is not None else 0

    return lag


def _to_tick(most, which):
    """The ns from an output to the next tick of the coarsest power-of-two tick at most
    `most` ns and below half of late_ns, for the outputs `which(ctx, item)` selects."""

    def lag(ctx, item):
        if not which(ctx, item):
            return 0
        k = seventh_tick(ctx, most)
        t = int(item["at"])
        return (t + k - 1) // k * k - t

    return lag


def _is_receive_entry(item):
    ev = event_of(item)
    if ev is None or ev.get("event") != "completion":
        return None
    e = completion_entry(ev)
    if not e.get("is_receive"):
        return None
    return e.get("qpn"), e.get("msn")


def entry_before_last_piece(why):
    """At one instant, a receive completion entry is written just before the last payload
    write of its message made at that instant, so that the entry is visible before the
    payload's last piece; the flag still follows both (FLAG-ORDER-001, FLAG-ORDER-002)."""

    def hook(ctx, outs):
        res = []
        for group in instants(outs):
            group = list(group)
            for i in range(len(group)):
                key = _is_receive_entry(group[i])
                if key is None:
                    continue
                last = None
                for j in range(i):
                    ev = event_of(group[j])
                    if (ev is not None and ev.get("event") == "dma_write"
                            and (ev.get("qpn"), ev.get("msn")) == key):
                        last = j
                if last is not None:
                    group.insert(last, group.pop(i))
                    ctx.mutated(why)
            res.extend(group)
        return res

    return hook


def merged_fine(why):
    """At each instant the outputs of several groups of QPs are merged one by one, a
    crossbar taking one output of each group in turn, the highest group first; each group
    keeps its order, and outputs of no group keep their places."""

    def hook(ctx, outs):
        of_qp, _ = host_groups(ctx)
        res = []
        for group in instants(outs):
            keys = [_output_group(ctx, o, of_qp) for o in group]
            slots = [i for i, k in enumerate(keys) if k is not None]
            lanes = {}
            for i in slots:
                lanes.setdefault(keys[i], []).append(group[i])
            if len(lanes) > 1:
                queues = [lanes[k] for k in sorted(lanes, reverse=True)]
                merged = []
                while queues:
                    merged.extend(q.pop(0) for q in queues)
                    queues = [q for q in queues if q]
                new = list(group)
                for i, o in zip(slots, merged):
                    new[i] = o
                if any(a is not b for a, b in zip(new, group)):
                    ctx.mutated(why)
                group = new
            res.extend(group)
        return res

    return hook


def _is_retirement_flag(item):
    ev = event_of(item)
    return (ev is not None and ev.get("event") == "flag_write"
            and ev.get("side") == "responder")


def retire_in_batches(why, count):
    """Retirement flags are held until `count` are pending or half of late_ns has passed
    since the first pending one, then written together in order; every host write made
    meanwhile is held with them, so that the host bus keeps its order and no flag is
    overtaken by a later input's writes (RET-ORDER-002)."""

    def hook(ctx, outs):
        st = ctx.state.setdefault(why, {})
        d = ctx.late_ns // 2
        for item in outs:
            if not _is_memory(item) or not d:
                continue
            flag = _is_retirement_flag(item)
            t = int(item["at"])
            b = st.get("b")
            if b is not None and b[0] < t:
                b = None  # the batch has been written
            if b is None:
                if not flag:
                    continue
                b = st["b"] = [t + d, [], 0]
            b[1].append(item)
            b[2] += flag
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


# ---- the variants ----------------------------------------------------------------------------

v = variant("rx-store-forward-25g",
            "Its receive path stores each frame whole, at 25 Gb/s, and checks its ICRC before "
            "it acts on it: every output made at the instant a frame came in becomes visible "
            "the frame's time on the wire later, at most half of late_ns, and the later "
            "outputs of the QP's group wait behind it (CONF-TIME-004).")
note_error_cq(v)
v.hook("inputs")(note_inputs("rx-store-forward-25g"))
v.hooks["outputs"] = lag_behind("rx-store-forward-25g", _group_queue,
                                _rx_cost("rx-store-forward-25g", 25))

v = variant("tx-store-forward-25g",
            "Its transmit path stores each frame whole before it sends it: a frame leaves its "
            "own time on the wire at 25 Gb/s after the device made it, at most half of "
            "late_ns, stamped when it was built (SND-TS-003.b), and the later outputs of the "
            "QP's group wait behind it, so that a short frame of one group may overtake a "
            "long one of another.")
note_error_cq(v)
v.hooks["outputs"] = lag_behind("tx-store-forward-25g", _group_queue, _wire_cost(25))


def _store_forward_both(ctx, item):
    return _rx_cost("store-forward-rx-tx", 25)(ctx, item) + _wire_cost(25)(ctx, item)


v = variant("store-forward-rx-tx",
            "Its receive and transmit paths both store frames whole at 25 Gb/s: an answer to "
            "a frame waits for the frame to come in and then for itself to go out, the sum "
            "at most half of late_ns, the group's later outputs behind it (CONF-TIME-004).")
note_error_cq(v)
v.hook("inputs")(note_inputs("store-forward-rx-tx"))
v.hooks["outputs"] = lag_behind("store-forward-rx-tx", _group_queue, _store_forward_both)


def _answer_rx_cost(ctx, item):
    return _rx_cost("answers-store-forward", 25)(ctx, item) if _is_answer(item) else 0


v = variant("answers-store-forward",
            "Its data path places payload cut-through, but its answer engine waits for the "
            "whole frame and its ICRC at 25 Gb/s before it builds a SACK, probe answer, ACK, "
            "NAK or NACK: the answers of a QP made at the instant a frame came in leave that "
            "frame's time on the wire later, each QP's answers in order (RCV-DUP-002 keeps).")
v.hook("inputs")(note_inputs("answers-store-forward"))
v.hooks["outputs"] = lag_behind("answers-store-forward", _answer_queue, _answer_rx_cost)


def _dma_bytes_x4(ctx, item):
    ev = event_of(item)
    if ev is None or ev.get("event") != "dma_write":
        return 0
    n = len((ev.get("payload") or {}).get("bytes", "")) // 2
    return -(-n // 4)


v = variant("dma-size-paced-x4",
            "Its DMA engine sits on a narrow host link that moves 4 bytes a nanosecond: each "
            "payload write becomes visible its size's time later, at most half of late_ns, "
            "and the later host writes of its group (entries, flags) wait behind it "
            "(RCV-PLACE-003.a, FLAG-ORDER-001 keep).")
note_error_cq(v)
v.hooks["outputs"] = lag_behind("dma-size-paced-x4", _host_group_queue, _dma_bytes_x4)

v = variant("recv-entry-before-payload",
            "Its completion engine writes a receive completion entry as soon as the message "
            "is retirable, ahead of the DMA engine's last payload write of the message at "
            "that instant: the entry is visible before the payload's last piece, the "
            "retirement flag after both (FLAG-ORDER-001, FLAG-ORDER-002; no rule orders the "
            "entry after the payload).")
v.hooks["outputs"] = entry_before_last_piece("recv-entry-before-payload")

combined("recv-entry-first-split-32",
         "Its DMA engine cuts payload writes at 32-byte boundaries (dma-split-32) and its "
         "completion engine writes a receive entry before the message's last piece "
         "(recv-entry-before-payload).",
         ["dma-split-32", "recv-entry-before-payload"])


def _timer_fired(ctx, item):
    # An output made at an instant with no input of its batch: a timer made it.
    return int(item["at"]) not in ctx.state.get("timer-wheel-1us:in", {})


v = variant("timer-wheel-1us",
            "Its timers live on a wheel whose slots are 1 us wide (less where half of late_ns "
            "is less): an output a timer makes (an instant with no input) becomes visible at "
            "the next slot, and the later outputs of the QP's group wait behind it; a timer "
            "fires late, never early (CONF-TIME-005).")
note_error_cq(v)
v.hook("inputs")(note_inputs("timer-wheel-1us"))
v.hooks["outputs"] = lag_behind("timer-wheel-1us", _group_queue, _to_tick(1024, _timer_fired))


def _rung(ctx, item):
    return int(item["at"]) in ctx.state.get("doorbell-poll-512:bell", set())


v = variant("doorbell-poll-512",
            "Its host interface polls the doorbell registers every 512 ns (less where half "
            "of late_ns is less) and reads all that were rung since in one batch: the outputs "
            "made at the instant of a doorbell become visible at the next poll, and the later "
            "outputs of the QP's group wait behind them (ORD-NIC-002 keeps the order).")
note_error_cq(v)
v.hook("inputs")(note_inputs("doorbell-poll-512"))
v.hooks["outputs"] = lag_behind("doorbell-poll-512", _group_queue, _to_tick(512, _rung))


def _is_probe(ctx, item):
    f = frame_of(item)
    return f is not None and kind(f) == "probe"


v = variant("probes-firmware-tick",
            "Its probes are sent by firmware on a 1 us clock (less where half of late_ns is "
            "less): a probe leaves at the firmware's next tick, stamped when it was built "
            "(SND-TS-003.b), and the group's later data, probes and sender notes wait behind "
            "it (ORD-SEND-002); answers, receive writes and reports are on time.")
note_error_cq(v)
v.hooks["outputs"] = lag_behind("probes-firmware-tick", _send_queue,
                                _to_tick(1024, _is_probe))

v = variant("answers-tick-512",
            "Its SACK, probe answer, ACK, NAK and NACK engine runs on a 512 ns slot (less "
            "where half of late_ns is less): every answer leaves at the next slot boundary, "
            "each QP's answers in order (RCV-DUP-002 keeps); data, probes, writes and "
            "reports are on time.")
v.hooks["outputs"] = on_tick("answers-tick-512", _is_answer, 512)

v = variant("pipelines-merge-fine",
            "It has a pipeline per group of QPs, merged by a crossbar that takes one output "
            "of each pipeline in turn, the highest group first: at one instant the outputs of "
            "several groups interleave one by one, each group in its order (CONF-CMP-092.c, "
            "CONF-CMP-110.c).")
note_error_cq(v)
v.hooks["outputs"] = merged_fine("pipelines-merge-fine")

v = variant("retire-batch-4",
            "Its retirement engine advances several messages at once: a retirement flag is "
            "held until four are pending or half of late_ns has passed since the first, then "
            "the flags are written together in order, the host writes made meanwhile held "
            "with them (RET-ORDER-001, FLAG-ORDER-001, RET-ORDER-002 keep; CONF-TIME-004).")
v.hooks["outputs"] = retire_in_batches("retire-batch-4", 4)

combined("timer-wheel-merge-fine",
         "Its timers on a 1 us wheel (timer-wheel-1us), and its pipelines per group of QPs "
         "merged one output at a time (pipelines-merge-fine).",
         ["timer-wheel-1us", "pipelines-merge-fine"])

combined("probes-firmware-ts-1ns",
         "A 1 ns timestamp clock read as each packet is built (timestamp-1ns), and probes "
         "sent by firmware at its next 1 us tick (probes-firmware-tick), stamped before.",
         ["timestamp-1ns", "probes-firmware-tick"])

v = variant("rx-acts-after-store",
            "Its receive path stores each frame whole at 25 Gb/s before the device acts on "
            "it, and its host and CPU commands wait in the same input queue behind it: the "
            "device acts on every input up to a frame's time on the wire after it came (at "
            "most half of late_ns), in the order the inputs came, so that its outputs, "
            "its state and its timers follow the inputs that late (CONF-TIME-004).")
v.hooks["inputs"] = inputs_late("rx-acts-after-store", _wire_cost(25))

v = variant("payload-late-entry-ahead",
            "Its DMA engine posts every payload write half of late_ns late, while its "
            "completion engine writes receive entries on time, ahead of the payload; the "
            "retirement flag waits for both (FLAG-ORDER-001, FLAG-ORDER-002); no rule "
            "orders a receive entry after its payload.")
note_error_cq(v)


def _payload_or_flag_queue(ctx, item):
    # The payload writes and the flags of a group in one queue; entries apart.
    ev = event_of(item)
    if ev is None or ev.get("event") not in ("dma_write", "flag_write"):
        return False, None
    return _group_queue(ctx, item)


def _payload_lag(ctx, item):
    ev = event_of(item)
    return ctx.late_ns // 2 if ev.get("event") == "dma_write" else 0


v.hooks["outputs"] = lag_behind("payload-late-entry-ahead", _payload_or_flag_queue,
                                _payload_lag)

v = variant("inputs-late-half",
            "Its input pipeline (parser, context fetch, doorbell and command queues) takes "
            "half of late_ns: the device acts on every frame, host command and CPU command "
            "that long after it came, in order, so that every output it makes in answer is "
            "that late (CONF-TIME-004).")
v.hooks["inputs"] = inputs_late("inputs-late-half", lambda ctx, item: ctx.late_ns // 2)


# The one-shot timers a device loads from the manifest, with the specification's defaults:
# each expiry is one load of the duration, which no back-off multiplies. The probe interval
# is not one: REC-PROBE-001 probes "every probe_interval", so a period reloaded late at each
# firing drifts further behind at every probe, and a wheel keeps that period exact.
TIMERS = (("nic", "sack_delay", 1000), ("nic", "skip_hold", 20000),
          ("nic", "nack_backoff", 2000), ("nic", "tail_probe", None))


def timers_loaded(why, load, timers=None):
    """A start hook: the device's timer block loads each timer of `timers` (TIMERS) with
    `load(ctx, duration)` instead of its duration, never less and at most half of late_ns
    more, so that every one of them fires late within the tolerance (CONF-TIME-004), and
    the device's state follows its own timers."""

    def hook(ctx, manifest):
        import copy
        out = copy.deepcopy(manifest)
        d = ctx.late_ns // 2
        for table, key, default in timers or TIMERS:
            tab = out.setdefault(table, {})
            dur = tab.get(key, default)
            if dur is None or int(dur) <= 0:
                continue
            new = min(max(int(load(ctx, int(dur))), int(dur)), int(dur) + d)
            if new != int(dur):
                tab[key] = new
                # The recovery table's timers run in the device only with its CPU half.
                if table != "recovery" or ctx.cpu == "device":
                    ctx.mutated(why)
        return out

    return hook


def _wheel_256(ctx, dur):
    k = seventh_tick(ctx, 256)
    return (dur + k - 1) // k * k + k - 1


v = variant("timer-counters-256",
            "Its timers count 256 ns ticks (less where half of late_ns is less) and fire at "
            "the end of the tick after their duration: the SACK timer, the SKIP hold, the "
            "NACK back-off and the tail probe each fire up to two ticks late, and the device "
            "acts on what it holds then; its probe period stays exact (REC-PROBE-001; "
            "CONF-TIME-004).")
v.hooks["start"] = timers_loaded("timer-counters-256", _wheel_256)

v = variant("timers-late-half",
            "Its timer block loads each comparator with its deadline plus a fixed pipeline "
            "allowance: the SACK timer, the SKIP hold, the NACK back-off and the tail probe "
            "each fire half of late_ns late, and the device acts on what it holds then (the "
            "late mirror of the fault timers-early; CONF-TIME-004).")
v.hooks["start"] = timers_loaded("timers-late-half", lambda ctx, dur: dur + ctx.late_ns // 2)

m = fault("probe-period-drift",
          "The CPU half's probe timer is reloaded when it fires, from a counter that adds a "
          "quarter of late_ns of pipeline to every load: each probe of an ASSUMED_BAD EV "
          "comes a probe_interval and a quarter of late_ns after the one before, so the "
          "probes fall further behind at every interval.",
          ["REC-PROBE-001"])
m.hooks["start"] = timers_loaded(
    "probe-period-drift", lambda ctx, dur: dur + ctx.late_ns // 4,
    (("recovery", "probe_interval", 10000),))


def _is_doorbell(item):
    body = item.get("input") or {}
    c = body.get("command") or {}
    return body.get("kind") == "host" and c.get("command") in ("doorbell", "doorbell_write")


def _host_queue_in(ctx, item):
    # Every host command in one queue: a template installed after a doorbell waits for it.
    return "host" if (item.get("input") or {}).get("kind") == "host" else None


def _to_input_tick(most, which):
    def cost(ctx, item):
        if not which(item):
            return 0
        k = seventh_tick(ctx, most)
        t = int(item.get("at", 0))
        return (t + k - 1) // k * k - t

    return cost


v = variant("doorbells-polled-1us",
            "Its host interface polls the doorbell registers every 1 us (less where half of "
            "late_ns is less) and reads every doorbell rung since in one batch, in the order "
            "they were rung (ORD-NIC-002): the device acts on a doorbell at the next poll, "
            "the host's later commands (a template installed) behind it, while frames and "
            "CPU commands that came after it are acted on at once (CONF-TIME-004).")
v.hooks["inputs"] = inputs_late("doorbells-polled-1us", _to_input_tick(1024, _is_doorbell),
                                _host_queue_in)


def _input_group(ctx, item):
    """The group of QPs an input is for (a frame by its destination QP, a CPU command by
    its QP), when that group's least QPN is odd; None otherwise."""
    body = item.get("input") or {}
    qp = None
    f = frame_of(item)
    if f is not None and body.get("kind") == "frame":
        qp = f.get("bth", "dest_qp")
    elif body.get("kind") == "cpu":
        qp = (body.get("command") or {}).get("qpn")
    of_qp, _ = host_groups(ctx)
    g = of_qp.get(qp)
    if g is None or len({x & 1 for x in of_qp.values()}) < 2 or not g & 1:
        return None
    return g


v = variant("inputs-odd-groups-late",
            "Its receive and command pipelines are one per group of QPs, and those of odd "
            "groups are slower: it acts on every frame and CPU command for a QP of an odd "
            "group half of late_ns after it came, each group's inputs in order, and on the "
            "others at once, so that inputs of two groups are acted on in another order "
            "(CONF-TIME-004).")
note_error_cq(v)
v.hook("inputs")(inputs_late("inputs-odd-groups-late", lambda ctx, item: ctx.late_ns // 2,
                             _input_group))


def _group_jitter_in(ctx, item):
    """A draw between 0 and half of late_ns for each input frame and CPU command of a QP,
    from a generator of the proxy's own (the same in every run)."""
    body = item.get("input") or {}
    if body.get("kind") not in ("frame", "cpu"):
        return 0
    n = ctx.state["inputs-group-jitter:n"] = ctx.state.get("inputs-group-jitter:n", 0) + 1
    return (n * 2654435761 >> 7) % (ctx.late_ns // 2 + 1)


def _any_group_in(ctx, item):
    body = item.get("input") or {}
    qp = None
    f = frame_of(item)
    if f is not None and body.get("kind") == "frame":
        qp = f.get("bth", "dest_qp")
    elif body.get("kind") == "cpu":
        qp = (body.get("command") or {}).get("qpn")
    of_qp, _ = host_groups(ctx)
    return of_qp.get(qp)


v = variant("inputs-group-jitter",
            "Its receive and command pipelines are one per group of QPs, each with a latency "
            "that varies between 0 and half of late_ns by a pseudo-random draw for each "
            "input, never before an earlier input of its group: inputs of two groups are "
            "acted on in any order the draws give (CONF-TIME-004).")
note_error_cq(v)
v.hook("inputs")(inputs_late("inputs-group-jitter", _group_jitter_in, _any_group_in))



def _retirement_output(item):
    """What a responder's retirement step makes: a retirement flag, a receive completion
    entry, a transport ACK or NAK."""
    f = frame_of(item)
    if f is not None:
        return kind(f) in ("ack", "nak")
    return _is_retirement_flag(item) or _is_receive_entry(item) is not None


def _retire_queue(ctx, item):
    # The group's host writes in one queue, each QP's answers in another.
    if _is_memory(item):
        return _group_queue(ctx, item)
    if _is_answer(item):
        return _answer_queue(ctx, item)
    return False, None


v = variant("retire-tick-512",
            "Its retirement engine runs on a 512 ns tick (less where half of late_ns is "
            "less): the flags, receive completion entries and transport ACKs and NAKs of the "
            "messages that became retirable since the last tick are made at the next tick, "
            "several messages at once; the group's later host writes and the QP's later "
            "answers wait behind them; payload writes and SACKs are on time (RET-ORDER-001, "
            "FLAG-ORDER-001, RCV-DUP-002 keep).")
note_error_cq(v)
v.hooks["outputs"] = lag_behind(
    "retire-tick-512", _retire_queue,
    _to_tick(512, lambda ctx, item: _retirement_output(item)))

combined("inputs-late-merge-fine",
         "It acts on every input half of late_ns after it came (inputs-late-half), and its "
         "pipelines per group of QPs are merged one output at a time (pipelines-merge-fine).",
         ["inputs-late-half", "pipelines-merge-fine"])


# The fields of a SACK that its builder reads from the QP's receive state when it runs.
SACK_STATE = (("seth", "cack_psn"), ("seth", "sack_offset"), ("seth", "sack_bitmap"),
              ("seth", "mpr"), ("cc_state", "ooo_count"), ("cc_state", "rcvd_bytes"))


def _plain_sack(item):
    f = frame_of(item)
    return f if f is not None and kind(f) == "sack" else None


def _signed(x, bits):
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def _sack_trigger_psn(f):
    """The PSN of a SACK's triggering packet, from `cack_psn` and `ack_psn_offset`."""
    off = _signed(f.get("seth", "ack_psn_offset"), 16)
    return (f.get("seth", "cack_psn") + off) & 0xFFFFFF


def _offset_to(psn, f):
    """The `ack_psn_offset` that names `psn` from the `cack_psn` of SACK `f`, clamped to
    the signed 16-bit range (SETH-ACKPSN-003)."""
    dist = _signed(psn - f.get("seth", "cack_psn"), 24)
    return max(-32768, min(32767, dist)) & 0xFFFF


def builder_lags(why, pick, rebuild):
    """An answer builder that lags the data path by up to half of late_ns. An answer that
    `pick` takes (it returns the frame, else None) waits until the QP's next such answer is
    due, when that is within half of late_ns, and is then rebuilt by `rebuild(first, next)`
    from the state of that time; the QP's answers made meanwhile wait behind it. An answer
    with no other due in time leaves half of late_ns late as it was."""

    def hook(ctx, outs):
        st = ctx.state.setdefault(why, {})
        d = ctx.late_ns // 2
        for item in outs:
            if not _is_answer(item) or not d:
                continue
            qp = ctx.local_qp_of(frame_of(item))
            t = int(item["at"])
            b = st.get(qp)
            if b is not None and b["end"] < t:
                b = st[qp] = None
            answer = pick(item)
            if b is not None and answer is not None:
                first = frame_of(b["items"][0])
                rebuild(first, answer)
                first.seal()
                put_frame(b["items"][0], first)
                for it in b["items"]:
                    it["at"] = t
                ctx.mutated(why)
                b = st[qp] = None
            if b is not None:
                b["items"].append(item)
                if t != b["end"]:
                    item["at"] = b["end"]
                    ctx.mutated(why)
            elif answer is not None:
                st[qp] = {"end": t + d, "items": [item]}
                item["at"] = t + d
                ctx.mutated(why)
        return outs

    return hook


def sacks_built_late(why):
    """A SACK builder that lags the data path by up to half of late_ns: a SACK waiting for
    the QP's next one is built from the receive state of that time (its cumulative
    acknowledgement, bitmap, counts), with its own triggering packet's EV and timestamp."""

    def rebuild(first, sack):
        trigger = _sack_trigger_psn(first)
        for h, k in SACK_STATE:
            first.set(h, k, sack.get(h, k))
        first.set("bth", "psn", sack.get("bth", "psn"))
        # The triggering packet stays its own, named from the new cack_psn
        # (SETH-ACKPSN-003).
        first.set("seth", "ack_psn_offset", _offset_to(trigger, sack))

    return builder_lags(why, _plain_sack, rebuild)


v = variant("sacks-built-late",
            "Its SACK builder lags the data path: a SACK waits until the QP's next SACK is "
            "due, when that is within half of late_ns, and is then built from the receive "
            "state of that time, with its own triggering packet's EV and timestamp "
            "(EV-PROBE-004 and RCV-SACK-005 read the current state; CONF-CMP-007.a), the QP's "
            "answers made meanwhile behind it; otherwise it leaves half of late_ns late.")
v.hooks["outputs"] = sacks_built_late("sacks-built-late")



def _plain_ack(item):
    f = frame_of(item)
    return f if f is not None and kind(f) == "ack" else None


def acks_built_late(why):
    """A transport ACK builder that lags the data path by up to half of late_ns: an ACK
    waiting for the QP's next one is built with the MSN of the last message retired by then
    (RCV-ACK-002.a read when it is sent) and the BTH psn that goes with it, on its own
    causing packet's EV."""

    def rebuild(first, ack):
        first.set("aeth", "msn", ack.get("aeth", "msn"))
        first.set("bth", "psn", ack.get("bth", "psn"))

    return builder_lags(why, _plain_ack, rebuild)


v = variant("acks-built-late",
            "Its transport ACK builder lags the data path: an ACK waits until the QP's next "
            "ACK is due, when that is within half of late_ns, and is then built with the MSN "
            "of the last message retired by that time, on the EV of the packet that caused "
            "it (RCV-ACK-002.a read when it is sent; CONF-TIME-004; CONF-CMP-037.a), the "
            "QP's answers made meanwhile behind it; otherwise it leaves half of late_ns late.")
v.hooks["outputs"] = acks_built_late("acks-built-late")
