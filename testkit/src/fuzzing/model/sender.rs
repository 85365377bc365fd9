//! The `sender` target: one requester NIC under hostile SACKs, NACKs, AETHs and commands.

use super::*;

/// NACK reasons for input records: every defined reason but the fatal one several times,
/// the fatal one once (it ends the run's interest), and an unknown code.
const NACK_REASONS: [NackReason; 8] = [
    NackReason::TRIMMED,
    NackReason::TRIMMED_LASTHOP,
    NackReason::NO_BITMAP,
    NackReason::NO_PKT_BUFFER,
    NackReason::NO_RESOURCE,
    NackReason::PSN_OOR_WINDOW,
    NackReason(0x55),
    NackReason::UNEXP_EVENT,
];

/// A message as the sender body posted it.
#[derive(Debug, Clone)]
struct Posted {
    wr: WorkRequest,
    /// PSN of its last packet, once sent.
    last_psn: Option<Psn>,
    done: bool,
}

#[derive(Debug)]
struct Sender {
    nic: Nic,
    now: Timestamp,
    pmtu: u32,
    window: u32,
    /// Posted messages by MSN (the domain's MSNs start at 0, one QP).
    msgs: Vec<Posted>,
    /// The PSN the next new (not retransmitted) data packet must carry.
    next_new: Psn,
    /// Inferred retransmissions per outstanding PSN (`SND-RTX-003`).
    inferred: HashMap<u32, u32>,
    /// Sender completions seen, by wr_id.
    completed: HashSet<u64>,
    next_wr: u64,
}

impl Sender {
    fn send_window(&self) -> (Psn, Psn) {
        let w = self.nic.send_window(Qpn::new(LQP)).expect("the QP exists");
        (w.unacked, w.next)
    }

    fn post(&mut self, inp: &mut Input<'_>) {
        let b = inp.u8();
        let length = match b % 4 {
            0 => 0,
            1 => u32::from(inp.u8()),
            2 => self.pmtu * (1 + u32::from(inp.u8() % 4)),
            _ => u32::from(inp.u16()) % (6 * self.pmtu),
        };
        let wwi = b & 4 != 0;
        let id = self.next_wr;
        self.next_wr += 1;
        let wr = WorkRequest {
            wr_id: id,
            qpn: Qpn::new(LQP),
            opcode: if wwi { WrOpcode::WRITE_WITH_IMM } else { WrOpcode::WRITE },
            local_va: 0x7000_0000 + id * 0x10000,
            lkey: Lkey::new(1),
            remote_va: REGION_BASE + (id % 16) * 0x10000,
            rkey: RKEY,
            length,
            imm: wwi.then_some(0x1000 + id as u32),
            flag_slot: (id % u64::from(FLAG_SLOTS)) as u32,
            signaled: true,
        };
        match self.nic.handle_host(self.now, HostCommand::PostWrite(wr)) {
            Ok(()) => self.msgs.push(Posted { wr, last_psn: None, done: false }),
            Err(HostError::Misuse(ApiMisuse::BadWorkRequest { .. }))
                if self.nic.qp_in_error(Qpn::new(LQP)) == Some(true) => {}
            Err(e) => panic!("PostWrite refused: {e}"),
        }
        let out = drain(&mut self.nic, self.now);
        self.outputs(&out, None);
    }

