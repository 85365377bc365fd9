//! Errors of the model, split by who is at fault (after rustls): the peer
//! ([`PeerViolation`]), the caller ([`ApiMisuse`]) or the configuration ([`ConfigError`]).
//! [`Error`] holds any of them, for a caller that keeps one error type; each family
//! converts into it with `?`, and [`Error::requirement`] names the rule broken.
//! Every rejected input leaves the model's state exactly as it was; responses the
//! specification requires for a bad packet (a NACK for an out-of-window PSN, a transport
//! NAK for a bad key) are still sent.

use openrdma_codec::host::DoorbellReject;
use openrdma_codec::{Lkey, Msn, Opcode, Psn, Qpn, Rkey, Rqmsn, TemplateId};
use openrdma_device::CqId;

use crate::packet::{Unreceivable, UnsupportedPacket};

/// The remote peer broke the specification. Each variant names its requirement ID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PeerViolation {
    /// A packet for a QP that does not exist.
    #[error("[RCV-QP-001] packet for unknown QP {qpn}")]
    UnknownQp {
        /// Destination QP of the packet.
        qpn: Qpn,
    },
    /// A packet for a QP in the error state.
    #[error("[RCV-QP-002] packet for QP {qpn}, which is in the error state")]
    QpInError {
        /// The QP.
        qpn: Qpn,
    },
    /// An opcode the model does not accept in this direction.
    #[error("[RCV-OPC-001] QP {qpn}: opcode {opcode} is not accepted here")]
    UnexpectedOpcode {
        /// The QP.
        qpn: Qpn,
        /// The opcode.
        opcode: Opcode,
    },
    /// A data packet beyond the receive window; a NACK PSN_OOR_WINDOW was sent.
    #[error("[RCV-WIN-002] QP {qpn}: PSN {psn} is outside the window [{epsn}, {epsn}+{window})")]
    OutOfWindow {
        /// The QP.
        qpn: Qpn,
        /// The PSN.
        psn: Psn,
        /// Next expected PSN.
        epsn: Psn,
        /// Window size.
        window: u32,
    },
    /// Payload longer than the PMTU.
    #[error("[RCV-SEG-001] QP {qpn}: payload of {len} bytes exceeds the PMTU of {pmtu}")]
    PayloadTooLong {
        /// The QP.
        qpn: Qpn,
        /// Payload length.
        len: u32,
        /// The PMTU.
        pmtu: u32,
    },
    /// A FIRST or MIDDLE packet whose payload is not exactly one PMTU.
    #[error(
        "[RCV-SEG-002] QP {qpn}: {opcode} carries {len} bytes; FIRST and MIDDLE carry exactly the PMTU ({pmtu})"
    )]
    SegmentLength {
        /// The QP.
        qpn: Qpn,
        /// Opcode.
        opcode: Opcode,
        /// Payload length.
        len: u32,
        /// The PMTU.
        pmtu: u32,
    },
    /// RETH names no region, a region without remote write, or a range outside the region;
    /// the packet is discarded and a transport NAK (remote access error) sent.
    #[error(
        "[RCV-PLACE-002] QP {qpn}: write of {len} bytes at {va:#x} with rkey {rkey:#x} is outside every registered region"
    )]
    RemoteAccess {
        /// The QP.
        qpn: Qpn,
        /// RETH.rkey.
        rkey: Rkey,
        /// RETH.va.
        va: u64,
        /// Payload length.
        len: u32,
    },
    /// Packets of one message disagree (total length, QP, or more bytes than the total).
    #[error(
        "[RCV-MSG-001] QP {qpn}: packet of message {msn} is inconsistent with the message ({what})"
    )]
    MessageMismatch {
        /// The QP.
        qpn: Qpn,
        /// MSN.
        msn: Msn,
        /// What disagrees.
        what: &'static str,
    },
    /// A packet with a new PSN for a message whose flag is already written.
    #[error("[FLAG-LAST-002] QP {qpn}: new PSN {psn} for message {msn}, already retired; dropped")]
    AfterRetirement {
        /// The QP.
        qpn: Qpn,
        /// PSN.
        psn: Psn,
        /// MSN.
        msn: Msn,
    },
    /// An MSN too far beyond the retirement pointer for the window.
    #[error("[RCV-MSG-002] QP {qpn}: MSN {msn} is beyond the retirement window (next {next})")]
    MsnBeyondWindow {
        /// The QP.
        qpn: Qpn,
        /// MSN.
        msn: Msn,
        /// Next MSN to retire.
        next: Msn,
    },
    /// More Write-with-Immediate messages in flight than the negotiated limit; fatal.
    #[error(
        "[WWI-LIMIT-002] QP {qpn}: RQMSN {rqmsn} is more than {limit} beyond the last delivered immediate"
    )]
    WwiLimit {
        /// The QP.
        qpn: Qpn,
        /// RQMSN.
        rqmsn: Rqmsn,
        /// The limit.
        limit: u16,
    },
    /// A SACK acknowledges a PSN never sent.
    #[error(
        "[SND-SACK-003] QP {qpn}: SACK acknowledges PSN {psn}, but the next PSN to send is {snd_nxt}"
    )]
    SackBeyondSent {
        /// The QP.
        qpn: Qpn,
        /// The PSN.
        psn: Psn,
        /// Next PSN to send.
        snd_nxt: Psn,
    },
    /// A SACK whose bitmap offset is absurd.
    #[error("[SND-SACK-004] QP {qpn}: SACK bitmap offset {offset} lies outside any window")]
    SackOffset {
        /// The QP.
        qpn: Qpn,
        /// sack_offset.
        offset: i16,
    },
    /// A NACK for a PSN not in flight.
    #[error("[SND-NACK-001] QP {qpn}: NACK for PSN {psn}, not in flight [{snd_una}, {snd_nxt})")]
    NackUnknownPsn {
        /// The QP.
        qpn: Qpn,
        /// The PSN.
        psn: Psn,
        /// Oldest unacknowledged.
        snd_una: Psn,
        /// Next to send.
        snd_nxt: Psn,
    },
    /// A transport ACK for a message not yet sent.
    #[error("[SND-ACK-002] QP {qpn}: transport ACK for MSN {msn}, not yet sent")]
    AckBeyondSent {
        /// The QP.
        qpn: Qpn,
        /// MSN.
        msn: Msn,
    },
    /// An endpoint request addressed to a QPN other than 2; discarded unanswered.
    #[error("[ERTH-QPN-001] endpoint request to QP {qpn}; endpoint operations use QPN 2")]
    EndpointQpn {
        /// Destination QP of the request.
        qpn: Qpn,
    },
}

