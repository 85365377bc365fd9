/*
 * openrdma.h - the OpenRDMA reference model as a C library (a golden model for testbenches).
 *
 * Generated from the openrdma-capi crate by cbindgen; do not edit. Link with -lopenrdma
 * (libopenrdma.so, or libopenrdma.a plus -lpthread -ldl -lm). See capi/README.md.
 *
 * Every function that can fail returns an openrdma_status (0 is success) and keeps a
 * message for openrdma_last_error(). An instance may move between threads, but only one
 * thread may use it at a time; instances share nothing.
 *
 * SPDX-License-Identifier: Apache-2.0 OR MIT
 */

#ifndef OPENRDMA_H
#define OPENRDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// The version of the C interface: the layout of every structure and the signature of
// every function. It changes whenever either changes; compare it with
// `openrdma_abi_version()` to detect a header that does not match the library.
#define OPENRDMA_ABI_VERSION 2

// `config.retirement`: one retirement sequence shared by the QPs of a domain.
#define OPENRDMA_RETIREMENT_SHARED 0

// `config.retirement`: one retirement sequence per QP.
#define OPENRDMA_RETIREMENT_PER_QP 1

// What a call did. Every function that can fail returns one; `OPENRDMA_STATUS_OK` is 0,
// every other value is a failure whose message `openrdma_last_error` gives.
enum openrdma_status
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : uint32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
    // Success.
    OPENRDMA_STATUS_OK = 0,
    // A pointer argument that must not be NULL was NULL.
    OPENRDMA_STATUS_NULL_POINTER = 1,
    // A string argument is not UTF-8.
    OPENRDMA_STATUS_INVALID_UTF8 = 2,
    // A JSON argument is not JSON, or not the object expected; the message names the
    // field and the line and column.
    OPENRDMA_STATUS_INVALID_JSON = 3,
    // The configuration (the manifest, or a configuration structure) cannot be used.
    OPENRDMA_STATUS_INVALID_CONFIG = 4,
    // An argument is out of range: a port the model does not have, an unknown kind, a
    // boolean other than 0 or 1, an unknown field name.
    OPENRDMA_STATUS_INVALID_ARGUMENT = 5,
    // Time went backwards: an input earlier than the model's time, or an `until` before it.
    OPENRDMA_STATUS_TIME_WENT_BACKWARDS = 6,
    // The model refused a host or CPU command (it breaks the model interface, e.g. a QP
    // that already exists). The command had no effect; outputs produced before it stay
    // queued.
    OPENRDMA_STATUS_REFUSED = 7,
    // The model failed (it could not build a frame it had to send).
    OPENRDMA_STATUS_DEVICE_FAILED = 8,
    // An internal error: the library panicked. The instance is unusable from then on;
    // every call but `openrdma_destroy` and `openrdma_last_error` returns this status.
    OPENRDMA_STATUS_PANIC = 9,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum openrdma_status openrdma_status;
#else
typedef uint32_t openrdma_status;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

// What an output is.
enum openrdma_output_kind
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : uint32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
    // No output: the queue was empty (`openrdma_next_output` only).
    OPENRDMA_OUTPUT_KIND_NONE = 0,
    // A frame the device sends on a port.
    OPENRDMA_OUTPUT_KIND_FRAME = 1,
    // Received payload written to memory (`dma_write`).
    OPENRDMA_OUTPUT_KIND_DMA_WRITE = 2,
    // A completion flag written to memory (`flag_write`).
    OPENRDMA_OUTPUT_KIND_FLAG_WRITE = 3,
    // A completion entry (`completion`).
    OPENRDMA_OUTPUT_KIND_COMPLETION = 4,
    // A report to the CPU half of recovery (`report`).
    OPENRDMA_OUTPUT_KIND_REPORT = 5,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum openrdma_output_kind openrdma_output_kind;
#else
typedef uint32_t openrdma_output_kind;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

// Which side of a connection wrote a flag or a completion.
enum openrdma_side
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : uint32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
    // The requester (sender) of the message.
    OPENRDMA_SIDE_REQUESTER = 0,
    // The responder (receiver) of the message.
    OPENRDMA_SIDE_RESPONDER = 1,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum openrdma_side openrdma_side;
