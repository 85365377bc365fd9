//! The golden model as a safe Rust type: the reference model's device behind an input
//! queue and an output queue. The C functions in [`crate::ffi`] are a thin layer over
//! [`Model`]; everything that can be done safely is done here.
//!
//! A [`Model`] is the device of `spec/conformance.md` section 1 (`CONF-DEV-*`): it
//! consumes frames per port, host commands, CPU commands and time, and produces frames per
//! port, DMA writes, flag writes, completions and reports. It is
//! [`ReferenceDevice`] itself, the device every other device is judged against: an input
//! is applied as a batch of one that runs to the input's time (`CONF-DEV-002`), which gives
//! the same outputs as any other batching, and [`Model::advance`] lets time run with no
//! input. Outputs wait in a queue until the caller pops them. Configured by a manifest that
//! says `cpu = "device"`, it holds the reference CPU half of recovery too, as a device with
//! its own does (`REC-TEST-004`): its reports then stay inside it.

use std::collections::VecDeque;
use std::ffi::CString;

use openrdma_codec::frame::{IcrcStatus, decode};
use openrdma_codec::host::COMPLETION_LEN;
use openrdma_codec::{Ev, Lkey, Psn, Rkey};
use openrdma_device::{
    CpuCommand, CqConfig, CqId, Device, DeviceError, DomainId, DoorbellWrite, HostCommand, Input,
    LocalRegion, Manifest, ManifestVersion, NicEvent, NicSettings, Output, Payload,
    QpConfig as BoundaryQpConfig, Region, RetirementMode, TimedInput, TimedOutput, Timestamp,
    frame_fields_json,
};
use openrdma_sm::boundary::{ReferenceDevice, Refusal};
use openrdma_sm::{HostError, NicConfig};

use crate::types::{
    CompletionFields, Config, DmaWriteFields, FlagWriteFields, FrameFields, Output as COutput,
    OutputKind, QpConfig, RETIREMENT_PER_QP, RETIREMENT_SHARED, Status,
};

/// A failed call: its status and what went wrong, naming the argument or field at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The status the C function returns.
    pub status: Status,
    /// The message `openrdma_last_error` gives.
    pub message: String,
}

impl Error {
    /// An error with `status` and `message`.
    pub fn new(status: Status, message: impl Into<String>) -> Error {
        Error { status, message: message.into() }
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.status.name().trim_end_matches('\0'), self.message)
    }
}

impl std::error::Error for Error {}

/// The storage behind the pointers of popped outputs.
#[derive(Debug, Default)]
struct Held {
    bytes: Vec<u8>,
    json: CString,
}

/// One instance of the golden model: a reference NIC, the time it has reached, and its
/// queue of outputs. Opaque to C: made by `openrdma_create` or `openrdma_create_with`,
/// freed by `openrdma_destroy`.
#[derive(Debug)]
pub struct Model {
    device: ReferenceDevice,
    manifest: Manifest,
    now: Timestamp,
    queue: VecDeque<TimedOutput>,
    /// The outputs of the last pop, and what their C structures point to.
    popped: Vec<(TimedOutput, Held)>,
    /// Whether the last pop was [`Model::next_output`]'s, making its output the current one.
    has_current: bool,
    last_error: CString,
    poisoned: bool,
}

// The C contract promises that an instance may move between threads.
const _: () = {
    const fn send<T: Send>() {}
    send::<Model>();
};

impl Model {
    /// A model configured by a scenario manifest, as the adapter protocol's `start` gives
    /// it (`spec/conformance.md` section 3.1).
    pub fn new(manifest: Manifest) -> Result<Model, Error> {
        if manifest.ports == 0 {
            return Err(Error::new(Status::InvalidConfig, "manifest: `ports` must be at least 1"));
        }
        let mut device = ReferenceDevice::new();
        device.start(&manifest).map_err(|e| {
            Error::new(Status::InvalidConfig, format!("manifest: {}", device_message(e)))
        })?;
        Ok(Model {
            device,
            manifest,
            now: Timestamp::ZERO,
            queue: VecDeque::new(),
            popped: Vec::new(),
            has_current: false,
            last_error: CString::default(),
            poisoned: false,
        })
    }

    /// A model from a manifest in JSON.
    pub fn from_json(json: &str) -> Result<Model, Error> {
        let manifest: Manifest = serde_json::from_str(json)
            .map_err(|e| Error::new(Status::InvalidJson, format!("manifest: {e}")))?;
        Model::new(manifest)
    }

    /// A model from the default manifest with `cfg`'s values.
    pub fn from_config(cfg: &Config) -> Result<Model, Error> {
        Model::new(manifest_of(cfg)?)
    }

