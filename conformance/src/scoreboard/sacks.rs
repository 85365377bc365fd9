//! SACKs are judged by what they say, not by how many there are (`spec/conformance.md`,
//! CONF-CMP-006 and CONF-CMP-007).
//!
//! The scoreboard rebuilds, from the frames the runner injected, what the device had
//! received on each of its QPs and when: every copy of every write (its EV, its TSETH
//! timestamp, its payload length) and every probe. A write copy counts as *accepted* when
//! the scenario expects its payload placed (a DMA write of that PSN) or it carries no
//! payload; a copy that the scenario expects discarded — a segment, placement or MSN error
//! — is never counted as received, and a SACK must not answer it. A frame with a bad ICRC
//! never reached the transport (ICRC-VERIFY-001).
//!
//! Each SACK the device sends is then held to the field rules of RCV-SACK-005..007 and the
//! SETH and CC_STATE requirements:
//!
//! * **truth**: every PSN it claims (at or before `cack_psn`, or a set bitmap bit) had been
//!   accepted when it was sent (SETH-CACK-001, SETH-BITMAP-001);
//! * **completeness**: every PSN accepted more than the lateness tolerance before the SACK
//!   is claimed, so `cack_psn + 1` is not such a PSN (SETH-CACK-001, SETH-BITMAP-001) — a
//!   pipelined device may build a SACK from state a little older than its send time, never
//!   older than the tolerance;
//! * **fixed fields**: `sack_offset` 1, bit 0 clear (SETH-BITMAP-002), `mpr` the configured
//!   one, and the BTH PSN equal to `cack_psn` (OPC-PSN-001, a SHOULD); `m` not the reserved
//!   3 and the reserved bits 0 are wire rules, judged for every frame (`super::wire`);
//! * **the trigger**: with `pr` 0, `cack_psn + ack_psn_offset` is the PSN of a write copy
//!   that had arrived (SETH-ACKPSN-001), not one the device had to discard without response
//!   (RCV-REJECT-001), whose EV is the SACK's `entropy` (SETH-EV-001; ENC-EV-003 when the
//!   value is that EV read without its reconstruction, the flow label's bits 19:16 kept or
//!   the source port taken for the low half) and the EV the SACK travels on (RCV-SACK-006),
//!   and whose TSETH timestamp is the CC_STATE `tx_timestamp` (CCS-TS-001); with `pr` 1,
//!   the same for the probe whose `probe_id` is `ack_psn_offset` (SETH-PR-001,
//!   SETH-ACKPSN-002);
//! * **counters**: `ooo_count` and `rcvd_bytes` lie between their values over the writes
//!   accepted up to the tolerance before the SACK and over those accepted up to the SACK
//!   (CCS-OOO-001, CCS-BYTES-001).
//!
//! Progress is judged against the scenario's own SACKs: by the time of each, plus the
//! tolerance, the device must have reported at least as much cumulative progress
//! (the record's requirement, RCV-SACK-001 by default).

use std::collections::HashMap;

use openrdma_codec::Opcode;
use openrdma_codec::frame::{IcrcStatus, decode};
use openrdma_sm::NicEvent;

use super::{Divergence, FieldDiff, Frame, Kind, render_frame, req_of};
use crate::device::{Input, TimedInput};
use crate::scenario::{Body, Direction, Record, Scenario, Tolerances};

/// One arrival of a write at the device.
#[derive(Debug, Clone, Copy)]
struct WriteCopy {
    at: u64,
    ev: u32,
    misread: Misread,
    ts: u16,
    bytes: u64,
    status: Status,
}

/// What the device must have done with a write copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// The copy the scenario expects placed (the last to arrive by the time of its expected
    /// DMA write), or one that carries nothing to place.
    Accepted,
    /// A copy after the accepted one: a duplicate, which a SACK answers.
    Duplicate,
    /// A copy before the accepted one, or of a PSN never placed: discarded.
    Rejected,
}

/// One arrival of a probe.
#[derive(Debug, Clone, Copy)]
struct ProbeCopy {
    at: u64,
    ev: u32,
    misread: Misread,
    ts: u16,
    id: u16,
}

/// What a receiver that does not reconstruct the EV as ENC-EV-001 and ENC-EV-002 say
/// would report instead: the whole 20-bit flow label under the source port (bits 19:16
/// not ignored), or the source port as the low half. A reported EV equal to one of these,
/// and not to the EV, breaks ENC-EV-003.
#[derive(Debug, Clone, Copy)]
struct Misread([u32; 2]);

impl Misread {
    fn of(d: &openrdma_codec::frame::DecodedFrame<'_>) -> Misread {
        let port = d.udp.map_or(0, |u| u32::from(u.src_port));
        let unmasked = match &d.ip {
            Some(openrdma_codec::frame::IpRepr::V6(v6)) => port << 16 | v6.flow_label,
            _ => port << 16,
        };
        Misread([unmasked, port])
    }

