//! Faults in the fields of frames: arriving frames the device must take but drops, fields
//! it misreads, and fields of the frames it sends (reflected timestamps, probe answers,
//! endpoint requests and responses) that it fills wrong.

use std::collections::BTreeMap;

use openrdma_codec::frame::{DecodedFrame, FrameRepr, decode};
use openrdma_codec::{AethKind, EndpointOp, ErthRepr, Ev, NackReason, Opcode, Qpn, TransportClass};
use openrdma_conformance::req::{self, Clause};
use openrdma_device::{CpuCommand, Input, Output, TimedInput, TimedOutput};

use super::{Batch, Edits, Fault, Rewrite, Stream, fault, sends, stream};

/// Drops arriving frames the test matches.
const fn rejects(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    keep: fn(&Input) -> bool,
) -> Fault {
    fault(name, what, breaks, catch, Edits { keep_in: Some(keep), ..Edits::NONE })
}

/// Misreads arriving frames.
const fn misreads(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    rw: Rewrite,
) -> Fault {
    fault(name, what, breaks, catch, Edits { frame_in: Some(rw), ..Edits::NONE })
}

/// Every fault in the fields of frames.
pub static FAULTS: &[Fault] = &[
    // ---- frames dropped that must be taken ------------------------------------------------
    rejects(
        "rejects-peth-ftype",
        "probes whose ftype is not 1 are dropped",
        &[req::PETH_FTYPE_001, req::PETH_RESP_001],
        &["rcv-probe-answer"],
        |i| keep(i, |d| d.ext.peth.is_some_and(|p| p.ftype != 1)),
    ),
    rejects(
        "rejects-peth-pdc",
        "probes with non-zero PDC identifiers are dropped",
        &[req::PETH_PDC_001, req::PETH_RESP_001],
        &["rcv-probe-answer"],
        |i| keep(i, |d| d.ext.peth.is_some_and(|p| p.spdcid != 0 || p.dpdcid != 0)),
    ),
    rejects(
        "rejects-rtx-on-non-write",
        "MRC packets other than writes with BTH rtx set are dropped",
        &[req::BTH_RTX_002, req::PETH_RESP_001],
        &["rcv-probe-answer"],
        |i| {
            keep(i, |d| {
                d.bth.is_some_and(|b| {
                    b.opcode.class() == TransportClass::Manufacturer(6)
                        && !b.opcode.is_mrc_write()
                        && b.rtx
                })
            })
        },
    ),
    rejects(
        "rejects-seth-pdc",
        "SACKs with non-zero PDC identifiers are dropped",
        &[req::SETH_PDC_001],
        &["snd-lenient", "snd-lenient-probe"],
        |i| keep(i, |d| d.ext.seth.is_some_and(|s| s.spdcid != 0 || s.dpdcid != 0)),
    ),
    rejects(
        "rejects-seth-type",
        "SACKs with a non-zero res_type or next_header are dropped",
        &[req::SETH_TYPE_001],
        &["snd-lenient", "snd-lenient-probe"],
        |i| keep(i, |d| d.ext.seth.is_some_and(|s| s.res_type != 0 || s.next_header != 0)),
    ),
    rejects(
        "rejects-cc-type",
        "SACKs whose cc_type or cc_flags is not 0 are dropped",
        &[req::SETH_CC_001],
        &["snd-lenient", "snd-lenient-probe"],
        |i| keep(i, |d| d.ext.seth.is_some_and(|s| s.cc_type != 0 || s.cc_flags != 0)),
    ),
    rejects(
        "rejects-neth-pdc",
        "NACKs with non-zero PDC identifiers are dropped",
        &[req::NETH_PDC_001, req::REC_IF_004],
        &["snd-lenient"],
        |i| keep(i, |d| d.ext.neth.is_some_and(|n| n.spdcid != 0 || n.dpdcid != 0)),
    ),
    rejects(
        "rejects-neth-type",
        "NACKs with a non-zero res_type or next_header are dropped",
        &[req::NETH_TYPE_001, req::REC_IF_004],
        &["snd-lenient"],
        |i| keep(i, |d| d.ext.neth.is_some_and(|n| n.res_type != 0 || n.next_header != 0)),
    ),
    rejects(
        "drops-unknown-endpoint-op",
        "endpoint requests with an unknown op are dropped",
        &[req::ERTH_OP_001, req::ERTH_RESP_001],
        &["rcv-endpoint"],
        |i| keep(i, |d| d.ext.erth.is_some_and(|e| !e.op.is_known())),
    ),
    // ---- fields misread ------------------------------------------------------------------
    misreads(
        "vendor-info-as-reason",
        "a NACK with vendor_info set is taken for UNEXP_EVENT",
        &[req::NETH_VENDOR_001],
        &["snd-lenient"],
        |b| {
            misread(b, |f| {
                let Some(n) = f.ext.neth.as_mut().filter(|n| n.vendor_info != 0) else {
                    return false;
                };
                n.reason = NackReason::UNEXP_EVENT;
                true
            })
        },
    ),
    misreads(
        "only-unlimited-credit-is-ack",
        "only credit code 0x1F is taken for an ACK; any other is a NAK",
        &[req::AETH_MRC_002],
        &["snd-lenient"],
        |b| {
            misread(b, |f| {
                let ack =
                    f.ext.aeth.as_mut().filter(|a| a.kind() == AethKind::Ack && a.syndrome != 0x1F);
                let Some(a) = ack else { return false };
                a.syndrome = 0x63;
                true
            })
        },
    ),
    misreads(
        "answers-any-qpn",
        "endpoint requests to any QPN are answered",
        &[req::ERTH_RESP_001_E],
        &["rcv-endpoint"],
        |b| {
            misread(b, |f| {
                f.ext.erth.is_some() && f.bth.dest_qp != Qpn::ENDPOINT && {
                    f.bth.dest_qp = Qpn::ENDPOINT;
                    true
                }
            })
        },
    ),
    misreads(
        "answers-responses",
        "endpoint responses are answered as if they were requests",
        &[req::ERTH_RESP_001, req::REC_IF_018_B],
        &["rcv-endpoint", "rec-endpoint-request"],
        |b| {
            misread(b, |f| {
                let Some(e) = f.ext.eeth.take() else { return false };
                f.bth.opcode = Opcode::MRC_ENDPOINT_REQUEST;
                f.ext.erth = Some(ErthRepr::new(e.op, e.port_status, e.request_id));
                true
            })
        },
    ),
    // ---- fields sent wrong -----------------------------------------------------------------
    sends(
        "nack-timestamp-zero",
        "NACKs reflect no timestamp",
        &[req::NETH_TS_001, req::RCV_NACK_001_F],
        &["rcv-reflect"],
        |b| {
            seal(b, |f| {
                let Some(n) = f.ext.neth.as_mut() else { return false };
                n.tx_timestamp = 0;
                true
            })
        },
    ),
    sends(
        "sack-timestamp-zero",
        "SACKs reflect no timestamp",
        &[req::CCS_TS_001, req::RCV_SACK_007],
        &["rcv-reflect", "rcv-probe-answer"],
        |b| {
            seal(b, |f| {
                let Some(c) = f.ext.cc_state.as_mut().filter(|c| c.tx_timestamp != 0) else {
                    return false;
                };
                c.tx_timestamp = 0;
                true
            })
        },
    ),
    stream(
        "stale-timestamps-dropped",
        "the receive path takes a write's TSETH tx_timestamp for its send time and drops, as \
         a stale copy, a write stamped lower than the highest stamp its QP took: once the \
         requester's 16-bit clock wraps, or a stamp goes back, its writes are lost",
        &[req::TSETH_TS_001_A],
        &["rcv-timestamp-wrap"],
        |_| Box::<StaleDropped>::default(),
    ),
    sends(
        "timestamps-interpreted",
        "reflected timestamps are converted to another unit",
        &[req::TSETH_TS_001_B, req::CCS_TS_001, req::NETH_TS_001],
        &["rcv-reflect", "rcv-probe-answer"],
        |b| {
            seal(b, |f| match (f.ext.cc_state.as_mut(), f.ext.neth.as_mut()) {
                (Some(c), _) => {
                    c.tx_timestamp >>= 2;
                    true
                }
                (_, Some(n)) => {
                    n.tx_timestamp >>= 2;
                    true
                }
                _ => false,
            })
        },
    ),
    sends(
        "probe-answered-without-pr",
        "a probe is answered by a SACK with pr = 0",
        &[req::PETH_RESP_001, req::SETH_PR_001, req::RCV_SACK_005_G],
        &["rcv-probe-answer"],
        |b| {
            seal(b, |f| {
                let Some(s) = f.ext.seth.as_mut().filter(|s| s.pr) else { return false };
                s.pr = false;
                s.ack_psn_offset = 0;
                true
            })
        },
    ),
    fault(
        "no-endpoint-response",
        "endpoint requests are not answered",
        &[req::ERTH_RESP_001],
        &["rcv-endpoint"],
        Edits {
            keep_out: Some(|o| match o {
                openrdma_device::Output::Frame { bytes, .. } => decode(bytes).ext.eeth.is_none(),
                openrdma_device::Output::Event { .. } => true,
            }),
            ..Edits::NONE
        },
    ),
    sends(
        "endpoint-ports-zero",
        "endpoint responses report no port up",
        &[req::EETH_PORT_001],
        &["rcv-endpoint"],
        |b| {
            seal(b, |f| {
                let Some(e) = f.ext.eeth.as_mut() else { return false };
                e.port_status = 0;
                true
            })
        },
    ),
    sends(
        "endpoint-wrong-ev",
        "endpoint responses travel on another EV than the request's",
        &[req::ERTH_RESP_001],
        &["rcv-endpoint"],
        |b| {
            seal(b, |f| {
                f.ext.eeth.is_some() && {
                    let ev = Ev::new(f.entropy().value() ^ 0x0001_0000);
                    f.set_entropy(ev);
                    true
                }
            })
        },
    ),
    sends(
        "request-ports-all-up",
        "endpoint requests say every port is up",
        &[req::ERTH_PORT_001],
        &["rec-endpoint-request"],
        |b| {
            seal(b, |f| {
                let Some(e) = f.ext.erth.as_mut() else { return false };
                e.port_status = u32::MAX;
                true
            })
        },
    ),
    sends(
        "request-resv12-set",
        "endpoint requests carry a non-zero resv12",
        &[req::ERTH_RESV_001],
        &["rec-endpoint-request"],
        |b| {
            seal(b, |f| {
                let Some(e) = f.ext.erth.as_mut() else { return false };
                e.resv12 = 1;
                true
            })
        },
    ),
    sends(
        "request-on-first-ev",
        "endpoint requests leave on port 0's EV, whatever EV was commanded",
        &[req::REC_IF_017],
        &["rec-endpoint-request"],
        |b| {
            seal(b, |f| {
                f.ext.erth.is_some() && {
                    f.set_entropy(Ev::new(0xA000_0000));
                    true
                }
            })
        },
    ),
    stream(
        "sends-undefined-op",
        "an endpoint request the CPU half commands with an operation the ERTH does not define is sent as given",
        &[req::REC_IF_017_D, req::ERTH_OP_001_A],
        &["rec-endpoint-request"],
        |_| Box::<UndefinedOpSent>::default(),
    ),
];

