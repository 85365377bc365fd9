//! What reached each of the device's QPs, rebuilt from the injected frames: every copy of
//! every write with the fields a SACK reflects, every probe, and every frame the device had
//! to take no action on, with the requirement that says so (`RCV-FRAME-001`,
//! [`DecodedFrame::discard_reason`]; an opcode no QP takes, `RCV-OPC-001`).
//!
//! A write copy counts as *accepted* when the scenario expects its payload placed (a DMA
//! write of that PSN) and it is the last sound copy to arrive by then, or when it carries no
//! payload; later sound copies are duplicates; earlier ones, and copies of PSNs never
//! placed, were rejected by the receive checks; each rejected copy carries the discard rule
//! of the first check it fails, when the inputs tell it (`receive`). A frame the device must discard keeps the
//! PSN its BTH names — or, when its damage hides the BTH (a broken IP header or length),
//! the BTH its headers would put where they are set right — so that an output acting on it
//! can be named by what is wrong with it (`CONF-CMP-023`).

use std::collections::HashMap;

use openrdma_codec::Ev;
use openrdma_codec::frame::{DecodedFrame, ETH_HEADER_LEN, IPV6_HEADER_LEN, IpRepr};
use openrdma_codec::{BthRepr, EtherType, Opcode};
use openrdma_device::{Body, Direction, HostCommand, Input, NicEvent, NicReport, Scenario};

use super::obs::In;
use super::receive::{Receiver, Write};
use crate::req::*;

/// How the EV of a copy travelled (`ENC-EV-001`, `ENC-EV-002`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Carrier {
    /// Over IPv4: the EV is `src_port << 16`.
    V4,
    /// Over IPv6, with these bits 19:16 of the flow label, which are no part of the EV.
    V6 {
        /// `flow_label[19:16]`, in place.
        high: u32,
    },
}

/// One arrival of a write at the device.
#[derive(Debug, Clone, Copy)]
pub(super) struct WriteCopy {
    pub(super) at: u64,
    pub(super) ev: Ev,
    pub(super) carrier: Carrier,
    pub(super) ts: u16,
    pub(super) bytes: u64,
    pub(super) status: Status,
    /// For a copy the receive checks discarded: the discard rule of the first check it
    /// fails, when the judge can tell it from the inputs ([`Receiver::refusal`]).
    pub(super) refused: Option<Clause>,
    /// For such a copy, or a duplicate: whether the region check (RCV-PLACE-002.a) refuses
    /// it too, so that a NAK for it is the answer of a check run out of the order of
    /// RCV-CHECK-001, or of a duplicate checked further (RCV-DUP-001.a).
    pub(super) region_refused: bool,
    /// For a copy discarded because its MSN had retired (`FLAG-LAST-002`): its retirement
    /// domain and its MSN's offset from the domain's next MSN (`RET-CAP-002`).
    pub(super) retired: Option<(u32, u16)>,
    /// For the accepted copy: its MSN lay, when it arrived, at an offset from its
    /// domain's next MSN that only a shared retirement table holds (`RET-CAP-001`).
    pub(super) shared_far: bool,
}

/// What the device must have done with a write copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    /// The copy the scenario expects placed (the last sound one to arrive by the time of
    /// its expected DMA write), or a sound one that carries nothing to place.
    Accepted,
    /// A sound copy after the accepted one: a duplicate, which a SACK answers.
    Duplicate,
    /// A sound copy before the accepted one, or of a PSN never placed: the receive checks
    /// discarded it.
    Rejected,
    /// A frame the device must take no action on, for the requirement named.
    Discarded(Clause),
}

/// One arrival of a probe.
#[derive(Debug, Clone, Copy)]
pub(super) struct ProbeCopy {
    pub(super) at: u64,
    pub(super) ev: Ev,
    pub(super) carrier: Carrier,
    pub(super) ts: u16,
    pub(super) id: u16,
    /// Its BTH `psn`, which names no packet (PETH-PSN-001).
    pub(super) psn: u32,
}

