//! The `receiver` target: one responder NIC under hostile writes, probes and timeouts.

use super::*;

/// The opcodes of MRC writes, for input records.
const WRITE_OPS: [Opcode; 6] = [
    Opcode::MRC_WRITE_FIRST,
    Opcode::MRC_WRITE_MIDDLE,
    Opcode::MRC_WRITE_LAST,
    Opcode::MRC_WRITE_LAST_IMM,
    Opcode::MRC_WRITE_ONLY,
    Opcode::MRC_WRITE_ONLY_IMM,
];

/// What the receiver body has seen of the NIC's outputs, for the checks.
#[derive(Debug, Default)]
struct Placement {
    /// (qpn, psn) placed.
    placed: HashSet<(u32, u32)>,
    /// Bytes placed per (qpn, msn).
    bytes: HashMap<(u32, Msn), u64>,
    /// (qpn, msn) whose responder flag was written.
    retired: HashSet<(u32, Msn)>,
    /// Next MSN to retire per retirement domain.
    next_flag: HashMap<u32, Msn>,
    /// Whether a QP failed, so that retirement may skip its purged MSNs.
    any_failed: bool,
}

impl Placement {
    /// Checks DMA writes and responder flags. `domain` maps a QPN to its domain.
    fn record(&mut self, out: &Out, pmtu: u32, domain: impl Fn(u32) -> u32) {
        for d in &out.dma {
            let (q, len) = (d.qpn.value(), u64::from(d.payload.len()));
            assert!(
                d.va >= REGION_BASE
                    && d.va.checked_add(len).is_some_and(|e| e <= REGION_BASE + REGION_LEN),
                "RCV-PLACE-003: DMA write of {len} bytes at {:#x} outside the writable region",
                d.va
            );
            assert!(len <= u64::from(pmtu), "RCV-SEG-001: DMA write of {len} bytes > PMTU");
            assert!(
                !self.retired.contains(&(q, d.msn)),
                "FLAG-LAST-002: DMA write for QP {q:#x} MSN {} after its flag (PSN {})",
                d.msn,
                d.psn
            );
            assert!(
                self.placed.insert((q, d.psn.value())),
                "RCV-DUP-001: PSN {} of QP {q:#x} placed twice",
                d.psn
            );
            *self.bytes.entry((q, d.msn)).or_default() += len;
        }
        for f in out.flags.iter().filter(|f| f.side == Side::Responder) {
            let q = f.qpn.value();
            assert!(
                self.retired.insert((q, f.msn)),
                "RET-ORDER-001: QP {q:#x} MSN {} retired twice",
                f.msn
            );
            let placed = self.bytes.get(&(q, f.msn)).copied().unwrap_or(0);
            let flag = FlagRepr::from_u64(f.value);
            assert_eq!(
                u64::from(flag.byte_len),
                placed,
                "FLAG-RECV-002: flag of QP {q:#x} MSN {} reports {} bytes, {placed} were placed",
                f.msn,
                flag.byte_len
            );
            let next = self.next_flag.entry(domain(q)).or_insert(Msn::ZERO);
            if self.any_failed {
                // RET-ERR-001: MSNs purged with a failed QP are skipped, never revisited.
                assert!(
                    next.is_at_or_before(f.msn),
                    "RET-ORDER-001: MSN {} retired after MSN {}",
                    f.msn,
                    next.prev()
                );
            } else {
                assert_eq!(f.msn, *next, "RET-ORDER-001: retirement out of MSN order");
            }
            *next = f.msn.next();
        }
    }
}

#[derive(Debug)]
struct Receiver {
    nic: Nic,
    now: Timestamp,
    pmtu: u32,
    window: u32,
    per_qp: bool,
    qps: Vec<u32>,
    check: Placement,
    /// Writes injected lately, for duplicates.
    history: VecDeque<(Ev, Packet)>,
    /// The next MSN and RQMSN a well-behaved sender would use, per QP.
    next_msn: HashMap<u32, Msn>,
    next_rqmsn: HashMap<u32, Rqmsn>,
    bound: usize,
}

impl Receiver {
    fn domain(&self) -> impl Fn(u32) -> u32 + use<> {
        let per_qp = self.per_qp;
        move |q| if per_qp { q } else { 0 }
    }

