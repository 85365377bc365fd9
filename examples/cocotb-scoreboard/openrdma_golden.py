"""The OpenRDMA golden model from Python, through its C interface (libopenrdma.so).

A thin ctypes binding of capi/include/openrdma.h: GoldenModel is one instance of the
reference NIC; outputs are copied out of the library's memory as soon as they are popped,
so that nothing here holds a pointer the library may free.

    model = GoldenModel(manifest)              # the scenario manifest, as a dict
    model.push_host(0, {"command": "create_qp", ...})
    model.push_frame(1000, port, frame_bytes)
    model.advance(3000)
    for out in model.pop():                    # Output: at_ns, kind, port, data, json, fields
        ...

The library is found through the environment variable OPENRDMA_LIB, else in the
repository's target/release directory (cargo build --release -p openrdma-capi).
"""

import ctypes
import json
import os
from pathlib import Path

ABI_VERSION = 2

# openrdma_status
OK, NULL_POINTER, INVALID_UTF8, INVALID_JSON, INVALID_CONFIG = 0, 1, 2, 3, 4
INVALID_ARGUMENT, TIME_WENT_BACKWARDS, REFUSED, DEVICE_FAILED, PANIC = 5, 6, 7, 8, 9

# openrdma_output_kind
KIND_NONE, KIND_FRAME, KIND_DMA_WRITE, KIND_FLAG_WRITE, KIND_COMPLETION, KIND_REPORT = range(6)
KIND_NAMES = ["none", "frame", "dma_write", "flag_write", "completion", "report"]


class FrameFields(ctypes.Structure):
    """openrdma_frame_fields"""

    _fields_ = [
        ("has_bth", ctypes.c_bool),
        ("icrc_ok", ctypes.c_bool),
        ("opcode", ctypes.c_uint8),
        ("dest_qp", ctypes.c_uint32),
        ("psn", ctypes.c_uint32),
        ("ack_req", ctypes.c_bool),
        ("rtx", ctypes.c_bool),
        ("entropy", ctypes.c_uint32),
        ("payload_len", ctypes.c_uint32),
        ("has_meth", ctypes.c_bool),
        ("msn", ctypes.c_uint16),
        ("has_tseth", ctypes.c_bool),
        ("tx_timestamp", ctypes.c_uint16),
        ("has_reth", ctypes.c_bool),
        ("va", ctypes.c_uint64),
        ("rkey", ctypes.c_uint32),
        ("dma_len", ctypes.c_uint32),
        ("has_seth", ctypes.c_bool),
        ("cack_psn", ctypes.c_uint32),
        ("ack_psn_offset", ctypes.c_int16),
        ("sack_offset", ctypes.c_int16),
        ("sack_bitmap", ctypes.c_uint64),
        ("mpr", ctypes.c_uint8),
        ("probe_response", ctypes.c_bool),
        ("has_neth", ctypes.c_bool),
        ("nack_psn", ctypes.c_uint32),
        ("nack_reason", ctypes.c_uint8),
        ("has_aeth", ctypes.c_bool),
        ("aeth_syndrome", ctypes.c_uint8),
        ("aeth_msn", ctypes.c_uint32),
        ("has_eeth", ctypes.c_bool),
        ("eeth_op", ctypes.c_uint8),
        ("eeth_status", ctypes.c_uint8),
        ("eeth_request_id", ctypes.c_uint32),
        ("eeth_port_status", ctypes.c_uint32),
    ]


class DmaWriteFields(ctypes.Structure):
    """openrdma_dma_write_fields"""

    _fields_ = [("psn", ctypes.c_uint32), ("msn", ctypes.c_uint16), ("va", ctypes.c_uint64)]


class FlagWriteFields(ctypes.Structure):
    """openrdma_flag_write_fields"""

    _fields_ = [
        ("side", ctypes.c_uint32),
        ("msn", ctypes.c_uint16),
        ("addr", ctypes.c_uint64),
        ("value", ctypes.c_uint64),
    ]


