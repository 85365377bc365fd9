//! A queue of small `Copy` values in a power-of-two ring, for the queues every packet
//! touches: the requester's packets in flight, the per-EV transmission FIFOs and the NIC's
//! list of QPs with work.
//!
//! `VecDeque` would do, but its `push_back` keeps the growth check in a function that is
//! not inlined, and indexing it wraps with a comparison; here the capacity is a power of
//! two, so wrapping is a mask, and growth is the only out-of-line path. Hardware keeps these
//! queues as rings of a fixed size for the same reason.

/// A double-ended queue of `Copy` values (push at the back, pop at the front, index from
/// the front).
#[derive(Debug, Clone)]
pub(crate) struct Ring<T> {
    /// The slots; the length is zero or a power of two.
    buf: Vec<T>,
    /// Index in `buf` of the front element.
    head: usize,
    len: usize,
    /// `buf.len() - 1` (zero while `buf` is empty).
    mask: usize,
}

impl<T: Copy + Default> Ring<T> {
    /// An empty ring; it allocates on the first push.
    pub(crate) fn new() -> Ring<T> {
        Ring { buf: Vec::new(), head: 0, len: 0, mask: 0 }
    }

    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & self.mask
    }

    /// Number of elements.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether the ring is empty.
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `v` at the back.
    #[inline(always)]
    pub(crate) fn push_back(&mut self, v: T) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let i = self.slot(self.len);
        self.buf[i] = v;
        self.len += 1;
    }

    /// Doubles the capacity (at least 8), keeping the order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(8);
        let mut buf = Vec::with_capacity(cap);
        buf.extend((0..self.len).map(|i| self.buf[self.slot(i)]));
        buf.resize(cap, T::default());
        self.buf = buf;
        self.head = 0;
        self.mask = cap - 1;
    }

    /// Removes and returns the front element.
    #[inline(always)]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.buf[self.head];
        self.head = self.slot(1);
        self.len -= 1;
        Some(v)
    }

    /// The front element.
    #[inline(always)]
    pub(crate) fn front(&self) -> Option<&T> {
        self.get(0)
    }

    /// The element `i` places from the front.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        if i < self.len { Some(&self.buf[self.slot(i)]) } else { None }
    }

    /// The element `i` places from the front.
    #[inline(always)]
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i < self.len {
            let s = self.slot(i);
            Some(&mut self.buf[s])
        } else {
            None
        }
    }

    /// Removes every element.
    pub(crate) fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }

    /// Keeps the elements for which `keep` is true, in order.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            let v = self.buf[self.slot(i)];
            if keep(&v) {
                let to = self.slot(kept);
                self.buf[to] = v;
                kept += 1;
            }
        }
        self.len = kept;
    }
}

impl<T: Copy + Default> core::ops::Index<usize> for Ring<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        assert!(i < self.len, "ring index {i} out of {}", self.len);
        &self.buf[self.slot(i)]
    }
}

impl<T: Copy + Default> core::ops::IndexMut<usize> for Ring<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        assert!(i < self.len, "ring index {i} out of {}", self.len);
        let s = self.slot(i);
        &mut self.buf[s]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha8Rng;
    use rand_core::{Rng, SeedableRng};
    use std::collections::VecDeque;

    /// The ring against `VecDeque` over a long random sequence of every operation.
    #[test]
    fn ring_matches_vecdeque() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut a: Ring<u32> = Ring::new();
        let mut b: VecDeque<u32> = VecDeque::new();
        for step in 0..50_000u32 {
            match rng.next_u32() % 10 {
                0..=4 => {
                    a.push_back(step);
                    b.push_back(step);
                }
                5..=7 => assert_eq!(a.pop_front(), b.pop_front(), "{step}"),
                8 => {
                    let i = (rng.next_u32() % 40) as usize;
                    assert_eq!(a.get(i), b.get(i));
                    if let (Some(x), Some(y)) = (a.get_mut(i), b.get_mut(i)) {
                        *x += 1;
                        *y += 1;
                    }
                }
                _ => {
                    if rng.next_u32() % 50 == 0 {
                        let m = rng.next_u32() % 3;
                        a.retain(|v| v % 3 != m);
                        b.retain(|v| v % 3 != m);
                    } else if rng.next_u32() % 200 == 0 {
                        a.clear();
                        b.clear();
                    }
                }
            }
            assert_eq!(a.len(), b.len());
            assert_eq!(a.front(), b.front());
            assert_eq!(a.is_empty(), b.is_empty());
        }
        let all: Vec<u32> = (0..a.len()).map(|i| a[i]).collect();
        assert_eq!(all, b.iter().copied().collect::<Vec<_>>());
    }
}
