//! The C functions: the only module with `unsafe` code. Each function checks its pointer
//! arguments, turns them into Rust references and slices (the `unsafe` part, under the
//! contract its `# Safety` section states), and calls [`Model`]. No panic crosses the
//! boundary: every body runs under [`catch_unwind`], and an instance that panicked is
//! poisoned and answers [`Status::Panic`] from then on.

#![allow(unsafe_code)]

use core::ffi::{CStr, c_char};
use std::cell::RefCell;
use std::ffi::CString;
use std::panic::{AssertUnwindSafe, catch_unwind};

use openrdma_codec::{Lkey, Rkey};
use openrdma_device::CqId;

use crate::model::{Error, Model, c_string, default_config, flag, frame_fields};
use crate::types::{
    ABI_VERSION, Config, FrameFields, Input, InputKind, Output, OutputKind, QpConfig, Status,
};

thread_local! {
    /// The message of the last failed call on this thread that had no instance to keep it:
    /// a constructor, or a call given a NULL instance.
    static THREAD_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_thread_error(message: &str) {
    THREAD_ERROR.with(|e| *e.borrow_mut() = c_string(message));
}

fn panic_message(payload: &(dyn core::any::Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    format!("internal error: the library panicked ({what}); please report it")
}

/// Runs `f` for a call that has no instance, keeping its error in the thread's slot.
fn guard_global(f: impl FnOnce() -> Result<(), Error>) -> Status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => Status::Ok,
        Ok(Err(e)) => {
            set_thread_error(&e.message);
            e.status
        }
        Err(payload) => {
            set_thread_error(&panic_message(payload.as_ref()));
            Status::Panic
        }
    }
}

/// Runs `f` on the instance `m`, keeping its error in the instance.
///
/// # Safety
///
/// `m` is NULL or an instance from `openrdma_create*` that has not been destroyed and that
/// no other thread is using.
unsafe fn guard(m: *mut Model, f: impl FnOnce(&mut Model) -> Result<(), Error>) -> Status {
    if m.is_null() {
        set_thread_error("the instance argument `m` is NULL");
        return Status::NullPointer;
    }
    // SAFETY: `m` is not NULL and, by the caller's contract, a live instance that only
    // this thread uses, so a unique reference to it is sound for this call.
    let model = unsafe { &mut *m };
    if model.is_poisoned() {
        return Status::Panic;
    }
    match catch_unwind(AssertUnwindSafe(|| f(model))) {
        Ok(Ok(())) => Status::Ok,
        Ok(Err(e)) => {
            // SAFETY: as above; the reference given to `f` is no longer used.
            let model = unsafe { &mut *m };
            model.set_error(&e.message);
            e.status
        }
        Err(payload) => {
            // SAFETY: as above; the reference given to `f` is no longer used.
            let model = unsafe { &mut *m };
            model.poison();
            model.set_error(&panic_message(payload.as_ref()));
            Status::Panic
        }
    }
}

fn null(what: &str) -> Error {
    Error::new(Status::NullPointer, format!("the argument `{what}` is NULL"))
}

/// A NUL-terminated UTF-8 string argument.
///
/// # Safety
///
/// `p` is NULL or points to a NUL-terminated string that stays unchanged during the call.
unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str, Error> {
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: `p` is not NULL and, by the caller's contract, NUL-terminated and unchanged.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str().map_err(|e| {
        Error::new(
            Status::InvalidUtf8,
            format!(
                "the argument `{what}` is not UTF-8: invalid byte at offset {}",
                e.valid_up_to()
            ),
        )
    })
}

/// A byte-array argument.
///
/// # Safety
///
/// `p` is NULL or points to `len` readable bytes that stay unchanged during the call.
unsafe fn bytes<'a>(p: *const u8, len: u32, what: &str) -> Result<&'a [u8], Error> {
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: `p` is not NULL and, by the caller's contract, points to `len` readable
    // bytes; `len` fits in `usize` on every target this library builds for (32 bits or more).
    Ok(unsafe { core::slice::from_raw_parts(p, len as usize) })
}

