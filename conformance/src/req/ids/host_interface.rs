//! The clauses of `host-interface.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::Clause;

/// `DB-FORMAT-001`: MUST, device.
pub const DB_FORMAT_001: Clause = Clause(260);
/// `DB-FORMAT-002`: MUST, device.
pub const DB_FORMAT_002: Clause = Clause(261);
/// `DB-MMIO-001`: MUST, host.
pub const DB_MMIO_001: Clause = Clause(262);
/// `DB-MMIO-002`, its clauses (a) to (b) together: MUST, device.
pub const DB_MMIO_002: Clause = Clause(263);
/// `DB-MMIO-002.a`: MUST, device.
pub const DB_MMIO_002_A: Clause = Clause(264);
/// `DB-MMIO-002.b`: SHOULD, device.
pub const DB_MMIO_002_B: Clause = Clause(265);
/// `DB-MMIO-003`, its clauses (a) to (c) together: MUST, device.
pub const DB_MMIO_003: Clause = Clause(266);
/// `DB-MMIO-003.a`: MUST, device.
pub const DB_MMIO_003_A: Clause = Clause(267);
/// `DB-MMIO-003.b`: MAY, device.
pub const DB_MMIO_003_B: Clause = Clause(268);
/// `DB-MMIO-003.c`: MUST, device.
pub const DB_MMIO_003_C: Clause = Clause(269);
/// `DB-ORDER-001`: MUST, device.
pub const DB_ORDER_001: Clause = Clause(270);
/// `DB-VERSION-001`: MUST, device.
pub const DB_VERSION_001: Clause = Clause(271);
/// `DB-TEMPLATE-001`: MUST, device.
pub const DB_TEMPLATE_001: Clause = Clause(272);
/// `DB-INDEX-001`: MUST, device.
pub const DB_INDEX_001: Clause = Clause(273);
/// `DB-LENGTH-001`: MUST, device.
pub const DB_LENGTH_001: Clause = Clause(274);
/// `DB-LENGTH-002`: MUST, device.
pub const DB_LENGTH_002: Clause = Clause(275);
/// `DB-LENGTH-003`: MUST, device.
pub const DB_LENGTH_003: Clause = Clause(276);
/// `DB-LENGTH-004`: MUST, device.
pub const DB_LENGTH_004: Clause = Clause(277);
/// `DB-ACCEPT-001`: MUST, device.
pub const DB_ACCEPT_001: Clause = Clause(278);
/// `DB-REJECT-001`: MUST, device.
pub const DB_REJECT_001: Clause = Clause(279);
/// `DB-SEQ-001`: MUST, device.
pub const DB_SEQ_001: Clause = Clause(280);
/// `DB-SEQ-002`: MUST, device.
pub const DB_SEQ_002: Clause = Clause(281);
/// `DB-SEQ-003`: MUST, device.
pub const DB_SEQ_003: Clause = Clause(282);
/// `DB-SEQ-004`, its clauses (a) to (b) together: MUST, host.
pub const DB_SEQ_004: Clause = Clause(283);
/// `DB-SEQ-004.a`: MUST, host.
pub const DB_SEQ_004_A: Clause = Clause(284);
/// `DB-SEQ-004.b`: MUST, host.
pub const DB_SEQ_004_B: Clause = Clause(285);
/// `TPL-FIELDS-001`, its clauses (a) to (b) together: MUST, device.
pub const TPL_FIELDS_001: Clause = Clause(286);
/// `TPL-FIELDS-001.a`: MUST, device.
pub const TPL_FIELDS_001_A: Clause = Clause(287);
/// `TPL-FIELDS-001.b`: MUST, device.
pub const TPL_FIELDS_001_B: Clause = Clause(288);
/// `TPL-ID-001`: MUST, device.
pub const TPL_ID_001: Clause = Clause(289);
/// `TPL-QPN-001`: MUST, device.
pub const TPL_QPN_001: Clause = Clause(290);
/// `TPL-OPCODE-001`: MUST, device.
pub const TPL_OPCODE_001: Clause = Clause(291);
/// `TPL-SLOTS-001`: MUST, device.
pub const TPL_SLOTS_001: Clause = Clause(292);
/// `TPL-UNIT-001`: MUST, device.
pub const TPL_UNIT_001: Clause = Clause(293);
/// `TPL-LEN-001`: MUST, device.
pub const TPL_LEN_001: Clause = Clause(294);
/// `TPL-LEN-002`: MUST, device.
pub const TPL_LEN_002: Clause = Clause(295);
/// `TPL-REGION-001`: MUST, device.
pub const TPL_REGION_001: Clause = Clause(296);
/// `TPL-REGION-002`, its clauses (a) to (b) together: MUST, device.
pub const TPL_REGION_002: Clause = Clause(297);
/// `TPL-REGION-002.a`: MUST, device.
pub const TPL_REGION_002_A: Clause = Clause(298);
/// `TPL-REGION-002.b`: MUST, device.
pub const TPL_REGION_002_B: Clause = Clause(299);
/// `TPL-FLAG-001`, its clauses (a) to (b) together: MUST, device.
pub const TPL_FLAG_001: Clause = Clause(300);
/// `TPL-FLAG-001.a`: MUST, device.
pub const TPL_FLAG_001_A: Clause = Clause(301);
/// `TPL-FLAG-001.b`: MUST, device.
pub const TPL_FLAG_001_B: Clause = Clause(302);
/// `TPL-KEY-001`: MUST, device.
pub const TPL_KEY_001: Clause = Clause(303);
/// `TPL-INSTALL-001`, its clauses (a) to (b) together: MUST, device.
pub const TPL_INSTALL_001: Clause = Clause(304);
/// `TPL-INSTALL-001.a`: MUST, device.
pub const TPL_INSTALL_001_A: Clause = Clause(305);
/// `TPL-INSTALL-001.b`: MUST, device.
pub const TPL_INSTALL_001_B: Clause = Clause(306);
/// `TPL-INSTALL-002`: MUST, device.
pub const TPL_INSTALL_002: Clause = Clause(307);
/// `TPL-INSTALL-003`, its clauses (a) to (b) together: MUST, device.
pub const TPL_INSTALL_003: Clause = Clause(308);
/// `TPL-INSTALL-003.a`: MUST, device.
pub const TPL_INSTALL_003_A: Clause = Clause(309);
/// `TPL-INSTALL-003.b`: MUST, device.
pub const TPL_INSTALL_003_B: Clause = Clause(310);
/// `TPL-INSTALL-004`: MUST, device.
pub const TPL_INSTALL_004: Clause = Clause(311);
/// `TPL-KEY-002`: MUST, device.
pub const TPL_KEY_002: Clause = Clause(312);
/// `TPL-EXPAND-001`, its clauses (a) to (c) together: MUST, device.
pub const TPL_EXPAND_001: Clause = Clause(313);
/// `TPL-EXPAND-001.a`: MUST, device.
pub const TPL_EXPAND_001_A: Clause = Clause(314);
/// `TPL-EXPAND-001.b`: MUST, device.
pub const TPL_EXPAND_001_B: Clause = Clause(315);
/// `TPL-EXPAND-001.c`: MUST, device.
pub const TPL_EXPAND_001_C: Clause = Clause(316);
/// `TPL-EXPAND-002`: MUST, device.
pub const TPL_EXPAND_002: Clause = Clause(317);
/// `TPL-EXPAND-003`: MUST, device.
pub const TPL_EXPAND_003: Clause = Clause(318);
/// `TPL-EXPAND-004`: MUST, device.
pub const TPL_EXPAND_004: Clause = Clause(319);
/// `TPL-EXPAND-005`, its clauses (a) to (b) together: MUST, device.
pub const TPL_EXPAND_005: Clause = Clause(320);
/// `TPL-EXPAND-005.a`: MUST, device.
pub const TPL_EXPAND_005_A: Clause = Clause(321);
/// `TPL-EXPAND-005.b`: MUST, device.
pub const TPL_EXPAND_005_B: Clause = Clause(322);
/// `TPL-EXPAND-006`: MUST, device.
pub const TPL_EXPAND_006: Clause = Clause(323);
/// `TPL-EXPAND-007`: MUST, device.
pub const TPL_EXPAND_007: Clause = Clause(324);
/// `WR-ID-001`: MUST, device.
pub const WR_ID_001: Clause = Clause(325);
/// `WR-EXEC-001`: MUST, device.
pub const WR_EXEC_001: Clause = Clause(326);
/// `WR-SIGNALED-001`, its clauses (a) to (c) together: MUST, device.
pub const WR_SIGNALED_001: Clause = Clause(327);
/// `WR-SIGNALED-001.a`: MUST, device.
pub const WR_SIGNALED_001_A: Clause = Clause(328);
/// `WR-SIGNALED-001.b`: MUST, device.
pub const WR_SIGNALED_001_B: Clause = Clause(329);
/// `WR-SIGNALED-001.c`: MUST, device.
pub const WR_SIGNALED_001_C: Clause = Clause(330);
/// `WR-LAYOUT-001`: MUST, codec.
pub const WR_LAYOUT_001: Clause = Clause(331);
/// `WR-OPCODE-001`: MUST, host.
pub const WR_OPCODE_001: Clause = Clause(332);
/// `WR-IMM-001`, its clauses (a) to (b) together: MUST, host.
pub const WR_IMM_001: Clause = Clause(333);
/// `WR-IMM-001.a`: MUST, host.
pub const WR_IMM_001_A: Clause = Clause(334);
/// `WR-IMM-001.b`: MUST, host.
pub const WR_IMM_001_B: Clause = Clause(335);
/// `WR-LEN-001`: MUST, host.
pub const WR_LEN_001: Clause = Clause(336);
/// `WR-VA-001`: MUST, host.
pub const WR_VA_001: Clause = Clause(337);
/// `WR-RESV-001`, its clauses (a) to (b) together: MUST, host.
pub const WR_RESV_001: Clause = Clause(338);
/// `WR-RESV-001.a`: MUST, host.
pub const WR_RESV_001_A: Clause = Clause(339);
/// `WR-RESV-001.b`: MUST, host.
pub const WR_RESV_001_B: Clause = Clause(340);
/// `CQE-LAYOUT-001`: MUST, device.
pub const CQE_LAYOUT_001: Clause = Clause(341);
/// `CQE-RESV-001`, its clauses (a) to (b) together: MUST, device.
pub const CQE_RESV_001: Clause = Clause(342);
/// `CQE-RESV-001.a`: MUST, device.
pub const CQE_RESV_001_A: Clause = Clause(343);
/// `CQE-RESV-001.b`: MUST, host.
pub const CQE_RESV_001_B: Clause = Clause(344);
/// `CQE-OPCODE-001`: MUST, device.
pub const CQE_OPCODE_001: Clause = Clause(345);
/// `CQE-IMM-001`: MUST, device.
pub const CQE_IMM_001: Clause = Clause(346);
/// `CQE-IMM-002`: MUST, device.
pub const CQE_IMM_002: Clause = Clause(347);
/// `CQE-TS-001`, its clauses (a) to (c) together: MUST, device.
pub const CQE_TS_001: Clause = Clause(348);
/// `CQE-TS-001.a`: SHOULD, device.
pub const CQE_TS_001_A: Clause = Clause(349);
/// `CQE-TS-001.b`: MUST, device.
pub const CQE_TS_001_B: Clause = Clause(350);
/// `CQE-TS-001.c`: MUST, device.
pub const CQE_TS_001_C: Clause = Clause(351);
/// `CQE-STATUS-001`: MUST, device.
pub const CQE_STATUS_001: Clause = Clause(352);
/// `CQE-STATUS-002`: MUST, device.
pub const CQE_STATUS_002: Clause = Clause(353);
/// `CQE-STATUS-003`: MUST, host.
pub const CQE_STATUS_003: Clause = Clause(354);
/// `CQE-SETUP-001`: MUST, host.
pub const CQE_SETUP_001: Clause = Clause(355);
/// `CQE-SETUP-002`: MUST, host.
pub const CQE_SETUP_002: Clause = Clause(356);
/// `CQE-SETUP-003`: MUST, host.
pub const CQE_SETUP_003: Clause = Clause(357);
/// `CQE-ROUTE-001`: MUST, device.
pub const CQE_ROUTE_001: Clause = Clause(358);
/// `CQE-RING-001`, its clauses (a) to (b) together: MUST, device.
pub const CQE_RING_001: Clause = Clause(359);
/// `CQE-RING-001.a`: MUST, device.
pub const CQE_RING_001_A: Clause = Clause(360);
/// `CQE-RING-001.b`: MUST, device.
pub const CQE_RING_001_B: Clause = Clause(361);
/// `CQE-RING-002`, its clauses (a) to (c) together: MUST, host.
pub const CQE_RING_002: Clause = Clause(362);
/// `CQE-RING-002.a`: MUST, host.
pub const CQE_RING_002_A: Clause = Clause(363);
/// `CQE-RING-002.b`: MUST, host.
pub const CQE_RING_002_B: Clause = Clause(364);
/// `CQE-RING-002.c`: MUST, host.
pub const CQE_RING_002_C: Clause = Clause(365);
/// `CQE-RING-003`, its clauses (a) to (b) together: MUST, device.
pub const CQE_RING_003: Clause = Clause(366);
/// `CQE-RING-003.a`: MUST, device.
pub const CQE_RING_003_A: Clause = Clause(367);
/// `CQE-RING-003.b`: MUST, device.
pub const CQE_RING_003_B: Clause = Clause(368);
/// `CQE-RING-004`, its clauses (a) to (b) together: MUST, device.
pub const CQE_RING_004: Clause = Clause(369);
/// `CQE-RING-004.a`: MUST, device.
pub const CQE_RING_004_A: Clause = Clause(370);
/// `CQE-RING-004.b`: MUST, device.
pub const CQE_RING_004_B: Clause = Clause(371);
/// `CQE-RING-005`, its clauses (a) to (c) together: MUST, device.
pub const CQE_RING_005: Clause = Clause(372);
/// `CQE-RING-005.a`: MUST, device.
pub const CQE_RING_005_A: Clause = Clause(373);
/// `CQE-RING-005.b`: MUST, device.
pub const CQE_RING_005_B: Clause = Clause(374);
/// `CQE-RING-005.c`: MUST, device.
pub const CQE_RING_005_C: Clause = Clause(375);
/// `CQE-RING-006`: MUST, host.
pub const CQE_RING_006: Clause = Clause(376);
/// `CQE-SEND-001`: MUST, device.
pub const CQE_SEND_001: Clause = Clause(377);
/// `CQE-SEND-002`: MUST, device.
pub const CQE_SEND_002: Clause = Clause(378);
/// `CQE-SEND-003`: MUST, device.
pub const CQE_SEND_003: Clause = Clause(379);
/// `CQE-REJECT-001`: MUST, device.
pub const CQE_REJECT_001: Clause = Clause(380);
/// `CQE-REJECT-002`: MUST, device.
pub const CQE_REJECT_002: Clause = Clause(381);
/// `CQE-RECV-001`: MUST, device.
pub const CQE_RECV_001: Clause = Clause(382);
/// `FLAG-LAYOUT-001`: MUST, device.
pub const FLAG_LAYOUT_001: Clause = Clause(383);
/// `FLAG-VALID-001`: MUST, device.
pub const FLAG_VALID_001: Clause = Clause(384);
/// `FLAG-RESV-001`, its clauses (a) to (b) together: MUST, device.
pub const FLAG_RESV_001: Clause = Clause(385);
/// `FLAG-RESV-001.a`: MUST, device.
pub const FLAG_RESV_001_A: Clause = Clause(386);
/// `FLAG-RESV-001.b`: MUST, host.
pub const FLAG_RESV_001_B: Clause = Clause(387);
/// `FLAG-STATUS-001`: MUST, device.
pub const FLAG_STATUS_001: Clause = Clause(388);
/// `FLAG-LEN-001`: MUST, device.
pub const FLAG_LEN_001: Clause = Clause(389);
/// `FLAG-WRITE-001`: MUST, device.
pub const FLAG_WRITE_001: Clause = Clause(390);
/// `FLAG-TABLE-001`, its clauses (a) to (c) together: MUST, device.
pub const FLAG_TABLE_001: Clause = Clause(391);
/// `FLAG-TABLE-001.a`: MUST, device.
pub const FLAG_TABLE_001_A: Clause = Clause(392);
/// `FLAG-TABLE-001.b`: MUST, device.
pub const FLAG_TABLE_001_B: Clause = Clause(393);
/// `FLAG-TABLE-001.c`: MUST, device.
pub const FLAG_TABLE_001_C: Clause = Clause(394);
/// `FLAG-INIT-001`, its clauses (a) to (b) together: MUST, host.
pub const FLAG_INIT_001: Clause = Clause(395);
/// `FLAG-INIT-001.a`: SHOULD, host.
pub const FLAG_INIT_001_A: Clause = Clause(396);
/// `FLAG-INIT-001.b`: MUST, host.
pub const FLAG_INIT_001_B: Clause = Clause(397);
/// `FLAG-MATCH-001`, its clauses (a) to (c) together: MUST, host.
pub const FLAG_MATCH_001: Clause = Clause(398);
/// `FLAG-MATCH-001.a`: MUST, host.
pub const FLAG_MATCH_001_A: Clause = Clause(399);
/// `FLAG-MATCH-001.b`: MUST, host.
pub const FLAG_MATCH_001_B: Clause = Clause(400);
/// `FLAG-MATCH-001.c`: MUST, host.
pub const FLAG_MATCH_001_C: Clause = Clause(401);
/// `FLAG-REUSE-001`, its clauses (a) to (b) together: MUST, host.
pub const FLAG_REUSE_001: Clause = Clause(402);
/// `FLAG-REUSE-001.a`: MUST, host.
pub const FLAG_REUSE_001_A: Clause = Clause(403);
/// `FLAG-REUSE-001.b`: MUST, host.
pub const FLAG_REUSE_001_B: Clause = Clause(404);
/// `FLAG-SEND-001`, its clauses (a) to (e) together: MUST, device.
pub const FLAG_SEND_001: Clause = Clause(405);
/// `FLAG-SEND-001.a`: MUST, device.
pub const FLAG_SEND_001_A: Clause = Clause(406);
/// `FLAG-SEND-001.b`: MUST, device.
pub const FLAG_SEND_001_B: Clause = Clause(407);
/// `FLAG-SEND-001.c`: MUST, device.
pub const FLAG_SEND_001_C: Clause = Clause(408);
/// `FLAG-SEND-001.d`: MUST, device.
pub const FLAG_SEND_001_D: Clause = Clause(409);
/// `FLAG-SEND-001.e`: MUST, device.
pub const FLAG_SEND_001_E: Clause = Clause(410);
/// `FLAG-SEND-002`: MUST, device.
pub const FLAG_SEND_002: Clause = Clause(411);
/// `FLAG-SEND-003`: MUST, device.
pub const FLAG_SEND_003: Clause = Clause(412);
/// `FLAG-RECV-001`, its clauses (a) to (b) together: MUST, device.
pub const FLAG_RECV_001: Clause = Clause(413);
/// `FLAG-RECV-001.a`: MUST, device.
pub const FLAG_RECV_001_A: Clause = Clause(414);
/// `FLAG-RECV-001.b`: MUST, device.
pub const FLAG_RECV_001_B: Clause = Clause(415);
/// `FLAG-RECV-002`, its clauses (a) to (d) together: MUST, device.
pub const FLAG_RECV_002: Clause = Clause(416);
/// `FLAG-RECV-002.a`: MUST, device.
pub const FLAG_RECV_002_A: Clause = Clause(417);
/// `FLAG-RECV-002.b`: MUST, device.
pub const FLAG_RECV_002_B: Clause = Clause(418);
/// `FLAG-RECV-002.c`: MUST, device.
pub const FLAG_RECV_002_C: Clause = Clause(419);
/// `FLAG-RECV-002.d`: MUST, device.
pub const FLAG_RECV_002_D: Clause = Clause(420);
/// `FLAG-RECV-003`: MUST, device.
pub const FLAG_RECV_003: Clause = Clause(421);
/// `FLAG-RECV-004`: MUST, host.
pub const FLAG_RECV_004: Clause = Clause(422);
/// `ORD-DB-001`, its clauses (a) to (b) together: MUST, host.
pub const ORD_DB_001: Clause = Clause(423);
/// `ORD-DB-001.a`: MUST, host.
pub const ORD_DB_001_A: Clause = Clause(424);
/// `ORD-DB-001.b`: MUST, host.
pub const ORD_DB_001_B: Clause = Clause(425);
/// `ORD-DB-002`: MUST, host.
pub const ORD_DB_002: Clause = Clause(426);
/// `ORD-DB-003`: MUST, host.
pub const ORD_DB_003: Clause = Clause(427);
/// `ORD-DB-004`: MUST, host.
pub const ORD_DB_004: Clause = Clause(428);
/// `ORD-NIC-001`: MUST, outside-boundary.
pub const ORD_NIC_001: Clause = Clause(429);
/// `ORD-NIC-002`, its clauses (a) to (b) together: MUST, device.
pub const ORD_NIC_002: Clause = Clause(430);
/// `ORD-NIC-002.a`: MUST, device.
pub const ORD_NIC_002_A: Clause = Clause(431);
/// `ORD-NIC-002.b`: MUST, device.
pub const ORD_NIC_002_B: Clause = Clause(432);
/// `ORD-SEND-001`: MUST, device.
pub const ORD_SEND_001: Clause = Clause(433);
/// `ORD-SEND-002`, its clauses (a) to (b) together: MUST, device.
pub const ORD_SEND_002: Clause = Clause(434);
/// `ORD-SEND-002.a`: MUST, outside-boundary.
pub const ORD_SEND_002_A: Clause = Clause(435);
/// `ORD-SEND-002.b`: MUST, device.
pub const ORD_SEND_002_B: Clause = Clause(436);
/// `ORD-SEND-003`: MUST, device.
pub const ORD_SEND_003: Clause = Clause(437);
/// `ORD-RECV-001`: MUST, device.
pub const ORD_RECV_001: Clause = Clause(438);
/// `ORD-RECV-002`: MUST, device.
pub const ORD_RECV_002: Clause = Clause(439);
/// `ORD-PCIE-001`: MUST, outside-boundary.
pub const ORD_PCIE_001: Clause = Clause(440);
/// `ORD-GPU-001`, its clauses (a) to (b) together: MUST, host.
pub const ORD_GPU_001: Clause = Clause(441);
/// `ORD-GPU-001.a`: MUST, host.
pub const ORD_GPU_001_A: Clause = Clause(442);
/// `ORD-GPU-001.b`: MUST, host.
pub const ORD_GPU_001_B: Clause = Clause(443);
