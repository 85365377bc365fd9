#!/usr/bin/env python3
"""A quick self-test of the mutating proxy, for CI.

    selftest.py [--openrdma PATH]

1. The frame code against the corpus: every RoCEv2 frame of traces/scenarios and
   traces/samples parses, its ICRC verdict agrees with `openrdma dissect`'s, and a frame
   whose ICRC and checksums are right comes out of parse and seal byte for byte; the
   vectors of traces/vectors/icrc.txt check.
2. The builder against the codec: every field of every header, set to a new value and
   sealed, reads back from `openrdma dissect --json` with that value and a good ICRC.
3. The proxy: with --pass-through every scenario of the corpus passes, and a faulty
   inner device gets exactly the verdicts it gets without the proxy; a fault changes
   what it says and fails the suite; a variant changes frames and passes; an inner device
   that dies is answered with `error`, never with silence.

Standard library only.
"""

import argparse
import glob
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import roce  # noqa: E402
import mods  # noqa: E402
import faults  # noqa: E402,F401

OPENRDMA = os.path.join(ROOT, "target", "release", "openrdma")


def corpus_files():
    return sorted(glob.glob(os.path.join(ROOT, "traces", "scenarios", "*.pcapng"))
                  + glob.glob(os.path.join(ROOT, "traces", "samples", "*.pcapng")))


def write_pcap(path, frames):
    with open(path, "wb") as fh:
        fh.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, b in enumerate(frames):
            fh.write(struct.pack("<IIII", i, 0, len(b), len(b)))
            fh.write(b)