#else
typedef uint32_t openrdma_side;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

// What an input is, in `openrdma_input.kind`.
enum openrdma_input_kind
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : uint32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
    // A frame arriving on a port: `port`, `bytes`, `len`.
    OPENRDMA_INPUT_KIND_FRAME = 1,
    // A host command as JSON: `json`.
    OPENRDMA_INPUT_KIND_HOST_JSON = 2,
    // A command from the CPU half of recovery as JSON: `json`.
    OPENRDMA_INPUT_KIND_CPU_JSON = 3,
    // A doorbell token: `token`.
    OPENRDMA_INPUT_KIND_DOORBELL = 4,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum openrdma_input_kind openrdma_input_kind;
#else
typedef uint32_t openrdma_input_kind;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

// One instance of the golden model: a reference NIC, the time it has reached, and its
// queue of outputs. Opaque to C: made by `openrdma_create` or `openrdma_create_with`,
// freed by `openrdma_destroy`.
typedef struct openrdma_model openrdma_model;

// The header fields of a frame that a testbench drives or compares most often, decoded:
// for an output frame in `openrdma_output.frame` (the whole decoding is in
// `openrdma_output.json`), for any frame by `openrdma_decode_frame` — what a block behind
// the packet parser takes instead of bytes.
typedef struct openrdma_frame_fields {
    // Whether the frame decoded up to its BTH; when false every other field is 0.
    bool has_bth;
    // Whether its ICRC is right.
    bool icrc_ok;
    // BTH opcode (0xDC a SACK, 0xDD a NACK, 0xD1 a transport ACK, 0xC6-0xCB writes).
    uint8_t opcode;
    // BTH destination QP.
    uint32_t dest_qp;
    // BTH PSN.
    uint32_t psn;
    // BTH AckReq.
    bool ack_req;
    // BTH `rtx`: a retransmission.
    bool rtx;
    // The entropy value (path) of the frame: UDP source port, and for IPv6 the flow label.
    uint32_t entropy;
    // Payload bytes after the extension headers, without pad and ICRC.
    uint32_t payload_len;
    // Whether a METH (an MRC write) follows; the next field is its.
    bool has_meth;
    // METH message sequence number.
    uint16_t msn;
    // Whether a TSETH follows; the next field is its.
    bool has_tseth;
    // TSETH transmit timestamp.
    uint16_t tx_timestamp;
    // Whether a RETH follows; the next three fields are its.
    bool has_reth;
    // RETH virtual address.
    uint64_t va;
    // RETH remote key.
    uint32_t rkey;
    // RETH DMA length: the whole message's length.
    uint32_t dma_len;
    // Whether a SETH (a SACK) follows; the next six fields are its.
    bool has_seth;
    // SETH cumulative acknowledged PSN.
    uint32_t cack_psn;
    // SETH offset of the PSN that triggered the SACK from `cack_psn`.
    int16_t ack_psn_offset;
    // SETH offset of the bitmap's base from `cack_psn`.
    int16_t sack_offset;
    // SETH bitmap: bit i is PSN `cack_psn + sack_offset + i`.
    uint64_t sack_bitmap;
    // SETH window, in units of 128 packets.
    uint8_t mpr;
    // SETH `pr`: the SACK answers a probe.
    bool probe_response;
    // Whether a NETH (a NACK) follows; the next two fields are its.
    bool has_neth;
    // NETH NACKed PSN.
    uint32_t nack_psn;
    // NETH reason (0x0B PSN_OOR_WINDOW, ...).
    uint8_t nack_reason;
    // Whether an AETH (a transport ACK or NAK) follows; the next two fields are its.
    bool has_aeth;
    // AETH syndrome.
    uint8_t aeth_syndrome;
    // AETH MSN.
    uint32_t aeth_msn;
    // Whether an EETH (an endpoint response) follows; the next four fields are its.
    bool has_eeth;
    // EETH operation answered (0 `PORT_STATUS_UPDATE`, 1 `EV_PROBE`, or the request's
    // unknown code).
    uint8_t eeth_op;
    // EETH status: 0 success, 1 unsupported operation.
    uint8_t eeth_status;
    // EETH request identifier, echoed from the request.
    uint32_t eeth_request_id;
    // EETH port-status mask of the responder, port p in bit p.
    uint32_t eeth_port_status;
} openrdma_frame_fields;