    /// The manifest the model was configured with.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The model's time: the latest input time or `until` given, ns.
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// Outputs waiting to be popped.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// Applies one input at its time: time runs to it (timers that fall due fire first),
    /// the input is consumed, and what the device produced is queued.
    ///
    /// A frame the device cannot take (bad ICRC, not MRC, breaking the specification) is
    /// dropped as a NIC drops it, and is not an error. A host or CPU command the model
    /// refuses is [`Status::Refused`]; a doorbell it rejects is not, since rejecting it is
    /// the device's business and its error completion is an output.
    pub fn push(&mut self, input: TimedInput) -> Result<(), Error> {
        let at = input.at;
        if at < self.now {
            return Err(Error::new(
                Status::TimeWentBackwards,
                format!("input at {} ns is before the model's time, {} ns", at.0, self.now.0),
            ));
        }
        if let Input::Frame { port, .. } = input.input {
            if port >= self.manifest.ports {
                return Err(Error::new(
                    Status::InvalidArgument,
                    format!(
                        "port {port}: the model has {} port(s), 0 to {}",
                        self.manifest.ports,
                        self.manifest.ports - 1
                    ),
                ));
            }
        }
        let out = self.device.advance(vec![input], at).map_err(device_error)?;
        self.now = at;
        self.queue.extend(out);
        match self.device.refusals().first() {
            Some(Refusal::Host(at, HostError::Misuse(e))) => Err(Error::new(
                Status::Refused,
                format!("host command at {} ns refused: [{}] {e}", at.0, e.requirement()),
            )),
            Some(Refusal::Cpu(at, e)) => Err(Error::new(
                Status::Refused,
                format!("CPU command at {} ns refused: [{}] {e}", at.0, e.requirement()),
            )),
            Some(Refusal::Frame(at, e)) => Err(Error::new(
                Status::Refused,
                format!("frame at {} ns refused: [{}] {e}", at.0, e.requirement()),
            )),
            Some(Refusal::Host(_, HostError::Doorbell(_))) | None => Ok(()),
        }
    }

    /// A frame arriving on `port` at `at`.
    pub fn push_frame(&mut self, at: u64, port: u16, bytes: &[u8]) -> Result<(), Error> {
        self.push(TimedInput {
            at: Timestamp(at),
            input: Input::Frame { port, bytes: bytes.into() },
        })
    }

    /// A host command in JSON (`{"command":"create_qp",...}`).
    pub fn push_host_json(&mut self, at: u64, json: &str) -> Result<(), Error> {
        let command: HostCommand = serde_json::from_str(json)
            .map_err(|e| Error::new(Status::InvalidJson, format!("host command: {e}")))?;
        self.push_host(at, command)
    }

    /// A host command.
    pub fn push_host(&mut self, at: u64, command: HostCommand) -> Result<(), Error> {
        self.push(TimedInput { at: Timestamp(at), input: Input::Host { command } })
    }

    /// A CPU command in JSON (`{"cmd":"retransmit",...}`).
    pub fn push_cpu_json(&mut self, at: u64, json: &str) -> Result<(), Error> {
        let command: CpuCommand = serde_json::from_str(json)
            .map_err(|e| Error::new(Status::InvalidJson, format!("CPU command: {e}")))?;
        self.push(TimedInput { at: Timestamp(at), input: Input::Cpu { command } })
    }

    /// A doorbell token.
    pub fn push_doorbell(&mut self, at: u64, token: u64) -> Result<(), Error> {
        self.push_host(at, HostCommand::Doorbell { token })
    }

    /// A write to doorbell register `register` as it crosses the bus: `bytes` from byte
    /// `offset` of the register. Only one aligned write of 8 bytes carries a token; any
    /// other is ignored by the device, which is not an error of the call (`DB-MMIO-002`).
    pub fn push_doorbell_write(
        &mut self,
        at: u64,
        register: u32,
        offset: u8,
        bytes: &[u8],
    ) -> Result<(), Error> {
        let w = DoorbellWrite { register, offset, bytes: bytes.to_vec() };
        self.push_host(at, HostCommand::DoorbellWrite(w))
    }

    /// Registers a memory region for remote writes.
    pub fn push_register_region(
        &mut self,
        at: u64,
        rkey: Rkey,
        base: u64,
        len: u64,
        remote_write: bool,
    ) -> Result<(), Error> {
        self.push_host(at, HostCommand::RegisterRegion(Region { rkey, base, len, remote_write }))
    }

    /// Registers memory the NIC may read under local key `lkey` (`TPL-KEY-001`).
    pub fn push_register_local(
        &mut self,
        at: u64,
        lkey: Lkey,
        base: u64,
        len: u64,
        local_read: bool,
    ) -> Result<(), Error> {
        let region = LocalRegion { lkey, base, len, local_read };
        self.push_host(at, HostCommand::RegisterLocal(region))
    }

