"""The faults of the eleventh reading: pipelines, caches and hazards.

The specification read as a bug list of how RTL is built: a register loaded one packet
late, a context cache that a command does not refresh, a pointer read before the write that
advances it, ring arithmetic wrong at exactly full, a reset value of 1 or of all-ones, a
counter that saturates where it must wrap, a field cut short on the DMA path, a word in the
wrong byte order on the host bus, a timer that is looked at only on the next event, a
pipeline stage that loses its content on a stall, a FIFO that returns its oldest entry twice
at wrap. Each fault is one realistic RTL bug of that kind.
`faults.py` imports this module last, so the helpers it uses are defined.
"""

from faults import U24, profile
from mods import (
    CQE, completion_entry, cqe_decode, cqe_encode, event_of, fault, fifo_twice_at_wrap,
    flag_fields, flag_value, frame_of, frames, kind, mutate_completion, out_frames, put, sound,
)


# ---- helpers -------------------------------------------------------------------------------

def stale_field(m, kinds, hdr, field, key, reset=None, when=None):
    """A field register loaded one frame late: each frame of `kinds` carries the value the
    previous frame of the same `key(ctx, f)` should have carried; the first carries `reset`
    (its own value when None)."""

    @m.hook("outputs")
    def _(ctx, outs, m=m):
        last = ctx.state.setdefault(m.name, {})
        for item in outs:
            f = frame_of(item)
            if f is None or kind(f) not in kinds or (when is not None and not when(ctx, f)):
                continue
            k = key(ctx, f)
            own = f.get(hdr, field)
            new = last.get(k, own if reset is None else reset)
            last[k] = own
            if new != own:
                f.set(hdr, field, new)
                put(ctx, m, item, f)
        return outs


def is_event(name, side=None):
    def accepts(item):
        ev = event_of(item)
        return ev is not None and ev.get("event") == name and (
            side is None or ev.get("side") == side)

    return accepts


def frame_qp(ctx, f):
    return ctx.local_qp_of(f)


def first_tx(f):
    return kind(f) == "data" and not f.get("bth", "rtx")


def device(ctx, f):
    return 0


# ==== sending side =========================================================================

m = fault("msn-counter-starts-at-one",
          "The MSN counter of the send engine has reset value 1, not 0: the first message "
          "of every QP carries MSN 1 and every later one is one ahead.",
          ["SND-MSN-001", "METH-MSN-001", "RET-DOMAIN-003"])


@out_frames(m, ("data",))
def _(ctx, f, item, m=m):
    f.set("meth", "msn", (f.get("meth", "msn") + 1) & 0xFFFF)


m = fault("rqmsn-counter-starts-at-zero",
          "The Write-with-Immediate counter resets to 0 where it must read 1 before the "
          "first such message: every RQMSN the sender writes is one short.",
          ["SND-RQMSN-002", "METH-RQMSN-001"])


@out_frames(m, ("data",))
def _(ctx, f, item, m=m):
    f.set("meth", "rqmsn", (f.get("meth", "rqmsn") - 1) & 0xFFFF)


m = fault("meth-msn-loaded-after-first",
          "The METH builder reads the MSN register in the same cycle the new message's "
          "increment is written: the first packet of each message carries the previous "
          "message's MSN, the packets after it the right one.",
          ["SND-MSN-002", "METH-MSN-001"])


@out_frames(m, ("data",))
def _(ctx, f, item, m=m):
    if f.opcode in _FIRSTS and not f.get("bth", "rtx"):
        f.set("meth", "msn", (f.get("meth", "msn") - 1) & 0xFFFF)


def _firsts():
    import roce
    return (roce.MRC_WRITE_FIRST, roce.MRC_WRITE_ONLY, roce.MRC_WRITE_ONLY_IMM)


_FIRSTS = _firsts()