    fn epsn(&self, q: u32) -> Psn {
        self.nic.expected_psn(Qpn::new(q)).unwrap_or(Psn::ZERO)
    }

    /// Injects one packet and checks everything the body promises about it.
    fn inject(&mut self, ev: Ev, p: &Packet) {
        let qs: Vec<QpState> = self.qps.iter().map(|&q| qp_state(&self.nic, q)).collect();
        let stats = self.nic.stats().clone();
        let entries = self.nic.peer_driven_entries();
        let r = self.nic.handle_packet(self.now, ev, p);
        let out = drain(&mut self.nic, self.now);
        let dest = p.dest_qp();
        match &r {
            Ok(()) => {
                for (k, &q) in self.qps.iter().enumerate() {
                    let (Some(a), Some(b)) = (qs[k].epsn, self.nic.expected_psn(Qpn::new(q)))
                    else {
                        continue;
                    };
                    let moved = b.distance(a);
                    assert!(
                        (0..=self.window as i32).contains(&moved),
                        "RCV-WIN-001: epsn of QP {q:#x} moved from {a} to {b}"
                    );
                }
            }
            Err(HostOrPeer::Peer(PeerViolation::WwiLimit { qpn, .. })) => {
                // WWI-LIMIT-002 is fatal: the QP goes to error. Nothing of this packet is
                // placed; other QPs of a shared domain may retire (RET-ERR-001).
                assert_eq!(*qpn, dest);
                assert_eq!(self.nic.qp_in_error(dest), Some(true), "WWI-LIMIT-002");
                assert!(out.dma.is_empty(), "WWI-LIMIT-002: the refused packet was placed");
                assert!(
                    out.flags.iter().all(|f| f.qpn != dest),
                    "WWI-LIMIT-002: flag of the failed QP"
                );
                let nacked = out.tx.iter().any(|t| {
                    matches!(&t.packet, Packet::Nack { neth, .. }
                        if neth.reason == NackReason::UNEXP_EVENT && neth.nack_psn == p.psn())
                });
                assert!(nacked, "WWI-LIMIT-002: no NACK UNEXP_EVENT for PSN {}", p.psn());
                self.check.any_failed = true;
            }
            Err(HostOrPeer::Peer(v)) => {
                // A refused packet changes nothing (error.rs); the only outputs are the
                // responses the specification requires.
                let after: Vec<QpState> =
                    self.qps.iter().map(|&q| qp_state(&self.nic, q)).collect();
                assert_eq!(
                    qs,
                    after,
                    "{}: a refused packet changed QP state ({v})",
                    v.requirement()
                );
                assert_eq!(
                    stats_of_refusal(&stats),
                    stats_of_refusal(self.nic.stats()),
                    "{}: a refused packet changed counters ({v})",
                    v.requirement()
                );
                assert!(
                    self.nic.stats().violations - stats.violations <= 1,
                    "violations counted twice"
                );
                assert_eq!(
                    entries,
                    self.nic.peer_driven_entries(),
                    "{}: state grew",
                    v.requirement()
                );
                assert!(
                    out.dma.is_empty() && out.flags.is_empty() && out.completions.is_empty(),
                    "{}: a refused packet was placed or retired ({v}): {out:?}",
                    v.requirement()
                );
                match v {
                    PeerViolation::OutOfWindow { psn, .. } => {
                        assert_eq!(out.tx.len(), 1, "RCV-WIN-002: one NACK");
                        let oor = NackReason::PSN_OOR_WINDOW;
                        assert!(
                            matches!(&out.tx[0].packet, Packet::Nack { neth, .. }
                                if neth.reason == oor && neth.nack_psn == *psn),
                            "RCV-WIN-002: expected NACK PSN_OOR_WINDOW, got {:?}",
                            out.tx[0].packet
                        );
                    }
                    PeerViolation::RemoteAccess { .. } => {
                        assert_eq!(out.tx.len(), 1, "RCV-PLACE-002: one transport NAK");
                        assert!(
                            matches!(&out.tx[0].packet, Packet::Ack { aeth, .. }
                                if aeth.syndrome == AethRepr::NAK_REMOTE_ACCESS),
                            "RCV-PLACE-002: expected AETH NAK remote access, got {:?}",
                            out.tx[0].packet
                        );
                    }
                    _ => assert!(
                        out.tx.is_empty(),
                        "{}: refused packet answered: {:?}",
                        v.requirement(),
                        out.tx
                    ),
                }
            }
            Err(HostOrPeer::Misuse(m)) => panic!("the body never misuses the API: {m}"),
        }
        let domain = self.domain();
        self.check.record(&out, self.pmtu, domain);
        let e = self.nic.peer_driven_entries();
        assert!(e <= self.bound, "peer-driven state {e} entries exceeds the bound {}", self.bound);
    }