    /// Ends the local registration `lkey`; the templates under it are disabled first
    /// (`TPL-KEY-002`).
    pub fn push_deregister_local(&mut self, at: u64, lkey: Lkey) -> Result<(), Error> {
        self.push_host(at, HostCommand::DeregisterLocal { lkey })
    }

    /// Creates completion queue `cq`: `entries` 32-byte slots from `base`.
    pub fn push_create_cq(
        &mut self,
        at: u64,
        cq: CqId,
        base: u64,
        entries: u32,
    ) -> Result<(), Error> {
        self.push_host(at, HostCommand::CreateCq(CqConfig { cq, base, entries }))
    }

    /// Designates completion queue `cq` as the device error queue.
    pub fn push_set_error_cq(&mut self, at: u64, cq: CqId) -> Result<(), Error> {
        self.push_host(at, HostCommand::SetErrorCq { cq })
    }

    /// Writes `consumed`, the total of entries consumed modulo 2^32, to the consumer
    /// register of completion queue `cq` (`CQE-RING-004`).
    pub fn push_cq_consumer(&mut self, at: u64, cq: CqId, consumed: u32) -> Result<(), Error> {
        self.push_host(at, HostCommand::CqConsumer { cq, consumed })
    }

    /// Creates a QP; `evs` are its entropy values.
    pub fn push_create_qp(&mut self, at: u64, cfg: &QpConfig, evs: &[u32]) -> Result<(), Error> {
        let qpn = |v: u32, what: &str| {
            openrdma_codec::Qpn::try_new(v).ok_or_else(|| {
                Error::new(
                    Status::InvalidArgument,
                    format!("{what} {v:#x} does not fit in 24 bits"),
                )
            })
        };
        let psn = |v: u32, what: &str| {
            Psn::try_new(v).ok_or_else(|| {
                Error::new(
                    Status::InvalidArgument,
                    format!("{what} {v:#x} does not fit in 24 bits"),
                )
            })
        };
        let qp = BoundaryQpConfig {
            qpn: qpn(cfg.qpn, "qpn")?,
            peer_qpn: qpn(cfg.peer_qpn, "peer_qpn")?,
            initial_psn: psn(cfg.initial_psn, "initial_psn")?,
            peer_initial_psn: psn(cfg.peer_initial_psn, "peer_initial_psn")?,
            domain: DomainId::new(cfg.domain),
            evs: evs.iter().copied().map(Ev::new).collect(),
            backup_evs: Vec::new(),
            spray: Default::default(),
            cc: Default::default(),
            recv_flag_base: cfg.recv_flag_base,
            recv_flag_slots: cfg.recv_flag_slots,
            send_flag_base: cfg.send_flag_base,
            send_flag_slots: cfg.send_flag_slots,
            send_cq: flag(cfg.has_send_cq, "cfg->has_send_cq")?.then_some(CqId::new(cfg.send_cq)),
            recv_cq: flag(cfg.has_recv_cq, "cfg->has_recv_cq")?.then_some(CqId::new(cfg.recv_cq)),
        };
        self.push_host(at, HostCommand::CreateQp(qp))
    }

