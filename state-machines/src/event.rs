//! Inputs and outputs of the model. All are public, serializable enums, so that a trace
//! can drive the model and record what it did.

use openrdma_codec::host::{COMPLETION_LEN, CompletionRepr, Template, WorkRequest};
use openrdma_codec::{EndpointOp, NackReason, Psn, Qpn};
use serde::{Deserialize, Serialize};

use crate::config::{CqConfig, QpConfig};
use crate::ev::{EvMark, EvState};
use crate::packet::{Packet, Payload};
use crate::time::Timestamp;

/// A registered memory region that remote writes may target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Region {
    /// The remote key that names the region in RETH.
    pub rkey: u32,
    /// First byte.
    pub base: u64,
    /// Length in bytes.
    pub len: u64,
    /// Whether remote writes are allowed.
    pub remote_write: bool,
}

impl Region {
    /// Whether `[va, va + len)` lies inside the region.
    pub fn contains(&self, va: u64, len: u64) -> bool {
        va >= self.base
            && va.checked_add(len).is_some_and(|end| end <= self.base.saturating_add(self.len))
    }
}

/// Memory registered for the NIC to read locally: the payload source of the messages a
/// template sends, named by the template's `local_lkey` (`TPL-KEY-001`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalRegion {
    /// The local key that names the registration.
    pub lkey: u32,
    /// First byte.
    pub base: u64,
    /// Length in bytes.
    pub len: u64,
    /// Whether the NIC may read the memory (`TPL-KEY-001` requires it of a template's
    /// local region).
    pub local_read: bool,
}

impl LocalRegion {
    /// Whether `[va, va + len)` lies inside the registration.
    pub fn contains(&self, va: u64, len: u64) -> bool {
        va >= self.base
            && va.checked_add(len).is_some_and(|end| end <= self.base.saturating_add(self.len))
    }
}

/// Commands from host software (configuration) and from the GPU (doorbells).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "command")]
pub enum HostCommand {
    /// Create a queue pair.
    CreateQp(QpConfig),
    /// Register a memory region for remote writes.
    RegisterRegion(Region),
    /// Register memory for the NIC to read under a local key (`TPL-KEY-001`).
    RegisterLocal(LocalRegion),
    /// End a local registration. Every installed template that names the key is disabled
    /// first (`TPL-INSTALL-004`, `TPL-KEY-002`).
    DeregisterLocal {
        /// The local key.
        lkey: u32,
    },
    /// Create a completion queue (`CQE-SETUP-001`).
    CreateCq(CqConfig),
    /// Designate the device error completion queue, which receives the completions of
    /// tokens whose rejection names no template (`CQE-REJECT-002`, `CQE-SETUP-003`).
    SetErrorCq {
        /// The queue.
        cq: u32,
    },
    /// A write to a completion queue's consumer register: the total number of entries the
    /// consumer has consumed, modulo 2^32, which releases their slots (`CQE-RING-004`).
    CqConsumer {
        /// The queue.
        cq: u32,
        /// Entries consumed since the queue was created, modulo 2^32.
        consumed: u32,
    },
    /// Install a doorbell template, replacing any under its ID, or disable or re-enable
    /// one: a template equal to the installed one but for `enabled` keeps the expected
    /// sequence number; any other installs the template and sets it to 0
    /// (`TPL-INSTALL-003`). The change takes effect before the next input (`TPL-INSTALL-002`).
    SetTemplate(Template),
    /// The GPU's 8-byte doorbell token, as the little-endian 64-bit value it stored.
    Doorbell {
        /// The token value.
        token: u64,
    },
    /// A work request built by the CPU (the non-GPU path, for comparison).
    PostWrite(WorkRequest),
    /// A write to a doorbell register as it crosses PCIe, whatever its size and alignment:
    /// only one aligned write of all 8 bytes carries a token (`DB-MMIO-002`).
    DoorbellWrite(DoorbellWrite),
}