class CompletionFields(ctypes.Structure):
    """openrdma_completion_fields"""

    _fields_ = [
        ("side", ctypes.c_uint32),
        ("wr_id", ctypes.c_uint64),
        ("status", ctypes.c_uint8),
        ("opcode", ctypes.c_uint8),
        ("msn", ctypes.c_uint16),
        ("byte_len", ctypes.c_uint32),
        ("imm", ctypes.c_uint32),
        ("has_imm", ctypes.c_bool),
        ("is_receive", ctypes.c_bool),
        ("has_timestamp", ctypes.c_bool),
        ("timestamp", ctypes.c_uint32),
        ("phase", ctypes.c_bool),
        ("in_queue", ctypes.c_bool),
        ("cq", ctypes.c_uint32),
        ("slot", ctypes.c_uint32),
        ("addr", ctypes.c_uint64),
    ]


class COutput(ctypes.Structure):
    """openrdma_output"""

    _fields_ = [
        ("at_ns", ctypes.c_uint64),
        ("kind", ctypes.c_uint32),
        ("port", ctypes.c_uint16),
        ("qpn", ctypes.c_uint32),
        ("bytes", ctypes.POINTER(ctypes.c_uint8)),
        ("len", ctypes.c_uint32),
        ("json", ctypes.c_char_p),
        ("json_len", ctypes.c_uint32),
        ("frame", FrameFields),
        ("dma_write", DmaWriteFields),
        ("flag_write", FlagWriteFields),
        ("completion", CompletionFields),
    ]


def _copy(struct):
    """A copy of a ctypes structure that owns its memory."""
    c = type(struct)()
    ctypes.pointer(c)[0] = struct
    return c


class Output:
    """One output of the model, copied out of the library: at_ns, kind (a KIND_*), port,
    qpn, data (bytes), json (the decoded dict), and the plain fields of its kind (frame,
    dma_write, flag_write, completion: ctypes structures)."""

    def __init__(self, c):
        self.at_ns = c.at_ns
        self.kind = c.kind
        self.port = c.port
        self.qpn = c.qpn
        self.data = ctypes.string_at(c.bytes, c.len) if c.len else b""
        self.json = json.loads(ctypes.string_at(c.json, c.json_len)) if c.json else None
        self.frame = _copy(c.frame)
        self.dma_write = _copy(c.dma_write)
        self.flag_write = _copy(c.flag_write)
        self.completion = _copy(c.completion)

    def __repr__(self):
        return f"Output(at={self.at_ns}, {KIND_NAMES[self.kind]}, {json.dumps(self.json)})"


class OpenrdmaError(Exception):
    """A call failed: status is the openrdma_status, message the library's explanation."""

    def __init__(self, status, message):
        super().__init__(f"{_lib().openrdma_status_name(status).decode()}: {message}")
        self.status = status
        self.message = message


_LIB = None


def library_path():
    """Where libopenrdma.so is: $OPENRDMA_LIB, else the repository's release build."""
    if "OPENRDMA_LIB" in os.environ:
        return Path(os.environ["OPENRDMA_LIB"])
    root = Path(__file__).resolve().parents[2]
    target = Path(os.environ.get("CARGO_TARGET_DIR", root / "target"))
    return target / "release" / "libopenrdma.so"


