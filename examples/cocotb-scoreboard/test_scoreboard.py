"""A cocotb testbench whose scoreboard is the OpenRDMA golden model.

The device under test is examples/rtl-receiver/rtl/mrc_rx_reliability.v, the packet-
reliability half of an MRC responder. Every packet it is given is also given, as the whole
frame, to the golden model (libopenrdma.so, through ctypes); after each packet, and each
time the RTL's SACK timer falls due, the scoreboard compares what the two decided:

  * the packet's fate: accepted (the golden model writes its payload), duplicate (answered
    with a SACK it triggered), out of window (NACK PSN_OOR_WINDOW), no access (the golden
    model's transport NAK), or discarded;
  * every SACK and NACK, in order, field by field: destination QP, cumulative PSN, the PSNs
    the bitmap acknowledges, ack_psn_offset, entropy, mpr and the CC_STATE counters; the
    NACK's PSN and reason.

Two tests: `corpus_scenarios` replays the corpus's receiver scenarios that are within the
RTL's scope (examples/rtl-receiver/scope.txt), and `random_traffic` runs a golden-model
sender through a random fabric (reordering, loss, duplicates) into the RTL and the golden
receiver, feeding the golden receiver's acknowledgements back to the sender.
"""

import heapq
import os
import random
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge

import openrdma_golden as golden
import scenario_file

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "traces" / "scenarios"
SCOPE = ROOT / "examples" / "rtl-receiver" / "scope.txt"
PSN_MASK = 0xFFFFFF

# The RTL's verdicts, and the fate each stands for.
VERDICTS = ["accept", "duplicate", "out_of_window", "unknown_qp", "not_a_write", "too_long",
            "short_segment", "no_access"]
FATE_OF_VERDICT = {"accept": "accepted", "duplicate": "duplicate",
                   "out_of_window": "out_of_window", "no_access": "no_access"}
NACK_PSN_OOR_WINDOW = 0x0B
AETH_NAK_REMOTE_ACCESS = 0x62
OPCODE_SACK, OPCODE_NACK = 0xDC, 0xDD


def signed16(v):
    return v - 0x10000 if v & 0x8000 else v


# ----- the RTL: driver and monitor -----------------------------------------------------