/// Writes `v` through an out-pointer argument.
///
/// # Safety
///
/// `p` is NULL or points to writable, aligned memory for a `T`.
unsafe fn put<T>(p: *mut T, v: T, what: &str) -> Result<(), Error> {
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: `p` is not NULL and, by the caller's contract, writable and aligned for `T`.
    unsafe { p.write(v) };
    Ok(())
}

/// Writes `v` through an optional out-pointer argument (nothing when it is NULL).
///
/// # Safety
///
/// `p` is NULL or points to writable, aligned memory for a `T`.
unsafe fn put_opt<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: `p` is not NULL and, by the caller's contract, writable and aligned.
        unsafe { p.write(v) };
    }
}

// ----- version and errors ----------------------------------------------------------------

/// The version of the C interface the library implements; equal to `OPENRDMA_ABI_VERSION`
/// of the header it was built with. A program should check it once before any other call.
#[unsafe(no_mangle)]
pub extern "C" fn openrdma_abi_version() -> u32 {
    ABI_VERSION
}

/// The library's version, e.g. "0.1.0": a static NUL-terminated string.
#[unsafe(no_mangle)]
pub extern "C" fn openrdma_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The name of a status code, e.g. "OPENRDMA_STATUS_INVALID_JSON", or "unknown status":
/// a static NUL-terminated string.
#[unsafe(no_mangle)]
pub extern "C" fn openrdma_status_name(status: u32) -> *const c_char {
    match Status::from_code(status) {
        Some(s) => s.name().as_ptr().cast(),
        None => c"unknown status".as_ptr(),
    }
}

/// The message of the last failed call: on the instance `m`, or, when `m` is NULL, on the
/// calling thread by a call that had no instance (`openrdma_create*`, or a call given a
/// NULL instance). "" when no such call has failed. The string stays valid until the next
/// call on the same instance (or, for NULL, the next failing call on the same thread).
///
/// # Safety
///
/// `m` is NULL or a live instance that no other thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_last_error(m: *const Model) -> *const c_char {
    if m.is_null() {
        return THREAD_ERROR.with(|e| e.borrow().as_ptr());
    }
    // SAFETY: `m` is not NULL and, by the caller's contract, a live instance.
    let model = unsafe { &*m };
    model.last_error().as_ptr()
}

/// The size in bytes of `openrdma_output`, for bindings that declare the structure
/// themselves (Python ctypes, ...) and want to check their declaration.
#[unsafe(no_mangle)]
pub extern "C" fn openrdma_output_size() -> u32 {
    core::mem::size_of::<Output>() as u32
}

/// Decodes the headers of a frame (`len` bytes of Ethernet frame without FCS) into `out`,
/// without an instance: what a testbench gives a block that sits behind the packet parser.
/// A frame that is not RoCEv2 leaves `out->has_bth` false; that is not an error.
///
/// # Safety
///
/// `bytes` is NULL or points to `len` readable bytes; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_decode_frame(
    bytes: *const u8,
    len: u32,
    out: *mut FrameFields,
) -> Status {
    guard_global(|| {
        // SAFETY: the caller's contract on `bytes` is `bytes`'s.
        let frame = unsafe { self::bytes(bytes, len, "bytes") }?;
        // SAFETY: the caller's contract on `out` is `put`'s.
        unsafe { put(out, frame_fields(frame), "out") }
    })
}

// ----- instances -------------------------------------------------------------------------

/// Fills `cfg` with the model's defaults (one port, IPv4, PMTU 4096, ...), to be changed
/// field by field before `openrdma_create_with`.
///
/// # Safety
///
/// `cfg` is NULL (an error) or points to writable memory for an `openrdma_config`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_config_default(cfg: *mut Config) -> Status {
    guard_global(|| {
        // SAFETY: the caller's contract on `cfg` is `put`'s.
        unsafe { put(cfg, default_config(), "cfg") }
    })
}

