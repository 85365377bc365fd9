//! The C types of the library: status codes, the kinds of inputs and outputs, and the
//! plain structures a caller reads and writes. Every type here is `#[repr(C)]` (or a
//! `#[repr(u32)]` enum, which C sees as `uint32_t`), so that its layout is the C
//! compiler's; `include/openrdma.h` is generated from this file.
//!
//! Enums are only ever written by the library and read by the caller. Where the caller
//! gives a kind or a flag, the field is a plain integer that the library checks, because a
//! C value outside a Rust enum's range would be undefined behaviour.

use core::ffi::c_char;
use core::ptr;

/// The version of the C interface: the layout of every structure and the signature of
/// every function. It changes whenever either changes; compare it with
/// `openrdma_abi_version()` to detect a header that does not match the library.
pub const ABI_VERSION: u32 = 2;

/// What a call did. Every function that can fail returns one; `OPENRDMA_STATUS_OK` is 0,
/// every other value is a failure whose message `openrdma_last_error` gives.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Success.
    Ok = 0,
    /// A pointer argument that must not be NULL was NULL.
    NullPointer = 1,
    /// A string argument is not UTF-8.
    InvalidUtf8 = 2,
    /// A JSON argument is not JSON, or not the object expected; the message names the
    /// field and the line and column.
    InvalidJson = 3,
    /// The configuration (the manifest, or a configuration structure) cannot be used.
    InvalidConfig = 4,
    /// An argument is out of range: a port the model does not have, an unknown kind, a
    /// boolean other than 0 or 1, an unknown field name.
    InvalidArgument = 5,
    /// Time went backwards: an input earlier than the model's time, or an `until` before it.
    TimeWentBackwards = 6,
    /// The model refused a host or CPU command (it breaks the model interface, e.g. a QP
    /// that already exists). The command had no effect; outputs produced before it stay
    /// queued.
    Refused = 7,
    /// The model failed (it could not build a frame it had to send).
    DeviceFailed = 8,
    /// An internal error: the library panicked. The instance is unusable from then on;
    /// every call but `openrdma_destroy` and `openrdma_last_error` returns this status.
    Panic = 9,
}

/// Every status, in code order.
const STATUSES: [Status; 10] = [
    Status::Ok,
    Status::NullPointer,
    Status::InvalidUtf8,
    Status::InvalidJson,
    Status::InvalidConfig,
    Status::InvalidArgument,
    Status::TimeWentBackwards,
    Status::Refused,
    Status::DeviceFailed,
    Status::Panic,
];

impl Status {
    /// The name of the status, as the C header spells it, NUL-terminated.
    pub const fn name(self) -> &'static str {
        match self {
            Status::Ok => "OPENRDMA_STATUS_OK\0",
            Status::NullPointer => "OPENRDMA_STATUS_NULL_POINTER\0",
            Status::InvalidUtf8 => "OPENRDMA_STATUS_INVALID_UTF8\0",
            Status::InvalidJson => "OPENRDMA_STATUS_INVALID_JSON\0",
            Status::InvalidConfig => "OPENRDMA_STATUS_INVALID_CONFIG\0",
            Status::InvalidArgument => "OPENRDMA_STATUS_INVALID_ARGUMENT\0",
            Status::TimeWentBackwards => "OPENRDMA_STATUS_TIME_WENT_BACKWARDS\0",
            Status::Refused => "OPENRDMA_STATUS_REFUSED\0",
            Status::DeviceFailed => "OPENRDMA_STATUS_DEVICE_FAILED\0",
            Status::Panic => "OPENRDMA_STATUS_PANIC\0",
        }
    }

    /// The status with code `code`, if there is one.
    pub fn from_code(code: u32) -> Option<Status> {
        STATUSES.into_iter().find(|s| *s as u32 == code)
    }
}

/// What an output is.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// No output: the queue was empty (`openrdma_next_output` only).
    None = 0,
    /// A frame the device sends on a port.
    Frame = 1,
    /// Received payload written to memory (`dma_write`).
    DmaWrite = 2,
    /// A completion flag written to memory (`flag_write`).
    FlagWrite = 3,
    /// A completion entry (`completion`).
    Completion = 4,
    /// A report to the CPU half of recovery (`report`).
    Report = 5,
}

/// What an input is, in `openrdma_input.kind`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A frame arriving on a port: `port`, `bytes`, `len`.
    Frame = 1,
    /// A host command as JSON: `json`.
    HostJson = 2,
    /// A command from the CPU half of recovery as JSON: `json`.
    CpuJson = 3,
    /// A doorbell token: `token`.
    Doorbell = 4,
}

