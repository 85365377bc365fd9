//! Throughput of the frame codec on MRC_WRITE_MIDDLE packets over IPv6 (METH + RETH, no
//! TSETH) with 64 B, 1 KiB and 4 KiB of payload.
//!
//! * `decode_verify_*`: [`decode`] of a whole frame, which parses every header and checks
//!   the ICRC.
//! * `build_icrc_*`: [`FrameRepr::emit`] into a buffer allocated once, computing the ICRC.
//! * `icrc_only`: [`icrc::compute`] over the IP packet.
//!
//! `*_bytes` groups report bytes per second of whole Ethernet frames (FCS excluded), and
//! `*_frames` groups report frames per second of the same work. Run with
//! `cargo bench -p openrdma-codec --bench codec`.

use core::net::Ipv6Addr;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use openrdma_codec::frame::{Extensions, FrameRepr, IcrcStatus, IpRepr, decode};
use openrdma_codec::wire::*;
use openrdma_codec::*;

const SIZES: [(&str, usize); 3] = [("64B", 64), ("1KiB", 1024), ("4KiB", 4096)];

/// A finalized MRC_WRITE_MIDDLE over IPv6 with `payload_len` bytes of payload.
fn write_middle(payload_len: usize) -> FrameRepr {
    let src = Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 1);
    let dst = Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 2);
    let mut f = FrameRepr {
        eth: EthernetRepr {
            dst: EthernetAddress([0x02, 0, 0, 0, 0, 2]),
            src: EthernetAddress([0x02, 0, 0, 0, 0, 1]),
            ethertype: EtherType::IPV6,
        },
        vlans: Vec::new(),
        ip: IpRepr::V6(Ipv6Repr::new(src, dst, IP_PROTO_UDP)),
        udp: UdpRepr::rocev2(0),
        bth: BthRepr::new(Opcode::MRC_WRITE_MIDDLE, Qpn::new(0x123), Psn::new(0x45_6789)),
        ext: Extensions {
            meth: Some(MethRepr::new(Rqmsn::new(0), Msn::new(1))),
            reth: Some(RethRepr::new(0x7f00_0000_0000, Rkey::new(0xBEEF), 1 << 20)),
            ..Extensions::default()
        },
        payload: (0..payload_len).map(|i| i as u8).collect(),
        pad: [0; 3],
        icrc: None,
        eth_padding: Vec::new(),
    };
    f.set_entropy(Ev::new(0xC001_2345));
    f.finalize().expect("a valid frame");
    f
}

/// Throughput of one frame of `frame_len` bytes, in `unit`: `"bytes"` or `"frames"`.
fn throughput(unit: &str, frame_len: usize) -> Throughput {
    if unit == "bytes" { Throughput::Bytes(frame_len as u64) } else { Throughput::Elements(1) }
}

fn decode_verify(c: &mut Criterion) {
    for unit in ["bytes", "frames"] {
        let mut g = c.benchmark_group(format!("decode_verify_{unit}"));
        for (name, n) in SIZES {
            let bytes = write_middle(n).to_bytes().expect("emit");
            assert_eq!(decode(&bytes).icrc, IcrcStatus::Ok);
            g.throughput(throughput(unit, bytes.len()));
            g.bench_with_input(BenchmarkId::from_parameter(name), &bytes, |b, bytes| {
                b.iter(|| {
                    let d = decode(black_box(bytes));
                    debug_assert!(d.is_clean());
                    black_box(d.icrc)
                })
            });
        }
        g.finish();
    }
}

fn build_icrc(c: &mut Criterion) {
    for unit in ["bytes", "frames"] {
        let mut g = c.benchmark_group(format!("build_icrc_{unit}"));
        for (name, n) in SIZES {
            let f = write_middle(n);
            let mut buf = vec![0u8; f.buffer_len()];
            // Emitted once before the benchmark, which a filter may skip, so that the check
            // below always has a frame to read.
            f.emit(&mut buf).expect("emit");
            g.throughput(throughput(unit, buf.len()));
            g.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter(|| black_box(&f).emit(black_box(&mut buf)).expect("emit"))
            });
            assert_eq!(decode(&buf).icrc, IcrcStatus::Ok);
        }
        g.finish();
    }
}

fn icrc_only(c: &mut Criterion) {
    let mut g = c.benchmark_group("icrc_only");
    for (name, n) in SIZES {
        let bytes = write_middle(n).to_bytes().expect("emit");
        // The IP packet without its ICRC trailer: what the CRC runs over.
        let covered = &bytes[14..bytes.len() - icrc::ICRC_LEN];
        g.throughput(Throughput::Bytes(covered.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), covered, |b, covered| {
            b.iter(|| icrc::compute(black_box(covered)).expect("ip packet"))
        });
    }
    g.finish();
}

criterion_group!(benches, decode_verify, build_icrc, icrc_only);
criterion_main!(benches);
