//! The responder half of a QP: the receive window and its bitmap, duplicates, out-of-window
//! packets, and SACK generation and coalescing (requirements `RCV-*`).
//!
//! Placement and retirement involve the NIC's registered regions and retirement domains,
//! so they live in the NIC (`nic/receive.rs`); this module keeps what belongs to one QP.

use openrdma_codec::{CcStateRepr, Ev, EvMark as WireMark, Msn, Psn, Rqmsn, SethRepr};

use openrdma_device::Timestamp;

/// The receive bitmap: one bit per PSN of `[base, base + capacity)`, stored as a ring of
/// 64-bit words, as hardware keeps it.
#[derive(Debug, Clone)]
pub struct BitRing {
    words: Vec<u64>,
    /// Bit index of `base` in the ring.
    head: usize,
    /// PSN of bit `head`: the next PSN expected in order.
    base: Psn,
    /// Bits set, kept as they change (hardware keeps the count in a register rather than
    /// counting the ring for every SACK).
    ones: u32,
}

impl BitRing {
    /// A ring of at least `capacity` bits starting at `base`. The ring is a power of two
    /// bits long (at least 64), as hardware would build it, so that indexing is a mask.
    pub fn new(capacity: u32, base: Psn) -> Self {
        let words = (capacity as usize).div_ceil(64).max(1).next_power_of_two();
        BitRing { words: vec![0; words], head: 0, base, ones: 0 }
    }

    #[inline]
    fn mask(&self) -> usize {
        self.words.len() * 64 - 1
    }

    /// Capacity in PSNs.
    pub fn capacity(&self) -> u32 {
        (self.words.len() * 64) as u32
    }

    /// The next PSN expected in order.
    #[inline]
    pub fn base(&self) -> Psn {
        self.base
    }

    #[inline(always)]
    fn index(&self, offset: u32) -> (usize, u32) {
        let bit = (self.head + offset as usize) & self.mask();
        (bit / 64, (bit % 64) as u32)
    }

    /// Whether the PSN at `offset` from the base is received.
    #[inline]
    pub fn get(&self, offset: u32) -> bool {
        let (w, b) = self.index(offset);
        self.words[w] >> b & 1 == 1
    }

    /// Marks the PSN at `offset` (< capacity) received.
    pub fn set(&mut self, offset: u32) {
        let (w, b) = self.index(offset);
        let bit = 1 << b;
        if self.words[w] & bit == 0 {
            self.words[w] |= bit;
            self.ones += 1;
        }
    }

    /// Marks the PSN at `offset` received and slides the base (`set` then `advance`).
    /// The in-order arrival with nothing received behind it, the common case, only moves
    /// the base: its bit would be set and cleared at once.
    #[inline(always)]
    pub fn set_and_advance(&mut self, offset: u32) -> u32 {
        if offset == 0 {
            let (w, b) = self.index(0);
            if b < 63 && (self.words[w] >> b) & 0b11 == 0 {
                self.head = (self.head + 1) & self.mask();
                self.base = self.base.next();
                return 1;
            }
        }
        self.set(offset);
        self.advance()
    }

    /// Slides the base past every received PSN at its front; returns how far it moved.
    /// Works a word at a time: the run of ones at the front of each word is cleared at once.
    pub fn advance(&mut self) -> u32 {
        let mut n = 0;
        loop {
            let (w, b) = self.index(0);
            // Ones from bit `b` up; the shift brings in zeros, so the run stops at the word's end.
            let run = (self.words[w] >> b).trailing_ones();
            if run == 0 {
                break;
            }
            let ones = if run == 64 { u64::MAX } else { (1u64 << run) - 1 };
            self.words[w] &= !(ones << b);
            self.head = (self.head + run as usize) & self.mask();
            n += run;
            if b + run < 64 {
                break;
            }
        }
        self.base = self.base.add(n);
        self.ones -= n;
        n
    }

    /// The 64 bits for PSNs `[base + offset, base + offset + 64)`, bit i for PSN
    /// `base + offset + i`; PSNs beyond the ring read as zero.
    pub fn window64(&self, offset: u32) -> u64 {
        let cap = self.capacity();
        if offset >= cap {
            return 0;
        }
        let start = (self.head + offset as usize) & self.mask();
        let (w, b) = (start / 64, start % 64);
        let lo = self.words[w] >> b;
        let hi = if b == 0 { 0 } else { self.words[(w + 1) & (self.words.len() - 1)] << (64 - b) };
        let bits = lo | hi;
        let valid = cap - offset;
        if valid >= 64 { bits } else { bits & ((1u64 << valid) - 1) }
    }

    /// Received PSNs beyond the base (out of order).
    pub fn count(&self) -> u32 {
        self.ones
    }
}

/// Where an arriving PSN falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PsnClass {
    /// Already received (behind the window, or its bit is set).
    Duplicate,
    /// New, `offset` after the next expected PSN.
    New {
        /// Distance from the next expected PSN.
        offset: u32,
    },
    /// Beyond the window.
    OutOfWindow,
}