/// A NIC half that does not check the `op` of an `EndpointRequest` (REC-IF-017.d): it
/// sends the request with the `op` it was given. The inner device is asked for a
/// `PORT_STATUS_UPDATE` in its place, and the request it sends is given the `op` back.
#[derive(Debug, Default)]
struct UndefinedOpSent {
    /// The commanded `op` of each such request, by its `request_id`.
    ops: BTreeMap<u32, EndpointOp>,
}

impl Stream for UndefinedOpSent {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            if let Input::Cpu { command: CpuCommand::EndpointRequest { op, request_id, .. } } =
                &mut i.input
            {
                if !op.is_known() {
                    self.ops.insert(*request_id, *op);
                    *op = EndpointOp::PORT_STATUS_UPDATE;
                }
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            let Output::Frame { bytes, .. } = &mut o.output else { continue };
            let sent = seal(bytes, |f| {
                let Some(e) = f.ext.erth.as_mut() else { return false };
                let Some(op) = self.ops.get(&e.request_id) else { return false };
                e.op = *op;
                true
            });
            if let Some(b) = sent {
                *bytes = b;
            }
        }
        outputs
    }
}

/// A receive path that orders a QP's writes by their TSETH timestamps: the highest stamp
/// each QP took, and the writes stamped lower dropped.
#[derive(Debug, Default)]
struct StaleDropped {
    highest: BTreeMap<u32, u16>,
}

