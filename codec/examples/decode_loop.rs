//! Decodes and ICRC-checks one MRC_WRITE_MIDDLE frame over IPv6 with 1 KiB of payload (the
//! frame of the codec benchmark's `decode_verify_*/1KiB`) a given number of times: a steady
//! loop for a profiler, which counts instructions per frame where wall time is noisy.
//!
//! `valgrind --tool=callgrind target/release/examples/decode_loop 100000`

use core::net::Ipv6Addr;
use std::hint::black_box;

use openrdma_codec::frame::{Extensions, FrameRepr, IcrcStatus, IpRepr, decode};
use openrdma_codec::wire::*;
use openrdma_codec::*;

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
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
        payload: (0..1024).map(|i| i as u8).collect(),
        pad: [0; 3],
        icrc: None,
        eth_padding: Vec::new(),
    };
    f.set_entropy(Ev::new(0xC001_2345));
    f.finalize().expect("a valid frame");
    let bytes = f.to_bytes().expect("emit");
    let start = std::time::Instant::now();
    let mut ok = 0u64;
    for _ in 0..n {
        ok += u64::from(decode(black_box(&bytes)).icrc == IcrcStatus::Ok);
    }
    let took = start.elapsed();
    assert_eq!(ok, n);
    println!("{n} frames in {took:?}: {:.2} M frames/s", n as f64 / took.as_secs_f64() / 1e6);
}