// The device's configuration, for `openrdma_create_with`: the model's defaults with the
// fields a testbench most often changes. `openrdma_config_default` fills it; the other
// fields of a manifest (the link's addresses, a VLAN) take their defaults, and a manifest
// in JSON (`openrdma_create`) sets any of them.
typedef struct openrdma_config {
    // Number of ports (at least 1).
    uint16_t ports;
    // Seed of every random choice the model makes.
    uint64_t seed;
    // Path MTU: 256, 512, 1024, 2048 or 4096 payload bytes per packet.
    uint32_t pmtu;
    // Receive and send window, in units of 128 packets (1 to 64).
    uint8_t mpr;
    // `OPENRDMA_RETIREMENT_SHARED` or `OPENRDMA_RETIREMENT_PER_QP`.
    uint32_t retirement;
    // The receiver sends a SACK after this many accepted packets.
    uint32_t sack_coalesce;
    // ... or at the latest this many nanoseconds after an unacknowledged packet.
    uint64_t sack_delay_ns;
    // The receiver sends a transport ACK after this many retired messages.
    uint32_t ack_coalesce;
    // The sender sets AckReq on every Nth packet (and on the last of each message).
    uint32_t ack_req_every;
    // How long an entropy value stays in SKIP, ns.
    uint64_t skip_hold_ns;
    // Delay before retransmitting after a resource NACK, ns.
    uint64_t nack_backoff_ns;
    // Write-with-Immediate messages in flight per QP.
    uint16_t wwi_limit;
    // 1: the sender adds a TSETH to every write packet; 0: it does not.
    uint8_t timestamps;
    // Maximum number of QPs.
    uint32_t max_qps;
    // Tail probing (SND-TAIL-001): the delay, ns, after an EV's last data transmission
    // before a probe follows it; 0 turns tail probing off (the default).
    uint64_t tail_probe_ns;
} openrdma_config;

// A QP's configuration, for `openrdma_push_create_qp`: the fields of the `create_qp` host
// command that a testbench sets; the QP sprays round-robin with no congestion window.
// The `create_qp` command in JSON (`openrdma_push_host_json`) sets every field.
typedef struct openrdma_qp_config {
    // This QP's number (24 bits).
    uint32_t qpn;
    // The peer QP's number (24 bits).
    uint32_t peer_qpn;
    // First PSN this QP sends.
    uint32_t initial_psn;
    // First PSN this QP expects to receive.
    uint32_t peer_initial_psn;
    // Retirement domain.
    uint32_t domain;
    // The entropy values the QP sprays over, in order (`ev_count` of them, at least one).
    const uint32_t *evs;
    // Number of entropy values at `evs`.
    uint32_t ev_count;
    // Receiver: base address of the ring of 8-byte retirement flags.
    uint64_t recv_flag_base;
    // Receiver: slots in the ring (0: no flags).
    uint32_t recv_flag_slots;
    // Sender: base address of the array of 8-byte completion flags.
    uint64_t send_flag_base;
    // Sender: slots in the array (0: no flags).
    uint32_t send_flag_slots;
    // 1: the QP's sender completions go to completion queue `send_cq`; 0: they are
    // reported without a place in memory.
    uint8_t has_send_cq;
    // The send completion queue (with `has_send_cq`).
    uint32_t send_cq;
    // 1: the QP's receive completions go to completion queue `recv_cq`; 0: they are
    // reported without a place in memory.
    uint8_t has_recv_cq;
    // The receive completion queue (with `has_recv_cq`).
    uint32_t recv_cq;
} openrdma_qp_config;