/// What reached each of the device's QPs, from the injected frames.
#[derive(Debug, Default)]
pub(super) struct Arrivals {
    pub(super) writes: HashMap<(u32, u32), Vec<WriteCopy>>,
    pub(super) probes: HashMap<u32, Vec<ProbeCopy>>,
    /// When the scenario has each QP enter the error state: the time of its `QpError`
    /// report, by QP number.
    failed: HashMap<u32, u64>,
    /// The scenario's `sack_delay`, in ns: the longest a responder's SACK timer holds a
    /// write before it answers the last one (RCV-SACK-004).
    pub(super) sack_delay: u64,
    /// The PSN before the first that each QP expects: its peer's initial PSN minus 1, the
    /// `cack_psn` of a SACK sent before any write arrived (SETH-CACK-001), by QP number.
    pub(super) before_first: HashMap<u32, u32>,
}

/// How the EV of a decoded frame travelled.
fn carrier(d: &DecodedFrame<'_>) -> Carrier {
    match &d.ip {
        Some(IpRepr::V6(v6)) => Carrier::V6 { high: v6.flow_label & 0xF_0000 },
        _ => Carrier::V4,
    }
}

/// The BTH a frame carries, or, when its damage stops the decoder before the BTH, the one
/// its headers would put where they are set right: IPv4 with the header length its `ihl`
/// gives (20 bytes when that is too small), IPv6 with its 40 bytes, then 8 bytes of UDP;
/// behind an ethertype that is not IP, the IP header its version nibble names.
fn intended_bth(bytes: &[u8], d: &DecodedFrame<'_>) -> Option<BthRepr> {
    if let Some(b) = d.bth {
        return Some(b);
    }
    let eth = d.eth?;
    let (ethertype, ip_at) = match d.vlans.last() {
        Some(v) => (v.ethertype, ETH_HEADER_LEN + 4 * d.vlans.len()),
        None => (eth.ethertype, ETH_HEADER_LEN),
    };
    // Behind another ethertype, the IP header a device that ignores it would read by the
    // version nibble (ENC-ROCE-001).
    let version = *bytes.get(ip_at)? >> 4;
    let ip_len = if ethertype == EtherType::IPV4 || (ethertype != EtherType::IPV6 && version == 4) {
        usize::from(*bytes.get(ip_at)? & 0x0F).max(5) * 4
    } else if ethertype == EtherType::IPV6 || version == 6 {
        IPV6_HEADER_LEN
    } else {
        return None;
    };
    let udp_at = ip_at + ip_len;
    // A datagram to another port is no RoCEv2 packet, but a device that takes it reads
    // the BTH where RoCEv2 puts it (ENC-UDP-001.b).
    BthRepr::parse(bytes.get(udp_at + 8..)?).ok()
}

