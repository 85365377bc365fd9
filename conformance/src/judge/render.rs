//! How the judge shows frames and events: one line each, and the comparable fields of a
//! frame.

use std::collections::HashMap;

use openrdma_codec::frame::{DecodedFrame, IpRepr, decode};
use openrdma_device::NicEvent;

use super::FieldDiff;

/// Renders a frame as one line of its significant fields.
pub fn render_frame(bytes: &[u8]) -> String {
    let d = decode(bytes);
    let Some(bth) = d.bth else {
        return match d.error {
            Some(e) => format!("undecodable frame ({e})"),
            None => format!("non-RoCE frame of {} bytes", bytes.len()),
        };
    };
    let mut s = format!("{} qp {:#x} psn {}", bth.opcode, bth.dest_qp.value(), bth.psn.value());
    if bth.rtx {
        s.push_str(" rtx");
    }
    if bth.ack_req {
        s.push_str(" ackreq");
    }
    if let Some(m) = d.ext.meth {
        s.push_str(&format!(" msn {} rqmsn {}", m.msn, m.rqmsn));
    }
    if let Some(r) = d.ext.reth {
        s.push_str(&format!(" va {:#x} rkey {:#x} dma_len {}", r.va, r.rkey, r.dma_len));
    }
    if let Some(i) = d.ext.immdt {
        s.push_str(&format!(" imm {:#x}", i.imm));
    }
    if let Some(x) = d.ext.seth {
        s.push_str(&format!(
            " cack {} offset {} bitmap {:#x} entropy {:#x} pr {}",
            x.cack_psn.value(),
            x.sack_offset,
            x.sack_bitmap,
            x.entropy,
            x.pr
        ));
    }
    if let Some(n) = d.ext.neth {
        s.push_str(&format!(" reason {:#x} nack_psn {}", n.reason.0, n.nack_psn.value()));
    }
    if let Some(a) = d.ext.aeth {
        s.push_str(&format!(" syndrome {:#x} msn {}", a.syndrome, a.msn));
    }
    if let Some(e) = d.ext.erth {
        s.push_str(&format!(" op {} request {:#x} ports {:#b}", e.op, e.request_id, e.port_status));
    }
    if let Some(e) = d.ext.eeth {
        s.push_str(&format!(
            " op {} status {} request {:#x} ports {:#b}",
            e.op, e.status, e.request_id, e.port_status
        ));
    }
    if !d.payload.is_empty() {
        s.push_str(&format!(" payload {} B", d.payload.len()));
    }
    s.push_str(&format!(" ev {:#x} icrc {}", d.entropy().unwrap_or_default(), d.icrc.as_str()));
    s
}

/// Renders an event as one line.
pub fn render_event(e: &NicEvent) -> String {
    match e {
        NicEvent::DmaWrite(w) => format!(
            "DMA write qp {} msn {} psn {} va {:#x} {} B",
            w.qpn,
            w.msn,
            w.psn.value(),
            w.va,
            w.payload.len()
        ),
        NicEvent::FlagWrite(f) => {
            let x = openrdma_codec::host::FlagRepr::from_u64(f.value);
            format!(
                "flag write ({:?}) qp {} msn {} @{:#x}: {}, generation {}, status {:#x}, {} B{}",
                f.side,
                f.qpn,
                f.msn,
                f.addr,
                if x.valid { "valid" } else { "not valid" },
                x.generation,
                x.status.0,
                x.byte_len,
                if x.resv != 0 { format!(", resv {:#x}", x.resv) } else { String::new() }
            )
        }
        NicEvent::Completion(c) => {
            let e = c.written_entry();
            let mut s = format!(
                "completion ({:?}) qp {} wr_id {:#x} status {:#x} msn {} len {} imm {:#x}",
                c.side, e.qpn, e.wr_id, e.status.0, e.msn, e.byte_len, e.imm
            );
            if let Some(q) = &c.queue {
                s.push_str(&format!(
                    " in queue {} slot {} at {:#x} phase {}",
                    q.cq,
                    q.slot,
                    q.addr,
                    u8::from(e.phase)
                ));
            }
            s
        }
        NicEvent::Report(r) => format!("report {r:?}"),
    }
}

/// How far `at` is from `from`, in words: "120 ns after" or "35 ns before". Device times
/// come in any order, so the distance is taken either way and never wraps.
pub(super) fn gap(at: u64, from: u64) -> String {
    if at >= from { format!("{} ns after", at - from) } else { format!("{} ns before", from - at) }
}