// One input, for `openrdma_push_inputs`.
typedef struct openrdma_input {
    // When it reaches the device, ns since the start; never earlier than the model's time.
    uint64_t at_ns;
    // An `openrdma_input_kind`.
    uint32_t kind;
    // `OPENRDMA_INPUT_KIND_FRAME`: the port it arrives on.
    uint16_t port;
    // `OPENRDMA_INPUT_KIND_FRAME`: the Ethernet frame, without FCS.
    const uint8_t *bytes;
    // `OPENRDMA_INPUT_KIND_FRAME`: its length in bytes.
    uint32_t len;
    // `OPENRDMA_INPUT_KIND_HOST_JSON` and `_CPU_JSON`: the command, NUL-terminated JSON.
    const char *json;
    // `OPENRDMA_INPUT_KIND_DOORBELL`: the token, as the 64-bit value the GPU stored.
    uint64_t token;
} openrdma_input;

// A DMA write's fields (`OPENRDMA_OUTPUT_KIND_DMA_WRITE`); the payload is
// `openrdma_output.bytes`.
typedef struct openrdma_dma_write_fields {
    // PSN of the packet that carried the payload.
    uint32_t psn;
    // MSN of its message.
    uint16_t msn;
    // Destination address.
    uint64_t va;
} openrdma_dma_write_fields;

// A flag write's fields (`OPENRDMA_OUTPUT_KIND_FLAG_WRITE`); `openrdma_output.bytes`
// holds the 8 bytes written, little-endian.
typedef struct openrdma_flag_write_fields {
    // Which side wrote it.
    openrdma_side side;
    // MSN of the message it completes.
    uint16_t msn;
    // Address of the flag word.
    uint64_t addr;
    // The 64-bit value written.
    uint64_t value;
} openrdma_flag_write_fields;

// A completion's fields (`OPENRDMA_OUTPUT_KIND_COMPLETION`); `openrdma_output.bytes`
// holds the 32-byte entry as written to memory, and `in_queue` says whether it was
// written to a completion queue, and where.
typedef struct openrdma_completion_fields {
    // Which side produced it.
    openrdma_side side;
    // Work request ID (the token for an expanded doorbell, 0 for a receive).
    uint64_t wr_id;
    // Status code (0 success).
    uint8_t status;
    // Work-request opcode.
    uint8_t opcode;
    // MSN of the message.
    uint16_t msn;
    // Payload bytes of the message.
    uint32_t byte_len;
    // Immediate data (meaningful when `has_imm`).
    uint32_t imm;
    // Whether `imm` is meaningful.
    bool has_imm;
    // Whether the receiver of the message wrote it.
    bool is_receive;
    // Whether `timestamp` holds the NIC's clock.
    bool has_timestamp;
    // Low 32 bits of the NIC's clock, ns, when it wrote the entry.
    uint32_t timestamp;
    // The phase of the ring pass that wrote the entry.
    bool phase;
    // Whether the entry was written to a completion queue (the next three fields).
    bool in_queue;
    // The completion queue.
    uint32_t cq;
    // The slot: the queue's k-th entry goes to slot k mod N.
    uint32_t slot;
    // The address of the slot.
    uint64_t addr;
} openrdma_completion_fields;

// One output of the device. The pointers stay valid until the next call on the same
// instance (other than `openrdma_last_error`), and the library owns what they point to.
typedef struct openrdma_output {
    // When the device produced it, ns since the start.
    uint64_t at_ns;
    // What it is.
    openrdma_output_kind kind;
    // `FRAME`: the port it leaves on; 0 otherwise.
    uint16_t port;
    // The QP of an event; for a frame, the BTH destination QP (0 without a BTH).
    uint32_t qpn;
    // `FRAME`: the Ethernet frame without FCS; `DMA_WRITE`: the payload; `FLAG_WRITE`:
    // the 8 bytes written; `COMPLETION`: the 32-byte entry; `REPORT`: NULL.
    const uint8_t *bytes;
    // Number of bytes at `bytes`.
    uint32_t len;
    // NUL-terminated JSON: for a frame its decoded headers, as `openrdma dissect --json`
    // prints them; for an event the event, as the adapter protocol writes it
    // (`{"event":"dma_write",...}`).
    const char *json;
    // Length of `json` in bytes, without the NUL.
    uint32_t json_len;
    // `FRAME`: decoded header fields.
    struct openrdma_frame_fields frame;
    // `DMA_WRITE`: its fields.
    struct openrdma_dma_write_fields dma_write;
    // `FLAG_WRITE`: its fields.
    struct openrdma_flag_write_fields flag_write;
    // `COMPLETION`: its fields.
    struct openrdma_completion_fields completion;
} openrdma_output;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

