//! The clauses of `receiver.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::Clause;

/// `RCV-FRAME-001`: MUST, device.
pub const RCV_FRAME_001: Clause = Clause(624);
/// `RCV-QP-001`: MUST, device.
pub const RCV_QP_001: Clause = Clause(625);
/// `RCV-QP-002`: MUST, device.
pub const RCV_QP_002: Clause = Clause(626);
/// `RCV-OPC-001`: MUST, device.
pub const RCV_OPC_001: Clause = Clause(627);
/// `RCV-WIN-001`: MUST, device.
pub const RCV_WIN_001: Clause = Clause(628);
/// `RCV-WIN-002`, its clauses (a) to (c) together: MUST, device.
pub const RCV_WIN_002: Clause = Clause(629);
/// `RCV-WIN-002.a`: MUST, device.
pub const RCV_WIN_002_A: Clause = Clause(630);
/// `RCV-WIN-002.b`: MUST, device.
pub const RCV_WIN_002_B: Clause = Clause(631);
/// `RCV-WIN-002.c`: MUST, outside-boundary.
pub const RCV_WIN_002_C: Clause = Clause(632);
/// `RCV-WIN-003`: MUST, device.
pub const RCV_WIN_003: Clause = Clause(633);
/// `RCV-DUP-001`, its clauses (a) to (c) together: MUST, device.
pub const RCV_DUP_001: Clause = Clause(634);
/// `RCV-DUP-001.a`: MUST, device.
pub const RCV_DUP_001_A: Clause = Clause(635);
/// `RCV-DUP-001.b`: MUST, device.
pub const RCV_DUP_001_B: Clause = Clause(636);
/// `RCV-DUP-001.c`: MUST, outside-boundary.
pub const RCV_DUP_001_C: Clause = Clause(637);
/// `RCV-DUP-002`: MUST, device.
pub const RCV_DUP_002: Clause = Clause(638);
/// `RCV-SEG-001`: MUST, device.
pub const RCV_SEG_001: Clause = Clause(639);
/// `RCV-SEG-002`: MUST, device.
pub const RCV_SEG_002: Clause = Clause(640);
/// `RCV-PLACE-002`, its clauses (a) to (c) together: MUST, device.
pub const RCV_PLACE_002: Clause = Clause(641);
/// `RCV-PLACE-002.a`: MUST, device.
pub const RCV_PLACE_002_A: Clause = Clause(642);
/// `RCV-PLACE-002.b`: MUST, device.
pub const RCV_PLACE_002_B: Clause = Clause(643);
/// `RCV-PLACE-002.c`: MUST, outside-boundary.
pub const RCV_PLACE_002_C: Clause = Clause(644);
/// `RCV-MSG-001`: MUST, device.
pub const RCV_MSG_001: Clause = Clause(645);
/// `RCV-MSG-002`: MUST, device.
pub const RCV_MSG_002: Clause = Clause(646);
/// `RCV-CHECK-001`: MUST, device.
pub const RCV_CHECK_001: Clause = Clause(647);
/// `RCV-REJECT-001`: MUST, device.
pub const RCV_REJECT_001: Clause = Clause(648);
/// `RCV-PLACE-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by RCV-PLACE-003, which fixes the bytes that land and not the number of DMA writes that carry them."]
pub const RCV_PLACE_001: Clause = Clause(649);
/// `RCV-PLACE-003`, its clauses (a) to (b) together: MUST, device.
pub const RCV_PLACE_003: Clause = Clause(650);
/// `RCV-PLACE-003.a`: MUST, device.
pub const RCV_PLACE_003_A: Clause = Clause(651);
/// `RCV-PLACE-003.b`: MAY, device.
pub const RCV_PLACE_003_B: Clause = Clause(652);
/// `RCV-PLACE-004`: MUST, device.
pub const RCV_PLACE_004: Clause = Clause(653);
/// `RCV-MSG-003`: MUST, device.
pub const RCV_MSG_003: Clause = Clause(654);
/// `RCV-SACK-001`, its clauses (a) to (f) together: MUST, device.
pub const RCV_SACK_001: Clause = Clause(655);
/// `RCV-SACK-001.a`: MUST, device.
pub const RCV_SACK_001_A: Clause = Clause(656);
/// `RCV-SACK-001.b`: MUST, device.
pub const RCV_SACK_001_B: Clause = Clause(657);
/// `RCV-SACK-001.c`: MUST, device.
pub const RCV_SACK_001_C: Clause = Clause(658);
/// `RCV-SACK-001.d`: MUST, device.
pub const RCV_SACK_001_D: Clause = Clause(659);
/// `RCV-SACK-001.e`: MUST, device.
pub const RCV_SACK_001_E: Clause = Clause(660);
/// `RCV-SACK-001.f`: MUST, device.
pub const RCV_SACK_001_F: Clause = Clause(661);
/// `RCV-SACK-002`: MUST, device.
pub const RCV_SACK_002: Clause = Clause(662);
/// `RCV-SACK-003`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by RCV-SACK-008, under which a SACK leaves the SACK timer running while it owes a transport ACK held back by coalescing."]
pub const RCV_SACK_003: Clause = Clause(663);
/// `RCV-SACK-008`, its clauses (a) to (b) together: MUST, device.
pub const RCV_SACK_008: Clause = Clause(664);
/// `RCV-SACK-008.a`: MUST, device.
pub const RCV_SACK_008_A: Clause = Clause(665);
/// `RCV-SACK-008.b`: MUST, device.
pub const RCV_SACK_008_B: Clause = Clause(666);
/// `RCV-SACK-004`, its clauses (a) to (b) together: MUST, device.
pub const RCV_SACK_004: Clause = Clause(667);
/// `RCV-SACK-004.a`: MUST, device.
pub const RCV_SACK_004_A: Clause = Clause(668);
/// `RCV-SACK-004.b`: MUST, device.
pub const RCV_SACK_004_B: Clause = Clause(669);
/// `RCV-SACK-005`, its clauses (a) to (i) together: MUST, device.
pub const RCV_SACK_005: Clause = Clause(670);
/// `RCV-SACK-005.a`: MUST, device.
pub const RCV_SACK_005_A: Clause = Clause(671);
/// `RCV-SACK-005.b`: MUST, device.
pub const RCV_SACK_005_B: Clause = Clause(672);
/// `RCV-SACK-005.c`: MUST, device.
pub const RCV_SACK_005_C: Clause = Clause(673);
/// `RCV-SACK-005.d`: MUST, device.
pub const RCV_SACK_005_D: Clause = Clause(674);
/// `RCV-SACK-005.e`: MUST, device.
pub const RCV_SACK_005_E: Clause = Clause(675);
/// `RCV-SACK-005.f`: MUST, device.
pub const RCV_SACK_005_F: Clause = Clause(676);
/// `RCV-SACK-005.g`: MUST, device.
pub const RCV_SACK_005_G: Clause = Clause(677);
/// `RCV-SACK-005.h`: MUST, device.
pub const RCV_SACK_005_H: Clause = Clause(678);
/// `RCV-SACK-005.i`: MUST, device.
pub const RCV_SACK_005_I: Clause = Clause(679);
/// `RCV-SACK-006`, its clauses (a) to (c) together: MUST, device.
pub const RCV_SACK_006: Clause = Clause(680);
/// `RCV-SACK-006.a`: MUST, device.
pub const RCV_SACK_006_A: Clause = Clause(681);
/// `RCV-SACK-006.b`: MAY, device.
pub const RCV_SACK_006_B: Clause = Clause(682);
/// `RCV-SACK-006.c`: MUST, device.
pub const RCV_SACK_006_C: Clause = Clause(683);
/// `RCV-SACK-007`: MUST, device.
pub const RCV_SACK_007: Clause = Clause(684);
/// `RCV-NACK-001`, its clauses (a) to (g) together: MUST, device.
pub const RCV_NACK_001: Clause = Clause(685);
/// `RCV-NACK-001.a`: MUST, device.
pub const RCV_NACK_001_A: Clause = Clause(686);
/// `RCV-NACK-001.b`: MUST, device.
pub const RCV_NACK_001_B: Clause = Clause(687);
/// `RCV-NACK-001.c`: MUST, device.
pub const RCV_NACK_001_C: Clause = Clause(688);
/// `RCV-NACK-001.d`: MUST, device.
pub const RCV_NACK_001_D: Clause = Clause(689);
/// `RCV-NACK-001.e`: MUST, device.
pub const RCV_NACK_001_E: Clause = Clause(690);
/// `RCV-NACK-001.f`: MUST, device.
pub const RCV_NACK_001_F: Clause = Clause(691);
/// `RCV-NACK-001.g`: MUST, device.
pub const RCV_NACK_001_G: Clause = Clause(692);
/// `RCV-ACK-001`, its clauses (a) to (b) together: MUST, device.
pub const RCV_ACK_001: Clause = Clause(693);
/// `RCV-ACK-001.a`: MUST, device.
pub const RCV_ACK_001_A: Clause = Clause(694);
/// `RCV-ACK-001.b`: MUST, device.
pub const RCV_ACK_001_B: Clause = Clause(695);
/// `RCV-ACK-002`, its clauses (a) to (c) together: MUST, device.
pub const RCV_ACK_002: Clause = Clause(696);
/// `RCV-ACK-002.a`: MUST, device.
pub const RCV_ACK_002_A: Clause = Clause(697);
/// `RCV-ACK-002.b`: MUST, device.
pub const RCV_ACK_002_B: Clause = Clause(698);
/// `RCV-ACK-002.c`: MUST, device.
pub const RCV_ACK_002_C: Clause = Clause(699);
/// `RCV-ACK-003`, its clauses (a) to (b) together: MUST, device.
pub const RCV_ACK_003: Clause = Clause(700);
/// `RCV-ACK-003.a`: MUST, device.
pub const RCV_ACK_003_A: Clause = Clause(701);
/// `RCV-ACK-003.b`: MUST, device.
pub const RCV_ACK_003_B: Clause = Clause(702);
/// `RCV-NAK-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by RCV-NAK-002, under which a NAK sent before any message of the QP retired carries the MSN before the domain's next MSN instead of 0."]
pub const RCV_NAK_001: Clause = Clause(703);
/// `RCV-NAK-002`, its clauses (a) to (d) together: MUST, device.
pub const RCV_NAK_002: Clause = Clause(704);
/// `RCV-NAK-002.a`: MUST, device.
pub const RCV_NAK_002_A: Clause = Clause(705);
/// `RCV-NAK-002.b`: MUST, device.
pub const RCV_NAK_002_B: Clause = Clause(706);
/// `RCV-NAK-002.c`: MUST, device.
pub const RCV_NAK_002_C: Clause = Clause(707);
/// `RCV-NAK-002.d`: MUST, device.
pub const RCV_NAK_002_D: Clause = Clause(708);