    /// Inputs in the adapter protocol's JSON (`spec/conformance.md` section 9.4): one
    /// input object (`{"at":0,"input":{"kind":"host","command":{...}}}`) or an array of
    /// them; frame bytes in hexadecimal, `fields` ignored. They are applied in order, up
    /// to the first that fails; the count applied is returned with the error.
    pub fn push_inputs_json(&mut self, json: &str) -> Result<usize, (usize, Error)> {
        let value: serde_json::Value = serde_json::from_str(json)
            .map_err(|e| (0, Error::new(Status::InvalidJson, format!("inputs: {e}"))))?;
        let items = match value {
            serde_json::Value::Array(items) => items,
            one => vec![one],
        };
        // Decode every input before applying any, so that a typo fails the whole batch.
        let mut inputs = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let input: TimedInput = serde_json::from_value(item)
                .map_err(|e| (0, Error::new(Status::InvalidJson, format!("inputs[{i}]: {e}"))))?;
            inputs.push(input);
        }
        let n = inputs.len();
        for (i, input) in inputs.into_iter().enumerate() {
            self.push(input)
                .map_err(|e| (i, Error::new(e.status, format!("inputs[{i}]: {}", e.message))))?;
        }
        Ok(n)
    }

    /// Lets time run to `until` (timers fire, SACKs fall due) and queues what the device
    /// produced.
    pub fn advance(&mut self, until: u64) -> Result<(), Error> {
        let until = Timestamp(until);
        if until < self.now {
            return Err(Error::new(
                Status::TimeWentBackwards,
                format!("until {} ns is before the model's time, {} ns", until.0, self.now.0),
            ));
        }
        let out = self.device.advance(Vec::new(), until).map_err(device_error)?;
        self.now = until;
        self.queue.extend(out);
        Ok(())
    }

    /// Pops up to `max` outputs, oldest first, as C structures whose pointers refer to
    /// storage the model keeps until the next pop. Outputs popped earlier become invalid.
    pub fn pop(&mut self, max: usize) -> Vec<COutput> {
        self.has_current = false;
        let n = max.min(self.queue.len());
        self.popped = self
            .queue
            .drain(..n)
            .map(|o| {
                let h = hold(&o);
                (o, h)
            })
            .collect();
        self.popped.iter().map(|(o, h)| c_output(o, h)).collect()
    }

    /// Pops one output and makes it the current one, for [`Model::field`] and
    /// [`Model::current`]; `None` when the queue is empty.
    pub fn next_output(&mut self) -> Option<COutput> {
        let out = self.pop(1).pop();
        self.has_current = out.is_some();
        out
    }

    /// The output [`Model::next_output`] popped last, until the next pop.
    pub fn current(&self) -> Option<COutput> {
        match self.popped.as_slice() {
            [(o, h)] if self.has_current => Some(c_output(o, h)),
            _ => None,
        }
    }

    /// A field of the current output by name: `at_ns`, `kind`, `port`, `qpn`, `len`, or
    /// `frame.X`, `dma_write.X`, `flag_write.X`, `completion.X` for a member `X` of the
    /// structure of that name. Booleans read 0 or 1; signed fields are sign-extended.
    pub fn field(&self, name: &str) -> Result<u64, Error> {
        let o = self.current().ok_or_else(|| {
            Error::new(
                Status::InvalidArgument,
                "no current output: call openrdma_next_output first",
            )
        })?;
        field(&o, name)
    }

    /// Records the message of a failed call on this instance.
    pub fn set_error(&mut self, message: &str) {
        self.last_error = c_string(message);
    }

    /// The message of the last failed call on this instance ("" when none has failed).
    pub fn last_error(&self) -> &CString {
        &self.last_error
    }

    /// Marks the instance unusable after a panic.
    pub fn poison(&mut self) {
        self.poisoned = true;
    }

    /// Whether a panic made the instance unusable.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }
}

/// The default manifest with `cfg`'s values: the default link (IPv4), the CPU half scripted
/// by the caller.
pub fn manifest_of(cfg: &Config) -> Result<Manifest, Error> {
    use core::time::Duration;
    let bad = |field: &str, reason: String| {
        Error::new(Status::InvalidConfig, format!("config.{field}: {reason}"))
    };
    let retirement = match cfg.retirement {
        RETIREMENT_SHARED => RetirementMode::Shared,
        RETIREMENT_PER_QP => RetirementMode::PerQp,
        other => {
            return Err(bad(
                "retirement",
                format!("{other} is neither OPENRDMA_RETIREMENT_SHARED (0) nor _PER_QP (1)"),
            ));
        }
    };
    let timestamps = match cfg.timestamps {
        0 => false,
        1 => true,
        other => return Err(bad("timestamps", format!("{other} is neither 0 nor 1"))),
    };
    let nic = NicSettings {
        seed: cfg.seed,
        pmtu: cfg.pmtu,
        mpr: cfg.mpr,
        retirement,
        sack_coalesce: cfg.sack_coalesce,
        sack_delay: Duration::from_nanos(cfg.sack_delay_ns),
        ack_coalesce: cfg.ack_coalesce,
        ack_req_every: cfg.ack_req_every,
        skip_hold: Duration::from_nanos(cfg.skip_hold_ns),
        nack_backoff: Duration::from_nanos(cfg.nack_backoff_ns),
        wwi_limit: cfg.wwi_limit,
        timestamps,
        max_qps: cfg.max_qps,
        tail_probe: (cfg.tail_probe_ns != 0).then(|| Duration::from_nanos(cfg.tail_probe_ns)),
    };
    NicConfig::try_from(&nic)
        .map_err(|e| Error::new(Status::InvalidConfig, format!("config: {e}")))?;
    Ok(Manifest {
        version: ManifestVersion::V1,
        name: "capi".into(),
        description: "A golden-model instance configured through the C interface.".into(),
        requirements: Vec::new(),
        requires: Default::default(),
        nic,
        cpu: openrdma_device::CpuHalf::Scripted,
        recovery: Default::default(),
        ports: cfg.ports,
        link: Default::default(),
        tolerances: Default::default(),
        start: Default::default(),
    })
}