def dissect(path):
    p = subprocess.run([OPENRDMA, "dissect", "--json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return [json.loads(line) for line in p.stdout.decode().splitlines() if line.strip()]


def dissected_header(d, h):
    """Header `h` of a frame as `openrdma dissect --json` gives it, {} when absent. `vlan`
    there is the outermost tag and `vlans` every tag, outermost first, as the adapter
    protocol gives them; this parser follows one tag, the outermost."""
    if h == "vlan":
        tags = d.get("vlans")
        if tags is not None and not isinstance(tags, list):
            raise AssertionError("dissect gives vlans as a list of tags, not %r" % (tags,))
        return tags[0] if tags else {}
    return d.get(h) or {}


def checksums_ok(f):
    if f.has("ipv4") and f.ipv4_checksum() != f.get("ipv4", "checksum"):
        return False
    c = f.get("udp", "checksum")
    return c == 0 or c == f.udp_checksum()


class FrameCode(unittest.TestCase):
    def test_corpus_round_trip_and_icrc(self):
        n = 0
        for path in corpus_files():
            frames = [b for _i, _f, b in roce.pcapng_frames(path)]
            # Packets of other link types (a host record) have no Ethernet header.
            seen = [d for d in dissect(path) if "eth" in d]
            self.assertEqual(len(frames), len(seen), path)
            for k, (b, d) in enumerate(zip(frames, seen)):
                f = roce.parse(b)
                verdict = d.get("icrc")
                if verdict == "absent":
                    continue
                where = "%s frame %d" % (os.path.basename(path), k + 1)
                # A frame the codec cannot decode is one this parser refuses too, and so
                # is one a receiver must discard for its outer layers: a second VLAN tag,
                # or no IP header behind its ethertype (the parser follows one tag, then
                # IPv4 or IPv6).
                if d.get("error") or len(d.get("vlans") or []) > 1 or not (
                    "ipv4" in d or "ipv6" in d
                ):
                    self.assertIsNone(f, where)
                    continue
                self.assertIsNotNone(f, where)
                self.assertEqual(f.icrc_ok(), verdict == "ok", where)
                if verdict == "ok" and checksums_ok(f):
                    self.assertEqual(bytes(roce.Frame(b).seal()), b, where)
                n += 1
        self.assertGreater(n, 1000)

    def test_icrc_vectors(self):
        with open(os.path.join(ROOT, "traces", "vectors", "icrc.txt")) as fh:
            for line in fh:
                if not line.strip() or line.startswith("#"):
                    continue
                name, hx = line.split()
                f = roce.parse(bytes.fromhex(hx))
                self.assertIsNotNone(f, name)
                self.assertTrue(f.icrc_ok(), name)

    def test_every_field_against_the_codec(self):
        """Sets each field of each header to a new value, seals, and reads it back with the
        codec's dissector."""
        # Fields that change the frame's structure, or that the dissector shows as text.
        skip = {("eth", "ethertype"), ("eth", "src"), ("eth", "dst"), ("vlan", "ethertype"),
                ("ipv4", "version"), ("ipv4", "ihl"), ("ipv4", "total_len"),
                ("ipv4", "protocol"), ("ipv4", "checksum"), ("ipv4", "src"), ("ipv4", "dst"),
                ("ipv4", "more_frags"), ("ipv4", "frag_offset"),
                ("ipv6", "version"), ("ipv6", "payload_len"), ("ipv6", "next_header"),
                ("ipv6", "src"), ("ipv6", "dst"), ("udp", "length"), ("udp", "checksum"),
                ("udp", "dst_port"), ("bth", "opcode"), ("bth", "pad_count"), ("bth", "ts"),
                ("eeth", "data")}
        samples = {}
        for path in corpus_files():
            for _i, _fl, b in roce.pcapng_frames(path):
                f = roce.parse(b)
                if f is None or not f.icrc_ok():
                    continue
                for h in f.off:
                    samples.setdefault((h, "ipv6" if f.has("ipv6") else "ipv4"), b)
        rng = random.Random(13)
        cases = []
        for (h, _fam), b in sorted(samples.items()):
            for name, (_o, _n, _s, mask) in roce.FIELDS[h].items():
                if (h, name) in skip:
                    continue
                f = roce.Frame(b)
                old = f.get(h, name)
                new = old
                while new == old:
                    new = rng.randrange(0, mask + 1) & mask
                    if mask & (mask + 1):  # a field held in place: keep its bits only
                        new &= mask
                f.set(h, name, new)
                f.seal()
                cases.append((h, name, f.get(h, name), bytes(f.b)))
        self.assertGreater(len(cases), 100)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "fields.pcap")
            write_pcap(path, [c[3] for c in cases])
            out = dissect(path)
        self.assertEqual(len(out), len(cases))
        for (h, name, want, _b), got in zip(cases, out):
            where = "%s.%s" % (h, name)
            self.assertEqual(got.get("icrc"), "ok", where)
            v = dissected_header(got, h).get(name)
            if isinstance(v, bool):
                v = int(v)
            if (h, name) in roce.SIGNED and want < 0:
                want &= 0xFFFF
                v = v & 0xFFFF if isinstance(v, int) else v
            self.assertEqual(v, want, where)

    def test_structural_edits(self):
        """A new payload, a removed tag and Ethernet padding keep the frame sound."""
        edited = []
        for path in corpus_files():
            for _i, _fl, b in roce.pcapng_frames(path):
                f = roce.parse(b)
                if f is None or not f.icrc_ok() or not checksums_ok(f):
                    continue
                if f.is_write() and len(edited) < 4:
                    f.replace_payload(f.payload[:-3] if len(f.payload) > 3 else b"abc")
                    f.seal()
                    edited.append(bytes(f.b))
                elif f.has("vlan") and len(edited) < 8:
                    f.strip_vlan()
                    f.ethernet_pad(80)
                    edited.append(bytes(f.b))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "edits.pcap")
            write_pcap(path, edited)
            out = dissect(path)
        self.assertTrue(edited)
        for got in out:
            self.assertIsNone(got.get("error"), got)
            self.assertEqual(got.get("icrc"), "ok", got)


