#!/usr/bin/env python3
"""Measures how the runner survives broken devices (issue 13: "the runner survives every
broken device").

    measure_broken.py [--openrdma PATH] [--only NAME ...] [--timeout S] [--md FILE]
                      [--workdir DIR] [--check]

Runs `openrdma run --impl process` once per broken mode of `broken.py`, over three scenarios,
the mode acting in the middle one (`--broken-in`), or over the scenarios the mode names
(`where`), and checks what issue 13 asks of the runner:

- it ends in bounded time (a few of its deadlines), never panics, and exits with 1 (a
  scenario failed) or 0 (only a declined scenario);
- its memory stays bounded (the largest resident set of the run, devices included);
- the victim scenario (the one the mode broke, or the next one for an answer too many)
  fails with the device failure as its reason: the JSON `error` of the mode's kind
  (`crash`, `protocol`, `timeout`) with a message that says what was wrong, no divergence
  in its place; JUnit a `failure` of that type, `device KIND: ...`; the text table the same
  line below the scenario's; a protocol error names the line of the device's output and
  the answer the runner waited for. A mode whose outputs the protocol carries (`divergence`) fails
  by a divergence and no device error; `unsupported` is the verdict `unsupported`;
- every other scenario passes: the runner went on with a fresh device; a mode the protocol
  allows (`pass`) fails no scenario;
- a mode of the first hello (`victim="setup"`) ends the run with 2 (the suite could not run,
  CONF-REP-004) and the reason on the runner's standard error, and every report says it:
  each scenario fails with that failure as its reason (CONF-ADP-024);
- no process of the run is left behind, and a scenario's report quotes a device's message in
  part (CONF-ADP-026).

Prints one line per mode and a table with `--md`; with `--check` exits with 1 unless every
mode is survived.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import broken  # noqa: E402

# Three scenarios of several batches each; the mode acts in the middle one.
SCENARIOS = "snd-spray-r*"
TARGET = "snd-spray-random"
# The largest resident set a run may reach, devices included, in KiB. A device that floods
# outputs costs the runner at most 2^20 of them (CONF-ADP-019).
MAX_RSS_KIB = 256 * 1024
# The longest report of one scenario, in characters: a device's message is quoted in part.
MAX_REPORT_CHARS = 1 << 16


def where(mode):
    """The scenarios of a mode's run (a pattern) and the one it acts in."""
    return mode.where or (SCENARIOS, TARGET)


def run_mode(openrdma, mode, workdir, timeout):
    d = os.path.join(workdir, mode.name)
    os.makedirs(d, exist_ok=True)
    once = os.path.join(d, "once")
    for f in ("once", "r.json", "r.xml"):
        p = os.path.join(d, f)
        if os.path.exists(p):
            os.remove(p)
    cmd = [openrdma, "run", "--impl", "process", "--timeout", str(timeout),
           "--scenario", where(mode)[0], "--json", os.path.join(d, "r.json"),
           "--junit", os.path.join(d, "r.xml"), "--",
           sys.executable, os.path.join(HERE, "proxy.py"), "--broken", mode.name,
           "--broken-in", where(mode)[1], "--broken-once", once, "--", openrdma, "serve"]
    t0 = time.monotonic()
    with open(os.path.join(d, "stdout"), "wb") as out, \
            open(os.path.join(d, "stderr"), "wb") as err:
        # Every process of the run carries the mark, so that one left behind is found.
        env = dict(os.environ, BROKEN_RUN_MARK=d)
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        # The limit: every scenario may wait out one deadline twice, and a little more.
        limit = 6 * timeout + 60
        code, rss = None, 0
        while code is None:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                code = os.waitstatus_to_exitcode(status)
                rss = usage.ru_maxrss
                break
            if time.monotonic() - t0 > limit:
                p.kill()
                _, status, usage = os.wait4(p.pid, 0)
                code, rss = "killed", usage.ru_maxrss
                break
            time.sleep(0.05)
        # Reaped above: Popen must not wait for it again.
        p.returncode = code if isinstance(code, int) else -9
    secs = time.monotonic() - t0
    return d, code, rss, secs, limit