    /// Checks what the NIC produced. `aeth` is the MSN of the transport ACK or NAK that
    /// was just accepted, if the input was one.
    fn outputs(&mut self, out: &Out, aeth: Option<Msn>) {
        for t in &out.tx {
            let Packet::Write(w) = &t.packet else { continue };
            let psn = w.bth.psn;
            if !w.bth.rtx {
                assert_eq!(psn, self.next_new, "SND-PSN-001: new PSNs are consecutive");
                self.next_new = psn.next();
            }
            let msn = w.meth.msn;
            let Some(m) = self.msgs.get_mut(usize::from(msn.value())) else {
                panic!("data packet for MSN {msn}, never posted")
            };
            assert_eq!(w.reth.dma_len, m.wr.length, "RETH.dma_len of MSN {msn}");
            assert_eq!(w.reth.rkey, m.wr.rkey, "RETH.rkey of MSN {msn}");
            if w.bth.opcode.is_last() && !w.bth.rtx {
                m.last_psn = Some(psn);
            }
        }
        let (una, nxt) = self.send_window();
        let outstanding = nxt.forward_from(una);
        assert!(outstanding <= self.window, "SND-WIN-001: {outstanding} packets outstanding");
        let mut successes = Vec::new();
        for c in out.completions.iter().filter(|c| c.side == Side::Requester) {
            let e = &c.entry;
            assert!(self.completed.insert(e.wr_id), "wr {} completed twice", e.wr_id);
            if e.status.is_success() {
                successes.push((e.msn, e.wr_id));
            }
        }
        for f in out.flags.iter().filter(|f| f.side == Side::Requester) {
            if FlagRepr::from_u64(f.value).status.is_success() {
                successes.push((
                    f.msn,
                    self.msgs.get(usize::from(f.msn.value())).map_or(u64::MAX, |m| m.wr.wr_id),
                ));
            }
        }
        for (msn, wr_id) in successes {
            // SND-ACK-001: success only from an accepted AETH whose MSN covers the message.
            let Some(a) = aeth else {
                panic!("SND-ACK-001: MSN {msn} completed with success without a transport ACK")
            };
            assert!(
                msn.is_at_or_before(a),
                "SND-ACK-001: AETH MSN {a} does not cover MSN {msn}, which completed"
            );
            let m = self.msgs.get_mut(usize::from(msn.value())).expect("completed MSN was posted");
            assert_eq!(m.wr.wr_id, wr_id, "the completion of MSN {msn} names another request");
            m.done = true;
        }
        for r in &out.reports {
            if let NicReport::Retransmitted { psn, cause: RetransmitCause::SackInference, .. } = r {
                let n = self.inferred.entry(psn.value()).or_insert(0);
                *n += 1;
                assert!(*n <= 1, "SND-RTX-003: PSN {psn} retransmitted {n} times by inference");
            }
        }
        // A PSN acknowledged since is no longer outstanding: forget its count.
        self.inferred.retain(|&p, _| Psn::new(p).in_window(una, outstanding));
        let e = self.nic.peer_driven_entries();
        assert!(
            e <= self.window as usize + SHARED_CAPACITY,
            "peer-driven state {e} exceeds the window and the table"
        );
    }

    /// Injects a packet from the peer and checks it.
    fn inject(&mut self, p: &Packet) {
        let qs = qp_state(&self.nic, LQP);
        let pending = self.nic.pending_messages();
        let stats = self.nic.stats().clone();
        let r = self.nic.handle_packet(self.now, Ev::new(0x77), p);
        let out = drain(&mut self.nic, self.now);
        match r {
            Ok(()) => {
                let aeth = match p {
                    Packet::Ack { aeth, .. } => Some(aeth.msn.msn()),
                    _ => None,
                };
                self.outputs(&out, aeth);
            }
            Err(HostOrPeer::Peer(v)) => {
                // A refused input changes nothing (SND-SACK-003/004, SND-NACK-001, SND-ACK-002).
                let req = v.requirement();
                assert_eq!(
                    qs,
                    qp_state(&self.nic, LQP),
                    "{req}: a refused packet changed state ({v})"
                );
                assert_eq!(pending, self.nic.pending_messages(), "{req}: messages changed");
                assert_eq!(
                    NicStats { violations: 0, ..stats },
                    NicStats { violations: 0, ..self.nic.stats().clone() },
                    "{req}: counters changed"
                );
                assert!(out.is_empty(), "{req}: a refused packet produced output: {out:?}");
            }
            Err(HostOrPeer::Misuse(m)) => panic!("the body never misuses the API: {m}"),
        }
    }