class Registry(unittest.TestCase):
    def test_every_fault_names_known_requirements_and_is_documented(self):
        import measure
        spec = measure.read_spec(os.path.join(ROOT, "spec"))
        with open(os.path.join(HERE, "README.md"), encoding="utf-8") as fh:
            readme = fh.read()
        self.assertGreaterEqual(len(mods.FAULTS), 40)
        self.assertGreaterEqual(len(mods.VARIANTS), 8)
        for m in list(mods.FAULTS.values()) + list(mods.VARIANTS.values()):
            self.assertIn("`%s`" % m.name, readme, m.name)
            self.assertTrue(m.text.endswith("."), m.name)
            for r in m.reqs:
                self.assertIn(r, spec, "%s names %s" % (m.name, r))
                self.assertFalse(spec[r][2], "%s names %s, which is withdrawn" % (m.name, r))
            if m.kind == "fault":
                self.assertTrue(m.reqs or m.keywords, m.name)

    def test_every_hook_binds_its_own_fault(self):
        # A hook that reads the module-level `m` when it runs sees the last fault defined,
        # not its own: it counts its changes under another name, or finds nothing to do.
        for name in ("faults.py", "faults_ninth.py", "faults_tenth.py", "faults_eleventh.py",
                     "faults_thirteenth.py", "variants_tenth.py", "variants_eleventh.py",
                     "variants_twelfth.py", "variants_thirteenth.py", "variants_weak.py",
                     "faults_fourteenth_rcv.py", "faults_fifteenth.py",
                     "faults_fifteenth_ret.py", "faults_fifteenth_lat.py",
                     "faults_tail_sequence.py", "faults_fifteenth_mpr.py",
                     "variants_sixteenth.py", "faults_sixteenth.py"):
            self.check_hooks_bind(name)

    def check_hooks_bind(self, name):
        import ast
        with open(os.path.join(HERE, name), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            params = {a.arg for a in node.args.args}
            reads_m = any(isinstance(n, ast.Name) and n.id == "m"
                          for stmt in node.body for n in ast.walk(stmt))
            own_m = any(isinstance(n, ast.Name) and n.id == "m" and isinstance(n.ctx, ast.Store)
                        for stmt in node.body for n in ast.walk(stmt))
            self.assertFalse(reads_m and "m" not in params and not own_m,
                             "%s line %d: the hook reads `m` when it runs; bind it "
                             "with `m=m`" % (name, node.lineno))

    def test_every_broken_mode_is_documented(self):
        import broken
        with open(os.path.join(HERE, "README.md"), encoding="utf-8") as fh:
            readme = fh.read()
        for m in broken.BROKEN.values():
            self.assertIn("`%s`" % m.name, readme, m.name)
            self.assertTrue(m.text.endswith("."), m.name)
            self.assertIn(m.victim, ("first", "this", "next", "setup"), m.name)


class BrokenModes(unittest.TestCase):
    def test_a_crash_and_a_second_answer_are_survived(self):
        import broken
        import measure_broken
        with tempfile.TemporaryDirectory() as d:
            for name in ("exit-mid-batch", "answers-twice"):
                m = broken.BROKEN[name]
                ran = measure_broken.run_mode(OPENRDMA, m, d, 5)
                self.assertEqual(measure_broken.judge(m, *ran), [], name)


def run_suite(args, scenario=None, inner=("serve",)):
    cmd = [OPENRDMA, "run", "--impl", "process"]
    if scenario:
        cmd += ["--scenario", scenario]
    with tempfile.TemporaryDirectory() as d:
        report = os.path.join(d, "report.json")
        log = os.path.join(d, "proxy.log")
        cmd += ["--json", report, "--", sys.executable, os.path.join(HERE, "proxy.py")]
        if args is None:
            cmd = cmd[:cmd.index("--") + 1] + [OPENRDMA] + list(inner)
        else:
            cmd += args + ["--log", log, "--", OPENRDMA] + list(inner)
        subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        with open(report) as fh:
            rep = json.load(fh)
        logs = []
        if os.path.exists(log):
            with open(log) as fh:
                logs = [json.loads(line) for line in fh]
    return rep, logs


class Proxy(unittest.TestCase):
    def test_pass_through_passes_everything(self):
        rep, logs = run_suite(["--pass-through"])
        bad = [s["id"] for s in rep["scenarios"] if s["verdict"] != "pass"]
        self.assertEqual(bad, [])
        self.assertGreater(len(rep["scenarios"]), 50)
        self.assertTrue(all(r["mutations"] == 0 and not r["errors"] for r in logs))

    def test_pass_through_keeps_a_faulty_devices_verdicts(self):
        inner = ("serve", "--impl", "faulty:go-back-n")
        direct, _ = run_suite(None, inner=inner)
        relayed, _ = run_suite(["--pass-through"], inner=inner)

        def verdicts(rep):
            return [(s["id"], s["verdict"], s["divergences"],
                     (s["first_divergence"] or {}).get("requirement")) for s in rep["scenarios"]]

        self.assertGreater(direct["summary"]["fail"], 0)
        self.assertEqual(verdicts(relayed), verdicts(direct))

    def test_a_fault_is_applied_and_caught(self):
        rep, logs = run_suite(["--fault", "sack-ts-zero"], "rcv-reflect")
        self.assertEqual(rep["summary"]["fail"], 1)
        self.assertTrue(any(r["mutations"] > 0 for r in logs))
        d = rep["scenarios"][0]["first_divergence"]
        self.assertIn(d["requirement"], mods.FAULTS["sack-ts-zero"].reqs)

    def test_a_variant_is_applied_and_passes(self):
        rep, logs = run_suite(["--variant", "ttl-255"], "rcv-in-order-*")
        self.assertEqual(rep["summary"]["fail"], 0)
        self.assertGreater(rep["summary"]["pass"], 0)
        self.assertTrue(all(r["mutations"] > 0 for r in logs if r["final"]))

    def test_a_dead_inner_device_gets_an_error(self):
        p = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "proxy.py"), "--pass-through", "--",
             sys.executable, "-c", "import sys; sys.exit(3)"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        lines = [{"type": "hello", "version": 1, "runner": "selftest"},
                 {"type": "start", "manifest": {"name": "x"}},
                 {"type": "advance", "seq": 1, "until": 10, "inputs": []}]
        out, _err = p.communicate(
            "".join(json.dumps(m) + "\n" for m in lines).encode(), timeout=30)
        answers = [json.loads(x) for x in out.decode().splitlines()]
        self.assertEqual([a["type"] for a in answers], ["error", "error", "error"])
        self.assertEqual(p.returncode, 0)


