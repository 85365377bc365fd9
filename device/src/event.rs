//! What a device produces besides frames (`NicEvent`): DMA writes, completion-flag writes,
//! completion entries and reports to the CPU half of recovery; and what the CPU half
//! commands (`CpuCommand`). `spec/conformance.md` section 1, `spec/recovery.md` section 3.

use std::sync::Arc;

use openrdma_codec::host::{COMPLETION_LEN, CompletionRepr};
use openrdma_codec::{EndpointOp, Ev, Msn, NackReason, Psn, Qpn};
use serde::{Deserialize, Serialize};

use crate::ev::{EvMark, EvState};
use crate::id::CqId;

/// The bytes of a packet's payload, or where to find them.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Payload {
    /// The bytes themselves (frames read from a wire or a capture). Serialized as hex.
    Bytes(#[serde(with = "crate::hex::hex_bytes")] Arc<[u8]>),
    /// `len` bytes of the sender's local memory at `addr`, to be read by DMA when the
    /// packet is transmitted. The simulator forwards this descriptor instead of copying.
    Host {
        /// Local virtual address of the first byte.
        addr: u64,
        /// Number of bytes.
        len: u32,
    },
}

impl Payload {
    /// An empty payload.
    #[inline]
    pub fn empty() -> Payload {
        Payload::Host { addr: 0, len: 0 }
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> u32 {
        match self {
            Payload::Bytes(b) => u32::try_from(b.len()).unwrap_or(u32::MAX),
            Payload::Host { len, .. } => *len,
        }
    }

    /// Whether the payload is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl core::fmt::Debug for Payload {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Payload::Bytes(b) => write!(f, "Bytes({} B)", b.len()),
            Payload::Host { addr, len } => write!(f, "Host({addr:#x}, {len} B)"),
        }
    }
}

/// Which side of a connection wrote a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The requester (sender) of the message.
    Requester,
    /// The responder (receiver) of the message.
    Responder,
}

/// A DMA write of received payload into local memory.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DmaWrite {
    /// QP that received it.
    pub qpn: Qpn,
    /// PSN of the packet.
    pub psn: Psn,
    /// MSN of the message it belongs to.
    pub msn: Msn,
    /// Destination address.
    pub va: u64,
    /// The bytes.
    pub payload: Payload,
}

/// A write of an 8-byte completion flag into GPU-visible memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FlagWrite {
    /// The QP.
    pub qpn: Qpn,
    /// Which side wrote it.
    pub side: Side,
    /// MSN of the message it completes.
    pub msn: Msn,
    /// Address of the flag word.
    pub addr: u64,
    /// The 64-bit value written (see `spec/host-interface.md`, `FLAG-*`).
    pub value: u64,
}

/// A completion entry for host software.
///
/// When the entry was written to a completion queue, `queue` says where, with the 32 bytes
/// written; they are then the entry, and `entry` is what they decode to. In the JSON of a
/// device's output `entry` may be left out beside `queue` (`CONF-ADP-017`); it is then
/// decoded from the bytes, and when both are given the scoreboard judges the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "CompletionEventJson")]
pub struct CompletionEvent {
    /// Which side produced it.
    pub side: Side,
    /// The entry.
    pub entry: CompletionRepr,
    /// Where the entry was written, and its bytes; `None` for an entry reported without a
    /// place in memory (a QP without a completion queue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<CqWrite>,
}

impl CompletionEvent {
    /// The entry as judged: decoded from the bytes written when there are any
    /// (`CONF-ADP-017`), else `entry`.
    pub fn written_entry(&self) -> CompletionRepr {
        match &self.queue {
            Some(q) => q.entry(),
            None => self.entry,
        }
    }
}

/// Where a completion entry was written (`CQE-RING-001`, `CQE-RING-003`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CqWrite {
    /// The completion queue.
    pub cq: CqId,
    /// The slot, `k mod N` for the queue's k-th entry.
    pub slot: u32,
    /// The address of the slot: the queue's base plus 32 × `slot`.
    pub addr: u64,
    /// The 32 bytes written, in hexadecimal (`CQE-LAYOUT-001`).
    #[serde(with = "hex_entry")]
    pub bytes: [u8; COMPLETION_LEN],
}

