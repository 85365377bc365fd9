//! The causes of a missing or different expected frame, one builder per kind: data
//! packets sent first or again, transport ACKs and NAKs, probes, NACKs. The cause table
//! (`causes`, in the module above) puts them in the order the judge tries them.

use super::queue::{backoff_end, delayed_entry};
use super::*;

/// A transport ACK or NAK. Not sent because the device did not take the frame that causes
/// it ([`not_taken`]); an ACK the scenario expected before is repaired: a duplicate of a
/// retired message is acknowledged again (RCV-DUP-002); an ACK is owed at once, on the
/// input that retired enough messages (RCV-ACK-001.a), on a packet of another QP of the
/// domain that retired them (RCV-ACK-003.b), or by the timer (RCV-ACK-001.b); a NAK, even
/// one with an earlier NAK's MSN, by the check that sends it (RCV-PLACE-002.b,
/// RCV-NAK-002.a).
pub(super) fn ack_causes(
    s: &Scenario,
    fed: &[Fed<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
) -> Vec<Cause> {
    let (rec, ef) = &exp[e];
    let Kind::Ack { qp, msn, syndrome, .. } = ef.kind else { return vec![] };
    let mut out = not_taken(s, fed, exp, e);
    let class = ack_class(syndrome);
    let again = exp[..e].iter().any(|(_, f)| {
        matches!(f.kind, Kind::Ack { qp: q, msn: m, syndrome: y, .. }
            if q == qp && m == msn && ack_class(y) == class)
    });
    let at_once = fed.iter().any(|i| i.at == rec.at.0 && i.frame.is_some());
    // Owed at once for a packet of another QP of the domain, whose arrival retired this
    // QP's messages (RCV-ACK-003.b): no frame of this QP arrived then.
    let local = ef.d.bth.and_then(|b| crate::judge::peer_map(s).get(&b.dest_qp.value()).copied());
    let arrived: Vec<u32> = fed
        .iter()
        .filter(|i| i.at == rec.at.0)
        .filter_map(|i| Some(i.frame.as_ref()?.bth?.dest_qp.value()))
        .collect();
    let for_other = local.is_some_and(|l| !arrived.is_empty() && !arrived.contains(&l));
    // An ACK that retirement makes due, whose message the device did not retire either:
    // no flag of it came. The retirement is what broke: the pass over a failed QP's
    // entries when a QP failed then (RET-ERR-001.b), else the order.
    if class.0 && !again {
        out.push(Cause::new(RCV_PLACE_002_A, When::Refused(qp)));
        if let Some(&local) = crate::judge::peer_map(s).get(&qp) {
            if retirement_flag_due(s, local, msn) {
                let rule = if failure_at(s, rec.at.0) { RET_ERR_001_B } else { RET_ORDER_001 };
                out.push(Cause::new(rule, When::Unretired(local, msn)));
            }
        }
    }
    // Owed by the timer, and a SACK answered a write that came after a message it
    // acknowledges had retired: that SACK stopped the timer (RCV-SACK-008.b, CONF-CMP-112).
    if class.0 && !again && !at_once {
        // Only where the scenario expects such a SACK: elsewhere no SACK can stop it.
        let sack_after = |from: u64| {
            exp[..e].iter().any(|(r, f)| {
                matches!(f.kind, Kind::Sack { qp: q, .. } if q == qp)
                    && f.d.ext.seth.is_some_and(|x| !x.pr)
                    && r.at.0 > from
            })
        };
        if let Some((local, from)) = first_owed_retired(s, fed, exp, e).filter(|x| sack_after(x.1))
        {
            out.push(Cause::new(RCV_SACK_008_B, When::SackedAfter(qp, local, from)));
        }
    }
    // Only an ACK is sent again for a duplicate: a NAK that repeats an earlier one's MSN
    // answers a write of its own.
    let rule = match (again, class.0) {
        (true, true) => RCV_DUP_002,
        (false, true) if at_once && for_other => RCV_ACK_003_B,
        (false, true) if at_once => RCV_ACK_001_A,
        (false, true) => RCV_ACK_001_B,
        // The remote access NAK is the region check's response (RCV-PLACE-002.b).
        (_, false) if syndrome == AethRepr::NAK_REMOTE_ACCESS => RCV_PLACE_002_B,
        (_, false) => RCV_NAK_002_A,
    };
    out.push(Cause::new(rule, When::Always));
    out
}

/// The device's QP of expected ACK `e` and the time the first message it acknowledges
/// could retire: the latest arrival, by the ACK's time, of a write of that message. The
/// first message is the one after the QP's previous expected positive ACK, or with none
/// the message of the QP's first write.
fn first_owed_retired(
    s: &Scenario,
    fed: &[Fed<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
) -> Option<(u32, u64)> {
    let (rec, ef) = &exp[e];
    let Kind::Ack { qp, .. } = ef.kind else { return None };
    let &local = crate::judge::peer_map(s).get(&qp)?;
    let writes = || {
        fed.iter().filter(|i| i.at <= rec.at.0).filter_map(move |i| {
            let d = i.frame.as_ref()?;
            let b = d.bth?;
            (b.dest_qp.value() == local && b.opcode.is_mrc_write())
                .then_some((i.at, d.ext.meth?.msn))
        })
    };
    let prev = exp[..e].iter().rev().find_map(|(_, f)| match f.kind {
        Kind::Ack { qp: q, msn, syndrome, .. } if q == qp && ack_class(syndrome).0 => Some(msn),
        _ => None,
    });
    let first = match prev {
        Some(m) => m.next(),
        None => writes().next()?.1,
    };
    writes().filter(|(_, m)| *m == first).map(|(t, _)| t).max().map(|t| (local, t))
}

/// Whether the scenario expects the retirement flag of message `msn` of the device's QP
/// `local`.
pub(super) fn retirement_flag_due(s: &Scenario, local: u32, msn: Msn) -> bool {
    s.expects().any(|r| {
        matches!(&r.body, Body::Event { event: NicEvent::FlagWrite(f) }
            if f.side == Side::Responder && f.qpn.value() == local && f.msn == msn)
    })
}

/// Whether the scenario expects a QP to fail at `at`.
pub(super) fn failure_at(s: &Scenario, at: u64) -> bool {
    s.expects().any(|r| {
        r.at.0 == at
            && matches!(&r.body, Body::Event { event: NicEvent::Report(NicReport::QpError { .. }) })
    })
}

/// Whether write `d`, delivered at `t` to the device's QP `local`, carries a TSETH stamp
/// lower than a write of the QP delivered before it: its requester's clock wrapped or went
/// back, which a responder must not read (TSETH-TS-001.a). A stamp of 0 is left out, being
/// what a requester without a clock sends.
fn stamped_lower(fed: &[Fed<'_>], t: u64, local: u32, d: &DecodedFrame<'_>) -> bool {
    let of_qp = |f: &DecodedFrame<'_>| {
        f.bth.is_some_and(|b| b.dest_qp.value() == local && b.opcode.is_mrc_write())
    };
    let Some(ts) = d.ext.tseth.map(|x| x.tx_timestamp).filter(|&x| x != 0 && of_qp(d)) else {
        return false;
    };
    fed.iter()
        .filter(|i| i.at < t)
        .filter_map(|i| i.frame.as_ref())
        .any(|f| of_qp(f) && f.ext.tseth.is_some_and(|x| x.tx_timestamp > ts))
}

/// Why the device sent no answer `e` to its QP's frames: it did not take a frame it must
/// take. The frames of the QP delivered since the QP's previous expected frame are looked
/// at, latest first: one with a value a receiver must accept names that receive rule
/// ([`crate::judge::arrivals::accept_clause`]), a write stamped lower than an earlier one
/// the rule that its stamp is not interpreted ([`stamped_lower`]). Failing that, a frame to discard after which the
/// device sent nothing at all, up to the answer's time, names the rule that makes it one
/// to discard: the device stopped taking frames on it.
pub(super) fn not_taken(
    s: &Scenario,
    fed: &[Fed<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
) -> Vec<Cause> {
    let (rec, ef) = &exp[e];
    let at = rec.at.0;
    let Some(qp) = ef.d.bth.map(|b| b.dest_qp.value()) else { return vec![] };
    let Some(&local) = crate::judge::peer_map(s).get(&qp) else { return vec![] };
    let since = exp[..e]
        .iter()
        .rev()
        .find(|(_, f)| f.d.bth.is_some_and(|b| b.dest_qp.value() == qp))
        .map_or(0, |(r, _)| r.at.0);
    let mut discard = None;
    for (t, d) in
        fed.iter().filter(|i| i.at <= at).rev().filter_map(|i| Some((i.at, i.frame.as_ref()?)))
    {
        if t > since && d.bth.is_some_and(|b| b.dest_qp.value() == local) {
            if let Some(rule) = crate::judge::arrivals::accept_clause(d) {
                let psn = d.bth.map_or(0, |b| b.psn.value());
                let ev = d.entropy().unwrap_or_default();
                return vec![Cause::new(rule, When::Ignored(local, psn, t, ev))];
            }
            if stamped_lower(fed, t, local, d) {
                return vec![Cause::new(TSETH_TS_001_A, When::NotTaken(None))];
            }
        }
        if discard.is_none() {
            discard = d.discard_reason().map(|r| (t, r));
        }
    }
    discard
        .and_then(|(t, reason)| {
            crate::judge::discard_clause(reason)
                .map(|rule| Cause::new(rule, When::NotTaken(Some(t))))
        })
        .into_iter()
        .collect()
}

/// Whether the device's data packet `of`, paired with expected packet `e` by its PSN, is
/// another expected packet of the QP but for its PSN (and the ICRC that covers it).
pub(super) fn is_other_packet(cx: &Ctx<'_>, e: usize, of: &Frame<'_>) -> bool {
    let Kind::Data { qp, psn, .. } = cx.exp[e].1.kind else { return false };
    let got = frame_fields(&of.d);
    cx.exp.iter().enumerate().any(|(k, (_, f))| {
        k != e
            && matches!(f.kind, Kind::Data { qp: q, psn: p, .. } if q == qp && p != psn)
            && diff(&frame_fields(&f.d), &got)
                .iter()
                .all(|x| x.field == "bth.psn" || x.field == "icrc")
    })
}

/// Whether the device sent expected data packet `e`, within its window, under another PSN:
/// a packet of the QP that differs from it in its PSN only (and the ICRC that covers it).
/// The sender numbered the right packet wrong (SND-PSN-001), whatever took that number.
pub(super) fn renumbered(cx: &Ctx<'_>, e: usize) -> bool {
    let ef = &cx.exp[e].1;
    let Kind::Data { qp, psn, .. } = ef.kind else { return false };
    let (lo, hi) = cx.window(e);
    let want = frame_fields(&ef.d);
    cx.obs.iter().any(|o| {
        matches!(o.kind, Kind::Data { qp: q, psn: p, .. } if q == qp && p != psn)
            && (lo..=hi).contains(&o.at)
            && diff(&want, &frame_fields(&o.d))
                .iter()
                .all(|f| f.field == "bth.psn" || f.field == "icrc")
    })
}

/// The rules a first transmission that is missing or mistimed breaks: what released it at
/// its expected time, as the scenario shows it, and not the segmentation of its message.
///
/// * Released by an acknowledgement the scenario injects at that time, and sent before it:
///   the rule that held it back — the Write-with-Immediate limit for the first packet of
///   such a message freed by a transport ACK (WWI-LIMIT-001), the congestion hook of its QP
///   (SND-CC-001), the peer's window a SACK with an `mpr` set before the packet left
///   (SND-WIN-002.b), a SACK with `mpr` 0 after it, if the packet left at or after that
///   one (SND-WIN-002.c), or the window (SND-WIN-001).
/// * Released so, but not sent then (missing, or late): the sender did not act on the
///   acknowledgement. A SACK carrying values a receiver must not interpret names that rule
///   (SETH-PDC-001.b, SETH-TYPE-001.b, SETH-CC-001.b, SETH-M-001.b); a probe answer with
///   no mark, the rule that makes its EV usable again (EV-PROBE-002); else its bitmap
///   (SND-SACK-002.a) or its cumulative part (SND-SACK-001).
/// * Released by no input, 128 PSNs or more past `snd_una` before any SACK set the peer's
///   window: the peer's window started narrower than the sender's own (SND-WIN-002.a).
/// * Released by no input, late or missing, and the last PSN the window admits: the
///   window check held back the PSN that fills the window exactly (SND-WIN-001).
/// * Released by no input, the first packet of a Write-with-Immediate sent late, at or
///   after a transport ACK into its QP, when `wwi_limit` less one of the QP's were
///   outstanding: the limit, compared with `>=`, held it back (WWI-LIMIT-001).
/// * Released by no input: sent at a probe answer whose mark should have held its EV
///   (EV-PROBE-003), or at one with no mark while a controller held the EV DENIED
///   (EV-DENY-002); after a SACK marked an EV of the QP to skip, or a trim whose hold
///   the packet's expected time closes (CONF-CMP-124), the skip's hold (EV-SKIP-002);
///   else never sent, after an ACK with credit code 0: the credit taken for
///   a limit (AETH-MRC-002.b).
/// * Otherwise the message's segmentation (SND-SEG-001.a).
pub(super) fn first_causes(
    s: &Scenario,
    inj: &[Injected<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
) -> Vec<Cause> {
    use openrdma_codec::EvMark;
    use openrdma_device::{CongestionControl, EvState};
    let (rec, ef) = &exp[e];
    let at = rec.at.0;
    let Kind::Data { qp, .. } = ef.kind else { return vec![] };
    let Some(&local) = crate::judge::peer_map(s).get(&qp) else { return vec![] };
    // What the scenario injects into the QP up to the expected time, with its time.
    let acks = crate::judge::acks_into(inj, local, at);
    let mut out = Vec::new();
    match acks.iter().rev().find(|(t, _)| *t == at).map(|(_, d)| d) {
        Some(d) => {
            let first = ef.d.bth.is_some_and(|b| b.opcode.is_first());
            let cc = crate::judge::created_qp(s, local).map(|q| q.cc);
            if d.ext.aeth.is_some() && first && imm_message(exp, e) {
                out.push(Cause::new(WWI_LIMIT_001, When::EarlyFrom(0)));
            } else if matches!(cc, Some(CongestionControl::FixedWindow { .. })) {
                out.push(Cause::new(SND_CC_001, When::EarlyFrom(0)));
            } else {
                let mpr = acks.iter().find(|(_, a)| a.ext.seth.is_some_and(|x| x.mpr != 0));
                if let Some((t, _)) = mpr {
                    // Sent at or after a SACK with mpr 0 that came once the peer's window
                    // was set: that SACK opened the window it should have left alone.
                    let zero = acks.iter().find(|(z, a)| {
                        *z > *t && *z < at && a.ext.seth.is_some_and(|x| !x.pr && x.mpr == 0)
                    });
                    if let Some((z, _)) = zero {
                        out.push(Cause::new(SND_WIN_002_C, When::EarlyFrom(*z)));
                    }
                    out.push(Cause::new(SND_WIN_002_B, When::EarlyFrom(*t)));
                }
                out.push(Cause::new(SND_WIN_001, When::EarlyFrom(0)));
            }
            let rule = match d.ext.seth {
                Some(x) if x.spdcid != 0 || x.dpdcid != 0 => SETH_PDC_001_B,
                Some(x) if x.res_type != 0 || x.next_header != 0 => SETH_TYPE_001_B,
                Some(x) if x.cc_type != 0 => SETH_CC_001_B,
                // The reserved mark is read as NONE.
                Some(x) if x.m.0 == 3 => SETH_M_001_B,
                Some(x) if x.pr && x.m == EvMark::NONE => EV_PROBE_002,
                Some(x) if x.sack_bitmap != 0 => SND_SACK_002_A,
                Some(_) => SND_SACK_001,
                None => SND_SEG_001_A,
            };
            // Missing or late: an early frame took an entry above.
            out.push(Cause::new(rule, When::Always));
        }
        None => {
            if let Some(t) = imm_limit_release(s, inj, exp, e, local) {
                out.push(Cause::new(WWI_LIMIT_001, When::LateFrom(t)));
            }
            let answers = |marked: bool| {
                acks.iter().filter(move |(t, d)| {
                    *t < at && d.ext.seth.is_some_and(|x| x.pr && (x.m != EvMark::NONE) == marked)
                })
            };
            // Sent early, at a probe answer whose skip mark should have held its EV in SKIP.
            for (t, _) in answers(true) {
                out.push(Cause::new(EV_PROBE_003, When::SentAt(*t)));
            }
            // Sent early, at a probe answer with no mark, while a controller held the QP's
            // EV DENIED: the answer ended a state only a controller ends.
            for (t, _) in answers(false) {
                let held = s.injects().filter(|r| r.at.0 <= *t).filter_map(|r| match &r.body {
                    Body::Cpu { command: CpuCommand::SetEvState { qpn, state, .. } }
                        if qpn.value() == local =>
                    {
                        Some(*state)
                    }
                    _ => None,
                });
                if held.last() == Some(EvState::Denied) {
                    out.push(Cause::new(EV_DENY_002, When::SentAt(*t)));
                }
            }
            let skipped = acks.iter().any(|(_, a)| {
                a.ext.seth.is_some_and(|x| matches!(x.m, EvMark::SKIP_ONCE | EvMark::ALWAYS_SKIP))
            });
            if beyond_narrow_start(s, local, ef, &acks) {
                out.push(Cause::new(SND_WIN_002_A, When::Always));
            }
            // Late or never sent, though it was the last PSN the window admitted: the
            // window check held back a PSN that fills the window exactly.
            if fills_window(s, inj, exp, e) {
                out.push(Cause::new(SND_WIN_001, When::Late));
                out.push(Cause::new(SND_WIN_001, When::Missing));
            }
            // A trim into the QP whose hold the packet's expected time closes: the EV the
            // trim moved to SKIP came back when the hold ended (CONF-CMP-124).
            let hold = u64::try_from(s.manifest.nic.skip_hold.as_nanos()).unwrap_or(u64::MAX);
            let late = s.manifest.tolerances.late_ns;
            let trimmed = trims_into(inj, local, at)
                .any(|t| t < at && at <= t.saturating_add(hold).saturating_add(late));
            if skipped || trimmed {
                out.push(Cause::new(EV_SKIP_002, When::Always));
            } else if crate::judge::credit_zero_before(&acks) {
                // Never sent, after an ACK whose credit code is 0: the sender took the
                // credit for a limit.
                out.push(Cause::new(AETH_MRC_002_B, When::Missing));
            }
        }
    }
    out
}

/// The time of the first transport acknowledgement into the device's QP `local` after the
/// first packet `exp[e]` of a Write-with-Immediate was due, when `wwi_limit` less one
/// Write-with-Immediate messages of its QP were then outstanding: sent before it and not
/// covered by an AETH the scenario injected. A sender that sends the packet only from then
/// on held it back one message short of the limit (WWI-LIMIT-001), a limit compared with
/// `>=`, where the reference sent it at once.
fn imm_limit_release(
    s: &Scenario,
    inj: &[Injected<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
    local: u32,
) -> Option<u64> {
    let (rec, ef) = &exp[e];
    let at = rec.at.0;
    let qp = ef.d.bth?.dest_qp.value();
    let first_imm = |k: usize| {
        let f = &exp[k].1;
        matches!(f.kind, Kind::Data { rtx: false, .. })
            && f.d.bth.is_some_and(|b| b.opcode.is_first() && b.dest_qp.value() == qp)
            && imm_message(exp, k)
    };
    if !first_imm(e) {
        return None;
    }
    let aeths = |before: bool| {
        inj.iter().filter(move |i| (i.at() < at) == before).filter_map(move |i| {
            let d = i.frame.as_ref()?;
            let a = d.ext.aeth?;
            (d.bth?.dest_qp.value() == local).then_some((i.at(), a.msn.msn().value()))
        })
    };
    let acked: Vec<u16> = aeths(true).map(|(_, m)| m).collect();
    let outstanding: std::collections::BTreeSet<u16> = (0..e)
        .filter(|&k| first_imm(k))
        .filter_map(|k| exp[k].1.d.ext.meth.map(|m| m.msn.value()))
        .filter(|m| !acked.iter().any(|a| a.wrapping_sub(*m) < 0x8000))
        .collect();
    let limit = usize::from(s.manifest.nic.wwi_limit);
    if limit < 2 || outstanding.len().checked_add(1) != Some(limit) {
        return None;
    }
    aeths(false).map(|(t, _)| t).filter(|&t| t > at).min()
}

/// The times of the NACKs TRIMMED or TRIMMED_LASTHOP the scenario injects into the
/// device's QP `local` up to `at`.
fn trims_into<'i>(inj: &'i [Injected<'_>], local: u32, at: u64) -> impl Iterator<Item = u64> + 'i {
    use openrdma_codec::NackReason as R;
    inj.iter().filter(move |i| i.at() <= at).filter_map(move |i| {
        let d = i.frame.as_ref()?;
        let n = d.ext.neth?;
        let trim = matches!(n.reason, R::TRIMMED | R::TRIMMED_LASTHOP);
        (trim && d.bth?.dest_qp.value() == local).then_some(i.at())
    })
}

/// Whether first transmission `ef` of the device's QP `local` is 128 PSNs or more past
/// the QP's `snd_una` while the peer's window is still the one it starts at: no SACK with
/// an `mpr` set has come, and the sender's own window is wider than 128 PSNs. A sender
/// whose peer window starts narrower than its own (SND-WIN-002.a) holds it back.
fn beyond_narrow_start(
    s: &Scenario,
    local: u32,
    ef: &Frame<'_>,
    acks: &[(u64, &DecodedFrame<'_>)],
) -> bool {
    let Kind::Data { psn, rtx: false, .. } = ef.kind else { return false };
    if s.manifest.nic.mpr < 2 || acks.iter().any(|(_, a)| a.ext.seth.is_some_and(|x| x.mpr != 0)) {
        return false;
    }
    let Some(q) = crate::judge::created_qp(s, local) else { return false };
    // snd_una: one past the latest cumulative PSN a SACK carried, else the initial PSN.
    let una = acks
        .iter()
        .filter_map(|(_, a)| {
            a.ext.seth.filter(|x| !x.pr).map(|x| (x.cack_psn.value() + 1) & 0xFF_FFFF)
        })
        .fold(q.initial_psn.value(), |una, c| {
            if c.wrapping_sub(una) & 0xFF_FFFF < 1 << 23 { c } else { una }
        });
    let ahead = psn.wrapping_sub(una) & 0xFF_FFFF;
    (128..1 << 23).contains(&ahead)
}

/// The rules a retransmission of `psn` on the wire QP `qp` (the peer's number) is due by:
/// the input that asks for it. A NACK or SACK asks at once: one within `late_ns` before it
/// is the cause. Otherwise it is a timeout's: a command of the CPU half (REC-IF-010), or of
/// an earlier PSN whose successors up to this one were SACKed (REC-RTO-004.a); with
/// no command, the reports the CPU half's timer runs on (REC-IF-003 when the device did not
/// report the timer armed, else REC-IF-002); with the device's own CPU half, its retry
/// counter when the device failed the QP before the packet was due (REC-RTO-002 when the
/// scenario delivered progress since the QP's first timeout, else REC-RETRY-001), its
/// timer when the packet is missing but the QP was retransmitted later (REC-RTO-001, or
/// after a first timeout REC-RTO-005), REC-RTO-003 when it is missing and the QP ran out
/// of retries later (its timer expired, and commanded nothing), and the timer again when
/// it is mistimed or missing with no later sign of an expiry. One a NACK or SACK asked for
/// while the QP's window was full ([`window_full`]) and that came late was held back by
/// the window (SND-WIN-003).
pub(super) fn rtx_causes(
    s: &Scenario,
    inj: &[Injected<'_>],
    fed: &[Fed<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
) -> Vec<Cause> {
    let (rec, ef) = &exp[e];
    let at = rec.at.0;
    let Kind::Data { qp, psn, .. } = ef.kind else { return vec![] };
    if s.manifest.cpu == CpuHalf::Device {
        let again = exp[..e]
            .iter()
            .any(|(_, f)| matches!(f.kind, Kind::Data { qp: q, rtx: true, .. } if q == qp));
        let timed = if again { REC_RTO_005 } else { REC_RTO_001 };
        let local = crate::judge::peer_map(s).get(&qp).copied();
        let mut out = retry_causes(s, fed, exp, e, qp);
        // Missing, while the QP was retransmitted later: its timer runs wrong.
        out.push(Cause::new(timed, When::RetriedAfter(qp)));
        // Missing, while the retry counter ran out later: the timer expired, and its
        // expiry commanded no Retransmit.
        out.push(Cause::new(REC_RTO_003, When::FailedLater(local)));
        // Missing with no later sign of an expiry, or mistimed: the timer.
        out.push(Cause::new(timed, When::Always));
        return out;
    }
    let late = s.manifest.tolerances.late_ns;
    let local = crate::judge::peer_map(s).get(&qp).copied();
    let mut cause = None;
    let mut commanded = false;
    // The probe answer that asks for it, by its place among the inputs.
    let mut answer = None;
    for (k, i) in fed.iter().enumerate().filter(|(_, i)| i.at <= at) {
        let recent = i.at.saturating_add(late) >= at;
        if let Some(CpuCommand::Retransmit { qpn, psn: p }) = i.cpu {
            // A resend of a packet a SACK showed arrived (REC-RTO-004): of the commanded
            // PSN when every PSN from it on was SACKed (.b), of the last packet of a
            // message whose ACK was lost when nothing was outstanding (.c).
            let sacked = fed.iter().filter(|j| j.at <= i.at).any(|j| {
                j.frame.as_ref().is_some_and(|d| {
                    d.bth.map(|b| b.dest_qp.value()) == local
                        && d.ext.seth.is_some_and(|x| !x.pr && x.is_sacked(Psn::new(psn)))
                })
            });
            if Some(qpn.value()) == local && recent && sacked {
                commanded = true;
                cause =
                    Some(if Psn::new(psn).is_before(*p) { REC_RTO_004_C } else { REC_RTO_004_B });
            } else if Some(qpn.value()) == local && p.value() == psn {
                commanded = true;
                cause = Some(REC_IF_010);
            } else if Some(qpn.value()) == local
                && recent
                && Psn::new(psn).is_after(*p)
                && !acked_before(fed, local, *p, i.at)
            {
                // A later PSN than the one commanded, itself outstanding: the PSNs between
                // were SACKed, and the command queues the oldest from it on that is not
                // (REC-RTO-004.a).
                commanded = true;
                cause = Some(REC_RTO_004_A);
            }
        }
        let Some(d) = i.frame.as_ref().filter(|_| recent) else { continue };
        if d.bth.map(|b| b.dest_qp.value()) != local {
            continue;
        }
        if let Some(n) = d.ext.neth {
            if n.nack_psn.value() == psn {
                cause = Some(nack_cause(n.reason));
            }
        } else if let Some(x) = d.ext.seth {
            // A SACK that leaves the PSN out while it claims later ones.
            let ahead = psn.wrapping_sub(x.cack_psn.value()) & 0xFF_FFFF;
            let p = Psn::new(psn);
            let covered = x.covers_cumulatively(p)
                || (x.sack_offset >= 1 && p.in_window(x.bitmap_base(), 64));
            if x.pr && s.manifest.nic.tail_probe.is_some() && covered && !x.is_sacked(p) {
                // A tail probe's answer that covers the PSN and does not show it: the
                // transmissions before the probe on its EV are inferred lost by it.
                cause = Some(SND_TAIL_003);
                answer = Some(k);
            } else if (1..1 << 23).contains(&ahead) && x.sack_bitmap != 0 {
                cause = Some(SND_INFER_001);
            }
        }
    }
    // The delayed entry of a window or resource NACK (CONF-CMP-108), or that of a trim
    // made while no EV was usable (CONF-CMP-109): the queue's rules name it.
    let (rule, queued) = queue_cause(s, fed, &exp[..e], local, qp, psn, at).unzip();
    cause = rule.or(cause);
    // A SACK before the one that asks for it, that showed a later PSN arrived but did not
    // cover this one: the suspect it could not judge was to be kept for a later
    // acknowledgement (SND-INFER-002.b).
    let unjudged = cause == Some(SND_INFER_001) && left_unjudged(fed, local, psn, at);
    // Held back until the back-off of a window or resource NACK for another PSN of the QP
    // ended: the delay holds back only the entries it marks (SND-NACK-004.b).
    let held = backoff_end(s, fed, local, psn, at).filter(|_| cause != Some(SND_NACK_004_A));
    let mut out: Vec<Cause> =
        held.map(|end| Cause::new(SND_NACK_004_B, When::LateFrom(end))).into_iter().collect();
    if unjudged {
        out.push(Cause::new(SND_INFER_002_B, When::Missing));
    }
    // An inference that needs the PSN's earlier retransmission, the delayed entry of a
    // window or resource NACK, to have gone when the back-off ended: sent at another time,
    // it took another place on its EV, and the inference that follows is another
    // (SND-NACK-004.a).
    if cause == Some(SND_INFER_001) {
        if let Some(due) = delayed_entry(s, fed, &exp[..e], local, qp, psn) {
            out.push(Cause::new(SND_NACK_004_A, When::Shifted(qp, psn, due)));
        }
        // The transmission to infer lost is itself a retransmission: the arrivals after it
        // on its EV are evidence against it only if it took the EV's next per-EV sequence
        // number (SND-RTX-006.b).
        let resent = exp[..e].iter().any(|(_, f)| f.kind == Kind::Data { qp, psn, rtx: true });
        if resent {
            out.push(Cause::new(SND_RTX_006_B, When::Missing));
        }
    }
    // A probe answer that asks for other retransmissions of the QP too: a device that
    // retransmits those but not this one, the latest transmission on the probe's EV
    // before the probe, let the probe take no per-EV sequence number above it
    // (SND-TAIL-002, CONF-CMP-113).
    if let Some(k) = answer.filter(|_| cause == Some(SND_TAIL_003)) {
        let others = exp.iter().any(|(r, f)| {
            matches!(f.kind, Kind::Data { qp: q, psn: p, rtx: true } if q == qp && p != psn)
                && r.at.0 >= fed[k].at
                && r.at.0 <= at.saturating_add(late)
        });
        if others {
            out.push(Cause::new(SND_TAIL_002, When::SparedByProbe(qp, psn, k)));
        }
    }
    out.extend(queued.flatten());
    out.extend(match cause {
        // Due at once while the QP's window was full, and late: the window held it back.
        Some(c) if window_full(s, inj, exp, e) => {
            vec![Cause::new(SND_WIN_003, When::Late), Cause::new(c, When::Always)]
        }
        Some(c) => vec![Cause::new(c, When::Always)],
        None if commanded || s.manifest.cpu != CpuHalf::Reference => {
            vec![Cause::new(SND_RTX_001_A, When::Always)]
        }
        // The runner's CPU half did not command it: it acts on the device's reports.
        None => {
            vec![Cause::new(REC_IF_003, When::Unarmed(local)), Cause::new(REC_IF_002, When::Always)]
        }
    });
    out
}

/// Whether a SACK into the device QP `local` injected before `at` showed a later PSN than
/// `psn` arrived without covering `psn`: a suspect it could not judge, to be kept for a
/// later acknowledgement (SND-INFER-002.b).
fn left_unjudged(fed: &[Fed<'_>], local: Option<u32>, psn: u32, at: u64) -> bool {
    fed.iter().filter(|i| i.at < at).any(|i| {
        let Some(d) = i.frame.as_ref().filter(|d| d.bth.map(|b| b.dest_qp.value()) == local) else {
            return false;
        };
        d.ext.seth.is_some_and(|x| {
            let p = Psn::new(psn);
            let base = x.bitmap_base();
            let covered = x.covers_cumulatively(p) || (x.sack_offset >= 1 && p.in_window(base, 64));
            let later = (0..64).any(|k| x.sack_bitmap >> k & 1 == 1 && base.add(k).is_after(p));
            !x.pr && !covered && later
        })
    })
}

/// Whether a SACK into the device QP `local` injected before `at` acknowledged `psn`
/// cumulatively: a command for it then names no outstanding PSN.
fn acked_before(fed: &[Fed<'_>], local: Option<u32>, psn: Psn, at: u64) -> bool {
    fed.iter().filter(|i| i.at < at).any(|i| {
        i.frame.as_ref().is_some_and(|d| {
            d.bth.map(|b| b.dest_qp.value()) == local
                && d.ext.seth.is_some_and(|x| !x.pr && x.covers_cumulatively(psn))
        })
    })
}

/// Whether the QP of expected data packet `e` had a full window at the packet's time, as
/// the scenario shows it: the first transmissions it expects by then reach
/// min(`W_own`, `W_peer`) PSNs from `snd_una` (SND-WIN-001), `snd_una` following the
/// cumulative PSN of the SACKs injected into the QP and `W_peer` their last non-zero `mpr`
/// (SND-WIN-002).
pub(super) fn window_full(
    s: &Scenario,
    inj: &[Injected<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
) -> bool {
    let (rec, ef) = &exp[e];
    let at = rec.at.0;
    let Kind::Data { qp, .. } = ef.kind else { return false };
    let Some((una, window)) = window_at(s, inj, qp, at) else { return false };
    // PSNs sent once by `at`, counted from `snd_una`.
    let sent = exp
        .iter()
        .filter(|(r, _)| r.at.0 <= at)
        .filter_map(|(_, f)| match f.kind {
            Kind::Data { qp: x, psn, rtx: false } if x == qp => {
                let ahead = psn.wrapping_sub(una) & 0xFF_FFFF;
                (ahead < 1 << 23).then_some(ahead + 1)
            }
            _ => None,
        })
        .max()
        .unwrap_or(0);
    sent >= window
}

/// `snd_una` and the window of the wire QP `qp` at `at`, by the SACKs injected into it.
fn window_at(s: &Scenario, inj: &[Injected<'_>], qp: u32, at: u64) -> Option<(u32, u32)> {
    let &local = crate::judge::peer_map(s).get(&qp)?;
    let q = crate::judge::created_qp(s, local)?;
    let own = u32::from(s.manifest.nic.mpr) * 128;
    let mut window = own;
    let mut una = q.initial_psn.value();
    for (_, d) in crate::judge::acks_into(inj, local, at) {
        let Some(x) = d.ext.seth.filter(|x| !x.pr) else { continue };
        una = (x.cack_psn.value() + 1) & 0xFF_FFFF;
        if x.mpr != 0 {
            window = (u32::from(x.mpr) * 128).min(own);
        }
    }
    Some((una, window))
}

/// Whether first transmission `e` is the PSN that fills its QP's window exactly: the last
/// the window admits, which a window check off by one holds back (SND-WIN-001).
fn fills_window(
    s: &Scenario,
    inj: &[Injected<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
) -> bool {
    let (rec, ef) = &exp[e];
    let Kind::Data { qp, psn, rtx: false } = ef.kind else { return false };
    window_at(s, inj, qp, rec.at.0)
        .is_some_and(|(una, window)| (psn.wrapping_sub(una) & 0xFF_FFFF) + 1 == window)
}

/// The rule a probe of the wire QP `qp` that the runner's CPU half makes due (expected
/// frame `e`) is named by: a CPU command that asked for it within `late_ns` before it
/// (EV-PROBE-005.a); with none, the tail-probe timer of a QP whose spray policy queues no
/// probes (SND-TAIL-001.a).
pub(super) fn probe_rule(
    s: &Scenario,
    fed: &[Fed<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
    qp: u32,
) -> Rule {
    let at = exp[e].0.at.0;
    let late = s.manifest.tolerances.late_ns;
    let Some(local) = crate::judge::peer_map(s).get(&qp).copied() else {
        return EV_PROBE_005_A;
    };
    let commands = fed.iter().filter_map(|i| Some((i.at, i.cpu?)));
    if crate::judge::probe_commanded(commands, local, at, late) {
        return EV_PROBE_005_A;
    }
    match crate::judge::tail_rule(s, local) {
        Some(r) if r == SND_TAIL_001_A => r,
        _ => EV_PROBE_005_A,
    }
}

/// The rules an expected frame of the wire QP `qp` that the device's own CPU half makes
/// due (a timeout retransmission, a probe) is named by when it is missing because the
/// device failed the QP before: its retry counter ran out too soon, not reset by the
/// progress the scenario delivered since the QP's first timeout (REC-RTO-002), or else
/// counted wrong (REC-RETRY-001).
pub(super) fn retry_causes(
    s: &Scenario,
    fed: &[Fed<'_>],
    exp: &[(&Record, Frame<'_>)],
    e: usize,
    qp: u32,
) -> Vec<Cause> {
    let at = exp[e].0.at.0;
    let first_rtx = exp[..e].iter().find_map(|(r, f)| {
        matches!(f.kind, Kind::Data { qp: q, rtx: true, .. } if q == qp).then_some(r.at.0)
    });
    let local = crate::judge::peer_map(s).get(&qp).copied();
    let progress = first_rtx.is_some_and(|t0| {
        fed.iter().filter(|i| i.at > t0 && i.at <= at).any(|i| {
            i.frame.as_ref().is_some_and(|d| {
                d.bth.map(|b| b.dest_qp.value()) == local
                    && (d.ext.seth.is_some() || d.ext.aeth.is_some())
            })
        })
    });
    let mut out = Vec::new();
    if progress {
        out.push(Cause::new(REC_RTO_002, When::FailedBy(local)));
    }
    out.push(Cause::new(REC_RETRY_001, When::FailedBy(local)));
    out
}

/// A NACK UNEXP_EVENT for a write with an immediate whose RQMSN is beyond the responder's
/// `wwi_limit` (WWI-LIMIT-002): the write to the QP whose wire number is `qp` with PSN
/// `psn` the scenario delivered carries an ImmDt.
pub(super) fn wwi_nack(
    s: &Scenario,
    fed: &[Fed<'_>],
    qp: u32,
    psn: u32,
    reason: u8,
) -> Option<Rule> {
    if openrdma_codec::NackReason(reason) != openrdma_codec::NackReason::UNEXP_EVENT {
        return None;
    }
    let local = crate::judge::peer_map(s).get(&qp).copied()?;
    let imm = fed.iter().filter_map(|i| i.frame.as_ref()).any(|d| {
        d.bth.is_some_and(|b| b.dest_qp.value() == local && b.psn.value() == psn)
            && d.ext.immdt.is_some()
    });
    imm.then_some(WWI_LIMIT_002)
}

pub(super) fn nack_cause(r: openrdma_codec::NackReason) -> Rule {
    use openrdma_codec::NackReason as R;
    match r {
        R::TRIMMED | R::TRIMMED_LASTHOP => SND_NACK_002,
        _ => SND_NACK_004_A,
    }
}

/// The rule of the MSN counter a device's METH `msn` values show, when they differ from the
/// expected ones by a pattern that only a counter kept wrong gives, over every first
/// transmission of a message's first packet the device sent: all off by one constant,
/// the counter started elsewhere than 0 (RET-DOMAIN-003); each the count of its own QP's
/// earlier messages where the QPs share a domain, the sender kept a counter per QP where
/// the domain has one (SND-MSN-001, the sender's own rule on its counter); each the count
/// of every earlier message of the device where each QP is a domain of its own, the device
/// ran its QPs as one domain (RET-DOMAIN-001). `None` when fewer than
/// two messages show the pattern, when frame `e` shows no MSN difference, or when its
/// `msn` and `rqmsn` hold each other's value: the fields were swapped, and a counter
/// explains nothing.
pub(super) fn msn_counter_rule(cx: &Ctx<'_>, e: usize, of: &Frame<'_>) -> Option<Rule> {
    let first_packet = |f: &Frame<'_>| {
        matches!(f.kind, Kind::Data { rtx: false, .. })
            && f.d.bth.is_some_and(|b| b.opcode.is_first())
    };
    let ef = &cx.exp[e].1;
    let (want, got) = (ef.d.ext.meth?, of.d.ext.meth?);
    let swapped = got.msn.value() == want.rqmsn.value() && got.rqmsn.value() == want.msn.value();
    if !first_packet(ef) || want.msn == got.msn || swapped {
        return None;
    }
    // The first packets of the messages, in expected order: QP, expected MSN, device's MSN.
    let mut pairs: Vec<(u32, u16, u16)> = Vec::new();
    for (_, f) in cx.exp.iter().filter(|(_, f)| first_packet(f)) {
        let Kind::Data { qp, psn, .. } = f.kind else { continue };
        let Some(o) = cx.obs.iter().find(|o| o.kind == Kind::Data { qp, psn, rtx: false }) else {
            continue;
        };
        let (Some(want), Some(got)) = (f.d.ext.meth, o.d.ext.meth) else { continue };
        if !same_msn_throughout(cx, qp, want.msn, got.msn) {
            // A counter gives every packet of a message one MSN: the first packet's was
            // taken from elsewhere (SND-MSN-002), which the field's own rule names.
            return None;
        }
        pairs.push((qp, want.msn.value(), got.msn.value()));
    }
    if pairs.len() < 2 {
        return None;
    }
    let d = pairs[0].2.wrapping_sub(pairs[0].1);
    if d != 0 && pairs.iter().all(|&(_, w, g)| g.wrapping_sub(w) == d) {
        return Some(RET_DOMAIN_003);
    }
    // The count of each QP's earlier messages, and of the device's.
    let mut own: std::collections::HashMap<u32, u16> = std::collections::HashMap::new();
    let (mut per_qp, mut per_device) = (true, true);
    let (mut per_qp_differs, mut per_device_differs) = (false, false);
    for (k, &(qp, want, got)) in pairs.iter().enumerate() {
        let n = own.entry(qp).or_insert(0);
        let all = k as u16;
        per_qp &= got == *n;
        per_qp_differs |= want != *n;
        per_device &= got == all;
        per_device_differs |= want != all;
        *n += 1;
    }
    if per_qp && per_qp_differs {
        return Some(SND_MSN_001);
    }
    (per_device && per_device_differs).then_some(RET_DOMAIN_001)
}

/// Whether the device's first transmissions of the later packets of QP `qp`'s message with
/// expected MSN `want` all carry `got`, the MSN the device gave the message's first packet.
fn same_msn_throughout(cx: &Ctx<'_>, qp: u32, want: Msn, got: Msn) -> bool {
    cx.exp.iter().all(|(_, f)| {
        let Kind::Data { qp: q, psn, rtx: false } = f.kind else { return true };
        let later = q == qp
            && f.d.bth.is_some_and(|b| !b.opcode.is_first())
            && f.d.ext.meth.is_some_and(|m| m.msn == want);
        if !later {
            return true;
        }
        let sent = cx.obs.iter().find(|o| o.kind == Kind::Data { qp, psn, rtx: false });
        sent.and_then(|o| o.d.ext.meth).is_none_or(|m| m.msn == got)
    })
}

impl Ctx<'_> {
    /// Whether the device took the write of QP `local` with PSN `psn` that arrived at `t`
    /// on EV `ev`: it placed it, or refused it with a NAK or NACK on that EV, within
    /// `late_ns`. A SACK on the EV proves nothing: the SACK timer may send one for an
    /// earlier write that travelled on it.
    pub(super) fn answered(&self, local: u32, psn: u32, t: u64, ev: Ev) -> bool {
        let by = t.saturating_add(self.scenario.manifest.tolerances.late_ns);
        let placed = self.observed.iter().any(|o| {
            (t..=by).contains(&o.at.0)
                && matches!(&o.output, Output::Event { event: NicEvent::DmaWrite(w) }
                    if w.qpn.value() == local && w.psn.value() == psn)
        });
        let refused = |k: &Kind| match *k {
            Kind::Ack { syndrome, .. } => !ack_class(syndrome).0,
            Kind::Nack { .. } => true,
            _ => false,
        };
        placed
            || self.obs.iter().any(|o| (t..=by).contains(&o.at) && o.ev == ev && refused(&o.kind))
    }
}

impl Ctx<'_> {
    /// Whether the device sent, by `at`, a SACK on wire QP `qp` that is no probe answer and
    /// whose triggering packet (`cack_psn + ack_psn_offset`) is a write of its QP `local`
    /// that arrived after `from` and by the SACK's time.
    pub(super) fn sacked_after(&self, qp: u32, local: u32, from: u64, at: u64) -> bool {
        let arrived = |psn: u32, by: u64| {
            self.fed.iter().filter(|i| i.at > from && i.at <= by).any(|i| {
                i.frame.as_ref().and_then(|d| d.bth).is_some_and(|b| {
                    b.dest_qp.value() == local && b.opcode.is_mrc_write() && b.psn.value() == psn
                })
            })
        };
        self.obs.iter().filter(|o| o.at <= at).any(|o| {
            let Kind::Sack { qp: q, cack, .. } = o.kind else { return false };
            let Some(x) = o.d.ext.seth.filter(|x| !x.pr) else { return false };
            let trigger = cack.wrapping_add_signed(i32::from(x.ack_psn_offset)) & 0xFF_FFFF;
            q == qp && arrived(trigger, o.at)
        })
    }
}

/// The rule an ACK's `msn` breaks when it is the MSN of a message of another QP of the
/// expected ACK's shared retirement domain, one a write of which reached the device by the
/// ACK's time, and of no message of the ACK's own QP: the QP acknowledged a message that is
/// not its own (RCV-ACK-003.a). Only a difference the value rule names (AETH-MSN-001.a) is
/// refined so, and not one past the expected MSN.
pub(super) fn other_qp_msn_rule(cx: &Ctx<'_>, e: usize, of: &Frame<'_>) -> Option<Rule> {
    let (&Kind::Ack { qp, msn: want, syndrome, .. }, &Kind::Ack { msn: got, .. }) =
        (&cx.exp[e].1.kind, &of.kind)
    else {
        return None;
    };
    // One past the expected MSN is what the QP's own counter one off gives: the value
    // rule names it.
    if want == got
        || got == want.next()
        || !ack_class(syndrome).0
        || cx.scenario.manifest.nic.retirement != openrdma_device::RetirementMode::Shared
    {
        return None;
    }
    let local = *crate::judge::peer_map(cx.scenario).get(&qp)?;
    let domain = crate::judge::created_qp(cx.scenario, local)?.domain;
    let carried = |q: u32| {
        cx.fed.iter().filter(|i| i.at <= of.at).filter_map(|i| i.frame.as_ref()).any(|d| {
            d.bth.is_some_and(|b| b.dest_qp.value() == q && b.opcode.is_mrc_write())
                && d.ext.meth.is_some_and(|m| m.msn == got)
        })
    };
    if carried(local) {
        return None;
    }
    let others = cx.scenario.records.iter().filter_map(|r| match &r.body {
        Body::Host { command: openrdma_device::HostCommand::CreateQp(c) }
            if c.domain == domain && c.qpn.value() != local =>
        {
            Some(c.qpn.value())
        }
        _ => None,
    });
    others.into_iter().any(carried).then_some(RCV_ACK_003_A)
}
