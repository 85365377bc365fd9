//! Faults of the wire: an encoder bug in the frames the device sends (a field, a reserved
//! bit, a length, a checksum, an EV in the wrong place), or a wrong reading of the frames
//! it receives (CONF-CMP-016, CONF-CMP-017). Each names the scenario written to catch it;
//! where the sender's half of a rule is a SHOULD, the scenario must be non-strict, never
//! failed.

use openrdma_codec::frame::{FrameRepr, IpRepr, decode};
use openrdma_codec::icrc::Miscomputed;
use openrdma_codec::{Ev, EvMark, Ipv4Repr, NackReason, Opcode, Psn};
use openrdma_conformance::req::{self, Clause};

use super::Expect::{Fails, NonStrict};
use super::{Caps, Class, Edits, Expect, Fault, Rewrite};

mod rewrite;
use rewrite::*;
mod streams;
use streams::*;

/// A fault in the frames the device sends.
const fn out(
    name: &'static str,
    what: &'static str,
    breaks: &'static [Clause],
    catch: &'static [&'static str],
    expect: Expect,
    rw: Rewrite,
) -> Fault {
    Fault {
        name,
        class: Class::Fault,
        what,
        breaks,
        expect,
        catch,
        caps: Caps::Same,
        edits: Edits { frame_out: Some(rw), ..Edits::NONE },
    }
}

