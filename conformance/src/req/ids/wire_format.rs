//! The clauses of `wire-format.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::Clause;

/// `DEC-RESV-001`, its clauses (a) to (c) together: MUST, device.
pub const DEC_RESV_001: Clause = Clause(724);
/// `DEC-RESV-001.a`: MUST, device.
pub const DEC_RESV_001_A: Clause = Clause(725);
/// `DEC-RESV-001.b`: MUST, device.
pub const DEC_RESV_001_B: Clause = Clause(726);
/// `DEC-RESV-001.c`: MUST, codec.
pub const DEC_RESV_001_C: Clause = Clause(727);
/// `ENC-FRAME-001`: MUST, device.
pub const ENC_FRAME_001: Clause = Clause(728);
/// `ENC-ETH-001`: MUST, device.
pub const ENC_ETH_001: Clause = Clause(729);
/// `ENC-ETH-002`: MUST, device.
pub const ENC_ETH_002: Clause = Clause(730);
/// `ENC-VLAN-001`: MUST, device.
pub const ENC_VLAN_001: Clause = Clause(731);
/// `ENC-VLAN-002`, its clauses (a) to (c) together: MUST, device.
pub const ENC_VLAN_002: Clause = Clause(732);
/// `ENC-VLAN-002.a`: MUST, device.
pub const ENC_VLAN_002_A: Clause = Clause(733);
/// `ENC-VLAN-002.b`: SHOULD, device.
pub const ENC_VLAN_002_B: Clause = Clause(734);
/// `ENC-VLAN-002.c`: MUST, device.
pub const ENC_VLAN_002_C: Clause = Clause(735);
/// `ENC-IPV4-001`: MUST, device.
pub const ENC_IPV4_001: Clause = Clause(736);
/// `ENC-IPV4-002`, its clauses (a) to (b) together: MUST, device.
pub const ENC_IPV4_002: Clause = Clause(737);
/// `ENC-IPV4-002.a`: MUST, device.
pub const ENC_IPV4_002_A: Clause = Clause(738);
/// `ENC-IPV4-002.b`: MUST, device.
pub const ENC_IPV4_002_B: Clause = Clause(739);
/// `ENC-IPV4-003`, its clauses (a) to (c) together: MUST, device.
pub const ENC_IPV4_003: Clause = Clause(740);
/// `ENC-IPV4-003.a`: MUST, device.
pub const ENC_IPV4_003_A: Clause = Clause(741);
/// `ENC-IPV4-003.b`: MUST, device.
pub const ENC_IPV4_003_B: Clause = Clause(742);
/// `ENC-IPV4-003.c`: MUST, codec.
pub const ENC_IPV4_003_C: Clause = Clause(743);
/// `ENC-IPV4-004`: MUST, device.
pub const ENC_IPV4_004: Clause = Clause(744);
/// `ENC-IPV4-005`: MUST, device.
pub const ENC_IPV4_005: Clause = Clause(745);
/// `ENC-IPV4-006`, its clauses (a) to (c) together: MUST, device.
pub const ENC_IPV4_006: Clause = Clause(746);
/// `ENC-IPV4-006.a`: SHOULD, device.
pub const ENC_IPV4_006_A: Clause = Clause(747);
/// `ENC-IPV4-006.b`: MUST, device.
pub const ENC_IPV4_006_B: Clause = Clause(748);
/// `ENC-IPV4-006.c`: MUST, codec.
pub const ENC_IPV4_006_C: Clause = Clause(749);
/// `ENC-IPV4-007`: SHOULD, device.
pub const ENC_IPV4_007: Clause = Clause(750);
/// `ENC-IPV6-001`: MUST, device.
pub const ENC_IPV6_001: Clause = Clause(751);
/// `ENC-IPV6-002`: MUST, device.
pub const ENC_IPV6_002: Clause = Clause(752);
/// `ENC-UDP-001`, its clauses (a) to (b) together: MUST, device.
pub const ENC_UDP_001: Clause = Clause(753);
/// `ENC-UDP-001.a`: MUST, device.
pub const ENC_UDP_001_A: Clause = Clause(754);
/// `ENC-UDP-001.b`: MUST, codec.
pub const ENC_UDP_001_B: Clause = Clause(755);
/// `ENC-UDP-002`: MUST, device.
pub const ENC_UDP_002: Clause = Clause(756);
/// `ENC-UDP-003`, its clauses (a) to (b) together: MUST, device.
pub const ENC_UDP_003: Clause = Clause(757);
/// `ENC-UDP-003.a`: MAY, device.
pub const ENC_UDP_003_A: Clause = Clause(758);
/// `ENC-UDP-003.b`: MUST, device.
pub const ENC_UDP_003_B: Clause = Clause(759);
/// `ENC-UDP-004`, its clauses (a) to (b) together: MUST, device.
pub const ENC_UDP_004: Clause = Clause(760);
/// `ENC-UDP-004.a`: SHOULD, device.
pub const ENC_UDP_004_A: Clause = Clause(761);
/// `ENC-UDP-004.b`: MUST, device.
pub const ENC_UDP_004_B: Clause = Clause(762);
/// `ENC-UDP-005`: MUST, device.
pub const ENC_UDP_005: Clause = Clause(763);
/// `ENC-UDP-006`: MUST, device.
pub const ENC_UDP_006: Clause = Clause(764);
/// `ENC-LEN-001`, its clauses (a) to (b) together: MUST, device.
pub const ENC_LEN_001: Clause = Clause(765);
/// `ENC-LEN-001.a`: MUST, device.
pub const ENC_LEN_001_A: Clause = Clause(766);
/// `ENC-LEN-001.b`: MUST, codec.
pub const ENC_LEN_001_B: Clause = Clause(767);
/// `ENC-LEN-002`, its clauses (a) to (b) together: MUST, device.
pub const ENC_LEN_002: Clause = Clause(768);
/// `ENC-LEN-002.a`: MUST, device.
pub const ENC_LEN_002_A: Clause = Clause(769);
/// `ENC-LEN-002.b`: MUST, codec.
pub const ENC_LEN_002_B: Clause = Clause(770);
/// `ENC-LEN-003`: MUST, device.
pub const ENC_LEN_003: Clause = Clause(771);
/// `ENC-LEN-004`: MUST, device.
pub const ENC_LEN_004: Clause = Clause(772);
/// `ENC-EV-001`, its clauses (a) to (c) together: MUST, device.
pub const ENC_EV_001: Clause = Clause(773);
/// `ENC-EV-001.a`: MUST, device.
pub const ENC_EV_001_A: Clause = Clause(774);
/// `ENC-EV-001.b`: MUST, device.
pub const ENC_EV_001_B: Clause = Clause(775);
/// `ENC-EV-001.c`: MUST, device.
pub const ENC_EV_001_C: Clause = Clause(776);
/// `ENC-EV-002`, its clauses (a) to (b) together: MUST, device.
pub const ENC_EV_002: Clause = Clause(777);
/// `ENC-EV-002.a`: MUST, device.
pub const ENC_EV_002_A: Clause = Clause(778);
/// `ENC-EV-002.b`: MUST, device.
pub const ENC_EV_002_B: Clause = Clause(779);
/// `ENC-EV-003`: MUST, device.
pub const ENC_EV_003: Clause = Clause(780);
/// `ENC-ROCE-001`: MUST, device.
pub const ENC_ROCE_001: Clause = Clause(781);
/// `ENC-ECN-001`: SHOULD, device.
pub const ENC_ECN_001: Clause = Clause(782);
/// `BTH-LAYOUT-001`: MUST, device.
pub const BTH_LAYOUT_001: Clause = Clause(783);
/// `BTH-TVER-001`, its clauses (a) to (c) together: MUST, device.
pub const BTH_TVER_001: Clause = Clause(784);
/// `BTH-TVER-001.a`: MUST, device.
pub const BTH_TVER_001_A: Clause = Clause(785);
/// `BTH-TVER-001.b`: MUST, device.
pub const BTH_TVER_001_B: Clause = Clause(786);
/// `BTH-TVER-001.c`: MUST, codec.
pub const BTH_TVER_001_C: Clause = Clause(787);
/// `BTH-PKEY-001`: MUST, device.
pub const BTH_PKEY_001: Clause = Clause(788);
/// `BTH-RESV-001`: MUST, codec.
pub const BTH_RESV_001: Clause = Clause(789);
/// `BTH-RESV-002`, its clauses (a) to (b) together: MUST, device.
pub const BTH_RESV_002: Clause = Clause(790);
/// `BTH-RESV-002.a`: MUST, device.
pub const BTH_RESV_002_A: Clause = Clause(791);
/// `BTH-RESV-002.b`: MUST, device.
pub const BTH_RESV_002_B: Clause = Clause(792);
/// `BTH-RESV-003`: MUST, device.
pub const BTH_RESV_003: Clause = Clause(793);
/// `BTH-RTX-001`: MUST, device.
pub const BTH_RTX_001: Clause = Clause(794);
/// `BTH-RTX-002`, its clauses (a) to (b) together: MUST, device.
pub const BTH_RTX_002: Clause = Clause(795);
/// `BTH-RTX-002.a`: SHOULD, device.
pub const BTH_RTX_002_A: Clause = Clause(796);
/// `BTH-RTX-002.b`: MUST, device.
pub const BTH_RTX_002_B: Clause = Clause(797);
/// `BTH-PSN-001`: MUST, device.
pub const BTH_PSN_001: Clause = Clause(798);
/// `BTH-PSN-002`: MUST, device.
pub const BTH_PSN_002: Clause = Clause(799);
/// `OPC-TABLE-001`: MUST, device.
pub const OPC_TABLE_001: Clause = Clause(800);
/// `OPC-MRC-001`: MUST, device.
pub const OPC_MRC_001: Clause = Clause(801);
/// `OPC-MRC-002`: MUST, device.
pub const OPC_MRC_002: Clause = Clause(802);
/// `OPC-WRITE-001`: MUST, device.
pub const OPC_WRITE_001: Clause = Clause(803);
/// `OPC-UNKNOWN-001`, its clauses (a) to (c) together: MUST, device.
pub const OPC_UNKNOWN_001: Clause = Clause(804);
/// `OPC-UNKNOWN-001.a`: MUST, device.
pub const OPC_UNKNOWN_001_A: Clause = Clause(805);
/// `OPC-UNKNOWN-001.b`: MUST, codec.
pub const OPC_UNKNOWN_001_B: Clause = Clause(806);
/// `OPC-UNKNOWN-001.c`: MUST, codec.
pub const OPC_UNKNOWN_001_C: Clause = Clause(807);
/// `OPC-PSN-001`, its clauses (a) to (f) together: MUST, device.
pub const OPC_PSN_001: Clause = Clause(808);
/// `OPC-PSN-001.a`: SHOULD, device.
pub const OPC_PSN_001_A: Clause = Clause(809);
/// `OPC-PSN-001.b`: SHOULD, device.
pub const OPC_PSN_001_B: Clause = Clause(810);
/// `OPC-PSN-001.c`: SHOULD, device.
pub const OPC_PSN_001_C: Clause = Clause(811);
/// `OPC-PSN-001.d`: SHOULD, device.
pub const OPC_PSN_001_D: Clause = Clause(812);
/// `OPC-PSN-001.e`: SHOULD, device.
pub const OPC_PSN_001_E: Clause = Clause(813);
/// `OPC-PSN-001.f`: MUST, device.
pub const OPC_PSN_001_F: Clause = Clause(814);
/// `METH-LAYOUT-001`: MUST, device.
pub const METH_LAYOUT_001: Clause = Clause(815);
/// `METH-MSN-001`: MUST, device.
pub const METH_MSN_001: Clause = Clause(816);
/// `METH-RQMSN-001`, its clauses (a) to (b) together: MUST, device.
pub const METH_RQMSN_001: Clause = Clause(817);
/// `METH-RQMSN-001.a`: MUST, device.
pub const METH_RQMSN_001_A: Clause = Clause(818);
/// `METH-RQMSN-001.b`: MUST, device.
pub const METH_RQMSN_001_B: Clause = Clause(819);
/// `TSETH-LAYOUT-001`: MUST, device.
pub const TSETH_LAYOUT_001: Clause = Clause(820);
/// `TSETH-PRESENT-001`: MUST, device.
pub const TSETH_PRESENT_001: Clause = Clause(821);
/// `TSETH-PRESENT-002`: MUST, device.
pub const TSETH_PRESENT_002: Clause = Clause(822);
/// `TSETH-RESV-001`: MUST, device.
pub const TSETH_RESV_001: Clause = Clause(823);
/// `TSETH-FTYPE-001`, its clauses (a) to (c) together: MUST, device.
pub const TSETH_FTYPE_001: Clause = Clause(824);
/// `TSETH-FTYPE-001.a`: SHOULD, device.
pub const TSETH_FTYPE_001_A: Clause = Clause(825);
/// `TSETH-FTYPE-001.b`: MUST, device.
pub const TSETH_FTYPE_001_B: Clause = Clause(826);
/// `TSETH-FTYPE-001.c`: MUST, codec.
pub const TSETH_FTYPE_001_C: Clause = Clause(827);
/// `TSETH-TS-001`, its clauses (a) to (b) together: MUST, device.
pub const TSETH_TS_001: Clause = Clause(828);
/// `TSETH-TS-001.a`: MUST, device.
pub const TSETH_TS_001_A: Clause = Clause(829);
/// `TSETH-TS-001.b`: MUST, device.
pub const TSETH_TS_001_B: Clause = Clause(830);
/// `RETH-LAYOUT-001`: MUST, device.
pub const RETH_LAYOUT_001: Clause = Clause(831);
/// `RETH-LEN-001`: MUST, device.
pub const RETH_LEN_001: Clause = Clause(832);
/// `RETH-VA-001`: MUST, device.
pub const RETH_VA_001: Clause = Clause(833);
/// `RETH-VA-002`: MUST, device.
pub const RETH_VA_002: Clause = Clause(834);
/// `RETH-LEN-002`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by RETH-LEN-003, which gives `dma_len` the message length in every packet instead of the bytes remaining to the end of the message."]
pub const RETH_LEN_002: Clause = Clause(835);
/// `RETH-LEN-003`: MUST, device.
pub const RETH_LEN_003: Clause = Clause(836);
/// `RETH-RKEY-001`: MUST, device.
pub const RETH_RKEY_001: Clause = Clause(837);
/// `IMMDT-LAYOUT-001`: MUST, device.
pub const IMMDT_LAYOUT_001: Clause = Clause(838);
/// `AETH-LAYOUT-001`: MUST, device.
pub const AETH_LAYOUT_001: Clause = Clause(839);
/// `AETH-SYN-001`: MUST, device.
pub const AETH_SYN_001: Clause = Clause(840);
/// `AETH-SYN-002`: MUST, device.
pub const AETH_SYN_002: Clause = Clause(841);
/// `AETH-NAK-001`: MUST, device.
pub const AETH_NAK_001: Clause = Clause(842);
/// `AETH-MRC-001`: MUST, device.
pub const AETH_MRC_001: Clause = Clause(843);
/// `AETH-MRC-002`, its clauses (a) to (b) together: MUST, device.
pub const AETH_MRC_002: Clause = Clause(844);
/// `AETH-MRC-002.a`: SHOULD, device.
pub const AETH_MRC_002_A: Clause = Clause(845);
/// `AETH-MRC-002.b`: MUST, device.
pub const AETH_MRC_002_B: Clause = Clause(846);
/// `AETH-MSN-001`, its clauses (a) to (b) together: MUST, device.
pub const AETH_MSN_001: Clause = Clause(847);
/// `AETH-MSN-001.a`: MUST, device.
pub const AETH_MSN_001_A: Clause = Clause(848);
/// `AETH-MSN-001.b`: MUST, device.
pub const AETH_MSN_001_B: Clause = Clause(849);
/// `SETH-LAYOUT-001`: MUST, device.
pub const SETH_LAYOUT_001: Clause = Clause(850);
/// `SETH-RESV-001`: MUST, device.
pub const SETH_RESV_001: Clause = Clause(851);
/// `SETH-TYPE-001`, its clauses (a) to (b) together: MUST, device.
pub const SETH_TYPE_001: Clause = Clause(852);
/// `SETH-TYPE-001.a`: SHOULD, device.
pub const SETH_TYPE_001_A: Clause = Clause(853);
/// `SETH-TYPE-001.b`: MUST, device.
pub const SETH_TYPE_001_B: Clause = Clause(854);
/// `SETH-M-001`, its clauses (a) to (c) together: MUST, device.
pub const SETH_M_001: Clause = Clause(855);
/// `SETH-M-001.a`: MUST, device.
pub const SETH_M_001_A: Clause = Clause(856);
/// `SETH-M-001.b`: MUST, device.
pub const SETH_M_001_B: Clause = Clause(857);
/// `SETH-M-001.c`: MUST, codec.
pub const SETH_M_001_C: Clause = Clause(858);
/// `SETH-PR-001`: MUST, device.
pub const SETH_PR_001: Clause = Clause(859);
/// `SETH-ACKPSN-001`, its clauses (a) to (b) together: MUST, device.
pub const SETH_ACKPSN_001: Clause = Clause(860);
/// `SETH-ACKPSN-001.a`: MUST, device.
pub const SETH_ACKPSN_001_A: Clause = Clause(861);
/// `SETH-ACKPSN-001.b`: MUST, device.
pub const SETH_ACKPSN_001_B: Clause = Clause(862);
/// `SETH-ACKPSN-002`: MUST, device.
pub const SETH_ACKPSN_002: Clause = Clause(863);
/// `SETH-EV-001`: MUST, device.
pub const SETH_EV_001: Clause = Clause(864);
/// `SETH-PDC-001`, its clauses (a) to (b) together: MUST, device.
pub const SETH_PDC_001: Clause = Clause(865);
/// `SETH-PDC-001.a`: SHOULD, device.
pub const SETH_PDC_001_A: Clause = Clause(866);
/// `SETH-PDC-001.b`: MUST, device.
pub const SETH_PDC_001_B: Clause = Clause(867);
/// `SETH-CACK-001`, its clauses (a) to (b) together: MUST, device.
pub const SETH_CACK_001: Clause = Clause(868);
/// `SETH-CACK-001.a`: MUST, device.
pub const SETH_CACK_001_A: Clause = Clause(869);
/// `SETH-CACK-001.b`: MUST, device.
pub const SETH_CACK_001_B: Clause = Clause(870);
/// `SETH-CC-001`, its clauses (a) to (b) together: MUST, device.
pub const SETH_CC_001: Clause = Clause(871);
/// `SETH-CC-001.a`: SHOULD, device.
pub const SETH_CC_001_A: Clause = Clause(872);
/// `SETH-CC-001.b`: MUST, device.
pub const SETH_CC_001_B: Clause = Clause(873);
/// `SETH-MPR-001`: MUST, device.
pub const SETH_MPR_001: Clause = Clause(874);
/// `SETH-BITMAP-001`: MUST, device.
pub const SETH_BITMAP_001: Clause = Clause(875);
/// `SETH-BITMAP-002`, its clauses (a) to (b) together: MUST, device.
pub const SETH_BITMAP_002: Clause = Clause(876);
/// `SETH-BITMAP-002.a`: MUST, device.
pub const SETH_BITMAP_002_A: Clause = Clause(877);
/// `SETH-BITMAP-002.b`: MUST, device.
pub const SETH_BITMAP_002_B: Clause = Clause(878);
/// `CCS-LAYOUT-001`: MUST, device.
pub const CCS_LAYOUT_001: Clause = Clause(879);
/// `CCS-RESV-001`: MUST, device.
pub const CCS_RESV_001: Clause = Clause(880);
/// `CCS-TS-001`: MUST, device.
pub const CCS_TS_001: Clause = Clause(881);
/// `CCS-OOO-001`: MUST, device.
pub const CCS_OOO_001: Clause = Clause(882);
/// `CCS-BYTES-001`: MUST, device.
pub const CCS_BYTES_001: Clause = Clause(883);
/// `NETH-LAYOUT-001`: MUST, device.
pub const NETH_LAYOUT_001: Clause = Clause(884);
/// `NETH-RESV-001`: MUST, device.
pub const NETH_RESV_001: Clause = Clause(885);
/// `NETH-TYPE-001`, its clauses (a) to (b) together: MUST, device.
pub const NETH_TYPE_001: Clause = Clause(886);
/// `NETH-TYPE-001.a`: SHOULD, device.
pub const NETH_TYPE_001_A: Clause = Clause(887);
/// `NETH-TYPE-001.b`: MUST, device.
pub const NETH_TYPE_001_B: Clause = Clause(888);
/// `NETH-REASON-001`, its clauses (a) to (c) together: MUST, device.
pub const NETH_REASON_001: Clause = Clause(889);
/// `NETH-REASON-001.a`: MUST, device.
pub const NETH_REASON_001_A: Clause = Clause(890);
/// `NETH-REASON-001.b`: MUST, codec.
pub const NETH_REASON_001_B: Clause = Clause(891);
/// `NETH-REASON-001.c`: MUST, codec.
pub const NETH_REASON_001_C: Clause = Clause(892);
/// `NETH-REASON-002`, its clauses (a) to (b) together: MUST, device.
pub const NETH_REASON_002: Clause = Clause(893);
/// `NETH-REASON-002.a`: MUST, device.
pub const NETH_REASON_002_A: Clause = Clause(894);
/// `NETH-REASON-002.b`: MUST, device.
pub const NETH_REASON_002_B: Clause = Clause(895);
/// `NETH-VENDOR-001`, its clauses (a) to (b) together: MUST, device.
pub const NETH_VENDOR_001: Clause = Clause(896);
/// `NETH-VENDOR-001.a`: SHOULD, device.
pub const NETH_VENDOR_001_A: Clause = Clause(897);
/// `NETH-VENDOR-001.b`: MUST, device.
pub const NETH_VENDOR_001_B: Clause = Clause(898);
/// `NETH-PSN-001`: MUST, device.
pub const NETH_PSN_001: Clause = Clause(899);
/// `NETH-TS-001`: MUST, device.
pub const NETH_TS_001: Clause = Clause(900);
/// `NETH-PDC-001`, its clauses (a) to (b) together: MUST, device.
pub const NETH_PDC_001: Clause = Clause(901);
/// `NETH-PDC-001.a`: SHOULD, device.
pub const NETH_PDC_001_A: Clause = Clause(902);
/// `NETH-PDC-001.b`: MUST, device.
pub const NETH_PDC_001_B: Clause = Clause(903);
/// `NETH-CC-001`: SHOULD, device.
pub const NETH_CC_001: Clause = Clause(904);
/// `PETH-LAYOUT-001`: MUST, device.
pub const PETH_LAYOUT_001: Clause = Clause(905);
/// `PETH-RESV-001`: MUST, device.
pub const PETH_RESV_001: Clause = Clause(906);
/// `PETH-PSN-001`: MUST, device.
pub const PETH_PSN_001: Clause = Clause(907);
/// `PETH-RESP-001`: MUST, device.
pub const PETH_RESP_001: Clause = Clause(908);
/// `PETH-FTYPE-001`, its clauses (a) to (b) together: MUST, device.
pub const PETH_FTYPE_001: Clause = Clause(909);
/// `PETH-FTYPE-001.a`: SHOULD, device.
pub const PETH_FTYPE_001_A: Clause = Clause(910);
/// `PETH-FTYPE-001.b`: MUST, device.
pub const PETH_FTYPE_001_B: Clause = Clause(911);
/// `PETH-PDC-001`, its clauses (a) to (b) together: MUST, device.
pub const PETH_PDC_001: Clause = Clause(912);
/// `PETH-PDC-001.a`: SHOULD, device.
pub const PETH_PDC_001_A: Clause = Clause(913);
/// `PETH-PDC-001.b`: MUST, device.
pub const PETH_PDC_001_B: Clause = Clause(914);
/// `ERTH-LAYOUT-001`: MUST, device.
pub const ERTH_LAYOUT_001: Clause = Clause(915);
/// `ERTH-QPN-001`, its clauses (a) to (b) together: MUST, device.
pub const ERTH_QPN_001: Clause = Clause(916);
/// `ERTH-QPN-001.a`: MUST, device.
pub const ERTH_QPN_001_A: Clause = Clause(917);
/// `ERTH-QPN-001.b`: MUST, device.
pub const ERTH_QPN_001_B: Clause = Clause(918);
/// `ERTH-RESV-001`: MUST, device.
pub const ERTH_RESV_001: Clause = Clause(919);
/// `ERTH-OP-001`, its clauses (a) to (c) together: MUST, device.
pub const ERTH_OP_001: Clause = Clause(920);
/// `ERTH-OP-001.a`: MUST, device.
pub const ERTH_OP_001_A: Clause = Clause(921);
/// `ERTH-OP-001.b`: MUST, codec.
pub const ERTH_OP_001_B: Clause = Clause(922);
/// `ERTH-OP-001.c`: MUST, codec.
pub const ERTH_OP_001_C: Clause = Clause(923);
/// `ERTH-PORT-001`: MUST, device.
pub const ERTH_PORT_001: Clause = Clause(924);
/// `ERTH-RESP-001`, its clauses (a) to (e) together: MUST, device.
pub const ERTH_RESP_001: Clause = Clause(925);
/// `ERTH-RESP-001.a`: MUST, device.
pub const ERTH_RESP_001_A: Clause = Clause(926);
/// `ERTH-RESP-001.b`: MUST, device.
pub const ERTH_RESP_001_B: Clause = Clause(927);
/// `ERTH-RESP-001.c`: MUST, device.
pub const ERTH_RESP_001_C: Clause = Clause(928);
/// `ERTH-RESP-001.d`: MUST, device.
pub const ERTH_RESP_001_D: Clause = Clause(929);
/// `ERTH-RESP-001.e`: MUST, device.
pub const ERTH_RESP_001_E: Clause = Clause(930);
/// `EETH-LAYOUT-001`: MUST, device.
pub const EETH_LAYOUT_001: Clause = Clause(931);
/// `EETH-RESV-001`: MUST, device.
pub const EETH_RESV_001: Clause = Clause(932);
/// `EETH-OP-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by EETH-OP-002, since a response carries the `op` of the request it answers (EETH-ECHO-001), which may be one that table 21 does not define."]
pub const EETH_OP_001: Clause = Clause(933);
/// `EETH-OP-002`, its clauses (a) to (c) together: MUST, device.
pub const EETH_OP_002: Clause = Clause(934);
/// `EETH-OP-002.a`: MUST, device.
pub const EETH_OP_002_A: Clause = Clause(935);
/// `EETH-OP-002.b`: MUST, codec.
pub const EETH_OP_002_B: Clause = Clause(936);
/// `EETH-OP-002.c`: MUST, codec.
pub const EETH_OP_002_C: Clause = Clause(937);
/// `EETH-ECHO-001`: MUST, device.
pub const EETH_ECHO_001: Clause = Clause(938);
/// `EETH-PORT-001`: MUST, device.
pub const EETH_PORT_001: Clause = Clause(939);
/// `EETH-STATUS-001`, its clauses (a) to (b) together: MUST, device.
pub const EETH_STATUS_001: Clause = Clause(940);
/// `EETH-STATUS-001.a`: MUST, device.
pub const EETH_STATUS_001_A: Clause = Clause(941);
/// `EETH-STATUS-001.b`: SHOULD, device.
pub const EETH_STATUS_001_B: Clause = Clause(942);
/// `EETH-DATA-001`, its clauses (a) to (b) together: MUST, device.
pub const EETH_DATA_001: Clause = Clause(943);
/// `EETH-DATA-001.a`: SHOULD, device.
pub const EETH_DATA_001_A: Clause = Clause(944);
/// `EETH-DATA-001.b`: MUST, device.
pub const EETH_DATA_001_B: Clause = Clause(945);
/// `DETH-LAYOUT-001`: MUST, codec.
pub const DETH_LAYOUT_001: Clause = Clause(946);
/// `DETH-RESV-001`: MUST, codec.
pub const DETH_RESV_001: Clause = Clause(947);
/// `RDETH-LAYOUT-001`: MUST, codec.
pub const RDETH_LAYOUT_001: Clause = Clause(948);
/// `RDETH-RESV-001`: MUST, codec.
pub const RDETH_RESV_001: Clause = Clause(949);
/// `XRCETH-LAYOUT-001`: MUST, codec.
pub const XRCETH_LAYOUT_001: Clause = Clause(950);
/// `XRCETH-RESV-001`: MUST, codec.
pub const XRCETH_RESV_001: Clause = Clause(951);
/// `IETH-LAYOUT-001`: MUST, codec.
pub const IETH_LAYOUT_001: Clause = Clause(952);
/// `ATOMIC-LAYOUT-001`: MUST, codec.
pub const ATOMIC_LAYOUT_001: Clause = Clause(953);
/// `CNP-LAYOUT-001`: MUST, codec.
pub const CNP_LAYOUT_001: Clause = Clause(954);
/// `CNP-RESV-001`: MUST, codec.
pub const CNP_RESV_001: Clause = Clause(955);
/// `CNP-BTH-001`, its clauses (a) to (b) together: MUST, codec.
pub const CNP_BTH_001: Clause = Clause(956);
/// `CNP-BTH-001.a`: SHOULD, codec.
pub const CNP_BTH_001_A: Clause = Clause(957);
/// `CNP-BTH-001.b`: MUST, codec.
pub const CNP_BTH_001_B: Clause = Clause(958);
/// `PAY-PAD-001`: MUST, device.
pub const PAY_PAD_001: Clause = Clause(959);
/// `PAY-PAD-002`, its clauses (a) to (c) together: MUST, device.
pub const PAY_PAD_002: Clause = Clause(960);
/// `PAY-PAD-002.a`: SHOULD, device.
pub const PAY_PAD_002_A: Clause = Clause(961);
/// `PAY-PAD-002.b`: MUST, device.
pub const PAY_PAD_002_B: Clause = Clause(962);
/// `PAY-PAD-002.c`: MUST, codec.
pub const PAY_PAD_002_C: Clause = Clause(963);
/// `PAY-PAD-003`: MUST, device.
pub const PAY_PAD_003: Clause = Clause(964);
/// `PAY-LEN-001`: MUST, device.
pub const PAY_LEN_001: Clause = Clause(965);
/// `PAY-LEN-002`: MUST, device.
pub const PAY_LEN_002: Clause = Clause(966);
/// `PAY-NONE-001`: MUST, device.
pub const PAY_NONE_001: Clause = Clause(967);
/// `ICRC-CALC-001`: MUST, device.
pub const ICRC_CALC_001: Clause = Clause(968);
/// `ICRC-COVER-001`: MUST, device.
pub const ICRC_COVER_001: Clause = Clause(969);
/// `ICRC-MASK-001`: MUST, device.
pub const ICRC_MASK_001: Clause = Clause(970);
/// `ICRC-ORDER-001`: MUST, device.
pub const ICRC_ORDER_001: Clause = Clause(971);
/// `ICRC-VERIFY-001`, its clauses (a) to (c) together: MUST, device.
pub const ICRC_VERIFY_001: Clause = Clause(972);
/// `ICRC-VERIFY-001.a`: MUST, device.
pub const ICRC_VERIFY_001_A: Clause = Clause(973);
/// `ICRC-VERIFY-001.b`: MUST, codec.
pub const ICRC_VERIFY_001_B: Clause = Clause(974);
/// `ICRC-VERIFY-001.c`: MUST, codec.
pub const ICRC_VERIFY_001_C: Clause = Clause(975);
/// `DEC-STRUCT-001`: MUST, codec.
pub const DEC_STRUCT_001: Clause = Clause(976);
/// `DEC-ERR-001`: MUST, codec.
pub const DEC_ERR_001: Clause = Clause(977);
/// `DEC-LOSSLESS-001`: MUST, codec.
pub const DEC_LOSSLESS_001: Clause = Clause(978);
/// `DEC-VAL-001`, its clauses (a) to (b) together: MUST, codec.
pub const DEC_VAL_001: Clause = Clause(979);
/// `DEC-VAL-001.a`: MUST, codec.
pub const DEC_VAL_001_A: Clause = Clause(980);
/// `DEC-VAL-001.b`: MUST, codec.
pub const DEC_VAL_001_B: Clause = Clause(981);
/// `DEC-JSON-001`: MUST, codec.
pub const DEC_JSON_001: Clause = Clause(982);
/// `DEC-VLAN-001`: MUST, codec.
pub const DEC_VLAN_001: Clause = Clause(983);
/// `DEC-LINK-001`: MUST, codec.
pub const DEC_LINK_001: Clause = Clause(984);
/// `DEC-FCS-001`: MUST, codec.
pub const DEC_FCS_001: Clause = Clause(985);
/// `DEC-CUT-001`: MUST, codec.
pub const DEC_CUT_001: Clause = Clause(986);
/// `DEC-KIND-001`: MUST, codec.
pub const DEC_KIND_001: Clause = Clause(987);
/// `DEC-EXIT-001`: MUST, codec.
pub const DEC_EXIT_001: Clause = Clause(988);
/// `DEC-EXIT-002`: MUST, codec.
pub const DEC_EXIT_002: Clause = Clause(989);
