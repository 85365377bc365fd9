//! The `doorbell` target: doorbell tokens and templates, through the codec and a NIC.

use super::*;

/// remote region), then the expansion of `TPL-EXPAND-*`.
fn doorbell_rules(
    tok: &DoorbellToken,
    installed: Option<&Template>,
    expected: u16,
) -> Result<WorkRequest, DoorbellReject> {
    if tok.version != 1 {
        return Err(DoorbellReject::BadVersion { version: tok.version });
    }
    let t = match installed {
        Some(t) if t.enabled && t.template_id == tok.template && t.validate().is_ok() => t,
        _ => return Err(DoorbellReject::UnknownTemplate { template: tok.template }),
    };
    let behind = expected.wrapping_sub(tok.seq);
    if behind != 0 {
        let (expected, got) = (expected, tok.seq);
        return Err(if behind < 0x8000 {
            DoorbellReject::StaleSeq { expected, got }
        } else {
            DoorbellReject::SeqGap { expected, got }
        });
    }
    if u32::from(tok.index) >= t.slots {
        return Err(DoorbellReject::IndexOutOfRange { index: tok.index, slots: t.slots });
    }
    let length = match tok.length_units {
        0 => u64::from(t.default_length),
        n => u64::from(n) * u64::from(t.length_unit),
    };
    if length > u64::from(t.max_length) {
        let limit = u64::from(t.max_length);
        return Err(DoorbellReject::LengthOutOfRange {
            length,
            bound: LengthBound::MaxLength,
            limit,
        });
    }
    let mut va = [0u64; 2];
    for (k, (bound, base, len, stride)) in [
        (LengthBound::LocalRegion, t.local_base, t.local_region_len, t.local_stride),
        (LengthBound::RemoteRegion, t.remote_base, t.remote_region_len, t.remote_stride),
    ]
    .into_iter()
    .enumerate()
    {
        let offset = u128::from(tok.index) * u128::from(stride);
        let room = u128::from(len).saturating_sub(offset);
        if u128::from(length) > room {
            let limit = u64::try_from(room).unwrap_or(u64::MAX);
            return Err(DoorbellReject::LengthOutOfRange { length, bound, limit });
        }
        va[k] =
            base.checked_add(offset as u64).expect("TPL-REGION-001: the slot lies in the region");
    }
    let imm = t.opcode == WrOpcode::WRITE_WITH_IMM;
    Ok(WorkRequest {
        wr_id: tok.to_u64(),
        qpn: t.qpn,
        opcode: t.opcode,
        local_va: va[0],
        lkey: t.local_lkey,
        remote_va: va[1],
        rkey: t.remote_rkey,
        length: length as u32,
        imm: imm.then(|| t.imm_base.wrapping_add(u32::from(tok.index))),
        flag_slot: t.flag_base_slot.wrapping_add(u32::from(tok.index)),
        signaled: t.signaled,
    })
}

/// The status of the error completion of each rejection (`CQE-STATUS-001`).
fn reject_status(r: &DoorbellReject) -> CompletionStatus {
    match r {
        DoorbellReject::BadVersion { .. } => CompletionStatus::BAD_VERSION,
        DoorbellReject::UnknownTemplate { .. } => CompletionStatus::UNKNOWN_TEMPLATE,
        DoorbellReject::StaleSeq { .. } => CompletionStatus::STALE_SEQ,
        DoorbellReject::SeqGap { .. } => CompletionStatus::SEQ_GAP,
        DoorbellReject::IndexOutOfRange { .. } => CompletionStatus::INDEX_OUT_OF_RANGE,
        DoorbellReject::LengthOutOfRange { .. } => CompletionStatus::LENGTH_OUT_OF_RANGE,
    }
}

