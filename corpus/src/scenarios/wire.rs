//! Frames a receiver must take no action on (`RCV-FRAME-001`): each is the frame of a
//! one-packet write with one thing wrong, followed by the same write sent properly, which
//! the device must then take as new — so the damaged copy changed nothing. Each damage is
//! named by the requirement that makes the frame one to discard
//! (`DecodedFrame::discard_reason`), and the scoreboard names an output acting on it the
//! same way (`CONF-CMP-023`).

use openrdma_codec::icrc;
use openrdma_codec::wire::ipv4::compute_checksum;

use super::*;

pub(super) fn builders() -> Vec<Builder> {
    vec![("wire-discard-v4", wire_discard_v4), ("wire-discard-v6", wire_discard_v6)]
}

/// One way a frame is damaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Damage {
    Icrc,
    Ipv4Checksum,
    UdpChecksum,
    IpVersion,
    Ihl,
    IpLength,
    UdpLength,
    UdpLengthBelow8,
    NoRoomForIcrc,
    Ipv4Protocol,
    Ipv6NextHeader,
    PadCount,
    UnknownOpcode,
    SecondTag,
    NotIp,
}

impl Damage {
    /// The requirement that makes a frame so damaged one to discard.
    fn requirement(self, v6: bool) -> &'static str {
        match self {
            Damage::Icrc => "ICRC-VERIFY-001",
            Damage::Ipv4Checksum => "ENC-IPV4-003",
            Damage::UdpChecksum => "ENC-UDP-006",
            Damage::IpVersion if v6 => "ENC-IPV6-002",
            Damage::IpVersion | Damage::Ihl => "ENC-IPV4-005",
            Damage::IpLength => "ENC-LEN-002",
            Damage::UdpLength => "ENC-LEN-001",
            Damage::UdpLengthBelow8 => "ENC-UDP-002",
            Damage::NoRoomForIcrc => "ENC-LEN-004",
            Damage::Ipv4Protocol => "ENC-IPV4-001",
            Damage::Ipv6NextHeader => "ENC-IPV6-001",
            Damage::PadCount => "PAY-PAD-003",
            Damage::UnknownOpcode => "OPC-UNKNOWN-001",
            Damage::SecondTag => "ENC-VLAN-002",
            Damage::NotIp => "ENC-ROCE-001",
        }
    }
}

/// The damages of the IPv4 scenario, in order.
const V4_DAMAGE: &[Damage] = &[
    Damage::Icrc,
    Damage::Ipv4Checksum,
    Damage::UdpChecksum,
    Damage::IpVersion,
    Damage::Ihl,
    Damage::IpLength,
    Damage::UdpLength,
    Damage::UdpLengthBelow8,
    Damage::NoRoomForIcrc,
    Damage::Ipv4Protocol,
    Damage::PadCount,
    Damage::UnknownOpcode,
    Damage::SecondTag,
    Damage::NotIp,
];

/// ... and of the IPv6 scenario.
const V6_DAMAGE: &[Damage] = &[
    Damage::Icrc,
    Damage::UdpChecksum,
    Damage::IpVersion,
    Damage::IpLength,
    Damage::UdpLength,
    Damage::Ipv6NextHeader,
    Damage::UnknownOpcode,
];

fn wire_discard_v4() -> Scenario {
    discard(
        "wire-discard-v4",
        "Over IPv4, one-packet writes arrive damaged, each in one way: a wrong ICRC, a wrong \
         IPv4 header checksum, a wrong non-zero UDP checksum, IP version 5, IHL 4, an IP \
         total length beyond the frame, a UDP length short of the IP payload, a UDP length \
         of 4, a datagram with no room for the ICRC, IP protocol 253, a pad count beyond the \
         packet, an opcode the table does not define, a second VLAN tag (802.1ad outside \
         802.1Q), an ethertype that is not IP (0x88B5) before an intact IPv4 packet. The \
         device takes no action on any of them; each write, sent properly 1.5 us later, is then new to it and is placed, \
         SACKed on the EV IPv4 carries (its port, bits 15:0 zero) and retired.",
        Link::default(),
        V4_DAMAGE,
        &["ENC-EV-002"],
    )
}