impl PeerViolation {
    /// The requirement ID the peer broke.
    pub fn requirement(&self) -> &'static str {
        match self {
            PeerViolation::UnknownQp { .. } => "RCV-QP-001",
            PeerViolation::QpInError { .. } => "RCV-QP-002",
            PeerViolation::UnexpectedOpcode { .. } => "RCV-OPC-001",
            PeerViolation::OutOfWindow { .. } => "RCV-WIN-002",
            PeerViolation::PayloadTooLong { .. } => "RCV-SEG-001",
            PeerViolation::SegmentLength { .. } => "RCV-SEG-002",
            PeerViolation::RemoteAccess { .. } => "RCV-PLACE-002",
            PeerViolation::MessageMismatch { .. } => "RCV-MSG-001",
            PeerViolation::AfterRetirement { .. } => "FLAG-LAST-002",
            PeerViolation::MsnBeyondWindow { .. } => "RCV-MSG-002",
            PeerViolation::WwiLimit { .. } => "WWI-LIMIT-002",
            PeerViolation::SackBeyondSent { .. } => "SND-SACK-003",
            PeerViolation::SackOffset { .. } => "SND-SACK-004",
            PeerViolation::NackUnknownPsn { .. } => "SND-NACK-001",
            PeerViolation::AckBeyondSent { .. } => "SND-ACK-002",
            PeerViolation::EndpointQpn { .. } => "ERTH-QPN-001",
        }
    }
}