/// The doorbell body's local registrations (`TPL-KEY-001`): every address, readable; every
/// address, not readable; the first 256 MiB, readable.
const LKEY_ALL: Lkey = Lkey::new(1);
const LKEY_NO_READ: Lkey = Lkey::new(2);
const LKEY_LOW: Lkey = Lkey::new(3);
const LOCAL_REGIONS: [LocalRegion; 3] = [
    LocalRegion { lkey: LKEY_ALL, base: 0, len: u64::MAX, local_read: true },
    LocalRegion { lkey: LKEY_NO_READ, base: 0, len: u64::MAX, local_read: false },
    LocalRegion { lkey: LKEY_LOW, base: 0, len: 0x1000_0000, local_read: true },
];

/// Whether a template's local key covers its local region with read permission, by the
/// registrations of [`LOCAL_REGIONS`] (`TPL-KEY-001`).
fn key_covers(t: &Template) -> bool {
    LOCAL_REGIONS
        .iter()
        .find(|r| r.lkey == t.local_lkey)
        .is_some_and(|r| r.local_read && r.contains(t.local_base, t.local_region_len))
}

/// A template from an input record (see [`doorbell`]).
/// Whether every flag slot of `t` lies inside its QP's flag table (`TPL-FLAG-001.b`).
fn inside_flag_table(t: &Template) -> bool {
    u64::from(t.flag_base_slot) + u64::from(t.slots) <= u64::from(FLAG_SLOTS)
}

fn template_from(inp: &mut Input<'_>) -> Template {
    let m = inp.u8();
    let region = |inp: &mut Input<'_>| -> (u64, u64) {
        match inp.u8() % 4 {
            0 | 1 => (0x1000_0000 * u64::from(1 + inp.u8() % 4), 0x10_0000),
            2 => (u64::MAX - u64::from(inp.u16()), u64::from(inp.u16())),
            _ => (inp.u64(), inp.u64()),
        }
    };
    let (local_base, local_region_len) = region(inp);
    let (remote_base, remote_region_len) = region(inp);
    let stride = |inp: &mut Input<'_>| -> u64 {
        match inp.u8() % 4 {
            0 => 0,
            1 | 2 => 0x1000,
            _ => inp.u64(),
        }
    };
    let local_stride = stride(inp);
    let remote_stride = stride(inp);
    let length_unit = match inp.u8() {
        b if b < 0xC0 => 1u32 << (b % 32),
        _ => inp.u32(),
    };
    let max_length = match inp.u8() % 4 {
        0 | 1 => 0x4000,
        2 => u32::from(inp.u16()),
        _ => inp.u32(),
    };
    let default_length = match inp.u8() % 4 {
        0 | 1 => 0x1000,
        2 => u32::from(inp.u8()),
        _ => inp.u32(),
    };
    Template {
        template_id: TemplateId::new(if m & 1 == 0 { u16::from(inp.u8() % 4) } else { inp.u16() }),
        enabled: m & 2 == 0,
        qpn: if m & 4 == 0 { Qpn::new(LQP) } else { Qpn::new(inp.u24()) },
        opcode: match inp.u8() % 4 {
            0 | 1 => WrOpcode::WRITE,
            2 => WrOpcode::WRITE_WITH_IMM,
            _ => WrOpcode(inp.u8()),
        },
        local_base,
        local_lkey: match inp.u32() {
            k if k % 8 <= 4 => LKEY_ALL,
            k if k % 8 == 5 => LKEY_NO_READ,
            k if k % 8 == 6 => LKEY_LOW,
            k => Lkey::new(k),
        },
        local_region_len,
        remote_base,
        remote_rkey: Rkey::new(inp.u32()),
        remote_region_len,
        slots: match inp.u8() % 4 {
            0 => 1,
            1 | 2 => 1 + u32::from(inp.u8() % 16),
            _ => inp.u32(),
        },
        local_stride,
        remote_stride,
        length_unit,
        default_length,
        max_length,
        imm_base: inp.u32(),
        // Mostly inside the QP's flag table of 64 slots (TPL-FLAG-001.b), at times past it.
        flag_base_slot: if m & 8 == 0 {
            u32::from(inp.u8() % 56)
        } else {
            u32::MAX - u32::from(inp.u8())
        },
        signaled: m & 0x10 == 0,
    }
}