class Rtl:
    """Drives mrc_rx_reliability and records what it says. Inputs change on falling edges
    and outputs are sampled there, one coroutine doing both, so nothing races."""

    def __init__(self, dut):
        self.dut = dut
        self.verdicts = []
        self.responses = []

    async def start(self, nic):
        """Starts the clock and resets the block with the configuration `nic`."""
        cocotb.start_soon(Clock(self.dut.clk, 2, unit="ns").start())
        await self.reset(nic)

    async def reset(self, nic):
        """A fresh block (empty tables, time 0) configured by `nic` (NicConfig fields)."""
        d = self.dut
        for name in ("pkt_valid", "qp_create", "mr_register"):
            getattr(d, name).value = 0
        d.rsp_ready.value = 1
        d.now_ns.value = 0
        d.cfg_mpr.value = nic["mpr"]
        d.cfg_pmtu.value = nic["pmtu"]
        d.cfg_sack_coalesce.value = nic["sack_coalesce"]
        d.cfg_sack_delay_ns.value = nic["sack_delay"]
        d.rst.value = 1
        await self._cycle()
        await self._cycle()
        d.rst.value = 0
        await self._cycle()
        self._take()

    async def _cycle(self):
        """One clock: to the next falling edge, sampling the outputs there."""
        await FallingEdge(self.dut.clk)
        d = self.dut
        if int(d.verdict_valid.value):
            self.verdicts.append(VERDICTS[int(d.verdict.value)])
        if int(d.rsp_valid.value) and int(d.rsp_ready.value):
            self.responses.append({
                "nack": bool(int(d.rsp_is_nack.value)),
                "dest_qp": int(d.rsp_dest_qp.value),
                "psn": int(d.rsp_psn.value),
                "ev": int(d.rsp_ev.value),
                "tx_timestamp": int(d.rsp_tx_timestamp.value),
                "ack_psn_offset": signed16(int(d.rsp_ack_psn_offset.value)),
                "sack_bitmap": int(d.rsp_sack_bitmap.value),
                "mpr": int(d.rsp_mpr.value),
                "ooo_count": int(d.rsp_ooo_count.value),
                "rcvd_bytes": int(d.rsp_rcvd_bytes.value),
                "reason": int(d.rsp_nack_reason.value),
            })

    async def _settle(self):
        for _ in range(10_000):
            if not int(self.dut.busy.value):
                return
            await self._cycle()
        raise AssertionError("the RTL stays busy")

    def _take(self):
        v, r = self.verdicts, self.responses
        self.verdicts, self.responses = [], []
        return v, r

    async def create_qp(self, qpn, peer_qpn, epsn):
        d = self.dut
        d.qp_create_qpn.value, d.qp_create_peer_qpn.value = qpn, peer_qpn
        d.qp_create_epsn.value = epsn
        d.qp_create.value = 1
        await self._cycle()
        d.qp_create.value = 0

    async def register_region(self, rkey, base, length, writable):
        d = self.dut
        d.mr_rkey.value, d.mr_base.value = rkey, base
        d.mr_len.value, d.mr_remote_write.value = length, int(writable)
        d.mr_register.value = 1
        await self._cycle()
        d.mr_register.value = 0

    async def set_time(self, t):
        """Time moves to t; returns the responses of the SACK timers that fell due."""
        self.dut.now_ns.value = t
        await self._cycle()
        await self._settle()
        return self._take()[1]

    async def packet(self, f):
        """Offers a packet (golden.FrameFields) at the current time; returns its verdict
        and the responses it caused."""
        d = self.dut
        d.pkt_opcode.value, d.pkt_dest_qp.value, d.pkt_psn.value = f.opcode, f.dest_qp, f.psn
        d.pkt_ack_req.value, d.pkt_rtx.value = int(f.ack_req), int(f.rtx)
        d.pkt_ev.value = f.entropy
        d.pkt_tx_timestamp.value = f.tx_timestamp if f.has_tseth else 0
        d.pkt_va.value, d.pkt_rkey.value = f.va, f.rkey
        d.pkt_payload_len.value = min(f.payload_len, 0xFFFF)
        d.pkt_valid.value = 1  # pkt_ready is high: the block is idle and no timer is due
        await self._cycle()
        d.pkt_valid.value = 0
        await self._settle()
        verdicts, responses = self._take()
        assert len(verdicts) == 1, f"{len(verdicts)} verdicts for one packet"
        return verdicts[0], responses

    def timer_deadline(self):
        return int(self.dut.timer_deadline.value) if int(self.dut.timer_pending.value) else None


# ----- the scoreboard ------------------------------------------------------------------


def golden_response(o):
    """A SACK or NACK frame of the golden model, in the RTL's terms (None otherwise)."""
    f, j = o.frame, o.json
    if f.has_seth:
        base = f.cack_psn + f.sack_offset
        return {
            "nack": False, "dest_qp": f.dest_qp, "psn": f.cack_psn,
            "ev": j["seth"]["entropy"], "tx_timestamp": j["cc_state"]["tx_timestamp"],
            "ack_psn_offset": f.ack_psn_offset, "mpr": f.mpr,
            "ooo_count": j["cc_state"]["ooo_count"], "rcvd_bytes": j["cc_state"]["rcvd_bytes"],
            "acked": {(base + i) & PSN_MASK for i in range(64) if f.sack_bitmap >> i & 1},
            "bitmap_base": base & PSN_MASK,
        }
    if f.has_neth:
        return {"nack": True, "dest_qp": f.dest_qp, "psn": f.nack_psn,
                "ev": j["neth"]["entropy"], "reason": f.nack_reason}
    return None