/// The comparable fields of a frame, in order.
pub(super) fn frame_fields(d: &DecodedFrame<'_>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut put = |k: &str, v: String| out.push((k.to_string(), v));
    // The encapsulation the link fixes (ENC-*): addresses, VLAN, IP version, UDP port.
    if let Some(e) = d.eth {
        put("eth.dst", e.dst.to_string());
        put("eth.src", e.src.to_string());
    }
    put("vlan.vid", d.vlans.first().map_or("-".into(), |v| v.vid.to_string()));
    match &d.ip {
        Some(IpRepr::V4(ip)) => {
            put("ip.src", ip.src.to_string());
            put("ip.dst", ip.dst.to_string());
        }
        Some(IpRepr::V6(ip)) => {
            put("ip.src", ip.src.to_string());
            put("ip.dst", ip.dst.to_string());
        }
        None => {}
    }
    if let Some(u) = d.udp {
        put("udp.dst_port", u.dst_port.to_string());
    }
    // A TSETH is present exactly when BTH `ts` is set (TSETH-PRESENT-001); its timestamp is
    // the device's own clock and is not compared.
    put("tseth", if d.ext.tseth.is_some() { "present" } else { "absent" }.into());
    // Its flags are fixed (SND-TS-002, TSETH-RESV-001); its timestamp is judged apart.
    if let Some(t) = d.ext.tseth {
        put("tseth.tsr", t.tsr.to_string());
        put("tseth.resv", format!("{:#x}", t.resv));
        put("tseth.ftype", t.ftype.to_string());
    }
    if let Some(b) = d.bth {
        put("bth.opcode", format!("{:#04x}", b.opcode.0));
        put("bth.dest_qp", format!("{:#x}", b.dest_qp.value()));
        put("bth.psn", b.psn.value().to_string());
        put("bth.ack_req", b.ack_req.to_string());
        put("bth.rtx", b.rtx.to_string());
        put("bth.pad_count", b.pad_count.to_string());
        put("bth.pkey", format!("{:#06x}", b.pkey));
        put("bth.solicited", b.solicited.to_string());
    }
    if let Some(m) = d.ext.meth {
        put("meth.msn", m.msn.to_string());
        put("meth.rqmsn", m.rqmsn.to_string());
    }
    if let Some(r) = d.ext.reth {
        put("reth.va", format!("{:#x}", r.va));
        put("reth.rkey", format!("{:#x}", r.rkey));
        put("reth.dma_len", r.dma_len.to_string());
    }
    put("immdt.imm", d.ext.immdt.map_or("-".into(), |i| format!("{:#x}", i.imm)));
    if let Some(n) = d.ext.neth {
        // Its reserved fields are judged by CONF-CMP-016; the rest here (CONF-CMP-017).
        put("neth.reason", format!("{:#04x}", n.reason.0));
        put("neth.nack_psn", n.nack_psn.value().to_string());
        put("neth.entropy", format!("{:#010x}", n.entropy));
        put("neth.tx_timestamp", n.tx_timestamp.to_string());
        put("neth.res_type", n.res_type.to_string());
        put("neth.next_header", n.next_header.to_string());
        put("neth.vendor_info", format!("{:#04x}", n.vendor_info));
        put("neth.spdcid", format!("{:#06x}", n.spdcid));
        put("neth.dpdcid", format!("{:#06x}", n.dpdcid));
        put("neth.cc_type", n.cc_type.to_string());
        put("neth.cc_flags", n.cc_flags.to_string());
    }
    if let Some(p) = d.ext.peth {
        // The probe counter (EV-PROBE-005); the timestamp is the device's clock.
        put("peth.probe_id", p.probe_id.to_string());
        put("peth.ftype", p.ftype.to_string());
    }
    if let Some(a) = d.ext.aeth {
        // A transport ACK or NAK travels on the EV of the packet that caused it
        // (RCV-ACK-002, RCV-NAK-002).
        put("ev", format!("{:#x}", d.entropy().unwrap_or_default()));
        put("aeth.syndrome", format!("{:#04x}", a.syndrome));
        put("aeth.msn", a.msn.to_string());
    }
    if let Some(e) = d.ext.erth {
        // An endpoint request goes where, and says what, the CPU half commanded, with the
        // device's own ports (CONF-CMP-043).
        put("ev", format!("{:#x}", d.entropy().unwrap_or_default()));
        put("erth.op", format!("{:#04x}", e.op.0));
        put("erth.resv1", e.resv1.to_string());
        put("erth.port_status", format!("{:#b}", e.port_status));
        put("erth.request_id", format!("{:#x}", e.request_id));
        put("erth.resv12", e.resv12.to_string());
    }
    if let Some(e) = d.ext.eeth {
        // An endpoint response answers a request the scenario injected: its path is the
        // request's (ERTH-RESP-001), and so is every field but `data`.
        put("ev", format!("{:#x}", d.entropy().unwrap_or_default()));
        put("eeth.op", format!("{:#04x}", e.op.0));
        put("eeth.status", e.status.to_string());
        put("eeth.resv2", e.resv2.to_string());
        put("eeth.port_status", format!("{:#b}", e.port_status));
        put("eeth.request_id", format!("{:#x}", e.request_id));
        put("eeth.data", hex_digest(&e.data));
    }
    put("payload", hex_digest(d.payload));
    put("icrc", d.icrc.as_str().to_string());
    out
}

fn hex_digest(b: &[u8]) -> String {
    if b.len() <= 16 {
        b.iter().map(|x| format!("{x:02x}")).collect()
    } else {
        let h = crc32fast::hash(b);
        format!("{} B, crc32 {h:08x}", b.len())
    }
}

pub(super) fn diff(expected: &[(String, String)], actual: &[(String, String)]) -> Vec<FieldDiff> {
    let a: HashMap<&str, &str> = actual.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut out = Vec::new();
    for (k, v) in expected {
        let got = a.get(k.as_str()).copied().unwrap_or("(absent)");
        if got != v {
            out.push(FieldDiff::new(k, v.clone(), got.to_string()));
        }
    }
    out
}
