//! The clauses of `sender.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::Clause;

/// `SND-ORDER-001`, its clauses (a) to (b) together: MUST, device.
pub const SND_ORDER_001: Clause = Clause(761);
/// `SND-ORDER-001.a`: MUST, device.
pub const SND_ORDER_001_A: Clause = Clause(762);
/// `SND-ORDER-001.b`: MUST, device.
pub const SND_ORDER_001_B: Clause = Clause(763);
/// `SND-MSN-001`: MUST, device.
pub const SND_MSN_001: Clause = Clause(764);
/// `SND-MSN-002`: MUST, device.
pub const SND_MSN_002: Clause = Clause(765);
/// `SND-RQMSN-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by SND-RQMSN-002, which gives a message without immediate data the number the next Write-with-Immediate message will take instead of the number of the last one, as METH-RQMSN-001 does."]
pub const SND_RQMSN_001: Clause = Clause(766);
/// `SND-RQMSN-002`, its clauses (a) to (b) together: MUST, device.
pub const SND_RQMSN_002: Clause = Clause(767);
/// `SND-RQMSN-002.a`: MUST, device.
pub const SND_RQMSN_002_A: Clause = Clause(768);
/// `SND-RQMSN-002.b`: MUST, device.
pub const SND_RQMSN_002_B: Clause = Clause(769);
/// `SND-SEG-001`, its clauses (a) to (b) together: MUST, device.
pub const SND_SEG_001: Clause = Clause(770);
/// `SND-SEG-001.a`: MUST, device.
pub const SND_SEG_001_A: Clause = Clause(771);
/// `SND-SEG-001.b`: MUST, device.
pub const SND_SEG_001_B: Clause = Clause(772);
/// `SND-SEG-002`: MUST, device.
pub const SND_SEG_002: Clause = Clause(773);
/// `SND-SEG-003`, its clauses (a) to (c) together: MUST, device.
pub const SND_SEG_003: Clause = Clause(774);
/// `SND-SEG-003.a`: MUST, device.
pub const SND_SEG_003_A: Clause = Clause(775);
/// `SND-SEG-003.b`: MUST, device.
pub const SND_SEG_003_B: Clause = Clause(776);
/// `SND-SEG-003.c`: MUST, device.
pub const SND_SEG_003_C: Clause = Clause(777);
/// `SND-SEG-004`: MUST, device.
pub const SND_SEG_004: Clause = Clause(778);
/// `SND-QPN-001`: MUST, device.
pub const SND_QPN_001: Clause = Clause(779);
/// `SND-PSN-001`: MUST, device.
pub const SND_PSN_001: Clause = Clause(780);
/// `SND-ACKREQ-001`: MUST, device.
pub const SND_ACKREQ_001: Clause = Clause(781);
/// `SND-TS-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by SND-TS-002, which leaves the unit of `tx_timestamp` to the sender, as TSETH-TS-001 does, and asks only for a clock that does not run backwards."]
pub const SND_TS_001: Clause = Clause(782);
/// `SND-TS-002`, its clauses (a) to (d) together: MUST, device.
pub const SND_TS_002: Clause = Clause(783);
/// `SND-TS-002.a`: MUST, device.
pub const SND_TS_002_A: Clause = Clause(784);
/// `SND-TS-002.b`: MUST, device.
pub const SND_TS_002_B: Clause = Clause(785);
/// `SND-TS-002.c`: MUST, device.
pub const SND_TS_002_C: Clause = Clause(786);
/// `SND-TS-002.d`: MUST, device.
pub const SND_TS_002_D: Clause = Clause(787);
/// `SND-TS-003`, its clauses (a) to (b) together: MUST, device.
pub const SND_TS_003: Clause = Clause(788);
/// `SND-TS-003.a`: MUST, device.
pub const SND_TS_003_A: Clause = Clause(789);
/// `SND-TS-003.b`: MUST, device.
pub const SND_TS_003_B: Clause = Clause(790);
/// `SND-WIN-001`: MUST, device.
pub const SND_WIN_001: Clause = Clause(791);
/// `SND-WIN-002`, its clauses (a) to (c) together: MUST, device.
pub const SND_WIN_002: Clause = Clause(792);
/// `SND-WIN-002.a`: MUST, device.
pub const SND_WIN_002_A: Clause = Clause(793);
/// `SND-WIN-002.b`: MUST, device.
pub const SND_WIN_002_B: Clause = Clause(794);
/// `SND-WIN-002.c`: MUST, device.
pub const SND_WIN_002_C: Clause = Clause(795);
/// `SND-WIN-003`: MUST, device.
pub const SND_WIN_003: Clause = Clause(796);
/// `SND-CC-001`: MUST, device.
pub const SND_CC_001: Clause = Clause(797);
/// `SND-SCHED-001`: MUST, device.
pub const SND_SCHED_001: Clause = Clause(798);
/// `SND-SCHED-002`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by SND-SCHED-003, under which an entry delayed by a window or resource NACK no longer holds back the entries behind it."]
pub const SND_SCHED_002: Clause = Clause(799);
/// `SND-SCHED-003`, its clauses (a) to (e) together: MUST, device.
pub const SND_SCHED_003: Clause = Clause(800);
/// `SND-SCHED-003.a`: MUST, device.
pub const SND_SCHED_003_A: Clause = Clause(801);
/// `SND-SCHED-003.b`: MUST, device.
pub const SND_SCHED_003_B: Clause = Clause(802);
/// `SND-SCHED-003.c`: MUST, device.
pub const SND_SCHED_003_C: Clause = Clause(803);
/// `SND-SCHED-003.d`: MUST, device.
pub const SND_SCHED_003_D: Clause = Clause(804);
/// `SND-SCHED-003.e`: MUST, device.
pub const SND_SCHED_003_E: Clause = Clause(805);
/// `SND-PATH-001`: MUST, device.
pub const SND_PATH_001: Clause = Clause(806);
/// `SND-PATH-002`: MUST, device.
pub const SND_PATH_002: Clause = Clause(807);
/// `SND-SPRAY-001`: MUST, device.
pub const SND_SPRAY_001: Clause = Clause(808);
/// `SND-SPRAY-002`: MUST, device.
pub const SND_SPRAY_002: Clause = Clause(809);
/// `SND-SPRAY-003`: MUST, device.
pub const SND_SPRAY_003: Clause = Clause(810);
/// `SND-SPRAY-004`: MUST, device.
pub const SND_SPRAY_004: Clause = Clause(811);
/// `SND-RTT-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by SND-RTT-002, which takes no sample from a PSN that has been retransmitted."]
pub const SND_RTT_001: Clause = Clause(812);
/// `SND-RTT-002`: MUST, device.
pub const SND_RTT_002: Clause = Clause(813);
/// `SND-SPRAY-005`: MUST, device.
pub const SND_SPRAY_005: Clause = Clause(814);
/// `SND-SPRAY-006`: MUST, device.
pub const SND_SPRAY_006: Clause = Clause(815);
/// `SND-SPRAY-007`: MUST, device.
pub const SND_SPRAY_007: Clause = Clause(816);
/// `SND-SPRAY-008`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by SND-SPRAY-009, which probes at once an EV never probed before, and SND-SPRAY-010, which measures a probe's round trip in the unit of the sender's own timestamp clock (SND-TS-002) instead of 16 ns."]
pub const SND_SPRAY_008: Clause = Clause(817);
/// `SND-SPRAY-009`: MUST, device.
pub const SND_SPRAY_009: Clause = Clause(818);
/// `SND-SPRAY-010`: MUST, device.
pub const SND_SPRAY_010: Clause = Clause(819);
/// `EV-STATE-001`, its clauses (a) to (b) together: MUST, device.
pub const EV_STATE_001: Clause = Clause(820);
/// `EV-STATE-001.a`: MUST, device.
pub const EV_STATE_001_A: Clause = Clause(821);
/// `EV-STATE-001.b`: MUST, device.
pub const EV_STATE_001_B: Clause = Clause(822);
/// `EV-STATE-002`, its clauses (a) to (b) together: MUST, device.
pub const EV_STATE_002: Clause = Clause(823);
/// `EV-STATE-002.a`: MUST, device.
pub const EV_STATE_002_A: Clause = Clause(824);
/// `EV-STATE-002.b`: MUST, device.
pub const EV_STATE_002_B: Clause = Clause(825);
/// `EV-STATE-003`, its clauses (a) to (b) together: MUST, device.
pub const EV_STATE_003: Clause = Clause(826);
/// `EV-STATE-003.a`: MUST, device.
pub const EV_STATE_003_A: Clause = Clause(827);
/// `EV-STATE-003.b`: MUST, cpu-half.
pub const EV_STATE_003_B: Clause = Clause(828);
/// `EV-SKIP-001`: MUST, device.
pub const EV_SKIP_001: Clause = Clause(829);
/// `EV-SKIP-002`: MUST, device.
pub const EV_SKIP_002: Clause = Clause(830);
/// `EV-BAD-001`: MUST, device.
pub const EV_BAD_001: Clause = Clause(831);
/// `EV-BAD-002`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a restatement of REC-EV-002.a, which states the blame of a timed-out transmission's EV with all its exceptions (decision 26)."]
pub const EV_BAD_002: Clause = Clause(832);
/// `EV-PROBE-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by EV-PROBE-005, which also sends the probes the window-fit policy queues (SND-SPRAY-009) and reads the probe's timestamp from the sender's own clock (SND-TS-002)."]
pub const EV_PROBE_001: Clause = Clause(833);
/// `EV-PROBE-005`, its clauses (a) to (g) together: MUST, device.
pub const EV_PROBE_005: Clause = Clause(834);
/// `EV-PROBE-005.a`: MUST, device.
pub const EV_PROBE_005_A: Clause = Clause(835);
/// `EV-PROBE-005.b`: MUST, device.
pub const EV_PROBE_005_B: Clause = Clause(836);
/// `EV-PROBE-005.c`: MUST, device.
pub const EV_PROBE_005_C: Clause = Clause(837);
/// `EV-PROBE-005.d`: MUST, device.
pub const EV_PROBE_005_D: Clause = Clause(838);
/// `EV-PROBE-005.e`: MUST, device.
pub const EV_PROBE_005_E: Clause = Clause(839);
/// `EV-PROBE-005.f`: MUST, device.
pub const EV_PROBE_005_F: Clause = Clause(840);
/// `EV-PROBE-005.g`: MUST, device.
pub const EV_PROBE_005_G: Clause = Clause(841);
/// `EV-PROBE-002`: MUST, device.
pub const EV_PROBE_002: Clause = Clause(842);
/// `EV-PROBE-003`: MUST, device.
pub const EV_PROBE_003: Clause = Clause(843);
/// `EV-PROBE-004`: MUST, device.
pub const EV_PROBE_004: Clause = Clause(844);
/// `EV-DENY-001`: MUST, device.
pub const EV_DENY_001: Clause = Clause(845);
/// `EV-DENY-002`: MUST, device.
pub const EV_DENY_002: Clause = Clause(846);
/// `SND-SACK-001`: MUST, device.
pub const SND_SACK_001: Clause = Clause(847);
/// `SND-SACK-002`, its clauses (a) to (b) together: MUST, device.
pub const SND_SACK_002: Clause = Clause(848);
/// `SND-SACK-002.a`: MUST, device.
pub const SND_SACK_002_A: Clause = Clause(849);
/// `SND-SACK-002.b`: MUST, device.
pub const SND_SACK_002_B: Clause = Clause(850);
/// `SND-SACK-003`: MUST, device.
pub const SND_SACK_003: Clause = Clause(851);
/// `SND-SACK-004`: MUST, device.
pub const SND_SACK_004: Clause = Clause(852);
/// `SND-SACK-005`, its clauses (a) to (b) together: MUST, device.
pub const SND_SACK_005: Clause = Clause(853);
/// `SND-SACK-005.a`: MUST, outside-boundary.
pub const SND_SACK_005_A: Clause = Clause(854);
/// `SND-SACK-005.b`: MUST, device.
pub const SND_SACK_005_B: Clause = Clause(855);
/// `SND-SACK-006`: MUST, device.
pub const SND_SACK_006: Clause = Clause(856);
/// `SND-INFER-001`: MUST, device.
pub const SND_INFER_001: Clause = Clause(857);
/// `SND-INFER-002`, its clauses (a) to (b) together: MUST, device.
pub const SND_INFER_002: Clause = Clause(858);
/// `SND-INFER-002.a`: MUST, device.
pub const SND_INFER_002_A: Clause = Clause(859);
/// `SND-INFER-002.b`: MUST, device.
pub const SND_INFER_002_B: Clause = Clause(860);
/// `SND-INFER-003`, its clauses (a) to (b) together: MUST, device.
pub const SND_INFER_003: Clause = Clause(861);
/// `SND-INFER-003.a`: MUST, device.
pub const SND_INFER_003_A: Clause = Clause(862);
/// `SND-INFER-003.b`: MUST, device.
pub const SND_INFER_003_B: Clause = Clause(863);
/// `SND-INFER-004`: MUST, device.
pub const SND_INFER_004: Clause = Clause(864);
/// `SND-TAIL-001`, its clauses (a) to (b) together: MUST, device.
pub const SND_TAIL_001: Clause = Clause(865);
/// `SND-TAIL-001.a`: MUST, device.
pub const SND_TAIL_001_A: Clause = Clause(866);
/// `SND-TAIL-001.b`: MUST, device.
pub const SND_TAIL_001_B: Clause = Clause(867);
/// `SND-TAIL-002`: MUST, device.
pub const SND_TAIL_002: Clause = Clause(868);
/// `SND-TAIL-003`: MUST, device.
pub const SND_TAIL_003: Clause = Clause(869);
/// `SND-RTX-001`, its clauses (a) to (b) together: MUST, device.
pub const SND_RTX_001: Clause = Clause(870);
/// `SND-RTX-001.a`: MUST, device.
pub const SND_RTX_001_A: Clause = Clause(871);
/// `SND-RTX-001.b`: MUST, device.
pub const SND_RTX_001_B: Clause = Clause(872);
/// `SND-RTX-002`, its clauses (a) to (c) together: MUST, device.
pub const SND_RTX_002: Clause = Clause(873);
/// `SND-RTX-002.a`: MUST, device.
pub const SND_RTX_002_A: Clause = Clause(874);
/// `SND-RTX-002.b`: MUST, device.
pub const SND_RTX_002_B: Clause = Clause(875);
/// `SND-RTX-002.c`: MAY, device.
pub const SND_RTX_002_C: Clause = Clause(876);
/// `SND-RTX-003`: MUST, device.
pub const SND_RTX_003: Clause = Clause(877);
/// `SND-RTX-004`: MUST, device.
pub const SND_RTX_004: Clause = Clause(878);
/// `SND-RTX-005`: MUST, device.
pub const SND_RTX_005: Clause = Clause(879);
/// `SND-RTX-006`, its clauses (a) to (b) together: MUST, device.
pub const SND_RTX_006: Clause = Clause(880);
/// `SND-RTX-006.a`: MUST, device.
pub const SND_RTX_006_A: Clause = Clause(881);
/// `SND-RTX-006.b`: MUST, device.
pub const SND_RTX_006_B: Clause = Clause(882);
/// `SND-NACK-001`, its clauses (a) to (d) together: MUST, device.
pub const SND_NACK_001: Clause = Clause(883);
/// `SND-NACK-001.a`: MUST, device.
pub const SND_NACK_001_A: Clause = Clause(884);
/// `SND-NACK-001.b`: MUST, outside-boundary.
pub const SND_NACK_001_B: Clause = Clause(885);
/// `SND-NACK-001.c`: MUST, device.
pub const SND_NACK_001_C: Clause = Clause(886);
/// `SND-NACK-001.d`: MUST, outside-boundary.
pub const SND_NACK_001_D: Clause = Clause(887);
/// `SND-NACK-002`: MUST, device.
pub const SND_NACK_002: Clause = Clause(888);
/// `SND-NACK-003`: MUST, device.
pub const SND_NACK_003: Clause = Clause(889);
/// `SND-NACK-004`, its clauses (a) to (b) together: MUST, device.
pub const SND_NACK_004: Clause = Clause(890);
/// `SND-NACK-004.a`: MUST, device.
pub const SND_NACK_004_A: Clause = Clause(891);
/// `SND-NACK-004.b`: MUST, device.
pub const SND_NACK_004_B: Clause = Clause(892);
/// `SND-NACK-005`: MUST, device.
pub const SND_NACK_005: Clause = Clause(893);
/// `SND-ACK-001`, its clauses (a) to (b) together: MUST, device.
pub const SND_ACK_001: Clause = Clause(894);
/// `SND-ACK-001.a`: MUST, device.
pub const SND_ACK_001_A: Clause = Clause(895);
/// `SND-ACK-001.b`: MUST, device.
pub const SND_ACK_001_B: Clause = Clause(896);
/// `SND-ACK-002`: MUST, device.
pub const SND_ACK_002: Clause = Clause(897);
/// `SND-ACK-003`: MUST, device.
pub const SND_ACK_003: Clause = Clause(898);
/// `SND-ACK-004`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by SND-ACK-006, which completes the messages the AETH covers before failing the QP and gives the failing message REMOTE_OP_ERROR instead of REMOTE_ACCESS_ERROR."]
pub const SND_ACK_004: Clause = Clause(899);
/// `SND-ACK-005`: MUST, device.
pub const SND_ACK_005: Clause = Clause(900);
/// `SND-ACK-006`: MUST, device.
pub const SND_ACK_006: Clause = Clause(901);
/// `SND-ERR-001`: MUST, device.
pub const SND_ERR_001: Clause = Clause(902);