    fn sack(&mut self, inp: &mut Input<'_>, honest: bool) {
        let (una, nxt) = self.send_window();
        let outstanding = nxt.forward_from(una);
        let f = inp.u8();
        let (cack, offset, bitmap) = if honest {
            let k = u32::from(inp.u16()) % (outstanding + 1);
            let cack = una.sub(1).add(k);
            let rest = outstanding - k;
            let mask = if rest >= 64 { u64::MAX } else { (1u64 << rest) - 1 };
            (cack, 1i16, inp.u64() & mask)
        } else {
            let cack = match inp.u8() % 3 {
                0 => una.sub(1).add(u32::from(inp.u16()) % (outstanding + 2)),
                1 => una.offset(i32::from(inp.u8() as i8)),
                _ => Psn::new(inp.u24()),
            };
            let offset = match inp.u8() % 4 {
                0 => 1,
                1 => i16::from(inp.u8() as i8),
                2 => inp.u16() as i16,
                _ => (self.window + 63 + u32::from(inp.u8() % 3)) as i16,
            };
            let bitmap = match inp.u8() % 4 {
                0 => inp.u64(),
                1 => u64::MAX,
                2 => 0,
                _ => 1 << (inp.u8() % 64),
            };
            (cack, offset, bitmap)
        };
        let entropy = if f & 0x80 == 0 { EVS[usize::from(f & 3)] } else { Ev::new(inp.u32()) };
        let seth = SethRepr {
            m: WireMark((f >> 2) & 3),
            pr: f & 0x10 != 0 && !honest,
            ack_psn_offset: 0,
            entropy,
            cack_psn: cack,
            mpr: (f >> 5) & 3,
            sack_offset: offset,
            sack_bitmap: bitmap,
            ..SethRepr::default()
        };
        let bth = BthRepr::new(Opcode::MRC_SACK, Qpn::new(LQP), cack);
        self.inject(&Packet::Sack { bth, seth, cc_state: CcStateRepr::default() });
        if honest && f & 0x40 != 0 {
            self.honest_aeth(cack);
        }
    }

    /// The transport ACK a correct responder would send once every PSN up to `cack`
    /// arrived: the last message of the longest run of unfinished messages whose packets
    /// were all sent and acknowledged.
    fn honest_aeth(&mut self, cack: Psn) {
        let mut msn = None;
        for (i, m) in self.msgs.iter().enumerate() {
            if m.done {
                continue;
            }
            match m.last_psn {
                Some(l) if l.distance(cack) <= 0 => msn = Some(Msn::new(i as u16)),
                _ => break,
            }
        }
        if let Some(msn) = msn {
            let aeth = AethRepr::new(AethRepr::ACK_UNLIMITED_CREDIT, msn.into());
            let bth = BthRepr::new(Opcode::MRC_ACKNOWLEDGE, Qpn::new(LQP), cack);
            self.inject(&Packet::Ack { bth, aeth });
        }
    }

    fn oldest_pending(&self) -> Msn {
        Msn::new(self.msgs.iter().position(|m| !m.done).unwrap_or(self.msgs.len()) as u16)
    }

    fn cpu(&mut self, inp: &mut Input<'_>) {
        let (una, nxt) = self.send_window();
        let q = Qpn::new(LQP);
        let ev = |inp: &mut Input<'_>| {
            let b = inp.u8();
            if b < 0xF0 { EVS[usize::from(b % 4)] } else { Ev::new(0xB0 + u32::from(b % 4)) }
        };
        let cmd = match inp.u8() % 16 {
            0..=6 => CpuCommand::Retransmit { qpn: q, psn: psn_near(inp, una, nxt) },
            7..=9 => CpuCommand::Probe { qpn: q, ev: ev(inp) },
            10..=14 => {
                let state = [EvState::Good, EvState::Skip, EvState::AssumedBad, EvState::Denied]
                    [usize::from(inp.u8() % 4)];
                CpuCommand::SetEvState { qpn: q, ev: ev(inp), state }
            }
            _ => CpuCommand::QpError { qpn: q },
        };
        self.nic.handle_cpu(self.now, cmd).expect("the QP exists");
        let out = drain(&mut self.nic, self.now);
        self.outputs(&out, None);
    }
}

