//! The delivery oracle: the invariants of delivery, checked from a receiver's memory writes
//! alone, whatever the NICs, the fabric or the workload.
//!
//! * every data packet is placed exactly once (`RCV-DUP-001`);
//! * a retirement domain retires its messages in MSN order, each once (`RET-ORDER-001`);
//! * a message's flag comes after all of its data, and its data is its length
//!   (`FLAG-RECV-002`);
//! * nothing is written into a message after its flag (`FLAG-LAST-002`).
//!
//! The caller numbers the receiving QPs and the retirement domains it watches from zero,
//! and feeds the oracle every [`DmaWrite`] and responder [`FlagWrite`] in the order the
//! NIC issued them. Memory is bounded by the windows: per QP a bitmap of placed PSNs over
//! a few windows, per domain the next MSN, per message in flight its bytes placed. The pair
//! tests, the fuzz targets and the simulator all judge delivery with it.

use core::fmt;

use openrdma_codec::Msn;
use openrdma_codec::Psn;
use openrdma_codec::psn::PSN_MASK;
use rustc_hash::FxHashMap;

use crate::event::{DmaWrite, FlagWrite};

/// A broken delivery invariant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Violation {
    /// A PSN was placed a second time.
    PlacedTwice {
        /// The receiving QP (the caller's number).
        qp: usize,
        /// The PSN.
        psn: Psn,
    },
    /// A write into a message whose flag was written.
    WriteAfterFlag {
        /// The receiving QP.
        qp: usize,
        /// The message.
        msn: Msn,
        /// The PSN written.
        psn: Psn,
    },
    /// A flag out of MSN order in its domain (or a second flag of a message).
    OutOfOrder {
        /// The retirement domain (the caller's number).
        domain: usize,
        /// The message retired.
        msn: Msn,
        /// The message the domain had to retire next.
        expected: Msn,
    },
    /// A flag written when the bytes placed for its message are not its length: written
    /// before all of its data (or after more than it).
    FlagBeforeData {
        /// The receiving QP.
        qp: usize,
        /// The message.
        msn: Msn,
        /// Bytes placed.
        placed: u64,
        /// Bytes of the message.
        length: u64,
    },
}

impl Violation {
    /// The requirement the violation breaks.
    pub fn requirement(&self) -> &'static str {
        match self {
            Violation::PlacedTwice { .. } => "RCV-DUP-001",
            Violation::WriteAfterFlag { .. } => "FLAG-LAST-002",
            Violation::OutOfOrder { .. } => "RET-ORDER-001",
            Violation::FlagBeforeData { .. } => "FLAG-RECV-002",
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.requirement();
        match self {
            Violation::PlacedTwice { qp, psn } => {
                write!(f, "{id}: PSN {psn} of QP {qp} placed twice")
            }
            Violation::WriteAfterFlag { qp, msn, psn } => {
                write!(f, "{id}: PSN {psn} written into MSN {msn} of QP {qp} after its flag")
            }
            Violation::OutOfOrder { domain, msn, expected } => {
                write!(f, "{id}: domain {domain} retired MSN {msn} when MSN {expected} was next")
            }
            Violation::FlagBeforeData { qp, msn, placed, length } => {
                write!(
                    f,
                    "{id}: flag of MSN {msn} of QP {qp} with {placed} of {length} bytes placed"
                )
            }
        }
    }
}

/// PSNs placed by one receiving QP: everything before `base`, and a bitmap of the
/// `bits.len() * 64` PSNs from `base` on (indexed by PSN modulo its size).
#[derive(Debug)]
struct Placed {
    base: u32,
    bits: Vec<u64>,
}

impl Placed {
    fn new(base: u32) -> Placed {
        Placed { base, bits: Vec::new() }
    }

    fn span(&self) -> u32 {
        (self.bits.len() * 64) as u32
    }

    fn bit(&self, psn: u32) -> (usize, u64) {
        let i = psn & (self.span() - 1);
        ((i / 64) as usize, 1 << (i % 64))
    }