#[derive(Debug)]
struct Doorbells {
    nic: Nic,
    now: Timestamp,
    /// What the body believes is installed: template and expected seq, by ID.
    installed: HashMap<TemplateId, (Template, u16)>,
    /// Requests accepted and not yet seen starting on the wire, in order.
    starting: VecDeque<WorkRequest>,
}

impl Doorbells {
    fn install(&mut self, t: Template) {
        let r = self.nic.handle_host(self.now, HostCommand::SetTemplate(t));
        let out = drain(&mut self.nic, self.now);
        assert!(out.is_empty(), "installing a template produced output");
        match (t.validate(), r) {
            (Err(_), Err(HostError::Misuse(ApiMisuse::BadTemplate { template, .. }))) => {
                assert_eq!(template, t.template_id, "API-TPL-001 names the template");
            }
            (Ok(()), Err(HostError::Misuse(ApiMisuse::UnknownQp(q)))) => {
                assert_eq!(q, t.qpn, "API-QP-004 names the QP");
                assert_ne!(t.qpn, Qpn::new(LQP), "the QP exists");
            }
            (Ok(()), Err(HostError::Misuse(ApiMisuse::BadTemplate { template, .. }))) => {
                assert_eq!(template, t.template_id, "API-TPL-001 names the template");
                assert_eq!(t.qpn, Qpn::new(LQP), "the QP is checked first");
                assert!(!inside_flag_table(&t), "TPL-FLAG-001.b: a template inside it refused");
            }
            (Ok(()), Err(HostError::Misuse(ApiMisuse::TemplateKey { template, lkey, .. }))) => {
                assert!(inside_flag_table(&t), "TPL-FLAG-001.b: the flag table is checked first");
                assert_eq!((template, lkey), (t.template_id, t.local_lkey), "TPL-KEY-001");
                assert_eq!(t.qpn, Qpn::new(LQP), "the QP is checked first");
                assert!(!key_covers(&t), "TPL-KEY-001: a template whose key covers it refused");
            }
            (Ok(()), Ok(())) => {
                assert_eq!(t.qpn, Qpn::new(LQP), "a template for an unknown QP was installed");
                assert!(key_covers(&t), "TPL-KEY-001: installed without a covering key");
                assert!(inside_flag_table(&t), "TPL-FLAG-001.b: installed past the flag table");
                // TPL-INSTALL-003: disabling or re-enabling keeps the expected seq; any
                // other installation, under a new ID or one in use, sets it to 0.
                let seq = match self.installed.get(&t.template_id) {
                    Some((old, seq))
                        if old.enabled != t.enabled
                            && Template { enabled: t.enabled, ..*old } == t =>
                    {
                        *seq
                    }
                    _ => 0,
                };
                self.installed.insert(t.template_id, (t, seq));
            }
            (v, r) => panic!("SetTemplate: validate {v:?} but the NIC answered {r:?}"),
        }
    }

    /// Rings one token through the codec's rules and the NIC and checks both.
    fn ring(&mut self, v: u64) {
        self.ring_by(v, HostCommand::Doorbell { token: v });
    }

    /// A write to a doorbell register: one that carries a token rings it as
    /// [`Doorbells::ring`] does (`DB-FORMAT-002`, `DB-MMIO-003`); any other is ignored,
    /// changing nothing but its counter (`DB-MMIO-002`).
    fn bus_write(&mut self, w: DoorbellWrite) {
        if let Some(v) = w.token() {
            assert_eq!(v.to_le_bytes()[..], w.bytes[..], "DB-FORMAT-002: little-endian");
            return self.ring_by(v, HostCommand::DoorbellWrite(w));
        }
        let pending = self.nic.pending_messages();
        let qs = qp_state(&self.nic, LQP);
        let stats = self.nic.stats().clone();
        let r = self.nic.handle_host(self.now, HostCommand::DoorbellWrite(w.clone()));
        assert_eq!(r, Ok(()), "DB-MMIO-002: an ignored write is no error");
        let out = drain(&mut self.nic, self.now);
        assert!(
            out.tx.is_empty()
                && out.dma.is_empty()
                && out.flags.is_empty()
                && out.completions.is_empty()
                && out.reports.is_empty(),
            "DB-MMIO-002: {w:?} produced {out:?}"
        );
        assert_eq!(self.nic.pending_messages(), pending, "DB-MMIO-002: state changed");
        assert_eq!(qs, qp_state(&self.nic, LQP), "DB-MMIO-002: QP state changed");
        let counted =
            NicStats { ignored_doorbell_writes: stats.ignored_doorbell_writes + 1, ..stats };
        assert_eq!(&counted, self.nic.stats(), "DB-MMIO-002: counted, nothing else");
    }