/// The caller broke the model's contract.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ApiMisuse {
    /// A QP number that does not exist.
    #[error("no QP {0}")]
    UnknownQp(Qpn),
    /// A QP number already in use.
    #[error("QP {0} already exists")]
    DuplicateQp(Qpn),
    /// More QPs than `max_qps`.
    #[error("at most {0} QPs")]
    TooManyQps(u32),
    /// A QP configuration that cannot work.
    #[error("QP {qpn}: {reason}")]
    BadQp {
        /// The QP.
        qpn: Qpn,
        /// Why.
        reason: &'static str,
    },
    /// A QP numbered 2, or facing a peer QP numbered 2: QPN 2 is reserved for endpoint
    /// operations, and no MRC connection uses it (`ERTH-QPN-001`).
    #[error("QP {qpn} facing QP {peer_qpn}: QPN 2 is reserved for endpoint operations")]
    ReservedQpn {
        /// The QP.
        qpn: Qpn,
        /// Its peer.
        peer_qpn: Qpn,
    },
    /// A template that fails its own validation.
    #[error("template {template}: {reason}")]
    BadTemplate {
        /// Template ID.
        template: TemplateId,
        /// Why.
        reason: String,
    },
    /// A work request for a QP in the error state or otherwise unusable.
    #[error("QP {qpn}: {reason}")]
    BadWorkRequest {
        /// The QP.
        qpn: Qpn,
        /// Why.
        reason: &'static str,
    },
    /// A template whose local key does not name registered memory that covers its local
    /// region and lets the NIC read it (`TPL-KEY-001`).
    #[error("template {template}: [TPL-KEY-001] lkey {lkey:#x} {reason}")]
    TemplateKey {
        /// Template ID.
        template: TemplateId,
        /// The template's `local_lkey`.
        lkey: Lkey,
        /// Why the key does not do.
        reason: &'static str,
    },
    /// A region overlapping an existing key.
    #[error("rkey {0:#x} is already registered")]
    DuplicateRegion(Rkey),
    /// A local key registered twice.
    #[error("lkey {0:#x} is already registered")]
    DuplicateLocalKey(Lkey),
    /// A local key that is not registered.
    #[error("lkey {0:#x} is not registered")]
    UnknownLocalKey(Lkey),
    /// A completion queue number already in use.
    #[error("completion queue {0} already exists")]
    DuplicateCq(CqId),
    /// A completion queue that cannot be created.
    #[error("completion queue {cq}: {reason}")]
    BadCq {
        /// The queue.
        cq: CqId,
        /// Why.
        reason: &'static str,
    },
    /// A completion queue number that names no queue.
    #[error("no completion queue {0}")]
    UnknownCq(CqId),
    /// A consumer-register write that releases entries the NIC has not written.
    #[error(
        "completion queue {cq}: consumer count {consumed} releases entries not yet written \
         ({written} written, {released} released)"
    )]
    BadCqConsumer {
        /// The queue.
        cq: CqId,
        /// The value written.
        consumed: u32,
        /// Entries the NIC has written, modulo 2^32.
        written: u32,
        /// The consumer count before the write.
        released: u32,
    },
    /// An endpoint request for an operation ERTH table 21 does not define
    /// (`ERTH-OP-001`).
    #[error("endpoint operation {0} is not one of ERTH table 21 (ERTH-OP-001)")]
    UnknownEndpointOp(u8),
    /// Time went backwards.
    #[error("time went backwards: {now} < {last}")]
    TimeWentBackwards {
        /// The time given.
        now: u64,
        /// The latest time seen.
        last: u64,
    },
    /// The CPU half's deadline is still due once the timeouts due at `at` have fired: a
    /// drive loop would fire it at the same time forever (`API-TIME-002`).
    #[error("the CPU half's deadline, {deadline} ns, is not after {at} ns, when it was set")]
    DeadlineNotMoved {
        /// The time at which the timeouts fired.
        at: u64,
        /// The deadline the CPU half gave then.
        deadline: u64,
    },
}