def rtl_acked(r):
    """The PSNs an RTL SACK's bitmap acknowledges: bit i is cack_psn + 1 + i."""
    return {(r["psn"] + 1 + i) & PSN_MASK for i in range(64) if r["sack_bitmap"] >> i & 1}


def in_range(psn, base, n=64):
    return (psn - base) & PSN_MASK < n


class Scoreboard:
    """Compares the RTL with the golden model, step by step."""

    SACK_FIELDS = ("dest_qp", "psn", "ev", "tx_timestamp", "ack_psn_offset", "mpr",
                   "ooo_count", "rcvd_bytes")
    NACK_FIELDS = ("dest_qp", "psn", "ev", "reason")

    def __init__(self, name, log):
        self.name = name
        self.log = log
        self.mismatches = []
        self.compared = {"packets": 0, "sacks": 0, "nacks": 0}
        self.fates = {}
        self.accepted = set()  # (qpn, psn) the golden model accepted

    def mismatch(self, at, text):
        self.mismatches.append(f"{self.name} at {at} ns: {text}")
        self.log.error("MISMATCH %s at %d ns: %s", self.name, at, text)

    def compare_responses(self, at, outputs, rtl_responses, what):
        want = [g for g in (golden_response(o) for o in outputs if o.kind == golden.KIND_FRAME)
                if g is not None]
        if len(want) != len(rtl_responses):
            self.mismatch(at, f"{what}: the golden model sent {len(want)} SACK/NACK "
                              f"{want}, the RTL {len(rtl_responses)} {rtl_responses}")
            return
        for g, r in zip(want, rtl_responses):
            kind = "NACK" if g["nack"] else "SACK"
            if g["nack"] != r["nack"]:
                self.mismatch(at, f"{what}: the golden model sent a {kind}, the RTL not")
                continue
            self.compared["nacks" if g["nack"] else "sacks"] += 1
            fields = self.NACK_FIELDS if g["nack"] else self.SACK_FIELDS
            for k in fields:
                if g[k] != r[k]:
                    self.mismatch(at, f"{what}: {kind} {k}: golden {g[k]}, RTL {r[k]}")
            if not g["nack"]:
                # Compare the acknowledged PSNs over the range both bitmaps cover.
                mine = {p for p in rtl_acked(r) if in_range(p, g["bitmap_base"])}
                theirs = {p for p in g["acked"] if in_range(p, (r["psn"] + 1) & PSN_MASK)}
                if mine != theirs:
                    self.mismatch(at, f"{what}: SACK bitmap after cack_psn {g['psn']}: golden "
                                      f"acknowledges {sorted(theirs)}, RTL {sorted(mine)}")

    def golden_fate(self, f, outputs):
        """What the golden model did with packet f, from what it produced."""
        qpn, psn = f.dest_qp, f.psn
        if any(o.kind == golden.KIND_DMA_WRITE and o.qpn == qpn and o.dma_write.psn == psn
               for o in outputs):
            return "accepted"
        frames = [o.frame for o in outputs if o.kind == golden.KIND_FRAME]
        if any(x.has_neth and x.nack_psn == psn and x.nack_reason == NACK_PSN_OOR_WINDOW
               for x in frames):
            return "out_of_window"
        if any(x.has_aeth and x.aeth_syndrome == AETH_NAK_REMOTE_ACCESS for x in frames):
            return "no_access"
        sacks = [x for x in frames if x.has_seth and answers(x.cack_psn, x.ack_psn_offset, psn)]
        if sacks:
            # A write without payload has no DMA write: accepted the first time only, and
            # never when it lies behind the SACK's cack_psn.
            behind = signed24(psn - sacks[0].cack_psn) < 0
            if f.payload_len == 0 and (qpn, psn) not in self.accepted and not behind:
                return "accepted"
            return "duplicate"
        return "discarded"

    def packet(self, at, f, outputs, verdict, rtl_responses):
        self.compared["packets"] += 1
        fate = self.golden_fate(f, outputs)
        if fate == "accepted":
            self.accepted.add((f.dest_qp, f.psn))
        self.fates[fate] = self.fates.get(fate, 0) + 1
        rtl_fate = FATE_OF_VERDICT.get(verdict, "discarded")
        if fate != rtl_fate:
            self.mismatch(at, f"PSN {f.psn} to QP {f.dest_qp}: golden {fate}, "
                              f"RTL {verdict}")
        self.compare_responses(at, outputs, rtl_responses, f"packet PSN {f.psn}")

    def check(self):
        self.log.info("%s: compared %s; golden fates %s", self.name, self.compared, self.fates)
        assert not self.mismatches, (
            f"{len(self.mismatches)} mismatches; the first: " + "; ".join(self.mismatches[:5]))