/// The configuration structure holding the model's defaults, one port.
pub fn default_config() -> Config {
    let nic = NicSettings::default();
    Config {
        ports: 1,
        seed: nic.seed,
        pmtu: nic.pmtu,
        mpr: nic.mpr,
        retirement: match nic.retirement {
            RetirementMode::Shared => RETIREMENT_SHARED,
            RetirementMode::PerQp => RETIREMENT_PER_QP,
        },
        sack_coalesce: nic.sack_coalesce,
        sack_delay_ns: duration_ns(nic.sack_delay),
        ack_coalesce: nic.ack_coalesce,
        ack_req_every: nic.ack_req_every,
        skip_hold_ns: duration_ns(nic.skip_hold),
        nack_backoff_ns: duration_ns(nic.nack_backoff),
        wwi_limit: nic.wwi_limit,
        timestamps: u8::from(nic.timestamps),
        max_qps: nic.max_qps,
        tail_probe_ns: nic.tail_probe.map_or(0, duration_ns),
    }
}

fn duration_ns(d: core::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// A string as a C string; an interior NUL (never in our messages) ends it early.
pub fn c_string(s: &str) -> CString {
    let end = s.find('\0').unwrap_or(s.len());
    CString::new(&s[..end]).unwrap_or_default()
}

fn device_message(e: DeviceError) -> String {
    match e {
        DeviceError::Protocol(m) | DeviceError::Failed(m) | DeviceError::Unsupported(m) => m,
        other => other.to_string(),
    }
}

fn device_error(e: DeviceError) -> Error {
    Error::new(Status::DeviceFailed, device_message(e))
}

/// The bytes and JSON an output's pointers refer to.
fn hold(o: &TimedOutput) -> Held {
    match &o.output {
        Output::Frame { bytes, .. } => {
            Held { bytes: bytes.clone(), json: c_string(&frame_fields_json(bytes).to_string()) }
        }
        Output::Event { event } => {
            let json = c_string(&serde_json::to_string(event).unwrap_or_default());
            let bytes = match event {
                NicEvent::DmaWrite(w) => match &w.payload {
                    Payload::Bytes(b) => b.to_vec(),
                    // CONF-MEM-001: what the sender's memory holds there.
                    Payload::Host { addr, len } => openrdma_device::memory(*addr, *len),
                },
                NicEvent::FlagWrite(f) => f.value.to_le_bytes().to_vec(),
                // The bytes written to the queue, or the entry's bytes when it has none.
                NicEvent::Completion(c) => match &c.queue {
                    Some(q) => q.bytes.to_vec(),
                    None => {
                        let mut b = vec![0; COMPLETION_LEN];
                        match c.entry.emit(&mut b) {
                            Ok(n) => b.truncate(n),
                            Err(_) => b.clear(),
                        }
                        b
                    }
                },
                NicEvent::Report(_) => Vec::new(),
            };
            Held { bytes, json }
        }
    }
}

/// A boolean argument, or a boolean field of an argument, given as 0 or 1.
pub fn flag(v: u8, what: &str) -> Result<bool, Error> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        other => Err(Error::new(
            Status::InvalidArgument,
            format!("the argument `{what}` is {other}; a boolean is 0 or 1"),
        )),
    }
}

fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The C structure of an output whose storage is `h`.
fn c_output(o: &TimedOutput, h: &Held) -> COutput {
    let mut c = COutput {
        at_ns: o.at.0,
        bytes: if h.bytes.is_empty() { core::ptr::null() } else { h.bytes.as_ptr() },
        len: len32(h.bytes.len()),
        json: h.json.as_ptr(),
        json_len: len32(h.json.as_bytes().len()),
        ..COutput::default()
    };
    match &o.output {
        Output::Frame { port, bytes } => {
            c.kind = OutputKind::Frame;
            c.port = *port;
            c.frame = frame_fields(bytes);
            c.qpn = c.frame.dest_qp;
        }
        Output::Event { event } => match event {
            NicEvent::DmaWrite(w) => {
                c.kind = OutputKind::DmaWrite;
                c.qpn = w.qpn.value();
                c.dma_write = DmaWriteFields { psn: w.psn.value(), msn: w.msn.value(), va: w.va };
            }
            NicEvent::FlagWrite(f) => {
                c.kind = OutputKind::FlagWrite;
                c.qpn = f.qpn.value();
                c.flag_write = FlagWriteFields {
                    side: f.side.into(),
                    msn: f.msn.value(),
                    addr: f.addr,
                    value: f.value,
                };
            }
            NicEvent::Completion(e) => {
                let x = e.written_entry();
                c.kind = OutputKind::Completion;
                c.qpn = x.qpn.value();
                c.completion = CompletionFields {
                    side: e.side.into(),
                    wr_id: x.wr_id,
                    status: x.status.0,
                    opcode: x.opcode.0,
                    msn: x.msn.value(),
                    byte_len: x.byte_len,
                    imm: x.imm,
                    has_imm: x.has_imm,
                    is_receive: x.is_receive,
                    has_timestamp: x.has_timestamp,
                    timestamp: x.timestamp,
                    phase: x.phase,
                    in_queue: e.queue.is_some(),
                    cq: e.queue.map_or(0, |q| q.cq.value()),
                    slot: e.queue.map_or(0, |q| q.slot),
                    addr: e.queue.map_or(0, |q| q.addr),
                };
            }
            NicEvent::Report(r) => {
                c.kind = OutputKind::Report;
                c.qpn = report_qpn(r);
            }
        },
    }
    c
}