impl InputKind {
    /// The kind with code `code`, if there is one.
    pub fn from_code(code: u32) -> Option<InputKind> {
        [InputKind::Frame, InputKind::HostJson, InputKind::CpuJson, InputKind::Doorbell]
            .into_iter()
            .find(|k| *k as u32 == code)
    }
}

/// Which side of a connection wrote a flag or a completion.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Side {
    /// The requester (sender) of the message.
    #[default]
    Requester = 0,
    /// The responder (receiver) of the message.
    Responder = 1,
}

impl From<openrdma_device::Side> for Side {
    fn from(s: openrdma_device::Side) -> Side {
        match s {
            openrdma_device::Side::Requester => Side::Requester,
            openrdma_device::Side::Responder => Side::Responder,
        }
    }
}

/// `config.retirement`: one retirement sequence shared by the QPs of a domain.
pub const RETIREMENT_SHARED: u32 = 0;
/// `config.retirement`: one retirement sequence per QP.
pub const RETIREMENT_PER_QP: u32 = 1;

/// The device's configuration, for `openrdma_create_with`: the model's defaults with the
/// fields a testbench most often changes. `openrdma_config_default` fills it; the other
/// fields of a manifest (the link's addresses, a VLAN) take their defaults, and a manifest
/// in JSON (`openrdma_create`) sets any of them.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Number of ports (at least 1).
    pub ports: u16,
    /// Seed of every random choice the model makes.
    pub seed: u64,
    /// Path MTU: 256, 512, 1024, 2048 or 4096 payload bytes per packet.
    pub pmtu: u32,
    /// Receive and send window, in units of 128 packets (1 to 64).
    pub mpr: u8,
    /// `OPENRDMA_RETIREMENT_SHARED` or `OPENRDMA_RETIREMENT_PER_QP`.
    pub retirement: u32,
    /// The receiver sends a SACK after this many accepted packets.
    pub sack_coalesce: u32,
    /// ... or at the latest this many nanoseconds after an unacknowledged packet.
    pub sack_delay_ns: u64,
    /// The receiver sends a transport ACK after this many retired messages.
    pub ack_coalesce: u32,
    /// The sender sets AckReq on every Nth packet (and on the last of each message).
    pub ack_req_every: u32,
    /// How long an entropy value stays in SKIP, ns.
    pub skip_hold_ns: u64,
    /// Delay before retransmitting after a resource NACK, ns.
    pub nack_backoff_ns: u64,
    /// Write-with-Immediate messages in flight per QP.
    pub wwi_limit: u16,
    /// 1: the sender adds a TSETH to every write packet; 0: it does not.
    pub timestamps: u8,
    /// Maximum number of QPs.
    pub max_qps: u32,
    /// Tail probing (SND-TAIL-001): the delay, ns, after an EV's last data transmission
    /// before a probe follows it; 0 turns tail probing off (the default).
    pub tail_probe_ns: u64,
}

/// A QP's configuration, for `openrdma_push_create_qp`: the fields of the `create_qp` host
/// command that a testbench sets; the QP sprays round-robin with no congestion window.
/// The `create_qp` command in JSON (`openrdma_push_host_json`) sets every field.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct QpConfig {
    /// This QP's number (24 bits).
    pub qpn: u32,
    /// The peer QP's number (24 bits).
    pub peer_qpn: u32,
    /// First PSN this QP sends.
    pub initial_psn: u32,
    /// First PSN this QP expects to receive.
    pub peer_initial_psn: u32,
    /// Retirement domain.
    pub domain: u32,
    /// The entropy values the QP sprays over, in order (`ev_count` of them, at least one).
    pub evs: *const u32,
    /// Number of entropy values at `evs`.
    pub ev_count: u32,
    /// Receiver: base address of the ring of 8-byte retirement flags.
    pub recv_flag_base: u64,
    /// Receiver: slots in the ring (0: no flags).
    pub recv_flag_slots: u32,
    /// Sender: base address of the array of 8-byte completion flags.
    pub send_flag_base: u64,
    /// Sender: slots in the array (0: no flags).
    pub send_flag_slots: u32,
    /// 1: the QP's sender completions go to completion queue `send_cq`; 0: they are
    /// reported without a place in memory.
    pub has_send_cq: u8,
    /// The send completion queue (with `has_send_cq`).
    pub send_cq: u32,
    /// 1: the QP's receive completions go to completion queue `recv_cq`; 0: they are
    /// reported without a place in memory.
    pub has_recv_cq: u8,
    /// The receive completion queue (with `has_recv_cq`).
    pub recv_cq: u32,
}