class Bench:
    """The RTL and the golden receiver, driven together through time."""

    def __init__(self, rtl, model, board):
        self.rtl, self.model, self.board = rtl, model, board

    async def until(self, t):
        """Lets both run to t, stopping at every SACK timer of the RTL on the way."""
        while (d := self.rtl.timer_deadline()) is not None and d < t:
            await self.step(d)
        await self.step(t)

    async def step(self, t):
        responses = await self.rtl.set_time(t)
        self.model.advance(t)
        self.board.compare_responses(t, self.model.pop(), responses, "timer")

    async def frame(self, t, port, data):
        """A frame arriving at t: the whole frame to the golden model, its fields to the
        RTL (a frame that is not RoCEv2, or whose ICRC is bad, never reaches it: the MAC
        drops it). Returns the golden model's outputs."""
        await self.until(t)
        f = golden.decode_frame(data)
        self.model.push_frame(t, port, data)
        outputs = self.model.pop()
        if f.has_bth and f.icrc_ok:
            verdict, responses = await self.rtl.packet(f)
            self.board.packet(t, f, outputs, verdict, responses)
        else:
            self.board.compare_responses(t, outputs, [], "a frame the MAC drops")
        return outputs

    async def drain(self, t_end):
        """Runs both to t_end, then past every timer the RTL still has."""
        await self.until(t_end)
        while (d := self.rtl.timer_deadline()) is not None:
            await self.step(max(d, t_end))
            t_end = max(d, t_end)


async def configure(rtl, model, at, command):
    """A host command to both sides; False when the RTL cannot take it."""
    c = command["command"]
    st = model.push_host(at, command, refused_ok=True)
    if st == golden.REFUSED:
        return True
    if c == "create_qp":
        await rtl.create_qp(command["qpn"], command["peer_qpn"], command["peer_initial_psn"])
    elif c == "register_region":
        await rtl.register_region(command["rkey"], command["base"], command["len"],
                                  command["remote_write"])
    else:
        return False
    return True


# ----- which corpus scenarios the RTL can run -------------------------------------------


def scope():
    status = {}
    for line in SCOPE.read_text().splitlines():
        parts = line.split()
        if parts and not line.startswith("#") and len(parts) >= 2:
            status[parts[0]] = parts[1]
    return status


def signed24(d):
    """A PSN distance as a signed 24-bit number."""
    d &= PSN_MASK
    return d - (1 << 24) if d >= 1 << 23 else d


def answers(cack, offset, psn):
    """Whether a SACK with pr 0 names psn as its trigger: cack + offset is psn, or psn is
    too far from cack for 16 bits and the offset is that distance clamped
    (SETH-ACKPSN-003)."""
    if (cack + offset) & PSN_MASK == psn:
        return True
    d = signed24(psn - cack)
    return not -32768 <= d <= 32767 and offset == (-32768 if d < 0 else 32767)