// The version of the C interface the library implements; equal to `OPENRDMA_ABI_VERSION`
// of the header it was built with. A program should check it once before any other call.
uint32_t openrdma_abi_version(void);

// The library's version, e.g. "0.1.0": a static NUL-terminated string.
const char *openrdma_version(void);

// The name of a status code, e.g. "OPENRDMA_STATUS_INVALID_JSON", or "unknown status":
// a static NUL-terminated string.
const char *openrdma_status_name(uint32_t status);

// The message of the last failed call: on the instance `m`, or, when `m` is NULL, on the
// calling thread by a call that had no instance (`openrdma_create*`, or a call given a
// NULL instance). "" when no such call has failed. The string stays valid until the next
// call on the same instance (or, for NULL, the next failing call on the same thread).
//
// # Safety
//
// `m` is NULL or a live instance that no other thread is using.
const char *openrdma_last_error(const struct openrdma_model *m);

// The size in bytes of `openrdma_output`, for bindings that declare the structure
// themselves (Python ctypes, ...) and want to check their declaration.
uint32_t openrdma_output_size(void);

// Decodes the headers of a frame (`len` bytes of Ethernet frame without FCS) into `out`,
// without an instance: what a testbench gives a block that sits behind the packet parser.
// A frame that is not RoCEv2 leaves `out->has_bth` false; that is not an error.
//
// # Safety
//
// `bytes` is NULL or points to `len` readable bytes; `out` is NULL or writable.
openrdma_status openrdma_decode_frame(const uint8_t *bytes,
                                      uint32_t len,
                                      struct openrdma_frame_fields *out);

// Fills `cfg` with the model's defaults (one port, IPv4, PMTU 4096, ...), to be changed
// field by field before `openrdma_create_with`.
//
// # Safety
//
// `cfg` is NULL (an error) or points to writable memory for an `openrdma_config`.
openrdma_status openrdma_config_default(struct openrdma_config *cfg);

// Creates an instance configured by a scenario manifest in JSON: the object the adapter
// protocol's `start` message carries (`name`, `description`, `requirements` and the
// optional `nic`, `ports`, `link`, ...; see the specification's conformance chapter,
// section 3.1). On success `*out` is the instance; on failure it is NULL and
// `openrdma_last_error(NULL)` says why.
//
// # Safety
//
// `manifest_json` is NULL or a NUL-terminated string; `out` is NULL or writable.
openrdma_status openrdma_create(const char *manifest_json, struct openrdma_model **out);

// Creates an instance from a configuration structure (see `openrdma_config_default`).
// On success `*out` is the instance; on failure it is NULL and
// `openrdma_last_error(NULL)` says why.
//
// # Safety
//
// `cfg` is NULL or points to an `openrdma_config`; `out` is NULL or writable.
openrdma_status openrdma_create_with(const struct openrdma_config *cfg,
                                     struct openrdma_model **out);

// Destroys an instance and everything its outputs point to. NULL is ignored.
//
// # Safety
//
// `m` is NULL or an instance from `openrdma_create*` not yet destroyed, that no other
// thread is using; it must not be used afterwards.
void openrdma_destroy(struct openrdma_model *m);

// The model's time in ns: the latest input time or `until` it was given.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `now_ns` is NULL or writable.
openrdma_status openrdma_now(struct openrdma_model *m, uint64_t *now_ns);

// The number of outputs waiting to be popped.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `count` is NULL or writable.
openrdma_status openrdma_pending(struct openrdma_model *m, uint32_t *count);

// A frame arriving on `port` at `at_ns`: `len` bytes of Ethernet frame without FCS. A
// frame the device drops (bad ICRC, not MRC, breaking the specification) is not an error:
// dropping it is what the device does.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `bytes` is NULL or points to
// `len` readable bytes.
openrdma_status openrdma_push_frame(struct openrdma_model *m,
                                    uint64_t at_ns,
                                    uint16_t port,
                                    const uint8_t *bytes,
                                    uint32_t len);