fn report_qpn(r: &openrdma_device::NicReport) -> u32 {
    use openrdma_device::NicReport as R;
    match r {
        R::Progress { qpn, .. }
        | R::Armed { qpn, .. }
        | R::Nack { qpn, .. }
        | R::EvMarked { qpn, .. }
        | R::EvState { qpn, .. }
        | R::ProbeAnswered { qpn, .. }
        | R::Retransmitted { qpn, .. }
        | R::QpError { qpn, .. } => qpn.value(),
        // Endpoint operations concern no QP; their responses arrive at QPN 2.
        R::EndpointResponse { .. } => openrdma_codec::Qpn::ENDPOINT.value(),
    }
}

/// The plain header fields of a frame.
pub fn frame_fields(bytes: &[u8]) -> FrameFields {
    let d = decode(bytes);
    let Some(bth) = d.bth else { return FrameFields::default() };
    let mut f = FrameFields {
        has_bth: true,
        icrc_ok: d.icrc == IcrcStatus::Ok,
        opcode: bth.opcode.0,
        dest_qp: bth.dest_qp.value(),
        psn: bth.psn.value(),
        ack_req: bth.ack_req,
        rtx: bth.rtx,
        entropy: d.entropy().unwrap_or_default().value(),
        payload_len: len32(d.payload.len()),
        ..FrameFields::default()
    };
    if let Some(m) = &d.ext.meth {
        f.has_meth = true;
        f.msn = m.msn.value();
    }
    if let Some(t) = &d.ext.tseth {
        f.has_tseth = true;
        f.tx_timestamp = t.tx_timestamp;
    }
    if let Some(r) = &d.ext.reth {
        f.has_reth = true;
        f.va = r.va;
        f.rkey = r.rkey.value();
        f.dma_len = r.dma_len;
    }
    if let Some(s) = &d.ext.seth {
        f.has_seth = true;
        f.cack_psn = s.cack_psn.value();
        f.ack_psn_offset = s.ack_psn_offset;
        f.sack_offset = s.sack_offset;
        f.sack_bitmap = s.sack_bitmap;
        f.mpr = s.mpr;
        f.probe_response = s.pr;
    }
    if let Some(n) = &d.ext.neth {
        f.has_neth = true;
        f.nack_psn = n.nack_psn.value();
        f.nack_reason = n.reason.0;
    }
    if let Some(a) = &d.ext.aeth {
        f.has_aeth = true;
        f.aeth_syndrome = a.syndrome;
        f.aeth_msn = a.msn.value();
    }
    if let Some(e) = &d.ext.eeth {
        f.has_eeth = true;
        f.eeth_op = e.op.0;
        f.eeth_status = e.status;
        f.eeth_request_id = e.request_id;
        f.eeth_port_status = e.port_status;
    }
    f
}

