//! The clauses of `host-interface.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::Clause;

/// `DB-FORMAT-001`: MUST, device.
pub const DB_FORMAT_001: Clause = Clause(418);
/// `DB-FORMAT-002`: MUST, device.
pub const DB_FORMAT_002: Clause = Clause(419);
/// `DB-MMIO-001`: MUST, host.
pub const DB_MMIO_001: Clause = Clause(420);
/// `DB-MMIO-002`, its clauses (a) to (b) together: MUST, device.
pub const DB_MMIO_002: Clause = Clause(421);
/// `DB-MMIO-002.a`: MUST, device.
pub const DB_MMIO_002_A: Clause = Clause(422);
/// `DB-MMIO-002.b`: SHOULD, outside-boundary.
pub const DB_MMIO_002_B: Clause = Clause(423);
/// `DB-MMIO-003`, its clauses (a) to (c) together: MUST, device.
pub const DB_MMIO_003: Clause = Clause(424);
/// `DB-MMIO-003.a`: MUST, device.
pub const DB_MMIO_003_A: Clause = Clause(425);
/// `DB-MMIO-003.b`: MAY, outside-boundary.
pub const DB_MMIO_003_B: Clause = Clause(426);
/// `DB-MMIO-003.c`: MUST, outside-boundary.
pub const DB_MMIO_003_C: Clause = Clause(427);
/// `DB-ORDER-001`: MUST, device.
pub const DB_ORDER_001: Clause = Clause(428);
/// `DB-VERSION-001`: MUST, device.
pub const DB_VERSION_001: Clause = Clause(429);
/// `DB-TEMPLATE-001`: MUST, device.
pub const DB_TEMPLATE_001: Clause = Clause(430);
/// `DB-INDEX-001`: MUST, device.
pub const DB_INDEX_001: Clause = Clause(431);
/// `DB-LENGTH-001`: MUST, device.
pub const DB_LENGTH_001: Clause = Clause(432);
/// `DB-LENGTH-002`: MUST, device.
pub const DB_LENGTH_002: Clause = Clause(433);
/// `DB-LENGTH-003`: MUST, device.
pub const DB_LENGTH_003: Clause = Clause(434);
/// `DB-LENGTH-004`: MUST, device.
pub const DB_LENGTH_004: Clause = Clause(435);
/// `DB-ACCEPT-001`: MUST, device.
pub const DB_ACCEPT_001: Clause = Clause(436);
/// `DB-REJECT-001`: MUST, device.
pub const DB_REJECT_001: Clause = Clause(437);
/// `DB-SEQ-001`: MUST, device.
pub const DB_SEQ_001: Clause = Clause(438);
/// `DB-SEQ-002`: MUST, device.
pub const DB_SEQ_002: Clause = Clause(439);
/// `DB-SEQ-003`: MUST, device.
pub const DB_SEQ_003: Clause = Clause(440);
/// `DB-SEQ-004`, its clauses (a) to (b) together: MUST, host.
pub const DB_SEQ_004: Clause = Clause(441);
/// `DB-SEQ-004.a`: MUST, host.
pub const DB_SEQ_004_A: Clause = Clause(442);
/// `DB-SEQ-004.b`: MUST, host.
pub const DB_SEQ_004_B: Clause = Clause(443);
/// `TPL-FIELDS-001`, its clauses (a) to (b) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the expansion of section 3.4, whose rules (TPL-EXPAND-001 to TPL-EXPAND-007) give each field of the work request as a function of the token and the fields of table 4 alone, so that a NIC that holds the template's fields and expands from them and the token alone is one that meets them (decision 32)."]
pub const TPL_FIELDS_001: Clause = Clause(444);
/// `TPL-FIELDS-001.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the expansion of section 3.4, whose rules (TPL-EXPAND-001 to TPL-EXPAND-007) give each field of the work request as a function of the token and the fields of table 4 alone, so that a NIC that holds the template's fields and expands from them and the token alone is one that meets them (decision 32)."]
pub const TPL_FIELDS_001_A: Clause = Clause(445);
/// `TPL-FIELDS-001.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of the expansion of section 3.4, whose rules (TPL-EXPAND-001 to TPL-EXPAND-007) give each field of the work request as a function of the token and the fields of table 4 alone, so that a NIC that holds the template's fields and expands from them and the token alone is one that meets them (decision 32)."]
pub const TPL_FIELDS_001_B: Clause = Clause(446);
/// `TPL-ID-001`: MUST, device.
pub const TPL_ID_001: Clause = Clause(447);
/// `TPL-QPN-001`: MUST, device.
pub const TPL_QPN_001: Clause = Clause(448);
/// `TPL-OPCODE-001`: MUST, device.
pub const TPL_OPCODE_001: Clause = Clause(449);
/// `TPL-SLOTS-001`: MUST, device.
pub const TPL_SLOTS_001: Clause = Clause(450);
/// `TPL-UNIT-001`: MUST, device.
pub const TPL_UNIT_001: Clause = Clause(451);
/// `TPL-LEN-001`: MUST, device.
pub const TPL_LEN_001: Clause = Clause(452);
/// `TPL-LEN-002`: MUST, device.
pub const TPL_LEN_002: Clause = Clause(453);
/// `TPL-REGION-001`: MUST, device.
pub const TPL_REGION_001: Clause = Clause(454);
/// `TPL-REGION-002`, its clauses (a) to (b) together: MUST, device.
pub const TPL_REGION_002: Clause = Clause(455);
/// `TPL-REGION-002.a`: MUST, device.
pub const TPL_REGION_002_A: Clause = Clause(456);
/// `TPL-REGION-002.b`: MUST, device.
pub const TPL_REGION_002_B: Clause = Clause(457);
/// `TPL-FLAG-001`, its clauses (a) to (b) together: MUST, device.
pub const TPL_FLAG_001: Clause = Clause(458);
/// `TPL-FLAG-001.a`: MUST, device.
pub const TPL_FLAG_001_A: Clause = Clause(459);
/// `TPL-FLAG-001.b`: MUST, device.
pub const TPL_FLAG_001_B: Clause = Clause(460);
/// `TPL-KEY-001`: MUST, device.
pub const TPL_KEY_001: Clause = Clause(461);
/// `TPL-INSTALL-001`, its clauses (a) to (b) together: MUST, device.
pub const TPL_INSTALL_001: Clause = Clause(462);
/// `TPL-INSTALL-001.a`: MUST, device.
pub const TPL_INSTALL_001_A: Clause = Clause(463);
/// `TPL-INSTALL-001.b`: MUST, device.
pub const TPL_INSTALL_001_B: Clause = Clause(464);
/// `TPL-INSTALL-002`: MUST, device.
pub const TPL_INSTALL_002: Clause = Clause(465);
/// `TPL-INSTALL-003`, its clauses (a) to (b) together: MUST, device.
pub const TPL_INSTALL_003: Clause = Clause(466);
/// `TPL-INSTALL-003.a`: MUST, device.
pub const TPL_INSTALL_003_A: Clause = Clause(467);
/// `TPL-INSTALL-003.b`: MUST, device.
pub const TPL_INSTALL_003_B: Clause = Clause(468);
/// `TPL-INSTALL-004`: MUST, device.
pub const TPL_INSTALL_004: Clause = Clause(469);
/// `TPL-KEY-002`: MUST, device.
pub const TPL_KEY_002: Clause = Clause(470);
/// `TPL-EXPAND-001`, its clauses (a) to (c) together: MUST, device.
pub const TPL_EXPAND_001: Clause = Clause(471);
/// `TPL-EXPAND-001.a`: MUST, device.
pub const TPL_EXPAND_001_A: Clause = Clause(472);
/// `TPL-EXPAND-001.b`: MUST, outside-boundary.
pub const TPL_EXPAND_001_B: Clause = Clause(473);
/// `TPL-EXPAND-001.c`: MUST, device.
pub const TPL_EXPAND_001_C: Clause = Clause(474);
/// `TPL-EXPAND-002`: MUST, device.
pub const TPL_EXPAND_002: Clause = Clause(475);
/// `TPL-EXPAND-003`: MUST, device.
pub const TPL_EXPAND_003: Clause = Clause(476);
/// `TPL-EXPAND-004`: MUST, device.
pub const TPL_EXPAND_004: Clause = Clause(477);
/// `TPL-EXPAND-005`, its clauses (a) to (b) together: MUST, device.
pub const TPL_EXPAND_005: Clause = Clause(478);
/// `TPL-EXPAND-005.a`: MUST, device.
pub const TPL_EXPAND_005_A: Clause = Clause(479);
/// `TPL-EXPAND-005.b`: MUST, device.
pub const TPL_EXPAND_005_B: Clause = Clause(480);
/// `TPL-EXPAND-006`: MUST, device.
pub const TPL_EXPAND_006: Clause = Clause(481);
/// `TPL-EXPAND-007`: MUST, device.
pub const TPL_EXPAND_007: Clause = Clause(482);
/// `WR-ID-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a restatement of TPL-EXPAND-007, which gives a work request expanded from a token the token's 64-bit value as its `wr_id`, so that every completion names the doorbell it answers (decision 31)."]
pub const WR_ID_001: Clause = Clause(483);
/// `WR-EXEC-001`: MUST, device.
pub const WR_EXEC_001: Clause = Clause(484);
/// `WR-SIGNALED-001`, its clauses (a) to (c) together: MUST, device.
pub const WR_SIGNALED_001: Clause = Clause(485);
/// `WR-SIGNALED-001.a`: MUST, device.
pub const WR_SIGNALED_001_A: Clause = Clause(486);
/// `WR-SIGNALED-001.b`: MUST, device.
pub const WR_SIGNALED_001_B: Clause = Clause(487);
/// `WR-SIGNALED-001.c`: MUST, device.
pub const WR_SIGNALED_001_C: Clause = Clause(488);
/// `WR-LAYOUT-001`: MUST, codec.
pub const WR_LAYOUT_001: Clause = Clause(489);
/// `WR-OPCODE-001`: MUST, host.
pub const WR_OPCODE_001: Clause = Clause(490);
/// `WR-IMM-001`, its clauses (a) to (b) together: MUST, host.
pub const WR_IMM_001: Clause = Clause(491);
/// `WR-IMM-001.a`: MUST, host.
pub const WR_IMM_001_A: Clause = Clause(492);
/// `WR-IMM-001.b`: MUST, host.
pub const WR_IMM_001_B: Clause = Clause(493);
/// `WR-LEN-001`: MUST, host.
pub const WR_LEN_001: Clause = Clause(494);
/// `WR-VA-001`: MUST, host.
pub const WR_VA_001: Clause = Clause(495);
/// `WR-RESV-001`, its clauses (a) to (b) together: MUST, host.
pub const WR_RESV_001: Clause = Clause(496);
/// `WR-RESV-001.a`: MUST, host.
pub const WR_RESV_001_A: Clause = Clause(497);
/// `WR-RESV-001.b`: MUST, host.
pub const WR_RESV_001_B: Clause = Clause(498);
/// `CQE-LAYOUT-001`: MUST, device.
pub const CQE_LAYOUT_001: Clause = Clause(499);
/// `CQE-RESV-001`, its clauses (a) to (b) together: MUST, device.
pub const CQE_RESV_001: Clause = Clause(500);
/// `CQE-RESV-001.a`: MUST, device.
pub const CQE_RESV_001_A: Clause = Clause(501);
/// `CQE-RESV-001.b`: MUST, host.
pub const CQE_RESV_001_B: Clause = Clause(502);
/// `CQE-OPCODE-001`: MUST, device.
pub const CQE_OPCODE_001: Clause = Clause(503);
/// `CQE-IMM-001`: MUST, device.
pub const CQE_IMM_001: Clause = Clause(504);
/// `CQE-IMM-002`: MUST, device.
pub const CQE_IMM_002: Clause = Clause(505);
/// `CQE-TS-001`, its clauses (a) to (c) together: MUST, device.
pub const CQE_TS_001: Clause = Clause(506);
/// `CQE-TS-001.a`: SHOULD, device.
pub const CQE_TS_001_A: Clause = Clause(507);
/// `CQE-TS-001.b`: MUST, device.
pub const CQE_TS_001_B: Clause = Clause(508);
/// `CQE-TS-001.c`: MUST, outside-boundary.
pub const CQE_TS_001_C: Clause = Clause(509);
/// `CQE-STATUS-001`: MUST, device.
pub const CQE_STATUS_001: Clause = Clause(510);
/// `CQE-STATUS-002`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by CQE-STATUS-004, under which a NAK with syndrome 0x60 (PSN sequence error) ends the QP as SND-ACK-006 says instead of ending no message."]
pub const CQE_STATUS_002: Clause = Clause(511);
/// `CQE-STATUS-003`: MUST, host.
pub const CQE_STATUS_003: Clause = Clause(512);
/// `CQE-STATUS-004`: MUST, device.
pub const CQE_STATUS_004: Clause = Clause(513);
/// `CQE-SETUP-001`: MUST, host.
pub const CQE_SETUP_001: Clause = Clause(514);
/// `CQE-SETUP-002`: MUST, host.
pub const CQE_SETUP_002: Clause = Clause(515);
/// `CQE-SETUP-003`: MUST, host.
pub const CQE_SETUP_003: Clause = Clause(516);
/// `CQE-ROUTE-001`: MUST, device.
pub const CQE_ROUTE_001: Clause = Clause(517);
/// `CQE-RING-001`, its clauses (a) to (b) together: MUST, device.
pub const CQE_RING_001: Clause = Clause(518);
/// `CQE-RING-001.a`: MUST, device.
pub const CQE_RING_001_A: Clause = Clause(519);
/// `CQE-RING-001.b`: MUST, device.
pub const CQE_RING_001_B: Clause = Clause(520);
/// `CQE-RING-002`, its clauses (a) to (c) together: MUST, host.
pub const CQE_RING_002: Clause = Clause(521);
/// `CQE-RING-002.a`: MUST, host.
pub const CQE_RING_002_A: Clause = Clause(522);
/// `CQE-RING-002.b`: MUST, host.
pub const CQE_RING_002_B: Clause = Clause(523);
/// `CQE-RING-002.c`: MUST, host.
pub const CQE_RING_002_C: Clause = Clause(524);
/// `CQE-RING-003`, its clauses (a) to (b) together: MUST, device.
pub const CQE_RING_003: Clause = Clause(525);
/// `CQE-RING-003.a`: MUST, device.
pub const CQE_RING_003_A: Clause = Clause(526);
/// `CQE-RING-003.b`: MUST, device.
pub const CQE_RING_003_B: Clause = Clause(527);
/// `CQE-RING-004`, its clauses (a) to (b) together: MUST, device.
pub const CQE_RING_004: Clause = Clause(528);
/// `CQE-RING-004.a`: MUST, device.
pub const CQE_RING_004_A: Clause = Clause(529);
/// `CQE-RING-004.b`: MUST, device.
pub const CQE_RING_004_B: Clause = Clause(530);
/// `CQE-RING-005`, its clauses (a) to (c) together: MUST, device.
pub const CQE_RING_005: Clause = Clause(531);
/// `CQE-RING-005.a`: MUST, device.
pub const CQE_RING_005_A: Clause = Clause(532);
/// `CQE-RING-005.b`: MUST, device.
pub const CQE_RING_005_B: Clause = Clause(533);
/// `CQE-RING-005.c`: MUST, device.
pub const CQE_RING_005_C: Clause = Clause(534);
/// `CQE-RING-006`: MUST, host.
pub const CQE_RING_006: Clause = Clause(535);
/// `CQE-SEND-001`: MUST, device.
pub const CQE_SEND_001: Clause = Clause(536);
/// `CQE-SEND-002`: MUST, device.
pub const CQE_SEND_002: Clause = Clause(537);
/// `CQE-SEND-003`: MUST, device.
pub const CQE_SEND_003: Clause = Clause(538);
/// `CQE-REJECT-001`: MUST, device.
pub const CQE_REJECT_001: Clause = Clause(539);
/// `CQE-REJECT-002`: MUST, device.
pub const CQE_REJECT_002: Clause = Clause(540);
/// `CQE-RECV-001`: MUST, device.
pub const CQE_RECV_001: Clause = Clause(541);
/// `FLAG-LAYOUT-001`: MUST, device.
pub const FLAG_LAYOUT_001: Clause = Clause(542);
/// `FLAG-VALID-001`: MUST, device.
pub const FLAG_VALID_001: Clause = Clause(543);
/// `FLAG-RESV-001`, its clauses (a) to (b) together: MUST, device.
pub const FLAG_RESV_001: Clause = Clause(544);
/// `FLAG-RESV-001.a`: MUST, device.
pub const FLAG_RESV_001_A: Clause = Clause(545);
/// `FLAG-RESV-001.b`: MUST, host.
pub const FLAG_RESV_001_B: Clause = Clause(546);
/// `FLAG-STATUS-001`: MUST, device.
pub const FLAG_STATUS_001: Clause = Clause(547);
/// `FLAG-LEN-001`: MUST, device.
pub const FLAG_LEN_001: Clause = Clause(548);
/// `FLAG-WRITE-001`: MUST, device.
pub const FLAG_WRITE_001: Clause = Clause(549);
/// `FLAG-TABLE-001`, its clauses (a) to (c) together: MUST, device.
pub const FLAG_TABLE_001: Clause = Clause(550);
/// `FLAG-TABLE-001.a`: MUST, device.
pub const FLAG_TABLE_001_A: Clause = Clause(551);
/// `FLAG-TABLE-001.b`: MUST, device.
pub const FLAG_TABLE_001_B: Clause = Clause(552);
/// `FLAG-TABLE-001.c`: MUST, device.
pub const FLAG_TABLE_001_C: Clause = Clause(553);
/// `FLAG-INIT-001`, its clauses (a) to (b) together: MUST, host.
pub const FLAG_INIT_001: Clause = Clause(554);
/// `FLAG-INIT-001.a`: SHOULD, host.
pub const FLAG_INIT_001_A: Clause = Clause(555);
/// `FLAG-INIT-001.b`: MUST, host.
pub const FLAG_INIT_001_B: Clause = Clause(556);
/// `FLAG-MATCH-001`, its clauses (a) to (c) together: MUST, host.
pub const FLAG_MATCH_001: Clause = Clause(557);
/// `FLAG-MATCH-001.a`: MUST, host.
pub const FLAG_MATCH_001_A: Clause = Clause(558);
/// `FLAG-MATCH-001.b`: MUST, host.
pub const FLAG_MATCH_001_B: Clause = Clause(559);
/// `FLAG-MATCH-001.c`: MUST, host.
pub const FLAG_MATCH_001_C: Clause = Clause(560);
/// `FLAG-REUSE-001`, its clauses (a) to (b) together: MUST, host.
pub const FLAG_REUSE_001: Clause = Clause(561);
/// `FLAG-REUSE-001.a`: MUST, host.
pub const FLAG_REUSE_001_A: Clause = Clause(562);
/// `FLAG-REUSE-001.b`: MUST, host.
pub const FLAG_REUSE_001_B: Clause = Clause(563);
/// `FLAG-SEND-001`, its clauses (a) to (e) together: MUST, device.
pub const FLAG_SEND_001: Clause = Clause(564);
/// `FLAG-SEND-001.a`: MUST, device.
pub const FLAG_SEND_001_A: Clause = Clause(565);
/// `FLAG-SEND-001.b`: MUST, device.
pub const FLAG_SEND_001_B: Clause = Clause(566);
/// `FLAG-SEND-001.c`: MUST, device.
pub const FLAG_SEND_001_C: Clause = Clause(567);
/// `FLAG-SEND-001.d`: MUST, device.
pub const FLAG_SEND_001_D: Clause = Clause(568);
/// `FLAG-SEND-001.e`: MUST, device.
pub const FLAG_SEND_001_E: Clause = Clause(569);
/// `FLAG-SEND-002`: MUST, device.
pub const FLAG_SEND_002: Clause = Clause(570);
/// `FLAG-SEND-003`: MUST, device.
pub const FLAG_SEND_003: Clause = Clause(571);
/// `FLAG-RECV-001`, its clauses (a) to (b) together: MUST, device.
pub const FLAG_RECV_001: Clause = Clause(572);
/// `FLAG-RECV-001.a`: MUST, device.
pub const FLAG_RECV_001_A: Clause = Clause(573);
/// `FLAG-RECV-001.b`: MUST, device.
pub const FLAG_RECV_001_B: Clause = Clause(574);
/// `FLAG-RECV-002`, its clauses (a) to (d) together: MUST, device.
pub const FLAG_RECV_002: Clause = Clause(575);
/// `FLAG-RECV-002.a`: MUST, device.
pub const FLAG_RECV_002_A: Clause = Clause(576);
/// `FLAG-RECV-002.b`: MUST, device.
pub const FLAG_RECV_002_B: Clause = Clause(577);
/// `FLAG-RECV-002.c`: MUST, device.
pub const FLAG_RECV_002_C: Clause = Clause(578);
/// `FLAG-RECV-002.d`: MUST, device.
pub const FLAG_RECV_002_D: Clause = Clause(579);
/// `FLAG-RECV-003`: MUST, device.
pub const FLAG_RECV_003: Clause = Clause(580);
/// `FLAG-RECV-004`: MUST, host.
pub const FLAG_RECV_004: Clause = Clause(581);
/// `ORD-DB-001`, its clauses (a) to (b) together: MUST, host.
pub const ORD_DB_001: Clause = Clause(582);
/// `ORD-DB-001.a`: MUST, host.
pub const ORD_DB_001_A: Clause = Clause(583);
/// `ORD-DB-001.b`: MUST, host.
pub const ORD_DB_001_B: Clause = Clause(584);
/// `ORD-DB-002`: MUST, host.
pub const ORD_DB_002: Clause = Clause(585);
/// `ORD-DB-003`: MUST, host.
pub const ORD_DB_003: Clause = Clause(586);
/// `ORD-DB-004`: MUST, host.
pub const ORD_DB_004: Clause = Clause(587);
/// `ORD-NIC-001`: MUST, outside-boundary.
pub const ORD_NIC_001: Clause = Clause(588);
/// `ORD-NIC-002`, its clauses (a) to (b) together: MUST, device.
pub const ORD_NIC_002: Clause = Clause(589);
/// `ORD-NIC-002.a`: MUST, device.
pub const ORD_NIC_002_A: Clause = Clause(590);
/// `ORD-NIC-002.b`: MUST, device.
pub const ORD_NIC_002_B: Clause = Clause(591);
/// `ORD-SEND-001`: MUST, device.
pub const ORD_SEND_001: Clause = Clause(592);
/// `ORD-SEND-002`, its clauses (a) to (b) together: MUST, device.
pub const ORD_SEND_002: Clause = Clause(593);
/// `ORD-SEND-002.a`: MUST, outside-boundary.
pub const ORD_SEND_002_A: Clause = Clause(594);
/// `ORD-SEND-002.b`: MUST, device.
pub const ORD_SEND_002_B: Clause = Clause(595);
/// `ORD-SEND-003`: MUST, device.
pub const ORD_SEND_003: Clause = Clause(596);
/// `ORD-RECV-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of FLAG-ORDER-001, which states its rule for every earlier message of the domain and so for every earlier message of the QP (decision 30)."]
pub const ORD_RECV_001: Clause = Clause(597);
/// `ORD-RECV-002`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a summary of FLAG-LAST-001 with RCV-DUP-001, which state its rule (decision 30)."]
pub const ORD_RECV_002: Clause = Clause(598);
/// `ORD-PCIE-001`: MUST, outside-boundary.
pub const ORD_PCIE_001: Clause = Clause(599);
/// `ORD-GPU-001`, its clauses (a) to (b) together: MUST, host.
pub const ORD_GPU_001: Clause = Clause(600);
/// `ORD-GPU-001.a`: MUST, host.
pub const ORD_GPU_001_A: Clause = Clause(601);
/// `ORD-GPU-001.b`: MUST, host.
pub const ORD_GPU_001_B: Clause = Clause(602);
