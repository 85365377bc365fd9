"""Broken harnesses: the ways a device's harness breaks that are not bugs of a NIC.

A broken mode is not a fault of the protocol engine behind the proxy: it breaks the
conversation itself (spec/conformance.md, section 9), as a hardware team's harness does. It
crashes mid-batch, writes half a line, answers twice or never, writes a line without end,
bytes that are not UTF-8 or not JSON, a number out of range, an output outside its batch, a
frame or a DMA write that no NIC could make, a flood of outputs, its logs on the standard
output; it closes its input, ignores `finish`, hangs, says hello twice, or exits with status
0 before the end.

Each mode acts once in a run: in the scenario `--broken-in` names (or at the first hello,
for a mode of the hello), at the `nth` message of its kind there; a file (`--broken-once`)
remembers that it acted, so that the fresh device the runner starts for the next scenario
is a working one. Everything else is relayed as `--pass-through` relays it.

Each mode says what the runner must make of it: the `kind` of the device failure that is the
scenario's failure reason (`crash`, `protocol`, `timeout`), or `divergence` for outputs the
protocol allows and the judge must fail, `unsupported`, or `pass` for a harness the protocol
allows; `says`, a pattern its message must match; and `victim`, the scenario that must fail
(`this`, or `next` for an answer too many that the next scenario reads, `first` for a second
hello, `setup` for a broken first hello: the suite cannot run).
"""

import json
import os
import random
import signal
import sys
import time

import roce

BROKEN = {}


class Broken:
    def __init__(self, name, when, kind, says, text, act, nth=1, victim="this", sticky=False,
                 own_words=False, slow=False, where=None):
        self.name = name
        # The scenarios to run (a pattern) and the one the mode acts in, when the usual
        # three are too short for it: `None` for those of `measure_broken.py`.
        self.where = where
        # Its answers take the proxy long to write: the runner's deadline is made longer.
        self.slow = slow
        # The runner reports the device's own message (an `error` answer), as it is.
        self.own_words = own_words
        # Acts again on every later message of its kind in the same scenario.
        self.sticky = sticky
        self.when = when
        self.kind = kind
        self.says = says
        self.text = text
        self.act = act
        self.nth = nth
        self.victim = victim

    def describe(self):
        return {"name": self.name, "kind": "broken", "text": self.text, "when": self.when,
                "fails_as": self.kind, "says": self.says, "victim": self.victim}


def broken(name, when, kind, says, text, nth=1, victim="this", sticky=False, own_words=False,
           slow=False, where=None):
    def deco(fn):
        if name in BROKEN:
            raise ValueError("two broken modes named " + name)
        BROKEN[name] = Broken(name, when, kind, says, text, fn, nth, victim, sticky, own_words,
                              slow, where)
        return fn

    return deco


class Io:
    """What a broken mode can do to the runner: write bytes, exit, hang, close its input."""

    def __init__(self, out):
        self.out = out

    def write(self, data):
        try:
            self.out.write(data)
            self.out.flush()
        except (BrokenPipeError, OSError):
            # The runner stopped reading: it has seen enough.
            self.exit(0)

    def exit(self, code):
        try:
            self.out.flush()
        except (BrokenPipeError, OSError):
            pass
        os._exit(code)

    def hang(self):
        while True:
            time.sleep(3600)

    def close_input(self):
        os.close(0)


def line(obj):
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


def with_outputs(msg, answer, outputs, **extra):
    """The answer to an advance, with these outputs."""
    a = json.loads(answer)
    a["outputs"] = outputs
    a.update(extra)
    return line(a)


def first_out(msg):
    """The time of an output added to a batch: its end."""
    return int(msg.get("until", 0))


def plus(msg, answer, out):
    """The answer to an advance, with one more output after the device's own."""
    return with_outputs(msg, answer, json.loads(answer).get("outputs", []) + [out])


def dma(at, qpn=17, va=0x10000000, payload="00"):
    return {"at": at, "output": {"kind": "event", "event": {
        "event": "dma_write", "qpn": qpn, "psn": 0, "msn": 0, "va": va,
        "payload": {"bytes": payload}}}}