/// A field of `o` by name (see [`Model::field`]).
pub fn field(o: &COutput, name: &str) -> Result<u64, Error> {
    let b = u64::from;
    let s = |v: i16| i64::from(v) as u64;
    let (group, member) = name.split_once('.').unwrap_or(("", name));
    let wrong = |what: &str| {
        Error::new(
            Status::InvalidArgument,
            format!("field `{name}` belongs to {what} outputs; the current one is {:?}", o.kind),
        )
    };
    let kind_is = |k: OutputKind, what: &str| if o.kind == k { Ok(()) } else { Err(wrong(what)) };
    let v = match (group, member) {
        ("", "at_ns") => o.at_ns,
        ("", "kind") => u64::from(o.kind as u32),
        ("", "port") => u64::from(o.port),
        ("", "qpn") => u64::from(o.qpn),
        ("", "len") => u64::from(o.len),
        ("frame", m) => {
            kind_is(OutputKind::Frame, "frame")?;
            let f = &o.frame;
            match m {
                "has_bth" => b(f.has_bth),
                "icrc_ok" => b(f.icrc_ok),
                "opcode" => u64::from(f.opcode),
                "dest_qp" => u64::from(f.dest_qp),
                "psn" => u64::from(f.psn),
                "ack_req" => b(f.ack_req),
                "rtx" => b(f.rtx),
                "entropy" => u64::from(f.entropy),
                "payload_len" => u64::from(f.payload_len),
                "has_meth" => b(f.has_meth),
                "msn" => u64::from(f.msn),
                "has_tseth" => b(f.has_tseth),
                "tx_timestamp" => u64::from(f.tx_timestamp),
                "has_reth" => b(f.has_reth),
                "va" => f.va,
                "rkey" => u64::from(f.rkey),
                "dma_len" => u64::from(f.dma_len),
                "has_seth" => b(f.has_seth),
                "cack_psn" => u64::from(f.cack_psn),
                "ack_psn_offset" => s(f.ack_psn_offset),
                "sack_offset" => s(f.sack_offset),
                "sack_bitmap" => f.sack_bitmap,
                "mpr" => u64::from(f.mpr),
                "probe_response" => b(f.probe_response),
                "has_neth" => b(f.has_neth),
                "nack_psn" => u64::from(f.nack_psn),
                "nack_reason" => u64::from(f.nack_reason),
                "has_aeth" => b(f.has_aeth),
                "aeth_syndrome" => u64::from(f.aeth_syndrome),
                "aeth_msn" => u64::from(f.aeth_msn),
                "has_eeth" => b(f.has_eeth),
                "eeth_op" => u64::from(f.eeth_op),
                "eeth_status" => u64::from(f.eeth_status),
                "eeth_request_id" => u64::from(f.eeth_request_id),
                "eeth_port_status" => u64::from(f.eeth_port_status),
                _ => return Err(unknown(name)),
            }
        }
        ("dma_write", m) => {
            kind_is(OutputKind::DmaWrite, "dma_write")?;
            let w = &o.dma_write;
            match m {
                "psn" => u64::from(w.psn),
                "msn" => u64::from(w.msn),
                "va" => w.va,
                _ => return Err(unknown(name)),
            }
        }
        ("flag_write", m) => {
            kind_is(OutputKind::FlagWrite, "flag_write")?;
            let w = &o.flag_write;
            match m {
                "side" => u64::from(w.side as u32),
                "msn" => u64::from(w.msn),
                "addr" => w.addr,
                "value" => w.value,
                _ => return Err(unknown(name)),
            }
        }
        ("completion", m) => {
            kind_is(OutputKind::Completion, "completion")?;
            let c = &o.completion;
            match m {
                "side" => u64::from(c.side as u32),
                "wr_id" => c.wr_id,
                "status" => u64::from(c.status),
                "opcode" => u64::from(c.opcode),
                "msn" => u64::from(c.msn),
                "byte_len" => u64::from(c.byte_len),
                "imm" => u64::from(c.imm),
                "has_imm" => b(c.has_imm),
                "is_receive" => b(c.is_receive),
                "has_timestamp" => b(c.has_timestamp),
                "timestamp" => u64::from(c.timestamp),
                "phase" => b(c.phase),
                "in_queue" => b(c.in_queue),
                "cq" => u64::from(c.cq),
                "slot" => u64::from(c.slot),
                "addr" => c.addr,
                _ => return Err(unknown(name)),
            }
        }
        _ => return Err(unknown(name)),
    };
    Ok(v)
}