    /// A write record: see [`receiver`].
    fn write(&mut self, inp: &mut Input<'_>) -> (Ev, Packet) {
        let f = inp.u8();
        let q = match f & 3 {
            0 | 1 => self.qps[0],
            2 => *self.qps.last().expect("at least one QP"),
            _ => 0x99, // no such QP
        };
        let op = WRITE_OPS[usize::from(inp.u8() % 6)];
        let epsn = self.epsn(q);
        let psn = psn_near(inp, epsn, epsn.add(self.window));
        let m = inp.u8();
        let next = self.next_msn.get(&q).copied().unwrap_or(Msn::ZERO);
        let msn = if m < 0xF0 { next.add(u16::from(m % 8)).sub(2) } else { Msn::new(inp.u16()) };
        let r = inp.u8();
        let rqmsn = Rqmsn::new(if r < 0xF0 { u16::from(r % 16) } else { inp.u16() });
        let pmtu = u64::from(self.pmtu);
        let va = match inp.u8() % 4 {
            0 | 1 => REGION_BASE + u64::from(inp.u8()) * pmtu,
            2 => (REGION_BASE + REGION_LEN).wrapping_sub(u64::from(inp.u16())),
            _ => inp.u64(),
        };
        let rkey = match inp.u8() % 8 {
            0 => RKEY_RO,
            1 => Rkey::new(inp.u32()),
            _ => RKEY,
        };
        let len = match inp.u8() % 4 {
            0 | 1 => self.pmtu,
            2 => u32::from(inp.u16()) % (self.pmtu + 1),
            _ => self.pmtu + 1 + u32::from(inp.u8()),
        };
        let dma_len = match inp.u8() % 4 {
            0 => len,
            1 => self.pmtu * u32::from(inp.u8() % 8) + u32::from(inp.u8()),
            2 => inp.u32(),
            _ => len.saturating_sub(1),
        };
        let mut bth = BthRepr::new(op, Qpn::new(q), psn);
        bth.ack_req = f & 4 != 0;
        bth.rtx = f & 8 != 0;
        let imm = op.has_immediate() != (f & 0x10 != 0);
        let w = WritePacket {
            bth,
            meth: MethRepr { rqmsn, msn },
            tseth: None,
            reth: RethRepr { va, rkey, dma_len },
            immdt: imm.then_some(ImmDtRepr { imm: u32::from(msn.value()) }),
            payload: Payload::Bytes(Arc::from(vec![psn.value() as u8; len as usize])),
        };
        (Ev::new(u32::from(f >> 5)), Packet::Write(w))
    }

