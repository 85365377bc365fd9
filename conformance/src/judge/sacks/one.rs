//! One SACK the device sent, judged field by field against what the device had received
//! (the rules of the parent module's top doc).

use super::*;

/// One SACK the device sent, and what judging it needs.
pub(super) struct One<'a> {
    pub(super) arrivals: &'a Arrivals,
    pub(super) local: u32,
    pub(super) of: &'a Frame<'a>,
    pub(super) s: SethRepr,
    pub(super) tol: &'a Tolerances,
    pub(super) never_placed: &'a NeverPlaced<'a>,
}

impl One<'_> {
    fn by_now(&self, t: u64) -> bool {
        t <= self.of.at
    }

    /// Whether a sound copy of a write of the QP arrived on EV `ev` within the lateness
    /// tolerance before the SACK.
    fn just_arrived_on(&self, ev: Ev) -> bool {
        let recent = |t: u64| self.by_now(t) && !self.well_before(t);
        self.arrivals.writes.iter().filter(|((q, _), _)| *q == self.local).any(|(_, v)| {
            v.iter().any(|c| {
                c.ev == ev
                    && recent(c.at)
                    && matches!(c.status, Status::Accepted | Status::Duplicate)
            })
        })
    }

    /// Whether `t` is more than `late_ns` before the SACK: what arrived then must be in it
    /// (CONF-CMP-045.c). One that arrived exactly `late_ns` before may be left out, by a
    /// builder whose state lags that long behind.
    fn well_before(&self, t: u64) -> bool {
        t.saturating_add(self.tol.late_ns) < self.of.at
    }

    /// Whether the SACK claims PSN `psn`: at or before `cack_psn`, or by its bit.
    fn claims(&self, psn: u32) -> bool {
        let off = psn.wrapping_sub(self.s.bitmap_base().value()) & 0xFF_FFFF;
        claimed_by_cack(self.s.cack_psn.value(), psn)
            || (off < 64 && self.s.sack_bitmap >> off & 1 == 1)
    }

    /// `sack_offset`, `mpr`, the fields that must be 0 and bit 0 of the bitmap.
    pub(super) fn fixed_fields(&self, mpr: u8, div: &mut Vec<Divergence>) {
        let (s, of) = (&self.s, self.of);

        // A bitmap based at or before `cack_psn` claims those PSNs again: each such bit is
        // 1 (SETH-BITMAP-002.a). A bit left 0 there contradicts the SACK's own `cack_psn`,
        // which is worse than the base chosen (RCV-SACK-005.c), so it is named first.
        if s.sack_offset <= 0 {
            let behind = (1 - i32::from(s.sack_offset)).min(64) as u32;
            if let Some(i) = (0..behind).find(|&i| s.sack_bitmap >> i & 1 == 0) {
                let psn = s.bitmap_base().value().wrapping_add(i) & 0xFF_FFFF;
                push(
                    div,
                    of,
                    SETH_BITMAP_002_A,
                    format!(
                        "bit {i} of the bitmap (PSN {psn}, at or before cack_psn {}) is clear",
                        s.cack_psn.value()
                    ),
                );
            }
        }
        // Fixed fields.
        if s.sack_offset != 1 {
            push_field(
                div,
                of,
                RCV_SACK_005_C,
                "seth.sack_offset",
                "1".into(),
                s.sack_offset.to_string(),
            );
        }
        if s.mpr != mpr {
            push_field(div, of, RCV_SACK_005_E, "seth.mpr", mpr.to_string(), s.mpr.to_string());
        }
        // Every SETH field no rule of the responder sets is 0 in a responder's SACK
        // (RCV-SACK-005.h), a MUST where the header's own rules ask any sender only with a
        // SHOULD (SETH-TYPE-001, SETH-PDC-001, SETH-CC-001). `m` is RCV-SACK-006's, the
        // reserved bits are SETH-RESV-001's (validate()).
        for (field, value) in [
            ("seth.res_type", u16::from(s.res_type)),
            ("seth.next_header", u16::from(s.next_header)),
            ("seth.spdcid", s.spdcid),
            ("seth.dpdcid", s.dpdcid),
            ("seth.cc_type", u16::from(s.cc_type)),
            ("seth.cc_flags", u16::from(s.cc_flags)),
        ] {
            if value != 0 {
                push_field(div, of, RCV_SACK_005_H, field, "0".into(), value.to_string());
            }
        }
        if s.sack_offset == 1 && s.sack_bitmap & 1 != 0 {
            push(
                div,
                of,
                SETH_BITMAP_002_B,
                "bit 0 of the bitmap (PSN cack_psn + 1) is set".into(),
            );
        }
    }

    /// Truth: nothing claimed that had not been accepted by now.
    pub(super) fn truth(&self, div: &mut Vec<Divergence>) {
        let (s, of, arrivals, local) = (&self.s, self.of, self.arrivals, self.local);
        let cack = s.cack_psn.value();
        let base = s.bitmap_base().value();
        let by_now = |t: u64| self.by_now(t);

        // Truth: nothing claimed that had not been accepted by now.
        let has = |psn: u32| arrivals.accepted_at(local, psn).is_some_and(by_now);
        let claimed_cumulative = arrivals
            .writes
            .keys()
            .filter(|&&(q, p)| q == local && claimed_by_cack(cack, p))
            .map(|&(_, p)| p);
        let mut bits = s.sack_bitmap;
        // Each PSN claimed, and whether the bitmap claims it (else `cack_psn` does).
        let mut claimed: Vec<(u32, bool)> = claimed_cumulative.map(|p| (p, false)).collect();
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            claimed.push((base.wrapping_add(i) & 0xFF_FFFF, true));
        }
        claimed.sort_unstable();
        if let Some((p, by_bitmap)) = claimed.into_iter().find(|&(p, _)| !has(p)) {
            let rule = if by_bitmap { SETH_BITMAP_001 } else { SETH_CACK_001_A };
            // CONF-CMP-023 and the receive checks: a PSN whose only copies were frames to
            // discard, or writes a receive check discards, is named by what discards them.
            let refused = arrivals.only_refused(local, p, of.at);
            match (arrivals.only_discarded(local, p, of.at), refused) {
                (Some(reason), _) => push(
                    div,
                    of,
                    reason,
                    format!("the SACK claims PSN {p}, whose only copies were frames to discard"),
                ),
                (None, Some(rule)) => push(
                    div,
                    of,
                    rule,
                    format!(
                        "the SACK claims PSN {p}, whose copies were all writes the receive \
                         checks discard ({rule})"
                    ),
                ),
                // PETH-PSN-001: the PSN a probe carried, which names no packet, recorded
                // as received. A cack_psn beyond it claims more than the probe explains.
                (None, None)
                    if self.probe_carried(p)
                        && (by_bitmap || has(cack) || self.probe_carried(cack)) =>
                {
                    push(
                        div,
                        of,
                        PETH_PSN_001,
                        format!(
                            "the SACK claims PSN {p}, which no write had carried, only the BTH \
                         psn of a probe"
                        ),
                    )
                }
                // RCV-WIN-003 (CONF-CMP-126): a PSN claimed by `cack_psn` before any copy
                // of it arrived, whose copy to place came later and was placed nowhere. A
                // SACK built wrong leaves the window as it was, and that copy is placed;
                // here `epsn` itself had moved past the PSN.
                (None, None) if !by_bitmap && self.no_copy_by_now(p) => {
                    match (self.never_placed)(local, p, of.at) {
                        Some(t) => push(
                            div,
                            of,
                            RCV_WIN_003,
                            format!(
                                "the SACK claims PSN {p}, which had not arrived; its copy at \
                                 {t} ns was then placed nowhere: epsn had moved past it"
                            ),
                        ),
                        None => push(
                            div,
                            of,
                            rule,
                            format!("the SACK claims PSN {p}, which had not arrived"),
                        ),
                    }
                }
                (None, None) => {
                    push(div, of, rule, format!("the SACK claims PSN {p}, which had not arrived"))
                }
            }
        } else {
            self.cack_received(div);
        }
    }

    /// Whether no copy of a write of PSN `psn`, sound or not, had reached the device's QP
    /// by now.
    fn no_copy_by_now(&self, psn: u32) -> bool {
        let copies = self.arrivals.writes.get(&(self.local, psn));
        !copies.is_some_and(|v| v.iter().any(|c| self.by_now(c.at)))
    }

    /// CONF-CMP-123: `cack_psn` itself is a PSN the QP had received, or the one before its
    /// first (SETH-CACK-001.a), whatever kind of SACK carries it. The check above reads only
    /// the PSNs the scenario injected, so a `cack_psn` that claims none of them (its high
    /// bit lost, in a probe answer, whose trigger does not hang on `cack_psn`) passed it. A
    /// PSN with copies of its own was judged there.
    fn cack_received(&self, div: &mut Vec<Divergence>) {
        let (arrivals, local) = (self.arrivals, self.local);
        let cack = self.s.cack_psn.value();
        if arrivals.writes.contains_key(&(local, cack)) {
            return;
        }
        let Some(&before) = arrivals.before_first.get(&local) else { return };
        if cack == before {
            return;
        }
        if self.probe_carried(cack) {
            // PETH-PSN-001: the PSN a probe carried, recorded as received.
            let what = format!("cack_psn is {cack}, which no write had carried, only a probe");
            push(div, self.of, PETH_PSN_001, what);
            return;
        }
        let what = format!(
            "cack_psn is {cack}, a PSN no write of the QP had carried, and not {before}, the \
             PSN before its first"
        );
        push(div, self.of, SETH_CACK_001_A, what);
    }

    /// Whether PSN `psn` reached the device's QP by now only as the BTH `psn` of a probe.
    fn probe_carried(&self, psn: u32) -> bool {
        let (arrivals, local) = (self.arrivals, self.local);
        let probes = arrivals.probes.get(&local).map(Vec::as_slice).unwrap_or(&[]);
        let write =
            arrivals.writes.get(&(local, psn)).is_some_and(|v| v.iter().any(|c| self.by_now(c.at)));
        !write && probes.iter().any(|p| p.psn == psn && self.by_now(p.at))
    }

    /// Completeness: what arrived well before is claimed.
    pub(super) fn completeness(&self, div: &mut Vec<Divergence>) {
        let (s, of, arrivals, local, tol) = (&self.s, self.of, self.arrivals, self.local, self.tol);
        let cack = s.cack_psn.value();
        let base = s.bitmap_base().value();
        let well_before = |t: u64| self.well_before(t);
        let next = cack.wrapping_add(1) & 0xFF_FFFF;
        if arrivals.accepted_at(local, next).is_some_and(well_before) {
            push(
                div,
                of,
                SETH_CACK_001_B,
                format!(
                    "cack_psn {cack} understates: PSN {next} had arrived more than {} ns earlier",
                    tol.late_ns
                ),
            );
        } else if s.sack_offset == 1 {
            let missing =
                (1..64u32).map(|i| (i, base.wrapping_add(i) & 0xFF_FFFF)).find(|&(i, p)| {
                    s.sack_bitmap >> i & 1 == 0
                        && arrivals.accepted_at(local, p).is_some_and(well_before)
                });
            if let Some((i, p)) = missing {
                push(
                    div,
                    of,
                    SETH_BITMAP_001,
                    format!(
                        "bit {i} (PSN {p}) is clear, but that PSN had arrived more than {} ns earlier",
                        tol.late_ns
                    ),
                );
                return;
            }
        }
        self.claims_trigger(div);
    }

    /// CONF-CMP-061: a SACK with `pr` 0 claims its own trigger when that PSN had been
    /// received by the SACK's time, whatever the lateness tolerance allows for the rest.
    fn claims_trigger(&self, div: &mut Vec<Divergence>) {
        let (s, of) = (&self.s, self.of);
        if s.pr || s.sack_offset != 1 {
            return;
        }
        let cack = s.cack_psn.value();
        let p = cack.wrapping_add(i32::from(s.ack_psn_offset) as u32) & 0xFF_FFFF;
        if self.arrivals.accepted_at(self.local, p).is_none_or(|t| !self.by_now(t)) {
            return;
        }
        let ahead = psn_diff(p, cack);
        if ahead <= 0 || ahead > 64 {
            return;
        }
        let (rule, what) = if ahead == 1 {
            (SETH_CACK_001_B, format!("cack_psn {cack} stops before PSN {p}, its own trigger"))
        } else if s.sack_bitmap >> (ahead - 1) & 1 == 0 {
            let bit = ahead - 1;
            (SETH_BITMAP_001, format!("bit {bit} (PSN {p}) is clear, but PSN {p} is its trigger"))
        } else {
            return;
        };
        push(div, of, rule, format!("{what}, received by the SACK's time (CONF-CMP-061)"));
    }

    /// The trigger of the SACK: the EV, TSETH timestamp and carrier of the copy of the
    /// write or probe it answers; `None` when it answers none (a divergence then says why).
    pub(super) fn trigger(&self, div: &mut Vec<Divergence>) -> Option<(Ev, u16, Carrier)> {
        if self.s.pr { self.probe_trigger(div) } else { self.write_trigger(div) }
    }

    /// With `pr` 1: the probe whose `probe_id` is `ack_psn_offset`, on the SACK's EV if
    /// several (SETH-PR-001, SETH-ACKPSN-002).
    fn probe_trigger(&self, div: &mut Vec<Divergence>) -> Option<(Ev, u16, Carrier)> {
        let (s, of, arrivals, local) = (&self.s, self.of, self.arrivals, self.local);
        let by_now = |t: u64| self.by_now(t);
        let probe_id = s.ack_psn_offset as u16;
        let probes = arrivals.probes.get(&local).map(Vec::as_slice).unwrap_or(&[]);
        let candidates: Vec<&ProbeCopy> =
            probes.iter().filter(|p| p.id == probe_id && by_now(p.at)).collect();
        if candidates.is_empty() {
            let req = if probes.is_empty() { SETH_PR_001 } else { SETH_ACKPSN_002 };
            push(
                div,
                of,
                req,
                format!("pr is 1, but no probe with probe_id {probe_id} had arrived"),
            );
            return None;
        }
        candidates
            .iter()
            .find(|p| p.ev == s.entropy)
            .or(candidates.last())
            .map(|p| (p.ev, p.ts, p.carrier))
    }

    /// With `pr` 0: a sound copy of the write `cack_psn + ack_psn_offset` names, or of a
    /// write too far for 16 bits that the clamped offset names (SETH-ACKPSN-003), unless
    /// the SACK answers a probe (SETH-PR-001) or a frame to discard (CONF-CMP-023).
    fn write_trigger(&self, div: &mut Vec<Divergence>) -> Option<(Ev, u16, Carrier)> {
        let (s, of, arrivals, local) = (&self.s, self.of, self.arrivals, self.local);
        let cack = s.cack_psn.value();
        let by_now = |t: u64| self.by_now(t);
        let psn = cack.wrapping_add(i32::from(s.ack_psn_offset) as u32) & 0xFF_FFFF;
        // An answer to a probe, sent with `pr` 0 (SETH-PR-001): a probe on the SACK's EV
        // that had arrived by then, which the offset names, or after which no write
        // arrived, within the lateness tolerance before the SACK.
        let probe_id = s.ack_psn_offset as u16;
        let probes = arrivals.probes.get(&local).map(Vec::as_slice).unwrap_or(&[]);
        let last_write = arrivals
            .writes
            .iter()
            .filter(|((q, _), _)| *q == local)
            .flat_map(|(_, v)| v.iter().map(|c| c.at))
            .filter(|&t| by_now(t))
            .max();
        let exact: Vec<&WriteCopy> = arrivals
            .writes
            .get(&(local, psn))
            .map(|v| v.iter().filter(|c| by_now(c.at)).collect())
            .unwrap_or_default();
        // When no write with that PSN had arrived: the copies that had whose distance
        // from `cack_psn` does not fit 16 bits, with that distance. A SACK answers one
        // with the offset clamped (SETH-ACKPSN-003.b).
        let far: Vec<(i32, &WriteCopy)> = if exact.is_empty() {
            arrivals
                .writes
                .iter()
                .filter(|((q, _), _)| *q == local)
                .flat_map(|(&(_, p), v)| {
                    let d = (((p.wrapping_sub(cack) & 0xFF_FFFF) << 8) as i32) >> 8;
                    v.iter().filter(move |c| by_now(c.at)).map(move |c| (d, c))
                })
                .filter(|&(d, _)| i16::try_from(d).is_err())
                .collect()
        } else {
            Vec::new()
        };
        let clamped = |d: i32| if d < 0 { i16::MIN } else { i16::MAX };
        let copies: Vec<&WriteCopy> = if exact.is_empty() {
            far.iter().filter(|&&(d, _)| clamped(d) == s.ack_psn_offset).map(|&(_, c)| c).collect()
        } else {
            exact
        };
        let recent = |t: u64| t.saturating_add(self.tol.late_ns) >= of.at;
        let answered = |p: &&ProbeCopy| {
            by_now(p.at)
                && p.ev == s.entropy
                && ((copies.is_empty() && p.id == probe_id)
                    || (recent(p.at) && last_write.is_none_or(|w| w < p.at)))
        };
        if let Some(p) = probes.iter().rev().find(answered) {
            let what =
                format!("pr is 0 in the answer to probe {}, sent on its EV after it arrived", p.id);
            push(div, of, SETH_PR_001, what);
            return None;
        }
        let unclamped = far.iter().filter(|&&(_, c)| recent(c.at)).max_by_key(|&&(_, c)| c.at);
        if let (true, Some(&(d, _))) = (copies.is_empty(), unclamped) {
            // A write too far for the offset had just arrived, and the offset names
            // nothing: it was not clamped.
            push(
                div,
                of,
                SETH_ACKPSN_003_B,
                format!(
                    "ack_psn_offset is {}, but a write {d} PSNs from cack_psn had just \
                     arrived: its SACK carries the offset clamped to {}",
                    s.ack_psn_offset,
                    clamped(d)
                ),
            );
            return None;
        }
        if copies.is_empty() {
            push(
                div,
                of,
                SETH_ACKPSN_003_A,
                format!(
                    "cack_psn + ack_psn_offset is PSN {psn}, and no write with that PSN had arrived"
                ),
            );
            return None;
        }
        let sound: Vec<&WriteCopy> = copies
            .iter()
            .copied()
            .filter(|c| matches!(c.status, Status::Accepted | Status::Duplicate))
            .collect();
        if sound.is_empty() {
            // CONF-CMP-023: an answer to frames to discard is named by what is wrong with
            // them; an answer to a write discarded without response, by its discard rule.
            let silent = arrivals
                .only_refused(local, psn, of.at)
                .filter(|&r| crate::judge::receive::silent(r));
            match (arrivals.only_discarded(local, psn, of.at), silent) {
                (Some(reason), _) => push(
                    div,
                    of,
                    reason,
                    format!("the SACK answers PSN {psn}, whose only copies were frames to discard"),
                ),
                (None, Some(rule)) => push(
                    div,
                    of,
                    rule,
                    format!(
                        "the SACK answers PSN {psn}, a write discarded without response \
                         ({rule})"
                    ),
                ),
                (None, None) => push(
                    div,
                    of,
                    RCV_REJECT_001,
                    format!(
                        "the SACK answers PSN {psn}, a write the device must discard without \
                     response"
                    ),
                ),
            }
            return None;
        }
        if s.ack_psn_offset != i16::MIN && s.ack_psn_offset != i16::MAX {
            self.names_latest(psn, &sound, div);
        }
        // CONF-CMP-137: the copy a SACK answers came at most `sack_delay` and `late_ns`
        // before it. When such a copy had come, an older one is not the answer: a
        // duplicate's SACK reflects the duplicate, not the copy first accepted.
        let window = self.arrivals.sack_delay.saturating_add(self.tol.late_ns);
        let near: Vec<&WriteCopy> =
            sound.iter().copied().filter(|c| c.at.saturating_add(window) >= of.at).collect();
        let answerable = if near.is_empty() { &sound } else { &near };
        answerable
            .iter()
            .find(|c| c.ev == s.entropy)
            .or(answerable.last())
            .map(|c| (c.ev, c.ts, c.carrier))
    }

    /// CONF-CMP-130: the trigger is the write the responder accepted last before it built
    /// the SACK. A write of the QP accepted after the trigger's latest copy, and more than
    /// `late_ns` before the SACK, was in the SACK's state, so the trigger is not that one.
    fn names_latest(&self, psn: u32, sound: &[&WriteCopy], div: &mut Vec<Divergence>) {
        let Some(last) = sound.iter().map(|c| c.at).max() else { return };
        let later = self
            .arrivals
            .accepted(self.local)
            .filter(|&(p, at, _)| p != psn && at > last && self.well_before(at))
            .max_by_key(|&(_, at, _)| at);
        if let Some((p, at, _)) = later {
            let what = format!(
                "ack_psn_offset names PSN {psn}, which arrived at {last} ns, but PSN {p} was \
                 accepted after it, at {at} ns, more than late_ns before the SACK"
            );
            push(div, self.of, SETH_ACKPSN_003_A, what);
        }
    }

    /// The SACK's `entropy` and the EV it travels on: those of its trigger.
    pub(super) fn reflection(&self, trigger_ev: Ev, carrier: Carrier, div: &mut Vec<Divergence>) {
        let (s, of) = (&self.s, self.of);

        if s.entropy != trigger_ev && s.entropy == of.ev && self.just_arrived_on(s.entropy) {
            // The SACK travels on, and reflects, the EV of a write that had just arrived:
            // that write is its trigger, and the offset names another (SETH-ACKPSN-003.a).
            push(
                div,
                of,
                SETH_ACKPSN_003_A,
                format!(
                    "ack_psn_offset names a write of EV {trigger_ev:#x}, but the SACK reflects \
                     and travels on EV {:#x}, that of a write that had just arrived",
                    s.entropy
                ),
            );
        } else if s.entropy != trigger_ev {
            // ENC-EV-001/002: a reflection that betrays how the EV was reconstructed is named
            // by the reconstruction rule.
            push_field(
                div,
                of,
                ev_requirement(carrier, trigger_ev, s.entropy, SETH_EV_001),
                "seth.entropy",
                format!("{trigger_ev:#x}"),
                format!("{:#x}", s.entropy),
            );
        } else if of.ev != trigger_ev {
            push_field(
                div,
                of,
                RCV_SACK_006_A,
                "ev",
                format!("{trigger_ev:#x}"),
                format!("{:#x}", of.ev),
            );
        }
    }

    /// What a CC_STATE `tx_timestamp` of `got` where `want` is due breaks, by its cause:
    /// none reflected, or one reflected where the trigger carried none, or another
    /// packet's, of this QP or of any other, is the reflection rule's (CCS-TS-001); the
    /// trigger's own timestamp changed on its way back (converted, scaled, cut) is
    /// TSETH-TS-001.b's.
    fn timestamp_rule(&self, want: u16, got: u16) -> Clause {
        let arrivals = self.arrivals;
        let mut others = arrivals.writes.values().flat_map(|v| v.iter().map(|c| (c.at, c.ts)));
        let mut probes = arrivals.probes.values().flatten();
        let another = others.any(|(at, ts)| ts == got && self.by_now(at))
            || probes.any(|p| p.ts == got && self.by_now(p.at));
        if want == 0 || got == 0 || another { CCS_TS_001 } else { TSETH_TS_001_B }
    }

    /// The CC_STATE's timestamp and counters.
    pub(super) fn counters(
        &self,
        c: &CcStateRepr,
        trigger_ts: u16,
        window: u32,
        div: &mut Vec<Divergence>,
    ) {
        let (of, arrivals, local) = (self.of, self.arrivals, self.local);
        let cack = self.s.cack_psn.value();
        let well_before = |t: u64| self.well_before(t);
        let by_now = |t: u64| self.by_now(t);
        if c.tx_timestamp != trigger_ts {
            push_field(
                div,
                of,
                self.timestamp_rule(trigger_ts, c.tx_timestamp),
                "cc_state.tx_timestamp",
                trigger_ts.to_string(),
                c.tx_timestamp.to_string(),
            );
        }
        // Counters, between what had arrived well before or the SACK claims or answers (it
        // was accepted before the SACK was built, CONF-CMP-117) and what had arrived by now.
        // A SACK that leaves out PSN cack_psn + 1, received by now, puts its own cack_psn
        // in doubt: what lies after it is that rule's to judge, not the count's.
        let doubt =
            arrivals.accepted_at(local, cack.wrapping_add(1) & 0xFF_FFFF).is_some_and(by_now);
        // The SACK's own trigger was accepted before the SACK was built too, even beyond
        // the bitmap's reach, where the SACK cannot claim it (CONF-CMP-129). A clamped
        // offset names no trigger.
        let off = self.s.ack_psn_offset;
        let trigger = (!self.s.pr && off != i16::MIN && off != i16::MAX)
            .then(|| cack.wrapping_add(i32::from(off) as u32) & 0xFF_FFFF);
        let (mut ooo, mut bytes) = ([0u32; 2], [0u64; 2]);
        for (psn, at, len) in arrivals.accepted(local) {
            let claimed = by_now(at) && (self.claims(psn) || trigger == Some(psn));
            let ahead = psn_diff(psn, cack);
            let after = ahead > 0 && (ahead as u32) <= window;
            if well_before(at) || claimed {
                bytes[0] += len;
            }
            if after && (well_before(at) || (claimed && !doubt)) {
                ooo[0] += 1;
            }
            if by_now(at) {
                bytes[1] += len;
                ooo[1] += u32::from(after);
            }
        }
        let ooo = ooo.map(|n| n.min(0x7FFF));
        if !(ooo[0]..=ooo[1]).contains(&u32::from(c.ooo_count)) {
            push_field(
                div,
                of,
                CCS_OOO_001,
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
                CCS_BYTES_001,
                "cc_state.rcvd_bytes",
                range(units[0] & 0xFF_FFFF, units[1] & 0xFF_FFFF),
                got.to_string(),
            );
        }
    }
}
