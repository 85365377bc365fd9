//! Placement judged by the bytes that land (`spec/conformance.md`, `CONF-CMP-034`;
//! `RCV-PLACE-003`, `RCV-PLACE-004`, `FLAG-ORDER-001`, `FLAG-LAST-001`).
//!
//! A device may cut a payload into any number of DMA writes, in any order, or merge the
//! writes of contiguous packets: what is judged is which bytes land where and when, never
//! how many writes carry them. Judge-agnostic: the caller gives the expected ranges, the
//! observed writes and the responder flags, each with its position in the device's output
//! order, and turns the [`Finding`]s into its own divergences.

use std::collections::HashMap;

use openrdma_codec::{Msn, Qpn};

/// An expected DMA write: a range of memory and the bytes it must hold.
#[derive(Debug, Clone)]
pub struct Range {
    /// The QP and the MSN of the message it belongs to.
    pub qp: Qpn,
    /// MSN.
    pub msn: Msn,
    /// First address.
    pub va: u64,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// An observed DMA write, at its position in the device's output order.
#[derive(Debug, Clone)]
pub struct Write {
    /// Position among the device's outputs.
    pub pos: usize,
    /// First address.
    pub va: u64,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// An observed responder flag, at its position in the device's output order.
#[derive(Debug, Clone, Copy)]
pub struct Flag {
    /// Position among the device's outputs.
    pub pos: usize,
    /// QP.
    pub qp: Qpn,
    /// MSN.
    pub msn: Msn,
}

/// What is wrong with the placement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// By its message's flag (or the end, without one), bytes of expected range `range`
    /// did not land or hold other values: `differ` of them, the first at `offset`
    /// (`RCV-PLACE-003`).
    Missing {
        /// Index into the expected ranges.
        range: usize,
        /// First offset that differs.
        offset: usize,
        /// How many bytes differ.
        differ: usize,
    },
    /// The flag of range `range`'s message came before all its bytes had landed, and they
    /// did land later (`FLAG-ORDER-001`).
    BeforeFlag {
        /// Index into the expected ranges.
        range: usize,
        /// Index into the flags.
        flag: usize,
    },
    /// Write `write` put `len` bytes outside every expected range, the first at `va`, or
    /// (`len` 1) a byte at `va` that no expected range wants there (`RCV-PLACE-003`).
    Outside {
        /// Index into the writes.
        write: usize,
        /// First such address.
        va: u64,
        /// How many bytes.
        len: usize,
    },
    /// Write `write` wrote into the range of a message whose flag had come, with every
    /// byte of it already in place: no expected write explains it (`FLAG-LAST-001`).
    AfterFlag {
        /// Index into the writes.
        write: usize,
    },
    /// Write `write` landed `len` bytes, the first at `va`, that earlier writes had already
    /// landed as often as expected ranges cover them: a payload placed twice, a duplicate's
    /// for example (`RCV-PLACE-004`).
    Twice {
        /// Index into the writes.
        write: usize,
        /// First such address.
        va: u64,
        /// How many bytes.
        len: usize,
    },
}

/// The end of `[va, va + len)`, past the 64-bit space when a device's write runs over its
/// top: such a write is judged, never a cause to stop.
fn end(va: u64, len: usize) -> u128 {
    u128::from(va) + len as u128
}

fn overlap(a: u64, alen: usize, b: u64, blen: usize) -> bool {
    u128::from(a) < end(b, blen) && u128::from(b) < end(a, alen)
}

/// The first address of `[a, b)` outside the sorted, disjoint intervals `covered`, and how
/// many addresses of it are outside.
fn outside(covered: &[(u128, u128)], a: u128, b: u128) -> Option<(u64, usize)> {
    let mut first: Option<u128> = None;
    let mut count = 0u128;
    let mut at = a;
    for &(lo, hi) in covered.iter().filter(|&&(lo, hi)| hi > a && lo < b) {
        if lo > at {
            first.get_or_insert(at);
            count += lo - at;
        }
        at = at.max(hi);
    }
    if at < b {
        first.get_or_insert(at);
        count += b - at;
    }
    // An address past the top of the space is where a 64-bit address register takes the
    // byte: wrapped around to 0.
    first.map(|f| (f as u64, usize::try_from(count).unwrap_or(usize::MAX)))
}

/// Judges the writes against the expected ranges and the flags. Findings come in this
/// order: missing and before-flag per range, then outside, after-flag and twice per write.
/// A write is reported once, for the first of these it shows.
pub fn judge(expected: &[Range], writes: &[Write], flags: &[Flag]) -> Vec<Finding> {
    let mut out = Vec::new();
    let flag_of = |qp: Qpn, msn: Msn| flags.iter().position(|f| f.qp == qp && f.msn == msn);
    // Per range: whether all its bytes held their values by its flag (or the end).
    let mut complete = vec![false; expected.len()];
    for (ri, r) in expected.iter().enumerate() {
        let flag = flag_of(r.qp, r.msn);
        let by = flag.map_or(usize::MAX, |f| flags[f].pos);
        let landed = |limit: usize| {
            let mut got: Vec<Option<u8>> = vec![None; r.bytes.len()];
            for w in writes.iter().filter(|w| w.pos < limit) {
                if !overlap(w.va, w.bytes.len(), r.va, r.bytes.len()) {
                    continue;
                }
                for (k, b) in w.bytes.iter().enumerate() {
                    let a = end(w.va, k);
                    if a >= u128::from(r.va) && a < end(r.va, r.bytes.len()) {
                        got[(a - u128::from(r.va)) as usize] = Some(*b);
                    }
                }
            }
            let bad: Vec<usize> =
                (0..r.bytes.len()).filter(|&k| got[k] != Some(r.bytes[k])).collect();
            bad
        };
        let bad = landed(by);
        if bad.is_empty() {
            complete[ri] = true;
            continue;
        }
        match flag {
            Some(f) if landed(usize::MAX).is_empty() => {
                out.push(Finding::BeforeFlag { range: ri, flag: f })
            }
            _ => out.push(Finding::Missing { range: ri, offset: bad[0], differ: bad.len() }),
        }
    }
    let mut covered: Vec<(u128, u128)> =
        expected.iter().map(|r| (u128::from(r.va), end(r.va, r.bytes.len()))).collect();
    covered.sort_unstable();
    let mut merged: Vec<(u128, u128)> = Vec::with_capacity(covered.len());
    for (a, b) in covered {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let covered = merged;
    // How many times each address has been written so far, in output order.
    let mut written: HashMap<u64, usize> = HashMap::new();
    for (wi, w) in writes.iter().enumerate() {
        // Bytes outside every expected range.
        if let Some((va, len)) = outside(&covered, u128::from(w.va), end(w.va, w.bytes.len())) {
            out.push(Finding::Outside { write: wi, va, len });
            continue;
        }
        // Inside expected ranges: every range it touches is of a flagged message whose
        // flag came first and whose bytes were all in place then.
        let touched: Vec<usize> = (0..expected.len())
            .filter(|&ri| {
                let r = &expected[ri];
                overlap(w.va, w.bytes.len(), r.va, r.bytes.len())
            })
            .collect();
        let closed = |ri: usize| {
            let r = &expected[ri];
            flag_of(r.qp, r.msn).is_some_and(|f| flags[f].pos < w.pos)
        };
        if !touched.is_empty() && touched.iter().all(|&ri| closed(ri) && complete[ri]) {
            out.push(Finding::AfterFlag { write: wi });
            continue;
        }
        // Every byte it lands is the value some expected range wants there: a stray write
        // into a buffer that a later write repairs is still a wrong write (one not repaired
        // is a missing range already). A wrong write does not count as a placement.
        if touched.iter().all(|&ri| complete[ri]) {
            let wrong = w.bytes.iter().enumerate().position(|(k, b)| {
                let a = end(w.va, k);
                !touched.iter().any(|&ri| {
                    let r = &expected[ri];
                    a >= u128::from(r.va)
                        && a < end(r.va, r.bytes.len())
                        && r.bytes[(a - u128::from(r.va)) as usize] == *b
                })
            });
            if let Some(k) = wrong {
                out.push(Finding::Outside { write: wi, va: w.va.wrapping_add(k as u64), len: 1 });
                continue;
            }
        }
        if let Some((va, len)) = placed_again(expected, &mut written, w) {
            out.push(Finding::Twice { write: wi, va, len });
        }
    }
    out
}

/// Counts the bytes of `w` in `written`, and returns the first of them, with how many,
/// that earlier writes had landed as many times as expected ranges cover the address:
/// each range is written once, so an address two messages share may be written twice.
fn placed_again(
    expected: &[Range],
    written: &mut HashMap<u64, usize>,
    w: &Write,
) -> Option<(u64, usize)> {
    let covering: Vec<&Range> =
        expected.iter().filter(|r| overlap(w.va, w.bytes.len(), r.va, r.bytes.len())).collect();
    let mut first = None;
    let mut count = 0;
    for k in 0..w.bytes.len() as u64 {
        let a = w.va.wrapping_add(k);
        let n = written.entry(a).or_insert(0);
        let allowed =
            covering.iter().filter(|r| a >= r.va && a - r.va < r.bytes.len() as u64).count();
        if *n >= allowed.max(1) {
            first.get_or_insert(a);
            count += 1;
        }
        *n += 1;
    }
    first.map(|a| (a, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(va: u64, n: usize) -> Range {
        let at = (va - 0x1000) as usize;
        Range {
            qp: Qpn::new(1),
            msn: Msn::new(0),
            va,
            bytes: (at..at + n).map(|k| k as u8).collect(),
        }
    }

    fn write(pos: usize, va: u64, from: usize, to: usize) -> Write {
        Write { pos, va: va + from as u64, bytes: (from..to).map(|k| k as u8).collect() }
    }

    const FLAG: Flag = Flag { pos: 10, qp: Qpn::new(1), msn: Msn::new(0) };

    /// Any split and any order of the pieces, and a merge across packets, pass.
    #[test]
    fn granularity_is_free() {
        let exp = [range(0x1000, 100), range(0x1064, 28)];
        let split = [write(3, 0x1000, 64, 128), write(1, 0x1000, 0, 64)];
        assert!(judge(&exp, &split, &[FLAG]).is_empty());
        assert!(judge(&exp, &[write(1, 0x1000, 0, 128)], &[FLAG]).is_empty());
    }

    /// A flag before the last piece is FLAG-ORDER-001; a piece never written is missing.
    #[test]
    fn flag_before_data_and_missing_bytes() {
        let exp = [range(0x1000, 100)];
        let w = [write(1, 0x1000, 0, 50), write(11, 0x1000, 50, 100)];
        assert_eq!(judge(&exp, &w, &[FLAG]), [Finding::BeforeFlag { range: 0, flag: 0 }]);
        let w = [write(1, 0x1000, 0, 50)];
        assert_eq!(
            judge(&exp, &w, &[FLAG]),
            [Finding::Missing { range: 0, offset: 50, differ: 50 }]
        );
    }

    /// A write that runs over the top of the 64-bit space, next to a range that ends at
    /// its very top, is judged like any other: its bytes past the top are outside, from address 0 where they wrap.
    #[test]
    fn a_write_over_the_top_of_the_address_space_is_outside() {
        let top = u64::MAX - 15;
        let exp = [Range { qp: Qpn::new(1), msn: Msn::new(0), va: top, bytes: vec![7; 16] }];
        let w = [Write { pos: 1, va: top, bytes: vec![7; 48] }];
        assert_eq!(judge(&exp, &w, &[]), [Finding::Outside { write: 0, va: 0, len: 32 }]);
        let inside = [Write { pos: 1, va: top, bytes: vec![7; 16] }];
        assert!(judge(&exp, &inside, &[]).is_empty());
    }

    /// Wrong bytes, bytes outside the ranges, and a write again after the flag fail.
    #[test]
    fn wrong_outside_and_after_flag() {
        let exp = [range(0x1000, 4)];
        let mut bad = write(1, 0x1000, 0, 4);
        bad.bytes[2] ^= 0xFF;
        assert_eq!(
            judge(&exp, &[bad], &[FLAG]),
            [Finding::Missing { range: 0, offset: 2, differ: 1 }]
        );
        let w = [write(1, 0x1000, 0, 4), write(2, 0x1040, 0, 4)];
        assert_eq!(judge(&exp, &w, &[FLAG]), [Finding::Outside { write: 1, va: 0x1040, len: 4 }]);
        let w = [write(1, 0x1000, 0, 4), write(12, 0x1000, 0, 4)];
        assert_eq!(judge(&exp, &w, &[FLAG]), [Finding::AfterFlag { write: 1 }]);
        let mut stray = write(1, 0x1000, 0, 4);
        stray.bytes[0] ^= 0xFF;
        let w = [stray, write(2, 0x1000, 0, 4)];
        assert_eq!(judge(&exp, &w, &[FLAG]), [Finding::Outside { write: 0, va: 0x1000, len: 1 }]);
    }

    /// A byte written twice before the flag fails, even with the same value; two messages
    /// that share a buffer may each write it once.
    #[test]
    fn a_byte_is_placed_once_per_range() {
        let exp = [range(0x1000, 8)];
        let w = [write(1, 0x1000, 0, 8), write(2, 0x1000, 2, 4)];
        assert_eq!(judge(&exp, &w, &[FLAG]), [Finding::Twice { write: 1, va: 0x1002, len: 2 }]);
        let w = [write(1, 0x1000, 0, 4), write(2, 0x1000, 4, 8)];
        assert!(judge(&exp, &w, &[FLAG]).is_empty());
        let shared = [range(0x1000, 8), Range { msn: Msn::new(1), ..range(0x1000, 8) }];
        let flags = [FLAG, Flag { pos: 20, qp: Qpn::new(1), msn: Msn::new(1) }];
        let w = [write(1, 0x1000, 0, 8), write(12, 0x1000, 0, 8)];
        assert!(judge(&shared, &w, &flags).is_empty());
        let w = [write(1, 0x1000, 0, 8), write(12, 0x1000, 0, 8), write(13, 0x1000, 0, 1)];
        assert_eq!(judge(&shared, &w, &flags), [Finding::Twice { write: 2, va: 0x1000, len: 1 }]);
    }
}