/// The receive rule that makes a device take frame `d` in spite of what is unusual in it:
/// a value a receiver must accept or ignore (a non-zero `tver`, reserved bits, `rtx` on a
/// packet that is no write, another TSETH or PETH `ftype`, the PDC identifiers, types and
/// congestion-control fields of a PETH, SETH or NETH, a SETH `m` of 3, a NETH's vendor
/// detail, EETH `data`, an ACK's credit code, pad bytes, IPv4 options, Ethernet padding, an 802.1ad tag, a zero UDP
/// checksum over IPv6, flow-label bits 19:16). `None` for a frame with none of them.
pub(super) fn accept_clause(d: &DecodedFrame<'_>) -> Option<crate::req::Clause> {
    if d.error.is_some() || d.discard_reason().is_some() {
        return None;
    }
    let bth = d.bth?;
    let v6 = match &d.ip {
        Some(IpRepr::V6(v6)) => Some(v6),
        _ => None,
    };
    let v4_options = matches!(&d.ip, Some(IpRepr::V4(v4)) if !v4.options.is_empty());
    let tseth = d.ext.tseth;
    let (peth, seth, neth) = (d.ext.peth, d.ext.seth, d.ext.neth);
    Some(if bth.tver != 0 {
        BTH_TVER_001_B
    } else if bth.fecn || bth.becn || bth.resv6 != 0 {
        BTH_RESV_002_B
    } else if bth.rtx && !bth.opcode.is_mrc_write() {
        BTH_RTX_002_B
    } else if tseth.is_some_and(|t| t.ftype != 1) {
        TSETH_FTYPE_001_B
    } else if peth.is_some_and(|p| p.ftype != 1) {
        PETH_FTYPE_001_B
    } else if peth.is_some_and(|p| p.spdcid != 0 || p.dpdcid != 0) {
        PETH_PDC_001_B
    } else if seth.is_some_and(|s| s.spdcid != 0 || s.dpdcid != 0) {
        SETH_PDC_001_B
    } else if seth.is_some_and(|s| s.res_type != 0 || s.next_header != 0) {
        SETH_TYPE_001_B
    } else if seth.is_some_and(|s| s.cc_type != 0 || s.cc_flags != 0) {
        SETH_CC_001_B
    } else if seth.is_some_and(|s| s.m.0 == 3) {
        SETH_M_001_B
    } else if neth.is_some_and(|n| n.spdcid != 0 || n.dpdcid != 0) {
        NETH_PDC_001_B
    } else if neth.is_some_and(|n| n.res_type != 0 || n.next_header != 0) {
        NETH_TYPE_001_B
    } else if neth.is_some_and(|n| n.vendor_info != 0) {
        NETH_VENDOR_001_B
    } else if d.ext.eeth.is_some_and(|e| e.data.iter().any(|&b| b != 0)) {
        EETH_DATA_001_B
    } else if d.ext.aeth.is_some_and(|a| a.syndrome & 0x60 == 0 && a.syndrome != 0x1F) {
        AETH_MRC_002_B
    } else if bth.resv8 != 0
        || tseth.is_some_and(|t| t.tsr || t.resv != 0)
        || peth.is_some_and(|p| p.tsr || p.resv0 != 0 || p.resv6 != 0 || p.resv14 != 0)
        || seth.is_some_and(|s| s.resv1 != 0 || s.resv12 != 0)
        || neth.is_some_and(|n| n.resv1 != 0 || n.resv12 != 0)
        || d.ext.erth.is_some_and(|x| x.resv1 != 0 || x.resv12 != 0)
        || d.ext.eeth.is_some_and(|x| x.resv2 != 0)
    {
        DEC_RESV_001_B
    } else if d.pad.iter().any(|&b| b != 0) {
        PAY_PAD_002_B
    } else if v4_options {
        ENC_IPV4_006_B
    } else if !d.eth_padding.is_empty() {
        ENC_LEN_003
    } else if d.eth.is_some_and(|e| e.ethertype == EtherType::QINQ) {
        ENC_VLAN_002_C
    } else if v6.is_some() && d.udp.is_some_and(|u| u.checksum == 0) {
        ENC_UDP_004_B
    } else if v6.is_some_and(|v| v.flow_label & 0xF_0000 != 0) {
        ENC_EV_001_C
    } else {
        return None;
    })
}

