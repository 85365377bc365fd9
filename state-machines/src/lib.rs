//! The reference model of OpenRDMA: the executable definition that every device is judged
//! against.
//!
//! Two sans-IO machines per host, after the paper's split of retransmission work:
//!
//! * [`Nic`], the NIC half: doorbell expansion, segmentation, path choice, the MPR window,
//!   SACK/NACK-driven selective retransmission, receive window and bitmap, placement,
//!   ordered retirement with completion flags, transport ACKs;
//! * [`RecoveryAgent`], the CPU half: timeout detection, retry counters and back-off, EV
//!   policy, QP error.
//!
//! They talk only through [`NicReport`]s and [`CpuCommand`]s. Around them, one of each:
//!
//! * the drive loop: [`Endpoint`] wires a NIC to any CPU half (the reference agent, or any
//!   `openrdma_device::RecoveryCpu`) and drains them in the one documented order (timers
//!   NIC first, then CPU half; packets, events, then commands); [`ReferenceDevice`] is an
//!   endpoint behind the device boundary of the conformance suite
//!   (`openrdma_device::Device`), with its CPU half inside when a scenario asks;
//! * the fabric: a [`Fabric`] decides each packet's [`Fate`] (delivered at a time,
//!   dropped, duplicated, corrupted, or sent on to a hop where it decides again, behind a
//!   link busy until then) and may hold an endpoint back while its links are full;
//!   [`Pair`] drives two endpoints over one (the pair tests, the fuzz targets, the
//!   benchmark workload), the scenario recorder and the simulator decide their packets'
//!   fates with theirs (the simulator's in picoseconds);
//! * the oracle: [`DeliveryOracle`] checks the delivery invariants (each packet placed
//!   once, retirement in order, no flag before its data, no write after it) for the tests,
//!   the fuzz targets and the simulator.
//!
//! Nothing here reads a clock, spawns a thread or touches a file: time is a [`Timestamp`] argument and every random choice comes
//! from the seed in [`NicConfig`]. The same inputs give the same outputs, byte for byte.
//!
//! It depends on the codec (`openrdma-codec`), whose `Repr`s are its packets, and on the
//! device boundary (`openrdma-device`), which it implements: the types that cross the
//! boundary — host commands, CPU commands, events, reports, EV states, time — are the
//! boundary's, and the model takes and gives them as they are, with no conversion on its
//! paths, and re-exports them here for its callers. A scenario's configuration (the
//! boundary's `NicSettings` and `RecoverySettings`) becomes the model's [`NicConfig`] and
//! [`RecoveryConfig`] by `TryFrom` and `From`.
//!
//! The feature `fault-hooks`, off by default, is test support and no product: it lets the
//! conformance suite's fault registry build a reference device with one window-fit
//! estimate kept wrong, to prove the suite catches such a device.
//!
//! # Two NICs deliver a message
//!
//! Two NICs connected by a fabric that delivers every packet 1 µs after it is sent; the
//! requester writes 8 KiB, the responder places it and writes its flag, and the requester
//! retires the message with its own flag:
//!
//! ```
//! use openrdma_codec::host::{WorkRequest, WrOpcode};
//! use openrdma_codec::{Ev, Lkey, Psn, Qpn, Rkey};
//! use openrdma_sm::{
//!     DomainId, Endpoint, Fabric, Fate, HostCommand, Nic, NicConfig, NicEvent, NoCpu, Pair,
//!     QpConfig, Region, RunEnd, Side, Timestamp, Transmit,
//! };
//!
//! /// Delivers each packet 1 µs after it leaves, and keeps the flags written.
//! #[derive(Default)]
//! struct Wire {
//!     flags: Vec<(usize, Side)>,
//! }
//!
//! impl Fabric for Wire {
//!     fn fate(&mut self, now: Timestamp, _from: usize, t: &Transmit) -> Fate {
//!         Fate::Deliver { at: Timestamp(now.0 + 1_000), ev: t.ev }
//!     }
//!     fn event(&mut self, _now: Timestamp, k: usize, event: &NicEvent) {
//!         if let NicEvent::FlagWrite(f) = event {
//!             self.flags.push((k, f.side));
//!         }
//!     }
//! }
//!
//! let t = Timestamp::ZERO;
//! let mut nics = [Nic::new(NicConfig::default())?, Nic::new(NicConfig::default())?];
//! for (k, nic) in nics.iter_mut().enumerate() {
//!     let (me, peer) = if k == 0 { (0x11, 0x12) } else { (0x12, 0x11) };
//!     let region = Region { rkey: Rkey::new(7), base: 0, len: 1 << 20, remote_write: true };
//!     nic.handle_host(t, HostCommand::RegisterRegion(region))?;
//!     let qp = QpConfig {
//!         qpn: Qpn::new(me),
//!         peer_qpn: Qpn::new(peer),
//!         initial_psn: Psn::new(0),
//!         peer_initial_psn: Psn::new(0),
//!         domain: DomainId::new(0),
//!         evs: (0..4).map(|e| Ev::from_halves(e, 0)).collect(),
//!         backup_evs: vec![],
//!         spray: Default::default(),
//!         cc: Default::default(),
//!         recv_flag_base: 0x1000,
//!         recv_flag_slots: 16,
//!         send_flag_base: 0x2000,
//!         send_flag_slots: 16,
//!         send_cq: None,
//!         recv_cq: None,
//!     };
//!     nic.handle_host(t, HostCommand::CreateQp(qp))?;
//! }
//! let wr = WorkRequest {
//!     wr_id: 1,
//!     qpn: Qpn::new(0x11),
//!     opcode: WrOpcode::WRITE,
//!     local_va: 0,
//!     lkey: Lkey::new(0),
//!     remote_va: 0x8000,
//!     rkey: Rkey::new(7),
//!     length: 8192,
//!     imm: None,
//!     flag_slot: 0,
//!     signaled: true,
//! };
//! nics[0].handle_host(t, HostCommand::PostWrite(wr))?;
//!
//! let [a, b] = nics;
//! let eps = [Endpoint::with_cpu(a, NoCpu), Endpoint::with_cpu(b, NoCpu)];
//! let mut pair = Pair::new(eps, Wire::default());
//! assert_eq!(pair.run(Timestamp(1_000_000_000), 100_000)?, RunEnd::Idle);
//! // The responder's flag first (the data is placed), then the requester's (it retired).
//! assert_eq!(pair.fabric.flags, [(1, Side::Responder), (0, Side::Requester)]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The `two_nics` example does the same with three messages and prints every payload
//! placed and every flag written (`cargo run -p openrdma-sm --example two_nics`). The
//! model's benchmark and its `model_loop` example live with their workload in the test kit
//! (`openrdma-testkit`), which this crate does not depend on, even for its tests.
//!
//! # Where things are
//!
//! The NIC is split the way quinn-proto splits a connection: one type that owns the state
//! and the call order, and one file per room of the work.
//!
//! | file | what it holds |
//! |---|---|
//! | `nic/mod.rs` | [`Nic`]: its state, the `handle_*` entry points, timers and the `poll_*` outputs |
//! | `nic/host.rs` | host: QPs, regions, doorbell templates, doorbells, completion queues, sender completions and flags |
//! | `nic/receive.rs` | receiver: a Write checked, placed and retired; probes answered; SACKs, NACKs and transport ACKs sent |
//! | `nic/send.rs` | sender: the CPU half's commands to a requester, and the acknowledgements it handles turned into reports |
//! | `nic/endpoint_ops.rs` | endpoint operations on QPN 2 |
//! | `sender/mod.rs` | a QP's requester: messages, PSNs, the window, the next packet and its headers |
//! | `sender/paths.rs` | paths: the EV profile, the spray policies, window-fit, EV states |
//! | `sender/loss.rs` | loss: SACK, NACK and AETH handling, loss inference, tail probes, the retransmission queue |
//! | `receiver.rs` | a QP's responder: the receive window, its bitmap and the SACKs it makes |
//! | `retire.rs` | retirement domains: the reference table and the hardware-shaped ring |
//! | `recovery.rs` | [`RecoveryAgent`], the CPU half |
//! | `endpoint.rs`, `pair.rs`, `oracle.rs`, `boundary.rs` | the drive loop, the fabric, the oracle, the device boundary |
//!
//! Requirement IDs in the docs refer to the chapters of `spec/` (`SND-*` sender,
//! `RCV-*` receiver, `RET-*`/`FLAG-*`/`WWI-*` completion, `REC-*` recovery, `EV-*` paths).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The types a caller drives the model with are at the root. Modules are public only where
// their paths carry more than the root does: `boundary` (the adapter's port helpers),
// `ev` (the EV state machine as a table), `oracle` (its violations), and `receiver` and
// `retire` (the hardware-shaped receive bitmap and retirement ring beside the plain
// reference table, which the spec describes). A QP's requester and responder state stay
// inside the crate: a caller reaches them through `Nic`'s getters. Every error converts
// into the one `Error`.
pub mod boundary;
mod config;
mod endpoint;
mod error;
pub mod ev;
mod event;
mod nic;
pub mod oracle;
mod packet;
mod pair;
pub mod receiver;
mod recovery;
pub mod retire;
mod ring;
mod sender;