impl ApiMisuse {
    /// The requirement ID of the model-interface rule the caller broke
    /// (`spec/model-interface.md`).
    pub fn requirement(&self) -> &'static str {
        match self {
            ApiMisuse::UnknownQp(_) => "API-QP-004",
            ApiMisuse::DuplicateQp(_) => "API-QP-001",
            ApiMisuse::TooManyQps(_) => "API-QP-002",
            ApiMisuse::BadQp { .. } => "API-QP-003",
            ApiMisuse::ReservedQpn { .. } => "ERTH-QPN-001",
            ApiMisuse::BadTemplate { .. } => "API-TPL-001",
            ApiMisuse::BadWorkRequest { .. } => "API-WR-001",
            ApiMisuse::TemplateKey { .. } => "API-TPL-001",
            ApiMisuse::DuplicateRegion(_) => "API-REGION-001",
            ApiMisuse::DuplicateLocalKey(_) | ApiMisuse::UnknownLocalKey(_) => "API-REGION-002",
            ApiMisuse::DuplicateCq(_) | ApiMisuse::BadCq { .. } => "API-CQ-001",
            ApiMisuse::UnknownCq(_) => "API-CQ-002",
            ApiMisuse::BadCqConsumer { .. } => "API-CQ-003",
            ApiMisuse::UnknownEndpointOp(_) => "ERTH-OP-001",
            ApiMisuse::TimeWentBackwards { .. } => "API-TIME-001",
            ApiMisuse::DeadlineNotMoved { .. } => "API-TIME-002",
        }
    }
}

/// A doorbell the NIC refused. The NIC also produced the error completion the
/// specification requires (`DB-REJECT-*`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("doorbell {token:#018x} rejected: {reject}")]
pub struct DoorbellRejected {
    /// The token value.
    pub token: u64,
    /// Why.
    pub reject: DoorbellReject,
}