// A host command in JSON, as in the adapter protocol: `{"command":"create_qp",...}`,
// `register_region`, `register_local`, `deregister_local`, `create_cq`, `set_error_cq`,
// `cq_consumer`, `set_template`, `doorbell`, `post_write`, `doorbell_write`. A command the
// model refuses is `OPENRDMA_STATUS_REFUSED` and has no effect; a doorbell the device
// rejects is not an error (its error completion is an output).
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `json` is NULL or a
// NUL-terminated string.
openrdma_status openrdma_push_host_json(struct openrdma_model *m, uint64_t at_ns, const char *json);

// A command from the CPU half of recovery in JSON, as in the adapter protocol:
// `{"cmd":"retransmit","qpn":17,"psn":3}`, `probe`, `set_ev_state`, `qp_error`,
// `endpoint_request`.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `json` is NULL or a
// NUL-terminated string.
openrdma_status openrdma_push_cpu_json(struct openrdma_model *m, uint64_t at_ns, const char *json);

// A doorbell: the GPU's 8-byte token, as the 64-bit value it stored.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using.
openrdma_status openrdma_push_doorbell(struct openrdma_model *m, uint64_t at_ns, uint64_t token);

// A write to doorbell register `reg` as it crosses the bus: `len` bytes from `bytes`,
// starting at byte `offset` of the register, the byte at the lowest address first. Only
// one aligned write of all 8 bytes (`offset` 0, `len` 8) carries a token, read
// little-endian, whichever register; the device ignores any other write, which is not an
// error (DB-MMIO-002, DB-MMIO-003, DB-FORMAT-002).
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `bytes` is NULL or points to
// `len` readable bytes (it may be NULL when `len` is 0).
openrdma_status openrdma_push_doorbell_write(struct openrdma_model *m,
                                             uint64_t at_ns,
                                             uint32_t reg,
                                             uint8_t offset,
                                             const uint8_t *bytes,
                                             uint32_t len);

// Registers a memory region that remote writes may target: `len` bytes from `base`,
// named by `rkey`; `remote_write` is 1 to allow remote writes, 0 to refuse them.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using.
openrdma_status openrdma_push_register_region(struct openrdma_model *m,
                                              uint64_t at_ns,
                                              uint32_t rkey,
                                              uint64_t base,
                                              uint64_t len,
                                              uint8_t remote_write);

// Registers memory the NIC may read under the local key `lkey` (the local region of a
// template must lie in such memory, TPL-KEY-001): `len` bytes from `base`; `local_read`
// is 1 to let the NIC read them, 0 not to.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using.
openrdma_status openrdma_push_register_local(struct openrdma_model *m,
                                             uint64_t at_ns,
                                             uint32_t lkey,
                                             uint64_t base,
                                             uint64_t len,
                                             uint8_t local_read);

// Ends the local registration `lkey`; every template under it is disabled first, so that
// its tokens are rejected as naming no template (TPL-KEY-002).
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using.
openrdma_status openrdma_push_deregister_local(struct openrdma_model *m,
                                               uint64_t at_ns,
                                               uint32_t lkey);

// Creates completion queue `cq`: `entries` slots of 32 bytes from `base` (a multiple of 32;
// `entries` a power of two from 1 to 2^31). A QP names it in `openrdma_qp_config`.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using.
openrdma_status openrdma_push_create_cq(struct openrdma_model *m,
                                        uint64_t at_ns,
                                        uint32_t cq,
                                        uint64_t base,
                                        uint32_t entries);

// Designates completion queue `cq` as the device error queue, which receives the
// completions of tokens that name no usable template (CQE-REJECT-002).
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using.
openrdma_status openrdma_push_set_error_cq(struct openrdma_model *m, uint64_t at_ns, uint32_t cq);

// Writes the consumer register of completion queue `cq`: `consumed` is the total number
// of entries consumed since the queue was created, modulo 2^32, which releases their slots
// (CQE-RING-004). A count that releases an entry not yet written is refused.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using.
openrdma_status openrdma_push_cq_consumer(struct openrdma_model *m,
                                          uint64_t at_ns,
                                          uint32_t cq,
                                          uint32_t consumed);