/// Creates an instance configured by a scenario manifest in JSON: the object the adapter
/// protocol's `start` message carries (`name`, `description`, `requirements` and the
/// optional `nic`, `ports`, `link`, ...; see the specification's conformance chapter,
/// section 3.1). On success `*out` is the instance; on failure it is NULL and
/// `openrdma_last_error(NULL)` says why.
///
/// # Safety
///
/// `manifest_json` is NULL or a NUL-terminated string; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_create(
    manifest_json: *const c_char,
    out: *mut *mut Model,
) -> Status {
    guard_global(|| {
        // SAFETY: the caller's contract on `out` is `put_opt`'s.
        unsafe { put_opt(out, core::ptr::null_mut()) };
        // SAFETY: the caller's contract on `manifest_json` is `text`'s.
        let json = unsafe { text(manifest_json, "manifest_json") }?;
        let model = Model::from_json(json)?;
        // SAFETY: the caller's contract on `out` is `put`'s.
        unsafe { put(out, Box::into_raw(Box::new(model)), "out") }
    })
}

/// Creates an instance from a configuration structure (see `openrdma_config_default`).
/// On success `*out` is the instance; on failure it is NULL and
/// `openrdma_last_error(NULL)` says why.
///
/// # Safety
///
/// `cfg` is NULL or points to an `openrdma_config`; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_create_with(cfg: *const Config, out: *mut *mut Model) -> Status {
    guard_global(|| {
        // SAFETY: the caller's contract on `out` is `put_opt`'s.
        unsafe { put_opt(out, core::ptr::null_mut()) };
        // SAFETY: `cfg`, when not NULL, points to a readable `Config` by the caller's
        // contract; its fields are plain integers, for which any bits are valid values.
        let cfg = unsafe { cfg.as_ref() }.ok_or_else(|| null("cfg"))?;
        let model = Model::from_config(cfg)?;
        // SAFETY: the caller's contract on `out` is `put`'s.
        unsafe { put(out, Box::into_raw(Box::new(model)), "out") }
    })
}

/// Destroys an instance and everything its outputs point to. NULL is ignored.
///
/// # Safety
///
/// `m` is NULL or an instance from `openrdma_create*` not yet destroyed, that no other
/// thread is using; it must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_destroy(m: *mut Model) {
    if m.is_null() {
        return;
    }
    // SAFETY: `m` came from `Box::into_raw` in `openrdma_create*` and, by the caller's
    // contract, is destroyed once.
    let model = unsafe { Box::from_raw(m) };
    // A panic while dropping must not unwind into C; the memory is then leaked.
    let _ = catch_unwind(AssertUnwindSafe(move || drop(model)));
}

