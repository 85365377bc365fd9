#!/usr/bin/env python3
"""A mutating device for the OpenRDMA adapter protocol (spec/conformance.md, section 9).

    proxy.py (--fault NAME | --variant NAME | --pass-through) [--log FILE]
             [--delay-ns N] -- COMMAND ARGS...
    proxy.py --broken NAME --broken-in SCENARIO --broken-once FILE -- COMMAND ARGS...

It starts the device COMMAND (normally `openrdma serve`), relays the JSON Lines conversation
both ways, and applies one fault (a realistic NIC bug) or one legal variant (a choice the
specification leaves to the device) to what goes in and what comes out. `--pass-through`
applies nothing and must get exactly the inner device's verdicts. `--list` prints every
fault and variant as JSON. `--broken NAME` relays as `--pass-through` does and breaks the
conversation itself once, in the scenario `--broken-in` names (`broken.py`).

The proxy keeps the protocol right whatever a mod does: it answers every message with one
message, keeps `seq`, says in its hello the capabilities the inner device claims (less any a
variant's choice rules out, CONF-GEN-008), and holds an output that a mod made later than its
batch's `until` until the batch that reaches its time. Outputs of a batch are given in time
order, and, at equal times, in the order the device made them.

With `--log FILE` it appends one JSON line per scenario: the scenario, how many outputs or
inputs the mod changed ("mutations", 0 when the scenario never exercised it), by what, and
anything that went wrong; and, in the line written when the scenario ends, a digest of
every output the runner was given ("outputs_digest", "outputs"): `measure.py` compares it
with the pass-through run's to tell whether the device's output changed. With
`--pass-through --record FILE` it writes the whole conversation, one JSON list a line: each
line of the runner (`["r", line]`), each line given to the inner device with its answer
(`["i", line, answer]`), each answer given to the runner (`["a", line]`); `replay.py`
replays a mod against it. Standard library only.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import broken  # noqa: E402
import mods  # noqa: E402
import faults  # noqa: E402,F401  (registers the faults and variants)

NAME = "mutating-proxy"


class InnerGone(Exception):
    """The inner device closed its output."""


class Inner:
    """The device behind the proxy."""

    def __init__(self, command, record=None):
        self.command = command
        self.p = None
        self.hello = None
        # With `--record`: called with each line given to the device and its answer.
        self.record = record

    def start(self, hello_line):
        self.stop()
        self.p = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.hello = self.call_raw(hello_line)
        return self.hello

    def alive(self):
        return self.p is not None and self.p.poll() is None

    def call_raw(self, line):
        if self.p is None:
            raise InnerGone("the inner device is not running")
        try:
            self.p.stdin.write(line)
            self.p.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise InnerGone("cannot write to the inner device: %s" % e)
        out = self.p.stdout.readline()
        if not out:
            code = self.p.poll()
            raise InnerGone("the inner device closed its output (exit status %s)" % code)
        if self.record is not None:
            self.record(["i", line.decode(), out.decode()])
        return out

    def call(self, msg):
        return json.loads(self.call_raw(encode(msg)))

    def stop(self):
        if self.p is None:
            return
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.p = None


def encode(msg):
    return (json.dumps(msg, separators=(",", ":")) + "\n").encode()


class Proxy:
    def __init__(self, mod, command, log_path=None, args=None, record=None):
        self.mod = mod
        self.record = record
        self.inner = Inner(command, record)
        self.log_path = log_path
        self.args = args or {}
        self.ctx = None
        self.held = []
        self.hello_line = None
        self.errors = []
        self.logged = False
        self.digest = hashlib.sha256()
        self.given = 0

    # ---- logging -------------------------------------------------------------------

    def log(self, final):
        if not self.log_path or self.ctx is None:
            return
        rec = {
            "scenario": self.ctx.name,
            "mod": self.mod.name if self.mod else None,
            "mutations": self.ctx.mutations,
            "why": self.ctx.why,
            "held_dropped": len(self.held) if final else 0,
            "errors": self.errors,
            "final": final,
        }
        if final:
            rec["outputs_digest"] = self.digest.hexdigest()
            rec["outputs"] = self.given
        self.write_log(json.dumps(rec, sort_keys=True) + "\n")

    def write_log(self, line):
        with open(self.log_path, "a") as fh:
            fh.write(line)

    def note_error(self, where):
        text = "%s: %s" % (where, traceback.format_exc(limit=3).strip().splitlines()[-1])
        self.errors.append(text)
        sys.stderr.write("mutating-proxy: %s\n" % traceback.format_exc())

    def end_scenario(self):
        if self.ctx is not None:
            self.log(final=True)
        self.ctx = None
        self.held = []
        self.errors = []
        self.logged = False
        self.digest = hashlib.sha256()
        self.given = 0

    def note_given(self, outputs):
        """Adds the outputs given to the runner to the scenario's digest: each output's time
        and body as JSON with sorted keys, in lower case (the protocol reads hexadecimal in
        either case), without the decoded `fields` a device may add."""
        for o in outputs:
            o = dict(o)
            body = dict(o.get("output") or {})
            body.pop("fields", None)
            o["output"] = body
            self.digest.update(json.dumps(o, sort_keys=True, separators=(",", ":")).lower()
                               .encode())
            self.digest.update(b"\n")
            self.given += 1

    # ---- hooks, guarded --------------------------------------------------------------

    def run_hook(self, which, default, *a):
        fn = self.mod.hooks.get(which) if self.mod else None
        if fn is None:
            return default
        try:
            return fn(*a)
        except Exception:  # a mod's bug must not break the conversation
            self.note_error("%s hook" % which)
            return default

    # ---- messages ------------------------------------------------------------------

    def on_hello(self, msg, line):
        self.hello_line = line
        try:
            h = json.loads(self.inner.start(line))
        except InnerGone as e:
            return {"type": "error", "message": "mutating proxy: %s" % e}
        if h.get("type") != "hello":
            return h
        caps = list(h.get("capabilities") or [])
        if self.mod is not None:
            caps = [c for c in caps if c not in self.mod.caps_removed]
            caps = self.run_hook("hello", caps, caps)
        h["capabilities"] = caps
        inner_name = h.get("name", "device")
        label = self.mod.kind + ":" + self.mod.name if self.mod else "pass-through"
        h["name"] = "%s %s over %s" % (NAME, label, inner_name)
        # The proxy reads bytes only; the runner need not decode frames for it.
        h["frame_fields"] = False
        return h

    def ensure_inner(self):
        if self.inner.alive():
            return
        if self.hello_line is None:
            raise InnerGone("no hello yet")
        self.inner.start(self.hello_line)

    def on_start(self, msg):
        self.end_scenario()
        manifest = msg.get("manifest") or {}
        self.ctx = mods.Ctx(manifest, self.args)
        inner_manifest = self.run_hook("start", manifest, self.ctx, manifest)
        out = dict(msg)
        out["manifest"] = inner_manifest
        try:
            self.ensure_inner()
            return self.inner.call(out)
        except InnerGone as e:
            return {"type": "error", "message": "mutating proxy: %s" % e}

    def learn_inputs(self, inputs):
        ctx = self.ctx
        ctx.input_times = set()
        for item in inputs:
            body = item.get("input") or {}
            k = body.get("kind")
            if k == "host":
                c = body.get("command") or {}
                if c.get("command") == "create_qp":
                    ctx.qps[c.get("qpn")] = c
                    ctx.peer_to_local[c.get("peer_qpn")] = c.get("qpn")
                elif c.get("command") == "create_cq":
                    ctx.cqs[c.get("cq")] = c
            elif k == "frame":
                ctx.input_times.add(int(item.get("at", 0)))
                f = mods.frame_of(item)
                if f is not None and f.is_write():
                    qp = f.get("bth", "dest_qp")
                    ts = f.get("tseth", "tx_timestamp") if f.has("tseth") else None
                    ctx.rx_writes.setdefault(qp, []).append(
                        (int(item["at"]), f.get("bth", "psn"), f.ev(), ts))

    def learn_outputs(self, outputs):
        ctx = self.ctx
        for item in outputs:
            f = mods.frame_of(item)
            if f is None:
                continue
            k = mods.kind(f)
            qp = ctx.local_qp_of(f)
            if k == "data":
                ts = f.get("tseth", "tx_timestamp") if f.has("tseth") else None
                ctx.tx[(qp, f.get("bth", "psn"))] = (f.ev(), ts)
            elif k in ("sack", "probe-answer"):
                ctx.last_sack[qp] = (int(item["at"]), f.get("seth", "cack_psn"))
            elif k == "ack":
                ctx.last_ack_msn[qp] = f.get("aeth", "msn")

    def on_advance(self, msg):
        ctx = self.ctx
        if ctx is None:
            return {"type": "error", "message": "mutating proxy: advance without start"}
        inputs = list(msg.get("inputs") or [])
        for item in inputs:
            body = item.get("input") or {}
            body.pop("fields", None)
        ctx.prev_until = ctx.until
        ctx.until = int(msg.get("until", 0))
        # What the inner device is given.
        try:
            self.learn_inputs(inputs)
        except Exception:
            self.note_error("learn inputs")
        inputs = self.run_hook("inputs", inputs, ctx, inputs)
        out = dict(msg)
        out["inputs"] = inputs
        try:
            answer = self.inner.call(out)
        except InnerGone as e:
            return {"type": "error", "message": "mutating proxy: %s" % e}
        if answer.get("type") != "outputs":
            return answer
        outputs = answer.get("outputs") or []
        # What the inner device did, before any change, for the mods that follow it.
        try:
            self.learn_outputs(outputs)
        except Exception:
            self.note_error("learn outputs")
        times = [o.get("at") for o in outputs]
        outputs = self.run_hook("outputs", outputs, ctx, outputs)
        moved = [o.get("at") for o in outputs] != times
        if self.held or moved:
            outputs = self.release(outputs)
        answer["outputs"] = outputs
        try:
            self.note_given(outputs)
        except Exception:
            self.note_error("digest outputs")
        if ctx.mutations and not self.logged:
            # Log at once, in case the runner ends the scenario by killing the proxy.
            self.log(final=False)
            self.logged = True
        return answer

    def release(self, outputs):
        """Merges the held outputs with this batch's, in time order (stable), gives those
        at or before `until` and holds the rest."""
        ctx = self.ctx
        items = self.held + outputs
        for o in items:
            # No mod may move an output before its batch started (CONF-ADP-007).
            if int(o["at"]) < ctx.prev_until:
                o["at"] = ctx.prev_until
        items.sort(key=lambda o: int(o["at"]))
        ready = [o for o in items if int(o["at"]) <= ctx.until]
        self.held = [o for o in items if int(o["at"]) > ctx.until]
        return ready

    def handle(self, line):
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):
            # Not ours to judge: let the inner device answer it.
            try:
                self.ensure_inner()
                return self.inner.call_raw(line)
            except InnerGone as e:
                return encode({"type": "error", "message": "mutating proxy: %s" % e})
        t = msg.get("type")
        if t == "hello":
            return encode(self.on_hello(msg, line))
        if t == "start":
            return encode(self.on_start(msg))
        if t == "advance":
            return encode(self.on_advance(msg))
        if t == "finish":
            self.end_scenario()
        try:
            self.ensure_inner()
            return self.inner.call_raw(line)
        except InnerGone as e:
            return encode({"type": "error", "message": "mutating proxy: %s" % e})

    def serve(self, breaker=None):
        stdin = sys.stdin.buffer
        stdout = sys.stdout.buffer
        while True:
            line = stdin.readline()
            if not line:
                break
            due = breaker.due(line) if breaker else None
            answer = self.answer(line)
            if due is not None:
                breaker.act(broken.Io(stdout), due, answer, self.ctx)
                continue
            stdout.write(answer)
            stdout.flush()
        self.end_scenario()
        self.inner.stop()

    def answer(self, line):
        """The answer to one line of the runner: never an exception."""
        if self.record is not None:
            self.record(["r", line.decode(errors="replace")])
        try:
            answer = self.handle(line)
        except Exception as e:  # never leave the runner without an answer
            self.note_error("relay")
            answer = encode({"type": "error", "message": "mutating proxy failed: %s" % e})
        if self.record is not None:
            self.record(["a", answer.decode()])
        return answer


class Breaker:
    """When a broken mode acts: at the `nth` message of its kind in the scenario it names,
    once a run (a file remembers it), or on every later one of the scenario when sticky."""

    def __init__(self, mode, scenario, once):
        self.mode = mode
        self.scenario = scenario
        self.once = once
        self.current = None
        self.counts = {}
        self.firing = False

    def due(self, line):
        try:
            msg = json.loads(line)
        except ValueError:
            return None
        if not isinstance(msg, dict):
            return None
        t = msg.get("type")
        if t == "start":
            self.current = (msg.get("manifest") or {}).get("name")
            self.counts = {}
            self.firing = False
        self.counts[t] = self.counts.get(t, 0) + 1
        if t != self.mode.when:
            return None
        if self.firing and self.mode.sticky:
            return msg
        if t != "hello" and (self.current != self.scenario or self.counts[t] != self.mode.nth):
            return None
        try:
            os.close(os.open(self.once, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return None
        self.firing = True
        return msg

    def act(self, io, msg, answer, ctx):
        self.mode.act(io, msg, answer, ctx)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="A mutating device for the OpenRDMA adapter protocol.")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--fault", metavar="NAME")
    g.add_argument("--variant", metavar="NAME")
    g.add_argument("--pass-through", action="store_true")
    g.add_argument("--broken", metavar="NAME", help="break the conversation (broken.py)")
    g.add_argument("--list", action="store_true", help="print the faults and variants as JSON")
    ap.add_argument("--log", metavar="FILE", help="append what was mutated, per scenario")
    ap.add_argument("--delay-ns", type=int, default=1000,
                    help="the latency a latency variant adds to every output (default 1000)")
    ap.add_argument("--broken-in", metavar="SCENARIO",
                    help="the scenario in which the broken mode acts")
    ap.add_argument("--broken-once", metavar="FILE",
                    help="the file that remembers that the broken mode acted")
    ap.add_argument("--record", metavar="FILE",
                    help="with --pass-through: write the whole conversation, both sides, "
                    "for replay.py")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    if a.list:
        print(json.dumps({
            "faults": [m.describe() for m in mods.FAULTS.values()],
            "variants": [m.describe() for m in mods.VARIANTS.values()],
            "broken": [m.describe() for m in broken.BROKEN.values()],
        }, indent=1))
        return 0
    command = a.command[1:] if a.command and a.command[0] == "--" else a.command
    if not command:
        ap.error("give the device command after --")
    mod = None
    if a.fault:
        mod = mods.FAULTS.get(a.fault)
        if mod is None:
            ap.error("no fault named %s (--list lists them)" % a.fault)
    elif a.variant:
        mod = mods.VARIANTS.get(a.variant)
        if mod is None:
            ap.error("no variant named %s (--list lists them)" % a.variant)
    breaker = None
    if a.broken:
        mode = broken.BROKEN.get(a.broken)
        if mode is None:
            ap.error("no broken mode named %s (--list lists them)" % a.broken)
        if not a.broken_once or (mode.when != "hello" and not a.broken_in):
            ap.error("--broken needs --broken-once FILE, and --broken-in SCENARIO")
        breaker = Breaker(mode, a.broken_in, a.broken_once)
    elif not a.pass_through and mod is None:
        ap.error("give --fault NAME, --variant NAME, --broken NAME or --pass-through")
    if a.record and not a.pass_through:
        ap.error("--record goes with --pass-through")
    record = None
    if a.record:
        # One JSON list a line, written at once: the runner may end the proxy by a kill.
        out = open(a.record, "w")

        def record(event):
            out.write(json.dumps(event) + "\n")
            out.flush()

    Proxy(mod, command, a.log, {"delay_ns": a.delay_ns}, record=record).serve(breaker)
    return 0


if __name__ == "__main__":
    sys.exit(main())
