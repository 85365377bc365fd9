//! Endpoint operations (`ERTH-*`, `EETH-*`): connectionless requests to the reserved QPN 2,
//! each answered at once on its EV with its `op` and `request_id`, the responder's ports and
//! a status that says whether it performed the operation; QPN 2 kept out of every MRC
//! connection (`ERTH-QPN-001`); and the requests the CPU half has the device send, whose
//! responses it is told of (`REC-IF-017`, `REC-IF-018`).

use openrdma_codec::{EethRepr, EndpointOp, ErthRepr};

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![("rcv-endpoint", rcv_endpoint), ("rec-endpoint-request", rec_endpoint_request)]
}

/// An endpoint request from the peer to `qpn`.
fn request(
    qpn: Qpn,
    op: u8,
    request_id: u32,
    f: impl FnOnce(&mut BthRepr, &mut ErthRepr),
) -> Packet {
    let mut bth = BthRepr::new(Opcode::MRC_ENDPOINT_REQUEST, qpn, Psn::ZERO);
    // The peer's ports 0 and 2 are up.
    let mut erth = ErthRepr::new(EndpointOp(op), 0b0101, request_id);
    f(&mut bth, &mut erth);
    Packet::EndpointRequest { bth, erth }
}

fn rcv_endpoint() -> Scenario {
    let mut r = Recorder::new(manifest(
        "rcv-endpoint",
        "Endpoint requests to QPN 2 — PORT_STATUS_UPDATE, EV_PROBE, an operation that does \
         not exist, and one with reserved bits and a BTH psn set — are each answered at once \
         on the request's EV with an endpoint response to QPN 2 that carries the request's \
         op and request_id, the device's four ports up, 24 zero data bytes and status 0, or \
         UNSUPPORTED_OP for the unknown operation. A request to another QPN and an endpoint \
         response, whose data bytes are not zero, are not answered. The NIC refuses a QP \
         numbered 2 and one facing QP 2: writes to either go nowhere, while QP 0x11 places \
         its write.",
        &[
            "ERTH-RESP-001",
            "ERTH-LAYOUT-001",
            "ERTH-OP-001",
            "ERTH-QPN-001",
            "EETH-LAYOUT-001",
            "EETH-ECHO-001",
            "EETH-OP-002",
            "EETH-STATUS-001",
            "EETH-PORT-001",
            "EETH-RESV-001",
            "EETH-DATA-001",
            "DEC-RESV-001",
            "OPC-PSN-002",
            "RCV-QP-001",
            "RCV-PLACE-003",
        ],
        &[Capability::Responder, Capability::Endpoint, Capability::Ipv4],
    ));
    setup(&mut r, 0, false);
    let to2 = Qpn::ENDPOINT;
    let answered: [(u64, u16, u8, u32, &[&str]); 3] = [
        (
            1_000,
            0,
            EndpointOp::PORT_STATUS_UPDATE.0,
            0x1000_0001,
            &[
                "ERTH-RESP-001",
                "EETH-ECHO-001",
                "EETH-PORT-001",
                "ERTH-LAYOUT-001",
                "EETH-LAYOUT-001",
                "EETH-RESV-001",
                "EETH-DATA-001",
            ],
        ),
        (2_000, 2, EndpointOp::EV_PROBE.0, 0x2000_0002, &["ERTH-RESP-001", "EETH-ECHO-001"]),
        (3_000, 1, 0x7F, 0x3000_0003, &["EETH-STATUS-001", "ERTH-OP-001", "EETH-OP-002"]),
    ];
    for (at, port, op, id, checks) in answered {
        r.checks(checks);
        let ev = 0xA000_0000 + u32::from(port) * 0x1_0000;
        r.inject(at, port, ev, &request(to2, op, id, |_, _| {}));
    }
    r.checks(&["DEC-RESV-001", "OPC-PSN-002", "ERTH-RESP-001"]);
    let odd = request(to2, EndpointOp::EV_PROBE.0, 0x4000_0004, |b, e| {
        b.psn = Psn::new(77);
        e.resv1 = 0xAB_CDEF;
        e.resv12 = 0xDEAD_BEEF;
    });
    r.inject(4_000, 3, 0xA003_0000, &odd);
    // Neither a request to another QPN nor a response is answered.
    r.checks(&["ERTH-QPN-001"]);
    r.inject(5_000, 0, 0xA000_0000, &request(Qpn::new(DUT_QP), 1, 0x5000_0005, |_, _| {}));
    // The response carries data this version gives no meaning: it is ignored with the rest.
    r.checks(&["ERTH-RESP-001", "EETH-DATA-001"]);
    let mut eeth = EethRepr::new(EndpointOp::EV_PROBE, 0b0101, 0x6000_0006);
    eeth.data = [0x5A; 24];
    let response = Packet::EndpointResponse {
        bth: BthRepr::new(Opcode::MRC_ENDPOINT_RESPONSE, to2, Psn::ZERO),
        eeth,
    };
    r.inject(6_000, 1, 0xA001_0000, &response);
    // ERTH-QPN-001: no MRC QP numbered 2, nor one facing QP 2; writes to them find no QP.
    r.checks(&["ERTH-QPN-001", "RCV-QP-001"]);
    r.host(7_000, HostCommand::CreateQp(qp(2, PEER_QP + 1, 0)));
    r.host(7_000, HostCommand::CreateQp(qp(DUT_QP + 2, 2, 0)));
    let one =
        |qpn: u32, va: u64| edit_qp(write(0, 0, Opcode::MRC_WRITE_ONLY, 0, 64, 64, va, None), qpn);
    r.inject(7_500, 2, 0xA002_0000, &one(2, REGION + 0x1_0000));
    r.inject(8_000, 3, 0xA003_0000, &one(DUT_QP + 2, REGION + 0x2_0000));
    r.checks(&["RCV-PLACE-003"]);
    r.inject(9_000, 0, 0xA000_0000, &one(DUT_QP, REGION));
    r.checks(&["ERTH-RESP-001", "EETH-ECHO-001"]);
    r.inject(10_000, 1, 0xA001_0000, &request(to2, 0, 0x7000_0007, |_, _| {}));
    done(r, 20_000)
}

