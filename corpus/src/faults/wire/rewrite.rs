//! The rewriting helpers of the wire faults: a frame edited and made consistent again, or
//! emitted as held, and the tests of what a frame is.

use super::*;

/// The frame with the ICRC trailer a device computing it `how` appends.
pub(super) fn icrc_as(b: &[u8], how: Miscomputed) -> Option<Vec<u8>> {
    let d = decode(b);
    let (ip, icrc) = (d.layout.ip?, d.layout.icrc?);
    let t = how.trailer(b, ip, icrc).ok()?;
    let mut b = b.to_vec();
    b.get_mut(icrc..icrc + 4)?.copy_from_slice(&t.to_le_bytes());
    Some(b)
}

pub(super) fn repr(b: &[u8]) -> Option<FrameRepr> {
    decode(b).to_repr()
}

pub(super) fn opcode(b: &[u8]) -> Option<Opcode> {
    decode(b).bth.map(|h| h.opcode)
}

/// `edit` applied to the frame, which is then made consistent again (lengths, checksums,
/// pad, ICRC): the frame breaks only what `edit` broke. `None` when `edit` declines.
pub(super) fn refit(b: &[u8], edit: impl FnOnce(&mut FrameRepr) -> bool) -> Option<Vec<u8>> {
    let mut f = repr(b)?;
    if !edit(&mut f) {
        return None;
    }
    f.finalize().ok()?;
    f.to_bytes().ok()
}

/// `edit` applied to the frame, which is then emitted as held, with a fresh ICRC.
pub(super) fn raw(b: &[u8], edit: impl FnOnce(&mut FrameRepr) -> bool) -> Option<Vec<u8>> {
    let mut f = repr(b)?;
    if !edit(&mut f) {
        return None;
    }
    f.icrc = None;
    f.to_bytes().ok()
}

pub(super) fn sack(b: &[u8]) -> bool {
    opcode(b) == Some(Opcode::MRC_SACK)
}

pub(super) fn nack(b: &[u8]) -> bool {
    opcode(b) == Some(Opcode::MRC_NACK)
}

pub(super) fn data(b: &[u8]) -> bool {
    opcode(b).is_some_and(|o| o.is_mrc_write())
}

pub(super) fn on_sacks(b: &[u8], edit: impl FnOnce(&mut FrameRepr)) -> Option<Vec<u8>> {
    if !sack(b) {
        return None;
    }
    refit(b, |f| {
        edit(f);
        true
    })
}

/// The frame cut by `n` bytes before its ICRC trailer, with its lengths saying so.
pub(super) fn shorten(b: &[u8], n: usize) -> Option<Vec<u8>> {
    let d = decode(b);
    let (icrc, ip, udp) = (d.layout.icrc?, d.layout.ip?, d.layout.udp?);
    let mut out = b[..icrc - n].to_vec();
    out.extend_from_slice(&b[icrc..icrc + 4]);
    let ip_len = out.len() - ip;
    let udp_len = (out.len() - udp) as u16;
    out[udp + 4..udp + 6].copy_from_slice(&udp_len.to_be_bytes());
    match d.ip? {
        IpRepr::V4(_) => {
            out[ip + 2..ip + 4].copy_from_slice(&(ip_len as u16).to_be_bytes());
            let mut v4 = Ipv4Repr::parse(&out[ip..]).ok()?;
            v4.fill_checksum().ok()?;
            v4.emit(&mut out[ip..]).ok()?;
        }
        IpRepr::V6(_) => out[ip + 4..ip + 6].copy_from_slice(&udp_len.to_be_bytes()),
    }
    Some(out)
}

pub(super) fn v4(f: &mut FrameRepr) -> Option<&mut Ipv4Repr> {
    match &mut f.ip {
        IpRepr::V4(v4) => Some(v4),
        IpRepr::V6(_) => None,
    }
}