def in_scope(s, status, max_mpr, num_qps, num_regions):
    """Why the RTL cannot run scenario s, or None when it can."""
    m = s.manifest
    # Retirement is another block; the scoreboard compares none of its outputs.
    if not set(m.get("requires", [])) <= {"responder", "retirement", "shared-retirement",
                                          "per-qp-retirement", "write-immediate", "ipv4",
                                          "ipv6"}:
        return f"requires {m.get('requires')}"
    for req in m["requirements"]:
        st = status.get(req)
        if st == "declined" or (st is None and req.startswith("RCV-")):
            return f"{req} is out of the RTL's scope"
    if m.get("nic", {}).get("mpr", 2) > max_mpr:
        return "a window larger than the RTL's"
    hosts = [r.body["command"] for r in s.records if r.inject and r.kind == "host"]
    if any(c not in ("create_qp", "register_region") for c in hosts):
        return "host commands other than create_qp and register_region"
    if hosts.count("create_qp") > num_qps or hosts.count("register_region") > num_regions:
        return "more QPs or regions than the RTL's tables hold"
    if any(r.inject and r.kind == "cpu" for r in s.records):
        return "commands of the CPU half"
    return None


# ----- the tests -------------------------------------------------------------------------


def nic_defaults(manifest):
    nic = {"pmtu": 4096, "mpr": 2, "sack_coalesce": 4, "sack_delay": 1000}
    nic.update(manifest.get("nic", {}))
    return nic


@cocotb.test()
async def corpus_scenarios(dut):
    """Every corpus scenario within the RTL's scope, through the RTL and the golden model."""
    status = scope()
    params = {k: int(getattr(dut, k).value) for k in ("MAX_MPR", "NUM_QPS", "NUM_REGIONS")}
    only = os.environ.get("SCENARIOS", "").split()
    names = only or sorted(p.stem for p in SCENARIOS.glob("rcv-*.toml"))
    rtl = Rtl(dut)
    first = True
    boards = []
    for name in names:
        s = scenario_file.load(SCENARIOS / name)
        why = in_scope(s, status, params["MAX_MPR"], params["NUM_QPS"], params["NUM_REGIONS"])
        if why:
            dut._log.info("%s: skipped, %s", name, why)
            continue
        nic = nic_defaults(s.manifest)
        if first:
            await rtl.start(nic)
            first = False
        else:
            await rtl.reset(nic)  # a fresh device for every scenario
        board = Scoreboard(name, dut._log)
        model = golden.GoldenModel(s.manifest)
        bench = Bench(rtl, model, board)
        await rtl.set_time(0)
        for r in s.records:
            if not r.inject:
                continue
            if r.kind == "host":
                await bench.until(r.at)
                assert await configure(rtl, model, r.at, r.body)
            elif r.kind == "frame":
                await bench.frame(r.at, r.port, r.data)
        end = max(r.at for r in s.records)
        await bench.drain(end + s.manifest.get("tolerances", {}).get("drain_ns", 200_000))
        model.close()
        boards.append(board)
        dut._log.info("%s: compared %s; golden fates %s; %d mismatches", name,
                      board.compared, board.fates, len(board.mismatches))
    assert boards, "no scenario of the corpus is within the RTL's scope"
    failed = [b for b in boards if b.mismatches]
    dut._log.info("%d scenarios compared, %d with mismatches", len(boards), len(failed))
    assert not failed, "mismatches in " + "; ".join(
        f"{b.name} ({len(b.mismatches)}, first: {b.mismatches[0]})" for b in failed)