    fn explains(self, ev: u32, reported: u32) -> bool {
        reported != ev && self.0.contains(&reported)
    }
}

/// What reached each of the device's QPs, from the injected frames.
#[derive(Debug, Default)]
struct Arrivals {
    writes: HashMap<(u32, u32), Vec<WriteCopy>>,
    probes: HashMap<u32, Vec<ProbeCopy>>,
}

impl Arrivals {
    fn new(scenario: &Scenario, injected: &[TimedInput]) -> Arrivals {
        // When the scenario expects each PSN placed.
        let mut placed: HashMap<(u32, u32), u64> = HashMap::new();
        for r in scenario.records.iter().filter(|r| r.dir == Direction::Expect) {
            if let Body::Event { event: NicEvent::DmaWrite(w) } = &r.body {
                let t = placed.entry((w.qpn.value(), w.psn.value())).or_insert(r.at.0);
                *t = (*t).min(r.at.0);
            }
        }
        let mut a = Arrivals::default();
        for i in injected {
            let Input::Frame { bytes, .. } = &i.input else { continue };
            let d = decode(bytes);
            if d.error.is_some() || matches!(d.icrc, IcrcStatus::Bad { .. }) {
                continue;
            }
            let Some(bth) = d.bth else { continue };
            let qp = bth.dest_qp.value();
            let ev = d.entropy().unwrap_or(0);
            if bth.opcode.is_mrc_write() {
                let psn = bth.psn.value();
                a.writes.entry((qp, psn)).or_default().push(WriteCopy {
                    at: i.at.0,
                    ev,
                    misread: Misread::of(&d),
                    ts: d.ext.tseth.map_or(0, |t| t.tx_timestamp),
                    bytes: d.payload.len() as u64,
                    status: Status::Rejected,
                });
            } else if bth.opcode == Opcode::MRC_PROBE {
                if let Some(p) = d.ext.peth {
                    a.probes.entry(qp).or_default().push(ProbeCopy {
                        at: i.at.0,
                        ev,
                        misread: Misread::of(&d),
                        ts: p.tx_timestamp,
                        id: p.probe_id,
                    });
                }
            }
        }
        for (key, copies) in &mut a.writes {
            let accepted = match placed.get(key) {
                Some(&t) => copies.iter().rposition(|c| c.at <= t),
                None => copies.iter().position(|c| c.bytes == 0),
            };
            if let Some(k) = accepted {
                copies[k].status = Status::Accepted;
                for c in &mut copies[k + 1..] {
                    c.status = Status::Duplicate;
                }
            }
        }
        a
    }

    /// When PSN `psn` of QP `qp` was first accepted, if it was.
    fn accepted_at(&self, qp: u32, psn: u32) -> Option<u64> {
        self.writes.get(&(qp, psn))?.iter().find(|c| c.status == Status::Accepted).map(|c| c.at)
    }

    /// The accepted PSNs of QP `qp`, each with the time and size of its first acceptance.
    fn accepted(&self, qp: u32) -> impl Iterator<Item = (u32, u64, u64)> + '_ {
        self.writes.iter().filter(move |((q, _), _)| *q == qp).filter_map(|((_, psn), v)| {
            let first = v.iter().find(|c| c.status == Status::Accepted)?;
            Some((*psn, first.at, first.bytes))
        })
    }
}

/// `a − b` as a signed 24-bit PSN distance.
fn psn_diff(a: u32, b: u32) -> i32 {
    ((a.wrapping_sub(b) << 8) as i32) >> 8
}

fn push(div: &mut Vec<Divergence>, f: &Frame, requirement: &str, what: String) {
    div.push(Divergence {
        at: f.at,
        requirement: requirement.into(),
        what,
        expected: None,
        actual: Some(render_frame(&f.bytes)),
        fields: vec![],
        should_only: false,
    });
}

fn push_field(
    div: &mut Vec<Divergence>,
    f: &Frame,
    requirement: &str,
    field: &str,
    expected: String,
    actual: String,
) {
    div.push(Divergence {
        at: f.at,
        requirement: requirement.into(),
        what: format!("SACK field {field} is wrong"),
        expected: None,
        actual: Some(render_frame(&f.bytes)),
        fields: vec![FieldDiff { field: field.into(), expected, actual }],
        should_only: false,
    });
}