    /// A well-formed message of 1 to 4 packets at the next MSN, possibly with a hole or in
    /// reverse order, so that inputs reach retirement, flags and immediates.
    fn message(&mut self, inp: &mut Input<'_>) -> Vec<Packet> {
        let f = inp.u8();
        let q = if f & 1 == 0 { self.qps[0] } else { *self.qps.last().expect("a QP") };
        let npkts = 1 + u32::from((f >> 1) & 3);
        let wwi = f & 8 != 0;
        let hole = (f & 0x10 != 0).then(|| u32::from(inp.u8()) % npkts);
        let reverse = f & 0x20 != 0;
        let gap = u32::from(f >> 6);
        let last_len = u32::from(inp.u8()) % (self.pmtu + 1);
        let slot = u64::from(inp.u8() % 64);
        let msn = self.next_msn.get(&q).copied().unwrap_or(Msn::ZERO);
        // In shared mode the domain's MSNs are shared by both QPs.
        let peers: Vec<u32> = if self.per_qp { vec![q] } else { self.qps.clone() };
        for p in peers {
            self.next_msn.insert(p, msn.next());
        }
        let rqmsn = self.next_rqmsn.get(&q).copied().unwrap_or(Rqmsn::ZERO).next();
        if wwi {
            self.next_rqmsn.insert(q, rqmsn);
        }
        let total = (npkts - 1) * self.pmtu + last_len;
        let first = self.epsn(q).add(gap);
        let mut pkts = Vec::new();
        for i in 0..npkts {
            if hole == Some(i) {
                continue;
            }
            let last = i + 1 == npkts;
            let op = match (i == 0, last, wwi) {
                (true, true, false) => Opcode::MRC_WRITE_ONLY,
                (true, true, true) => Opcode::MRC_WRITE_ONLY_IMM,
                (true, false, _) => Opcode::MRC_WRITE_FIRST,
                (false, false, _) => Opcode::MRC_WRITE_MIDDLE,
                (false, true, false) => Opcode::MRC_WRITE_LAST,
                (false, true, true) => Opcode::MRC_WRITE_LAST_IMM,
            };
            let len = if last { last_len } else { self.pmtu };
            let psn = first.add(i);
            let mut bth = BthRepr::new(op, Qpn::new(q), psn);
            bth.ack_req = last;
            pkts.push(Packet::Write(WritePacket {
                bth,
                meth: MethRepr { rqmsn, msn },
                tseth: None,
                reth: RethRepr {
                    va: REGION_BASE + slot * 0x4000 + u64::from(i * self.pmtu),
                    rkey: RKEY,
                    dma_len: total,
                },
                immdt: (last && wwi).then_some(ImmDtRepr { imm: 0x1000 + u32::from(msn.value()) }),
                payload: Payload::Bytes(Arc::from(vec![psn.value() as u8; len as usize])),
            }));
        }
        if reverse {
            pkts.reverse();
        }
        pkts
    }
}

