"""The machinery the faults and variants are built from.

A *mod* (a fault or a legal variant) is a set of hooks the proxy calls for one scenario at a
time, with a `Ctx` that holds what the proxy knows of the scenario (its manifest, the QPs the
runner created, what went in and what came out):

| hook | when | may change |
|---|---|---|
| `hello(caps)` | the device's hello | the capabilities it claims |
| `start(ctx, manifest)` | `start` | the manifest the inner device sees (a misread register) |
| `inputs(ctx, inputs)` | each `advance` | what the inner device is given |
| `outputs(ctx, outputs)` | each `outputs` | what the runner is given: content, times, order, count |

Every hook that changes something calls `ctx.mutated(why)`, so that the proxy can log which
scenarios a mod actually touched ("exercised"). Outputs are `{"at": ns, "output": {...}}` as
on the wire (spec/conformance.md, section 9.4); frames carry `bytes` in hexadecimal.
"""

import copy
import json

import roce

FAULTS = {}
VARIANTS = {}


class Mod:
    """One fault or variant: a name, one sentence, the requirements it breaks (faults), and
    its hooks."""

    def __init__(self, name, kind, text, reqs=(), keywords=(), relevant=None):
        self.name = name
        self.kind = kind
        self.text = text
        self.reqs = tuple(reqs)
        # Words of a rule the spec does not have yet: requirements whose sentence names
        # one of these fields in backticks are added to `reqs` when the spec is read.
        self.keywords = tuple(keywords)
        self.relevant = relevant
        self.hooks = {}
        self.caps_removed = ()
        self.allows = ()

    def hook(self, which):
        def deco(fn):
            prev = self.hooks.get(which)
            if prev is None:
                self.hooks[which] = fn
            else:
                # Several hooks of one kind run in order.
                def both(ctx, x, prev=prev, fn=fn):
                    return fn(ctx, prev(ctx, x))

                self.hooks[which] = both
            return fn

        return deco

    def describe(self):
        d = {"name": self.name, "kind": self.kind, "text": self.text}
        if self.kind == "fault":
            d["requirements"] = list(self.reqs)
            if self.keywords:
                d["keywords"] = list(self.keywords)
        if self.caps_removed:
            d["claims_without"] = list(self.caps_removed)
        return d


def fault(name, text, reqs, keywords=()):
    m = Mod(name, "fault", text, reqs, keywords)
    if name in FAULTS:
        raise ValueError("two faults named " + name)
    FAULTS[name] = m
    return m


def variant(name, text, allows=()):
    """A legal variant. `allows` lists the SHOULD clauses it departs from: a scenario may
    judge it `non-strict` naming one of them, never `fail`."""
    m = Mod(name, "variant", text)
    m.allows = tuple(allows)
    if name in VARIANTS:
        raise ValueError("two variants named " + name)
    VARIANTS[name] = m
    return m


# ---- the scenario context --------------------------------------------------------------


class Ctx:
    """What the proxy knows of the running scenario."""

    def __init__(self, manifest, args=None):
        self.manifest = manifest
        self.name = manifest.get("name", "?")
        self.requires = set(manifest.get("requires") or [])
        self.cpu = manifest.get("cpu", "reference")
        self.nic = manifest.get("nic") or {}
        self.recovery = manifest.get("recovery") or {}
        self.link = manifest.get("link") or {}
        self.tol = manifest.get("tolerances") or {}
        # The `start` table (manifest version 2): the expected seq each template takes when
        # it is installed, 0 when the table does not name it.
        start = manifest.get("start") or {}
        self.start_seq = {int(t["template"]): int(t.get("seq", 0))
                          for t in start.get("templates") or []}
        self.args = args or {}
        self.late_ns = int(self.tol.get("late_ns", 2000))
        self.qps = {}  # qpn -> create_qp command
        self.peer_to_local = {}
        self.cqs = {}  # cq -> create_cq command
        self.prev_until = 0
        self.until = 0
        self.mutations = 0
        self.why = {}
        self.state = {}  # per-mod scratch
        # Injected writes per local QP, in arrival order: (at, psn, ev, tseth ts or None).
        self.rx_writes = {}
        # Times at which frames were injected in the current batch.
        self.input_times = set()
        # Latest data transmission per (local QP, PSN): the EV and the timestamp.
        self.tx = {}
        # Last SACK per local QP: (at, cack_psn).
        self.last_sack = {}
        self.last_ack_msn = {}

    def mutated(self, why):
        self.mutations += 1
        self.why[why] = self.why.get(why, 0) + 1

    def pmtu(self):
        return int(self.nic.get("pmtu", 4096))

    def mpr(self):
        return int(self.nic.get("mpr", 2))

    def local_qp_of(self, frame):
        """The device's QP a frame it sent belongs to (by its destination, the peer QP)."""
        return self.peer_to_local.get(frame.get("bth", "dest_qp"))