def frame(at, hexbytes, port=0):
    return {"at": at, "output": {"kind": "frame", "port": port, "bytes": hexbytes}}


# ---- crashes --------------------------------------------------------------------------


@broken("exit-mid-batch", "advance", "crash", r"exit status: 3",
        "The simulator dies during a batch: it writes why on its standard error and exits "
        "with status 3 without answering.")
def _(io, msg, answer, ctx):
    sys.stderr.write("fatal: the DMA engine model stopped\n")
    sys.stderr.flush()
    io.exit(3)


@broken("exit-0-early", "advance", "crash", r"exit status: 0",
        "The harness thinks the test is over and exits with status 0 before the end of the "
        "scenario.")
def _(io, msg, answer, ctx):
    io.exit(0)


@broken("half-line-exit", "advance", "crash",
        r"exit status: 0.*bytes of a line without its newline",
        "The harness writes half of its answer and exits, its buffer never flushed whole.")
def _(io, msg, answer, ctx):
    io.write(answer[: len(answer) // 2])
    io.exit(0)


@broken("error-answer", "advance", "crash", r"DMA engine timed out", own_words=True,
        text="The device answers a batch with `error`.")
def _(io, msg, answer, ctx):
    io.write(line({"type": "error", "message": "DMA engine timed out writing 0x10000000"}))


@broken("closes-input", "start", "crash|timeout", r"advance seq 1|standard input",
        "The harness answers `start`, then closes its standard input and waits for nothing.")
def _(io, msg, answer, ctx):
    io.write(answer)
    io.close_input()
    io.hang()


# ---- answers too many, too few, too late ----------------------------------------------


@broken("answers-twice", "advance", "protocol",
        r"a second outputs, answering advance seq 1 again.*CONF-ADP-005",
        "The harness answers a batch twice: the runner fails that batch, never reads the "
        "second answer as the answer to the next message (CONF-ADP-023).")
def _(io, msg, answer, ctx):
    io.write(answer + answer)


@broken("finished-twice", "finish", "protocol",
        r"waiting for the answer to start .*: a second finished, answering finish of scenario "
        r"\"[^\"]+\" again.*CONF-ADP-005",
        text="The harness answers `finish` twice; the next scenario's `start` reads the second, "
        "and the runner fails the scenario that finished, then starts the next afresh "
        "(CONF-ADP-020).")
def _(io, msg, answer, ctx):
    io.write(answer + answer)


@broken("never-answers", "advance", "timeout", r"advance seq 1",
        "The harness never answers a batch: its simulator waits on an event that never comes.")
def _(io, msg, answer, ctx):
    io.hang()


@broken("half-line-hang", "advance", "timeout", r"advance seq 1",
        "The harness writes half of its answer and then waits for ever.")
def _(io, msg, answer, ctx):
    io.write(answer[: len(answer) // 2])
    io.hang()


@broken("hangs-at-start", "start", "timeout", r"start",
        "The harness says hello and then hangs: the scenario's `start` is never answered.")
def _(io, msg, answer, ctx):
    io.hang()


@broken("ignores-finish", "finish", "timeout", r"finish",
        "The harness never answers `finish`.")
def _(io, msg, answer, ctx):
    io.hang()


@broken("hello-twice", "hello", "protocol",
        r"waiting for the answer to start .*: a second hello, answering hello again.*CONF-ADP-005",
        victim="first",
        text="The harness says hello twice, at its first start; the second is read as the "
        "answer to the first scenario's `start`.")
def _(io, msg, answer, ctx):
    io.write(answer + answer)


@broken("unsupported-after-claiming", "start", "unsupported", r"no IPv6",
        "The harness claims every capability, then declines the scenario.")
def _(io, msg, answer, ctx):
    io.write(line({"type": "unsupported", "reason": "this board has no IPv6 encapsulation"}))


# ---- lines that are not messages ------------------------------------------------------


@broken("line-over-limit", "advance", "protocol", r"longer than the limit",
        "The harness writes a line of 65 MiB.")
def _(io, msg, answer, ctx):
    chunk = b"x" * (1 << 20)
    for _ in range(65):
        io.write(chunk)
    io.write(b"\n")
    io.hang()


@broken("endless-line", "advance", "protocol", r"longer than the limit",
        "The harness writes one line that never ends.")
def _(io, msg, answer, ctx):
    chunk = b"y" * (1 << 20)
    while True:
        io.write(chunk)


@broken("not-utf8", "advance", "protocol", r"UTF-8",
        "The harness writes an answer with bytes that are not UTF-8.")
def _(io, msg, answer, ctx):
    io.write(b'{"type":"outputs","seq":1,"outputs":[],"x":"\xff\xfe"}\n')


@broken("not-json", "advance", "protocol", r"not JSON",
        "The harness writes an answer cut short and closed by a newline.")
def _(io, msg, answer, ctx):
    io.write(answer[: len(answer) // 2] + b"\n")


@broken("logs-on-stdout", "advance", "protocol", r"not JSON",
        "The harness prints its log to the standard output.")
def _(io, msg, answer, ctx):
    io.write(b"INFO  link up, 4 lanes at 100G\n" + answer)


@broken("unknown-answer", "advance", "protocol", r"unknown message type",
        "The harness answers with a message type of its own.")
def _(io, msg, answer, ctx):
    io.write(line({"type": "outputs-v2", "seq": msg.get("seq")}))


@broken("outputs-not-a-list", "advance", "protocol", r"field `outputs`: expected an array",
        "The harness gives `outputs` as an object.")
def _(io, msg, answer, ctx):
    io.write(line({"type": "outputs", "seq": msg.get("seq"), "outputs": {}}))


# ---- numbers out of range -------------------------------------------------------------


@broken("seq-beyond-64-bits", "advance", "protocol", r"field `seq`",
        "The harness answers with a `seq` of 2^64.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [], seq=1 << 64))


@broken("at-negative", "advance", "protocol", r"field `outputs\[0\]\.at`",
        "The harness gives an output the time -1.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [dma(-1)]))


@broken("at-beyond-64-bits", "advance", "protocol", r"field `outputs\[0\]\.at`",
        "The harness gives an output the time 2^64.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [dma(1 << 64)]))


@broken("at-before-batch", "advance", "protocol", r"outputs\[0\]\.at .* outside the batch",
        nth=2,
        text="The harness stamps an output with a time before its batch started.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [dma(max(0, ctx.prev_until - 1))]))


@broken("at-far-future", "advance", "protocol", r"outputs\[0\]\.at .* outside the batch",
        "The harness stamps an output 11 days after its batch's end.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [dma(int(msg.get("until", 0)) + 10 ** 15)]))


@broken("qpn-beyond-32-bits", "advance", "protocol", r"`outputs\[0\]\.output\.event\.qpn`",
        "The harness gives a DMA write a QPN of 2^40.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [dma(int(msg.get("until", 0)), qpn=1 << 40)]))


@broken("msn-beyond-16-bits", "advance", "protocol", r"`outputs\[0\]\.output\.event\.msn`",
        "The harness gives a flag write an MSN of 2^32-1, wider than the flag carries.")
def _(io, msg, answer, ctx):
    out = {"at": first_out(msg), "output": {"kind": "event", "event": {
        "event": "flag_write", "qpn": 17, "side": "responder", "msn": 0xFFFFFFFF,
        "addr": 0, "value": 0}}}
    io.write(with_outputs(msg, answer, [out]))


@broken("port-beyond-range", "advance", "protocol", r"`outputs\[0\]\.output\.port`",
        "The harness gives a frame the port 2^32.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [frame(int(msg.get("until", 0)), "00" * 60, 1 << 32)]))


# ---- outputs the protocol carries and no NIC makes: the judge fails them ----------------


@broken("unknown-qp", "advance", "divergence", r"",
        "The harness gives a DMA write of a QP that was never created.")
def _(io, msg, answer, ctx):
    io.write(plus(msg, answer, dma(first_out(msg), qpn=0xABCDE)))


@broken("frame-random", "advance", "divergence", r"",
        "The harness gives a frame of 64 random bytes.")
def _(io, msg, answer, ctx):
    rng = random.Random(13)
    io.write(plus(msg, answer, frame(first_out(msg), bytes(
        rng.randrange(256) for _ in range(64)).hex())))


@broken("frame-empty", "advance", "divergence", r"",
        "The harness gives a frame of 0 bytes.")
def _(io, msg, answer, ctx):
    io.write(plus(msg, answer, frame(first_out(msg), "")))


@broken("frame-100000", "advance", "divergence", r"",
        "The harness gives a frame of 100 000 bytes.")
def _(io, msg, answer, ctx):
    io.write(plus(msg, answer, frame(first_out(msg), "5a" * 100000)))


@broken("dma-at-top", "advance", "divergence", r"",
        "The harness gives a DMA write of 4096 bytes at address 2^64-1: its end overflows.")
def _(io, msg, answer, ctx):
    io.write(plus(msg, answer, dma(first_out(msg), va=(1 << 64) - 1,
                                            payload="ab" * 4096)))


@broken("flag-at-top", "advance", "divergence", r"",
        "The harness gives a flag write at address 2^64-1.")
def _(io, msg, answer, ctx):
    out = {"at": first_out(msg), "output": {"kind": "event", "event": {
        "event": "flag_write", "qpn": 17, "side": "responder", "msn": 0xFFFF,
        "addr": (1 << 64) - 1, "value": (1 << 64) - 1}}}
    io.write(plus(msg, answer, out))


@broken("completion-at-top", "advance", "divergence", r"",
        "The harness gives a completion entry of slot 2^32-1 at address 2^64-8.")
def _(io, msg, answer, ctx):
    out = {"at": first_out(msg), "output": {"kind": "event", "event": {
        "event": "completion", "side": "requester", "queue": {
            "cq": 0xFFFFFFFF, "slot": 0xFFFFFFFF, "addr": (1 << 64) - 8,
            "bytes": "ff" * 32}}}}
    io.write(plus(msg, answer, out))


# CONF-ADP-019: past 2^20 outputs in a scenario the runner ends it; a scenario of 55
# batches gets there at the 17th.
@broken("flood-outputs", "advance", "protocol",
        r"advance seq 17 .*: 1114112 outputs in the scenario, past the limit of 1048576",
        sticky=True, slow=True, where=("rec-split-*", "rec-split-progress"),
        text="The harness gives 65536 DMA writes in every batch of a scenario of 55 batches.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [dma(first_out(msg))] * 65536))


@broken("outputs-over-limit", "advance", "protocol", r"65536", slow=True,
        text="The harness gives 70 000 outputs in one answer.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [dma(first_out(msg))] * 70000))


# CONF-ADP-020: an answer given twice fails the scenario it was given twice in, however late
# the second comes; the scenario that reads it starts on a fresh device.
@broken("finished-at-next-start", "start", "protocol",
        r"a second finished, answering finish of scenario \"[^\"]+\" again.*CONF-ADP-005",
        victim="first",
        text="The harness writes a second `finished` for the scenario before, late, just "
        "before it answers the next scenario's `start`; the scenario before fails, the next "
        "starts afresh.")
def _(io, msg, answer, ctx):
    io.write(line({"type": "finished"}) + answer)


# ---- a second reading: hellos, wrong types, bytes, processes --------------------------
# A mode of the first hello breaks the handshake before any scenario: the suite cannot run
# (`victim="setup"`, CONF-REP-004), and the runner says why and exits with 2. A mode that
# the protocol allows (`kind="pass"`) must leave every scenario passing.


@broken("hello-future-version", "hello", "setup", r"version 2 is not spoken here",
        victim="setup",
        text="The harness was written for a later protocol: it answers hello with version 2.")
def _(io, msg, answer, ctx):
    h = json.loads(answer)
    h["version"] = 2
    io.write(line(h))


@broken("hello-version-a-string", "hello", "setup", r"field `version`", victim="setup",
        text="The harness writes the version of its hello as the string \"1\".")
def _(io, msg, answer, ctx):
    h = json.loads(answer)
    h["version"] = "1"
    io.write(line(h))


@broken("hello-capabilities-a-string", "hello", "setup", r"field `capabilities`",
        victim="setup",
        text="The harness gives its capabilities as one string, joined by commas.")
def _(io, msg, answer, ctx):
    h = json.loads(answer)
    h["capabilities"] = ",".join(h.get("capabilities", []))
    io.write(line(h))


@broken("seq-of-next-batch", "advance", "protocol", r"seq 2, expected 1",
        text="The harness answers a batch with the `seq` of the next one.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, json.loads(answer).get("outputs", []),
                          seq=int(msg.get("seq", 0)) + 1))


@broken("outputs-unasked", "start", "protocol",
        r"a second outputs, answering start of scenario .* again|answering advance seq 1 again",
        text="The harness answers `start`, then an `advance` the runner never sent: an "
        "answer too many to `start`, or, read as the first batch's answer, to that batch "
        "(CONF-ADP-023).")
def _(io, msg, answer, ctx):
    io.write(answer + line({"type": "outputs", "seq": 1, "outputs": []}))


@broken("seq-a-string", "advance", "protocol", r"field `seq`",
        "The harness writes `seq` as a string.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, json.loads(answer).get("outputs", []),
                          seq=str(msg.get("seq"))))


@broken("at-a-float", "advance", "protocol", r"field `outputs\[0\]\.at`",
        "The harness gives an output a time with a fraction of a nanosecond.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [dma(first_out(msg) - 0.5)]))


@broken("kind-a-number", "advance", "protocol", r"`outputs\[0\]\.output\.kind`",
        "The harness writes an output's `kind` as the number of its enum.")
def _(io, msg, answer, ctx):
    out = dma(first_out(msg))
    out["output"]["kind"] = 1
    io.write(with_outputs(msg, answer, [out]))


@broken("seq-given-twice", "advance", "protocol", r"duplicate field `seq`",
        "The harness writes the key `seq` twice in one answer.")
def _(io, msg, answer, ctx):
    seq = int(msg.get("seq", 0))
    io.write(b'{"type":"outputs","seq":%d,"seq":%d,"outputs":[]}\n' % (seq, seq))


@broken("error-message-a-number", "advance", "protocol", r"field `message`",
        "The harness answers `error` with its error code as a number in `message`.")
def _(io, msg, answer, ctx):
    io.write(line({"type": "error", "message": 42}))


@broken("type-missing", "advance", "protocol", r"type",
        "The harness leaves `type` out of its answer.")
def _(io, msg, answer, ctx):
    a = json.loads(answer)
    a.pop("type", None)
    io.write(line(a))


@broken("nested-200-deep", "advance", "protocol", r"nest",
        "The harness adds a debug key to its answer: arrays nested 200 deep.")
def _(io, msg, answer, ctx):
    a = json.loads(answer)
    a["debug"] = None
    io.write(line(a).replace(b'"debug":null', b'"debug":' + b"[" * 200 + b"]" * 200))


@broken("nul-byte", "advance", "protocol", r"not JSON",
        "The harness writes its answer with a NUL byte in a string, its C buffer not cleared.")
def _(io, msg, answer, ctx):
    io.write(b'{"type":"outputs","seq":%d,"outputs":[],"x":"\x00"}\n' % int(msg.get("seq", 0)))


@broken("bom-before-answer", "advance", "protocol", r"not JSON",
        "The harness writes a UTF-8 byte-order mark before its answer.")
def _(io, msg, answer, ctx):
    io.write(b"\xef\xbb\xbf" + answer)


@broken("hex-odd-length", "advance", "protocol", r"`outputs\[0\]\.output\.bytes`",
        "The harness gives a frame of 121 hexadecimal digits, its last nibble alone.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [frame(first_out(msg), "0" * 121)]))


@broken("hex-not-hex", "advance", "protocol", r"`outputs\[0\]\.output\.event\.payload",
        "The harness gives a DMA write whose payload is `0x` and digits.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [dma(first_out(msg), payload="0x1234")]))


@broken("frame-13-bytes", "advance", "divergence", r"",
        "The harness gives a frame of 13 bytes, shorter than an Ethernet header.")
def _(io, msg, answer, ctx):
    io.write(plus(msg, answer, frame(first_out(msg), "ff" * 13)))


@broken("frame-port-9", "advance", "divergence", r"",
        "The harness gives a copy of a frame on port 9, a port the scenario has not.")
def _(io, msg, answer, ctx):
    outs = json.loads(answer).get("outputs", [])
    f = next((o for o in outs if o["output"].get("kind") == "frame"), None)
    extra = frame(first_out(msg), f["output"].get("bytes", "00" * 60) if f else "00" * 60, 9)
    io.write(plus(msg, answer, extra))


@broken("forks-and-exits", "advance", "crash", r"exit status: 3",
        "The harness starts a helper that keeps its pipes open, and then dies with status 3.")
def _(io, msg, answer, ctx):
    if os.fork() == 0:
        io.hang()
    sys.stderr.write("fatal: lost the simulator\n")
    sys.stderr.flush()
    io.exit(3)


@broken("closes-output-stays", "advance", "crash", r"closed its standard output",
        "The harness closes its standard output and stays alive.")
def _(io, msg, answer, ctx):
    os.close(1)
    io.hang()


@broken("stops-itself", "advance", "timeout", r"advance seq 1",
        "The harness stops itself with SIGSTOP, as a debugger attached to it would.")
def _(io, msg, answer, ctx):
    os.kill(os.getpid(), signal.SIGSTOP)
    io.hang()


@broken("answer-in-pieces", "advance", "pass", r"",
        "The harness writes its answer in 16 pieces, 20 ms apart.")
def _(io, msg, answer, ctx):
    step = max(1, len(answer) // 16 + 1)
    for k in range(0, len(answer), step):
        io.write(answer[k:k + step])
        time.sleep(0.02)


@broken("crlf-line-ends", "advance", "pass", r"", sticky=True,
        text="The harness ends its lines with a carriage return and a newline.")
def _(io, msg, answer, ctx):
    io.write(answer.rstrip(b"\n") + b"\r\n")


@broken("stderr-flood", "advance", "pass", r"", slow=True,
        text="The harness writes 32 MiB of trace to its standard error, on one line, then "
        "answers.")
def _(io, msg, answer, ctx):
    chunk = b"t" * (1 << 20)
    for _ in range(32):
        sys.stderr.buffer.write(chunk)
    sys.stderr.buffer.write(b"\n")
    sys.stderr.flush()
    io.write(answer)


@broken("error-message-16-mib", "advance", "crash", r"^assertion failed: x{100}", own_words=True,
        slow=True,
        text="The harness answers `error` with its whole simulation log, 16 MiB, as the message.")
def _(io, msg, answer, ctx):
    io.write(line({"type": "error", "message": "assertion failed: " + "x" * (16 << 20)}))


@broken("seq-a-long-string", "advance", "protocol", r"field `seq`", slow=True,
        text="The harness writes `seq` as a string of 16 MiB digits.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [], seq="9" * (16 << 20)))


@broken("unsupported-long-reason", "start", "unsupported", r"", slow=True,
        text="The harness declines the scenario with a reason of 16 MiB.")
def _(io, msg, answer, ctx):
    io.write(line({"type": "unsupported", "reason": "no " + "IPv6 " * (16 << 18)}))


# ---- a third reading: slow answers, repeated hellos, numbers and bytes at the edges ----------
# The deadlines below are those of `measure_broken.py` (2 s): the slow modes answer just
# inside it and just outside it.


def slow_answer(name, seconds, kind, says, text, then_hang):
    """Registers a mode that answers each batch `seconds` after it was sent, then hangs
    when `then_hang` (the runner has given up on it)."""

    def act(io, msg, answer, ctx, seconds=seconds, then_hang=then_hang):
        time.sleep(seconds)
        io.write(answer)
        if then_hang:
            io.hang()

    broken(name, "advance", kind, says, text=text)(act)


slow_answer("slow-inside-deadline", 1.5, "pass", r"",
            "The simulator is slow: it answers a batch 1.5 s after it was sent, inside the "
            "runner's deadline of 2 s.", then_hang=False)
slow_answer("slow-outside-deadline", 2.5, "timeout", r"advance seq 1",
            "The simulator is slower: it answers a batch 2.5 s after it was sent, past the "
            "runner's deadline of 2 s.", then_hang=True)


@broken("hello-mid-scenario", "advance", "protocol", r"expected outputs.*got hello",
        text="The harness restarts its simulator during a scenario, which says hello again "
        "in place of the answer to a batch.")
def _(io, msg, answer, ctx):
    io.write(line({"type": "hello", "version": 1, "name": "dev", "capabilities": []}))
    io.hang()


@broken("started-names-another", "start", "pass", r"",
        text="The harness answers `start` with `started` and a key the protocol does not "
        "define, naming another scenario: a receiver ignores such keys (CONF-ADP-003).")
def _(io, msg, answer, ctx):
    io.write(line({"type": "started", "scenario": "rcv-psn-wrap"}))


@broken("hello-capabilities-twice", "hello", "pass", r"",
        text="The harness's hello names every capability twice.")
def _(io, msg, answer, ctx):
    h = json.loads(answer)
    h["capabilities"] = list(h.get("capabilities", [])) * 2
    io.write(line(h))


@broken("completion-no-queue", "advance", "divergence", r"",
        text="The harness gives a completion written to a completion queue that was never "
        "created, in a scenario that requires no completion queue.")
def _(io, msg, answer, ctx):
    out = {"at": first_out(msg), "output": {"kind": "event", "event": {
        "event": "completion", "side": "requester",
        "queue": {"cq": 9, "slot": 0, "addr": 0x50000000, "bytes": "00" * 32}}}}
    io.write(plus(msg, answer, out))


@broken("frame-10-kib", "advance", "divergence", r"",
        text="The MAC model sends a data packet whose payload grew to 10000 bytes: every "
        "header is valid and sealed, and the frame is ten times the path MTU.")
def _(io, msg, answer, ctx):
    a = json.loads(answer)
    for o in a.get("outputs", []):
        out = o.get("output") or {}
        if out.get("kind") != "frame":
            continue
        f = roce.Frame(bytes.fromhex(out["bytes"]))
        f.replace_payload(bytes(range(256)) * 39 + bytes(16), pad_count=0)
        f.seal()
        out["bytes"] = f.hex()
        break
    else:
        a.setdefault("outputs", []).append(frame(first_out(msg), "00" * 10000))
    io.write(line(a))


@broken("stderr-escapes-then-exit", "advance", "crash", r"exit status: 3",
        text="The simulator colours its last log line with ANSI escapes, writes a NUL and a "
        "bell in it, and exits with status 3.")
def _(io, msg, answer, ctx):
    sys.stderr.buffer.write(b"\x1b[31mFATAL\x1b[0m: bus hang\x00 at 0x10\x07 \x1b]0;title\x07\n")
    sys.stderr.flush()
    io.exit(3)


@broken("closes-input-mid-scenario", "advance", "crash|timeout", r"advance seq 2|finish",
        text="The harness answers a batch, then closes its standard input and waits: the "
        "runner's next message finds no reader.")
def _(io, msg, answer, ctx):
    io.write(answer)
    io.close_input()
    io.hang()


@broken("killed-by-signal", "advance", "crash", r"signal: 9",
        text="The simulator is killed by a signal (the kernel's out-of-memory killer) during "
        "a batch.")
def _(io, msg, answer, ctx):
    os.kill(os.getpid(), signal.SIGKILL)


@broken("at-an-exponent", "advance", "protocol", r"field `outputs\[0\]\.at`",
        text="The harness writes an output's time as a JSON number with an exponent (`2e3`), "
        "where an integer is required.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [dma(7777777)]).replace(
        b'"at":7777777', b'"at":%de0' % first_out(msg)))


@broken("seq-an-exponent", "advance", "protocol", r"field `seq`",
        text="The harness writes `seq` as `1e0`, a JSON number with an exponent.")
def _(io, msg, answer, ctx):
    io.write(with_outputs(msg, answer, [], seq=7777777).replace(
        b'"seq":7777777', b'"seq":%de0' % int(msg.get("seq", 0))))