/// Drives one responder NIC with hostile input.
///
/// Input:
/// * byte 0, configuration: bit 0 MPR 1 or 2 (window 128 or 256); bit 1 per-QP retirement
///   (else shared); bits 3:2 PMTU 256, 512, 1024 or 256; bit 4 a second QP; bits 7:5 the
///   WWI limit minus one.
/// * the first expected PSN: a byte `m`, then for `m % 4` = 0: PSN 0; 1: `2^24 − 1 − b`
///   for the next byte `b` (near the wrap); 2, 3: the next 3 bytes.
/// * then records, each an opcode byte `op % 8`:
///   * 0–3, a write: flags `f` (bits 1:0 QP: 0, 1 the first, 2 the last, 3 an unknown
///     one; bit 2 AckReq; bit 3 rtx; bit 4 ImmDt contrary to the opcode; bits 7:5 EV),
///     opcode (`% 6`: FIRST, MIDDLE, LAST, LAST_IMM, ONLY, ONLY_IMM), PSN (mode byte `% 4`:
///     epsn + i8, epsn + window + i8, epsn − 1..8, any 24 bits), MSN (byte `b`: below 0xF0
///     next MSN − 2 + `b % 8`, else 2 more bytes), RQMSN (byte below 0xF0: `b % 16`, else
///     2 bytes), VA (mode `% 4`: 0, 1 region + k × PMTU; 2 region end − u16; 3 any 8
///     bytes), key (`% 8`: 0 read-only region, 1 any 4 bytes, else the region's),
///     length (`% 4`: 0, 1 PMTU; 2 u16 mod PMTU + 1; 3 PMTU + 1 + byte), RETH.dma_len
///     (`% 4`: the length; PMTU × 0..7 + byte; any 4 bytes; the length − 1);
///   * 4, a duplicate: a byte picks one of the last 16 writes, injected again;
///   * 5, time: a byte, odd: jump to `poll_timeout()`, even: advance by the next u16 ns;
///     then `handle_timeout`;
///   * 6, a probe: a QP byte, a PSN (as above), a probe ID (2 bytes);
///   * 7, a well-formed message at the next MSN: flags (bit 0 QP, bits 2:1 packets − 1,
///     bit 3 Write-with-Immediate, bit 4 leave a hole (a byte picks it), bit 5 in reverse,
///     bits 7:6 PSN gap after epsn), last length byte, slot byte.
///
/// Checks: no panic; `peer_driven_entries()` within the retirement table's capacity
/// (`RET-CAP-001`: W per QP in per-QP mode, 4096 per shared domain); DMA only inside the
/// writable region and at most a PMTU; never a PSN placed twice; never a DMA write for a
/// message after its flag; flags once, in MSN order, reporting every placed byte; a refused
/// packet leaves every QP's epsn, error state and EVs, every counter but `violations` and
/// the required responses, and the peer-driven state as they were, and places or retires
/// nothing (WWI-LIMIT-002, which is fatal, excepted).
pub fn receiver(data: &[u8]) {
    let mut inp = Input::new(data);
    let c = inp.u8();
    let per_qp = c & 2 != 0;
    let cfg = NicConfig {
        seed: 1,
        pmtu: [256, 512, 1024, 256][usize::from((c >> 2) & 3)],
        mpr: 1 + (c & 1),
        retirement: if per_qp { RetirementMode::PerQp } else { RetirementMode::Shared },
        wwi_limit: 1 + u16::from(c >> 5),
        timestamps: false,
        ..NicConfig::default()
    };
    let psn0 = match inp.u8() % 4 {
        0 => 0,
        1 => PSN_MASK - u32::from(inp.u8()),
        _ => inp.u24(),
    };
    let window = cfg.window();
    let pmtu = cfg.pmtu;
    let mut nic = Nic::new(cfg).expect("valid configuration");
    let t0 = Timestamp::ZERO;
    nic.handle_host(t0, region(RKEY, REGION_BASE, true)).expect("region");
    nic.handle_host(t0, region(RKEY_RO, RO_BASE, false)).expect("region");
    let mut qps = vec![LQP];
    nic.handle_host(t0, HostCommand::CreateQp(qp_config(LQP, PEER, 0, psn0))).expect("QP");
    if c & 0x10 != 0 {
        let cfg = qp_config(LQP_B, PEER_B, 0, (psn0 + 1000) & PSN_MASK);
        nic.handle_host(t0, HostCommand::CreateQp(cfg)).expect("QP");
        qps.push(LQP_B);
    }
    let bound = if per_qp { qps.len() * window as usize } else { SHARED_CAPACITY };
    let mut r = Receiver {
        nic,
        now: t0,
        pmtu,
        window,
        per_qp,
        qps,
        check: Placement::default(),
        history: VecDeque::new(),
        next_msn: HashMap::new(),
        next_rqmsn: HashMap::new(),
        bound,
    };
    for _ in 0..MAX_OPS {
        if inp.is_empty() {
            break;
        }
        match inp.u8() % 8 {
            0..=3 => {
                let (ev, p) = r.write(&mut inp);
                r.inject(ev, &p);
                if r.history.len() == 16 {
                    r.history.pop_front();
                }
                r.history.push_back((ev, p));
            }
            4 => {
                let k = usize::from(inp.u8());
                if !r.history.is_empty() {
                    let (ev, p) = r.history[k % r.history.len()].clone();
                    r.inject(ev, &p);
                }
            }
            5 => {
                if inp.bit() {
                    if let Some(t) = r.nic.poll_timeout() {
                        r.now = r.now.max(t);
                    }
                } else {
                    r.now = Timestamp(r.now.0 + u64::from(inp.u16()));
                }
                r.nic.handle_timeout(r.now).expect("time moves forward");
                let out = drain(&mut r.nic, r.now);
                assert!(out.dma.is_empty() && out.flags.is_empty(), "a timeout placed data");
            }
            6 => {
                let q = if inp.bit() { r.qps[0] } else { *r.qps.last().expect("a QP") };
                let epsn = r.epsn(q);
                let psn = psn_near(&mut inp, epsn, epsn.add(window));
                let peth = PethRepr { probe_id: inp.u16(), ftype: 1, ..PethRepr::default() };
                let p =
                    Packet::Probe { bth: BthRepr::new(Opcode::MRC_PROBE, Qpn::new(q), psn), peth };
                let before = r.epsn(q);
                r.inject(Ev::new(0x55), &p);
                assert_eq!(before, r.epsn(q), "EV-PROBE-004: a probe moved epsn");
            }
            _ => {
                for p in r.message(&mut inp) {
                    r.inject(Ev::new(0x66), &p);
                }
            }
        }
    }
}