# ---- frames ----------------------------------------------------------------------------


def kind(f):
    """What a frame is: data, sack, probe-answer, ack, nak, nack, probe, ereq, ersp."""
    op = f.opcode
    if f.is_write():
        return "data"
    if op == roce.MRC_SACK:
        return "probe-answer" if f.get("seth", "pr") else "sack"
    if op == roce.MRC_ACK:
        return "ack" if (f.get("aeth", "syndrome") >> 5) & 3 == 0 else "nak"
    return {
        roce.MRC_NACK: "nack",
        roce.MRC_PROBE: "probe",
        roce.MRC_ENDPOINT_REQUEST: "ereq",
        roce.MRC_ENDPOINT_RESPONSE: "ersp",
    }.get(op, "other")


def is_last(f):
    return f.opcode in (roce.MRC_WRITE_LAST, roce.MRC_WRITE_LAST_IMM, roce.MRC_WRITE_ONLY,
                        roce.MRC_WRITE_ONLY_IMM)


def is_first(f):
    return f.opcode in (roce.MRC_WRITE_FIRST, roce.MRC_WRITE_ONLY, roce.MRC_WRITE_ONLY_IMM)


def frame_of(item):
    """The parsed frame of an input or output item, or None."""
    body = item.get("input") or item.get("output") or {}
    if body.get("kind") != "frame" or "bytes" not in body:
        return None
    try:
        return roce.parse(bytes.fromhex(body["bytes"]))
    except ValueError:
        return None


def put_frame(item, f):
    body = item.get("input") or item.get("output")
    body["bytes"] = f.hex()
    body.pop("fields", None)


def sound(f):
    """Whether a received frame is one a NIC acts on: its ICRC and checksums are right
    (RCV-FRAME-001). A NIC that misreads a field does so only in such frames."""
    if not f.icrc_ok():
        return False
    if f.has("ipv4") and f.ipv4_checksum() != f.get("ipv4", "checksum"):
        return False
    c = f.get("udp", "checksum")
    return c == 0 or c == f.udp_checksum()


def frames(items, kinds="*", only_sound=False):
    """Yields `(item, f)` for every frame of `kinds` ("*" for all) among `items`; with
    `only_sound`, only the frames a NIC acts on."""
    for item in items:
        f = frame_of(item)
        if f is None or (kinds != "*" and kind(f) not in kinds):
            continue
        if only_sound and not sound(f):
            continue
        yield item, f


def put(ctx, m, item, f, seal=True):
    """Writes frame `f` back into `item`, sealed unless `seal` is False, and counts a
    mutation of `m`."""
    if seal:
        f.seal()
    put_frame(item, f)
    ctx.mutated(m.name)


def each_frame(ctx, items, kinds, fn, why, seal=True, only_sound=False):
    """Calls `fn(ctx, f, item)` on every frame of `kinds` ("*" for all); when `fn` changed
    the bytes, seals the frame (unless `seal` is False or `fn` returned False), writes the
    bytes back and counts a mutation. With `only_sound`, frames a NIC would discard are
    left alone."""
    for item, f in frames(items, kinds, only_sound):
        before = bytes(f.b)
        r = fn(ctx, f, item)
        if bytes(f.b) == before:
            continue
        if seal and r is not False:
            f.seal()
        put_frame(item, f)
        ctx.mutated(why)
    return items


def out_frames(m, kinds, why=None, seal=True):
    """Registers `fn(ctx, f, item)` as an output-frame mutation of `m`."""

    def deco(fn):
        @m.hook("outputs")
        def _(ctx, outs):
            return each_frame(ctx, outs, kinds, fn, why or m.name, seal)

        return fn

    return deco