/// Drives one requester NIC, with work posted, through hostile acknowledgements.
///
/// Input:
/// * byte 0, configuration: bits 1:0 spray policy (round robin, random, fixed,
///   skew-aware); bit 2 TSETH timestamps; bit 3 two backup EVs; bit 4 a fixed congestion
///   window of 4 PMTUs; bits 6:5 the WWI limit minus one. PMTU 256, window 128.
/// * the first PSN: as in [`receiver`].
/// * byte: messages to post first, `1 + b % 6`, each a post record: a byte `b` (`b % 4`:
///   length 0; a byte; PMTU × 1..4 (a byte); u16 mod 6 PMTU; bit 2 Write-with-Immediate).
/// * then records, an opcode byte `op % 10`:
///   * 0, 1, a SACK: flags `f` (bits 1:0 EV; bits 3:2 `m`; bit 4 `pr`; bits 6:5 MPR; bit 7
///     an arbitrary 4-byte entropy instead), cumulative PSN (`% 3`: snd_una − 1 + u16 mod
///     outstanding + 2; snd_una + i8; any 24 bits), sack_offset (`% 4`: 1; i8; i16;
///     window + 63..65), bitmap (`% 4`: 8 bytes; all ones; zero; one bit);
///   * 2, 3, an honest SACK: flags (as above, bit 6: then the honest AETH), cumulative
///     point (u16 mod outstanding + 1), bitmap (8 bytes masked to the PSNs sent);
///   * 4, a NACK: reason (`% 8`: TRIMMED, TRIMMED_LASTHOP, NO_BITMAP, NO_PKT_BUFFER,
///     NO_RESOURCE, PSN_OOR_WINDOW, unknown 0x55, UNEXP_EVENT), PSN (near snd_una, near
///     snd_nxt, behind, any);
///   * 5, an AETH: syndrome (`% 8`: 0..3 0x1F, 4 0x00, 5 RNR 0x20, 6 NAK 0x60..0x63,
///     7 any byte), MSN (byte `b` below 0xF0: oldest pending − 2 + `b % 8`, else 2 bytes);
///   * 6, a CPU command (`% 16`: 0–6 Retransmit (a PSN), 7–9 Probe (EV byte), 10–14
///     SetEvState (state byte, EV byte), 15 QpError);
///   * 7, time: as in [`receiver`];
///   * 8, post one more message (a post record);
///   * 9, a probe answer: EV byte, probe ID (2 bytes), `m` byte.
///
/// Checks: no panic; a message completes with success (completion entry or sender flag)
/// only as an output of an accepted AETH whose MSN covers it, and at most once; at most one
/// `Retransmitted` with cause `sack_inference` per PSN while it stays outstanding
/// (`SND-RTX-003`); new PSNs are consecutive and data packets carry their message's RETH;
/// never more than the window outstanding; a refused packet leaves the send window, EV
/// states, error state, messages and counters (but `violations`) as they were and produces
/// no output at all.
pub fn sender(data: &[u8]) {
    let mut inp = Input::new(data);
    let c = inp.u8();
    let cfg = NicConfig {
        seed: u64::from(c),
        pmtu: 256,
        mpr: 1,
        timestamps: c & 4 != 0,
        wwi_limit: 1 + u16::from((c >> 5) & 3),
        ..NicConfig::default()
    };
    let psn0 = match inp.u8() % 4 {
        0 => 0,
        1 => PSN_MASK - u32::from(inp.u8()),
        _ => inp.u24(),
    };
    let mut qp = qp_config(LQP, PEER, psn0, 0);
    qp.spray = match c & 3 {
        // Bit 7 picks window-fit in place of skew-aware (added later, so that the inputs of
        // the corpus keep their meaning otherwise).
        3 if c & 0x80 != 0 => SprayPolicy::WindowFit,
        k => [
            SprayPolicy::RoundRobin,
            SprayPolicy::Random,
            SprayPolicy::Fixed,
            SprayPolicy::SkewAware,
        ][usize::from(k)],
    };
    if c & 8 != 0 {
        qp.backup_evs = vec![Ev::new(0xB0), Ev::new(0xB1)];
    }
    if c & 0x10 != 0 {
        qp.cc = CongestionControl::FixedWindow { bytes: 4 * 256 };
    }
    let window = cfg.window();
    let pmtu = cfg.pmtu;
    let mut nic = Nic::new(cfg).expect("valid configuration");
    nic.handle_host(Timestamp::ZERO, HostCommand::CreateQp(qp)).expect("QP");
    let mut s = Sender {
        nic,
        now: Timestamp::ZERO,
        pmtu,
        window,
        msgs: Vec::new(),
        next_new: Psn::new(psn0),
        inferred: HashMap::new(),
        completed: HashSet::new(),
        next_wr: 0,
    };
    for _ in 0..1 + inp.u8() % 6 {
        s.post(&mut inp);
    }
    for _ in 0..MAX_OPS {
        if inp.is_empty() {
            break;
        }
        match inp.u8() % 10 {
            0 | 1 => s.sack(&mut inp, false),
            2 | 3 => s.sack(&mut inp, true),
            4 => {
                let reason = NACK_REASONS[usize::from(inp.u8() % 8)];
                let (una, nxt) = s.send_window();
                let psn = psn_near(&mut inp, una, nxt);
                let neth = NethRepr::new(reason, psn, Ev::new(0x77));
                let bth = BthRepr::new(Opcode::MRC_NACK, Qpn::new(LQP), psn);
                s.inject(&Packet::Nack { bth, neth });
            }
            5 => {
                let syndrome = match inp.u8() % 8 {
                    0..=3 => AethRepr::ACK_UNLIMITED_CREDIT,
                    4 => 0,
                    5 => 0x20,
                    6 => AethRepr::NAK_PSN_SEQ_ERR + inp.u8() % 4,
                    _ => inp.u8(),
                };
                let b = inp.u8();
                let msn = if b < 0xF0 {
                    s.oldest_pending().add(u16::from(b % 8)).sub(2)
                } else {
                    Msn::new(inp.u16())
                };
                let aeth = AethRepr::new(syndrome, msn.into());
                let bth = BthRepr::new(Opcode::MRC_ACKNOWLEDGE, Qpn::new(LQP), Psn::ZERO);
                s.inject(&Packet::Ack { bth, aeth });
            }
            6 => s.cpu(&mut inp),
            7 => {
                if inp.bit() {
                    if let Some(t) = s.nic.poll_timeout() {
                        s.now = s.now.max(t);
                    }
                } else {
                    s.now = Timestamp(s.now.0 + u64::from(inp.u16()));
                }
                s.nic.handle_timeout(s.now).expect("time moves forward");
                let out = drain(&mut s.nic, s.now);
                s.outputs(&out, None);
            }
            8 => s.post(&mut inp),
            _ => {
                let b = inp.u8();
                let ev = if b < 0xF0 {
                    EVS[usize::from(b % 4)]
                } else {
                    Ev::new(0xB0 + u32::from(b % 2))
                };
                let id = inp.u16();
                let (una, _) = s.send_window();
                let seth = SethRepr {
                    m: WireMark(inp.u8() % 4),
                    pr: true,
                    ack_psn_offset: id as i16,
                    entropy: ev,
                    cack_psn: una.sub(1),
                    mpr: 1,
                    sack_offset: 1,
                    ..SethRepr::default()
                };
                let bth = BthRepr::new(Opcode::MRC_SACK, Qpn::new(LQP), una.sub(1));
                s.inject(&Packet::Sack { bth, seth, cc_state: CcStateRepr::default() });
            }
        }
    }
}