/// Any error of a host command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    /// The caller broke the contract.
    #[error(transparent)]
    Misuse(#[from] ApiMisuse),
    /// A doorbell was rejected.
    #[error(transparent)]
    Doorbell(#[from] DoorbellRejected),
}

impl HostError {
    /// The requirement ID of the broken rule.
    pub fn requirement(&self) -> &'static str {
        match self {
            HostError::Misuse(m) => m.requirement(),
            HostError::Doorbell(d) => d.reject.requirement(),
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A field with an unusable value.
    #[error("configuration field `{field}`: {reason}")]
    Invalid {
        /// The field.
        field: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// A value the scenario format does not allow (`CONF-FMT-008`), as the boundary's
    /// check names it.
    #[error("configuration {0}")]
    Settings(#[from] openrdma_device::ManifestError),
}

/// An error from [`Nic::handle`](crate::Nic::handle).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// From a host command.
    #[error(transparent)]
    Host(HostError),
    /// From a packet, a CPU command or a timeout.
    #[error(transparent)]
    Packet(HostOrPeer),
}

/// An error from [`Nic::handle_packet`](crate::Nic::handle_packet): the peer broke a rule, or the caller did.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostOrPeer {
    /// The peer broke the specification.
    #[error(transparent)]
    Peer(#[from] PeerViolation),
    /// The caller broke the contract.
    #[error(transparent)]
    Misuse(#[from] ApiMisuse),
}

impl HostOrPeer {
    /// The requirement ID of the broken rule.
    pub fn requirement(&self) -> &'static str {
        match self {
            HostOrPeer::Peer(p) => p.requirement(),
            HostOrPeer::Misuse(m) => m.requirement(),
        }
    }
}

/// Any error of the model, as one type (rustls's shape): each family is a variant, and
/// every narrower error a `handle_*` method returns converts into it with `?`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The peer broke the specification.
    #[error(transparent)]
    Peer(#[from] PeerViolation),
    /// The caller broke the model's contract.
    #[error(transparent)]
    Misuse(#[from] ApiMisuse),
    /// The NIC refused a doorbell, and wrote the error completion the specification asks
    /// for.
    #[error(transparent)]
    Doorbell(#[from] DoorbellRejected),
    /// A configuration that cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A frame that reaches the model as no packet.
    #[error(transparent)]
    Unreceivable(#[from] Unreceivable),
}

impl Error {
    /// The requirement ID of the broken rule, where one names it: every peer violation,
    /// caller misuse, doorbell rejection and unreceivable frame has one; a configuration
    /// error has one when the scenario format's check found it (`CONF-FMT-008`).
    pub fn requirement(&self) -> Option<&'static str> {
        match self {
            Error::Peer(p) => Some(p.requirement()),
            Error::Misuse(m) => Some(m.requirement()),
            Error::Doorbell(d) => Some(d.reject.requirement()),
            Error::Config(c) => c.requirement(),
            Error::Unreceivable(u) => Some(u.requirement()),
        }
    }
}

impl From<HostError> for Error {
    fn from(e: HostError) -> Error {
        match e {
            HostError::Misuse(m) => Error::Misuse(m),
            HostError::Doorbell(d) => Error::Doorbell(d),
        }
    }
}

impl From<HostOrPeer> for Error {
    fn from(e: HostOrPeer) -> Error {
        match e {
            HostOrPeer::Peer(p) => Error::Peer(p),
            HostOrPeer::Misuse(m) => Error::Misuse(m),
        }
    }
}

impl From<InputError> for Error {
    fn from(e: InputError) -> Error {
        match e {
            InputError::Host(h) => h.into(),
            InputError::Packet(p) => p.into(),
        }
    }
}

impl From<UnsupportedPacket> for Error {
    fn from(e: UnsupportedPacket) -> Error {
        Error::Unreceivable(e.into())
    }
}

impl ConfigError {
    /// The requirement ID of the broken rule, when the scenario format's check found it
    /// (`CONF-FMT-008`); a value only the model cannot use names none.
    pub fn requirement(&self) -> Option<&'static str> {
        match self {
            ConfigError::Invalid { .. } => None,
            ConfigError::Settings(_) => Some("CONF-FMT-008"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_converts_and_keeps_its_requirement() {
        let qpn = Qpn::new(7);
        let peer: Error = HostOrPeer::Peer(PeerViolation::UnknownQp { qpn }).into();
        assert_eq!(peer.requirement(), Some("RCV-QP-001"));
        let misuse: Error = InputError::Host(ApiMisuse::UnknownQp(qpn).into()).into();
        assert_eq!(misuse, Error::Misuse(ApiMisuse::UnknownQp(qpn)));
        assert_eq!(misuse.requirement(), Some("API-QP-004"));
        let late: Error =
            InputError::Packet(ApiMisuse::TimeWentBackwards { now: 1, last: 2 }.into()).into();
        assert_eq!(late.requirement(), Some("API-TIME-001"));
        let config: Error = ConfigError::Invalid { field: "pmtu", reason: "zero" }.into();
        assert_eq!(config.requirement(), None);
        let settings: Error =
            ConfigError::Settings(openrdma_device::ManifestError::new("nic.pmtu", 0, "zero"))
                .into();
        assert_eq!(settings.requirement(), Some("CONF-FMT-008"));
        let frame: Error = UnsupportedPacket { opcode: Opcode(0x0c), reason: "a read" }.into();
        assert_eq!(frame.requirement(), Some("RCV-OPC-001"));
        assert!(frame.to_string().contains("not handled"), "{frame}");
    }
}