impl Stream for StaleDropped {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        inputs.retain(|i| {
            let Input::Frame { bytes, .. } = &i.input else { return true };
            let d = decode(bytes);
            let (Some(b), Some(t)) = (d.bth, d.ext.tseth) else { return true };
            if !b.opcode.is_mrc_write() {
                return true;
            }
            let highest = self.highest.entry(b.dest_qp.value()).or_insert(0);
            if t.tx_timestamp < *highest {
                return false;
            }
            *highest = t.tx_timestamp;
            true
        });
        inputs
    }
}

/// Whether the device keeps an input: not a frame that `drop` matches.
fn keep(i: &Input, drop: impl FnOnce(&DecodedFrame<'_>) -> bool) -> bool {
    match i {
        Input::Frame { bytes, .. } => !drop(&decode(bytes)),
        _ => true,
    }
}

/// The frame with `edit` applied, as the device reads it; `None` when `edit` declines.
fn misread(b: &[u8], edit: impl FnOnce(&mut FrameRepr) -> bool) -> Option<Vec<u8>> {
    seal(b, edit)
}

/// The frame with `edit` applied, its lengths, checksums and ICRC made right; `None` when
/// `edit` declines.
fn seal(b: &[u8], edit: impl FnOnce(&mut FrameRepr) -> bool) -> Option<Vec<u8>> {
    let mut f = decode(b).to_repr()?;
    if !edit(&mut f) {
        return None;
    }
    f.finalize().ok()?;
    f.to_bytes().ok()
}