    /// Rings token `v`, given to the NIC as `cmd`.
    fn ring_by(&mut self, v: u64, cmd: HostCommand) {
        let bytes = v.to_le_bytes();
        let tok = DoorbellToken::parse(&bytes).expect("every 8 bytes are a token");
        assert_eq!(tok, DoorbellToken::from_u64(v), "DB-FORMAT-002");
        assert_eq!(tok.to_u64(), v, "DB-FORMAT-001: parse is lossless");
        let mut back = [0u8; 8];
        assert_eq!(tok.emit(&mut back), Ok(8));
        assert_eq!(back, bytes, "DB-FORMAT-002: emit is lossless");
        let mut violations = Vec::new();
        tok.validate(0, &mut violations);
        assert_eq!(violations.is_empty(), tok.version == 1, "DB-VERSION-001");

        let (installed, expected) = match self.installed.get(&tok.template) {
            Some((t, seq)) => (Some(*t), *seq),
            None => (None, 0),
        };
        let want = doorbell_rules(&tok, installed.as_ref(), expected);
        assert_eq!(
            accept_doorbell(&tok, installed.as_ref(), expected),
            want,
            "DB-ORDER-001: accept_doorbell of {tok} against {installed:?}, seq {expected}"
        );
        if let Some(t) = &installed {
            // The stateless part agrees with the whole decision when the seq matches.
            assert_eq!(t.expand(&tok), accept_doorbell(&tok, Some(t), tok.seq), "TPL-EXPAND");
        }

        let pending = self.nic.pending_messages();
        let qs = qp_state(&self.nic, LQP);
        let stats = self.nic.stats().clone();
        let r = self.nic.handle_host(self.now, cmd);
        let out = drain(&mut self.nic, self.now);
        if let Ok(wr) = &want {
            self.starting.push_back(*wr);
        }
        self.check_starts(&out);
        match want {
            Ok(_) => {
                assert_eq!(r, Ok(()), "DB-ACCEPT-001: token {tok} refused");
                let s = self.installed.get_mut(&tok.template).expect("installed");
                s.1 = s.1.wrapping_add(1);
                assert_eq!(self.nic.pending_messages(), pending + 1, "DB-ACCEPT-001: one message");
                assert!(out.completions.is_empty() && out.flags.is_empty(), "no completion yet");
            }
            Err(reject) => {
                let e = HostError::Doorbell(DoorbellRejected { token: v, reject });
                assert_eq!(r, Err(e), "{}: token {tok}", reject.requirement());
                let (qpn, opcode) = match (&installed, reject.template_known()) {
                    (Some(t), true) => (t.qpn, t.opcode),
                    _ => (Qpn::new(0), WrOpcode::NONE),
                };
                let entry = CompletionRepr {
                    wr_id: v,
                    status: reject_status(&reject),
                    opcode,
                    qpn,
                    ..CompletionRepr::default()
                }
                .with_timestamp(self.now.0 as u32);
                assert_eq!(
                    out.completions,
                    vec![CompletionEvent { side: Side::Requester, entry, queue: None }],
                    "DB-REJECT-001: exactly one error completion"
                );
                assert!(
                    out.tx.is_empty()
                        && out.dma.is_empty()
                        && out.flags.is_empty()
                        && out.reports.is_empty(),
                    "DB-REJECT-001: a rejected token produced {out:?}"
                );
                assert_eq!(self.nic.pending_messages(), pending, "DB-REJECT-001: state changed");
                assert_eq!(qs, qp_state(&self.nic, LQP), "DB-REJECT-001: QP state changed");
                assert_eq!(&stats, self.nic.stats(), "DB-REJECT-001: counters changed");
                // DB-SEQ-004: the rejected number is not consumed; the next valid token of
                // a usable template is accepted.
                if let Some(t) = installed.filter(|t| t.usable_for(tok.template)) {
                    let seq = self.installed[&t.template_id].1;
                    let next = t.token(seq, 0, 0);
                    assert!(doorbell_rules(&next, Some(&t), seq).is_ok(), "slot 0 fits");
                    self.ring(next.to_u64());
                }
            }
        }
    }