m = fault("data-icrc-of-previous-frame",
          "The ICRC engine's result register is read one frame late when two data packets "
          "leave at one instant: the second carries the ICRC of the first.",
          ["ICRC-CALC-001", "CONF-CMP-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    prev = None
    for item, f in frames(outs, ("data",)):
        at = int(item["at"])
        if prev is not None and prev[0] == at and prev[1] != f.icrc_found():
            own = f.icrc_found()
            f.set_icrc(prev[1])
            put(ctx, m, item, f, seal=False)
            prev = (at, own)
            continue
        prev = (at, f.icrc_found())
    return outs


m = fault("data-lost-on-sack-stall",
          "The SACK handler stalls the transmit pipeline for a cycle, and the stage that "
          "holds the next data packet has no hold: a first transmission due at the instant "
          "a SACK arrives is lost inside the NIC, though its QP counts it sent.",
          ["SND-SEG-001", "SND-SCHED-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    at = ctx.state.setdefault(m.name + ":at", set())
    for item in ins:
        f = frame_of(item)
        if f is not None and kind(f) == "sack" and sound(f):
            at.add(int(item["at"]))
    return ins


@m.hook("outputs")
def _(ctx, outs, m=m):
    at = ctx.state.get(m.name + ":at") or set()
    res = []
    for item in outs:
        f = frame_of(item)
        if f is not None and first_tx(f) and int(item["at"]) in at:
            ctx.mutated(m.name)
            continue
        res.append(item)
    return res


m = fault("reth-va-48bit",
          "The remote-address register of the send engine is 48 bits wide, the width of "
          "the host's DMA addresses: RETH va loses bits 63:48.",
          ["RETH-VA-002", "SND-SEG-003", "SND-SEG-001"])


@out_frames(m, ("data",))
def _(ctx, f, item, m=m):
    if f.has("reth"):
        f.set("reth", "va", f.get("reth", "va") & ((1 << 48) - 1))


m = fault("tseth-ts-of-previous-packet",
          "The timestamp stage latches the clock for the next packet as the current one "
          "leaves: every data packet of a QP carries the time its previous packet left, the "
          "first carries the reset value 0.",
          ["SND-TS-002", "SND-TS-003"])
stale_field(m, ("data",), "tseth", "tx_timestamp", frame_qp, reset=0,
            when=lambda ctx, f: f.has("tseth"))


m = fault("data-dest-qp-of-previous-packet",
          "The header stage reads dest_qp from a register the context fetch of the next "
          "packet has already overwritten: when two QPs send at one instant, the second "
          "packet carries the first's destination QP.",
          ["SND-QPN-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    prev = None
    for item, f in frames(outs, ("data",)):
        at, qp = int(item["at"]), f.get("bth", "dest_qp")
        if prev is not None and prev[0] == at and prev[1] != qp:
            f.set("bth", "dest_qp", prev[1])
            put(ctx, m, item, f)
        prev = (at, qp)
    return outs


# ==== receiving side =======================================================================

m = fault("sack-cack-before-write",
          "The SACK builder reads epsn in the cycle the write that triggers it advances it: "
          "a SACK sent at once for an in-order write reports cack_psn as it was before that "
          "write, its offsets counted from there.",
          ["SETH-CACK-001", "RCV-SACK-005", "SETH-ACKPSN-003"])


@out_frames(m, ("sack",))
def _(ctx, f, item, m=m):
    if int(item["at"]) not in ctx.input_times:
        return
    cack, off = f.get("seth", "cack_psn"), f.get("seth", "ack_psn_offset")
    if off != 0 or f.get("seth", "sack_offset") != 1:
        return
    f.set("seth", "cack_psn", (cack - 1) & U24)
    f.set("seth", "ack_psn_offset", 1)
    f.set("seth", "sack_offset", 2)


m = fault("dma-len-12bit",
          "The length field of the placement engine's DMA descriptor is 12 bits wide: a "
          "payload of exactly 4096 bytes is written as a write of 0 bytes.",
          ["RCV-PLACE-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "dma_write":
            continue
        p = ev.get("payload") or {}
        if len(p.get("bytes", "")) == 2 * 4096:
            p["bytes"] = ""
            ctx.mutated(m.name)
    return outs


m = fault("rx-va-48bit",
          "The placement engine's address register is 48 bits wide: a write is placed at "
          "RETH va with bits 63:48 cleared.",
          ["RCV-PLACE-003", "RCV-PLACE-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "dma_write" and int(ev.get("va", 0)) >> 48:
            ev["va"] = int(ev["va"]) & ((1 << 48) - 1)
            ctx.mutated(m.name)
    return outs


m = fault("sack-dest-qp-of-previous-sack",
          "The SACK builder takes dest_qp from the context register of the SACK it built "
          "before: when SACKs of two QPs follow each other, the second goes to the first "
          "one's peer.",
          ["RCV-SACK-005"])
stale_field(m, ("sack",), "bth", "dest_qp", device)


m = fault("nack-psn-of-previous-nack",
          "The NETH builder latches nack_psn one NACK late: each NACK of a QP names the "
          "packet of the NACK before it, the first names PSN 0.",
          ["NETH-PSN-001", "RCV-NACK-001"])
stale_field(m, ("nack",), "neth", "nack_psn", frame_qp, reset=0)


m = fault("ack-msn-saturates",
          "The responder's MSN register of the ACK path saturates at 0xFFFF where it must "
          "wrap: once the domain's MSN has wrapped, every ACK reports 0xFFFF.",
          ["AETH-MSN-001", "RCV-ACK-002"])


@out_frames(m, ("ack",))
def _(ctx, f, item, m=m):
    hi = ctx.state.setdefault(m.name, {})
    qp, msn = ctx.local_qp_of(f), f.get("aeth", "msn") & 0xFFFF
    if msn >= 0xC000:
        hi[qp] = True
    elif hi.get(qp) and msn < 0x4000:
        f.set("aeth", "msn", 0xFFFF)


m = fault("dma-second-lost-on-stall",
          "The placement pipeline stalls while its DMA write is in flight and the stage "
          "behind it has no hold: of two payload writes due at one instant, the second is "
          "lost, while its packet counts as placed.",
          ["RCV-PLACE-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    seen = set()
    res = []
    for item in outs:
        ev = event_of(item)
        if ev is not None and ev.get("event") == "dma_write" and (ev.get("payload") or {}).get(
                "bytes"):
            at = int(item["at"])
            if at in seen:
                ctx.mutated(m.name)
                continue
            seen.add(at)
        res.append(item)
    return res


def flag_slot_wraps_early(m, side, base_key, slots_key):
    @m.hook("outputs")
    def _(ctx, outs, m=m):
        for item in outs:
            ev = event_of(item)
            if ev is None or ev.get("event") != "flag_write" or ev.get("side") != side:
                continue
            c = ctx.qps.get(ev.get("qpn")) or {}
            slots, base = c.get(slots_key), c.get(base_key)
            if not slots or base is None or int(slots) < 2:
                continue
            addr = int(ev.get("addr", 0))
            k = (addr - int(base)) // 8
            if k == int(slots) - 1:
                ev["addr"] = int(base)
                ctx.mutated(m.name)
        return outs


m = fault("recv-flag-slot-wraps-early",
          "The retirement flag slot counter wraps when it reaches rx_flag_slots - 1, not "
          "rx_flag_slots: the flag meant for the last slot of the table is written to the "
          "first.",
          ["FLAG-RECV-001", "RET-FLAG-001"])
flag_slot_wraps_early(m, "responder", "recv_flag_base", "recv_flag_slots")


# ==== recovery =============================================================================

m = fault("sack-timer-seen-on-next-write",
          "The SACK timer's expiry is sampled only when the receive pipeline handles a "
          "packet: a SACK due by the timer leaves at the next write's arrival, or never.",
          ["RCV-SACK-004"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    times = sorted(ctx.input_times)
    res = []
    for item in outs:
        f = frame_of(item)
        at = int(item["at"])
        if f is None or kind(f) != "sack" or at in ctx.input_times:
            res.append(item)
            continue
        later = [t for t in times if t > at]
        ctx.mutated(m.name)
        if later:
            item["at"] = later[0]
            res.append(item)
    return res


m = fault("ev-state-cache-stale",
          "The send scheduler reads EV states through a one-entry cache per QP that "
          "SetEvState does not invalidate: the next data packet after a command that takes "
          "an EV out of use still goes on that EV.",
          ["EV-STATE-001", "EV-STATE-003", "SND-PATH-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    for item in ins:
        body = item.get("input") or {}
        c = body.get("command") or {}
        if body.get("kind") == "cpu" and c.get("cmd") == "set_ev_state" and c.get(
                "state") != "GOOD" and c.get("ev") in profile(ctx, c.get("qpn")):
            ctx.state.setdefault(m.name, {})[c.get("qpn")] = c.get("ev")
    return ins


@out_frames(m, ("data",))
def _(ctx, f, item, m=m):
    pend = ctx.state.get(m.name) or {}
    qp = ctx.local_qp_of(f)
    ev = pend.pop(qp, None)
    if ev is not None and f.ev() != ev:
        f.set_ev(ev)


m = fault("report-fifo-twice-at-wrap",
          "The report FIFO to the CPU half returns the entry it read last once more when "
          "its read pointer wraps: every fourth report is a copy of the one before, and the "
          "report it stands for is lost.",
          ["REC-IF-015", "REC-IF-002", "REC-IF-003", "REC-IF-016", "REC-IF-008",
           "REC-IF-019", "REC-IF-020"])
fifo_twice_at_wrap(m, is_event("report"))


m = fault("cmd-fifo-twice-at-wrap",
          "The command FIFO from the CPU half returns the command it read last once more "
          "when its read pointer wraps: every fourth command is taken as a copy of the one "
          "before it, and the command given is lost.",
          ["REC-IF-010", "REC-IF-011", "REC-IF-012", "EV-STATE-003", "EV-PROBE-005"])


fifo_twice_at_wrap(m, lambda item: (item.get("input") or {}).get("kind") == "cpu",
                   hook="inputs")


m = fault("probe-psn-before-write",
          "The probe builder reads snd_nxt before the write of the data packet that leaves "
          "in the same cycle: a probe sent at the instant of a first transmission of its QP "
          "carries that packet's PSN.",
          ["EV-PROBE-005"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    last = {}
    for item in outs:
        f = frame_of(item)
        if f is None:
            continue
        qp, at = ctx.local_qp_of(f), int(item["at"])
        if first_tx(f):
            last[qp] = (at, f.get("bth", "psn"))
        elif kind(f) == "probe" and last.get(qp, (None,))[0] == at:
            psn = last[qp][1]
            if f.get("bth", "psn") != psn:
                f.set("bth", "psn", psn)
                put(ctx, m, item, f)
    return outs


m = fault("probe-ev-of-previous-probe",
          "The probe stage takes its EV from a register loaded one probe late: each probe "
          "of a QP goes on the EV of the probe before it, the first on the EV asked for.",
          ["EV-PROBE-005", "REC-IF-011"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    last = ctx.state.setdefault(m.name, {})
    for item, f in frames(outs, ("probe",)):
        qp, own = ctx.local_qp_of(f), f.ev()
        prev = last.get(qp, own)
        last[qp] = own
        if prev != own:
            f.set_ev(prev)
            put(ctx, m, item, f)
    return outs


# ==== host side ============================================================================

m = fault("cqe-fifo-twice-at-wrap",
          "The completion FIFO returns the entry it read last once more when its read "
          "pointer wraps: every fourth completion entry repeats the one before it, at its "
          "own slot and after that work request's sender flag, and the entry it stands for "
          "is lost.",
          ["CQE-SEND-001", "CQE-RECV-001", "ORD-SEND-003"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault(m.name, {"n": 0, "last": None})
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "completion":
            continue
        e = completion_entry(ev)
        n, prev = st["n"], st["last"]
        st["n"] = n + 1
        st["last"] = dict(e)
        if n and n % 4 == 0 and prev is not None:
            keep = e.get("phase")
            new = dict(prev, phase=keep)
            if new != e:
                mutate_completion(ev, lambda d, new=new: d.update(new))
                ctx.mutated(m.name)
    return outs


m = fault("flag-fifo-twice-at-wrap",
          "The flag-write FIFO returns the write it read last once more when its read "
          "pointer wraps: every fourth flag write repeats the one before it, address and "
          "value, and the flag it stands for is never written.",
          ["FLAG-SEND-001", "FLAG-RECV-002", "RET-FLAG-001"])
fifo_twice_at_wrap(m, is_event("flag_write"))


def cqe_field_big_endian(m, name):
    off, n, sh, mask = CQE[name]

    @m.hook("outputs")
    def _(ctx, outs, m=m):
        for item in outs:
            ev = event_of(item)
            if ev is None or ev.get("event") != "completion":
                continue
            e = completion_entry(ev)
            v = int(e.get(name, 0))
            w = 3 if name == "qpn" else n
            sw = int.from_bytes(v.to_bytes(w, "little"), "big")
            if sw != v:
                mutate_completion(ev, lambda d, sw=sw: d.update({name: sw}))
                ctx.mutated(m.name)
        return outs


m = fault("cqe-qpn-big-endian",
          "The entry builder writes the 24-bit qpn of a completion entry in wire "
          "(big-endian) byte order, as the BTH carries it.",
          ["CQE-LAYOUT-001", "CQE-SEND-001", "CQE-RECV-001", "CQE-REJECT-001"])
cqe_field_big_endian(m, "qpn")


m = fault("cqe-byte-len-big-endian",
          "The entry builder writes byte_len of a completion entry big-endian, as the RETH "
          "carries dma_len.",
          ["CQE-LAYOUT-001", "CQE-SEND-001", "CQE-RECV-001"])
cqe_field_big_endian(m, "byte_len")


m = fault("send-cqe-wr-id-of-previous",
          "The sender's completion stage latches wr_id one entry late: each sender "
          "completion carries the wr_id of the completion before it, the first carries 0.",
          ["CQE-SEND-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    st = ctx.state.setdefault(m.name, {})
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "completion" or ev.get("side") != "requester":
            continue
        e = completion_entry(ev)
        if e.get("is_receive"):
            continue
        own = e.get("wr_id")
        prev = st.get("last", 0)
        st["last"] = own
        if prev != own:
            mutate_completion(ev, lambda d, prev=prev: d.update(wr_id=prev))
            ctx.mutated(m.name)
    return outs


m = fault("send-flag-generation-bytes-swapped",
          "The sender flag's generation is written with its two bytes swapped: the flag "
          "word is assembled from the token's seq as the wire carries it.",
          ["FLAG-SEND-001", "FLAG-LAYOUT-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item in outs:
        ev = event_of(item)
        if ev is None or ev.get("event") != "flag_write" or ev.get("side") != "requester":
            continue
        d = flag_fields(int(ev.get("value", 0)))
        g = d["generation"]
        sw = ((g & 0xFF) << 8) | (g >> 8)
        if sw != g:
            d["generation"] = sw
            ev["value"] = flag_value(d)
            ctx.mutated(m.name)
    return outs


m = fault("db-fifo-twice-at-wrap",
          "The doorbell FIFO returns the token it read last once more when its read "
          "pointer wraps: every fourth token is taken as a copy of the one before it, and "
          "the token written is lost.",
          ["DB-ACCEPT-001", "DB-SEQ-001"])


@m.hook("inputs")
def _(ctx, ins, m=m):
    st = ctx.state.setdefault(m.name, {"n": 0, "last": None})
    for item in ins:
        body = item.get("input") or {}
        c = body.get("command") or {}
        if body.get("kind") != "host" or c.get("command") != "doorbell":
            continue
        n, prev = st["n"], st["last"]
        st["n"] = n + 1
        st["last"] = c.get("token")
        if n and n % 4 == 0 and prev is not None and prev != c.get("token"):
            c["token"] = prev
            ctx.mutated(m.name)
    return ins


m = fault("cq-producer-index-reset-all-ones",
          "The producer index of a completion queue resets to all-ones, not 0: its first "
          "entry goes to the last slot with the phase of the second pass, and every later "
          "entry one slot early.",
          ["CQE-RING-001"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    counts = ctx.state.setdefault(m.name, {})
    for item in outs:
        ev = event_of(item)
        q = (ev or {}).get("queue") if ev and ev.get("event") == "completion" else None
        if not q or "bytes" not in q or q.get("cq") not in ctx.cqs:
            continue
        c = ctx.cqs[q["cq"]]
        n = int(c.get("entries", 1))
        k = counts.get(q["cq"], 0)
        counts[q["cq"]] = k + 1
        j = k - 1
        slot = j % n
        e = cqe_decode(bytes.fromhex(q["bytes"]))
        e["phase"] = (j // n) % 2 == 0
        new = {"slot": slot, "addr": int(c["base"]) + 32 * slot, "bytes": cqe_encode(e).hex()}
        if any(q.get(x) != new[x] for x in new):
            q.update(new)
            ctx.mutated(m.name)
    return outs
