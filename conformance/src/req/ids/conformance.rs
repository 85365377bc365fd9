//! The clauses of `conformance.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::Clause;

/// `CONF-DEV-001`: MUST, suite.
pub const CONF_DEV_001: Clause = Clause(34);
/// `CONF-DEV-002`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_DEV_002: Clause = Clause(35);
/// `CONF-DEV-002.a`: MUST, adapter.
pub const CONF_DEV_002_A: Clause = Clause(36);
/// `CONF-DEV-002.b`: MUST, adapter.
pub const CONF_DEV_002_B: Clause = Clause(37);
/// `CONF-DEV-003`: MUST, suite.
pub const CONF_DEV_003: Clause = Clause(38);
/// `CONF-DEV-004`: MUST, adapter.
pub const CONF_DEV_004: Clause = Clause(39);
/// `CONF-DEV-005`: MUST, suite.
pub const CONF_DEV_005: Clause = Clause(40);
/// `CONF-DEV-006`: MUST, adapter.
pub const CONF_DEV_006: Clause = Clause(41);
/// `CONF-MEM-001`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_MEM_001: Clause = Clause(42);
/// `CONF-MEM-001.a`: MUST, adapter.
pub const CONF_MEM_001_A: Clause = Clause(43);
/// `CONF-MEM-001.b`: MUST, adapter.
pub const CONF_MEM_001_B: Clause = Clause(44);
/// `CONF-FMT-001`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_FMT_001: Clause = Clause(45);
/// `CONF-FMT-001.a`: MUST, suite.
pub const CONF_FMT_001_A: Clause = Clause(46);
/// `CONF-FMT-001.b`: MUST, suite.
pub const CONF_FMT_001_B: Clause = Clause(47);
/// `CONF-FMT-001.c`: MUST, suite.
pub const CONF_FMT_001_C: Clause = Clause(48);
/// `CONF-FMT-007`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_FMT_007: Clause = Clause(49);
/// `CONF-FMT-007.a`: MUST, suite.
pub const CONF_FMT_007_A: Clause = Clause(50);
/// `CONF-FMT-007.b`: MUST, suite.
pub const CONF_FMT_007_B: Clause = Clause(51);
/// `CONF-FMT-007.c`: MUST, suite.
pub const CONF_FMT_007_C: Clause = Clause(52);
/// `CONF-FMT-008`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_FMT_008: Clause = Clause(53);
/// `CONF-FMT-008.a`: MUST, suite.
pub const CONF_FMT_008_A: Clause = Clause(54);
/// `CONF-FMT-008.b`: MUST, suite.
pub const CONF_FMT_008_B: Clause = Clause(55);
/// `CONF-FMT-009`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_FMT_009: Clause = Clause(56);
/// `CONF-FMT-009.a`: MUST, suite.
pub const CONF_FMT_009_A: Clause = Clause(57);
/// `CONF-FMT-009.b`: MUST, suite.
pub const CONF_FMT_009_B: Clause = Clause(58);
/// `CONF-FMT-011`: MUST, suite.
pub const CONF_FMT_011: Clause = Clause(59);
/// `CONF-FMT-002`: MUST, suite.
pub const CONF_FMT_002: Clause = Clause(60);
/// `CONF-FMT-003`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_FMT_003: Clause = Clause(61);
/// `CONF-FMT-003.a`: MUST, suite.
pub const CONF_FMT_003_A: Clause = Clause(62);
/// `CONF-FMT-003.b`: MUST, suite.
pub const CONF_FMT_003_B: Clause = Clause(63);
/// `CONF-FMT-004`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_FMT_004: Clause = Clause(64);
/// `CONF-FMT-004.a`: MUST, suite.
pub const CONF_FMT_004_A: Clause = Clause(65);
/// `CONF-FMT-004.b`: MUST, suite.
pub const CONF_FMT_004_B: Clause = Clause(66);
/// `CONF-FMT-004.c`: MUST, suite.
pub const CONF_FMT_004_C: Clause = Clause(67);
/// `CONF-FMT-005`: MUST, suite.
pub const CONF_FMT_005: Clause = Clause(68);
/// `CONF-FMT-010`: MUST, suite.
pub const CONF_FMT_010: Clause = Clause(69);
/// `CONF-FMT-006`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_FMT_006: Clause = Clause(70);
/// `CONF-FMT-006.a`: MUST, suite.
pub const CONF_FMT_006_A: Clause = Clause(71);
/// `CONF-FMT-006.b`: MUST, suite.
pub const CONF_FMT_006_B: Clause = Clause(72);
/// `CONF-FMT-006.c`: MUST, suite.
pub const CONF_FMT_006_C: Clause = Clause(73);
/// `CONF-GEN-001`: MUST, suite.
pub const CONF_GEN_001: Clause = Clause(74);
/// `CONF-GEN-002`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-GEN-007, which lets a scenario that requires `spray-policies` record over paths of different delays."]
pub const CONF_GEN_002: Clause = Clause(75);
/// `CONF-GEN-003`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-GEN-005, under which a recording may also leave the CPU half to the runner's reference agent or to the device."]
pub const CONF_GEN_003: Clause = Clause(76);
/// `CONF-GEN-005`, its clauses (a) to (d) together: MUST, suite.
pub const CONF_GEN_005: Clause = Clause(77);
/// `CONF-GEN-005.a`: MUST, suite.
pub const CONF_GEN_005_A: Clause = Clause(78);
/// `CONF-GEN-005.b`: MUST, suite.
pub const CONF_GEN_005_B: Clause = Clause(79);
/// `CONF-GEN-005.c`: MUST, suite.
pub const CONF_GEN_005_C: Clause = Clause(80);
/// `CONF-GEN-005.d`: MUST, suite.
pub const CONF_GEN_005_D: Clause = Clause(81);
/// `CONF-GEN-004`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-GEN-008, under which a variant passes every scenario whose capabilities it claims rather than every scenario."]
pub const CONF_GEN_004: Clause = Clause(82);
/// `CONF-GEN-007`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_GEN_007: Clause = Clause(83);
/// `CONF-GEN-007.a`: MUST, suite.
pub const CONF_GEN_007_A: Clause = Clause(84);
/// `CONF-GEN-007.b`: MAY, suite.
pub const CONF_GEN_007_B: Clause = Clause(85);
/// `CONF-GEN-008`, its clauses (a) to (d) together: MUST, suite.
pub const CONF_GEN_008: Clause = Clause(86);
/// `CONF-GEN-008.a`: MUST, suite.
pub const CONF_GEN_008_A: Clause = Clause(87);
/// `CONF-GEN-008.b`: MUST, suite.
pub const CONF_GEN_008_B: Clause = Clause(88);
/// `CONF-GEN-008.c`: MUST, suite.
pub const CONF_GEN_008_C: Clause = Clause(89);
/// `CONF-GEN-008.d`: MUST, suite.
pub const CONF_GEN_008_D: Clause = Clause(90);
/// `CONF-RUN-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-RUN-005, which bounds the length of a batch when the runner plays the CPU half."]
pub const CONF_RUN_001: Clause = Clause(91);
/// `CONF-RUN-005`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-RUN-008, under which a batch also ends at a hold point and records are delivered at their time plus the lag."]
pub const CONF_RUN_005: Clause = Clause(92);
/// `CONF-RUN-007`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_RUN_007: Clause = Clause(93);
/// `CONF-RUN-007.a`: MUST, suite.
pub const CONF_RUN_007_A: Clause = Clause(94);
/// `CONF-RUN-007.b`: MUST, suite.
pub const CONF_RUN_007_B: Clause = Clause(95);
/// `CONF-RUN-008`: MUST, suite.
pub const CONF_RUN_008: Clause = Clause(96);
/// `CONF-RUN-002`: MUST, suite.
pub const CONF_RUN_002: Clause = Clause(97);
/// `CONF-RUN-003`: MUST, suite.
pub const CONF_RUN_003: Clause = Clause(98);
/// `CONF-RUN-006`: MUST, suite.
pub const CONF_RUN_006: Clause = Clause(99);
/// `CONF-RUN-004`: MUST, suite.
pub const CONF_RUN_004: Clause = Clause(100);
/// `CONF-MAP-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-MAP-002, under which the answer to a probe follows the device's probe when a CPU half runs during the replay."]
pub const CONF_MAP_001: Clause = Clause(101);
/// `CONF-MAP-002`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_MAP_002: Clause = Clause(102);
/// `CONF-MAP-002.a`: MUST, suite.
pub const CONF_MAP_002_A: Clause = Clause(103);
/// `CONF-MAP-002.b`: MUST, suite.
pub const CONF_MAP_002_B: Clause = Clause(104);
/// `CONF-MAP-002.c`: MUST, suite.
pub const CONF_MAP_002_C: Clause = Clause(105);
/// `CONF-MAP-003`: MUST, suite.
pub const CONF_MAP_003: Clause = Clause(106);
/// `CONF-CMP-001`: MUST, suite.
pub const CONF_CMP_001: Clause = Clause(107);
/// `CONF-CMP-002`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-026, which judges the entropy value by the EV states the scenario sets (CONF-CMP-027) and, under `spray-policies`, exactly (CONF-CMP-028), and compares the TSETH fields other than the timestamp."]
pub const CONF_CMP_002: Clause = Clause(108);
/// `CONF-CMP-003`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-027, under which a retransmission may reuse the EV of the previous transmission when no other EV is certainly usable, and a resend of REC-RTO-004 may too."]
pub const CONF_CMP_003: Clause = Clause(109);
/// `CONF-CMP-018`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-027, which allows the reuse SND-RTX-002 allows whenever no other EV is certainly usable, a profile of one EV included."]
pub const CONF_CMP_018: Clause = Clause(110);
/// `CONF-CMP-026`, its clauses (a) to (e) together: MUST, suite.
pub const CONF_CMP_026: Clause = Clause(111);
/// `CONF-CMP-026.a`: MUST, suite.
pub const CONF_CMP_026_A: Clause = Clause(112);
/// `CONF-CMP-026.b`: MUST, suite.
pub const CONF_CMP_026_B: Clause = Clause(113);
/// `CONF-CMP-026.c`: MUST, suite.
pub const CONF_CMP_026_C: Clause = Clause(114);
/// `CONF-CMP-026.d`: MUST, suite.
pub const CONF_CMP_026_D: Clause = Clause(115);
/// `CONF-CMP-026.e`: MUST, suite.
pub const CONF_CMP_026_E: Clause = Clause(116);
/// `CONF-CMP-004`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-019, which says which commands excuse a retransmission when the CPU half is inside the device."]
pub const CONF_CMP_004: Clause = Clause(117);
/// `CONF-CMP-019`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_CMP_019: Clause = Clause(118);
/// `CONF-CMP-019.a`: MUST, suite.
pub const CONF_CMP_019_A: Clause = Clause(119);
/// `CONF-CMP-019.b`: MUST, suite.
pub const CONF_CMP_019_B: Clause = Clause(120);
/// `CONF-CMP-019.c`: MUST, suite.
pub const CONF_CMP_019_C: Clause = Clause(121);
/// `CONF-CMP-005`, its clauses (a) to (b) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-037, which matches NACKs by (QP, `nack_psn`) and holds the BTH PSN of NACKs and probes as a MUST (OPC-PSN-002)."]
pub const CONF_CMP_005: Clause = Clause(122);
/// `CONF-CMP-005.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-037, which matches NACKs by (QP, `nack_psn`) and holds the BTH PSN of NACKs and probes as a MUST (OPC-PSN-002)."]
pub const CONF_CMP_005_A: Clause = Clause(123);
/// `CONF-CMP-005.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-037, which matches NACKs by (QP, `nack_psn`) and holds the BTH PSN of NACKs and probes as a MUST (OPC-PSN-002)."]
pub const CONF_CMP_005_B: Clause = Clause(124);
/// `CONF-CMP-036`: MUST, suite.
pub const CONF_CMP_036: Clause = Clause(125);
/// `CONF-CMP-102`: MUST, suite.
pub const CONF_CMP_102: Clause = Clause(126);
/// `CONF-CMP-095`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_CMP_095: Clause = Clause(127);
/// `CONF-CMP-095.a`: MUST, suite.
pub const CONF_CMP_095_A: Clause = Clause(128);
/// `CONF-CMP-095.b`: MUST, suite.
pub const CONF_CMP_095_B: Clause = Clause(129);
/// `CONF-CMP-095.c`: MUST, suite.
pub const CONF_CMP_095_C: Clause = Clause(130);
/// `CONF-CMP-115`: MUST, suite.
pub const CONF_CMP_115: Clause = Clause(131);
/// `CONF-CMP-037`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_CMP_037: Clause = Clause(132);
/// `CONF-CMP-037.a`: MUST, suite.
pub const CONF_CMP_037_A: Clause = Clause(133);
/// `CONF-CMP-037.b`: MUST, suite.
pub const CONF_CMP_037_B: Clause = Clause(134);
/// `CONF-CMP-122`: MUST, suite.
pub const CONF_CMP_122: Clause = Clause(135);
/// `CONF-CMP-112`: MUST, suite.
pub const CONF_CMP_112: Clause = Clause(136);
/// `CONF-CMP-127`: MUST, suite.
pub const CONF_CMP_127: Clause = Clause(137);
/// `CONF-CMP-128`: MUST, suite.
pub const CONF_CMP_128: Clause = Clause(138);
/// `CONF-CMP-006`, its clauses (a) to (i) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-045, which accepts the clamped `ack_psn_offset` of a SACK that answers a packet too far from `cack_psn` (SETH-ACKPSN-003.b)."]
pub const CONF_CMP_006: Clause = Clause(139);
/// `CONF-CMP-006.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-045, which accepts the clamped `ack_psn_offset` of a SACK that answers a packet too far from `cack_psn` (SETH-ACKPSN-003.b)."]
pub const CONF_CMP_006_A: Clause = Clause(140);
/// `CONF-CMP-006.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-045, which accepts the clamped `ack_psn_offset` of a SACK that answers a packet too far from `cack_psn` (SETH-ACKPSN-003.b)."]
pub const CONF_CMP_006_B: Clause = Clause(141);
/// `CONF-CMP-006.c`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-045, which accepts the clamped `ack_psn_offset` of a SACK that answers a packet too far from `cack_psn` (SETH-ACKPSN-003.b)."]
pub const CONF_CMP_006_C: Clause = Clause(142);
/// `CONF-CMP-006.d`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-045, which accepts the clamped `ack_psn_offset` of a SACK that answers a packet too far from `cack_psn` (SETH-ACKPSN-003.b)."]
pub const CONF_CMP_006_D: Clause = Clause(143);
/// `CONF-CMP-006.e`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-045, which accepts the clamped `ack_psn_offset` of a SACK that answers a packet too far from `cack_psn` (SETH-ACKPSN-003.b)."]
pub const CONF_CMP_006_E: Clause = Clause(144);
/// `CONF-CMP-006.f`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-045, which accepts the clamped `ack_psn_offset` of a SACK that answers a packet too far from `cack_psn` (SETH-ACKPSN-003.b)."]
pub const CONF_CMP_006_F: Clause = Clause(145);
/// `CONF-CMP-006.g`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-045, which accepts the clamped `ack_psn_offset` of a SACK that answers a packet too far from `cack_psn` (SETH-ACKPSN-003.b)."]
pub const CONF_CMP_006_G: Clause = Clause(146);
/// `CONF-CMP-006.h`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-045, which accepts the clamped `ack_psn_offset` of a SACK that answers a packet too far from `cack_psn` (SETH-ACKPSN-003.b)."]
pub const CONF_CMP_006_H: Clause = Clause(147);
/// `CONF-CMP-006.i`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-045, which accepts the clamped `ack_psn_offset` of a SACK that answers a packet too far from `cack_psn` (SETH-ACKPSN-003.b)."]
pub const CONF_CMP_006_I: Clause = Clause(148);
/// `CONF-CMP-007`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_CMP_007: Clause = Clause(149);
/// `CONF-CMP-007.a`: MUST, suite.
pub const CONF_CMP_007_A: Clause = Clause(150);
/// `CONF-CMP-007.b`: MUST, suite.
pub const CONF_CMP_007_B: Clause = Clause(151);
/// `CONF-CMP-008`, its clauses (a) to (b) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-034, which judges placement by the bytes that land, whatever the number and size of the writes that carry them."]
pub const CONF_CMP_008: Clause = Clause(152);
/// `CONF-CMP-008.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-034, which judges placement by the bytes that land, whatever the number and size of the writes that carry them."]
pub const CONF_CMP_008_A: Clause = Clause(153);
/// `CONF-CMP-008.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-034, which judges placement by the bytes that land, whatever the number and size of the writes that carry them."]
pub const CONF_CMP_008_B: Clause = Clause(154);
/// `CONF-CMP-034`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_CMP_034: Clause = Clause(155);
/// `CONF-CMP-034.a`: MUST, suite.
pub const CONF_CMP_034_A: Clause = Clause(156);
/// `CONF-CMP-034.b`: MUST, suite.
pub const CONF_CMP_034_B: Clause = Clause(157);
/// `CONF-CMP-034.c`: MUST, suite.
pub const CONF_CMP_034_C: Clause = Clause(158);
/// `CONF-CMP-009`: MUST, suite.
pub const CONF_CMP_009: Clause = Clause(159);
/// `CONF-CMP-104`: MUST, suite.
pub const CONF_CMP_104: Clause = Clause(160);
/// `CONF-CMP-105`: MUST, suite.
pub const CONF_CMP_105: Clause = Clause(161);
/// `CONF-CMP-132`: MUST, suite.
pub const CONF_CMP_132: Clause = Clause(162);
/// `CONF-CMP-060`: MUST, suite.
pub const CONF_CMP_060: Clause = Clause(163);
/// `CONF-CMP-090`, its clauses (a) to (c) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-092, under which the device error queue ties no QP: its entries are ordered by its own ring alone."]
pub const CONF_CMP_090: Clause = Clause(164);
/// `CONF-CMP-090.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-092, under which the device error queue ties no QP: its entries are ordered by its own ring alone."]
pub const CONF_CMP_090_A: Clause = Clause(165);
/// `CONF-CMP-090.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-092, under which the device error queue ties no QP: its entries are ordered by its own ring alone."]
pub const CONF_CMP_090_B: Clause = Clause(166);
/// `CONF-CMP-090.c`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-092, under which the device error queue ties no QP: its entries are ordered by its own ring alone."]
pub const CONF_CMP_090_C: Clause = Clause(167);
/// `CONF-CMP-092`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_CMP_092: Clause = Clause(168);
/// `CONF-CMP-092.a`: MUST, suite.
pub const CONF_CMP_092_A: Clause = Clause(169);
/// `CONF-CMP-092.b`: MUST, suite.
pub const CONF_CMP_092_B: Clause = Clause(170);
/// `CONF-CMP-092.c`: MUST, suite.
pub const CONF_CMP_092_C: Clause = Clause(171);
/// `CONF-CMP-010`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-020, which compares `EvState` reports where a scenario expects them and no report where the CPU half is inside the device."]
pub const CONF_CMP_010: Clause = Clause(172);
/// `CONF-CMP-020`, its clauses (a) to (e) together: MUST, suite.
pub const CONF_CMP_020: Clause = Clause(173);
/// `CONF-CMP-020.a`: MUST, suite.
pub const CONF_CMP_020_A: Clause = Clause(174);
/// `CONF-CMP-020.b`: MUST, suite.
pub const CONF_CMP_020_B: Clause = Clause(175);
/// `CONF-CMP-020.c`: MUST, suite.
pub const CONF_CMP_020_C: Clause = Clause(176);
/// `CONF-CMP-020.d`: MUST, suite.
pub const CONF_CMP_020_D: Clause = Clause(177);
/// `CONF-CMP-020.e`: MUST, suite.
pub const CONF_CMP_020_E: Clause = Clause(178);
/// `CONF-CMP-050`: MUST, suite.
pub const CONF_CMP_050: Clause = Clause(179);
/// `CONF-CMP-116`: MUST, suite.
pub const CONF_CMP_116: Clause = Clause(180);
/// `CONF-CMP-125`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_CMP_125: Clause = Clause(181);
/// `CONF-CMP-125.a`: MUST, suite.
pub const CONF_CMP_125_A: Clause = Clause(182);
/// `CONF-CMP-125.b`: MUST, suite.
pub const CONF_CMP_125_B: Clause = Clause(183);
/// `CONF-CMP-103`: MUST, suite.
pub const CONF_CMP_103: Clause = Clause(184);
/// `CONF-CMP-051`: MUST, suite.
pub const CONF_CMP_051: Clause = Clause(185);
/// `CONF-CMP-052`: MUST, suite.
pub const CONF_CMP_052: Clause = Clause(186);
/// `CONF-CMP-114`: MUST, suite.
pub const CONF_CMP_114: Clause = Clause(187);
/// `CONF-CMP-100`: MUST, suite.
pub const CONF_CMP_100: Clause = Clause(188);
/// `CONF-CMP-070`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_CMP_070: Clause = Clause(189);
/// `CONF-CMP-070.a`: MUST, suite.
pub const CONF_CMP_070_A: Clause = Clause(190);
/// `CONF-CMP-070.b`: MUST, suite.
pub const CONF_CMP_070_B: Clause = Clause(191);
/// `CONF-CMP-065`: MUST, suite.
pub const CONF_CMP_065: Clause = Clause(192);
/// `CONF-CMP-075`, its clauses (a) to (d) together: MUST, suite.
pub const CONF_CMP_075: Clause = Clause(193);
/// `CONF-CMP-075.a`: MUST, suite.
pub const CONF_CMP_075_A: Clause = Clause(194);
/// `CONF-CMP-075.b`: MUST, suite.
pub const CONF_CMP_075_B: Clause = Clause(195);
/// `CONF-CMP-075.c`: MUST, suite.
pub const CONF_CMP_075_C: Clause = Clause(196);
/// `CONF-CMP-075.d`: MUST, suite.
pub const CONF_CMP_075_D: Clause = Clause(197);
/// `CONF-CMP-139`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_CMP_139: Clause = Clause(198);
/// `CONF-CMP-139.a`: MUST, suite.
pub const CONF_CMP_139_A: Clause = Clause(199);
/// `CONF-CMP-139.b`: MUST, suite.
pub const CONF_CMP_139_B: Clause = Clause(200);
/// `CONF-CMP-076`: MUST, suite.
pub const CONF_CMP_076: Clause = Clause(201);
/// `CONF-CMP-077`: MUST, suite.
pub const CONF_CMP_077: Clause = Clause(202);
/// `CONF-CMP-078`, its clauses (a) to (c) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-110, under which an `Armed` is held before only a `Progress` that moves `snd_una` to its value and reports no outstanding PSN, since one that counts outstanding PSNs may have been built after the `Armed`'s data packet left."]
pub const CONF_CMP_078: Clause = Clause(203);
/// `CONF-CMP-078.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-110, under which an `Armed` is held before only a `Progress` that moves `snd_una` to its value and reports no outstanding PSN, since one that counts outstanding PSNs may have been built after the `Armed`'s data packet left."]
pub const CONF_CMP_078_A: Clause = Clause(204);
/// `CONF-CMP-078.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-110, under which an `Armed` is held before only a `Progress` that moves `snd_una` to its value and reports no outstanding PSN, since one that counts outstanding PSNs may have been built after the `Armed`'s data packet left."]
pub const CONF_CMP_078_B: Clause = Clause(205);
/// `CONF-CMP-078.c`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-110, under which an `Armed` is held before only a `Progress` that moves `snd_una` to its value and reports no outstanding PSN, since one that counts outstanding PSNs may have been built after the `Armed`'s data packet left."]
pub const CONF_CMP_078_C: Clause = Clause(206);
/// `CONF-CMP-110`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_CMP_110: Clause = Clause(207);
/// `CONF-CMP-110.a`: MUST, suite.
pub const CONF_CMP_110_A: Clause = Clause(208);
/// `CONF-CMP-110.b`: MUST, suite.
pub const CONF_CMP_110_B: Clause = Clause(209);
/// `CONF-CMP-110.c`: MAY, suite.
pub const CONF_CMP_110_C: Clause = Clause(210);
/// `CONF-CMP-011`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-013, under which the divergence a report shows first is the earliest one that breaks a MUST, not the earliest of all: a scenario that fails is explained by what failed it."]
pub const CONF_CMP_011: Clause = Clause(211);
/// `CONF-CMP-013`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_CMP_013: Clause = Clause(212);
/// `CONF-CMP-013.a`: MUST, suite.
pub const CONF_CMP_013_A: Clause = Clause(213);
/// `CONF-CMP-013.b`: MUST, suite.
pub const CONF_CMP_013_B: Clause = Clause(214);
/// `CONF-CMP-118`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_CMP_118: Clause = Clause(215);
/// `CONF-CMP-118.a`: MUST, suite.
pub const CONF_CMP_118_A: Clause = Clause(216);
/// `CONF-CMP-118.b`: MUST, suite.
pub const CONF_CMP_118_B: Clause = Clause(217);
/// `CONF-CMP-118.c`: MUST, suite.
pub const CONF_CMP_118_C: Clause = Clause(218);
/// `CONF-CMP-119`: MUST, suite.
pub const CONF_CMP_119: Clause = Clause(219);
/// `CONF-CMP-145`: MUST, suite.
pub const CONF_CMP_145: Clause = Clause(220);
/// `CONF-CMP-107`: MUST, suite.
pub const CONF_CMP_107: Clause = Clause(221);
/// `CONF-CMP-113`: MUST, suite.
pub const CONF_CMP_113: Clause = Clause(222);
/// `CONF-CMP-120`: MUST, suite.
pub const CONF_CMP_120: Clause = Clause(223);
/// `CONF-CMP-108`: MUST, suite.
pub const CONF_CMP_108: Clause = Clause(224);
/// `CONF-CMP-109`: MUST, suite.
pub const CONF_CMP_109: Clause = Clause(225);
/// `CONF-CMP-124`: MUST, suite.
pub const CONF_CMP_124: Clause = Clause(226);
/// `CONF-CMP-021`, its clauses (a) to (g) together: MUST, suite.
pub const CONF_CMP_021: Clause = Clause(227);
/// `CONF-CMP-021.a`: MUST, suite.
pub const CONF_CMP_021_A: Clause = Clause(228);
/// `CONF-CMP-021.b`: MUST, suite.
pub const CONF_CMP_021_B: Clause = Clause(229);
/// `CONF-CMP-021.c`: MUST, suite.
pub const CONF_CMP_021_C: Clause = Clause(230);
/// `CONF-CMP-021.d`: MUST, suite.
pub const CONF_CMP_021_D: Clause = Clause(231);
/// `CONF-CMP-021.e`: MUST, suite.
pub const CONF_CMP_021_E: Clause = Clause(232);
/// `CONF-CMP-021.f`: MUST, suite.
pub const CONF_CMP_021_F: Clause = Clause(233);
/// `CONF-CMP-021.g`: MUST, suite.
pub const CONF_CMP_021_G: Clause = Clause(234);
/// `CONF-CMP-012`, its clauses (a) to (d) together: MUST, suite.
pub const CONF_CMP_012: Clause = Clause(235);
/// `CONF-CMP-012.a`: MUST, suite.
pub const CONF_CMP_012_A: Clause = Clause(236);
/// `CONF-CMP-012.b`: MUST, suite.
pub const CONF_CMP_012_B: Clause = Clause(237);
/// `CONF-CMP-012.c`: MUST, suite.
pub const CONF_CMP_012_C: Clause = Clause(238);
/// `CONF-CMP-012.d`: MUST, suite.
pub const CONF_CMP_012_D: Clause = Clause(239);
/// `CONF-CMP-016`, its clauses (a) to (f) together: MUST, suite.
pub const CONF_CMP_016: Clause = Clause(240);
/// `CONF-CMP-016.a`: MUST, suite.
pub const CONF_CMP_016_A: Clause = Clause(241);
/// `CONF-CMP-016.b`: MUST, suite.
pub const CONF_CMP_016_B: Clause = Clause(242);
/// `CONF-CMP-016.c`: MUST, suite.
pub const CONF_CMP_016_C: Clause = Clause(243);
/// `CONF-CMP-016.d`: MUST, suite.
pub const CONF_CMP_016_D: Clause = Clause(244);
/// `CONF-CMP-016.e`: MUST, suite.
pub const CONF_CMP_016_E: Clause = Clause(245);
/// `CONF-CMP-016.f`: MUST, suite.
pub const CONF_CMP_016_F: Clause = Clause(246);
/// `CONF-CMP-017`, its clauses (a) to (e) together: MUST, suite.
pub const CONF_CMP_017: Clause = Clause(247);
/// `CONF-CMP-017.a`: MUST, suite.
pub const CONF_CMP_017_A: Clause = Clause(248);
/// `CONF-CMP-017.b`: MUST, suite.
pub const CONF_CMP_017_B: Clause = Clause(249);
/// `CONF-CMP-017.c`: MUST, suite.
pub const CONF_CMP_017_C: Clause = Clause(250);
/// `CONF-CMP-017.d`: MUST, suite.
pub const CONF_CMP_017_D: Clause = Clause(251);
/// `CONF-CMP-017.e`: MUST, suite.
pub const CONF_CMP_017_E: Clause = Clause(252);
/// `CONF-CMP-101`: MUST, suite.
pub const CONF_CMP_101: Clause = Clause(253);
/// `CONF-CMP-022`, its clauses (a) to (f) together: MUST, suite.
pub const CONF_CMP_022: Clause = Clause(254);
/// `CONF-CMP-022.a`: MUST, suite.
pub const CONF_CMP_022_A: Clause = Clause(255);
/// `CONF-CMP-022.b`: MUST, suite.
pub const CONF_CMP_022_B: Clause = Clause(256);
/// `CONF-CMP-022.c`: MUST, suite.
pub const CONF_CMP_022_C: Clause = Clause(257);
/// `CONF-CMP-022.d`: MUST, suite.
pub const CONF_CMP_022_D: Clause = Clause(258);
/// `CONF-CMP-022.e`: MUST, suite.
pub const CONF_CMP_022_E: Clause = Clause(259);
/// `CONF-CMP-022.f`: MUST, suite.
pub const CONF_CMP_022_F: Clause = Clause(260);
/// `CONF-CMP-131`: MUST, suite.
pub const CONF_CMP_131: Clause = Clause(261);
/// `CONF-CMP-023`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_CMP_023: Clause = Clause(262);
/// `CONF-CMP-023.a`: MUST, suite.
pub const CONF_CMP_023_A: Clause = Clause(263);
/// `CONF-CMP-023.b`: MUST, suite.
pub const CONF_CMP_023_B: Clause = Clause(264);
/// `CONF-CMP-023.c`: MUST, suite.
pub const CONF_CMP_023_C: Clause = Clause(265);
/// `CONF-CMP-134`: MUST, suite.
pub const CONF_CMP_134: Clause = Clause(266);
/// `CONF-CMP-024`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-033, which leaves the endpoint requests a device sends to CONF-CMP-031."]
pub const CONF_CMP_024: Clause = Clause(267);
/// `CONF-CMP-033`, its clauses (a) to (c) together: MUST, suite.
pub const CONF_CMP_033: Clause = Clause(268);
/// `CONF-CMP-033.a`: MUST, suite.
pub const CONF_CMP_033_A: Clause = Clause(269);
/// `CONF-CMP-033.b`: MUST, suite.
pub const CONF_CMP_033_B: Clause = Clause(270);
/// `CONF-CMP-033.c`: MUST, suite.
pub const CONF_CMP_033_C: Clause = Clause(271);
/// `CONF-CMP-025`: MUST, suite.
pub const CONF_CMP_025: Clause = Clause(272);
/// `CONF-CMP-055`: MUST, suite.
pub const CONF_CMP_055: Clause = Clause(273);
/// `CONF-CMP-121`: MUST, suite.
pub const CONF_CMP_121: Clause = Clause(274);
/// `CONF-CMP-027`, its clauses (a) to (d) together: MUST, suite.
pub const CONF_CMP_027: Clause = Clause(275);
/// `CONF-CMP-027.a`: MUST, suite.
pub const CONF_CMP_027_A: Clause = Clause(276);
/// `CONF-CMP-027.b`: MUST, suite.
pub const CONF_CMP_027_B: Clause = Clause(277);
/// `CONF-CMP-027.c`: MUST, suite.
pub const CONF_CMP_027_C: Clause = Clause(278);
/// `CONF-CMP-027.d`: MUST, suite.
pub const CONF_CMP_027_D: Clause = Clause(279);
/// `CONF-CMP-028`, its clauses (a) to (b) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-047, which judges the data packets of a `fixed` or `round-robin` QP by the device's own previous choice and every pool it may have known, so that a device that acts on an input up to `late_ns / 2` later than the reference is not failed."]
pub const CONF_CMP_028: Clause = Clause(280);
/// `CONF-CMP-028.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-047, which judges the data packets of a `fixed` or `round-robin` QP by the device's own previous choice and every pool it may have known, so that a device that acts on an input up to `late_ns / 2` later than the reference is not failed."]
pub const CONF_CMP_028_A: Clause = Clause(281);
/// `CONF-CMP-028.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-047, which judges the data packets of a `fixed` or `round-robin` QP by the device's own previous choice and every pool it may have known, so that a device that acts on an input up to `late_ns / 2` later than the reference is not failed."]
pub const CONF_CMP_028_B: Clause = Clause(282);
/// `CONF-CMP-047`, its clauses (a) to (c) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-048, which judges the data packets of a `skew-aware` QP too by the device's own earlier choices and the acknowledgements it may have taken, so that a device that acts on an acknowledgement up to `late_ns / 2` later than the reference is not failed, and reports a difference of a `window-fit` QP under the estimate of the policy that the device's choices contradict (SND-SPRAY-010, SND-SPRAY-007, SND-SPRAY-006) rather than always under SND-SPRAY-005 or SND-SPRAY-009."]
pub const CONF_CMP_047: Clause = Clause(283);
/// `CONF-CMP-047.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-048, which judges the data packets of a `skew-aware` QP too by the device's own earlier choices and the acknowledgements it may have taken, so that a device that acts on an acknowledgement up to `late_ns / 2` later than the reference is not failed, and reports a difference of a `window-fit` QP under the estimate of the policy that the device's choices contradict (SND-SPRAY-010, SND-SPRAY-007, SND-SPRAY-006) rather than always under SND-SPRAY-005 or SND-SPRAY-009."]
pub const CONF_CMP_047_A: Clause = Clause(284);
/// `CONF-CMP-047.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-048, which judges the data packets of a `skew-aware` QP too by the device's own earlier choices and the acknowledgements it may have taken, so that a device that acts on an acknowledgement up to `late_ns / 2` later than the reference is not failed, and reports a difference of a `window-fit` QP under the estimate of the policy that the device's choices contradict (SND-SPRAY-010, SND-SPRAY-007, SND-SPRAY-006) rather than always under SND-SPRAY-005 or SND-SPRAY-009."]
pub const CONF_CMP_047_B: Clause = Clause(285);
/// `CONF-CMP-047.c`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-048, which judges the data packets of a `skew-aware` QP too by the device's own earlier choices and the acknowledgements it may have taken, so that a device that acts on an acknowledgement up to `late_ns / 2` later than the reference is not failed, and reports a difference of a `window-fit` QP under the estimate of the policy that the device's choices contradict (SND-SPRAY-010, SND-SPRAY-007, SND-SPRAY-006) rather than always under SND-SPRAY-005 or SND-SPRAY-009."]
pub const CONF_CMP_047_C: Clause = Clause(286);
/// `CONF-CMP-048`, its clauses (a) to (d) together: MUST, suite.
pub const CONF_CMP_048: Clause = Clause(287);
/// `CONF-CMP-048.a`: MUST, suite.
pub const CONF_CMP_048_A: Clause = Clause(288);
/// `CONF-CMP-048.b`: MUST, suite.
pub const CONF_CMP_048_B: Clause = Clause(289);
/// `CONF-CMP-048.c`: MUST, suite.
pub const CONF_CMP_048_C: Clause = Clause(290);
/// `CONF-CMP-048.d`: MUST, suite.
pub const CONF_CMP_048_D: Clause = Clause(291);
/// `CONF-CMP-046`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_CMP_046: Clause = Clause(292);
/// `CONF-CMP-046.a`: MUST, suite.
pub const CONF_CMP_046_A: Clause = Clause(293);
/// `CONF-CMP-046.b`: MUST, suite.
pub const CONF_CMP_046_B: Clause = Clause(294);
/// `CONF-CMP-029`: MUST, suite.
pub const CONF_CMP_029: Clause = Clause(295);
/// `CONF-CMP-049`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_CMP_049: Clause = Clause(296);
/// `CONF-CMP-049.a`: MUST, suite.
pub const CONF_CMP_049_A: Clause = Clause(297);
/// `CONF-CMP-049.b`: MUST, suite.
pub const CONF_CMP_049_B: Clause = Clause(298);
/// `CONF-CMP-106`: MUST, suite.
pub const CONF_CMP_106: Clause = Clause(299);
/// `CONF-CMP-111`: MUST, suite.
pub const CONF_CMP_111: Clause = Clause(300);
/// `CONF-CMP-030`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-036, which compares every two timestamps of a QP sent less than 32768 ns apart, not only consecutive ones, and those of its probes too."]
pub const CONF_CMP_030: Clause = Clause(301);
/// `CONF-CMP-031`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-CMP-043, under which a difference in the BTH PSN of an endpoint request fails (OPC-PSN-002.a, REC-IF-017.c)."]
pub const CONF_CMP_031: Clause = Clause(302);
/// `CONF-CMP-043`: MUST, suite.
pub const CONF_CMP_043: Clause = Clause(303);
/// `CONF-CMP-032`: MUST, suite.
pub const CONF_CMP_032: Clause = Clause(304);
/// `CONF-CMP-044`, its clauses (a) to (d) together: MUST, suite.
pub const CONF_CMP_044: Clause = Clause(305);
/// `CONF-CMP-044.a`: MUST, suite.
pub const CONF_CMP_044_A: Clause = Clause(306);
/// `CONF-CMP-044.b`: MUST, suite.
pub const CONF_CMP_044_B: Clause = Clause(307);
/// `CONF-CMP-044.c`: MUST, suite.
pub const CONF_CMP_044_C: Clause = Clause(308);
/// `CONF-CMP-044.d`: MUST, suite.
pub const CONF_CMP_044_D: Clause = Clause(309);
/// `CONF-CMP-045`, its clauses (a) to (i) together: MUST, suite.
pub const CONF_CMP_045: Clause = Clause(310);
/// `CONF-CMP-045.a`: MUST, suite.
pub const CONF_CMP_045_A: Clause = Clause(311);
/// `CONF-CMP-045.b`: MUST, suite.
pub const CONF_CMP_045_B: Clause = Clause(312);
/// `CONF-CMP-045.c`: MUST, suite.
pub const CONF_CMP_045_C: Clause = Clause(313);
/// `CONF-CMP-045.d`: MUST, suite.
pub const CONF_CMP_045_D: Clause = Clause(314);
/// `CONF-CMP-045.e`: MUST, suite.
pub const CONF_CMP_045_E: Clause = Clause(315);
/// `CONF-CMP-045.f`: MUST, suite.
pub const CONF_CMP_045_F: Clause = Clause(316);
/// `CONF-CMP-045.g`: MUST, suite.
pub const CONF_CMP_045_G: Clause = Clause(317);
/// `CONF-CMP-045.h`: MUST, suite.
pub const CONF_CMP_045_H: Clause = Clause(318);
/// `CONF-CMP-045.i`: MUST, suite.
pub const CONF_CMP_045_I: Clause = Clause(319);
/// `CONF-CMP-061`: MUST, suite.
pub const CONF_CMP_061: Clause = Clause(320);
/// `CONF-CMP-117`: MUST, suite.
pub const CONF_CMP_117: Clause = Clause(321);
/// `CONF-CMP-129`: MUST, suite.
pub const CONF_CMP_129: Clause = Clause(322);
/// `CONF-CMP-130`: MUST, suite.
pub const CONF_CMP_130: Clause = Clause(323);
/// `CONF-CMP-126`: MUST, suite.
pub const CONF_CMP_126: Clause = Clause(324);
/// `CONF-CMP-138`: MUST, suite.
pub const CONF_CMP_138: Clause = Clause(325);
/// `CONF-CMP-136`: MUST, suite.
pub const CONF_CMP_136: Clause = Clause(326);
/// `CONF-CMP-137`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_CMP_137: Clause = Clause(327);
/// `CONF-CMP-137.a`: MUST, suite.
pub const CONF_CMP_137_A: Clause = Clause(328);
/// `CONF-CMP-137.b`: MUST, suite.
pub const CONF_CMP_137_B: Clause = Clause(329);
/// `CONF-CMP-123`: MUST, suite.
pub const CONF_CMP_123: Clause = Clause(330);
/// `CONF-TIME-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-TIME-003, which bounds a retransmission early too when the CPU half is inside the device."]
pub const CONF_TIME_001: Clause = Clause(331);
/// `CONF-TIME-004`: MAY, suite.
pub const CONF_TIME_004: Clause = Clause(332);
/// `CONF-TIME-003`, its clauses (a) to (b) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-TIME-005, under which the expected time is re-timed from the actual times of the records an output follows."]
pub const CONF_TIME_003: Clause = Clause(333);
/// `CONF-TIME-003.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-TIME-005, under which the expected time is re-timed from the actual times of the records an output follows."]
pub const CONF_TIME_003_A: Clause = Clause(334);
/// `CONF-TIME-003.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-TIME-005, under which the expected time is re-timed from the actual times of the records an output follows."]
pub const CONF_TIME_003_B: Clause = Clause(335);
/// `CONF-TIME-005`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_TIME_005: Clause = Clause(336);
/// `CONF-TIME-005.a`: MUST, suite.
pub const CONF_TIME_005_A: Clause = Clause(337);
/// `CONF-TIME-005.b`: MAY, suite.
pub const CONF_TIME_005_B: Clause = Clause(338);
/// `CONF-TIME-002`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CONF-TIME-006, which reads the re-timed expected time and names CONF-CMP-034."]
pub const CONF_TIME_002: Clause = Clause(339);
/// `CONF-TIME-006`: MUST, suite.
pub const CONF_TIME_006: Clause = Clause(340);
/// `CONF-VER-001`: MUST, suite.
pub const CONF_VER_001: Clause = Clause(341);
/// `CONF-VER-002`: MUST, suite.
pub const CONF_VER_002: Clause = Clause(342);
/// `CONF-VER-003`: MUST, suite.
pub const CONF_VER_003: Clause = Clause(343);
/// `CONF-REP-001`, its clauses (a) to (b) together: MUST, suite.
pub const CONF_REP_001: Clause = Clause(344);
/// `CONF-REP-001.a`: MUST, suite.
pub const CONF_REP_001_A: Clause = Clause(345);
/// `CONF-REP-001.b`: MUST, suite.
pub const CONF_REP_001_B: Clause = Clause(346);
/// `CONF-REP-002`: MUST, suite.
pub const CONF_REP_002: Clause = Clause(347);
/// `CONF-REP-003`: MUST, suite.
pub const CONF_REP_003: Clause = Clause(348);
/// `CONF-REP-004`: MUST, suite.
pub const CONF_REP_004: Clause = Clause(349);
/// `CONF-ADP-001`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_001: Clause = Clause(350);
/// `CONF-ADP-001.a`: MUST, adapter.
pub const CONF_ADP_001_A: Clause = Clause(351);
/// `CONF-ADP-001.b`: MUST, adapter.
pub const CONF_ADP_001_B: Clause = Clause(352);
/// `CONF-ADP-018`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_018: Clause = Clause(353);
/// `CONF-ADP-018.a`: MUST, adapter.
pub const CONF_ADP_018_A: Clause = Clause(354);
/// `CONF-ADP-018.b`: MUST, suite.
pub const CONF_ADP_018_B: Clause = Clause(355);
/// `CONF-ADP-002`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_002: Clause = Clause(356);
/// `CONF-ADP-002.a`: MUST, suite.
pub const CONF_ADP_002_A: Clause = Clause(357);
/// `CONF-ADP-002.b`: MUST, adapter.
pub const CONF_ADP_002_B: Clause = Clause(358);
/// `CONF-ADP-003`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_003: Clause = Clause(359);
/// `CONF-ADP-003.a`: MUST, adapter.
pub const CONF_ADP_003_A: Clause = Clause(360);
/// `CONF-ADP-003.b`: MUST, adapter.
pub const CONF_ADP_003_B: Clause = Clause(361);
/// `CONF-ADP-004`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_004: Clause = Clause(362);
/// `CONF-ADP-004.a`: MUST, adapter.
pub const CONF_ADP_004_A: Clause = Clause(363);
/// `CONF-ADP-004.b`: MUST, suite.
pub const CONF_ADP_004_B: Clause = Clause(364);
/// `CONF-ADP-005`: MUST, adapter.
pub const CONF_ADP_005: Clause = Clause(365);
/// `CONF-ADP-006`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_006: Clause = Clause(366);
/// `CONF-ADP-006.a`: MUST, suite.
pub const CONF_ADP_006_A: Clause = Clause(367);
/// `CONF-ADP-006.b`: MUST, adapter.
pub const CONF_ADP_006_B: Clause = Clause(368);
/// `CONF-ADP-007`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_007: Clause = Clause(369);
/// `CONF-ADP-007.a`: MUST, adapter.
pub const CONF_ADP_007_A: Clause = Clause(370);
/// `CONF-ADP-007.b`: MUST, suite.
pub const CONF_ADP_007_B: Clause = Clause(371);
/// `CONF-ADP-008`: MUST, adapter.
pub const CONF_ADP_008: Clause = Clause(372);
/// `CONF-ADP-021`, its clauses (a) to (c) together: MUST, adapter.
pub const CONF_ADP_021: Clause = Clause(373);
/// `CONF-ADP-021.a`: MUST, adapter.
pub const CONF_ADP_021_A: Clause = Clause(374);
/// `CONF-ADP-021.b`: MUST, adapter.
pub const CONF_ADP_021_B: Clause = Clause(375);
/// `CONF-ADP-021.c`: MUST, adapter.
pub const CONF_ADP_021_C: Clause = Clause(376);
/// `CONF-ADP-022`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_022: Clause = Clause(377);
/// `CONF-ADP-022.a`: MUST, adapter.
pub const CONF_ADP_022_A: Clause = Clause(378);
/// `CONF-ADP-022.b`: MUST, adapter.
pub const CONF_ADP_022_B: Clause = Clause(379);
/// `CONF-ADP-009`, its clauses (a) to (c) together: MUST, adapter.
pub const CONF_ADP_009: Clause = Clause(380);
/// `CONF-ADP-009.a`: MUST, adapter.
pub const CONF_ADP_009_A: Clause = Clause(381);
/// `CONF-ADP-009.b`: MUST, adapter.
pub const CONF_ADP_009_B: Clause = Clause(382);
/// `CONF-ADP-009.c`: MUST, adapter.
pub const CONF_ADP_009_C: Clause = Clause(383);
/// `CONF-ADP-010`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_010: Clause = Clause(384);
/// `CONF-ADP-010.a`: MUST, adapter.
pub const CONF_ADP_010_A: Clause = Clause(385);
/// `CONF-ADP-010.b`: MUST, adapter.
pub const CONF_ADP_010_B: Clause = Clause(386);
/// `CONF-ADP-011`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_011: Clause = Clause(387);
/// `CONF-ADP-011.a`: MUST, adapter.
pub const CONF_ADP_011_A: Clause = Clause(388);
/// `CONF-ADP-011.b`: MUST, suite.
pub const CONF_ADP_011_B: Clause = Clause(389);
/// `CONF-ADP-012`: SHOULD, adapter.
pub const CONF_ADP_012: Clause = Clause(390);
/// `CONF-ADP-019`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_019: Clause = Clause(391);
/// `CONF-ADP-019.a`: MUST, adapter.
pub const CONF_ADP_019_A: Clause = Clause(392);
/// `CONF-ADP-019.b`: MAY, suite.
pub const CONF_ADP_019_B: Clause = Clause(393);
/// `CONF-ADP-020`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_020: Clause = Clause(394);
/// `CONF-ADP-020.a`: MUST, suite.
pub const CONF_ADP_020_A: Clause = Clause(395);
/// `CONF-ADP-020.b`: MUST, suite.
pub const CONF_ADP_020_B: Clause = Clause(396);
/// `CONF-ADP-023`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_023: Clause = Clause(397);
/// `CONF-ADP-023.a`: MUST, adapter.
pub const CONF_ADP_023_A: Clause = Clause(398);
/// `CONF-ADP-023.b`: MUST, adapter.
pub const CONF_ADP_023_B: Clause = Clause(399);
/// `CONF-ADP-024`, its clauses (a) to (c) together: MUST, adapter.
pub const CONF_ADP_024: Clause = Clause(400);
/// `CONF-ADP-024.a`: MUST, adapter.
pub const CONF_ADP_024_A: Clause = Clause(401);
/// `CONF-ADP-024.b`: MUST, adapter.
pub const CONF_ADP_024_B: Clause = Clause(402);
/// `CONF-ADP-024.c`: MUST, adapter.
pub const CONF_ADP_024_C: Clause = Clause(403);
/// `CONF-ADP-026`, its clauses (a) to (b) together: MUST, adapter.
pub const CONF_ADP_026: Clause = Clause(404);
/// `CONF-ADP-026.a`: MUST, adapter.
pub const CONF_ADP_026_A: Clause = Clause(405);
/// `CONF-ADP-026.b`: MUST, adapter.
pub const CONF_ADP_026_B: Clause = Clause(406);
/// `CONF-ADP-017`, its clauses (a) to (c) together: MUST, adapter.
pub const CONF_ADP_017: Clause = Clause(407);
/// `CONF-ADP-017.a`: MUST, suite.
pub const CONF_ADP_017_A: Clause = Clause(408);
/// `CONF-ADP-017.b`: MAY, adapter.
pub const CONF_ADP_017_B: Clause = Clause(409);
/// `CONF-ADP-017.c`: MUST, adapter.
pub const CONF_ADP_017_C: Clause = Clause(410);
/// `CONF-ADP-013`: MUST, adapter.
pub const CONF_ADP_013: Clause = Clause(411);
/// `CONF-ADP-014`, its clauses (a) to (c) together: MUST, adapter.
pub const CONF_ADP_014: Clause = Clause(412);
/// `CONF-ADP-014.a`: MUST, suite.
pub const CONF_ADP_014_A: Clause = Clause(413);
/// `CONF-ADP-014.b`: MUST, adapter.
pub const CONF_ADP_014_B: Clause = Clause(414);
/// `CONF-ADP-014.c`: MUST, suite.
pub const CONF_ADP_014_C: Clause = Clause(415);
/// `CONF-ADP-015`: MUST, adapter.
pub const CONF_ADP_015: Clause = Clause(416);
/// `CONF-ADP-016`: MUST, adapter.
pub const CONF_ADP_016: Clause = Clause(417);