/// Every wire fault.
pub static FAULTS: &[Fault] = &[
    out("eth-arp-type", "ARP-typed frames", &[req::ENC_ETH_001], &["rcv-sack-timer"], Fails, |b| {
        let mut b = b.to_vec();
        b[12..14].copy_from_slice(&[0x08, 0x06]);
        Some(b)
    }),
    out(
        "eth-group-source",
        "a group source address",
        &[req::ENC_ETH_002],
        &["rcv-sack-timer"],
        Fails,
        |b| {
            refit(b, |f| {
                f.eth.src.0[0] |= 1;
                true
            })
        },
    ),
    out(
        "vlan-reserved-vid",
        "the reserved VID",
        &[req::ENC_VLAN_001],
        &["rcv-in-order-vlan"],
        Fails,
        |b| refit(b, |f| f.vlans.first_mut().map(|v| v.vid = 0xFFF).is_some()),
    ),
    out(
        "vlan-second-tag",
        "a second tag",
        &[req::ENC_VLAN_002],
        &["rcv-in-order-vlan"],
        Fails,
        |b| {
            let mut b = b.to_vec();
            b.splice(16..16, [0x81, 0x00, 0x00, 0x2A]);
            Some(b)
        },
    ),
    out(
        "ipv4-protocol-tcp",
        "TCP as the IP protocol",
        &[req::ENC_IPV4_001],
        &["rcv-sack-timer"],
        Fails,
        |b| refit(b, |f| v4(f).map(|v| v.protocol = 6).is_some()),
    ),
    out(
        "ipv4-more-fragments",
        "the MF flag",
        &[req::ENC_IPV4_002],
        &["rcv-sack-timer"],
        Fails,
        |b| refit(b, |f| v4(f).map(|v| v.more_frags = true).is_some()),
    ),
    out(
        "ipv4-reserved-flag",
        "the reserved IPv4 flag",
        &[req::ENC_IPV4_004],
        &["rcv-sack-timer"],
        Fails,
        |b| refit(b, |f| v4(f).map(|v| v.flag_reserved = true).is_some()),
    ),
    out(
        "ipv6-extension-header",
        "an IPv6 extension header",
        &[req::ENC_IPV6_001],
        &["rcv-in-order-v6"],
        Fails,
        |b| {
            refit(b, |f| match &mut f.ip {
                IpRepr::V6(v6) => {
                    v6.next_header = 0;
                    true
                }
                IpRepr::V4(_) => false,
            })
        },
    ),
    out(
        "ev-halves-swapped-v6",
        "EV halves swapped over IPv6",
        &[req::ENC_EV_001],
        &["snd-dark-path-v6"],
        Fails,
        |b| {
            let ev = decode(b).entropy()?;
            refit(b, |f| {
                data(b) && {
                    f.set_entropy(Ev::from_halves(ev.low(), ev.high()));
                    true
                }
            })
        },
    ),
    out(
        "ev-low-in-port-v4",
        "EV[15:0] in the source port over IPv4",
        &[req::ENC_EV_002],
        &["snd-segmentation"],
        Fails,
        |b| {
            // The EV the device chose, of its profile: over IPv4 its low half is 0.
            let ev = decode(b).entropy()?;
            refit(b, |f| {
                data(b) && {
                    f.udp.src_port = ev.low();
                    true
                }
            })
        },
    ),
    out(
        "udp-length-long",
        "a UDP length 4 too long",
        &[req::ENC_LEN_001],
        &["rcv-sack-timer"],
        Fails,
        |b| {
            raw(b, |f| {
                f.udp.length += 4;
                true
            })
        },
    ),
    out(
        "ipv4-total-length-long",
        "an IPv4 total length 100 too long",
        &[req::ENC_LEN_002],
        &["rcv-sack-timer"],
        Fails,
        |b| raw(b, |f| v4(f).map(|v| v.total_len += 100).is_some()),
    ),
    out(
        "udp-length-below-8",
        "a UDP length below 8",
        &[req::ENC_UDP_002],
        &["rcv-sack-timer"],
        Fails,
        |b| {
            raw(b, |f| {
                f.udp.length = 7;
                true
            })
        },
    ),
    out(
        "udp-port-4792",
        "UDP to port 4792",
        &[req::ENC_UDP_001],
        &["rcv-sack-timer"],
        Fails,
        |b| {
            refit(b, |f| {
                f.udp.dst_port = 4792;
                true
            })
        },
    ),
    out(
        "udp-checksum-wrong-v4",
        "a wrong UDP checksum over IPv4",
        &[req::ENC_UDP_003],
        &["rcv-sack-timer"],
        Fails,
        |b| {
            let d = decode(b);
            let at = d.layout.udp?;
            let mut b = b.to_vec();
            b[at + 6..at + 8].copy_from_slice(&[0x12, 0x34]);
            Some(b)
        },
    ),
    out(
        "sack-without-cc-state",
        "a SACK without its CC_STATE",
        &[req::ENC_FRAME_001],
        &["rcv-sack-timer"],
        Fails,
        |b| {
            if sack(b) { shorten(b, 8) } else { None }
        },
    ),
    out(
        "bth-alone",
        "a BTH and nothing else",
        &[req::ENC_LEN_004],
        &["rcv-sack-timer"],
        Fails,
        |b| {
            let d = decode(b);
            let n = d.layout.icrc? - d.layout.bth? - 6;
            shorten(b, n)
        },
    ),
    out("bth-tver-1", "tver 1", &[req::BTH_TVER_001], &["rcv-sack-timer"], Fails, |b| {
        on_sacks(b, |f| f.bth.tver = 1)
    }),
    out(
        "bth-becn",
        "BECN in an MRC packet",
        &[req::BTH_RESV_002, req::DEC_RESV_001_A],
        &["rcv-sack-timer"],
        Fails,
        |b| on_sacks(b, |f| f.bth.becn = true),
    ),
    out(
        "bth-reserved-byte-8",
        "a reserved bit of BTH byte 8",
        &[req::BTH_RESV_003, req::DEC_RESV_001_A],
        &["rcv-sack-timer"],
        Fails,
        |b| on_sacks(b, |f| f.bth.resv8 = 0x01),
    ),
    out(
        "opcode-undefined",
        "an undefined MRC opcode",
        &[req::OPC_UNKNOWN_001],
        &["rcv-sack-timer"],
        Fails,
        |b| {
            if !sack(b) {
                return None;
            }
            let at = decode(b).layout.bth?;
            let mut b = b.to_vec();
            b[at] = 0xC0;
            let mut f = repr(&b)?;
            f.icrc = None;
            f.to_bytes().ok()
        },
    ),
    out(
        "sack-ts-set",
        "ts set in a SACK",
        &[req::TSETH_PRESENT_002],
        &["rcv-sack-timer"],
        Fails,
        |b| on_sacks(b, |f| f.bth.ts = true),
    ),
    out(
        "sack-payload",
        "payload in a SACK",
        &[req::PAY_NONE_001],
        &["rcv-sack-timer"],
        Fails,
        |b| on_sacks(b, |f| f.payload = vec![0; 4]),
    ),
    out(
        "pad-count-short",
        "a pad count one too few",
        &[req::PAY_PAD_001],
        &["rcv-sack-timer"],
        Fails,
        |b| {
            if !sack(b) {
                return None;
            }
            // One byte more than the pad count accounts for; lengths that agree with it.
            let mut f = repr(b)?;
            f.payload.push(0);
            f.finalize().ok()?;
            f.bth.pad_count = 0;
            let udp_len = f.ip_len() - f.ip.header_len();
            f.udp.length = udp_len as u16;
            let v = v4(&mut f)?;
            v.total_len = (udp_len + v.header_len()) as u16;
            v.fill_checksum().ok()?;
            f.icrc = None;
            f.to_bytes().ok()
        },
    ),
    out("seth-m-3", "m = 3", &[req::SETH_M_001], &["rcv-sack-timer"], Fails, |b| {
        on_sacks(b, |f| f.ext.seth.as_mut().unwrap().m = EvMark(3))
    }),
    out(
        "seth-reserved-byte-12",
        "SETH byte 12 set",
        &[req::SETH_RESV_001, req::DEC_RESV_001_A],
        &["rcv-sack-timer"],
        Fails,
        |b| on_sacks(b, |f| f.ext.seth.as_mut().unwrap().resv12 = 0x80),
    ),
    out(
        "cc-state-reserved-bit",
        "the CC_STATE reserved bit",
        &[req::CCS_RESV_001, req::DEC_RESV_001_A],
        &["rcv-sack-timer"],
        Fails,
        |b| on_sacks(b, |f| f.ext.cc_state.as_mut().unwrap().resv = true),
    ),
    out(
        "tseth-reserved-bit",
        "a reserved TSETH bit",
        &[req::TSETH_RESV_001, req::DEC_RESV_001_A],
        &["snd-segmentation"],
        Fails,
        |b| refit(b, |f| f.ext.tseth.as_mut().map(|t| t.resv = 0x400).is_some()),
    ),
    out(
        "tseth-without-ts",
        "writes carry their TSETH with BTH ts 0",
        &[req::TSETH_PRESENT_001, req::OPC_TABLE_001],
        &["snd-segmentation"],
        Fails,
        |b| {
            let d = decode(b);
            let at = d.layout.bth? + 8;
            d.ext.tseth?;
            let mut b = b.to_vec();
            b[at] &= !0x10;
            raw(&b, |_| true)
        },
    ),
    out(
        "retransmission-without-tseth",
        "a retransmitted write is built without its TSETH, and with BTH ts 0, though timestamps is on",
        &[req::SND_TS_002_A],
        &["snd-single-loss"],
        Fails,
        |b| {
            refit(b, |f| {
                f.bth.opcode.is_mrc_write() && f.bth.rtx && f.ext.tseth.take().is_some() && {
                    f.bth.ts = false;
                    true
                }
            })
        },
    ),
    out(
        "tseth-ftype-2",
        "TSETH ftype 2",
        &[req::TSETH_FTYPE_001],
        &["snd-segmentation"],
        NonStrict,
        |b| refit(b, |f| f.ext.tseth.as_mut().map(|t| t.ftype = 2).is_some()),
    ),
    out(
        "pad-bytes-nonzero",
        "non-zero pad bytes",
        &[req::PAY_PAD_002],
        &["snd-segmentation"],
        NonStrict,
        |b| {
            raw(b, |f| {
                f.bth.pad_count > 0 && {
                    f.pad = [0xAA; 3];
                    true
                }
            })
        },
    ),
    out(
        "reth-length-over-2-31",
        "a message longer than 2^31",
        &[req::RETH_LEN_001],
        &["snd-segmentation"],
        Fails,
        |b| refit(b, |f| f.ext.reth.as_mut().map(|r| r.dma_len = 0x8000_0001).is_some()),
    ),
    out(
        "reth-range-past-2-64",
        "a range past 2^64",
        &[req::RETH_VA_001],
        &["snd-segmentation"],
        Fails,
        |b| {
            refit(b, |f| {
                f.ext.reth.as_mut().is_some_and(|r| r.dma_len > 0) && {
                    f.ext.reth.as_mut().map(|r| r.va = u64::MAX - 2).is_some()
                }
            })
        },
    ),
    out(
        "aeth-syndrome-bit-7",
        "syndrome bit 7 in an ACK",
        &[req::AETH_SYN_001],
        &["rcv-in-order-v4"],
        Fails,
        |b| refit(b, |f| f.ext.aeth.as_mut().map(|a| a.syndrome |= 0x80).is_some()),
    ),
    out(
        "aeth-reserved-kind",
        "NAKs of the reserved kind 10",
        &[req::AETH_SYN_002],
        &["rcv-placement-errors"],
        Fails,
        |b| {
            refit(b, |f| {
                f.ext.aeth.as_mut().is_some_and(|a| {
                    a.syndrome & 0x60 == 0x60 && {
                        a.syndrome ^= 0x20;
                        true
                    }
                })
            })
        },
    ),
    out(
        "aeth-nak-reserved-code",
        "NAKs with a reserved code",
        &[req::AETH_NAK_001],
        &["rcv-placement-errors"],
        Fails,
        |b| {
            refit(b, |f| {
                f.ext.aeth.as_mut().is_some_and(|a| {
                    a.syndrome & 0x60 == 0x60 && {
                        a.syndrome |= 0x04;
                        true
                    }
                })
            })
        },
    ),
    out(
        "aeth-nak-psn-sequence",
        "NAK PSN sequence error in MRC",
        &[req::AETH_MRC_001],
        &["rcv-placement-errors"],
        Fails,
        |b| {
            refit(b, |f| {
                f.ext.aeth.as_mut().is_some_and(|a| {
                    a.syndrome & 0x60 == 0x60 && {
                        a.syndrome = 0x60;
                        true
                    }
                })
            })
        },
    ),
    out(
        "neth-reserved-byte",
        "a reserved NETH byte",
        &[req::NETH_RESV_001, req::DEC_RESV_001_A],
        &["rcv-window-edges"],
        Fails,
        |b| refit(b, |f| f.ext.neth.as_mut().map(|n| n.resv17 = 1).is_some()),
    ),
    out(
        "neth-reason-undefined",
        "an undefined NACK reason",
        &[req::NETH_REASON_001],
        &["rcv-window-edges"],
        Fails,
        |b| refit(b, |f| f.ext.neth.as_mut().map(|n| n.reason = NackReason(0x42)).is_some()),
    ),
    out(
        "neth-entropy-other-ev",
        "a NACK naming another EV",
        &[req::NETH_PSN_001, req::RCV_NACK_001_E, req::ENC_EV_003],
        &["rcv-window-edges"],
        Fails,
        |b| {
            let ev = decode(b).entropy()?;
            refit(b, |f| {
                f.ext.neth.as_mut().is_some_and(|n| {
                    n.entropy = Ev::new(ev.value() ^ 0x1_0000);
                    true
                }) && {
                    // It travels on the EV it names, so only the report is wrong.
                    f.set_entropy(Ev::new(ev.value() ^ 0x1_0000));
                    true
                }
            })
        },
    ),
    out(
        "neth-no-timestamp",
        "a NACK without the timestamp",
        &[req::NETH_TS_001],
        &["rcv-window-edges"],
        Fails,
        |b| refit(b, |f| f.ext.neth.as_mut().map(|n| n.tx_timestamp = 0).is_some()),
    ),
    out(
        "nack-on-other-ev",
        "a NACK on another EV",
        &[req::RCV_NACK_001],
        &["rcv-window-edges"],
        Fails,
        |b| {
            let ev = decode(b).entropy()?;
            refit(b, |f| {
                nack(b) && {
                    f.set_entropy(Ev::new(ev.value() ^ 0x1_0000));
                    true
                }
            })
        },
    ),
    out(
        "neth-vendor-info",
        "NETH vendor_info",
        &[req::NETH_VENDOR_001],
        &["rcv-window-edges"],
        NonStrict,
        |b| refit(b, |f| f.ext.neth.as_mut().map(|n| n.vendor_info = 7).is_some()),
    ),
    out(
        "neth-cc-type",
        "NETH cc_type",
        &[req::NETH_CC_001],
        &["rcv-window-edges"],
        NonStrict,
        |b| refit(b, |f| f.ext.neth.as_mut().map(|n| n.cc_type = 1).is_some()),
    ),
    out(
        "neth-res-type",
        "NETH res_type",
        &[req::NETH_TYPE_001],
        &["rcv-window-edges"],
        NonStrict,
        |b| refit(b, |f| f.ext.neth.as_mut().map(|n| n.res_type = 1).is_some()),
    ),
    out(
        "neth-spdcid",
        "NETH spdcid",
        &[req::NETH_PDC_001],
        &["rcv-window-edges"],
        NonStrict,
        |b| refit(b, |f| f.ext.neth.as_mut().map(|n| n.spdcid = 1).is_some()),
    ),
    out(
        "ecn-not-capable-v4",
        "writes not ECN-capable",
        &[req::ENC_ECN_001],
        &["snd-segmentation"],
        NonStrict,
        |b| {
            refit(b, |f| match &mut f.ip {
                IpRepr::V4(v4) if f.bth.opcode.is_mrc_write() => {
                    v4.ecn = 0;
                    true
                }
                _ => false,
            })
        },
    ),
    out(
        "ecn-not-capable-v6",
        "IPv6 writes not ECN-capable",
        &[req::ENC_ECN_001],
        &["snd-dark-path-v6"],
        NonStrict,
        |b| {
            refit(b, |f| match &mut f.ip {
                IpRepr::V6(v6) if f.bth.opcode.is_mrc_write() => {
                    v6.traffic_class &= !0b11;
                    true
                }
                _ => false,
            })
        },
    ),
    out(
        "ipv4-df-clear",
        "Don't Fragment clear",
        &[req::ENC_IPV4_007],
        &["rcv-in-order-v4"],
        NonStrict,
        |b| {
            refit(b, |f| match &mut f.ip {
                IpRepr::V4(v4) => {
                    v4.dont_frag = false;
                    true
                }
                IpRepr::V6(_) => false,
            })
        },
    ),
    out("ipv4-ttl-0", "an IPv4 TTL of 0", &[req::ENC_HOP_001], &["rcv-in-order-v4"], Fails, |b| {
        refit(b, |f| match &mut f.ip {
            IpRepr::V4(v4) => {
                v4.ttl = 0;
                true
            }
            IpRepr::V6(_) => false,
        })
    }),
    out(
        "ipv6-hop-limit-1",
        "an IPv6 hop limit of 1",
        &[req::ENC_HOP_001],
        &["rcv-in-order-v6"],
        Fails,
        |b| {
            refit(b, |f| match &mut f.ip {
                IpRepr::V6(v6) => {
                    v6.hop_limit = 1;
                    true
                }
                IpRepr::V4(_) => false,
            })
        },
    ),
    out(
        "peth-reserved",
        "a reserved PETH field",
        &[req::PETH_RESV_001, req::DEC_RESV_001_A],
        &["snd-ev-always-skip"],
        Fails,
        |b| refit(b, |f| f.ext.peth.as_mut().map(|p| p.resv0 = 1).is_some()),
    ),
    out(
        "peth-probe-id-off-by-one",
        "probe_id off by one",
        &[req::EV_PROBE_005_E],
        &["snd-ev-always-skip"],
        Fails,
        |b| {
            refit(b, |f| {
                f.ext.peth.as_mut().map(|p| p.probe_id = p.probe_id.wrapping_add(1)).is_some()
            })
        },
    ),
    out(
        "ev-read-from-port-v4",
        "the EV read as the source port over IPv4",
        &[req::ENC_EV_002],
        &["rcv-in-order-v4"],
        Fails,
        |b| {
            // A receiver that takes src_port for the whole EV reports EV[31:16] as EV[15:0].
            on_sacks(b, |f| {
                let s = f.ext.seth.as_mut().unwrap();
                s.entropy = Ev::new(s.entropy.value() >> 16);
            })
        },
    ),
    Fault {
        name: "ev-read-flow-label-high-bits",
        class: Class::Fault,
        what: "the EV read with flow-label bits 19:16",
        breaks: &[req::ENC_EV_001],
        expect: Fails,
        catch: &["rcv-lenient-v6"],
        caps: Caps::Same,
        // The device reconstructs the EV of what it receives as src_port << 16 | flow_label,
        // all 20 bits: modelled by handing it a frame that carries that value as its EV.
        edits: Edits {
            frame_in: Some(|b| {
                let d = decode(b);
                let Some(IpRepr::V6(v6)) = &d.ip else { return None };
                if v6.flow_label & 0xF_0000 == 0 {
                    return None;
                }
                let misread = u32::from(d.udp?.src_port) << 16 | v6.flow_label;
                refit(b, |f| {
                    f.set_entropy(Ev::new(misread));
                    true
                })
            }),
            ..Edits::NONE
        },
    },
    out(
        "ipv4-ihl-4",
        "an IPv4 header length of 4 words",
        &[req::ENC_IPV4_005],
        &["rcv-sack-timer"],
        Fails,
        |b| {
            let mut b = b.to_vec();
            b[14] = 0x44;
            Some(b)
        },
    ),
    out(
        "ipv6-version-7",
        "an IPv6 version of 7",
        &[req::ENC_IPV6_002],
        &["rcv-in-order-v6"],
        Fails,
        |b| {
            let mut b = b.to_vec();
            b[14] = (b[14] & 0x0F) | 0x70;
            Some(b)
        },
    ),
    out(
        "pad-without-room",
        "a pad the SACK has no room for",
        &[req::PAY_PAD_001],
        &["rcv-sack-timer"],
        Fails,
        |b| {
            // BTH byte 1 of an untagged IPv4 frame: pad_count 3, with no payload to hold it.
            let mut b = b.to_vec();
            let sack = decode(&b).ext.seth.is_some();
            b[14 + 20 + 8 + 1] |= 0x30;
            sack.then_some(b)
        },
    ),
    out(
        "eeth-reserved",
        "a reserved EETH field",
        &[req::EETH_RESV_001, req::DEC_RESV_001_A],
        &["rcv-endpoint"],
        Fails,
        |b| refit(b, |f| f.ext.eeth.as_mut().map(|e| e.resv2 = 1).is_some()),
    ),
    out(
        "erth-reserved",
        "a reserved ERTH field",
        &[req::ERTH_RESV_001, req::DEC_RESV_001_A],
        &["rec-endpoint-request"],
        Fails,
        |b| refit(b, |f| f.ext.erth.as_mut().map(|e| e.resv1 = 1).is_some()),
    ),
    out(
        "erth-op-undefined",
        "an undefined endpoint operation",
        &[req::ERTH_OP_001],
        &["rec-endpoint-request"],
        Fails,
        |b| {
            refit(b, |f| {
                f.ext.erth.as_mut().map(|e| e.op = openrdma_codec::EndpointOp(7)).is_some()
            })
        },
    ),
    out(
        "icrc-no-final-xor",
        "the ICRC without the final XOR of the CRC",
        &[req::ICRC_CALC_001],
        &["rcv-sack-timer"],
        Fails,
        |b| {
            let d = decode(b);
            let (ip, icrc) = (d.layout.ip?, d.layout.icrc?);
            let right = openrdma_codec::icrc::compute(b.get(ip..icrc)?).ok()?;
            let mut b = b.to_vec();
            b.get_mut(icrc..icrc + 4)?.copy_from_slice(&(!right).to_le_bytes());
            Some(b)
        },
    ),
    out(
        "icrc-big-endian",
        "the ICRC appended big-endian",
        &[req::ICRC_ORDER_001],
        &["rcv-sack-timer", "rcv-in-order-v6"],
        Fails,
        |b| icrc_as(b, Miscomputed::BigEndian),
    ),
    out(
        "icrc-over-ethernet-header",
        "the ICRC computed from the Ethernet header on",
        &[req::ICRC_COVER_001],
        &["rcv-sack-timer", "rcv-in-order-vlan"],
        Fails,
        |b| icrc_as(b, Miscomputed::LinkHeaderCovered),
    ),
    out(
        "icrc-without-lrh-ones",
        "the ICRC computed without the eight bytes of ones",
        &[req::ICRC_COVER_001],
        &["rcv-sack-timer"],
        Fails,
        |b| icrc_as(b, Miscomputed::NoLrhOnes),
    ),
    out(
        "icrc-unmasked",
        "the ICRC computed with no field masked",
        &[req::ICRC_MASK_001],
        &["rcv-sack-timer", "rcv-in-order-v6"],
        Fails,
        |b| icrc_as(b, Miscomputed::Unmasked),
    ),
    out(
        "icrc-bth-byte-4-covered",
        "the ICRC computed with BTH byte 4 not masked",
        &[req::ICRC_MASK_001],
        &["rcv-sack-timer"],
        Fails,
        |b| icrc_as(b, Miscomputed::BthByte4Covered),
    ),
    out(
        "seth-cack-psn-little-endian",
        "the SETH cack_psn is written little-endian",
        &[req::SETH_LAYOUT_001],
        &["rcv-sack-timer", "rcv-in-order-v6"],
        Fails,
        |b| {
            on_sacks(b, |f| {
                let s = f.ext.seth.as_mut().unwrap();
                s.cack_psn = Psn::new(s.cack_psn.value().swap_bytes() >> 8);
            })
        },
    ),
    out(
        "seth-bitmap-little-endian",
        "the SETH sack_bitmap is written little-endian",
        &[req::SETH_LAYOUT_001],
        &["rcv-last-packet-first", "rcv-sack-triggers"],
        Fails,
        |b| {
            on_sacks(b, |f| {
                let s = f.ext.seth.as_mut().unwrap();
                s.sack_bitmap = s.sack_bitmap.swap_bytes();
            })
        },
    ),
    out(
        "cc-state-rcvd-bytes-little-endian",
        "the CC_STATE rcvd_bytes is written little-endian",
        &[req::CCS_LAYOUT_001],
        &["rcv-sack-timer", "rcv-in-order-v6"],
        Fails,
        |b| {
            on_sacks(b, |f| {
                if let Some(c) = f.ext.cc_state.as_mut() {
                    c.rcvd_bytes = c.rcvd_bytes.swap_bytes() >> 8;
                }
            })
        },
    ),
    out(
        "tseth-flags-little-endian",
        "the TSETH word of tsr, resv and ftype is written little-endian",
        &[req::TSETH_LAYOUT_001],
        &["snd-segmentation"],
        Fails,
        |b| {
            refit(b, |f| {
                let Some(t) = f.ext.tseth.as_mut() else { return false };
                let word = (u16::from(t.tsr) << 15 | t.resv << 4 | u16::from(t.ftype)).swap_bytes();
                t.tsr = word >> 15 == 1;
                t.resv = word >> 4 & 0x7FF;
                t.ftype = (word & 0xF) as u8;
                true
            })
        },
    ),
    out(
        "sack-bitmap-at-cack",
        "SACKs base their bitmap at cack_psn and leave the bit for cack_psn clear",
        &[req::SETH_BITMAP_002_A, req::RCV_SACK_005_C],
        &["rcv-last-packet-first", "rcv-sack-triggers"],
        Fails,
        |b| {
            on_sacks(b, |f| {
                let s = f.ext.seth.as_mut().unwrap();
                if s.sack_offset == 1 {
                    s.sack_offset = 0;
                    s.sack_bitmap <<= 1;
                }
            })
        },
    ),
    out(
        "sack-psn-of-trigger",
        "SACKs carry the triggering packet's PSN in BTH psn, as an RC ACK would, not cack_psn",
        &[req::RCV_SACK_005_I, req::OPC_PSN_002_A],
        &["rcv-last-packet-first", "rcv-sack-triggers"],
        Fails,
        |b| {
            on_sacks(b, |f| {
                let s = f.ext.seth.as_ref().unwrap();
                if !s.pr {
                    f.bth.psn = s.cack_psn.offset(i32::from(s.ack_psn_offset));
                }
            })
        },
    ),
    out(
        "rc-write-opcodes",
        "data goes out as RC RDMA writes: RC opcodes with the RC header stack, no METH or TSETH, and a RETH on the first packet only",
        &[req::SND_SEG_002, req::OPC_MRC_002],
        &["snd-segmentation"],
        Fails,
        |b| {
            refit(b, |f| {
                let o = f.bth.opcode;
                let rc = match o {
                    Opcode::MRC_WRITE_FIRST => Opcode::RC_WRITE_FIRST,
                    Opcode::MRC_WRITE_MIDDLE => Opcode::RC_WRITE_MIDDLE,
                    Opcode::MRC_WRITE_LAST => Opcode::RC_WRITE_LAST,
                    Opcode::MRC_WRITE_LAST_IMM => Opcode::RC_WRITE_LAST_IMM,
                    Opcode::MRC_WRITE_ONLY => Opcode::RC_WRITE_ONLY,
                    Opcode::MRC_WRITE_ONLY_IMM => Opcode::RC_WRITE_ONLY_IMM,
                    _ => return false,
                };
                f.bth.opcode = rc;
                f.bth.ts = false;
                f.bth.rtx = false;
                f.ext.meth = None;
                f.ext.tseth = None;
                if !o.is_first() {
                    f.ext.reth = None;
                }
                true
            })
        },
    ),
    out(
        "write-only-as-0xcb",
        "a write without immediate data that fits one packet goes out as 0xCB, the private raw-write opcode of an earlier design",
        &[req::SND_SEG_002, req::OPC_MRC_001],
        &["snd-segmentation"],
        Fails,
        |b| {
            if opcode(b) != Some(Opcode::MRC_WRITE_ONLY) {
                return None;
            }
            // The header stack stays that of 0xCA: only the opcode byte changes.
            let at = decode(b).layout.bth?;
            let mut b = b.to_vec();
            b[at] = Opcode::MRC_WRITE_ONLY_IMM.0;
            let mut f = repr(&b)?;
            f.icrc = None;
            f.to_bytes().ok()
        },
    ),
    Fault {
        name: "psn-wraps-to-1",
        class: Class::Fault,
        what: "the PSN counter reloads 1 after 0xFFFFFF, 0 being its invalid marker: every packet after the wrap carries a PSN one too high",
        breaks: &[req::SND_PSN_001, req::BTH_PSN_001],
        expect: Fails,
        catch: &["snd-segmentation"],
        caps: Caps::Same,
        edits: Edits { stream: Some(|_| Box::<WrapsTo1>::default()), ..Edits::NONE },
    },
    Fault {
        name: "probe-psn-received",
        class: Class::Fault,
        what: "the BTH psn of a probe is recorded as received",
        breaks: &[req::PETH_PSN_001, req::OPC_PSN_002_D],
        expect: Fails,
        catch: &["rcv-probe"],
        caps: Caps::Same,
        edits: Edits { stream: Some(|_| Box::<ProbePsn>::default()), ..Edits::NONE },
    },
];