/// Judges every SACK the device sent, and its progress against the expected SACKs.
pub(super) fn judge(
    scenario: &Scenario,
    injected: &[TimedInput],
    exp_frames: &[(&Record, Frame)],
    obs_frames: &[Frame],
    tol: &Tolerances,
    div: &mut Vec<Divergence>,
    checked: &mut usize,
) {
    let arrivals = Arrivals::new(scenario, injected);
    let peer_of = super::peer_map(scenario);
    let mpr = scenario.manifest.nic.mpr;
    let window = u32::from(mpr) * 128;
    for of in obs_frames {
        let Kind::Sack { qp, .. } = of.kind else { continue };
        let Some(&local) = peer_of.get(&qp) else { continue };
        judge_one(&arrivals, local, mpr, window, of, tol, div);
    }

    // Timely cumulative progress.
    for (rec, ef) in exp_frames {
        let Kind::Sack { qp, cack, .. } = ef.kind else { continue };
        *checked += 1;
        let deadline = rec.at.0.saturating_add(tol.late_ns);
        let best = obs_frames
            .iter()
            .filter(|f| f.at <= deadline)
            .filter_map(|f| match f.kind {
                Kind::Sack { qp: q, cack: c, .. } if q == qp => Some(c),
                _ => None,
            })
            .max_by_key(|&c| psn_diff(c, cack));
        if best.is_none_or(|c| psn_diff(c, cack) < 0) {
            div.push(Divergence {
                at: rec.at.0,
                requirement: req_of(rec, "RCV-SACK-001"),
                what: format!(
                    "no SACK reported cumulative progress to PSN {cack} by {deadline} ns"
                ),
                expected: Some(render_frame(&ef.bytes)),
                actual: best.map(|c| format!("best cumulative PSN reported in time: {c}")),
                fields: vec![],
                should_only: false,
            });
        }
    }
}