/// One input, for `openrdma_push_inputs`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Input {
    /// When it reaches the device, ns since the start; never earlier than the model's time.
    pub at_ns: u64,
    /// An `openrdma_input_kind`.
    pub kind: u32,
    /// `OPENRDMA_INPUT_KIND_FRAME`: the port it arrives on.
    pub port: u16,
    /// `OPENRDMA_INPUT_KIND_FRAME`: the Ethernet frame, without FCS.
    pub bytes: *const u8,
    /// `OPENRDMA_INPUT_KIND_FRAME`: its length in bytes.
    pub len: u32,
    /// `OPENRDMA_INPUT_KIND_HOST_JSON` and `_CPU_JSON`: the command, NUL-terminated JSON.
    pub json: *const c_char,
    /// `OPENRDMA_INPUT_KIND_DOORBELL`: the token, as the 64-bit value the GPU stored.
    pub token: u64,
}

/// The header fields of a frame that a testbench drives or compares most often, decoded:
/// for an output frame in `openrdma_output.frame` (the whole decoding is in
/// `openrdma_output.json`), for any frame by `openrdma_decode_frame` — what a block behind
/// the packet parser takes instead of bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameFields {
    /// Whether the frame decoded up to its BTH; when false every other field is 0.
    pub has_bth: bool,
    /// Whether its ICRC is right.
    pub icrc_ok: bool,
    /// BTH opcode (0xDC a SACK, 0xDD a NACK, 0xD1 a transport ACK, 0xC6-0xCB writes).
    pub opcode: u8,
    /// BTH destination QP.
    pub dest_qp: u32,
    /// BTH PSN.
    pub psn: u32,
    /// BTH AckReq.
    pub ack_req: bool,
    /// BTH `rtx`: a retransmission.
    pub rtx: bool,
    /// The entropy value (path) of the frame: UDP source port, and for IPv6 the flow label.
    pub entropy: u32,
    /// Payload bytes after the extension headers, without pad and ICRC.
    pub payload_len: u32,
    /// Whether a METH (an MRC write) follows; the next field is its.
    pub has_meth: bool,
    /// METH message sequence number.
    pub msn: u16,
    /// Whether a TSETH follows; the next field is its.
    pub has_tseth: bool,
    /// TSETH transmit timestamp.
    pub tx_timestamp: u16,
    /// Whether a RETH follows; the next three fields are its.
    pub has_reth: bool,
    /// RETH virtual address.
    pub va: u64,
    /// RETH remote key.
    pub rkey: u32,
    /// RETH DMA length: the whole message's length.
    pub dma_len: u32,
    /// Whether a SETH (a SACK) follows; the next six fields are its.
    pub has_seth: bool,
    /// SETH cumulative acknowledged PSN.
    pub cack_psn: u32,
    /// SETH offset of the PSN that triggered the SACK from `cack_psn`.
    pub ack_psn_offset: i16,
    /// SETH offset of the bitmap's base from `cack_psn`.
    pub sack_offset: i16,
    /// SETH bitmap: bit i is PSN `cack_psn + sack_offset + i`.
    pub sack_bitmap: u64,
    /// SETH window, in units of 128 packets.
    pub mpr: u8,
    /// SETH `pr`: the SACK answers a probe.
    pub probe_response: bool,
    /// Whether a NETH (a NACK) follows; the next two fields are its.
    pub has_neth: bool,
    /// NETH NACKed PSN.
    pub nack_psn: u32,
    /// NETH reason (0x0B PSN_OOR_WINDOW, ...).
    pub nack_reason: u8,
    /// Whether an AETH (a transport ACK or NAK) follows; the next two fields are its.
    pub has_aeth: bool,
    /// AETH syndrome.
    pub aeth_syndrome: u8,
    /// AETH MSN.
    pub aeth_msn: u32,
    /// Whether an EETH (an endpoint response) follows; the next four fields are its.
    pub has_eeth: bool,
    /// EETH operation answered (0 `PORT_STATUS_UPDATE`, 1 `EV_PROBE`, or the request's
    /// unknown code).
    pub eeth_op: u8,
    /// EETH status: 0 success, 1 unsupported operation.
    pub eeth_status: u8,
    /// EETH request identifier, echoed from the request.
    pub eeth_request_id: u32,
    /// EETH port-status mask of the responder, port p in bit p.
    pub eeth_port_status: u32,
}