def _lib():
    global _LIB
    if _LIB is not None:
        return _LIB
    path = library_path()
    if not path.exists():
        raise FileNotFoundError(
            f"{path} does not exist: build it with `cargo build --release -p openrdma-capi` "
            "or point OPENRDMA_LIB at libopenrdma.so"
        )
    lib = ctypes.CDLL(str(path))
    u32, u64, u16, u8 = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_uint16, ctypes.c_uint8
    vp, cp, bp = ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint8)
    sigs = {
        "openrdma_abi_version": (u32, []),
        "openrdma_version": (cp, []),
        "openrdma_status_name": (cp, [u32]),
        "openrdma_last_error": (cp, [vp]),
        "openrdma_output_size": (u32, []),
        "openrdma_decode_frame": (u32, [bp, u32, ctypes.POINTER(FrameFields)]),
        "openrdma_create": (u32, [cp, ctypes.POINTER(vp)]),
        "openrdma_destroy": (None, [vp]),
        "openrdma_now": (u32, [vp, ctypes.POINTER(u64)]),
        "openrdma_pending": (u32, [vp, ctypes.POINTER(u32)]),
        "openrdma_push_frame": (u32, [vp, u64, u16, bp, u32]),
        "openrdma_push_host_json": (u32, [vp, u64, cp]),
        "openrdma_push_cpu_json": (u32, [vp, u64, cp]),
        "openrdma_push_doorbell": (u32, [vp, u64, u64]),
        "openrdma_push_register_region": (u32, [vp, u64, u32, u64, u64, u8]),
        "openrdma_advance": (u32, [vp, u64]),
        "openrdma_pop_outputs": (u32, [vp, ctypes.POINTER(COutput), u32, ctypes.POINTER(u32)]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    if lib.openrdma_abi_version() != ABI_VERSION:
        raise RuntimeError(f"{path} speaks ABI {lib.openrdma_abi_version()}, this binding {ABI_VERSION}")
    if lib.openrdma_output_size() != ctypes.sizeof(COutput):
        raise RuntimeError(
            f"openrdma_output is {lib.openrdma_output_size()} bytes in the library and "
            f"{ctypes.sizeof(COutput)} here: the binding does not match the header"
        )
    _LIB = lib
    return lib


def version():
    return _lib().openrdma_version().decode()


def _bytes_arg(data):
    buf = (ctypes.c_uint8 * max(len(data), 1)).from_buffer_copy(bytes(data) or b"\0")
    return buf, len(data)


def decode_frame(data):
    """The header fields of a frame (FrameFields), as a block behind the parser takes them."""
    f = FrameFields()
    buf, n = _bytes_arg(data)
    st = _lib().openrdma_decode_frame(buf, n, ctypes.byref(f))
    if st != OK:
        raise OpenrdmaError(st, _lib().openrdma_last_error(None).decode())
    return f


class GoldenModel:
    """One instance of the golden model (a reference NIC), configured by a manifest."""

    def __init__(self, manifest):
        self._m = ctypes.c_void_p()
        lib = _lib()
        st = lib.openrdma_create(json.dumps(manifest).encode(), ctypes.byref(self._m))
        if st != OK:
            raise OpenrdmaError(st, lib.openrdma_last_error(None).decode())

    def close(self):
        if self._m:
            _lib().openrdma_destroy(self._m)
            self._m = ctypes.c_void_p()

    def __del__(self):
        self.close()

    def _check(self, st, refused_ok=False):
        if st == OK or (refused_ok and st == REFUSED):
            return st
        raise OpenrdmaError(st, _lib().openrdma_last_error(self._m).decode())

    def push_frame(self, at_ns, port, data):
        buf, n = _bytes_arg(data)
        self._check(_lib().openrdma_push_frame(self._m, at_ns, port, buf, n))

    def push_host(self, at_ns, command, refused_ok=False):
        """A host command (a dict in the adapter protocol's JSON). Returns the status: OK,
        or REFUSED when refused_ok and the model refused it."""
        st = _lib().openrdma_push_host_json(self._m, at_ns, json.dumps(command).encode())
        return self._check(st, refused_ok)

    def push_cpu(self, at_ns, command, refused_ok=False):
        st = _lib().openrdma_push_cpu_json(self._m, at_ns, json.dumps(command).encode())
        return self._check(st, refused_ok)

    def advance(self, until_ns):
        self._check(_lib().openrdma_advance(self._m, until_ns))

    def now(self):
        v = ctypes.c_uint64()
        self._check(_lib().openrdma_now(self._m, ctypes.byref(v)))
        return v.value

    def pop(self, batch=64):
        """Every output waiting, oldest first, copied out of the library."""
        outs = (COutput * batch)()
        n = ctypes.c_uint32()
        result = []
        while True:
            self._check(_lib().openrdma_pop_outputs(self._m, outs, batch, ctypes.byref(n)))
            result.extend(Output(outs[i]) for i in range(n.value))
            if n.value < batch:
                return result