class Replay(unittest.TestCase):
    """The measure's fast path: a replay against the recorded pass-through conversation."""

    @classmethod
    def setUpClass(cls):
        import replay

        cls.replay = replay
        with tempfile.TemporaryDirectory() as d:
            record = os.path.join(d, "conversation")
            rep, _logs = run_suite(["--pass-through", "--record", record])
            cls.recording = replay.load(record)
            with open(record) as fh:
                cls.record_lines = fh.readlines()
        cls.started = [s["id"] for s in rep["scenarios"] if s["verdict"] != "unsupported"]

    def test_the_recording_holds_every_scenario_started(self):
        hello, scenarios, _digests = self.recording
        self.assertEqual(len(hello), 1)
        self.assertEqual(sorted(n for n, _ in scenarios), sorted(self.started))

    def test_a_mod_that_changes_nothing_replays_every_scenario(self):
        m = mods.Mod("selftest-nothing", "variant", "Changes nothing.")
        out = self.replay.replay(m, self.recording, {"delay_ns": 1000})
        self.assertEqual(sorted(out), sorted(self.started))
        self.assertTrue(all(lines is not None and len(lines) == 1 for lines in out.values()))

    def test_a_fault_departs_where_it_changes_a_line(self):
        out = self.replay.replay(mods.FAULTS["sack-ts-zero"], self.recording,
                                 {"delay_ns": 1000})
        self.assertIsNone(out["rcv-reflect"])
        self.assertIsNotNone(out["rcv-in-order-v4"])

    def test_a_changed_answer_of_the_device_is_a_departure(self):
        # The device answers something else than the recording says in one scenario: the
        # proxy's answer to the runner departs there, and only there.
        hello, scenarios, digests = self.recording
        name, units = scenarios[0]
        line, pairs, answer = units[1]
        pairs = [(pairs[0][0], b'{"type":"error","message":"bent"}\n')]
        bent = (hello, [(name, [units[0], (line, pairs, answer)] + units[2:])] + scenarios[1:],
                digests)
        m = mods.Mod("selftest-nothing", "variant", "Changes nothing.")
        out = self.replay.replay(m, bent, {"delay_ns": 1000})
        self.assertIsNone(out[name])
        self.assertTrue(all(v is not None for k, v in out.items() if k != name))

    def test_a_changed_capability_runs_all_live(self):
        m = mods.Mod("selftest-no-ipv6", "variant", "Claims no IPv6.")
        m.caps_removed = ("ipv6",)
        self.assertIsNone(self.replay.replay(m, self.recording, {"delay_ns": 1000}))

    def test_the_fast_path_agrees_with_the_slow_path(self):
        import measure

        with tempfile.TemporaryDirectory() as d:
            code = measure.main(["--openrdma", OPENRDMA, "--agree", "--jobs", "2",
                                 "--workdir", d, "--only", "sack-ts-zero", "ack-msn-next",
                                 "ttl-255"])
        self.assertEqual(code, 0)


def main():
    global OPENRDMA
    ap = argparse.ArgumentParser(description="Self-test of the mutating proxy.")
    ap.add_argument("--openrdma", default=OPENRDMA)
    a, rest = ap.parse_known_args()
    OPENRDMA = a.openrdma
    if not os.access(OPENRDMA, os.X_OK):
        sys.exit("selftest: %s is not an executable; build it with "
                 "`cargo build --release -p openrdma`" % OPENRDMA)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