/// The model's time in ns: the latest input time or `until` it was given.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `now_ns` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_now(m: *mut Model, now_ns: *mut u64) -> Status {
    let f = |m: &mut Model| {
        // SAFETY: the caller's contract on `now_ns` is `put`'s.
        unsafe { put(now_ns, m.now().0, "now_ns") }
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// The number of outputs waiting to be popped.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `count` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_pending(m: *mut Model, count: *mut u32) -> Status {
    let f = |m: &mut Model| {
        let n = u32::try_from(m.pending()).unwrap_or(u32::MAX);
        // SAFETY: the caller's contract on `count` is `put`'s.
        unsafe { put(count, n, "count") }
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

// ----- inputs ----------------------------------------------------------------------------
//
// Every input has a time, `at_ns`, that must not be earlier than the model's time. It is
// applied at once: time runs to `at_ns` (timers that fall due fire first), the device
// consumes the input, and what it produced is queued for `openrdma_pop_outputs`.

/// A frame arriving on `port` at `at_ns`: `len` bytes of Ethernet frame without FCS. A
/// frame the device drops (bad ICRC, not MRC, breaking the specification) is not an error:
/// dropping it is what the device does.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `bytes` is NULL or points to
/// `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_frame(
    m: *mut Model,
    at_ns: u64,
    port: u16,
    bytes: *const u8,
    len: u32,
) -> Status {
    let f = |m: &mut Model| {
        // SAFETY: the caller's contract on `bytes` is `bytes`'s.
        let frame = unsafe { self::bytes(bytes, len, "bytes") }?;
        m.push_frame(at_ns, port, frame)
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// A host command in JSON, as in the adapter protocol: `{"command":"create_qp",...}`,
/// `register_region`, `register_local`, `deregister_local`, `create_cq`, `set_error_cq`,
/// `cq_consumer`, `set_template`, `doorbell`, `post_write`, `doorbell_write`. A command the
/// model refuses is `OPENRDMA_STATUS_REFUSED` and has no effect; a doorbell the device
/// rejects is not an error (its error completion is an output).
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `json` is NULL or a
/// NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_host_json(
    m: *mut Model,
    at_ns: u64,
    json: *const c_char,
) -> Status {
    let f = |m: &mut Model| {
        // SAFETY: the caller's contract on `json` is `text`'s.
        let json = unsafe { text(json, "json") }?;
        m.push_host_json(at_ns, json)
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// A command from the CPU half of recovery in JSON, as in the adapter protocol:
/// `{"cmd":"retransmit","qpn":17,"psn":3}`, `probe`, `set_ev_state`, `qp_error`,
/// `endpoint_request`.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `json` is NULL or a
/// NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_cpu_json(
    m: *mut Model,
    at_ns: u64,
    json: *const c_char,
) -> Status {
    let f = |m: &mut Model| {
        // SAFETY: the caller's contract on `json` is `text`'s.
        let json = unsafe { text(json, "json") }?;
        m.push_cpu_json(at_ns, json)
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// A doorbell: the GPU's 8-byte token, as the 64-bit value it stored.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_doorbell(m: *mut Model, at_ns: u64, token: u64) -> Status {
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, |m| m.push_doorbell(at_ns, token)) }
}

/// A write to doorbell register `reg` as it crosses the bus: `len` bytes from `bytes`,
/// starting at byte `offset` of the register, the byte at the lowest address first. Only
/// one aligned write of all 8 bytes (`offset` 0, `len` 8) carries a token, read
/// little-endian, whichever register; the device ignores any other write, which is not an
/// error (DB-MMIO-002, DB-MMIO-003, DB-FORMAT-002).
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `bytes` is NULL or points to
/// `len` readable bytes (it may be NULL when `len` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_doorbell_write(
    m: *mut Model,
    at_ns: u64,
    reg: u32,
    offset: u8,
    bytes: *const u8,
    len: u32,
) -> Status {
    let f = |m: &mut Model| {
        let data = if len == 0 {
            &[][..]
        } else {
            // SAFETY: the caller's contract on `bytes` is `bytes`'s.
            unsafe { self::bytes(bytes, len, "bytes") }?
        };
        m.push_doorbell_write(at_ns, reg, offset, data)
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// Registers a memory region that remote writes may target: `len` bytes from `base`,
/// named by `rkey`; `remote_write` is 1 to allow remote writes, 0 to refuse them.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_register_region(
    m: *mut Model,
    at_ns: u64,
    rkey: u32,
    base: u64,
    len: u64,
    remote_write: u8,
) -> Status {
    let f = |m: &mut Model| {
        let remote_write = flag(remote_write, "remote_write")?;
        m.push_register_region(at_ns, Rkey::new(rkey), base, len, remote_write)
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// Registers memory the NIC may read under the local key `lkey` (the local region of a
/// template must lie in such memory, TPL-KEY-001): `len` bytes from `base`; `local_read`
/// is 1 to let the NIC read them, 0 not to.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_register_local(
    m: *mut Model,
    at_ns: u64,
    lkey: u32,
    base: u64,
    len: u64,
    local_read: u8,
) -> Status {
    let f = |m: &mut Model| {
        let local_read = flag(local_read, "local_read")?;
        m.push_register_local(at_ns, Lkey::new(lkey), base, len, local_read)
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// Ends the local registration `lkey`; every template under it is disabled first, so that
/// its tokens are rejected as naming no template (TPL-KEY-002).
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_deregister_local(
    m: *mut Model,
    at_ns: u64,
    lkey: u32,
) -> Status {
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, |m| m.push_deregister_local(at_ns, Lkey::new(lkey))) }
}

/// Creates completion queue `cq`: `entries` slots of 32 bytes from `base` (a multiple of 32;
/// `entries` a power of two from 1 to 2^31). A QP names it in `openrdma_qp_config`.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_create_cq(
    m: *mut Model,
    at_ns: u64,
    cq: u32,
    base: u64,
    entries: u32,
) -> Status {
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, |m| m.push_create_cq(at_ns, CqId::new(cq), base, entries)) }
}