/// SACK bookkeeping of one QP.
#[derive(Debug, Clone)]
pub(crate) struct Responder {
    /// Window in PSNs.
    pub(crate) window: u32,
    /// Received PSNs.
    pub(crate) bits: BitRing,
    /// Accepted packets not yet acknowledged by a SACK.
    pub(crate) unacked: u32,
    /// When a SACK becomes due although fewer than `sack_coalesce` packets wait.
    pub(crate) sack_deadline: Option<Timestamp>,
    /// EV of the packet that will trigger the next SACK.
    pub(crate) last_ev: Ev,
    /// TSETH timestamp of that packet, reflected in CC_STATE.
    pub(crate) last_ts: u16,
    /// PSN of that packet.
    pub(crate) last_psn: Psn,
    /// Packets accepted out of order since the QP began (mod 2^15).
    pub(crate) ooo_count: u16,
    /// Payload bytes accepted since the QP began.
    pub(crate) rcvd_bytes: u64,
    /// MPR to advertise.
    pub(crate) mpr: u8,
    /// The last message of this QP that retired, for the transport ACK.
    pub(crate) last_retired: Option<Msn>,
    /// The PSN of that message's last packet, the BTH `psn` of the transport ACK
    /// (`OPC-PSN-002.b`); before any retirement, the PSN before the QP's first.
    pub(crate) retired_psn: Psn,
    /// Messages retired since the last transport ACK.
    pub(crate) retired_unacked: u32,
    /// RQMSN of the last immediate delivered.
    pub(crate) delivered_rqmsn: Rqmsn,
}

impl Responder {
    /// A responder expecting `first_psn`.
    pub(crate) fn new(first_psn: Psn, mpr: u8) -> Self {
        let window = u32::from(mpr) * 128;
        Responder {
            window,
            bits: BitRing::new(window, first_psn),
            unacked: 0,
            sack_deadline: None,
            last_ev: Ev::default(),
            last_ts: 0,
            last_psn: first_psn.sub(1),
            ooo_count: 0,
            rcvd_bytes: 0,
            mpr,
            last_retired: None,
            retired_psn: first_psn.sub(1),
            retired_unacked: 0,
            delivered_rqmsn: Rqmsn::ZERO,
        }
    }

    /// The next PSN expected in order.
    #[inline]
    pub(crate) fn epsn(&self) -> Psn {
        self.bits.base()
    }

    /// Classifies an arriving PSN (`RCV-WIN-*`): behind the next expected PSN (within half
    /// the ring) or already marked is a duplicate; at or beyond `epsn + window` is out of
    /// the window.
    #[inline(always)]
    pub(crate) fn classify(&self, psn: Psn) -> PsnClass {
        let d = psn.distance(self.epsn());
        if d < 0 {
            return PsnClass::Duplicate;
        }
        let offset = d as u32;
        if offset >= self.window {
            PsnClass::OutOfWindow
        } else if self.bits.get(offset) {
            PsnClass::Duplicate
        } else {
            PsnClass::New { offset }
        }
    }

    /// Records an accepted PSN. Returns whether it arrived out of order.
    #[inline(always)]
    pub(crate) fn accept(&mut self, offset: u32, len: u32) -> bool {
        self.bits.set_and_advance(offset);
        self.unacked += 1;
        self.rcvd_bytes += u64::from(len);
        if offset != 0 {
            self.ooo_count = (self.ooo_count + 1) & 0x7FFF;
        }
        offset != 0
    }

    /// The fault of `RecvFault::WalkPastHole` after PSN `offset` was accepted: when it
    /// filled the front and a later PSN is held, the missing PSN at the new front is taken
    /// for received too (test support).
    #[cfg(feature = "fault-hooks")]
    pub(crate) fn walk_past_hole(&mut self, offset: u32) {
        if offset == 0 && self.bits.count() > 0 {
            self.bits.set(0);
            self.bits.advance();
        }
    }