/// The requests the CPU half commands, and the responses reported to it.
fn rec_endpoint_request() -> Scenario {
    let mut r = Recorder::new(manifest(
        "rec-endpoint-request",
        "The CPU half has the device send a PORT_STATUS_UPDATE and an EV_PROBE: each goes at \
         once on the EV named to QPN 2 with PSN 0, the op and request_id commanded, the \
         device's three ports up and zero reserved fields. An operation the ERTH does not \
         define is refused and nothing is sent. The peer's responses — a success, an \
         UNSUPPORTED_OP, and one for a request_id the device never sent — are each reported \
         to the CPU half with its EV, op, request_id, status and ports, and none is \
         answered.",
        &[
            "REC-IF-017",
            "REC-IF-018",
            "ERTH-PORT-001",
            "ERTH-RESV-001",
            "ERTH-OP-001",
            "ERTH-QPN-001",
            "ERTH-LAYOUT-001",
            "ERTH-RESP-001",
            "OPC-PSN-002",
        ],
        &[Capability::Endpoint, Capability::CpuSplit, Capability::Ipv4],
    ));
    r.paths((0..3).map(|_| Path { delay: 500, dark: None }).collect());
    let to2 = Qpn::ENDPOINT;
    let ev = |port: u32| Ev::new(0xA000_0000 + port * 0x1_0000);
    let response = |op: EndpointOp, status: u8, request_id: u32| {
        let eeth = EethRepr { status, ..EethRepr::new(op, 0b0110, request_id) };
        Packet::EndpointResponse {
            bth: BthRepr::new(Opcode::MRC_ENDPOINT_RESPONSE, to2, Psn::ZERO),
            eeth,
        }
    };
    let command =
        |op, port, request_id| CpuCommand::EndpointRequest { op, ev: ev(port), request_id };
    r.checks(&["REC-IF-017", "ERTH-PORT-001", "ERTH-RESV-001", "ERTH-QPN-001", "ERTH-LAYOUT-001"]);
    r.cpu(1_000, command(EndpointOp::PORT_STATUS_UPDATE, 1, 0x0E00_0001));
    r.cpu(2_000, command(EndpointOp::EV_PROBE, 2, 0x0E00_0002));
    // ERTH-OP-001: refused, nothing sent.
    r.cpu(2_500, command(EndpointOp(7), 0, 0x0E00_0003));
    r.checks(&["REC-IF-018", "ERTH-RESP-001"]);
    let answers = [
        (3_000, 1, EndpointOp::PORT_STATUS_UPDATE, EethRepr::SUCCESS, 0x0E00_0001),
        (3_500, 2, EndpointOp::EV_PROBE, EethRepr::UNSUPPORTED_OP, 0x0E00_0002),
        (4_000, 0, EndpointOp::EV_PROBE, EethRepr::SUCCESS, 0x0BAD_0001),
    ];
    for (at, port, op, status, id) in answers {
        r.inject(at, port_of(ev(port), 3), ev(port), &response(op, status, id));
    }
    done(r, 10_000)
}