def in_frames(m, kinds, why=None, seal=True):
    """Registers `fn(ctx, f, item)` as a mutation of the frames the inner device is given
    (a NIC that misreads a field it received)."""

    def deco(fn):
        @m.hook("inputs")
        def _(ctx, ins):
            return each_frame(ctx, ins, kinds, fn, why or m.name, seal, only_sound=True)

        return fn

    return deco


# ---- events ----------------------------------------------------------------------------


def event_of(item):
    body = item.get("output") or {}
    if body.get("kind") != "event":
        return None
    return body.get("event")


def out_events(m, names, why=None):
    """Registers `fn(ctx, ev, item)` as a mutation of output events named `names` (a
    `report` is named `report:KIND`); a change of the event's JSON counts."""

    def deco(fn):
        @m.hook("outputs")
        def _(ctx, outs):
            for item in outs:
                ev = event_of(item)
                if ev is None:
                    continue
                n = ev.get("event")
                if n == "report":
                    n = "report:" + str(ev.get("report"))
                if names != "*" and n not in names and n.split(":")[0] not in names:
                    continue
                before = json.dumps(item, sort_keys=True)
                fn(ctx, ev, item)
                if json.dumps(item, sort_keys=True) != before:
                    ctx.mutated(why or m.name)
            return outs

        return fn

    return deco


def flag_fields(v):
    return {
        "generation": (v >> 48) & 0xFFFF,
        "status": (v >> 40) & 0xFF,
        "valid": (v >> 39) & 1,
        "resv": (v >> 32) & 0x7F,
        "byte_len": v & 0xFFFFFFFF,
    }


def flag_value(d):
    return ((d["generation"] & 0xFFFF) << 48 | (d["status"] & 0xFF) << 40
            | (d["valid"] & 1) << 39 | (d["resv"] & 0x7F) << 32 | (d["byte_len"] & 0xFFFFFFFF))


# The completion entry (host-interface table 7): name -> (byte offset, bytes, shift, mask).
CQE = {
    "wr_id": (0, 8, 0, (1 << 64) - 1),
    "status": (8, 1, 0, 0xFF),
    "opcode": (9, 1, 0, 0xFF),
    "has_imm": (10, 1, 0, 1),
    "is_receive": (10, 1, 1, 1),
    "has_timestamp": (10, 1, 2, 1),
    "flags_resv": (10, 1, 3, 0x1F),
    "resv1": (11, 1, 0, 0xFF),
    "qpn": (12, 4, 0, 0xFFFFFF),
    "qpn_resv": (12, 4, 24, 0xFF),
    "byte_len": (16, 4, 0, 0xFFFFFFFF),
    "imm": (20, 4, 0, 0xFFFFFFFF),
    "timestamp": (24, 4, 0, 0xFFFFFFFF),
    "msn": (28, 2, 0, 0xFFFF),
    "resv2": (30, 1, 0, 0xFF),
    "phase": (31, 1, 0, 1),
    "owner_resv": (31, 1, 1, 0x7F),
}
CQE_BOOL = {"has_imm", "is_receive", "has_timestamp", "phase"}


def cqe_decode(b):
    d = {}
    for k, (off, n, sh, mask) in CQE.items():
        v = (int.from_bytes(b[off:off + n], "little") >> sh) & mask
        d[k] = bool(v) if k in CQE_BOOL else v
    return d


def cqe_encode(d):
    b = bytearray(32)
    for k, (off, n, sh, mask) in CQE.items():
        cur = int.from_bytes(b[off:off + n], "little")
        cur |= (int(d[k]) & mask) << sh
        b[off:off + n] = cur.to_bytes(n, "little")
    return bytes(b)


def completion_entry(ev):
    """The entry of a completion event: decoded from its queue bytes when it has them
    (CONF-ADP-017), else its `entry`."""
    q = ev.get("queue")
    if q and "bytes" in q:
        return cqe_decode(bytes.fromhex(q["bytes"]))
    return dict(ev.get("entry") or {})


def set_completion_entry(ev, entry):
    """Writes `entry` back into the event, in `entry` and in the queue bytes alike."""
    if "entry" in ev:
        ev["entry"] = dict(entry)
    q = ev.get("queue")
    if q and "bytes" in q:
        q["bytes"] = cqe_encode(entry).hex()