    /// The first packet of each new message carries the expansion of its token.
    fn check_starts(&mut self, out: &Out) {
        for t in &out.tx {
            let Packet::Write(w) = &t.packet else { continue };
            if w.bth.rtx || !w.bth.opcode.is_first() {
                continue;
            }
            let wr = self.starting.pop_front().expect("a message started that nobody asked for");
            assert_eq!(w.reth.va, wr.remote_va, "TPL-EXPAND-003: remote address");
            assert_eq!(w.reth.rkey, wr.rkey, "TPL-EXPAND: rkey");
            assert_eq!(w.reth.dma_len, wr.length, "TPL-EXPAND-004: length");
            assert_eq!(w.payload, Payload::Host { addr: wr.local_va, len: w.payload.len() });
            if w.bth.opcode.is_last() {
                assert_eq!(w.immdt.map(|i| i.imm), wr.imm, "TPL-EXPAND-005: immediate");
            }
        }
    }
}

/// Doorbell tokens and templates: through the codec's pure rules and through a NIC.
///
/// Input:
/// * a template record, installed first (see below);
/// * then records, an opcode byte `op % 8`:
///   * 0–5, a token: a mode byte `m` (bits 1:0 = 0: any template ID (2 bytes), else the
///     template of the last install; bit 2 a version byte (else 1); bits 5:3 seq: 0–3 the
///     expected, 4 expected − 1 − byte, 5 expected + 1 + byte, 6 expected + 2^15, 7 any 2
///     bytes), index (`% 4`: 0, 1 byte mod slots; 2 slots + byte; 3 any 2 bytes), units
///     (`% 4`: 0, 1 default; 2 a byte; 3 any 2 bytes);
///   * 6, a raw token: a mode byte (`% 4`: 0, 1 the token's 8 bytes as a value; 2 a
///     register (4 bytes) and the token's 8 bytes as an aligned bus write; 3 a register (4
///     bytes), an offset byte (`% 12`), a length byte (`% 20`) and that many bytes, as a
///     bus write);
///   * 7, install a template record.
/// * A template record: a mode byte `m` (bit 0 any ID (2 bytes) else 0..3; bit 1 disabled;
///   bit 2 any QPN (3 bytes); bit 3 flag slots near 2^32; bit 4 unsignaled), local and
///   remote region (`% 4`: 0, 1 base k × 2^28, 1 MiB; 2 base near 2^64, u16 length; 3 any
///   8 + 8 bytes), local and remote stride (`% 4`: 0; 1, 2 4 KiB; 3 any 8 bytes), length
///   unit (byte below 0xC0: 2^(b % 32), else 4 bytes), max length (`% 4`: 0, 1 16 KiB; 2
///   u16; 3 u32), default length (`% 4`: 0, 1 4 KiB; 2 a byte; 3 u32), ID, QPN, opcode
///   (`% 4`: 0, 1 WRITE; 2 WRITE_WITH_IMM; 3 any byte), lkey (4 bytes `k`, `k % 8`: 0–4 a
///   key registered over every address, readable; 5 one not readable; 6 one over the first
///   256 MiB only; 7 `k` itself), rkey (4), slots (`% 4`: 1; 1..16; 1..16; any 4 bytes),
///   imm_base (4), flag base slot (a byte).
///
/// Checks: token parse, emit and validate are lossless and never panic; `accept_doorbell`
/// equals the rules of `DB-ORDER-001` written out here, and `Template::expand` agrees
/// with it; a template is installed exactly when it is valid, names the QP and its local
/// key covers it with read permission (`TPL-KEY-001`); through a NIC, an accepted token adds one message whose first packet carries
/// the expansion, and a rejected one returns exactly that rejection, produces exactly one
/// error completion (`CQE-REJECT-001`) and nothing else, changes no state or counter, and
/// does not consume its seq: the next valid token is accepted. A bus write that is not one
/// aligned write of 8 bytes changes nothing but its counter (`DB-MMIO-002`).
pub fn doorbell(data: &[u8]) {
    let mut inp = Input::new(data);
    let cfg = NicConfig { seed: 3, pmtu: 1024, mpr: 1, timestamps: false, ..NicConfig::default() };
    let mut nic = Nic::new(cfg).expect("valid configuration");
    nic.handle_host(Timestamp::ZERO, HostCommand::CreateQp(qp_config(LQP, PEER, 0, 0)))
        .expect("QP");
    for r in LOCAL_REGIONS {
        nic.handle_host(Timestamp::ZERO, HostCommand::RegisterLocal(r)).expect("local key");
    }
    let mut d = Doorbells {
        nic,
        now: Timestamp::ZERO,
        installed: HashMap::new(),
        starting: VecDeque::new(),
    };
    let mut current = template_from(&mut inp);
    d.install(current);
    for _ in 0..MAX_OPS {
        if inp.is_empty() {
            break;
        }
        d.now = Timestamp(d.now.0 + 100);
        match inp.u8() % 8 {
            0..=5 => {
                let m = inp.u8();
                let template = TemplateId::new(
                    if m & 3 == 0 { inp.u16() } else { current.template_id.value() } & 0xFFF,
                );
                let version = if m & 4 == 0 { 1 } else { inp.u8() & 0xF };
                let expected = d.installed.get(&template).map_or(0, |s| s.1);
                let seq = match (m >> 3) & 7 {
                    0..=3 => expected,
                    4 => expected.wrapping_sub(1 + u16::from(inp.u8())),
                    5 => expected.wrapping_add(1 + u16::from(inp.u8())),
                    6 => expected.wrapping_add(0x8000),
                    _ => inp.u16(),
                };
                let slots = d.installed.get(&template).map_or(1, |s| s.0.slots.max(1));
                let index = match inp.u8() % 4 {
                    0 | 1 => (u32::from(inp.u8()) % slots) as u16,
                    2 => slots.saturating_add(u32::from(inp.u8())) as u16,
                    _ => inp.u16(),
                };
                let length_units = match inp.u8() % 4 {
                    0 | 1 => 0,
                    2 => u16::from(inp.u8()),
                    _ => inp.u16(),
                };
                let tok = DoorbellToken { version, template, seq, index, length_units };
                d.ring(tok.to_u64());
            }
            6 => match inp.u8() % 4 {
                0 | 1 => d.ring(inp.u64()),
                // An aligned 8-byte write through any register: a token.
                2 => d.bus_write(DoorbellWrite::of_token(inp.u32(), inp.u64())),
                // Any write: offset and length from 0 to 11 and 0 to 19 bytes.
                _ => {
                    let register = inp.u32();
                    let offset = inp.u8() % 12;
                    let len = inp.u8() % 20;
                    let bytes = (0..len).map(|_| inp.u8()).collect();
                    d.bus_write(DoorbellWrite { register, offset, bytes });
                }
            },
            _ => {
                // Disable or re-enable the current template (its seq stays), or install
                // another (its seq starts at 0).
                current = if inp.u8() & 1 == 0 {
                    Template { enabled: !current.enabled, ..current }
                } else {
                    template_from(&mut inp)
                };
                d.install(current);
            }
        }
    }
}