/// A DMA write's fields (`OPENRDMA_OUTPUT_KIND_DMA_WRITE`); the payload is
/// `openrdma_output.bytes`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DmaWriteFields {
    /// PSN of the packet that carried the payload.
    pub psn: u32,
    /// MSN of its message.
    pub msn: u16,
    /// Destination address.
    pub va: u64,
}

/// A flag write's fields (`OPENRDMA_OUTPUT_KIND_FLAG_WRITE`); `openrdma_output.bytes`
/// holds the 8 bytes written, little-endian.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlagWriteFields {
    /// Which side wrote it.
    pub side: Side,
    /// MSN of the message it completes.
    pub msn: u16,
    /// Address of the flag word.
    pub addr: u64,
    /// The 64-bit value written.
    pub value: u64,
}

/// A completion's fields (`OPENRDMA_OUTPUT_KIND_COMPLETION`); `openrdma_output.bytes`
/// holds the 32-byte entry as written to memory, and `in_queue` says whether it was
/// written to a completion queue, and where.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompletionFields {
    /// Which side produced it.
    pub side: Side,
    /// Work request ID (the token for an expanded doorbell, 0 for a receive).
    pub wr_id: u64,
    /// Status code (0 success).
    pub status: u8,
    /// Work-request opcode.
    pub opcode: u8,
    /// MSN of the message.
    pub msn: u16,
    /// Payload bytes of the message.
    pub byte_len: u32,
    /// Immediate data (meaningful when `has_imm`).
    pub imm: u32,
    /// Whether `imm` is meaningful.
    pub has_imm: bool,
    /// Whether the receiver of the message wrote it.
    pub is_receive: bool,
    /// Whether `timestamp` holds the NIC's clock.
    pub has_timestamp: bool,
    /// Low 32 bits of the NIC's clock, ns, when it wrote the entry.
    pub timestamp: u32,
    /// The phase of the ring pass that wrote the entry.
    pub phase: bool,
    /// Whether the entry was written to a completion queue (the next three fields).
    pub in_queue: bool,
    /// The completion queue.
    pub cq: u32,
    /// The slot: the queue's k-th entry goes to slot k mod N.
    pub slot: u32,
    /// The address of the slot.
    pub addr: u64,
}

/// One output of the device. The pointers stay valid until the next call on the same
/// instance (other than `openrdma_last_error`), and the library owns what they point to.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Output {
    /// When the device produced it, ns since the start.
    pub at_ns: u64,
    /// What it is.
    pub kind: OutputKind,
    /// `FRAME`: the port it leaves on; 0 otherwise.
    pub port: u16,
    /// The QP of an event; for a frame, the BTH destination QP (0 without a BTH).
    pub qpn: u32,
    /// `FRAME`: the Ethernet frame without FCS; `DMA_WRITE`: the payload; `FLAG_WRITE`:
    /// the 8 bytes written; `COMPLETION`: the 32-byte entry; `REPORT`: NULL.
    pub bytes: *const u8,
    /// Number of bytes at `bytes`.
    pub len: u32,
    /// NUL-terminated JSON: for a frame its decoded headers, as `openrdma dissect --json`
    /// prints them; for an event the event, as the adapter protocol writes it
    /// (`{"event":"dma_write",...}`).
    pub json: *const c_char,
    /// Length of `json` in bytes, without the NUL.
    pub json_len: u32,
    /// `FRAME`: decoded header fields.
    pub frame: FrameFields,
    /// `DMA_WRITE`: its fields.
    pub dma_write: DmaWriteFields,
    /// `FLAG_WRITE`: its fields.
    pub flag_write: FlagWriteFields,
    /// `COMPLETION`: its fields.
    pub completion: CompletionFields,
}

impl Default for Output {
    fn default() -> Output {
        Output {
            at_ns: 0,
            kind: OutputKind::None,
            port: 0,
            qpn: 0,
            bytes: ptr::null(),
            len: 0,
            json: ptr::null(),
            json_len: 0,
            frame: FrameFields::default(),
            dma_write: DmaWriteFields::default(),
            flag_write: FlagWriteFields::default(),
            completion: CompletionFields::default(),
        }
    }
}
