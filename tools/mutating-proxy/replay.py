"""Replays a recorded pass-through conversation through a fault or a variant, without any
process, to find the scenarios where the mod changes nothing on the wire.

`proxy.py --pass-through --record FILE` writes the whole conversation of a suite run: each
line of the runner, each line given to the inner device with its answer, and each answer
given to the runner. The runner and `openrdma serve` are deterministic: given the same
lines, they answer with the same lines. So a mod's proxy, given the recorded runner lines
and the recorded device answers, either

- sends the device exactly the recorded lines and gives the runner exactly the recorded
  answers, all through a scenario: then a live run of that scenario is the same
  conversation, and its verdict is the pass-through run's. The replay also gives what the
  proxy would log there (a mod may count a change that leaves the bytes as they were); or
- departs from the recording at some line: from there on the conversation is not known,
  and the scenario must run live.

The scenarios start at each `start` line of the runner; what comes before the first one
(the hello) decides for all: a mod that changes the hello runs every scenario live. The
proxy code is the same as in a live run: the replay only puts a recording where the
inner device and the log file are.
"""

import hashlib
import json

import proxy as proxy_mod


class Diverged(BaseException):
    """The mod's conversation left the recording. Not an `Exception`, so that the proxy's
    guards, which keep a live conversation going, let it through."""


class Recorded(proxy_mod.Inner):
    """The inner device of a replay: the recorded answers, to the recorded lines only."""

    def __init__(self):
        super().__init__(None)
        self.pairs = []
        self.i = 0

    def start(self, hello_line):
        self.hello = self.call_raw(hello_line)
        return self.hello

    def alive(self):
        return True

    def stop(self):
        pass

    def call_raw(self, line):
        if self.i >= len(self.pairs) or self.pairs[self.i][0] != line:
            raise Diverged()
        out = self.pairs[self.i][1]
        self.i += 1
        return out


class Known:
    """A digest already taken."""

    def __init__(self, hexdigest):
        self.value = hexdigest

    def hexdigest(self):
        return self.value


class ReplayProxy(proxy_mod.Proxy):
    def __init__(self, mod, args, digests=None):
        super().__init__(mod, None, log_path="replay", args=args)
        self.inner = Recorded()
        self.lines = []
        self.digests = digests or {}

    def write_log(self, line):
        self.lines.append(line)

    def note_given(self, outputs):
        # The digest of a scenario that follows the recording is the pass-through run's:
        # the outputs given are those of the recorded answers. Taken once, in `load`.
        pass

    def log(self, final):
        if final and self.ctx is not None:
            digest, given = self.digests[self.ctx.name]
            self.digest = Known(digest)
            self.given = given
        super().log(final)

    def note_error(self, where):
        # As the live proxy logs it, without the traceback on the standard error.
        import traceback

        text = "%s: %s" % (where, traceback.format_exc(limit=3).strip().splitlines()[-1])
        self.errors.append(text)

    def forget(self):
        """Drops what is known of a scenario that left the recording, logging nothing."""
        self.ctx = None
        self.end_scenario()
        self.lines = []


def load(path):
    """The recording as (hello units, [(scenario, units)], {scenario: (digest of the
    outputs given, their count)}), each unit (runner line, [(line to the device, its
    answer)], answer to the runner), all as bytes."""
    units = []
    cur = None
    with open(path) as fh:
        for text in fh:
            ev = json.loads(text)
            if ev[0] == "r":
                cur = [ev[1].encode(), [], None]
            elif ev[0] == "i":
                cur[1].append((ev[1].encode(), ev[2].encode()))
            elif ev[0] == "a":
                cur[2] = ev[1].encode()
                units.append(tuple(cur))
                cur = None
    hello = []
    scenarios = []
    digests = {}
    given = proxy_mod.Proxy(None, None)
    for u in units:
        try:
            msg = json.loads(u[0])
        except ValueError:
            msg = None
        if isinstance(msg, dict) and msg.get("type") == "start":
            name = (msg.get("manifest") or {}).get("name", "?")
            scenarios.append((name, []))
        if scenarios:
            scenarios[-1][1].append(u)
            # The digest the proxy takes of the outputs it gives (`Proxy.note_given`).
            if isinstance(msg, dict) and msg.get("type") == "start":
                given.digest = hashlib.sha256()
                given.given = 0
            if isinstance(msg, dict) and msg.get("type") == "advance":
                answer = json.loads(u[2])
                if answer.get("type") == "outputs":
                    given.note_given(answer.get("outputs") or [])
            digests[scenarios[-1][0]] = (given.digest.hexdigest(), given.given)
        else:
            hello.append(u)
    return hello, scenarios, digests


def unnamed(line):
    """A hello without its name. The runner reads the device's name only to print it and
    write it in the report's `implementation`, and the proxy's name says which mod it runs."""
    try:
        msg = json.loads(line)
    except ValueError:
        return line
    if isinstance(msg, dict) and msg.get("type") == "hello":
        msg.pop("name", None)
    return msg


def feed(p, unit, hello=False):
    line, pairs, answer = unit
    p.inner.pairs = pairs
    p.inner.i = 0
    out = p.answer(line)
    if p.inner.i != len(pairs):
        raise Diverged()
    if out != answer and not (hello and unnamed(out) == unnamed(answer)):
        raise Diverged()


def replay(mod, recording, args):
    """None when the mod changes the hello (every scenario runs live); otherwise
    {scenario: the log lines a live proxy writes there, or None when it must run live}."""
    hello, scenarios, digests = recording
    p = ReplayProxy(mod, args, digests)
    try:
        for u in hello:
            feed(p, u, hello=True)
    except Diverged:
        return None
    out = {}
    for name, units in scenarios:
        p.lines = []
        try:
            for u in units:
                feed(p, u)
            p.end_scenario()
            out[name] = p.lines
        except Diverged:
            p.forget()
            out[name] = None
    return out