fn unknown(name: &str) -> Error {
    Error::new(
        Status::InvalidArgument,
        format!(
            "no output field `{name}`: use at_ns, kind, port, qpn, len, or frame.X, \
             dma_write.X, flag_write.X, completion.X with X a member of that structure"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        manifest_of(&Config { ports: 2, ..default_config() }).unwrap()
    }

    #[test]
    fn default_config_is_the_models_default() {
        assert_eq!(manifest_of(&default_config()).unwrap().nic, NicSettings::default());
    }

    #[test]
    fn config_values_are_checked() {
        let bad = |cfg: Config| manifest_of(&cfg).unwrap_err();
        let e = bad(Config { pmtu: 1000, ..default_config() });
        assert_eq!(e.status, Status::InvalidConfig);
        assert!(e.message.contains("pmtu"), "{e}");
        let e = bad(Config { timestamps: 2, ..default_config() });
        assert!(e.message.contains("config.timestamps"), "{e}");
        let e = Model::from_config(&Config { ports: 0, ..default_config() }).unwrap_err();
        assert!(e.message.contains("ports"), "{e}");
    }

    #[test]
    fn a_rejected_input_changes_nothing() {
        let mut m = Model::new(manifest()).unwrap();
        m.advance(500).unwrap();
        let e = m.push_frame(400, 0, &[0; 60]).unwrap_err();
        assert_eq!(e.status, Status::TimeWentBackwards);
        let e = m.push_frame(600, 2, &[0; 60]).unwrap_err();
        assert_eq!(e.status, Status::InvalidArgument);
        assert!(e.message.contains("port 2: the model has 2 port(s), 0 to 1"), "{e}");
        assert_eq!(m.now(), Timestamp(500));
        let e = m.push_host_json(600, "{\"command\":\"doorbell\"}").unwrap_err();
        assert_eq!(e.status, Status::InvalidJson);
        assert!(e.message.contains("missing field `token`"), "{e}");
        assert_eq!(m.now(), Timestamp(500), "a command that does not parse is not applied");
        let (n, e) =
            m.push_inputs_json("[{\"at\":600,\"input\":{\"kind\":\"nope\"}}]").unwrap_err();
        assert_eq!((n, e.status), (0, Status::InvalidJson));
        assert!(e.message.starts_with("inputs[0]"), "{e}");
    }

    #[test]
    fn fields_by_name_follow_the_kind() {
        let mut m = Model::new(manifest()).unwrap();
        assert!(m.field("at_ns").is_err(), "no current output yet");
        // A doorbell for a template that does not exist: rejected by the device, which
        // writes an error completion; not an error of the call.
        m.push_doorbell(100, 0).unwrap();
        let o = m.next_output().expect("the error completion");
        assert_eq!(o.kind, OutputKind::Completion);
        assert_eq!(m.field("at_ns").unwrap(), 100);
        assert_eq!(m.field("kind").unwrap(), OutputKind::Completion as u64);
        assert_eq!(m.field("len").unwrap(), COMPLETION_LEN as u64);
        assert_ne!(m.field("completion.status").unwrap(), 0, "an error completion");
        let e = m.field("frame.psn").unwrap_err();
        assert!(e.message.contains("belongs to frame outputs"), "{e}");
        assert!(m.field("completion.colour").unwrap_err().message.contains("no output field"));
        assert!(m.next_output().is_none());
        assert!(m.current().is_none(), "popping an empty queue leaves no current output");
    }

    /// DB-MMIO-002: a doorbell write that is not one aligned 8-byte write produces
    /// nothing and is no error; the aligned write of the same token is the token.
    #[test]
    fn doorbell_writes_carry_a_token_only_whole() {
        let mut m = Model::new(manifest()).unwrap();
        let token = 0u64.to_le_bytes(); // version 0: rejected, with an error completion
        m.push_doorbell_write(100, 3, 0, &token[..4]).unwrap();
        m.push_doorbell_write(100, 3, 4, &token).unwrap();
        assert_eq!(m.pending(), 0, "an ignored write has no output");
        m.push_doorbell_write(200, 3, 0, &token).unwrap();
        let o = m.next_output().expect("the error completion of the token");
        assert_eq!(o.kind, OutputKind::Completion);
        m.push_host_json(
            300,
            r#"{"command":"doorbell_write","register":1,"offset":2,"bytes":"00"}"#,
        )
        .unwrap();
        assert_eq!(m.pending(), 0);
    }

    #[test]
    fn signed_fields_are_sign_extended() {
        let o = COutput {
            kind: OutputKind::Frame,
            frame: FrameFields { sack_offset: -2, ..FrameFields::default() },
            ..COutput::default()
        };
        assert_eq!(field(&o, "frame.sack_offset").unwrap(), (-2i64) as u64);
    }

    /// ERTH-RESP-001, EETH-PORT-001: an endpoint request is answered, and the answer's EETH
    /// reaches C through the frame's fields, with the model's ports.
    #[test]
    fn an_endpoint_response_shows_its_eeth() {
        use openrdma_codec::{BthRepr, EndpointOp, ErthRepr, Opcode, Psn, Qpn};
        use openrdma_sm::Packet;
        let mut m = Model::new(manifest()).unwrap();
        let request = Packet::EndpointRequest {
            bth: BthRepr::new(Opcode::MRC_ENDPOINT_REQUEST, Qpn::ENDPOINT, Psn::ZERO),
            erth: ErthRepr::new(EndpointOp::EV_PROBE, 0b1, 0xABCD),
        };
        let outer = openrdma_sm::Outer::from_link(&m.manifest().link.reversed());
        let frame = request.to_frame(&outer, Ev::new(0x4000_0000), &mut |_, _| Vec::new()).unwrap();
        m.push_frame(100, 0, &frame.to_bytes().unwrap()).unwrap();
        let o = m.next_output().expect("the response");
        assert_eq!(o.kind, OutputKind::Frame);
        let f = o.frame;
        assert!(f.has_eeth && f.icrc_ok);
        assert_eq!((f.opcode, f.dest_qp), (0xD9, 2));
        assert_eq!((f.eeth_op, f.eeth_status, f.eeth_request_id), (1, 0, 0xABCD));
        assert_eq!(f.eeth_port_status, 0b11, "the model's two ports are up");
        assert_eq!(m.field("frame.eeth_request_id").unwrap(), 0xABCD);
    }
}