impl Arrivals {
    pub(super) fn new(scenario: &Scenario, inputs: &[In<'_>]) -> Arrivals {
        // When the scenario expects each PSN placed.
        let mut placed: HashMap<(u32, u32), u64> = HashMap::new();
        for r in scenario.records.iter().filter(|r| r.dir == Direction::Expect) {
            if let Body::Event { event: NicEvent::DmaWrite(w) } = &r.body {
                let t = placed.entry((w.qpn.value(), w.psn.value())).or_insert(r.at.0);
                *t = (*t).min(r.at.0);
            }
        }
        let mut a = Arrivals {
            sack_delay: u64::try_from(scenario.manifest.nic.sack_delay.as_nanos())
                .unwrap_or(u64::MAX),
            ..Arrivals::default()
        };
        for r in &scenario.records {
            if let Body::Host { command: HostCommand::CreateQp(q) } = &r.body {
                let before = q.peer_initial_psn.value().wrapping_sub(1) & 0xFF_FFFF;
                a.before_first.entry(q.qpn.value()).or_insert(before);
            }
        }
        // Each sound write copy, by the input that carried it: its key and its index.
        let mut sound_of: HashMap<usize, ((u32, u32), usize)> = HashMap::new();
        for (n, i) in inputs.iter().enumerate() {
            let Some(f) = &i.frame else { continue };
            let (bytes, d) = (f.bytes, &f.d);
            let reason = discard_rule(d);
            let Some(bth) = intended_bth(bytes, d) else { continue };
            let qp = bth.dest_qp.value();
            let ev = d.entropy().unwrap_or_default();
            let carrier = carrier(d);
            if let Some(reason) = reason {
                // A frame to discard that a device could take for a write: one whose BTH
                // names a write, an opcode with no meaning at all, or one that carries a
                // RETH to place at.
                let like_write = bth.opcode.is_mrc_write()
                    || bth.opcode.info().is_none()
                    || d.ext.reth.is_some();
                if like_write {
                    a.writes.entry((qp, bth.psn.value())).or_default().push(WriteCopy {
                        at: i.at,
                        ev,
                        carrier,
                        ts: d.ext.tseth.map_or(0, |t| t.tx_timestamp),
                        bytes: d.payload.len() as u64,
                        status: Status::Discarded(reason),
                        refused: None,
                        region_refused: false,
                        retired: None,
                        shared_far: false,
                    });
                }
            } else if bth.opcode.is_mrc_write() {
                let copies = a.writes.entry((qp, bth.psn.value())).or_default();
                sound_of.insert(n, ((qp, bth.psn.value()), copies.len()));
                copies.push(WriteCopy {
                    at: i.at,
                    ev,
                    carrier,
                    ts: d.ext.tseth.map_or(0, |t| t.tx_timestamp),
                    bytes: d.payload.len() as u64,
                    status: Status::Rejected,
                    refused: None,
                    region_refused: false,
                    retired: None,
                    shared_far: false,
                });
            } else if bth.opcode == Opcode::MRC_PROBE {
                if let Some(p) = d.ext.peth {
                    a.probes.entry(qp).or_default().push(ProbeCopy {
                        at: i.at,
                        ev,
                        carrier,
                        ts: p.tx_timestamp,
                        id: p.probe_id,
                        psn: bth.psn.value(),
                    });
                }
            }
        }
        for (key, copies) in &mut a.writes {
            let sound = |c: &WriteCopy| !matches!(c.status, Status::Discarded(_));
            let accepted = match placed.get(key) {
                Some(&t) => copies.iter().rposition(|c| sound(c) && c.at <= t),
                None => copies.iter().position(|c| sound(c) && c.bytes == 0),
            };
            if let Some(k) = accepted {
                copies[k].status = Status::Accepted;
                for c in copies[k + 1..].iter_mut().filter(|c| sound(c)) {
                    c.status = Status::Duplicate;
                }
            }
        }
        a.refusals(scenario, inputs, &sound_of);
        a
    }

    /// Names the receive check that discarded each rejected copy: the inputs replayed in
    /// order through the judge's account of the responder ([`Receiver`]), which learns
    /// from the accepted copies and from the QPs the scenario expects to fail.
    fn refusals(
        &mut self,
        scenario: &Scenario,
        inputs: &[In<'_>],
        sound_of: &HashMap<usize, ((u32, u32), usize)>,
    ) {
        let mut failures: Vec<(u64, u32)> = scenario
            .expects()
            .filter_map(|r| match &r.body {
                Body::Event { event: NicEvent::Report(NicReport::QpError { qpn, .. }) } => {
                    Some((r.at.0, qpn.value()))
                }
                _ => None,
            })
            .collect();
        failures.sort_unstable();
        for &(t, qp) in &failures {
            self.failed.entry(qp).or_insert(t);
        }
        let mut failed = 0;
        let mut rx = Receiver::new(&scenario.manifest);
        for (n, i) in inputs.iter().enumerate() {
            if let Input::Host { command } = i.input {
                rx.host(command);
                continue;
            }
            let Some(&(key, k)) = sound_of.get(&n) else { continue };
            let Some(w) = i.frame.as_ref().and_then(|f| Write::of(&f.d)) else { continue };
            while failures.get(failed).is_some_and(|(t, _)| *t < i.at) {
                rx.fail(failures[failed].1);
                failed += 1;
            }
            let Some(c) = self.writes.get_mut(&key).and_then(|v| v.get_mut(k)) else { continue };
            match c.status {
                Status::Accepted => {
                    c.shared_far = rx.shared_far(&w);
                    rx.accept(&w);
                }
                Status::Rejected => {
                    c.refused = rx.refusal(&w);
                    if c.refused == Some(FLAG_LAST_002) {
                        c.retired = rx.position(&w);
                    }
                    c.region_refused = rx.region_refuses(&w);
                }
                Status::Duplicate => c.region_refused = rx.region_refuses(&w),
                _ => {}
            }
        }
    }

    /// The arrivals of scenario `s` as its records deliver them, with no device: what the
    /// judge can know of a run before it happens.
    pub(super) fn of_scenario(s: &Scenario) -> Arrivals {
        let delivered: Vec<(u64, Input)> = s
            .injects()
            .filter_map(|r| match r.body.input()? {
                Input::Cpu { .. } => None,
                input => Some((r.at.0, input)),
            })
            .collect();
        let inputs: Vec<In<'_>> = delivered
            .iter()
            .map(|(at, input)| In {
                at: *at,
                input,
                frame: match input {
                    Input::Frame { bytes, .. } => Some(super::obs::classify(*at, bytes)),
                    _ => None,
                },
            })
            .collect();
        Arrivals::new(s, &inputs)
    }

    /// When the scenario has QP `qp` enter the error state, if it does.
    pub(super) fn failed_at(&self, qp: u32) -> Option<u64> {
        self.failed.get(&qp).copied()
    }

    /// Whether a sound write copy or a probe reached QP `qp` in `(after, by]`.
    pub(super) fn reached(&self, qp: u32, after: u64, by: u64) -> bool {
        let within = |t: u64| after < t && t <= by;
        let write = self.writes.iter().filter(|((q, _), _)| *q == qp).any(|(_, v)| {
            v.iter().any(|c| within(c.at) && !matches!(c.status, Status::Discarded(_)))
        });
        write || self.probes.get(&qp).is_some_and(|v| v.iter().any(|p| within(p.at)))
    }

    /// For the latest copy of PSN `psn` of QP `qp` at or before `by`, when it is one the
    /// retirement check discarded (`FLAG-LAST-002`): the earlier copies of writes of the
    /// same retirement domain that the check discarded too, with their MSNs at another
    /// offset from the next MSN, each as its QP, PSN and arrival, with the arrival of
    /// the latest copy (`CONF-CMP-134`).
    pub(super) fn retired_before(&self, qp: u32, psn: u32, by: u64) -> (u64, Vec<(u32, u32, u64)>) {
        let latest = self.writes.get(&(qp, psn)).and_then(|v| {
            v.iter().rfind(|c| c.at <= by && !matches!(c.status, Status::Discarded(_)))
        });
        let Some((domain, offset)) = latest.and_then(|c| c.retired) else {
            return (0, Vec::new());
        };
        let at = latest.map_or(0, |c| c.at);
        let mut out = Vec::new();
        for (&(q, p), v) in &self.writes {
            for c in v.iter().filter(|c| c.at < at) {
                if c.retired.is_some_and(|(d, o)| d == domain && o != offset) {
                    out.push((q, p, c.at));
                }
            }
        }
        out.sort_unstable_by_key(|&(q, p, t)| (t, q, p));
        (at, out)
    }

    /// Whether scenario `s`'s own inputs hold two writes of one retirement domain that the
    /// retirement check discards, with their MSNs at different offsets from the next MSN:
    /// where a device that discards one and places the other shows a misplaced offset
    /// (`RET-CAP-002`, `CONF-CMP-134`).
    pub(super) fn retired_offsets_differ(&self) -> bool {
        let mut seen: HashMap<u32, u16> = HashMap::new();
        for (d, o) in self.writes.values().flatten().filter_map(|c| c.retired) {
            if seen.insert(d, o).is_some_and(|o0| o0 != o) {
                return true;
            }
        }
        false
    }

    /// The discard rules of the receive checks that discarded the rejected writes.
    pub(super) fn refused(&self) -> impl Iterator<Item = Clause> + '_ {
        self.writes.values().flatten().filter_map(|c| c.refused)
    }

    /// When PSN `psn` of QP `qp` was first accepted, if it was.
    pub(super) fn accepted_at(&self, qp: u32, psn: u32) -> Option<u64> {
        self.writes.get(&(qp, psn))?.iter().find(|c| c.status == Status::Accepted).map(|c| c.at)
    }

    /// The accepted PSNs of QP `qp`, each with the time and size of its first acceptance.
    pub(super) fn accepted(&self, qp: u32) -> impl Iterator<Item = (u32, u64, u64)> + '_ {
        self.writes.iter().filter(move |((q, _), _)| *q == qp).filter_map(|((_, psn), v)| {
            let first = v.iter().find(|c| c.status == Status::Accepted)?;
            Some((*psn, first.at, first.bytes))
        })
    }

