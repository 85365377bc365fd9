//! Endpoint operations: requests and responses to QPN 2 (`ERTH-*`, `EETH-*`), answered
//! and sent for the NIC as a whole rather than for one QP.

use super::*;

impl Nic {
    /// Answers an endpoint request (`ERTH-RESP-001`): at once, once, on the request's EV, to
    /// QPN 2, echoing its `op` and `request_id` (`EETH-ECHO-001`), with this NIC's ports
    /// (`EETH-PORT-001`) and 24 zero bytes of data (`EETH-DATA-001`). `PORT_STATUS_UPDATE`
    /// and `EV_PROBE` succeed; any other `op` is answered `UNSUPPORTED_OP`
    /// (`EETH-STATUS-001`, `EETH-OP-002`). A request to another QPN is discarded
    /// (`ERTH-QPN-001`).
    pub(super) fn on_endpoint_request(
        &mut self,
        ev: Ev,
        bth: &BthRepr,
        erth: &ErthRepr,
    ) -> Result<(), HostOrPeer> {
        if bth.dest_qp != Qpn::ENDPOINT {
            self.stats.violations += 1;
            return Err(PeerViolation::EndpointQpn { qpn: bth.dest_qp }.into());
        }
        let status = match erth.op {
            EndpointOp::PORT_STATUS_UPDATE => {
                self.peer_ports = Some(erth.port_status);
                EethRepr::SUCCESS
            }
            // The answer, on the probe's EV, is the operation.
            EndpointOp::EV_PROBE => EethRepr::SUCCESS,
            _ => EethRepr::UNSUPPORTED_OP,
        };
        let eeth = EethRepr { status, ..EethRepr::new(erth.op, self.ports_up, erth.request_id) };
        // OPC-PSN-002: endpoint responses carry PSN 0.
        let bth = BthRepr::new(Opcode::MRC_ENDPOINT_RESPONSE, Qpn::ENDPOINT, Psn::ZERO);
        self.ctrl.push_back(Transmit {
            qpn: Qpn::ENDPOINT,
            ev,
            packet: Packet::EndpointResponse { bth, eeth },
        });
        self.stats.endpoint_responses += 1;
        Ok(())
    }

    /// Sends the endpoint request the CPU half commands (`REC-IF-017`): at once, on the
    /// EV named, to QPN 2 (`ERTH-QPN-001`) with PSN 0 (`OPC-PSN-002`), carrying this NIC's
    /// ports (`ERTH-PORT-001`) and zero reserved fields (`ERTH-RESV-001`). An operation
    /// the ERTH does not define is refused and nothing is sent (`ERTH-OP-001`).
    pub(super) fn send_endpoint_request(
        &mut self,
        op: EndpointOp,
        ev: Ev,
        request_id: u32,
    ) -> Result<(), ApiMisuse> {
        if !op.is_known() {
            return Err(ApiMisuse::UnknownEndpointOp(op.0));
        }
        let erth = ErthRepr::new(op, self.ports_up, request_id);
        let bth = BthRepr::new(Opcode::MRC_ENDPOINT_REQUEST, Qpn::ENDPOINT, Psn::ZERO);
        self.ctrl.push_back(Transmit {
            qpn: Qpn::ENDPOINT,
            ev,
            packet: Packet::EndpointRequest { bth, erth },
        });
        Ok(())
    }

    /// Reports an endpoint response to the CPU half, which sent the requests and matches
    /// the answers (`REC-IF-018`); a response is never answered (`ERTH-RESP-001`). One
    /// to another QPN is discarded (`ERTH-QPN-001`).
    pub(super) fn on_endpoint_response(
        &mut self,
        ev: Ev,
        bth: &BthRepr,
        eeth: &EethRepr,
    ) -> Result<(), HostOrPeer> {
        if bth.dest_qp != Qpn::ENDPOINT {
            self.stats.violations += 1;
            return Err(PeerViolation::EndpointQpn { qpn: bth.dest_qp }.into());
        }
        self.events.push_back(NicEvent::Report(NicReport::EndpointResponse {
            ev,
            op: eeth.op,
            request_id: eeth.request_id,
            status: eeth.status,
            port_status: eeth.port_status,
        }));
        Ok(())
    }
}
