//! The engine's event queue.
//!
//! Events come out in the order of their time and, at equal times, in the order they were
//! scheduled, which is what makes a run depend on its configuration alone: a binary heap of
//! (time, sequence number, event) entries of 24 bytes. The queue holds little more than the
//! packets in flight, a few dozen entries; a radix heap over the 128-bit key and FIFO lanes
//! per port and per switch output (the heap holding only each lane's first event) were both
//! tried, and both cost more than the few levels the heap sifts through.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A value that takes no part in the ordering (keys are unique, so it is never compared).
#[derive(Debug, Clone, Copy)]
struct Unordered<T>(T);

impl<T> PartialEq for Unordered<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl<T> Eq for Unordered<T> {}
impl<T> PartialOrd for Unordered<T> {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Unordered<T> {
    fn cmp(&self, _: &Self) -> core::cmp::Ordering {
        core::cmp::Ordering::Equal
    }
}

/// A priority queue of values keyed by (time, order of scheduling).
#[derive(Debug, Clone)]
pub(crate) struct EventQueue<T> {
    heap: BinaryHeap<Reverse<(u64, u64, Unordered<T>)>>,
    /// Sequence number of the last push.
    seq: u64,
}

impl<T: Copy> EventQueue<T> {
    /// An empty queue.
    pub(crate) fn new() -> EventQueue<T> {
        EventQueue { heap: BinaryHeap::new(), seq: 0 }
    }

    /// Schedules `value` at time `at`, after everything already scheduled at that time.
    #[inline]
    pub(crate) fn push(&mut self, at: u64, value: T) {
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, Unordered(value))));
    }

    /// The time of the next event.
    pub(crate) fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse((at, _, _))| *at)
    }

    /// Takes out the next event: the earliest, and among equals the first scheduled.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<(u64, T)> {
        self.heap.pop().map(|Reverse((at, _, Unordered(v)))| (at, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_at_the_same_time_keep_their_order() {
        let mut q = EventQueue::new();
        for (id, at) in [(1, 5), (2, 3), (3, 5), (4, 3)] {
            q.push(at, id);
        }
        assert_eq!(q.peek_time(), Some(3));
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|(_, id)| id)).collect();
        assert_eq!(order, [2, 4, 1, 3]);
        assert_eq!(q.peek_time(), None);
    }
}