pub use boundary::ReferenceDevice;
pub use config::{
    CongestionControl, CqConfig, NicConfig, QpConfig, RecoveryConfig, RetirementMode, SprayPolicy,
};
#[doc(hidden)]
#[cfg(feature = "fault-hooks")]
pub use config::{FitFault, RecvFault};
pub use endpoint::{Endpoint, NoCpu, Output};
pub use error::{
    ApiMisuse, ConfigError, DoorbellRejected, Error, HostError, HostOrPeer, InputError,
    PeerViolation,
};
pub use ev::{EvEvent, EvMark, EvState};
pub use event::{
    CompletionEvent, CpuCommand, CqWrite, DmaWrite, DoorbellWrite, FlagWrite, HostCommand,
    LocalRegion, NicEvent, NicInput, NicReport, Region, RetransmitCause, Side, Transmit,
};
pub use nic::{CqState, Nic, NicStats, SendWindow};
pub use openrdma_device::{CqId, DomainId, Payload, Timestamp};
pub use oracle::DeliveryOracle;
pub use packet::{FrameWriter, Outer, Packet, Unreceivable, UnsupportedPacket, WritePacket};
pub use pair::{Call, Fabric, Fate, InFlight, Pair, RunEnd};
pub use recovery::{RecoveryAgent, reference_cpu_half};