// Creates a QP (see `openrdma_qp_config`).
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `cfg` is NULL or points to an
// `openrdma_qp_config` whose `evs` is NULL or points to `ev_count` entropy values.
openrdma_status openrdma_push_create_qp(struct openrdma_model *m,
                                        uint64_t at_ns,
                                        const struct openrdma_qp_config *cfg);

// A batch of inputs, applied in order up to the first that fails. `*applied` (when
// `applied` is not NULL) is the number applied: `count` on success; on failure the index
// of the one that failed, which had no effect.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `inputs` is NULL or points to
// `count` `openrdma_input`s whose pointers are valid as their kinds require; `applied`
// is NULL or writable.
openrdma_status openrdma_push_inputs(struct openrdma_model *m,
                                     const struct openrdma_input *inputs,
                                     uint32_t count,
                                     uint32_t *applied);

// A batch of inputs in the adapter protocol's JSON (the specification's conformance
// chapter, section 9.4): one input object, `{"at":0,"input":{"kind":"host",
// "command":{...}}}`, or an array of them; frame bytes in hexadecimal. Every input is
// decoded before any is applied; they are then applied in order up to the first that
// fails. `*applied` (when `applied` is not NULL) is the number applied.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `json` is NULL or a
// NUL-terminated string; `applied` is NULL or writable.
openrdma_status openrdma_push_inputs_json(struct openrdma_model *m,
                                          const char *json,
                                          uint32_t *applied);

// Lets time run to `until_ns` with no input: timers fire, delayed SACKs fall due, and
// what the device produced is queued.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using.
openrdma_status openrdma_advance(struct openrdma_model *m, uint64_t until_ns);

// Pops up to `cap` outputs, oldest first, into `outs`; `*count` is the number written.
// Their pointers stay valid until the next call on the instance (other than
// `openrdma_last_error`); outputs popped by an earlier call become invalid.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `outs` is NULL or points to
// `cap` writable `openrdma_output`s; `count` is NULL or writable.
openrdma_status openrdma_pop_outputs(struct openrdma_model *m,
                                     struct openrdma_output *outs,
                                     uint32_t cap,
                                     uint32_t *count);

// Pops one output and makes it the instance's current output, for callers that cannot
// read C structures (a SystemVerilog DPI-C testbench): `*kind` is its
// `openrdma_output_kind` (`OPENRDMA_OUTPUT_KIND_NONE` when the queue was empty) and
// `*at_ns` its time. `openrdma_output_field`, `openrdma_output_bytes` and
// `openrdma_output_json` then read it, until the next call that pops.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `kind` and `at_ns` are NULL
// or writable.
openrdma_status openrdma_next_output(struct openrdma_model *m, uint32_t *kind, uint64_t *at_ns);

// A field of the current output, by name: `at_ns`, `kind`, `port`, `qpn`, `len`, or
// `frame.X`, `dma_write.X`, `flag_write.X`, `completion.X` for a member `X` of the
// structure of that name (`frame.cack_psn`, `dma_write.va`, `flag_write.value`, ...).
// Booleans read 0 or 1; signed fields are sign-extended. A field of another kind of output
// is `OPENRDMA_STATUS_INVALID_ARGUMENT`.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `name` is NULL or a
// NUL-terminated string; `value` is NULL or writable.
openrdma_status openrdma_output_field(struct openrdma_model *m, const char *name, uint64_t *value);

// Copies the bytes of the current output (see `openrdma_output.bytes`) into `buf`, which
// holds `cap` bytes; `*len` is their number. When `cap` is too small nothing is copied,
// `*len` is still set, and the status is `OPENRDMA_STATUS_INVALID_ARGUMENT`.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using; `buf` is NULL or points to
// `cap` writable bytes; `len` is NULL or writable.
openrdma_status openrdma_output_bytes(struct openrdma_model *m,
                                      uint8_t *buf,
                                      uint32_t cap,
                                      uint32_t *len);

// The JSON of the current output (see `openrdma_output.json`), NUL-terminated, valid
// until the next call that pops; "" when there is no current output or `m` is NULL.
//
// # Safety
//
// `m` is NULL or a live instance no other thread is using.
const char *openrdma_output_json(const struct openrdma_model *m);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* OPENRDMA_H */