impl CqWrite {
    /// The entry the bytes hold. Every 32 bytes decode (the entry is lossless).
    pub fn entry(&self) -> CompletionRepr {
        CompletionRepr::parse(&self.bytes).unwrap_or_default()
    }
}

/// The JSON form of [`CompletionEvent`], with `entry` optional beside `queue`.
#[derive(Deserialize)]
struct CompletionEventJson {
    side: Side,
    #[serde(default)]
    entry: Option<CompletionRepr>,
    #[serde(default)]
    queue: Option<CqWrite>,
}

impl TryFrom<CompletionEventJson> for CompletionEvent {
    type Error = &'static str;

    fn try_from(j: CompletionEventJson) -> Result<Self, Self::Error> {
        let entry = match (j.entry, &j.queue) {
            (Some(e), _) => e,
            (None, Some(q)) => q.entry(),
            (None, None) => return Err("a completion needs `entry`, or `queue` with its bytes"),
        };
        Ok(CompletionEvent { side: j.side, entry, queue: j.queue })
    }
}

mod hex_entry {

    use openrdma_codec::host::COMPLETION_LEN;

    pub(super) fn serialize<S: serde::Serializer>(
        b: &[u8; COMPLETION_LEN],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::hex::to_hex(b))
    }

    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<[u8; COMPLETION_LEN], D::Error> {
        let s = <String as serde::Deserialize>::deserialize(d)?;
        if s.len() != 2 * COMPLETION_LEN {
            return Err(serde::de::Error::custom(format!(
                "a completion entry is {COMPLETION_LEN} bytes ({} hex digits), not {} digits",
                2 * COMPLETION_LEN,
                s.len()
            )));
        }
        let mut out = [0u8; COMPLETION_LEN];
        for (i, b) in out.iter_mut().enumerate() {
            *b = s.get(2 * i..2 * i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(
                || serde::de::Error::custom(format!("invalid hex digit at position {}", 2 * i)),
            )?;
        }
        Ok(out)
    }
}

/// Reports from the NIC half to the CPU half of recovery (`REC-IF-*`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "report")]
pub enum NicReport {
    /// The oldest unacknowledged PSN of a QP moved, or the QP became idle. The CPU resets
    /// its retry counter and re-arms (or disarms) the QP's timer.
    Progress {
        /// QP.
        qpn: Qpn,
        /// Oldest unacknowledged PSN (the next to be acknowledged).
        snd_una: Psn,
        /// Packets sent and not yet acknowledged.
        outstanding: u32,
        /// Messages whose packets were all sent but whose transport ACK has not arrived.
        awaiting_ack: u32,
    },
    /// The first packet was sent on an idle QP: the CPU arms the timer.
    Armed {
        /// QP.
        qpn: Qpn,
        /// Oldest unacknowledged PSN.
        snd_una: Psn,
    },
    /// A NACK arrived.
    Nack {
        /// QP.
        qpn: Qpn,
        /// NACKed PSN.
        psn: Psn,
        /// Reason.
        reason: NackReason,
    },
    /// A SACK marked an EV (ECN-like skip marks).
    EvMarked {
        /// QP.
        qpn: Qpn,
        /// EV.
        ev: Ev,
        /// The mark.
        mark: EvMark,
    },
    /// An EV changed state.
    EvState {
        /// QP.
        qpn: Qpn,
        /// EV.
        ev: Ev,
        /// New state.
        state: EvState,
    },
    /// A probe was answered.
    ProbeAnswered {
        /// QP.
        qpn: Qpn,
        /// The probed EV.
        ev: Ev,
        /// The mark in the answer.
        mark: EvMark,
    },
    /// A packet was retransmitted.
    Retransmitted {
        /// QP.
        qpn: Qpn,
        /// PSN.
        psn: Psn,
        /// Why.
        cause: RetransmitCause,
        /// The EV of the transmission presumed lost, if the NIC knows it. After a
        /// timeout the CPU half blames it (`REC-EV-002.a`).
        lost_ev: Option<Ev>,
    },
    /// The QP went to the error state.
    QpError {
        /// QP.
        qpn: Qpn,
        /// Why, as a requirement ID.
        requirement: String,
    },
    /// An endpoint response arrived at QPN 2 (`REC-IF-018`). Endpoint operations belong to
    /// no QP: the CPU half that sent the request matches the answer by `request_id`.
    EndpointResponse {
        /// The EV it arrived on.
        ev: Ev,
        /// The operation it answers.
        op: EndpointOp,
        /// The request it answers.
        request_id: u32,
        /// Its status (`EETH-STATUS-001`).
        status: u8,
        /// The responder's ports, port p in bit p (`EETH-PORT-001`).
        port_status: u32,
    },
}