fn wire_discard_v6() -> Scenario {
    discard(
        "wire-discard-v6",
        "Over IPv6, one-packet writes arrive damaged, each in one way: a wrong ICRC, a wrong \
         non-zero UDP checksum, IP version 4 behind the IPv6 ethertype, a payload length \
         beyond the frame, a UDP length short of the payload length, next header 6, an \
         opcode the table does not define. The device takes no action on any of them; each \
         write, sent properly 1.5 us later, is then new to it and is placed, SACKed and \
         retired.",
        v6_link(),
        V6_DAMAGE,
        &[],
    )
}

/// One damaged copy and then one proper copy of a write, for each damage in `damages`.
fn discard(
    name: &str,
    description: &str,
    link: Link,
    damages: &[Damage],
    more: &[&'static str],
) -> Scenario {
    let v6 = link.is_ipv6();
    let mut reqs: Vec<&str> = vec!["RCV-FRAME-001", "RCV-PLACE-003"];
    for id in damages.iter().map(|d| d.requirement(v6)).chain(more.iter().copied()) {
        if !reqs.contains(&id) {
            reqs.push(id);
        }
    }
    let family = if v6 { Capability::Ipv6 } else { Capability::Ipv4 };
    let mut m = manifest(name, description, &reqs, &[Capability::Responder, family]);
    m.link = link.clone();
    let mut r = Recorder::new(m);
    setup(&mut r, 0, false);
    for (k, &damage) in damages.iter().enumerate() {
        let k = k as u32;
        let at = 1_000 + 3_000 * u64::from(k);
        // A pad count can exceed only a short payload: this write carries none.
        let len = if damage == Damage::PadCount { 0 } else { 64 };
        let va = REGION + u64::from(k) * 0x1000;
        let p = write(k, k as u16, Opcode::MRC_WRITE_ONLY, 0, len, len, va, None);
        let port = (k % 4) as u16;
        let ev = 0xA000_0000 + u32::from(port) * 0x1_0000 + if v6 { 0x0123 } else { 0 };
        let id = damage.requirement(v6);
        r.checks(&[id]);
        r.inject_bytes(at, port, damaged(&link, &p, ev, damage));
        r.checks(&[id, "RCV-PLACE-003"]);
        r.inject(at + 1_500, port, ev, &p);
    }
    done(r, 1_000 + 3_000 * damages.len() as u64 + 10_000)
}

/// The frame of `p` from the peer on `link`, damaged as `damage` says; the builder checks
/// that the codec names the damage as intended.
fn damaged(link: &Link, p: &Packet, ev: impl Into<Ev>, damage: Damage) -> Vec<u8> {
    let ev = ev.into();
    let v6 = link.is_ipv6();
    let ip_at = 14 + if link.vlan.is_some() { 4 } else { 0 };
    let udp_at = ip_at + if v6 { 40 } else { 20 };
    let bth_at = udp_at + 8;
    let nothing = |_: &mut FrameRepr| {};
    // Over IPv6 a damaged frame carries no UDP checksum (ENC-UDP-004), so that only the
    // damage under test is wrong, unless the checksum is that damage.
    let no_sum = |f: &mut FrameRepr| f.udp.checksum = 0;
    let set16 = |b: &mut [u8], at: usize, v: u16| b[at..at + 2].copy_from_slice(&v.to_be_bytes());
    let get16 = |b: &[u8], at: usize| u16::from_be_bytes([b[at], b[at + 1]]);
    let reseal_ipv4 = |b: &mut [u8]| {
        let hl = usize::from(b[ip_at] & 0x0F).max(5) * 4;
        b[ip_at + 10..ip_at + 12].fill(0);
        let c = compute_checksum(&b[ip_at..ip_at + hl]);
        b[ip_at + 10..ip_at + 12].copy_from_slice(&c.to_be_bytes());
    };
    let reseal_icrc = |b: &mut [u8]| {
        icrc::fill(&mut b[ip_at..]).expect("a RoCEv2 packet");
    };
    let bytes = match damage {
        Damage::Icrc => crafted_on(link, p, ev, nothing, |f| {
            f.icrc = Some(0x0BAD_1C2C);
            if v6 {
                f.fill_udp_checksum().expect("consistent");
            }
        }),
        Damage::Ipv4Checksum => crafted_on(link, p, ev, nothing, |f| {
            if let IpRepr::V4(v4) = &mut f.ip {
                v4.checksum ^= 0x5A5A;
            }
        }),
        Damage::UdpChecksum => crafted_on(link, p, ev, nothing, |f| {
            f.fill_udp_checksum().expect("consistent");
            f.udp.checksum = match f.udp.checksum ^ 0x0101 {
                0 => 0x0202,
                c => c,
            };
        }),
        Damage::IpVersion | Damage::Ihl => {
            let mut b = crafted_on(link, p, ev, nothing, no_sum);
            b[ip_at] = match (v6, damage) {
                (true, _) => 0x40 | (b[ip_at] & 0x0F),
                (false, Damage::IpVersion) => 0x55,
                (false, _) => 0x44,
            };
            b
        }
        Damage::IpLength => {
            let mut b = crafted_on(link, p, ev, nothing, no_sum);
            let at = if v6 { ip_at + 4 } else { ip_at + 2 };
            let claimed = get16(&b, at) + 64;
            set16(&mut b, at, claimed);
            if !v6 {
                reseal_ipv4(&mut b);
            }
            b
        }
        Damage::UdpLength => crafted_on(link, p, ev, nothing, |f| {
            f.udp.length -= 4;
            f.udp.checksum = 0;
        }),
        Damage::UdpLengthBelow8 => crafted_on(link, p, ev, nothing, |f| f.udp.length = 4),
        Damage::NoRoomForIcrc => {
            // The BTH and nothing else: no room for the ICRC.
            let mut b = crafted_on(link, p, ev, nothing, no_sum);
            let end = bth_at + 12;
            b.truncate(end);
            set16(&mut b, ip_at + 2, (end - ip_at) as u16);
            set16(&mut b, udp_at + 4, (end - udp_at) as u16);
            reseal_ipv4(&mut b);
            b
        }
        Damage::Ipv4Protocol => crafted_on(link, p, ev, nothing, |f| {
            if let IpRepr::V4(v4) = &mut f.ip {
                v4.protocol = 253;
                v4.fill_checksum().expect("a header");
            }
        }),
        Damage::Ipv6NextHeader => crafted_on(link, p, ev, nothing, |f| {
            f.udp.checksum = 0;
            if let IpRepr::V6(v6) = &mut f.ip {
                v6.next_header = 6;
            }
        }),
        Damage::PadCount => {
            let mut b = crafted_on(link, p, ev, nothing, no_sum);
            b[bth_at + 1] |= 0x30;
            reseal_icrc(&mut b);
            b
        }
        Damage::UnknownOpcode => {
            let mut b = crafted_on(link, p, ev, nothing, no_sum);
            b[bth_at] = if v6 { 0xDF } else { 0xC5 };
            reseal_icrc(&mut b);
            b
        }
        Damage::SecondTag => {
            // Two tags before the ethertype: 802.1ad outside, 802.1Q inside.
            let mut b = crafted_on(link, p, ev, nothing, no_sum);
            let tags = [0x88, 0xA8, 0x00, 0x64, 0x81, 0x00, 0x00, 0x65];
            let at = ip_at - 2 - if link.vlan.is_some() { 4 } else { 0 };
            b.splice(at..at, tags);
            b
        }
        Damage::NotIp => {
            let mut b = crafted_on(link, p, ev, nothing, no_sum);
            set16(&mut b, ip_at - 2, 0x88B5);
            b
        }
    };
    let found = decode(&bytes).discard_reason();
    let want = damage.requirement(v6);
    assert_eq!(found, Some(want), "the frame damaged by {damage:?} is discarded for {found:?}");
    bytes
}