    /// When some copy of PSN `psn` of QP `qp` arrived at or before `by` and every such copy
    /// was a frame to discard: the requirement that makes the latest of them so.
    pub(super) fn only_discarded(&self, qp: u32, psn: u32, by: u64) -> Option<Clause> {
        let mut reason = None;
        for c in self.writes.get(&(qp, psn))?.iter().filter(|c| c.at <= by) {
            match c.status {
                Status::Discarded(r) => reason = Some(r),
                _ => return None,
            }
        }
        reason
    }

    /// When some sound copy of PSN `psn` of QP `qp` arrived at or before `by` and every
    /// such copy was one the receive checks discarded for a reason the judge can tell: the
    /// discard rule of the latest of them.
    pub(super) fn only_refused(&self, qp: u32, psn: u32, by: u64) -> Option<Clause> {
        let mut rule = None;
        let copies = self.writes.get(&(qp, psn))?.iter().filter(|c| c.at <= by);
        for c in copies.filter(|c| !matches!(c.status, Status::Discarded(_))) {
            match (c.status, c.refused) {
                (Status::Rejected, Some(r)) => rule = Some(r),
                _ => return None,
            }
        }
        rule
    }

    /// The copies of writes of QP `qp` that arrived on EV `ev` at most `late_ns` before a
    /// transport NAK on that EV at `at`: the writes that NAK may answer, and the frames
    /// discarded before any receive check.
    fn nak_may_answer(
        &self,
        qp: u32,
        ev: Ev,
        at: u64,
        late_ns: u64,
    ) -> impl Iterator<Item = &WriteCopy> + '_ {
        self.writes
            .iter()
            .filter(move |((q, _), _)| *q == qp)
            .flat_map(|(_, v)| v.iter())
            .filter(move |c| c.ev == ev && c.at <= at && at <= c.at.saturating_add(late_ns))
    }

    /// The rule a transport NAK of QP `qp` on EV `ev` at `at` breaks, when the writes it
    /// may answer tell: [`Self::nak_of_silent`], else [`Self::nak_of_accepted`].
    pub(super) fn nak_rule(
        &self,
        qp: u32,
        ev: Ev,
        at: u64,
        late_ns: u64,
    ) -> Option<(Clause, &'static str)> {
        self.nak_of_silent(qp, ev, at, late_ns)
            .or_else(|| self.nak_of_accepted(qp, ev, at, late_ns))
    }

    /// The rule a transport NAK on EV `ev` at `at` breaks when it answers a write of QP
    /// `qp` that a receive check before the region check discards: the latest write that
    /// NAK may answer. When the region check refuses that write too, the NAK is that
    /// check's answer, given before the check that comes first: RCV-DUP-001.a for a
    /// duplicate (checked further), RCV-CHECK-001 for a write discarded in silence or out
    /// of the window. Otherwise a write discarded without response names its discard rule.
    fn nak_of_silent(
        &self,
        qp: u32,
        ev: Ev,
        at: u64,
        late_ns: u64,
    ) -> Option<(Clause, &'static str)> {
        let answered = self
            .nak_may_answer(qp, ev, at, late_ns)
            .filter(|c| !matches!(c.status, Status::Discarded(_)))
            .max_by_key(|c| c.at)?;
        let rule = match answered.status {
            Status::Duplicate => RCV_DUP_001_A,
            _ => answered.refused?,
        };
        let silent = super::receive::silent(rule);
        match (rule, answered.region_refused) {
            (RCV_DUP_001_A, true) => {
                Some((rule, "a transport NAK for a duplicate, which no receive check may refuse"))
            }
            (_, true) if silent || rule == RCV_WIN_002_B => Some((
                RCV_CHECK_001,
                "a transport NAK for a write that an earlier receive check discards",
            )),
            _ if silent => Some((rule, "a transport NAK for a write discarded without response")),
            _ => None,
        }
    }

    /// The rule a transport NAK on EV `ev` at `at` breaks when every copy of a write of
    /// QP `qp` before it (`nak_may_answer`) is one the scenario has the device accept and
    /// the region check does not refuse: that check refused a write that passes it. A
    /// duplicate, a refused or a discarded copy among them may be what the NAK answers, and
    /// then the NAK is named elsewhere.
    fn nak_of_accepted(
        &self,
        qp: u32,
        ev: Ev,
        at: u64,
        late_ns: u64,
    ) -> Option<(Clause, &'static str)> {
        let mut answered = self.nak_may_answer(qp, ev, at, late_ns).peekable();
        answered.peek()?;
        answered.all(|c| c.status == Status::Accepted && !c.region_refused).then_some((
            RCV_PLACE_002_A,
            "a transport NAK for a write that passes the region check",
        ))
    }

    /// Whether the accepted copy of PSN `psn` of QP `qp` lay at an offset from its
    /// domain's next MSN that only a shared retirement table holds.
    pub(super) fn shared_far(&self, qp: u32, psn: u32) -> bool {
        self.writes
            .get(&(qp, psn))
            .is_some_and(|v| v.iter().any(|c| c.status == Status::Accepted && c.shared_far))
    }

    /// What the device must have done with the latest sound copy of PSN `psn` of QP `qp`
    /// that arrived at or before `at`.
    pub(super) fn latest_status(&self, qp: u32, psn: u32, at: u64) -> Option<Status> {
        let mut copies = self.writes.get(&(qp, psn))?.iter().filter(|c| c.at <= at);
        copies.rfind(|c| !matches!(c.status, Status::Discarded(_))).map(|c| c.status)
    }

    /// The PSNs of QP `qp` of which a duplicate copy arrived at `at`.
    pub(super) fn duplicates_at(&self, qp: u32, at: u64) -> impl Iterator<Item = u32> + '_ {
        self.writes.iter().filter(move |((q, _), _)| *q == qp).filter_map(move |((_, psn), v)| {
            v.iter().any(|c| c.at == at && c.status == Status::Duplicate).then_some(*psn)
        })
    }

    /// Whether any sound copy of PSN `psn` of QP `qp` arrived at or before `by`.
    pub(super) fn arrived(&self, qp: u32, psn: u32, by: u64) -> bool {
        self.writes.get(&(qp, psn)).is_some_and(|v| {
            v.iter().any(|c| c.at <= by && !matches!(c.status, Status::Discarded(_)))
        })
    }
}