    /// Records the placement of `psn`; false if it was placed before.
    fn place(&mut self, psn: u32, span: u32) -> bool {
        if self.bits.is_empty() {
            self.bits = vec![0; (span / 64) as usize];
        }
        let d = psn.wrapping_sub(self.base) & PSN_MASK;
        if d >= 1 << 23 {
            return false; // before the base: placed long ago
        }
        if d >= self.span() {
            // Beyond what the bitmap covers (only a receiver accepting beyond its window
            // gets here): slide the base, treating what it skips as placed.
            while (psn.wrapping_sub(self.base) & PSN_MASK) >= self.span() {
                let (w, m) = self.bit(self.base);
                self.bits[w] &= !m;
                self.base = (self.base + 1) & PSN_MASK;
            }
        }
        let (w, m) = self.bit(psn);
        if self.bits[w] & m != 0 {
            return false;
        }
        self.bits[w] |= m;
        loop {
            let (w, m) = self.bit(self.base);
            if self.bits[w] & m == 0 {
                break;
            }
            self.bits[w] &= !m;
            self.base = (self.base + 1) & PSN_MASK;
        }
        true
    }
}

/// The delivery oracle. See the module documentation.
#[derive(Debug)]
pub struct DeliveryOracle {
    placed: Vec<Placed>,
    next_msn: Vec<Msn>,
    bytes: FxHashMap<(usize, Msn), u64>,
    span: u32,
}

impl DeliveryOracle {
    /// An oracle for `domains` retirement domains and receive windows of `window`
    /// packets, watching no QP yet.
    pub fn new(domains: usize, window: u32) -> DeliveryOracle {
        DeliveryOracle {
            placed: Vec::new(),
            next_msn: vec![Msn::ZERO; domains],
            bytes: FxHashMap::default(),
            span: (4 * window).next_power_of_two().max(64),
        }
    }

    /// Watches one more receiving QP, whose first PSN is `initial_psn`; returns its number
    /// (0, 1, 2, … in the order they are added).
    pub fn add_qp(&mut self, initial_psn: Psn) -> usize {
        self.placed.push(Placed::new(initial_psn.value()));
        self.placed.len() - 1
    }

    /// A DMA write of receiving QP `qp`, in retirement domain `domain`; each broken
    /// invariant goes to `broken`. Returns whether the write placed its PSN for the first
    /// time (a duplicate's bytes are not counted).
    pub fn dma(
        &mut self,
        qp: usize,
        domain: usize,
        w: &DmaWrite,
        mut broken: impl FnMut(Violation),
    ) -> bool {
        let fresh = self.placed[qp].place(w.psn.value(), self.span);
        if !fresh {
            broken(Violation::PlacedTwice { qp, psn: w.psn });
        }
        if !self.next_msn[domain].is_at_or_before(w.msn) {
            broken(Violation::WriteAfterFlag { qp, msn: w.msn, psn: w.psn });
        }
        if fresh {
            *self.bytes.entry((qp, w.msn)).or_insert(0) += u64::from(w.payload.len());
        }
        fresh
    }

    /// A responder flag of receiving QP `qp`, in retirement domain `domain`, for a message
    /// of `length` bytes; each broken invariant goes to `broken`.
    pub fn flag(
        &mut self,
        qp: usize,
        domain: usize,
        f: &FlagWrite,
        length: u64,
        mut broken: impl FnMut(Violation),
    ) {
        let expected = self.next_msn[domain];
        if f.msn != expected {
            broken(Violation::OutOfOrder { domain, msn: f.msn, expected });
        }
        self.next_msn[domain] = f.msn.next();
        let placed = self.bytes.remove(&(qp, f.msn)).unwrap_or(0);
        if placed != length {
            broken(Violation::FlagBeforeData { qp, msn: f.msn, placed, length });
        }
    }

    /// Messages with data placed and no flag yet: what the oracle keeps per message.
    pub fn tracked(&self) -> usize {
        self.bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placed_bitmap_detects_duplicates_and_slides() {
        let mut p = Placed::new(PSN_MASK - 2);
        assert!(p.place(PSN_MASK - 1, 64));
        assert!(p.place(PSN_MASK - 2, 64));
        assert_eq!(p.base, PSN_MASK);
        assert!(!p.place(PSN_MASK - 1, 64), "duplicate below the base");
        assert!(p.place(3, 64));
        assert!(!p.place(3, 64), "duplicate in the bitmap");
        for psn in [PSN_MASK, 0, 1, 2] {
            assert!(p.place(psn, 64));
        }
        assert_eq!(p.base, 4);
        // Far beyond the span: the base slides.
        assert!(p.place(200, 64));
        assert!(!p.place(10, 64));
    }
}