    /// Builds the SACK that acknowledges the current state (`RCV-SACK-005`), and resets
    /// the coalescing state.
    /// `probe_id` is echoed in `ack_psn_offset` when answering a probe (`PETH-RESP-001`).
    /// `trigger` is the PSN of the packet that caused this SACK; `ack_psn_offset` points at
    /// it (`SETH-ACKPSN-003`), except for a probe answer, which echoes the probe ID there.
    pub(crate) fn make_sack(
        &mut self,
        ev: Ev,
        trigger: Psn,
        probe_id: Option<u16>,
        mark: u8,
        reflect_ts: u16,
    ) -> (SethRepr, CcStateRepr) {
        // RCV-SACK-008: the timer stops, unless it still owes a held-back transport ACK
        // (RCV-ACK-001).
        self.unacked = 0;
        if self.retired_unacked == 0 {
            self.sack_deadline = None;
        }
        let epsn = self.epsn();
        let seth = SethRepr {
            m: WireMark(mark),
            pr: probe_id.is_some(),
            ack_psn_offset: match probe_id {
                Some(id) => id as i16,
                // SETH-ACKPSN-003.b: a trigger too far for 16 bits, clamped.
                None => trigger.distance(epsn.sub(1)).clamp(-0x8000, 0x7FFF) as i16,
            },
            entropy: ev,
            cack_psn: epsn.sub(1),
            mpr: self.mpr,
            sack_offset: 1,
            // bit i = PSN epsn + i; bit 0 is epsn itself, never received by definition.
            sack_bitmap: self.bits.window64(0),
            ..SethRepr::default()
        };
        let cc = CcStateRepr {
            tx_timestamp: reflect_ts,
            // CCS-OOO-001: PSNs received beyond cack_psn, saturating at 15 bits.
            ooo_count: self.bits.count().min(0x7FFF) as u16,
            // CCS-BYTES-001: in units of 256 bytes, modulo 2^24.
            rcvd_bytes: ((self.rcvd_bytes >> 8) & 0xFF_FFFF) as u32,
            ..CcStateRepr::default()
        };
        (seth, cc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hook of the suite's `epsn-past-hole` fault moves `epsn` past the missing PSN
    /// only after a PSN filled the front while a later one was held.
    #[cfg(feature = "fault-hooks")]
    #[test]
    fn walk_past_hole_skips_only_after_a_fill() {
        let mut r = Responder::new(Psn::new(0), 1);
        r.accept(2, 0);
        r.walk_past_hole(2);
        assert_eq!(r.epsn(), Psn::new(0));
        r.accept(0, 0);
        r.walk_past_hole(0);
        assert_eq!(r.epsn(), Psn::new(3));
        r.accept(0, 0);
        r.walk_past_hole(0);
        assert_eq!(r.epsn(), Psn::new(4));
    }

    #[test]
    fn bitring_slides_and_reports() {
        let mut r = BitRing::new(128, Psn::new(0xFF_FFFE));
        r.set(1);
        r.set(3);
        assert_eq!(r.advance(), 0);
        assert_eq!(r.window64(0), 0b1010);
        r.set(0);
        assert_eq!(r.advance(), 2);
        assert_eq!(r.base(), Psn::new(0));
        assert_eq!(r.window64(0), 0b10);
        for o in 0..128 {
            r.set(o);
        }
        assert_eq!(r.advance(), 128);
        assert_eq!(r.count(), 0);
    }

    /// The word-at-a-time ring against a plain list of bits, over a long random sequence
    /// that wraps the ring many times.
    #[test]
    fn bitring_matches_a_plain_list() {
        use rand_chacha::ChaCha8Rng;
        use rand_core::{Rng, SeedableRng};
        for (seed, cap) in [(1u64, 64u32), (2, 128), (3, 256), (4, 200)] {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut r = BitRing::new(cap, Psn::new(0xFF_FF00));
            let cap = r.capacity();
            let mut plain = vec![false; cap as usize];
            let mut base = 0xFF_FF00u32;
            for step in 0..20_000 {
                // Mostly near the front, so that long runs form and slide.
                let o =
                    if rng.next_u32() % 4 == 0 { rng.next_u32() % cap } else { rng.next_u32() % 8 };
                let fused = rng.next_u32() % 2 == 0;
                if !fused {
                    r.set(o);
                }
                plain[o as usize] = true;
                let mut moved = 0;
                while plain[0] {
                    plain.remove(0);
                    plain.push(false);
                    moved += 1;
                }
                base = (base + moved) & 0xFF_FFFF;
                let got = if fused { r.set_and_advance(o) } else { r.advance() };
                assert_eq!(got, moved, "{seed}/{step}");
                assert_eq!(r.base(), Psn::new(base));
                assert_eq!(r.count(), plain.iter().filter(|b| **b).count() as u32);
                let probe = rng.next_u32() % cap;
                assert_eq!(r.get(probe), plain[probe as usize]);
                let from = rng.next_u32() % (cap + 8);
                let want = (0..64u32)
                    .filter(|i| plain.get((from + i) as usize).copied().unwrap_or(false))
                    .fold(0u64, |acc, i| acc | 1 << i);
                assert_eq!(r.window64(from), want, "{seed}/{step} window at {from}");
            }
        }
    }

    #[test]
    fn classify_edges() {
        let r = Responder::new(Psn::new(100), 1);
        assert_eq!(r.classify(Psn::new(99)), PsnClass::Duplicate);
        assert_eq!(r.classify(Psn::new(100)), PsnClass::New { offset: 0 });
        assert_eq!(r.classify(Psn::new(227)), PsnClass::New { offset: 127 });
        assert_eq!(r.classify(Psn::new(228)), PsnClass::OutOfWindow);
    }

    /// The MRC worked example: PSNs 0..=11 sent, 5 and 8 lost.
    #[test]
    fn sack_worked_example() {
        let mut r = Responder::new(Psn::new(0), 1);
        for p in (0..12).filter(|p| *p != 5 && *p != 8) {
            if let PsnClass::New { offset } = r.classify(Psn::new(p)) {
                r.accept(offset, 0);
            }
        }
        let (seth, _) = r.make_sack(Ev::new(7), Psn::new(11), None, 0, 0);
        assert_eq!(seth.cack_psn, Psn::new(4));
        assert_eq!(seth.sack_offset, 1);
        assert_eq!(seth.sack_bitmap, 0b111_0110);
    }
}
