//! What a decoded frame is checked against: [`DecodedFrame::validate`] and
//! [`DecodedFrame::rules`].

use alloc::vec::Vec;

use super::*;

impl DecodedFrame<'_> {
    /// Checks the decoded headers against the specification. Structural problems are in
    /// `error`; this reports what decoded but breaks a rule.
    pub fn validate(&self) -> Vec<Violation> {
        let mut out = Vec::new();
        self.validate_outer(&mut out);
        if let (Some(bth), Some(bth_at)) = (&self.bth, self.layout.bth) {
            self.validate_packet(bth, bth_at, &mut out);
        }
        out
    }

    /// The layers below the BTH: Ethernet, the tags, IP and UDP.
    fn validate_outer(&self, out: &mut Vec<Violation>) {
        let l = &self.layout;
        if let Some(eth) = &self.eth {
            eth.validate(0, out);
        }
        for (i, vlan) in self.vlans.iter().enumerate() {
            let at = l.link_len + i * VLAN_TAG_LEN;
            vlan.validate(at, out);
            if i == 0 && self.vlans.len() > 1 {
                out.push(violation(
                    "ENC-VLAN-002",
                    Header::Vlan,
                    "ethertype",
                    Some(at + 2),
                    vlan.ethertype.0.into(),
                    "a sender uses a single tag, but a second tag follows",
                ));
            }
        }
        if let (Some(ip), Some(at)) = (&self.ip, l.ip) {
            match ip {
                IpRepr::V4(r) => r.validate(at, out),
                IpRepr::V6(r) => r.validate(at, out),
            }
        }
        if let (Some(udp), Some(at)) = (&self.udp, l.udp) {
            udp.validate(at, out);
            if let UdpChecksum::Bad { found, .. } = self.udp_checksum() {
                // ENC-UDP-003 over IPv4, ENC-UDP-005 over IPv6: the verdict the decoder
                // reached over the whole datagram.
                let requirement = match self.ip {
                    Some(IpRepr::V6(_)) => "ENC-UDP-005",
                    _ => "ENC-UDP-003",
                };
                out.push(Violation {
                    requirement,
                    header: Header::Udp,
                    field: "checksum",
                    offset: Some(at + 6),
                    value: found.into(),
                    rule: "a non-zero UDP checksum must be correct",
                });
            }
        }
    }

    /// The RoCEv2 packet from its BTH at `bth_at`: the BTH, the extension headers, and the
    /// frame-wide rules of [`FRAME_RULES`] that concern them, the payload, pad and ICRC.
    fn validate_packet(&self, bth: &BthRepr, bth_at: usize, out: &mut Vec<Violation>) {
        let l = &self.layout;
        bth.validate(bth_at, out);
        self.ext.validate(&l.ext, out);
        let info = bth.opcode.info();
        if info.is_none() {
            out.push(violation(
                "OPC-UNKNOWN-001",
                Header::Bth,
                "opcode",
                Some(bth_at),
                bth.opcode.0.into(),
                "opcode is not in the opcode table",
            ));
        }
        if let (true, Some(ip), Some(ip_at)) = (bth.opcode.is_mrc_write(), &self.ip, l.ip) {
            let (ecn, at) = match ip {
                IpRepr::V4(v4) => (v4.ecn, ip_at + 1),
                IpRepr::V6(v6) => (v6.traffic_class & 0b11, ip_at + 1),
            };
            if ecn == 0 {
                out.push(violation(
                    "ENC-ECN-001",
                    match ip {
                        IpRepr::V4(_) => Header::Ipv4,
                        IpRepr::V6(_) => Header::Ipv6,
                    },
                    "ecn",
                    Some(at),
                    0,
                    "an MRC write should be ECN-capable (ECT(0) or ECT(1))",
                ));
            }
        }
        if bth.ts && bth.opcode.is_mrc() && !bth.opcode.is_mrc_write() {
            out.push(violation(
                "TSETH-PRESENT-002",
                Header::Bth,
                "ts",
                Some(bth_at + 8),
                1,
                "ts may be set only on MRC write packets",
            ));
        }
        if bth.opcode == Opcode::CNP {
            // CNP-BTH-001 (SHOULD): a CNP carries BTH `becn` 1 and `psn` 0. Its `dest_qp`,
            // the QP whose traffic was marked, is beyond what the frame alone can show.
            if !bth.becn {
                out.push(violation(
                    "CNP-BTH-001",
                    Header::Bth,
                    "becn",
                    Some(bth_at + 4),
                    0,
                    "a CNP should set becn to 1",
                ));
            }
            if bth.psn.value() != 0 {
                out.push(violation(
                    "CNP-BTH-001",
                    Header::Bth,
                    "psn",
                    Some(bth_at + 9),
                    bth.psn.value().into(),
                    "a CNP should carry PSN 0",
                ));
            }
        }
        if let (Opcode::MRC_ACKNOWLEDGE, Some(aeth), Some(&(_, at))) =
            (bth.opcode, &self.ext.aeth, l.ext.first())
        {
            let ok =
                matches!(aeth.kind(), crate::AethKind::Ack) || matches!(aeth.syndrome, 0x61..=0x63);
            if !ok {
                out.push(violation(
                    "AETH-MRC-001",
                    Header::Aeth,
                    "syndrome",
                    Some(at),
                    aeth.syndrome.into(),
                    "an MRC transport ACK is an ACK or a NAK 0x61-0x63",
                ));
            }
        }
        if bth.opcode.is_atomic_write() && self.payload.len() != 8 && !self.is_truncated() {
            out.push(violation(
                "ATOMIC-WRITE-001",
                Header::Payload,
                "payload",
                l.payload,
                self.payload.len() as u64,
                "an ATOMIC WRITE carries exactly 8 bytes of payload",
            ));
        }
        if let Some(i) = info {
            if i.payload == PayloadRule::None && !self.payload.is_empty() {
                out.push(violation(
                    "PAY-NONE-001",
                    Header::Payload,
                    "payload",
                    l.payload,
                    self.payload.len() as u64,
                    "this opcode carries no payload",
                ));
            }
        }
        if (self.payload.len() + self.pad.len()) % 4 != 0 && self.error.is_none() {
            out.push(violation(
                "PAY-PAD-001",
                Header::Bth,
                "pad_count",
                Some(bth_at + 1),
                bth.pad_count.into(),
                "payload plus pad must be a multiple of 4 bytes",
            ));
        }
        if self.pad.iter().any(|b| *b != 0) {
            out.push(violation(
                "PAY-PAD-002",
                Header::Payload,
                "pad",
                l.icrc.map(|i| i - self.pad.len()),
                self.pad.iter().fold(0u64, |a, b| a << 8 | u64::from(*b)),
                "pad bytes should be zero",
            ));
        }
        if let IcrcStatus::Bad { found, .. } = self.icrc {
            out.push(violation(
                "ICRC-VERIFY-001",
                Header::Icrc,
                "icrc",
                l.icrc,
                found.into(),
                "the ICRC does not match the packet",
            ));
        }
    }

    /// The requirements a checker holds a frame with these headers to: those
    /// [`Self::validate`] checks — the `RULES` of each header present (for the BTH, those
    /// of its opcode's class, [`BthRepr::rules`]) and the frame-wide rules of
    /// [`FRAME_RULES`] that concern the headers present — and those whose decode checks the
    /// frame passed ([`DECODE_RULES`], [`DecodeError::requirement`]). A frame of the same
    /// shape that breaks one of its rules, whatever its values, breaks one of these.
    pub fn rules(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        if self.eth.is_some() {
            out.extend_from_slice(EthernetRepr::RULES);
        }
        if !self.vlans.is_empty() {
            out.extend_from_slice(VlanRepr::RULES);
            out.push("ENC-VLAN-002");
        }
        match &self.ip {
            Some(IpRepr::V4(_)) => {
                out.extend_from_slice(Ipv4Repr::RULES);
                out.push("ENC-IPV4-005");
            }
            Some(IpRepr::V6(_)) => {
                out.extend_from_slice(Ipv6Repr::RULES);
                out.push("ENC-IPV6-002");
            }
            None => {}
        }
        if self.ip.is_some() {
            out.push("ENC-LEN-002");
        }
        if self.udp.is_some() {
            out.extend_from_slice(UdpRepr::RULES);
            out.push("ENC-LEN-001");
            out.push(match &self.ip {
                Some(IpRepr::V6(_)) => "ENC-UDP-005",
                _ => "ENC-UDP-003",
            });
        }
        let Some(bth) = &self.bth else { return out };
        out.extend_from_slice(bth.rules());
        out.extend_from_slice(&[
            "ENC-LEN-004",
            "OPC-UNKNOWN-001",
            "PAY-PAD-001",
            "PAY-PAD-002",
            "PAY-PAD-003",
            "ICRC-VERIFY-001",
        ]);
        // Only a packet whose opcode calls for extension headers can end inside one; a pad
        // the packet has no room for is PAY-PAD-003 whatever the opcode.
        if bth.opcode.info().is_some_and(|i| !i.headers.is_empty()) {
            out.push("ENC-FRAME-001");
        }
        if bth.opcode.is_mrc() && !bth.opcode.is_mrc_write() {
            out.push("TSETH-PRESENT-002");
        }
        if bth.opcode.is_mrc_write() && self.ip.is_some() {
            out.push("ENC-ECN-001");
        }
        if bth.opcode == Opcode::MRC_ACKNOWLEDGE {
            out.push("AETH-MRC-001");
        }
        if bth.opcode == Opcode::CNP {
            out.push("CNP-BTH-001");
        }
        if bth.opcode.is_atomic_write() {
            out.push("ATOMIC-WRITE-001");
        }
        if bth.opcode.info().is_some_and(|i| i.payload == PayloadRule::None) {
            out.push("PAY-NONE-001");
        }
        self.ext.rules(&mut out);
        // Each once, in the order first met (the Ethernet header and a tag share one).
        let mut seen = Vec::with_capacity(out.len());
        out.retain(|id| {
            let new = !seen.contains(id);
            seen.push(*id);
            new
        });
        out
    }
}

/// The requirements that [`DecodedFrame::validate`] checks on the frame as a whole, beyond
/// each header's own `RULES`: a second VLAN tag, the UDP checksum, the ECN field of an MRC
/// write, the opcode, `ts` outside an MRC write, the syndrome of an MRC transport ACK, the
/// BTH of a CNP, the payload of an ATOMIC WRITE, payload and pad, and the ICRC.
pub const FRAME_RULES: &[&str] = &[
    "ENC-VLAN-002",
    "ENC-UDP-003",
    "ENC-UDP-005",
    "ENC-ECN-001",
    "OPC-UNKNOWN-001",
    "TSETH-PRESENT-002",
    "AETH-MRC-001",
    "CNP-BTH-001",
    "ATOMIC-WRITE-001",
    "PAY-NONE-001",
    "PAY-PAD-001",
    "PAY-PAD-002",
    "ICRC-VERIFY-001",
];

/// A violation of `requirement` by `field` of `header`.
fn violation(
    requirement: &'static str,
    header: Header,
    field: &'static str,
    offset: Option<usize>,
    value: u64,
    rule: &'static str,
) -> Violation {
    Violation { requirement, header, field, offset, value, rule }
}