/// A write to a doorbell register, as it crosses PCIe: the bytes a write transaction
/// carries to the NIC's doorbell area, placed by register and byte offset. A harness for a
/// device on a bus model maps it to one bus write (a write with byte enables missing is
/// given as the shorter write of the bytes that are enabled).
///
/// The NIC acts on a write only when it is one naturally aligned write of all 8 bytes of
/// one register, and then on the 64 bits alone, whichever register received them
/// (`DB-MMIO-002`, `DB-MMIO-003`); byte `k` of the write carries bits `8k+7:8k` of the
/// token (`DB-FORMAT-002`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DoorbellWrite {
    /// The doorbell register written: the index of its 8-byte-aligned address in the
    /// NIC's doorbell area.
    pub register: u32,
    /// The byte of the register at which the write starts: 0 for an aligned write.
    pub offset: u8,
    /// The bytes written, the byte at the lowest address first; a write longer than the
    /// rest of the register runs on into the next ones.
    #[serde(with = "crate::packet::hex_bytes")]
    pub bytes: Vec<u8>,
}

impl DoorbellWrite {
    /// A token as a producer writes it (`DB-MMIO-001`): one aligned 8-byte write of the
    /// token's bytes, little-endian (`DB-FORMAT-002`).
    pub fn of_token(register: u32, token: u64) -> DoorbellWrite {
        DoorbellWrite { register, offset: 0, bytes: token.to_le_bytes().to_vec() }
    }

    /// The token this write carries: one exactly when it is one aligned write of all 8
    /// bytes of its register (`DB-MMIO-002`), read little-endian, byte `k` giving bits
    /// `8k+7:8k` (`DB-FORMAT-002`). The register plays no part (`DB-MMIO-003`).
    pub fn token(&self) -> Option<u64> {
        let bytes: [u8; 8] = self.bytes.as_slice().try_into().ok()?;
        (self.offset == 0).then(|| u64::from_le_bytes(bytes))
    }
}

/// A packet to send, with the entropy value (path) chosen for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transmit {
    /// The local QP sending it.
    pub qpn: Qpn,
    /// Entropy value: selects the path.
    pub ev: u32,
    /// The packet.
    pub packet: Packet,
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
    pub msn: u16,
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
    pub msn: u16,
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
    pub cq: u32,
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
    use std::fmt::Write as _;

    use openrdma_codec::host::COMPLETION_LEN;

    pub(super) fn serialize<S: serde::Serializer>(
        b: &[u8; COMPLETION_LEN],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut out = String::with_capacity(2 * COMPLETION_LEN);
        for x in b {
            let _ = write!(out, "{x:02x}");
        }
        s.serialize_str(&out)
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
        ev: u32,
        /// The mark.
        mark: EvMark,
    },
    /// An EV changed state.
    EvState {
        /// QP.
        qpn: Qpn,
        /// EV.
        ev: u32,
        /// New state.
        state: EvState,
    },
    /// A probe was answered.
    ProbeAnswered {
        /// QP.
        qpn: Qpn,
        /// The probed EV.
        ev: u32,
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
        /// timeout the CPU half blames it (`EV-BAD-002`).
        lost_ev: Option<u32>,
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
        ev: u32,
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
        ev: u32,
    },
    /// Set an EV's state (policy decisions: ASSUMED_BAD on timeout, DENIED/GOOD by a
    /// controller).
    SetEvState {
        /// QP.
        qpn: Qpn,
        /// EV.
        ev: u32,
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
        ev: u32,
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

/// An input to a NIC, as a trace records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "input")]
pub enum NicInput {
    /// A host command.
    Host {
        /// When.
        at: Timestamp,
        /// What.
        command: HostCommand,
    },
    /// A packet from the wire.
    Packet {
        /// When.
        at: Timestamp,
        /// Its entropy value.
        ev: u32,
        /// The packet.
        packet: Packet,
    },
    /// A command from the CPU half.
    Cpu {
        /// When.
        at: Timestamp,
        /// What.
        command: CpuCommand,
    },
    /// Time passes.
    Timeout {
        /// Now.
        at: Timestamp,
    },
}