@cocotb.test()
async def random_traffic(dut):
    """A golden-model sender sprays random traffic through a lossy, reordering fabric."""
    seed = int(os.environ.get("SEED") or 1)
    rng = random.Random(seed)
    dut._log.info("random_traffic: seed %d (SEED=%d reproduces it)", seed, seed)
    pmtu, first_psn = 256, PSN_MASK - 40  # the PSNs wrap during the run
    region = {"command": "register_region", "rkey": 0x1234, "base": 0x1000_0000,
              "len": 1 << 24, "remote_write": True}
    evs = [0xC000_0000 + (i << 16) for i in range(8)]
    qp = {"command": "create_qp", "initial_psn": first_psn, "peer_initial_psn": first_psn,
          "evs": evs, "recv_flag_base": 0x2000_0000, "recv_flag_slots": 256,
          "send_flag_base": 0x3000_0000, "send_flag_slots": 256}

    def manifest(name, mpr, link):
        return {"name": name, "description": "cocotb random traffic", "requirements": [],
                "ports": 4, "link": link,
                "nic": {"pmtu": pmtu, "mpr": mpr, "sack_coalesce": 4, "sack_delay": 1000}}

    a, b = "10.0.0.1", "10.0.0.2"
    mac_a, mac_b = "02:00:00:00:00:01", "02:00:00:00:00:02"
    # The receiver's window (mpr 1: 128 PSNs) is half the sender's, so that some packets
    # arrive beyond it.
    receiver = golden.GoldenModel(manifest("receiver", 1, {
        "local_mac": mac_a, "peer_mac": mac_b, "local_ip": a, "peer_ip": b}))
    sender = golden.GoldenModel(manifest("sender", 2, {
        "local_mac": mac_b, "peer_mac": mac_a, "local_ip": b, "peer_ip": a}))
    rtl = Rtl(dut)
    await rtl.start({"pmtu": pmtu, "mpr": 1, "sack_coalesce": 4, "sack_delay": 1000})
    board = Scoreboard("random_traffic", dut._log)
    bench = Bench(rtl, receiver, board)
    await configure(rtl, receiver, 0, region)
    await configure(rtl, receiver, 0, dict(qp, qpn=17, peer_qpn=33))
    sender.push_host(0, region)
    sender.push_host(0, dict(qp, qpn=33, peer_qpn=17))

    # Messages of random lengths, at once, until they make twice as many packets as the
    # receiver's window holds.
    messages, packets = 0, 0
    while packets < 2 * 128:
        k = messages
        length = rng.choice([0, 1, pmtu - 1, pmtu, pmtu + 1, rng.randrange(1, 24 * pmtu)])
        messages += 1
        packets += max(1, -(-length // pmtu))
        sender.push_host(100, {
            "command": "post_write", "wr_id": k, "qpn": 33, "opcode": 0,
            "local_va": 0x4000_0000 + k * 0x1_0000, "lkey": 1,
            "remote_va": 0x1000_0000 + k * 0x1_0000, "rkey": 0x1234, "length": length,
            "imm": None, "flag_slot": k, "signaled": True})

    tick, t_end = 100, 400_000
    fabric = []  # (time, seq, to_receiver, frame)
    seq = 0
    completions = 0
    t = 100
    while t <= t_end and completions < messages:
        sender.advance(t)
        for o in sender.pop():
            if o.kind == golden.KIND_COMPLETION:
                completions += 1
            if o.kind != golden.KIND_FRAME:
                continue
            roll = rng.random()
            if roll < 0.05:
                continue  # lost
            copies = 2 if roll < 0.10 else 1  # duplicated
            for _ in range(copies):
                seq += 1
                delay = tick * rng.randrange(2, 30)  # 200 ns to 3 us: reordering
                heapq.heappush(fabric, (t + delay, seq, True, o.data))
        await bench.until(t)
        while fabric and fabric[0][0] <= t:
            _, _, to_receiver, data = heapq.heappop(fabric)
            if to_receiver:
                for o in await bench.frame(t, 0, data):
                    if o.kind == golden.KIND_FRAME:
                        seq += 1
                        heapq.heappush(fabric, (t + 3 * tick, seq, False, o.data))
            else:
                sender.push_frame(t, 0, data)
        t += tick
    await bench.drain(t)
    dut._log.info("random_traffic: %d of %d messages completed by %d ns", completions,
                  messages, t)
    receiver.close()
    sender.close()
    board.check()
    # The traffic must have exercised what the scoreboard is for.
    for fate in ("accepted", "duplicate", "out_of_window"):
        assert board.fates.get(fate, 0) > 0, f"no {fate} packet in the run: {board.fates}"
    assert board.compared["sacks"] > 0 and board.compared["nacks"] > 0, board.compared
