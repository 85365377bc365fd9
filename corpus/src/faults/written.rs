//! Faults in the fields of what the device writes and reports outside the frame-field
//! table: flags, completion entries, and the contents of its SACKs (the EV they reflect,
//! the CC_STATE counters). One field each, the rest of the output right.

use openrdma_codec::Ev;
use openrdma_codec::frame::{FrameRepr, decode};
use openrdma_codec::host::{CompletionRepr, CompletionStatus, FlagRepr, WrOpcode};
use openrdma_conformance::req::{self, Clause};
use openrdma_device::{NicEvent, Side};

use super::{Edits, Fault, fault, sends};

/// A fault in the events the device writes.
const fn writes(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    edit: fn(&mut NicEvent) -> bool,
) -> Fault {
    fault(name, what, breaks, catch, Edits { event_out: Some(edit), ..Edits::NONE })
}

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[
    // ---- completion entries ------------------------------------------------------------
    writes(
        "cqe-opcode-flipped",
        "completion entries carry the lowest bit of their opcode flipped",
        &[req::CQE_OPCODE_001],
        // On rcv-cq-receive a receive entry's opcode flipped shows first as its has_imm.
        &["ret-cq-wrap"],
        |e| entry(e, |c| c.opcode.0 ^= 1),
    ),
    writes(
        "cqe-has-imm-flipped",
        "completion entries say the opposite of whether they carry immediate data",
        &[req::CQE_IMM_002, req::CQE_IMM_001],
        &["rcv-cq-receive"],
        |e| entry(e, |c| c.has_imm ^= true),
    ),
    writes(
        "sender-cqe-has-imm",
        "a sender's completion of a Write with Immediate sets has_imm, as a receive completion does",
        &[req::CQE_IMM_002],
        &["db-accept"],
        |e| {
            if let NicEvent::Completion(c) = e {
                if c.side == Side::Requester && c.written_entry().opcode == WrOpcode::WRITE_WITH_IMM
                {
                    return entry(e, |c| c.has_imm = true);
                }
            }
            true
        },
    ),
    writes(
        "sender-cqe-msn-next",
        "a sender's completion carries the domain's MSN counter after the message, its MSN plus one",
        &[req::CQE_SEND_001],
        &["snd-segmentation"],
        |e| {
            if let NicEvent::Completion(c) = e {
                if c.side == Side::Requester && c.written_entry().status.is_success() {
                    return entry(e, |c| c.msn = c.msn.next());
                }
            }
            true
        },
    ),
    writes(
        "sender-cqe-is-receive",
        "a sender's completion has is_receive set, as a receive completion does",
        &[req::CQE_SEND_001, req::CQE_SEND_002, req::CQE_REJECT_001],
        &["snd-segmentation"],
        |e| {
            if let NicEvent::Completion(c) = e {
                if c.side == Side::Requester {
                    return entry(e, |c| c.is_receive = true);
                }
            }
            true
        },
    ),
    writes(
        "nak-access-as-op-error",
        "a message ended by an AETH NAK remote access error (0x62) completes with REMOTE_OP_ERROR",
        &[req::CQE_STATUS_004],
        &["snd-ack-nak"],
        |e| {
            entry(e, |c| {
                if c.status == CompletionStatus::REMOTE_ACCESS_ERROR {
                    c.status = CompletionStatus::REMOTE_OP_ERROR;
                }
            })
        },
    ),
    writes(
        "nak-status-is-syndrome",
        "a message ended by an AETH NAK completes with the NAK's syndrome (0x61 to 0x63) as its status, not the status table 8 gives it",
        &[req::CQE_STATUS_001, req::CQE_STATUS_004],
        &["snd-ack-nak"],
        |e| {
            entry(e, |c| {
                let nak =
                    (0x61..=0x63).find(|&s| CompletionStatus::from_aeth_nak(s) == Some(c.status));
                if let Some(syndrome) = nak {
                    c.status = CompletionStatus(syndrome);
                }
            })
        },
    ),
    writes(
        "cqe-stride-48",
        "completion entries are laid out with a 48-byte stride, as for an entry with a 16-byte extension: the second entry of a queue starts at byte 48",
        &[req::CQE_RING_003_A, req::CQE_RING_001_B],
        &["ret-cq-wrap", "rcv-cq-receive"],
        |e| {
            if let NicEvent::Completion(c) = e {
                if let Some(q) = c.queue.as_mut() {
                    q.addr += u64::from(q.slot) * 16;
                }
            }
            true
        },
    ),
    // ---- flags -------------------------------------------------------------------------
    writes(
        "flag-big-endian",
        "completion flags are stored big-endian: the 64-bit word's bytes land in reverse order",
        &[req::FLAG_LAYOUT_001],
        &["db-accept", "rcv-in-order-v4"],
        |e| {
            if let NicEvent::FlagWrite(f) = e {
                f.value = f.value.swap_bytes();
            }
            true
        },
    ),
    writes(
        "flag-valid-cleared",
        "flags are written with their valid bit clear",
        &[req::FLAG_VALID_001],
        &["snd-segmentation", "rcv-in-order-v4"],
        |e| flag(e, None, |f| f.valid = false),
    ),
    writes(
        "flag-resv-set",
        "flags are written with their reserved bits set",
        &[req::FLAG_RESV_001_A],
        &["snd-segmentation", "rcv-in-order-v4"],
        |e| flag(e, None, |f| f.resv ^= 1),
    ),
    writes(
        "sender-flag-status-flipped",
        "sender flags carry the lowest bit of their status flipped",
        &[req::FLAG_STATUS_001],
        &["snd-segmentation"],
        |e| flag(e, Some(Side::Requester), |f| f.status.0 ^= 1),
    ),
    writes(
        "sender-flag-generation-off",
        "sender flags carry the lowest bit of their generation flipped",
        &[req::FLAG_SEND_001_D],
        &["snd-segmentation"],
        |e| flag(e, Some(Side::Requester), |f| f.generation ^= 1),
    ),
    writes(
        "retirement-flag-status-set",
        "retirement flags carry the lowest bit of their status flipped",
        &[req::FLAG_RECV_002_B],
        &["rcv-in-order-v4"],
        |e| flag(e, Some(Side::Responder), |f| f.status.0 ^= 1),
    ),
    writes(
        "retirement-flag-generation-off",
        "retirement flags carry the lowest bit of their generation flipped",
        &[req::FLAG_RECV_002_A],
        &["rcv-in-order-v4"],
        |e| flag(e, Some(Side::Responder), |f| f.generation ^= 1),
    ),
    writes(
        "cqe-other-cq",
        "completion entries go to the queue numbered one off, at the same slot",
        &[req::CQE_ROUTE_001, req::CQE_REJECT_002],
        &["db-reject-queues", "ret-cq-wrap", "rcv-cq-receive"],
        |e| {
            if let NicEvent::Completion(c) = e {
                if let Some(q) = c.queue.as_mut() {
                    q.cq = openrdma_device::CqId::new(q.cq.value() ^ 1);
                }
            }
            true
        },
    ),
    // ---- SACK contents -----------------------------------------------------------------
    sends(
        "sack-entropy-flipped",
        "SACKs reflect their trigger's EV with its lowest bit flipped",
        &[req::SETH_EV_001, req::RCV_SACK_005_F, req::ENC_EV_003],
        &["rcv-in-order-v6"],
        |b| {
            sack(b, |f| {
                let Some(s) = f.ext.seth.as_mut() else { return false };
                s.entropy = Ev::new(s.entropy.value() ^ 1);
                true
            })
        },
    ),
    sends(
        "ccs-ooo-count-off",
        "the CC_STATE of SACKs counts one packet more out of order than arrived",
        &[req::CCS_OOO_001],
        &["rcv-in-order-v4"],
        |b| {
            sack(b, |f| {
                let Some(c) = f.ext.cc_state.as_mut() else { return false };
                c.ooo_count = c.ooo_count.wrapping_add(1) & 0x7FFF;
                true
            })
        },
    ),
    sends(
        "ccs-rcvd-bytes-off",
        "the CC_STATE of SACKs counts 2^23 units of 256 bytes more than arrived",
        &[req::CCS_BYTES_001],
        &["rcv-in-order-v4"],
        |b| {
            sack(b, |f| {
                let Some(c) = f.ext.cc_state.as_mut() else { return false };
                c.rcvd_bytes ^= 0x80_0000;
                true
            })
        },
    ),
    sends(
        "ccs-cwnd-pen-reset",
        "the CC_STATE of SACKs keeps rcv_cwnd_pen at its reset value 0x7F on a responder \
         that runs no congestion control",
        &[req::RCV_SACK_007],
        &["rcv-in-order-v4"],
        |b| {
            sack(b, |f| {
                let Some(c) = f.ext.cc_state.as_mut() else { return false };
                c.rcv_cwnd_pen = 0x7F;
                true
            })
        },
    ),
];

/// A completion entry as the device writes it, `edit` on the entry and its bytes.
fn entry(e: &mut NicEvent, edit: fn(&mut CompletionRepr)) -> bool {
    let NicEvent::Completion(c) = e else { return true };
    let mut entry = c.written_entry();
    edit(&mut entry);
    c.entry = entry;
    if let Some(q) = c.queue.as_mut() {
        let _ = entry.emit(&mut q.bytes);
    }
    true
}

/// A flag of `side` (or either) as the device writes it.
fn flag(e: &mut NicEvent, side: Option<Side>, edit: fn(&mut FlagRepr)) -> bool {
    let NicEvent::FlagWrite(w) = e else { return true };
    if side.is_some_and(|s| s != w.side) {
        return true;
    }
    let mut f = FlagRepr::from_u64(w.value);
    edit(&mut f);
    w.value = f.to_u64();
    true
}

/// A SACK with `edit` applied, refit; `None` for other frames or when `edit` declines.
fn sack(b: &[u8], edit: impl FnOnce(&mut FrameRepr) -> bool) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if f.ext.seth.is_none() || !edit(&mut f) {
        return None;
    }
    super::refit(&mut f).ok()
}