def mutate_completion(ev, fn):
    e = completion_entry(ev)
    fn(e)
    set_completion_entry(ev, e)


# ---- manifest ---------------------------------------------------------------------------


def config(m, section, key, fn, relevant, reads=None):
    """A device that misreads one register of its configuration: the inner device runs
    with `fn(value)` for manifest[section][key], in the scenarios where `relevant(ctx)`
    says the register matters. The register counts as mutated (the fault exercised) when
    the scenario starts, or, with `reads(ctx, inputs)`, at the first batch whose inputs
    make the device read it."""

    @m.hook("start")
    def _(ctx, manifest):
        sec = manifest.get(section)
        if not isinstance(sec, dict) or sec.get(key) is None or not relevant(ctx):
            return manifest
        new = fn(sec[key])
        if new == sec[key]:
            return manifest
        manifest = copy.deepcopy(manifest)
        manifest[section][key] = new
        ctx.state[m.name + ":misread"] = True
        if reads is None:
            ctx.mutated(m.name)
        return manifest

    if reads is not None:
        @m.hook("inputs")
        def _(ctx, ins):
            k = m.name + ":misread"
            if ctx.state.get(k) and reads(ctx, ins):
                ctx.state[k] = False
                ctx.mutated(m.name)
            return ins


def responder(ctx):
    return "responder" in ctx.requires


def requester(ctx):
    return "requester" in ctx.requires


def device_cpu(ctx):
    return ctx.cpu == "device"


def shared_mode(ctx):
    """Whether the scenario's QPs retire in shared domains (`retirement = "shared"`, the
    default), not each on its own (`per-qp`)."""
    return str(ctx.nic.get("retirement", "shared")) == "shared"


# ---- time -------------------------------------------------------------------------------


def delay(ctx, item, ns, why):
    """Makes an output visible `ns` later; the proxy holds it across batches as needed."""
    if ns:
        item["at"] = int(item["at"]) + int(ns)
        ctx.mutated(why)


def latency_of(why, which, ns=None):
    """An outputs hook that makes the outputs `which(item)` selects visible `ns(ctx)` ns
    later: half of the scenario's late_ns when `ns` is None."""

    def hook(ctx, outs):
        for item in outs:
            if which(item):
                delay(ctx, item, ctx.late_ns // 2 if ns is None else ns(ctx), why)
        return outs

    return hook


def every(item):
    """Selects every output (for `latency_of`)."""
    return True


# ---- FIFOs --------------------------------------------------------------------------------


def deep(x):
    """A deep copy of a JSON value."""
    return json.loads(json.dumps(x))


def fifo_twice_at_wrap(m, accepts, depth=4, hook="outputs"):
    """A FIFO of `depth` entries whose read pointer, at its wrap, returns the entry it read
    last once more: every item of `hook` that `accepts(item)` takes whose count is a
    multiple of `depth` (the first excepted) is replaced by a copy of the one before it, at
    its own time."""
    part = "output" if hook == "outputs" else "input"

    @m.hook(hook)
    def _(ctx, items, m=m):
        st = ctx.state.setdefault(m.name, {"n": 0, "last": None})
        res = []
        for item in items:
            if not accepts(item):
                res.append(item)
                continue
            n, prev = st["n"], st["last"]
            st["n"] = n + 1
            st["last"] = deep(item[part])
            if n and n % depth == 0 and prev is not None:
                if prev != item[part]:
                    ctx.mutated(m.name)
                item = {"at": item["at"], part: deep(prev)}
            res.append(item)
        return res


def lag_behind(why, key_of, lag):
    """One queue per key (`key_of` gives whether an output is queued, and its key): each
    output the key puts in a queue becomes visible `lag(ctx, item)` ns later, at most half of late_ns, and never
    before an earlier output of its queue. Every queue keeps its order; since each output
    waits at most for one made before it, none is later than half of late_ns."""

    def hook(ctx, outs):
        st = ctx.state.setdefault(why, {})
        d = ctx.late_ns // 2
        for item in outs:
            ok, key = key_of(ctx, item)
            if not ok:
                continue
            t = int(item["at"])
            nt = max(t + max(0, min(lag(ctx, item), d)), st.get(key, 0))
            st[key] = nt
            if nt != t:
                item["at"] = nt
                ctx.mutated(why)
        return outs

    return hook