/// Designates completion queue `cq` as the device error queue, which receives the
/// completions of tokens that name no usable template (CQE-REJECT-002).
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_set_error_cq(m: *mut Model, at_ns: u64, cq: u32) -> Status {
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, |m| m.push_set_error_cq(at_ns, CqId::new(cq))) }
}

/// Writes the consumer register of completion queue `cq`: `consumed` is the total number
/// of entries consumed since the queue was created, modulo 2^32, which releases their slots
/// (CQE-RING-004). A count that releases an entry not yet written is refused.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_cq_consumer(
    m: *mut Model,
    at_ns: u64,
    cq: u32,
    consumed: u32,
) -> Status {
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, |m| m.push_cq_consumer(at_ns, CqId::new(cq), consumed)) }
}

/// Creates a QP (see `openrdma_qp_config`).
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `cfg` is NULL or points to an
/// `openrdma_qp_config` whose `evs` is NULL or points to `ev_count` entropy values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_create_qp(
    m: *mut Model,
    at_ns: u64,
    cfg: *const QpConfig,
) -> Status {
    let f = |m: &mut Model| {
        // SAFETY: `cfg`, when not NULL, points to a readable `QpConfig` by the caller's
        // contract; its fields are integers and a pointer, for which any bits are valid.
        let cfg = unsafe { cfg.as_ref() }.ok_or_else(|| null("cfg"))?;
        let evs = if cfg.ev_count == 0 {
            &[][..]
        } else if cfg.evs.is_null() {
            return Err(null("cfg->evs"));
        } else {
            // SAFETY: `evs` is not NULL and, by the caller's contract, points to `ev_count`
            // readable, aligned entropy values; `u32` fits in `usize` on every target this
            // library builds for.
            unsafe { core::slice::from_raw_parts(cfg.evs, cfg.ev_count as usize) }
        };
        m.push_create_qp(at_ns, cfg, evs)
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// One input of a batch.
///
/// # Safety
///
/// The pointers of `input` are valid as its kind requires (see `openrdma_push_inputs`).
unsafe fn push_one(m: &mut Model, input: &Input) -> Result<(), Error> {
    let at = input.at_ns;
    match InputKind::from_code(input.kind) {
        Some(InputKind::Frame) => {
            // SAFETY: the caller's contract on a frame input's `bytes` is `bytes`'s.
            let frame = unsafe { bytes(input.bytes, input.len, "bytes") }?;
            m.push_frame(at, input.port, frame)
        }
        Some(InputKind::HostJson) => {
            // SAFETY: the caller's contract on a JSON input's `json` is `text`'s.
            let json = unsafe { text(input.json, "json") }?;
            m.push_host_json(at, json)
        }
        Some(InputKind::CpuJson) => {
            // SAFETY: the caller's contract on a JSON input's `json` is `text`'s.
            let json = unsafe { text(input.json, "json") }?;
            m.push_cpu_json(at, json)
        }
        Some(InputKind::Doorbell) => m.push_doorbell(at, input.token),
        None => Err(Error::new(
            Status::InvalidArgument,
            format!("kind {} is no openrdma_input_kind", input.kind),
        )),
    }
}

/// A batch of inputs, applied in order up to the first that fails. `*applied` (when
/// `applied` is not NULL) is the number applied: `count` on success; on failure the index
/// of the one that failed, which had no effect.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `inputs` is NULL or points to
/// `count` `openrdma_input`s whose pointers are valid as their kinds require; `applied`
/// is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_inputs(
    m: *mut Model,
    inputs: *const Input,
    count: u32,
    applied: *mut u32,
) -> Status {
    // SAFETY: the caller's contract on `applied` is `put_opt`'s.
    unsafe { put_opt(applied, 0) };
    let f = |m: &mut Model| {
        if count == 0 {
            return Ok(());
        }
        if inputs.is_null() {
            return Err(null("inputs"));
        }
        // SAFETY: `inputs` is not NULL and, by the caller's contract, points to `count`
        // readable inputs, whose fields are integers and pointers (any bits are valid).
        let inputs = unsafe { core::slice::from_raw_parts(inputs, count as usize) };
        for (i, input) in inputs.iter().enumerate() {
            // SAFETY: the caller's contract on the inputs' pointers is `push_one`'s.
            if let Err(e) = unsafe { push_one(m, input) } {
                return Err(Error::new(e.status, format!("inputs[{i}]: {}", e.message)));
            }
            // SAFETY: the caller's contract on `applied` is `put_opt`'s.
            unsafe { put_opt(applied, u32::try_from(i + 1).unwrap_or(u32::MAX)) };
        }
        Ok(())
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// A batch of inputs in the adapter protocol's JSON (the specification's conformance
/// chapter, section 9.4): one input object, `{"at":0,"input":{"kind":"host",
/// "command":{...}}}`, or an array of them; frame bytes in hexadecimal. Every input is
/// decoded before any is applied; they are then applied in order up to the first that
/// fails. `*applied` (when `applied` is not NULL) is the number applied.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `json` is NULL or a
/// NUL-terminated string; `applied` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_push_inputs_json(
    m: *mut Model,
    json: *const c_char,
    applied: *mut u32,
) -> Status {
    // SAFETY: the caller's contract on `applied` is `put_opt`'s.
    unsafe { put_opt(applied, 0) };
    let f = |m: &mut Model| {
        // SAFETY: the caller's contract on `json` is `text`'s.
        let json = unsafe { text(json, "json") }?;
        let (n, r) = match m.push_inputs_json(json) {
            Ok(n) => (n, Ok(())),
            Err((n, e)) => (n, Err(e)),
        };
        // SAFETY: the caller's contract on `applied` is `put_opt`'s.
        unsafe { put_opt(applied, u32::try_from(n).unwrap_or(u32::MAX)) };
        r
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// Lets time run to `until_ns` with no input: timers fire, delayed SACKs fall due, and
/// what the device produced is queued.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_advance(m: *mut Model, until_ns: u64) -> Status {
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, |m| m.advance(until_ns)) }
}

// ----- outputs ---------------------------------------------------------------------------

/// Pops up to `cap` outputs, oldest first, into `outs`; `*count` is the number written.
/// Their pointers stay valid until the next call on the instance (other than
/// `openrdma_last_error`); outputs popped by an earlier call become invalid.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `outs` is NULL or points to
/// `cap` writable `openrdma_output`s; `count` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_pop_outputs(
    m: *mut Model,
    outs: *mut Output,
    cap: u32,
    count: *mut u32,
) -> Status {
    let f = |m: &mut Model| {
        if count.is_null() {
            return Err(null("count"));
        }
        if outs.is_null() && cap > 0 {
            return Err(null("outs"));
        }
        let popped = m.pop(cap as usize);
        for (i, o) in popped.iter().enumerate() {
            let slot = outs.wrapping_add(i);
            // SAFETY: `outs` points to `cap` writable outputs by the caller's contract, and
            // `i < popped.len() <= cap`, so `slot` is one of them.
            unsafe { slot.write(*o) };
        }
        // SAFETY: the caller's contract on `count` is `put`'s.
        unsafe { put(count, popped.len() as u32, "count") }
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// Pops one output and makes it the instance's current output, for callers that cannot
/// read C structures (a SystemVerilog DPI-C testbench): `*kind` is its
/// `openrdma_output_kind` (`OPENRDMA_OUTPUT_KIND_NONE` when the queue was empty) and
/// `*at_ns` its time. `openrdma_output_field`, `openrdma_output_bytes` and
/// `openrdma_output_json` then read it, until the next call that pops.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `kind` and `at_ns` are NULL
/// or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_next_output(
    m: *mut Model,
    kind: *mut u32,
    at_ns: *mut u64,
) -> Status {
    let f = |m: &mut Model| {
        if kind.is_null() {
            return Err(null("kind"));
        }
        if at_ns.is_null() {
            return Err(null("at_ns"));
        }
        let (k, at) = m.next_output().map_or((OutputKind::None, 0), |o| (o.kind, o.at_ns));
        // SAFETY: the caller's contract on `kind` is `put`'s.
        unsafe { put(kind, k as u32, "kind") }?;
        // SAFETY: the caller's contract on `at_ns` is `put`'s.
        unsafe { put(at_ns, at, "at_ns") }
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// A field of the current output, by name: `at_ns`, `kind`, `port`, `qpn`, `len`, or
/// `frame.X`, `dma_write.X`, `flag_write.X`, `completion.X` for a member `X` of the
/// structure of that name (`frame.cack_psn`, `dma_write.va`, `flag_write.value`, ...).
/// Booleans read 0 or 1; signed fields are sign-extended. A field of another kind of output
/// is `OPENRDMA_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `name` is NULL or a
/// NUL-terminated string; `value` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_output_field(
    m: *mut Model,
    name: *const c_char,
    value: *mut u64,
) -> Status {
    let f = |m: &mut Model| {
        // SAFETY: the caller's contract on `name` is `text`'s.
        let name = unsafe { text(name, "name") }?;
        if value.is_null() {
            return Err(null("value"));
        }
        let v = m.field(name)?;
        // SAFETY: the caller's contract on `value` is `put`'s.
        unsafe { put(value, v, "value") }
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// Copies the bytes of the current output (see `openrdma_output.bytes`) into `buf`, which
/// holds `cap` bytes; `*len` is their number. When `cap` is too small nothing is copied,
/// `*len` is still set, and the status is `OPENRDMA_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using; `buf` is NULL or points to
/// `cap` writable bytes; `len` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_output_bytes(
    m: *mut Model,
    buf: *mut u8,
    cap: u32,
    len: *mut u32,
) -> Status {
    let f = |m: &mut Model| {
        let o = m.current().ok_or_else(|| {
            Error::new(
                Status::InvalidArgument,
                "no current output: call openrdma_next_output first",
            )
        })?;
        // SAFETY: the caller's contract on `len` is `put`'s.
        unsafe { put(len, o.len, "len") }?;
        if o.len > cap {
            return Err(Error::new(
                Status::InvalidArgument,
                format!("the output has {} bytes; `buf` holds {cap}", o.len),
            ));
        }
        if o.len > 0 {
            if buf.is_null() {
                return Err(null("buf"));
            }
            // SAFETY: `o.bytes` points to `o.len` bytes the instance holds; `buf` points to
            // `cap >= o.len` writable bytes of the caller's, which do not overlap them.
            unsafe { core::ptr::copy_nonoverlapping(o.bytes, buf, o.len as usize) };
        }
        Ok(())
    };
    // SAFETY: the caller's contract on `m` is `guard`'s.
    unsafe { guard(m, f) }
}

/// The JSON of the current output (see `openrdma_output.json`), NUL-terminated, valid
/// until the next call that pops; "" when there is no current output or `m` is NULL.
///
/// # Safety
///
/// `m` is NULL or a live instance no other thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn openrdma_output_json(m: *const Model) -> *const c_char {
    if m.is_null() {
        return c"".as_ptr();
    }
    // SAFETY: `m` is not NULL and, by the caller's contract, a live instance.
    let model = unsafe { &*m };
    match model.current() {
        Some(o) if !o.json.is_null() => o.json,
        _ => c"".as_ptr(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::manifest_of;

    fn message(m: *const Model) -> String {
        // SAFETY: `m` is NULL or live; the message is read at once.
        let p = unsafe { openrdma_last_error(m) };
        // SAFETY: `openrdma_last_error` returns a NUL-terminated string.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    #[test]
    fn a_panic_poisons_the_instance_and_does_not_unwind() {
        let model = Model::new(manifest_of(&default_config()).unwrap()).unwrap();
        let m = Box::into_raw(Box::new(model));
        // SAFETY: `m` is live and used by this thread only.
        let st = unsafe { guard(m, |_| panic!("a bug")) };
        assert_eq!(st, Status::Panic);
        assert!(message(m).contains("the library panicked (a bug)"), "{}", message(m));
        // SAFETY: as above.
        assert_eq!(unsafe { openrdma_advance(m, 10) }, Status::Panic, "poisoned for good");
        // SAFETY: `m` came from `Box::into_raw` and is not used again.
        unsafe { openrdma_destroy(m) };
    }

    #[test]
    fn a_panic_without_an_instance_is_a_status() {
        assert_eq!(guard_global(|| panic!("a bug")), Status::Panic);
        assert!(message(core::ptr::null()).contains("a bug"));
    }
}