impl NicReport {
    /// The QP the report concerns; `None` for an endpoint response, which concerns none.
    pub fn qpn(&self) -> Option<Qpn> {
        match *self {
            NicReport::Progress { qpn, .. }
            | NicReport::Armed { qpn, .. }
            | NicReport::Nack { qpn, .. }
            | NicReport::EvMarked { qpn, .. }
            | NicReport::EvState { qpn, .. }
            | NicReport::ProbeAnswered { qpn, .. }
            | NicReport::Retransmitted { qpn, .. }
            | NicReport::QpError { qpn, .. } => Some(qpn),
            NicReport::EndpointResponse { .. } => None,
        }
    }
}

/// Why a packet was retransmitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetransmitCause {
    /// A SACK showed that a later transmission on the same EV arrived (`SND-INFER-001`).
    SackInference,
    /// A NACK asked for it (`SND-NACK-*`).
    Nack,
    /// The CPU half ordered it after a timeout (`REC-RTO-003`).
    Timeout,
}

/// Commands from the CPU half of recovery to the NIC (`REC-IF-*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "cmd")]
pub enum CpuCommand {
    /// Retransmit one PSN (after a timeout), on a fresh EV.
    Retransmit {
        /// QP.
        qpn: Qpn,
        /// PSN.
        psn: Psn,
    },
    /// Send a probe on an EV.
    Probe {
        /// QP.
        qpn: Qpn,
        /// EV to probe.
        ev: Ev,
    },
    /// Set an EV's state (policy decisions: ASSUMED_BAD on timeout, DENIED/GOOD by a
    /// controller).
    SetEvState {
        /// QP.
        qpn: Qpn,
        /// EV.
        ev: Ev,
        /// New state.
        state: EvState,
    },
    /// Move a QP to the error state: outstanding work completes with `RETRY_EXCEEDED`.
    QpError {
        /// QP.
        qpn: Qpn,
    },
    /// Send an endpoint request to the peer's QPN 2 on an EV (`REC-IF-017`): a
    /// `PORT_STATUS_UPDATE` telling the peer which of this NIC's ports are up, or an
    /// `EV_PROBE` of a path that no QP needs to own.
    EndpointRequest {
        /// The operation: one of ERTH table 21 (`ERTH-OP-001`).
        op: EndpointOp,
        /// The EV to send it on.
        ev: Ev,
        /// Chosen by the CPU half; the response echoes it (`EETH-ECHO-001`).
        request_id: u32,
    },
}

/// Everything the NIC produces except packets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum NicEvent {
    /// Payload placed in memory.
    DmaWrite(DmaWrite),
    /// A completion flag written.
    FlagWrite(FlagWrite),
    /// A completion entry.
    Completion(CompletionEvent),
    /// A report to the CPU half.
    Report(NicReport),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CONF-ADP-013: a payload is written as two lower-case hexadecimal digits per byte, and
    /// read in either case; a sign, an odd count or another character is refused.
    #[test]
    fn payload_bytes_are_hex_two_digits_per_byte() {
        let p = Payload::Bytes(Arc::from(vec![0x00, 0xAB, 0xFF]));
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, r#"{"bytes":"00abff"}"#);
        assert_eq!(serde_json::from_str::<Payload>(&json).unwrap(), p);
        assert_eq!(serde_json::from_str::<Payload>(r#"{"bytes":"00ABFf"}"#).unwrap(), p);
        for bad in ["+f", "-1", "0", "0 ", "zz", "0x"] {
            let json = format!(r#"{{"bytes":"{bad}"}}"#);
            assert!(serde_json::from_str::<Payload>(&json).is_err(), "{bad:?} accepted");
        }
    }
}