fn judge_one(
    arrivals: &Arrivals,
    local: u32,
    mpr: u8,
    window: u32,
    of: &Frame,
    tol: &Tolerances,
    div: &mut Vec<Divergence>,
) {
    let d = decode(&of.bytes);
    let (Some(bth), Some(s)) = (d.bth, d.ext.seth) else { return };
    let cack = s.cack_psn.value();
    let base = s.bitmap_base().value();
    let by_now = |t: u64| t <= of.at;
    let well_before = |t: u64| t.saturating_add(tol.late_ns) <= of.at;

    // Fixed fields.
    if s.sack_offset != 1 {
        push_field(
            div,
            of,
            "RCV-SACK-005",
            "seth.sack_offset",
            "1".into(),
            s.sack_offset.to_string(),
        );
    }
    if s.mpr != mpr {
        push_field(div, of, "RCV-SACK-005", "seth.mpr", mpr.to_string(), s.mpr.to_string());
    }
    if s.sack_offset == 1 && s.sack_bitmap & 1 != 0 {
        push(div, of, "SETH-BITMAP-002", "bit 0 of the bitmap (PSN cack_psn + 1) is set".into());
    }
    if bth.psn.value() != cack {
        // The SHOULD of OPC-PSN-001: a non-strict divergence.
        push_field(
            div,
            of,
            "OPC-PSN-001",
            "bth.psn",
            cack.to_string(),
            bth.psn.value().to_string(),
        );
        if let Some(d) = div.last_mut() {
            d.should_only = true;
        }
    }
    let ccs = d.ext.cc_state;

    // Truth: nothing claimed that had not been accepted by now.
    let has = |psn: u32| arrivals.accepted_at(local, psn).is_some_and(by_now);
    let claimed_cumulative = arrivals
        .writes
        .keys()
        .filter(|&&(q, p)| q == local && psn_diff(cack, p) >= 0)
        .map(|&(_, p)| p);
    let mut bits = s.sack_bitmap;
    let mut claimed: Vec<u32> = claimed_cumulative.collect();
    while bits != 0 {
        let i = bits.trailing_zeros();
        bits &= bits - 1;
        claimed.push(base.wrapping_add(i) & 0xFF_FFFF);
    }
    claimed.sort_unstable();
    if let Some(p) = claimed.into_iter().find(|&p| !has(p)) {
        push(div, of, "SETH-CACK-001", format!("the SACK claims PSN {p}, which had not arrived"));
    }

    // Completeness: what arrived well before is claimed.
    let next = cack.wrapping_add(1) & 0xFF_FFFF;
    if arrivals.accepted_at(local, next).is_some_and(well_before) {
        push(
            div,
            of,
            "SETH-CACK-001",
            format!(
                "cack_psn {cack} understates: PSN {next} had arrived more than {} ns earlier",
                tol.late_ns
            ),
        );
    } else if s.sack_offset == 1 {
        let missing = (1..64u32).map(|i| (i, base.wrapping_add(i) & 0xFF_FFFF)).find(|&(i, p)| {
            s.sack_bitmap >> i & 1 == 0 && arrivals.accepted_at(local, p).is_some_and(well_before)
        });
        if let Some((i, p)) = missing {
            push(
                div,
                of,
                "SETH-BITMAP-001",
                format!(
                    "bit {i} (PSN {p}) is clear, but that PSN had arrived more than {} ns earlier",
                    tol.late_ns
                ),
            );
        }
    }

    // The trigger.
    let (trigger_ev, trigger_ts, misread) = if s.pr {
        let probe_id = s.ack_psn_offset as u16;
        let probes = arrivals.probes.get(&local).map(Vec::as_slice).unwrap_or(&[]);
        let candidates: Vec<&ProbeCopy> =
            probes.iter().filter(|p| p.id == probe_id && by_now(p.at)).collect();
        if candidates.is_empty() {
            let req = if probes.is_empty() { "SETH-PR-001" } else { "SETH-ACKPSN-002" };
            push(
                div,
                of,
                req,
                format!("pr is 1, but no probe with probe_id {probe_id} had arrived"),
            );
            return;
        }
        let misread = candidates.iter().any(|p| p.misread.explains(p.ev, s.entropy));
        match candidates.iter().find(|p| p.ev == s.entropy).or(candidates.last()) {
            Some(p) => (p.ev, p.ts, misread),
            None => return,
        }
    } else {
        let psn = cack.wrapping_add(i32::from(s.ack_psn_offset) as u32) & 0xFF_FFFF;
        let copies: Vec<&WriteCopy> = arrivals
            .writes
            .get(&(local, psn))
            .map(|v| v.iter().filter(|c| by_now(c.at)).collect())
            .unwrap_or_default();
        if copies.is_empty() {
            push(
                div,
                of,
                "SETH-ACKPSN-001",
                format!(
                    "cack_psn + ack_psn_offset is PSN {psn}, and no write with that PSN had arrived"
                ),
            );
            return;
        }
        let copies: Vec<&WriteCopy> =
            copies.into_iter().filter(|c| c.status != Status::Rejected).collect();
        if copies.is_empty() {
            push(
                div,
                of,
                "RCV-REJECT-001",
                format!(
                    "the SACK answers PSN {psn}, a write the device must discard without response"
                ),
            );
            return;
        }
        let misread = copies.iter().any(|c| c.misread.explains(c.ev, s.entropy));
        match copies.iter().find(|c| c.ev == s.entropy).or(copies.last()) {
            Some(c) => (c.ev, c.ts, misread),
            None => return,
        }
    };
    if s.entropy != trigger_ev {
        // A value read from the frame without the reconstruction breaks ENC-EV-003.
        let requirement = if misread { "ENC-EV-003" } else { "SETH-EV-001" };
        push_field(
            div,
            of,
            requirement,
            "seth.entropy",
            format!("{trigger_ev:#x}"),
            format!("{:#x}", s.entropy),
        );
    } else if of.ev != trigger_ev {
        push_field(
            div,
            of,
            "RCV-SACK-006",
            "ev",
            format!("{trigger_ev:#x}"),
            format!("{:#x}", of.ev),
        );
    }
    if let Some(c) = ccs {
        if c.tx_timestamp != trigger_ts {
            push_field(
                div,
                of,
                "CCS-TS-001",
                "cc_state.tx_timestamp",
                trigger_ts.to_string(),
                c.tx_timestamp.to_string(),
            );
        }
        // Counters, between what had arrived well before and what had arrived by now.
        let (mut ooo, mut bytes) = ([0u32; 2], [0u64; 2]);
        for (psn, at, len) in arrivals.accepted(local) {
            for (k, within) in [well_before(at), by_now(at)].into_iter().enumerate() {
                if within {
                    bytes[k] += len;
                    let ahead = psn_diff(psn, cack);
                    if ahead > 0 && (ahead as u32) <= window {
                        ooo[k] += 1;
                    }
                }
            }
        }
        let ooo = ooo.map(|n| n.min(0x7FFF));
        if !(ooo[0]..=ooo[1]).contains(&u32::from(c.ooo_count)) {
            push_field(
                div,
                of,
                "CCS-OOO-001",
                "cc_state.ooo_count",
                range(ooo[0].into(), ooo[1].into()),
                c.ooo_count.to_string(),
            );
        }
        let units = bytes.map(|b| b >> 8);
        let got = u64::from(c.rcvd_bytes);
        let ok = got.wrapping_sub(units[0]) & 0xFF_FFFF <= units[1] - units[0]
            || units[1] - units[0] > 0xFF_FFFF;
        if !ok {
            push_field(
                div,
                of,
                "CCS-BYTES-001",
                "cc_state.rcvd_bytes",
                range(units[0] & 0xFF_FFFF, units[1] & 0xFF_FFFF),
                got.to_string(),
            );
        }
    }
}

fn range(lo: u64, hi: u64) -> String {
    if lo == hi { lo.to_string() } else { format!("{lo} ..= {hi}") }
}