def left_behind(d):
    """The processes of the run still there a moment after the runner ended."""
    mark = ("BROKEN_RUN_MARK=%s" % d).encode()
    for _ in range(10):
        found = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/environ" % pid, "rb") as fh:
                    if mark in fh.read().split(b"\0"):
                        found.append(int(pid))
            except OSError:
                pass
        if not found:
            return []
        time.sleep(0.2)
    return found


def read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def judge(mode, d, code, rss, secs, limit):
    """What the runner got wrong, as a list of sentences."""
    wrong = []
    err = read(os.path.join(d, "stderr"))
    text = read(os.path.join(d, "stdout"))
    if code == "killed":
        wrong.append("did not end within %d s" % limit)
    if "panicked" in err or code == 101:
        wrong.append("panicked: %s" % next(
            (l for l in err.splitlines() if "panicked" in l), "exit 101"))
    want_code = 0 if mode.kind in ("unsupported", "pass") else 1
    if code != want_code and code != "killed" and mode.victim != "setup":
        wrong.append("exit status %s, expected %d" % (code, want_code))
    if rss > MAX_RSS_KIB:
        wrong.append("grew to %d MiB" % (rss // 1024))
    stray = left_behind(d)
    if stray:
        wrong.append("left processes behind: %s" % stray)
        for pid in stray:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
    if mode.victim == "setup":
        # The handshake failed: the suite could not run (CONF-REP-004).
        if code != 2 and code != "killed":
            wrong.append("exit status %s, expected 2" % code)
        if not re.search(mode.says, err):
            wrong.append("the runner's error does not say /%s/: %s" % (
                mode.says, err.strip()[-200:]))
        return wrong + judge_setup(mode, d, text)
    try:
        report = json.loads(read(os.path.join(d, "r.json")))
    except ValueError:
        return wrong + ["no JSON report"]
    order = [s["id"] for s in report.get("scenarios", [])]
    target = where(mode)[1]
    if target not in order[1:-1]:
        return wrong + ["the report holds %s, expected scenarios around %s" % (order, target)]
    at = order.index(target)
    # A mode the protocol allows fails no scenario.
    victim = None if mode.kind == "pass" else \
        order[{"first": 0, "this": at, "next": at + 1}[mode.victim]]
    seen = {s["id"]: s for s in report.get("scenarios", [])}
    for name in order:
        s = seen.get(name)
        if s is None:
            wrong.append("%s: not in the report" % name)
        elif name != victim and s["verdict"] != "pass":
            wrong.append("%s: %s, expected pass with a fresh device (%s)" % (
                name, s["verdict"], (s.get("error") or {}).get("message")
                or (s.get("first_divergence") or {}).get("what")))
    s = seen.get(victim)
    if s is not None:
        wrong += judge_victim(mode, s, victim, text, read(os.path.join(d, "r.xml")))
    return wrong


def judge_setup(mode, d, text):
    """The reports of a run whose first hello failed (CONF-ADP-024): every scenario fails
    with that failure as its reason, at no time, in JSON, JUnit and the text table."""
    try:
        report = json.loads(read(os.path.join(d, "r.json")))
    except ValueError:
        return ["no JSON report"]
    wrong = []
    scenarios = report.get("scenarios", [])
    if not scenarios:
        wrong.append("the JSON report holds no scenario")
    for s in scenarios:
        e = s.get("error") or {}
        if s.get("verdict") != "fail" or e.get("at") is not None or \
                not re.search(mode.says, e.get("message", "")):
            wrong.append("%s: %s, not failed by the hello: %s" % (
                s.get("id"), s.get("verdict"), e.get("message", "")[:200]))
    try:
        root = ET.fromstring(read(os.path.join(d, "r.xml")))
        cases = list(root.iter("testcase"))
        if len(cases) != len(scenarios) or any(c.find("failure") is None for c in cases):
            wrong.append("JUnit: %d test cases, not each a failure" % len(cases))
    except ET.ParseError:
        wrong.append("no JUnit report")
    if "device " not in text:
        wrong.append("the text report does not show the device failure")
    return wrong


def judge_victim(mode, s, victim, text, junit):
    wrong = []
    kinds = mode.kind.split("|")
    e = s.get("error")
    # What the device wrote is quoted, not copied whole into the reports.
    said = json.dumps(s)
    if len(said) > MAX_REPORT_CHARS:
        wrong.append("%s: its report is %d characters long" % (victim, len(said)))
    if mode.kind == "unsupported":
        if s["verdict"] != "unsupported":
            wrong.append("%s: %s, expected unsupported" % (victim, s["verdict"]))
        return wrong
    if s["verdict"] != "fail":
        wrong.append("%s: %s, expected fail" % (victim, s["verdict"]))
    if e is None:
        if "divergence" not in kinds:
            wrong.append("%s: no device error, expected %s" % (victim, mode.kind))
        elif not s.get("first_divergence"):
            wrong.append("%s: neither a device error nor a divergence" % victim)
        return wrong
    if e["kind"] not in kinds:
        wrong.append("%s: device %s, expected %s: %s" % (victim, e["kind"], mode.kind,
                                                        e["message"][:200]))
    # Where: the answer the runner waited for, and for a protocol error the line.
    # An `error` answer is reported in the device's own words.
    where = {"protocol": r"line \d+ of the device's output, waiting for ",
             "timeout": r"waiting for ", "crash": r"waited for "}[e["kind"]] \
        if e["kind"] in kinds and not mode.own_words else ""
    if not re.search(where, e["message"]):
        wrong.append("%s: the message does not say where: %s" % (victim, e["message"][:200]))
    if not re.search(mode.says, e["message"]):
        wrong.append("%s: the message does not say /%s/: %s" % (victim, mode.says,
                                                               e["message"][:200]))
    if s.get("divergences") or s.get("first_divergence"):
        wrong.append("%s: a divergence beside the device error" % victim)
    line = "device %s:" % e["kind"]
    if line not in text:
        wrong.append("%s: the text report does not show `%s`" % (victim, line))
    try:
        root = ET.fromstring(junit)
        case = next(c for c in root.iter("testcase") if c.get("name") == victim)
        f = case.find("failure")
        if f is None or f.get("type") != e["kind"] or not f.get("message", "").startswith(line):
            wrong.append("%s: JUnit has no failure of type %s" % (victim, e["kind"]))
    except (ET.ParseError, StopIteration):
        wrong.append("%s: no JUnit test case" % victim)
    return wrong


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--openrdma", default=os.path.join(ROOT, "target", "release", "openrdma"))
    ap.add_argument("--only", nargs="*", help="only these broken modes")
    ap.add_argument("--timeout", type=int, default=2, help="the runner's deadline, seconds")
    ap.add_argument("--md", help="write the table as markdown")
    ap.add_argument("--workdir", help="where reports go (a temporary directory)")
    ap.add_argument("--check", action="store_true",
                    help="exit with 1 unless the runner survives every mode")
    a = ap.parse_args(argv)
    modes = [m for n, m in broken.BROKEN.items() if not a.only or n in a.only]
    unknown = set(a.only or ()) - set(broken.BROKEN)
    if unknown:
        ap.error("no broken mode named %s" % ", ".join(sorted(unknown)))
    workdir = a.workdir or tempfile.mkdtemp(prefix="broken-")
    rows = []
    for m in modes:
        timeout = max(a.timeout, 30) if m.slow else a.timeout
        d, code, rss, secs, limit = run_mode(a.openrdma, m, workdir, timeout)
        wrong = judge(m, d, code, rss, secs, limit)
        rows.append((m, code, rss, secs, wrong))
        print("%-28s %-6s %5.1f s %5d MiB  %s" % (
            m.name, "ok" if not wrong else "WRONG", secs, rss // 1024,
            "; ".join(wrong)), flush=True)
    bad = [r for r in rows if r[4]]
    print("survived %d of %d broken modes" % (len(rows) - len(bad), len(rows)))
    if a.md:
        with open(a.md, "w") as fh:
            fh.write("| broken mode | fails as | survived | what went wrong |\n")
            fh.write("|---|---|---|---|\n")
            for m, _code, _rss, _secs, wrong in rows:
                fh.write("| `%s` | %s | %s | %s |\n" % (
                    m.name, m.kind, "yes" if not wrong else "**no**",
                    "; ".join(wrong).replace("|", "\\|")))
    return 1 if a.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