/// Why a device must take no action on frame `d`: what makes it no sound RoCEv2 packet
/// ([`DecodedFrame::discard_reason`]), or an opcode that is no MRC packet for a QP
/// (`RCV-OPC-001`).
pub(super) fn discard_rule(d: &DecodedFrame<'_>) -> Option<Clause> {
    match d.discard_reason() {
        Some(r) => super::wire::discard_clause(r),
        None => {
            let op = d.bth?.opcode;
            (op.info().is_some() && !op.is_mrc()).then_some(RCV_OPC_001)
        }
    }
}

/// The requirement an EV reflected for a packet carried by `carrier` with EV `ev` breaks,
/// when `reflected` is not `ev`: the receiver's reconstruction, `ENC-EV-002.b` when IPv4
/// carried it and the reflection has bits 15:0 that IPv4 cannot carry, `ENC-EV-001.c` when
/// the reflection differs from `ev` only by the flow label's bits 19:16, and otherwise the
/// reflection's own rule.
pub(super) fn ev_requirement(carrier: Carrier, ev: Ev, reflected: Ev, otherwise: Clause) -> Clause {
    match carrier {
        Carrier::V4 if reflected.low() != 0 => ENC_EV_002_B,
        Carrier::V6 { high }
            if high != 0 && (reflected.value() ^ ev.value()) & !0x000F_0000 == 0 =>
        {
            ENC_EV_001_C
        }
        _ => otherwise,
    }
}
