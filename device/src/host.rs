//! What host software and the GPU give a device (`HostCommand`): queue pairs, memory
//! regions, local keys, completion queues, templates, doorbell tokens and doorbell-register
//! writes, consumer-register writes and work requests (`spec/conformance.md` section 1,
//! `spec/host-interface.md`).

use openrdma_codec::host::{Template, WorkRequest};
use openrdma_codec::{Ev, Lkey, Psn, Qpn, Rkey};
use serde::{Deserialize, Serialize};

use crate::id::{CqId, DomainId};

/// A registered memory region that remote writes may target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Region {
    /// The remote key that names the region in RETH.
    pub rkey: Rkey,
    /// First byte.
    pub base: u64,
    /// Length in bytes.
    pub len: u64,
    /// Whether remote writes are allowed.
    pub remote_write: bool,
}

impl Region {
    /// Whether `[va, va + len)` lies inside the region.
    #[inline]
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
    pub lkey: Lkey,
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
    #[inline]
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
        lkey: Lkey,
    },
    /// Create a completion queue (`CQE-SETUP-001`).
    CreateCq(CqConfig),
    /// Designate the device error completion queue, which receives the completions of
    /// tokens whose rejection names no template (`CQE-REJECT-002`, `CQE-SETUP-003`).
    SetErrorCq {
        /// The queue.
        cq: CqId,
    },
    /// A write to a completion queue's consumer register: the total number of entries the
    /// consumer has consumed, modulo 2^32, which releases their slots (`CQE-RING-004`).
    CqConsumer {
        /// The queue.
        cq: CqId,
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
    #[serde(with = "crate::hex::hex_bytes")]
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

/// How the sender chooses an entropy value (a path) for each packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprayPolicy {
    /// Cycle through the usable EVs of the profile in order.
    #[default]
    RoundRobin,
    /// Pick a usable EV uniformly at random (seeded).
    Random,
    /// Always the first usable EV: one path per QP, the baseline without spraying.
    Fixed,
    /// Skew-aware: prefer EVs whose measured round trip is short, so that packets sent
    /// together arrive close together and the receive window is not stretched by a slow
    /// path. Falls back to round robin until every EV has an RTT sample.
    SkewAware,
    /// Window-fit: round robin over the EVs whose round trip the window can cover at the
    /// rate the QP sends, leaving out a slow path when the window would hold the QP to less
    /// than the remaining paths carry (`SND-SPRAY-005`); left-out EVs are probed to follow
    /// their round trip. Falls back to round robin until every EV has an RTT sample.
    WindowFit,
}

/// The congestion-window hook. MRC's NSCC is outside the reference model; the hook lets a
/// sender be limited by a window in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum CongestionControl {
    /// No limit but the MPR window.
    #[default]
    Unlimited,
    /// At most `bytes` of payload in flight.
    FixedWindow {
        /// Window in bytes.
        bytes: u64,
    },
}

/// Configuration of one queue pair, given by software when it creates the QP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QpConfig {
    /// This QP's number.
    pub qpn: Qpn,
    /// The peer QP's number (destination QP of every packet this QP sends).
    pub peer_qpn: Qpn,
    /// First PSN this QP sends.
    pub initial_psn: Psn,
    /// First PSN this QP expects to receive.
    pub peer_initial_psn: Psn,
    /// Retirement domain (QPs with the same domain share one sequence in shared mode).
    #[serde(default)]
    pub domain: DomainId,
    /// Entropy values this QP sprays over, in order.
    pub evs: Vec<Ev>,
    /// Backup EVs, used when no EV of the profile is usable.
    #[serde(default)]
    pub backup_evs: Vec<Ev>,
    /// Spraying policy.
    #[serde(default)]
    pub spray: SprayPolicy,
    /// Congestion-window hook.
    #[serde(default)]
    pub cc: CongestionControl,
    /// Receiver: base address of this QP's ring of 8-byte retirement flags.
    #[serde(default)]
    pub recv_flag_base: u64,
    /// Receiver: number of slots in the ring (0 = no retirement flags).
    #[serde(default)]
    pub recv_flag_slots: u32,
    /// Sender: base address of this QP's array of 8-byte completion flags; a work
    /// request's flag slot indexes it.
    #[serde(default)]
    pub send_flag_base: u64,
    /// Sender: number of completion-flag slots (0 = no sender flags).
    #[serde(default)]
    pub send_flag_slots: u32,
    /// The completion queue of this QP's sender completions, and of the error completions
    /// of tokens whose rejection names a template of this QP (`CQE-ROUTE-001`,
    /// `CQE-REJECT-002`). `None`: the entries are reported without a place in memory, the
    /// form of a device that does not model completion queues (`spec/model-interface.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_cq: Option<CqId>,
    /// The completion queue of this QP's receive completions (`CQE-ROUTE-001`); may be the
    /// send completion queue. `None` as for `send_cq`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recv_cq: Option<CqId>,
}

/// The largest completion queue, in entries: the count of entries in use,
/// `(written − consumed) mod 2^32`, must not be ambiguous (`CQE-SETUP-001`).
pub const MAX_CQ_ENTRIES: u32 = 1 << 31;

/// Bytes of one completion entry, and the alignment of a completion queue.
pub const CQE_BYTES: u64 = 32;

/// A completion queue, as software creates it (`spec/host-interface.md` section 5.3): a ring
/// of `entries` 32-byte completion entries at `base` in memory the consumer reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CqConfig {
    /// The queue's number, which QPs and the device error queue name.
    pub cq: CqId,
    /// Address of slot 0: 32-byte aligned, so that every entry is one naturally aligned
    /// 32-byte write (`CQE-RING-003`).
    pub base: u64,
    /// Number of slots N: a power of two from 1 to 2^31 (`CQE-RING-001`, `CQE-SETUP-001`).
    pub entries: u32,
}

impl CqConfig {
    /// Why software may not create this queue (`CQE-SETUP-001`), if it may not.
    pub fn problem(&self) -> Option<&'static str> {
        if !self.entries.is_power_of_two() || self.entries > MAX_CQ_ENTRIES {
            return Some("the number of entries must be a power of two from 1 to 2^31");
        }
        if self.base % CQE_BYTES != 0 {
            return Some("the base address must be 32-byte aligned");
        }
        let end = u128::from(self.base) + u128::from(self.entries) * u128::from(CQE_BYTES);
        if end > 1 << 64 {
            return Some("the ring must lie below 2^64");
        }
        None
    }

    /// The address of slot `slot`.
    #[inline]
    pub fn slot_addr(&self, slot: u32) -> u64 {
        self.base.wrapping_add(u64::from(slot) * CQE_BYTES)
    }
}
