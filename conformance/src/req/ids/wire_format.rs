//! The clauses of `wire-format.md`.
//!
//! Generated from `spec/` by `tests/req_ids.rs`; do not edit.

use crate::req::Clause;

/// `DEC-RESV-001`, its clauses (a) to (c) together: MUST, device.
pub const DEC_RESV_001: Clause = Clause(903);
/// `DEC-RESV-001.a`: MUST, device.
pub const DEC_RESV_001_A: Clause = Clause(904);
/// `DEC-RESV-001.b`: MUST, device.
pub const DEC_RESV_001_B: Clause = Clause(905);
/// `DEC-RESV-001.c`: MUST, codec.
pub const DEC_RESV_001_C: Clause = Clause(906);
/// `ENC-FRAME-001`: MUST, device.
pub const ENC_FRAME_001: Clause = Clause(907);
/// `ENC-ETH-001`: MUST, device.
pub const ENC_ETH_001: Clause = Clause(908);
/// `ENC-ETH-002`: MUST, device.
pub const ENC_ETH_002: Clause = Clause(909);
/// `ENC-VLAN-001`: MUST, device.
pub const ENC_VLAN_001: Clause = Clause(910);
/// `ENC-VLAN-002`, its clauses (a) to (c) together: MUST, device.
pub const ENC_VLAN_002: Clause = Clause(911);
/// `ENC-VLAN-002.a`: MUST, device.
pub const ENC_VLAN_002_A: Clause = Clause(912);
/// `ENC-VLAN-002.b`: SHOULD, device.
pub const ENC_VLAN_002_B: Clause = Clause(913);
/// `ENC-VLAN-002.c`: MUST, device.
pub const ENC_VLAN_002_C: Clause = Clause(914);
/// `ENC-IPV4-001`: MUST, device.
pub const ENC_IPV4_001: Clause = Clause(915);
/// `ENC-IPV4-002`, its clauses (a) to (b) together: MUST, device.
pub const ENC_IPV4_002: Clause = Clause(916);
/// `ENC-IPV4-002.a`: MUST, device.
pub const ENC_IPV4_002_A: Clause = Clause(917);
/// `ENC-IPV4-002.b`: MUST, device.
pub const ENC_IPV4_002_B: Clause = Clause(918);
/// `ENC-IPV4-003`, its clauses (a) to (c) together: MUST, device.
pub const ENC_IPV4_003: Clause = Clause(919);
/// `ENC-IPV4-003.a`: MUST, device.
pub const ENC_IPV4_003_A: Clause = Clause(920);
/// `ENC-IPV4-003.b`: MUST, device.
pub const ENC_IPV4_003_B: Clause = Clause(921);
/// `ENC-IPV4-003.c`: MUST, codec.
pub const ENC_IPV4_003_C: Clause = Clause(922);
/// `ENC-IPV4-004`: MUST, device.
pub const ENC_IPV4_004: Clause = Clause(923);
/// `ENC-IPV4-005`: MUST, device.
pub const ENC_IPV4_005: Clause = Clause(924);
/// `ENC-IPV4-006`, its clauses (a) to (c) together: MUST, device.
pub const ENC_IPV4_006: Clause = Clause(925);
/// `ENC-IPV4-006.a`: SHOULD, device.
pub const ENC_IPV4_006_A: Clause = Clause(926);
/// `ENC-IPV4-006.b`: MUST, device.
pub const ENC_IPV4_006_B: Clause = Clause(927);
/// `ENC-IPV4-006.c`: MUST, codec.
pub const ENC_IPV4_006_C: Clause = Clause(928);
/// `ENC-IPV4-007`: SHOULD, device.
pub const ENC_IPV4_007: Clause = Clause(929);
/// `ENC-IPV6-001`: MUST, device.
pub const ENC_IPV6_001: Clause = Clause(930);
/// `ENC-IPV6-002`: MUST, device.
pub const ENC_IPV6_002: Clause = Clause(931);
/// `ENC-HOP-001`, its clauses (a) to (c) together: MUST, device.
pub const ENC_HOP_001: Clause = Clause(932);
/// `ENC-HOP-001.a`: MUST, device.
pub const ENC_HOP_001_A: Clause = Clause(933);
/// `ENC-HOP-001.b`: MUST, codec.
pub const ENC_HOP_001_B: Clause = Clause(934);
/// `ENC-HOP-001.c`: MUST, device.
pub const ENC_HOP_001_C: Clause = Clause(935);
/// `ENC-UDP-001`, its clauses (a) to (b) together: MUST, device.
pub const ENC_UDP_001: Clause = Clause(936);
/// `ENC-UDP-001.a`: MUST, device.
pub const ENC_UDP_001_A: Clause = Clause(937);
/// `ENC-UDP-001.b`: MUST, codec.
pub const ENC_UDP_001_B: Clause = Clause(938);
/// `ENC-UDP-002`: MUST, device.
pub const ENC_UDP_002: Clause = Clause(939);
/// `ENC-UDP-003`, its clauses (a) to (b) together: MUST, device.
pub const ENC_UDP_003: Clause = Clause(940);
/// `ENC-UDP-003.a`: MAY, device.
pub const ENC_UDP_003_A: Clause = Clause(941);
/// `ENC-UDP-003.b`: MUST, device.
pub const ENC_UDP_003_B: Clause = Clause(942);
/// `ENC-UDP-004`, its clauses (a) to (b) together: MUST, device.
pub const ENC_UDP_004: Clause = Clause(943);
/// `ENC-UDP-004.a`: SHOULD, device.
pub const ENC_UDP_004_A: Clause = Clause(944);
/// `ENC-UDP-004.b`: MUST, device.
pub const ENC_UDP_004_B: Clause = Clause(945);
/// `ENC-UDP-005`: MUST, device.
pub const ENC_UDP_005: Clause = Clause(946);
/// `ENC-UDP-006`: MUST, device.
pub const ENC_UDP_006: Clause = Clause(947);
/// `ENC-LEN-001`, its clauses (a) to (b) together: MUST, device.
pub const ENC_LEN_001: Clause = Clause(948);
/// `ENC-LEN-001.a`: MUST, device.
pub const ENC_LEN_001_A: Clause = Clause(949);
/// `ENC-LEN-001.b`: MUST, codec.
pub const ENC_LEN_001_B: Clause = Clause(950);
/// `ENC-LEN-002`, its clauses (a) to (b) together: MUST, device.
pub const ENC_LEN_002: Clause = Clause(951);
/// `ENC-LEN-002.a`: MUST, device.
pub const ENC_LEN_002_A: Clause = Clause(952);
/// `ENC-LEN-002.b`: MUST, codec.
pub const ENC_LEN_002_B: Clause = Clause(953);
/// `ENC-LEN-003`: MUST, device.
pub const ENC_LEN_003: Clause = Clause(954);
/// `ENC-LEN-004`: MUST, device.
pub const ENC_LEN_004: Clause = Clause(955);
/// `ENC-EV-001`, its clauses (a) to (c) together: MUST, device.
pub const ENC_EV_001: Clause = Clause(956);
/// `ENC-EV-001.a`: MUST, device.
pub const ENC_EV_001_A: Clause = Clause(957);
/// `ENC-EV-001.b`: MUST, device.
pub const ENC_EV_001_B: Clause = Clause(958);
/// `ENC-EV-001.c`: MUST, device.
pub const ENC_EV_001_C: Clause = Clause(959);
/// `ENC-EV-002`, its clauses (a) to (b) together: MUST, device.
pub const ENC_EV_002: Clause = Clause(960);
/// `ENC-EV-002.a`: MUST, device.
pub const ENC_EV_002_A: Clause = Clause(961);
/// `ENC-EV-002.b`: MUST, device.
pub const ENC_EV_002_B: Clause = Clause(962);
/// `ENC-EV-003`: MUST, device.
pub const ENC_EV_003: Clause = Clause(963);
/// `ENC-ROCE-001`: MUST, device.
pub const ENC_ROCE_001: Clause = Clause(964);
/// `ENC-ECN-001`: SHOULD, device.
pub const ENC_ECN_001: Clause = Clause(965);
/// `BTH-LAYOUT-001`: MUST, device.
pub const BTH_LAYOUT_001: Clause = Clause(966);
/// `BTH-TVER-001`, its clauses (a) to (c) together: MUST, device.
pub const BTH_TVER_001: Clause = Clause(967);
/// `BTH-TVER-001.a`: MUST, device.
pub const BTH_TVER_001_A: Clause = Clause(968);
/// `BTH-TVER-001.b`: MUST, device.
pub const BTH_TVER_001_B: Clause = Clause(969);
/// `BTH-TVER-001.c`: MUST, codec.
pub const BTH_TVER_001_C: Clause = Clause(970);
/// `BTH-PKEY-001`: MUST, device.
pub const BTH_PKEY_001: Clause = Clause(971);
/// `BTH-RESV-001`: MUST, codec.
pub const BTH_RESV_001: Clause = Clause(972);
/// `BTH-RESV-002`, its clauses (a) to (b) together: MUST, device.
pub const BTH_RESV_002: Clause = Clause(973);
/// `BTH-RESV-002.a`: MUST, device.
pub const BTH_RESV_002_A: Clause = Clause(974);
/// `BTH-RESV-002.b`: MUST, device.
pub const BTH_RESV_002_B: Clause = Clause(975);
/// `BTH-RESV-003`: MUST, device.
pub const BTH_RESV_003: Clause = Clause(976);
/// `BTH-RTX-001`: MUST, device.
pub const BTH_RTX_001: Clause = Clause(977);
/// `BTH-RTX-002`, its clauses (a) to (b) together: MUST, device.
pub const BTH_RTX_002: Clause = Clause(978);
/// `BTH-RTX-002.a`: SHOULD, device.
pub const BTH_RTX_002_A: Clause = Clause(979);
/// `BTH-RTX-002.b`: MUST, device.
pub const BTH_RTX_002_B: Clause = Clause(980);
/// `BTH-PSN-001`: MUST, device.
pub const BTH_PSN_001: Clause = Clause(981);
/// `BTH-PSN-002`: MUST, device.
pub const BTH_PSN_002: Clause = Clause(982);
/// `OPC-TABLE-001`: MUST, device.
pub const OPC_TABLE_001: Clause = Clause(983);
/// `OPC-MRC-001`: MUST, device.
pub const OPC_MRC_001: Clause = Clause(984);
/// `OPC-MRC-002`: MUST, device.
pub const OPC_MRC_002: Clause = Clause(985);
/// `OPC-WRITE-001`: MUST, device.
pub const OPC_WRITE_001: Clause = Clause(986);
/// `OPC-UNKNOWN-001`, its clauses (a) to (c) together: MUST, device.
pub const OPC_UNKNOWN_001: Clause = Clause(987);
/// `OPC-UNKNOWN-001.a`: MUST, device.
pub const OPC_UNKNOWN_001_A: Clause = Clause(988);
/// `OPC-UNKNOWN-001.b`: MUST, codec.
pub const OPC_UNKNOWN_001_B: Clause = Clause(989);
/// `OPC-UNKNOWN-001.c`: MUST, codec.
pub const OPC_UNKNOWN_001_C: Clause = Clause(990);
/// `OPC-PSN-001`, its clauses (a) to (f) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by OPC-PSN-002, under which the BTH `psn` of a SACK, a NACK, a probe and an endpoint request is the MUST of the rule of its packet rather than a SHOULD."]
pub const OPC_PSN_001: Clause = Clause(991);
/// `OPC-PSN-001.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by OPC-PSN-002, under which the BTH `psn` of a SACK, a NACK, a probe and an endpoint request is the MUST of the rule of its packet rather than a SHOULD."]
pub const OPC_PSN_001_A: Clause = Clause(992);
/// `OPC-PSN-001.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by OPC-PSN-002, under which the BTH `psn` of a SACK, a NACK, a probe and an endpoint request is the MUST of the rule of its packet rather than a SHOULD."]
pub const OPC_PSN_001_B: Clause = Clause(993);
/// `OPC-PSN-001.c`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by OPC-PSN-002, under which the BTH `psn` of a SACK, a NACK, a probe and an endpoint request is the MUST of the rule of its packet rather than a SHOULD."]
pub const OPC_PSN_001_C: Clause = Clause(994);
/// `OPC-PSN-001.d`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by OPC-PSN-002, under which the BTH `psn` of a SACK, a NACK, a probe and an endpoint request is the MUST of the rule of its packet rather than a SHOULD."]
pub const OPC_PSN_001_D: Clause = Clause(995);
/// `OPC-PSN-001.e`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by OPC-PSN-002, under which the BTH `psn` of a SACK, a NACK, a probe and an endpoint request is the MUST of the rule of its packet rather than a SHOULD."]
pub const OPC_PSN_001_E: Clause = Clause(996);
/// `OPC-PSN-001.f`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by OPC-PSN-002, under which the BTH `psn` of a SACK, a NACK, a probe and an endpoint request is the MUST of the rule of its packet rather than a SHOULD."]
pub const OPC_PSN_001_F: Clause = Clause(997);
/// `OPC-PSN-002`, its clauses (a) to (d) together: MUST, device.
pub const OPC_PSN_002: Clause = Clause(998);
/// `OPC-PSN-002.a`: MUST, device.
pub const OPC_PSN_002_A: Clause = Clause(999);
/// `OPC-PSN-002.b`: SHOULD, device.
pub const OPC_PSN_002_B: Clause = Clause(1000);
/// `OPC-PSN-002.c`: SHOULD, device.
pub const OPC_PSN_002_C: Clause = Clause(1001);
/// `OPC-PSN-002.d`: MUST, device.
pub const OPC_PSN_002_D: Clause = Clause(1002);
/// `METH-LAYOUT-001`: MUST, device.
pub const METH_LAYOUT_001: Clause = Clause(1003);
/// `METH-MSN-001`: MUST, device.
pub const METH_MSN_001: Clause = Clause(1004);
/// `METH-RQMSN-001`, its clauses (a) to (b) together: MUST, device.
pub const METH_RQMSN_001: Clause = Clause(1005);
/// `METH-RQMSN-001.a`: MUST, device.
pub const METH_RQMSN_001_A: Clause = Clause(1006);
/// `METH-RQMSN-001.b`: MUST, device.
pub const METH_RQMSN_001_B: Clause = Clause(1007);
/// `TSETH-LAYOUT-001`: MUST, device.
pub const TSETH_LAYOUT_001: Clause = Clause(1008);
/// `TSETH-PRESENT-001`: MUST, device.
pub const TSETH_PRESENT_001: Clause = Clause(1009);
/// `TSETH-PRESENT-002`: MUST, device.
pub const TSETH_PRESENT_002: Clause = Clause(1010);
/// `TSETH-RESV-001`: MUST, device.
pub const TSETH_RESV_001: Clause = Clause(1011);
/// `TSETH-FTYPE-001`, its clauses (a) to (c) together: MUST, device.
pub const TSETH_FTYPE_001: Clause = Clause(1012);
/// `TSETH-FTYPE-001.a`: SHOULD, device.
pub const TSETH_FTYPE_001_A: Clause = Clause(1013);
/// `TSETH-FTYPE-001.b`: MUST, device.
pub const TSETH_FTYPE_001_B: Clause = Clause(1014);
/// `TSETH-FTYPE-001.c`: MUST, codec.
pub const TSETH_FTYPE_001_C: Clause = Clause(1015);
/// `TSETH-TS-001`, its clauses (a) to (b) together: MUST, device.
pub const TSETH_TS_001: Clause = Clause(1016);
/// `TSETH-TS-001.a`: MUST, device.
pub const TSETH_TS_001_A: Clause = Clause(1017);
/// `TSETH-TS-001.b`: MUST, device.
pub const TSETH_TS_001_B: Clause = Clause(1018);
/// `RETH-LAYOUT-001`: MUST, device.
pub const RETH_LAYOUT_001: Clause = Clause(1019);
/// `RETH-LEN-001`: MUST, device.
pub const RETH_LEN_001: Clause = Clause(1020);
/// `RETH-VA-001`: MUST, device.
pub const RETH_VA_001: Clause = Clause(1021);
/// `RETH-VA-002`: MUST, device.
pub const RETH_VA_002: Clause = Clause(1022);
/// `RETH-LEN-002`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by RETH-LEN-003, which gives `dma_len` the message length in every packet instead of the bytes remaining to the end of the message."]
pub const RETH_LEN_002: Clause = Clause(1023);
/// `RETH-LEN-003`: MUST, device.
pub const RETH_LEN_003: Clause = Clause(1024);
/// `RETH-RKEY-001`: MUST, device.
pub const RETH_RKEY_001: Clause = Clause(1025);
/// `IMMDT-LAYOUT-001`: MUST, device.
pub const IMMDT_LAYOUT_001: Clause = Clause(1026);
/// `AETH-LAYOUT-001`: MUST, device.
pub const AETH_LAYOUT_001: Clause = Clause(1027);
/// `AETH-SYN-001`: MUST, device.
pub const AETH_SYN_001: Clause = Clause(1028);
/// `AETH-SYN-002`: MUST, device.
pub const AETH_SYN_002: Clause = Clause(1029);
/// `AETH-NAK-001`: MUST, device.
pub const AETH_NAK_001: Clause = Clause(1030);
/// `AETH-MRC-001`: MUST, device.
pub const AETH_MRC_001: Clause = Clause(1031);
/// `AETH-MRC-002`, its clauses (a) to (b) together: MUST, device.
pub const AETH_MRC_002: Clause = Clause(1032);
/// `AETH-MRC-002.a`: SHOULD, device.
pub const AETH_MRC_002_A: Clause = Clause(1033);
/// `AETH-MRC-002.b`: MUST, device.
pub const AETH_MRC_002_B: Clause = Clause(1034);
/// `AETH-MSN-001`, its clauses (a) to (b) together: MUST, device.
pub const AETH_MSN_001: Clause = Clause(1035);
/// `AETH-MSN-001.a`: MUST, device.
pub const AETH_MSN_001_A: Clause = Clause(1036);
/// `AETH-MSN-001.b`: MUST, device.
pub const AETH_MSN_001_B: Clause = Clause(1037);
/// `SETH-LAYOUT-001`: MUST, device.
pub const SETH_LAYOUT_001: Clause = Clause(1038);
/// `SETH-RESV-001`: MUST, device.
pub const SETH_RESV_001: Clause = Clause(1039);
/// `SETH-TYPE-001`, its clauses (a) to (b) together: MUST, device.
pub const SETH_TYPE_001: Clause = Clause(1040);
/// `SETH-TYPE-001.a`: SHOULD, device.
pub const SETH_TYPE_001_A: Clause = Clause(1041);
/// `SETH-TYPE-001.b`: MUST, device.
pub const SETH_TYPE_001_B: Clause = Clause(1042);
/// `SETH-M-001`, its clauses (a) to (c) together: MUST, device.
pub const SETH_M_001: Clause = Clause(1043);
/// `SETH-M-001.a`: MUST, device.
pub const SETH_M_001_A: Clause = Clause(1044);
/// `SETH-M-001.b`: MUST, device.
pub const SETH_M_001_B: Clause = Clause(1045);
/// `SETH-M-001.c`: MUST, codec.
pub const SETH_M_001_C: Clause = Clause(1046);
/// `SETH-PR-001`: MUST, device.
pub const SETH_PR_001: Clause = Clause(1047);
/// `SETH-ACKPSN-001`, its clauses (a) to (b) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by SETH-ACKPSN-003, under which a packet too far from `cack_psn` for the offset still triggers its SACK, with the offset clamped to the range, instead of triggering none."]
pub const SETH_ACKPSN_001: Clause = Clause(1048);
/// `SETH-ACKPSN-001.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by SETH-ACKPSN-003, under which a packet too far from `cack_psn` for the offset still triggers its SACK, with the offset clamped to the range, instead of triggering none."]
pub const SETH_ACKPSN_001_A: Clause = Clause(1049);
/// `SETH-ACKPSN-001.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by SETH-ACKPSN-003, under which a packet too far from `cack_psn` for the offset still triggers its SACK, with the offset clamped to the range, instead of triggering none."]
pub const SETH_ACKPSN_001_B: Clause = Clause(1050);
/// `SETH-ACKPSN-003`, its clauses (a) to (b) together: MUST, device.
pub const SETH_ACKPSN_003: Clause = Clause(1051);
/// `SETH-ACKPSN-003.a`: MUST, device.
pub const SETH_ACKPSN_003_A: Clause = Clause(1052);
/// `SETH-ACKPSN-003.b`: MUST, device.
pub const SETH_ACKPSN_003_B: Clause = Clause(1053);
/// `SETH-ACKPSN-002`: MUST, device.
pub const SETH_ACKPSN_002: Clause = Clause(1054);
/// `SETH-EV-001`: MUST, device.
pub const SETH_EV_001: Clause = Clause(1055);
/// `SETH-PDC-001`, its clauses (a) to (b) together: MUST, device.
pub const SETH_PDC_001: Clause = Clause(1056);
/// `SETH-PDC-001.a`: SHOULD, device.
pub const SETH_PDC_001_A: Clause = Clause(1057);
/// `SETH-PDC-001.b`: MUST, device.
pub const SETH_PDC_001_B: Clause = Clause(1058);
/// `SETH-CACK-001`, its clauses (a) to (b) together: MUST, device.
pub const SETH_CACK_001: Clause = Clause(1059);
/// `SETH-CACK-001.a`: MUST, device.
pub const SETH_CACK_001_A: Clause = Clause(1060);
/// `SETH-CACK-001.b`: MUST, device.
pub const SETH_CACK_001_B: Clause = Clause(1061);
/// `SETH-CC-001`, its clauses (a) to (b) together: MUST, device.
pub const SETH_CC_001: Clause = Clause(1062);
/// `SETH-CC-001.a`: SHOULD, device.
pub const SETH_CC_001_A: Clause = Clause(1063);
/// `SETH-CC-001.b`: MUST, device.
pub const SETH_CC_001_B: Clause = Clause(1064);
/// `SETH-MPR-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a restatement of SND-WIN-001 and SND-WIN-002 for new PSNs, whose \"or retransmit\" forbade what SND-WIN-003 and REC-RTO-004 require past a window that shrank or at `cack_psn`; replaced by SETH-MPR-002, which defines the field (decision 45)."]
pub const SETH_MPR_001: Clause = Clause(1065);
/// `SETH-MPR-002`: MUST, codec.
pub const SETH_MPR_002: Clause = Clause(1066);
/// `SETH-BITMAP-001`: MUST, device.
pub const SETH_BITMAP_001: Clause = Clause(1067);
/// `SETH-BITMAP-002`, its clauses (a) to (b) together: MUST, device.
pub const SETH_BITMAP_002: Clause = Clause(1068);
/// `SETH-BITMAP-002.a`: MUST, device.
pub const SETH_BITMAP_002_A: Clause = Clause(1069);
/// `SETH-BITMAP-002.b`: MUST, device.
pub const SETH_BITMAP_002_B: Clause = Clause(1070);
/// `CCS-LAYOUT-001`: MUST, device.
pub const CCS_LAYOUT_001: Clause = Clause(1071);
/// `CCS-RESV-001`: MUST, device.
pub const CCS_RESV_001: Clause = Clause(1072);
/// `CCS-TS-001`: MUST, device.
pub const CCS_TS_001: Clause = Clause(1073);
/// `CCS-OOO-001`: MUST, device.
pub const CCS_OOO_001: Clause = Clause(1074);
/// `CCS-BYTES-001`: MUST, device.
pub const CCS_BYTES_001: Clause = Clause(1075);
/// `NETH-LAYOUT-001`: MUST, device.
pub const NETH_LAYOUT_001: Clause = Clause(1076);
/// `NETH-RESV-001`: MUST, device.
pub const NETH_RESV_001: Clause = Clause(1077);
/// `NETH-TYPE-001`, its clauses (a) to (b) together: MUST, device.
pub const NETH_TYPE_001: Clause = Clause(1078);
/// `NETH-TYPE-001.a`: SHOULD, device.
pub const NETH_TYPE_001_A: Clause = Clause(1079);
/// `NETH-TYPE-001.b`: MUST, device.
pub const NETH_TYPE_001_B: Clause = Clause(1080);
/// `NETH-REASON-001`, its clauses (a) to (c) together: MUST, device.
pub const NETH_REASON_001: Clause = Clause(1081);
/// `NETH-REASON-001.a`: MUST, device.
pub const NETH_REASON_001_A: Clause = Clause(1082);
/// `NETH-REASON-001.b`: MUST, codec.
pub const NETH_REASON_001_B: Clause = Clause(1083);
/// `NETH-REASON-001.c`: MUST, codec.
pub const NETH_REASON_001_C: Clause = Clause(1084);
/// `NETH-REASON-002`, its clauses (a) to (b) together: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a restatement of SND-NACK-005, under which `UNEXP_EVENT` (0x19) is fatal: a requester that receives it moves the QP to the error state and retransmits nothing on its account (decision 44)."]
pub const NETH_REASON_002: Clause = Clause(1085);
/// `NETH-REASON-002.a`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a restatement of SND-NACK-005, under which `UNEXP_EVENT` (0x19) is fatal: a requester that receives it moves the QP to the error state and retransmits nothing on its account (decision 44)."]
pub const NETH_REASON_002_A: Clause = Clause(1086);
/// `NETH-REASON-002.b`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); a restatement of SND-NACK-005, under which `UNEXP_EVENT` (0x19) is fatal: a requester that receives it moves the QP to the error state and retransmits nothing on its account (decision 44)."]
pub const NETH_REASON_002_B: Clause = Clause(1087);
/// `NETH-VENDOR-001`, its clauses (a) to (b) together: MUST, device.
pub const NETH_VENDOR_001: Clause = Clause(1088);
/// `NETH-VENDOR-001.a`: SHOULD, device.
pub const NETH_VENDOR_001_A: Clause = Clause(1089);
/// `NETH-VENDOR-001.b`: MUST, device.
pub const NETH_VENDOR_001_B: Clause = Clause(1090);
/// `NETH-PSN-001`: MUST, device.
pub const NETH_PSN_001: Clause = Clause(1091);
/// `NETH-TS-001`: MUST, device.
pub const NETH_TS_001: Clause = Clause(1092);
/// `NETH-PDC-001`, its clauses (a) to (b) together: MUST, device.
pub const NETH_PDC_001: Clause = Clause(1093);
/// `NETH-PDC-001.a`: SHOULD, device.
pub const NETH_PDC_001_A: Clause = Clause(1094);
/// `NETH-PDC-001.b`: MUST, device.
pub const NETH_PDC_001_B: Clause = Clause(1095);
/// `NETH-CC-001`: SHOULD, device.
pub const NETH_CC_001: Clause = Clause(1096);
/// `PETH-LAYOUT-001`: MUST, device.
pub const PETH_LAYOUT_001: Clause = Clause(1097);
/// `PETH-RESV-001`: MUST, device.
pub const PETH_RESV_001: Clause = Clause(1098);
/// `PETH-PSN-001`: MUST, device.
pub const PETH_PSN_001: Clause = Clause(1099);
/// `PETH-RESP-001`: MUST, device.
pub const PETH_RESP_001: Clause = Clause(1100);
/// `PETH-FTYPE-001`, its clauses (a) to (b) together: MUST, device.
pub const PETH_FTYPE_001: Clause = Clause(1101);
/// `PETH-FTYPE-001.a`: SHOULD, device.
pub const PETH_FTYPE_001_A: Clause = Clause(1102);
/// `PETH-FTYPE-001.b`: MUST, device.
pub const PETH_FTYPE_001_B: Clause = Clause(1103);
/// `PETH-PDC-001`, its clauses (a) to (b) together: MUST, device.
pub const PETH_PDC_001: Clause = Clause(1104);
/// `PETH-PDC-001.a`: SHOULD, device.
pub const PETH_PDC_001_A: Clause = Clause(1105);
/// `PETH-PDC-001.b`: MUST, device.
pub const PETH_PDC_001_B: Clause = Clause(1106);
/// `ERTH-LAYOUT-001`: MUST, device.
pub const ERTH_LAYOUT_001: Clause = Clause(1107);
/// `ERTH-QPN-001`, its clauses (a) to (b) together: MUST, device.
pub const ERTH_QPN_001: Clause = Clause(1108);
/// `ERTH-QPN-001.a`: MUST, device.
pub const ERTH_QPN_001_A: Clause = Clause(1109);
/// `ERTH-QPN-001.b`: MUST, device.
pub const ERTH_QPN_001_B: Clause = Clause(1110);
/// `ERTH-RESV-001`: MUST, device.
pub const ERTH_RESV_001: Clause = Clause(1111);
/// `ERTH-OP-001`, its clauses (a) to (c) together: MUST, device.
pub const ERTH_OP_001: Clause = Clause(1112);
/// `ERTH-OP-001.a`: MUST, device.
pub const ERTH_OP_001_A: Clause = Clause(1113);
/// `ERTH-OP-001.b`: MUST, codec.
pub const ERTH_OP_001_B: Clause = Clause(1114);
/// `ERTH-OP-001.c`: MUST, codec.
pub const ERTH_OP_001_C: Clause = Clause(1115);
/// `ERTH-PORT-001`: MUST, device.
pub const ERTH_PORT_001: Clause = Clause(1116);
/// `ERTH-RESP-001`, its clauses (a) to (e) together: MUST, device.
pub const ERTH_RESP_001: Clause = Clause(1117);
/// `ERTH-RESP-001.a`: MUST, device.
pub const ERTH_RESP_001_A: Clause = Clause(1118);
/// `ERTH-RESP-001.b`: MUST, device.
pub const ERTH_RESP_001_B: Clause = Clause(1119);
/// `ERTH-RESP-001.c`: MUST, device.
pub const ERTH_RESP_001_C: Clause = Clause(1120);
/// `ERTH-RESP-001.d`: MUST, device.
pub const ERTH_RESP_001_D: Clause = Clause(1121);
/// `ERTH-RESP-001.e`: MUST, device.
pub const ERTH_RESP_001_E: Clause = Clause(1122);
/// `EETH-LAYOUT-001`: MUST, device.
pub const EETH_LAYOUT_001: Clause = Clause(1123);
/// `EETH-RESV-001`: MUST, device.
pub const EETH_RESV_001: Clause = Clause(1124);
/// `EETH-OP-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by EETH-OP-002, since a response carries the `op` of the request it answers (EETH-ECHO-001), which may be one that table 21 does not define."]
pub const EETH_OP_001: Clause = Clause(1125);
/// `EETH-OP-002`, its clauses (a) to (c) together: MUST, device.
pub const EETH_OP_002: Clause = Clause(1126);
/// `EETH-OP-002.a`: MUST, device.
pub const EETH_OP_002_A: Clause = Clause(1127);
/// `EETH-OP-002.b`: MUST, codec.
pub const EETH_OP_002_B: Clause = Clause(1128);
/// `EETH-OP-002.c`: MUST, codec.
pub const EETH_OP_002_C: Clause = Clause(1129);
/// `EETH-ECHO-001`: MUST, device.
pub const EETH_ECHO_001: Clause = Clause(1130);
/// `EETH-PORT-001`: MUST, device.
pub const EETH_PORT_001: Clause = Clause(1131);
/// `EETH-STATUS-001`, its clauses (a) to (b) together: MUST, device.
pub const EETH_STATUS_001: Clause = Clause(1132);
/// `EETH-STATUS-001.a`: MUST, device.
pub const EETH_STATUS_001_A: Clause = Clause(1133);
/// `EETH-STATUS-001.b`: SHOULD, device.
pub const EETH_STATUS_001_B: Clause = Clause(1134);
/// `EETH-DATA-001`, its clauses (a) to (b) together: MUST, device.
pub const EETH_DATA_001: Clause = Clause(1135);
/// `EETH-DATA-001.a`: SHOULD, device.
pub const EETH_DATA_001_A: Clause = Clause(1136);
/// `EETH-DATA-001.b`: MUST, device.
pub const EETH_DATA_001_B: Clause = Clause(1137);
/// `DETH-LAYOUT-001`: MUST, codec.
pub const DETH_LAYOUT_001: Clause = Clause(1138);
/// `DETH-RESV-001`: MUST, codec.
pub const DETH_RESV_001: Clause = Clause(1139);
/// `RDETH-LAYOUT-001`: MUST, codec.
pub const RDETH_LAYOUT_001: Clause = Clause(1140);
/// `RDETH-RESV-001`: MUST, codec.
pub const RDETH_RESV_001: Clause = Clause(1141);
/// `XRCETH-LAYOUT-001`: MUST, codec.
pub const XRCETH_LAYOUT_001: Clause = Clause(1142);
/// `XRCETH-RESV-001`: MUST, codec.
pub const XRCETH_RESV_001: Clause = Clause(1143);
/// `IETH-LAYOUT-001`: MUST, codec.
pub const IETH_LAYOUT_001: Clause = Clause(1144);
/// `ATOMIC-LAYOUT-001`: MUST, codec.
pub const ATOMIC_LAYOUT_001: Clause = Clause(1145);
/// `ATOMIC-WRITE-001`: MUST, codec.
pub const ATOMIC_WRITE_001: Clause = Clause(1146);
/// `FETH-LAYOUT-001`: MUST, codec.
pub const FETH_LAYOUT_001: Clause = Clause(1147);
/// `FETH-RESV-001`: MUST, codec.
pub const FETH_RESV_001: Clause = Clause(1148);
/// `FETH-SEL-001`: MUST, codec.
pub const FETH_SEL_001: Clause = Clause(1149);
/// `FETH-PLT-001`: MUST, codec.
pub const FETH_PLT_001: Clause = Clause(1150);
/// `CNP-LAYOUT-001`: MUST, codec.
pub const CNP_LAYOUT_001: Clause = Clause(1151);
/// `CNP-RESV-001`: MUST, codec.
pub const CNP_RESV_001: Clause = Clause(1152);
/// `CNP-BTH-001`, its clauses (a) to (b) together: MUST, codec.
pub const CNP_BTH_001: Clause = Clause(1153);
/// `CNP-BTH-001.a`: SHOULD, codec.
pub const CNP_BTH_001_A: Clause = Clause(1154);
/// `CNP-BTH-001.b`: MUST, codec.
pub const CNP_BTH_001_B: Clause = Clause(1155);
/// `PAY-PAD-001`: MUST, device.
pub const PAY_PAD_001: Clause = Clause(1156);
/// `PAY-PAD-002`, its clauses (a) to (c) together: MUST, device.
pub const PAY_PAD_002: Clause = Clause(1157);
/// `PAY-PAD-002.a`: SHOULD, device.
pub const PAY_PAD_002_A: Clause = Clause(1158);
/// `PAY-PAD-002.b`: MUST, device.
pub const PAY_PAD_002_B: Clause = Clause(1159);
/// `PAY-PAD-002.c`: MUST, codec.
pub const PAY_PAD_002_C: Clause = Clause(1160);
/// `PAY-PAD-003`: MUST, device.
pub const PAY_PAD_003: Clause = Clause(1161);
/// `PAY-LEN-001`: MUST, device.
pub const PAY_LEN_001: Clause = Clause(1162);
/// `PAY-LEN-002`: MUST, device.
pub const PAY_LEN_002: Clause = Clause(1163);
/// `PAY-NONE-001`: MUST, device.
pub const PAY_NONE_001: Clause = Clause(1164);
/// `ICRC-CALC-001`: MUST, device.
pub const ICRC_CALC_001: Clause = Clause(1165);
/// `ICRC-COVER-001`: MUST, device.
pub const ICRC_COVER_001: Clause = Clause(1166);
/// `ICRC-MASK-001`: MUST, device.
pub const ICRC_MASK_001: Clause = Clause(1167);
/// `ICRC-ORDER-001`: MUST, device.
pub const ICRC_ORDER_001: Clause = Clause(1168);
/// `ICRC-VERIFY-001`, its clauses (a) to (c) together: MUST, device.
pub const ICRC_VERIFY_001: Clause = Clause(1169);
/// `ICRC-VERIFY-001.a`: MUST, device.
pub const ICRC_VERIFY_001_A: Clause = Clause(1170);
/// `ICRC-VERIFY-001.b`: MUST, codec.
pub const ICRC_VERIFY_001_B: Clause = Clause(1171);
/// `ICRC-VERIFY-001.c`: MUST, codec.
pub const ICRC_VERIFY_001_C: Clause = Clause(1172);
/// `DEC-STRUCT-001`: MUST, codec.
pub const DEC_STRUCT_001: Clause = Clause(1173);
/// `DEC-ERR-001`: MUST, codec.
pub const DEC_ERR_001: Clause = Clause(1174);
/// `DEC-LOSSLESS-001`: MUST, codec.
pub const DEC_LOSSLESS_001: Clause = Clause(1175);
/// `DEC-VAL-001`, its clauses (a) to (b) together: MUST, codec.
pub const DEC_VAL_001: Clause = Clause(1176);
/// `DEC-VAL-001.a`: MUST, codec.
pub const DEC_VAL_001_A: Clause = Clause(1177);
/// `DEC-VAL-001.b`: MUST, codec.
pub const DEC_VAL_001_B: Clause = Clause(1178);
/// `DEC-JSON-001`: MUST, codec.
pub const DEC_JSON_001: Clause = Clause(1179);
/// `DEC-VLAN-001`: withdrawn.
#[deprecated = "Withdrawn in 0.1.0 (draft); replaced by DEC-VLAN-002, under which JSON output gives the tags as the adapter protocol's `fields` do (`vlans` and `vlan`) rather than as a list under `vlan`."]
pub const DEC_VLAN_001: Clause = Clause(1180);
/// `DEC-VLAN-002`: MUST, codec.
pub const DEC_VLAN_002: Clause = Clause(1181);
/// `DEC-LINK-001`: MUST, codec.
pub const DEC_LINK_001: Clause = Clause(1182);
/// `DEC-FCS-001`: MUST, codec.
pub const DEC_FCS_001: Clause = Clause(1183);
/// `DEC-CUT-001`: MUST, codec.
pub const DEC_CUT_001: Clause = Clause(1184);
/// `DEC-KIND-001`: MUST, codec.
pub const DEC_KIND_001: Clause = Clause(1185);
/// `DEC-EXIT-001`: MUST, codec.
pub const DEC_EXIT_001: Clause = Clause(1186);
/// `DEC-EXIT-002`: MUST, codec.
pub const DEC_EXIT_002: Clause = Clause(1187);
