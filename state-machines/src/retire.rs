//! Ordered retirement (requirements `RET-*`, `FLAG-*`).
//!
//! A retirement domain is a sequence of messages numbered by MSN (16 bits, modular). A
//! message retires when all of its data is placed and every earlier message of its domain
//! has retired; retiring writes its flag and, for Write-with-Immediate, its completion.
//! The domain is one QP (per-QP retirement) or every QP sharing a domain number (shared
//! retirement, the paper's design).
//!
//! Two implementations of the table of messages waiting to retire, tested against each
//! other:
//!
//! * [`RetireRef`]: a `BTreeMap` keyed by absolute sequence, the obvious reading of the
//!   specification;
//! * [`RetireRing`]: what hardware builds, a ring of `capacity` entries indexed by
//!   `msn mod capacity`, a valid bit per entry and a head pointer.

use std::collections::BTreeMap;

use openrdma_codec::{Msn, Psn, Qpn, Rqmsn};

/// A message at the receiver, from its first packet until it retires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecvMsg {
    /// Index of the receiving QP in the NIC.
    pub qp: u32,
    /// The receiving QP's number.
    pub qpn: Qpn,
    /// Total length from RETH.dma_len.
    pub total: u32,
    /// Bytes placed so far (each PSN counted once).
    pub placed: u32,
    /// Whether the LAST or ONLY packet arrived.
    pub last_seen: bool,
    /// The PSN of the LAST or ONLY packet, once it arrived: the BTH `psn` of the
    /// transport ACK that acknowledges the message (`OPC-PSN-002.b`).
    pub last_psn: Psn,
    /// Immediate data, for Write-with-Immediate.
    pub imm: Option<u32>,
    /// RQMSN carried by the message.
    pub rqmsn: Rqmsn,
}

impl RecvMsg {
    /// Whether every byte of the message is placed.
    pub fn complete(&self) -> bool {
        self.last_seen && self.placed == self.total
    }
}

/// Where an MSN stands with respect to a domain's retirement pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MsnPosition {
    /// Already retired: its flag is written; no packet of it may be placed any more.
    Retired,
    /// Waiting, `offset` messages after the next to retire.
    Pending {
        /// Distance from the retirement pointer.
        offset: u16,
    },
    /// Too far ahead for the table.
    Beyond,
}

/// The table of messages waiting to retire in one domain.
pub trait RetireTable {
    /// An empty table whose next message to retire is `first_msn`.
    fn new(capacity: u16, first_msn: Msn) -> Self
    where
        Self: Sized;
    /// The MSN that retires next.
    fn next_msn(&self) -> Msn;
    /// Capacity in messages.
    fn capacity(&self) -> u16;
    /// Messages in the table.
    fn len(&self) -> usize;
    /// Whether the table is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Where `msn` stands.
    #[inline]
    fn position(&self, msn: Msn) -> MsnPosition {
        let offset = msn.forward_from(self.next_msn());
        if offset >= 0x8000 {
            MsnPosition::Retired
        } else if offset >= self.capacity() {
            MsnPosition::Beyond
        } else {
            MsnPosition::Pending { offset }
        }
    }
    /// The entry of a pending message, if present.
    fn get(&self, msn: Msn) -> Option<&RecvMsg>;
    /// The entry of a pending message, if present.
    fn get_mut(&mut self, msn: Msn) -> Option<&mut RecvMsg>;
    /// Inserts the entry of a pending message. Returns false (and changes nothing) if `msn`
    /// is not pending or already present.
    fn insert(&mut self, msn: Msn, msg: RecvMsg) -> bool;
    /// Removes and returns the next message if it is complete, advancing the pointer.
    fn pop_ready(&mut self) -> Option<(Msn, RecvMsg)>;
    /// Whether the next message is present and complete.
    fn head_ready(&self) -> bool {
        self.get(self.next_msn()).is_some_and(RecvMsg::complete)
    }
    /// Drops every entry of QP `qp` (the QP failed; they will never retire) and returns
    /// their MSNs.
    fn purge_qp(&mut self, qp: u32) -> Vec<Msn>;
    /// Skips the next MSN when it has no entry (its QP failed and its messages will never
    /// come). Returns whether it skipped.
    fn skip_missing(&mut self) -> bool;
}

/// The reference table: a map keyed by absolute sequence number.
#[derive(Debug, Clone)]
pub struct RetireRef {
    next: u64,
    capacity: u16,
    map: BTreeMap<u64, RecvMsg>,
}

impl RetireRef {
    fn abs(&self, msn: Msn) -> u64 {
        let offset = msn.forward_from(self.next_msn());
        self.next + u64::from(offset)
    }
}

impl RetireTable for RetireRef {
    fn new(capacity: u16, first_msn: Msn) -> Self {
        RetireRef { next: u64::from(first_msn.value()), capacity, map: BTreeMap::new() }
    }
    fn next_msn(&self) -> Msn {
        Msn::new(self.next as u16)
    }
    fn capacity(&self) -> u16 {
        self.capacity
    }
    fn len(&self) -> usize {
        self.map.len()
    }
    fn get(&self, msn: Msn) -> Option<&RecvMsg> {
        match self.position(msn) {
            MsnPosition::Pending { .. } => self.map.get(&self.abs(msn)),
            _ => None,
        }
    }
    fn get_mut(&mut self, msn: Msn) -> Option<&mut RecvMsg> {
        match self.position(msn) {
            MsnPosition::Pending { .. } => {
                let k = self.abs(msn);
                self.map.get_mut(&k)
            }
            _ => None,
        }
    }
    fn insert(&mut self, msn: Msn, msg: RecvMsg) -> bool {
        if !matches!(self.position(msn), MsnPosition::Pending { .. }) {
            return false;
        }
        let k = self.abs(msn);
        if self.map.contains_key(&k) {
            return false;
        }
        self.map.insert(k, msg);
        true
    }
    fn pop_ready(&mut self) -> Option<(Msn, RecvMsg)> {
        if self.map.get(&self.next)?.complete() {
            let m = self.map.remove(&self.next)?;
            let msn = self.next_msn();
            self.next += 1;
            Some((msn, m))
        } else {
            None
        }
    }
    fn purge_qp(&mut self, qp: u32) -> Vec<Msn> {
        let gone: Vec<u64> = self.map.iter().filter(|(_, m)| m.qp == qp).map(|(k, _)| *k).collect();
        for k in &gone {
            self.map.remove(k);
        }
        gone.into_iter().map(|k| Msn::new(k as u16)).collect()
    }
    fn skip_missing(&mut self) -> bool {
        if self.map.contains_key(&self.next) {
            false
        } else {
            self.next += 1;
            true
        }
    }
}

/// The hardware-shaped table: a ring of entries with a valid bit each and a head pointer.
#[derive(Debug, Clone)]
pub struct RetireRing {
    next: Msn,
    capacity: u16,
    head: usize,
    slots: Vec<Option<RecvMsg>>,
    len: usize,
}

impl RetireRing {
    #[inline]
    fn slot(&self, offset: u16) -> usize {
        (self.head + usize::from(offset)) & (self.slots.len() - 1)
    }

    /// The entry `offset` messages after the next to retire, if present. `offset` comes
    /// from [`MsnPosition::Pending`], so it is below the capacity: one lookup where
    /// [`RetireTable::get`] would first work out the position again.
    #[inline(always)]
    pub fn pending(&self, offset: u16) -> Option<&RecvMsg> {
        debug_assert!(offset < self.capacity);
        self.slots[self.slot(offset)].as_ref()
    }

    /// The entry `offset` messages after the next to retire, inserted by `init` if absent;
    /// `offset` as in [`RetireRing::pending`].
    #[inline(always)]
    pub fn pending_or_insert(
        &mut self,
        offset: u16,
        init: impl FnOnce() -> RecvMsg,
    ) -> &mut RecvMsg {
        debug_assert!(offset < self.capacity);
        let i = self.slot(offset);
        let slot = &mut self.slots[i];
        if slot.is_none() {
            self.len += 1;
        }
        slot.get_or_insert_with(init)
    }
}

impl RetireTable for RetireRing {
    fn new(capacity: u16, first_msn: Msn) -> Self {
        // The ring holds a power of two of slots (indexing is a mask); only `capacity` of
        // them are used, so both implementations accept exactly the same MSNs.
        let capacity = capacity.max(1);
        let slots = usize::from(capacity).next_power_of_two();
        RetireRing { next: first_msn, head: 0, capacity, slots: vec![None; slots], len: 0 }
    }
    fn next_msn(&self) -> Msn {
        self.next
    }
    fn capacity(&self) -> u16 {
        self.capacity
    }
    fn len(&self) -> usize {
        self.len
    }
    fn get(&self, msn: Msn) -> Option<&RecvMsg> {
        match self.position(msn) {
            MsnPosition::Pending { offset } => self.slots[self.slot(offset)].as_ref(),
            _ => None,
        }
    }
    fn get_mut(&mut self, msn: Msn) -> Option<&mut RecvMsg> {
        match self.position(msn) {
            MsnPosition::Pending { offset } => {
                let i = self.slot(offset);
                self.slots[i].as_mut()
            }
            _ => None,
        }
    }
    fn insert(&mut self, msn: Msn, msg: RecvMsg) -> bool {
        let MsnPosition::Pending { offset } = self.position(msn) else { return false };
        let i = self.slot(offset);
        if self.slots[i].is_some() {
            return false;
        }
        self.slots[i] = Some(msg);
        self.len += 1;
        true
    }
    #[inline(always)]
    fn head_ready(&self) -> bool {
        self.slots[self.head].as_ref().is_some_and(RecvMsg::complete)
    }
    fn pop_ready(&mut self) -> Option<(Msn, RecvMsg)> {
        if !self.slots[self.head].as_ref()?.complete() {
            return None;
        }
        let m = self.slots[self.head].take()?;
        let msn = self.next;
        self.head = (self.head + 1) & (self.slots.len() - 1);
        self.next = self.next.next();
        self.len -= 1;
        Some((msn, m))
    }
    fn purge_qp(&mut self, qp: u32) -> Vec<Msn> {
        let mut gone = Vec::new();
        for off in 0..self.capacity {
            let i = self.slot(off);
            if self.slots[i].as_ref().is_some_and(|m| m.qp == qp) {
                self.slots[i] = None;
                self.len -= 1;
                gone.push(self.next.add(off));
            }
        }
        gone
    }
    fn skip_missing(&mut self) -> bool {
        if self.slots[self.head].is_some() {
            return false;
        }
        self.head = (self.head + 1) & (self.slots.len() - 1);
        self.next = self.next.next();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha8Rng;
    use rand_core::{Rng, SeedableRng};

    fn msg(qp: u32, total: u32) -> RecvMsg {
        RecvMsg {
            qp,
            qpn: Qpn::new(qp),
            total,
            placed: 0,
            last_seen: false,
            last_psn: Psn::ZERO,
            imm: None,
            rqmsn: Rqmsn::ZERO,
        }
    }

    #[test]
    fn positions_wrap_at_two_to_the_16() {
        let t = RetireRing::new(8, Msn::new(0xFFFE));
        assert_eq!(t.position(Msn::new(0xFFFE)), MsnPosition::Pending { offset: 0 });
        assert_eq!(t.position(Msn::new(0x0001)), MsnPosition::Pending { offset: 3 });
        assert_eq!(t.position(Msn::new(0x0006)), MsnPosition::Beyond);
        assert_eq!(t.position(Msn::new(0xFFFD)), MsnPosition::Retired);
    }

    #[test]
    fn retires_in_order_only() {
        let mut t = RetireRing::new(4, Msn::new(10));
        assert!(t.insert(Msn::new(11), RecvMsg { last_seen: true, ..msg(0, 0) }));
        assert_eq!(t.pop_ready(), None, "10 has not arrived");
        assert!(t.insert(Msn::new(10), msg(0, 5)));
        assert_eq!(t.pop_ready(), None, "10 is not complete");
        let m = t.get_mut(Msn::new(10)).unwrap();
        m.placed = 5;
        m.last_seen = true;
        assert_eq!(t.pop_ready().map(|x| x.0), Some(Msn::new(10)));
        assert_eq!(t.pop_ready().map(|x| x.0), Some(Msn::new(11)));
        assert_eq!(t.position(Msn::new(11)), MsnPosition::Retired);
        assert!(!t.insert(Msn::new(11), msg(0, 0)), "no entry for a retired message");
    }

    /// The ring and the map agree on every operation of a long random sequence.
    #[test]
    fn ring_matches_reference() {
        for seed in 0..20u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let first = Msn::new(rng.next_u32() as u16);
            let cap = 1 + (rng.next_u32() % 16) as u16;
            let mut a = RetireRef::new(cap, first);
            let mut b = RetireRing::new(cap, first);
            for step in 0..5_000 {
                let msn = a.next_msn().add((rng.next_u32() % 40) as u16).sub(8);
                match rng.next_u32() % 6 {
                    0 | 1 => {
                        let m = msg(rng.next_u32() % 3, rng.next_u32() % 3);
                        assert_eq!(a.insert(msn, m.clone()), b.insert(msn, m), "{seed}/{step}");
                    }
                    2 | 3 => {
                        let add = rng.next_u32() % 2;
                        let last = rng.next_u32() % 2 == 0;
                        for t in [a.get_mut(msn), b.get_mut(msn)].into_iter().flatten() {
                            t.placed = (t.placed + add).min(t.total);
                            t.last_seen |= last;
                        }
                    }
                    4 => assert_eq!(a.pop_ready(), b.pop_ready(), "{seed}/{step}"),
                    _ => {
                        if rng.next_u32() % 50 == 0 {
                            let qp = rng.next_u32() % 3;
                            assert_eq!(a.purge_qp(qp), b.purge_qp(qp));
                        } else if rng.next_u32() % 20 == 0 {
                            assert_eq!(a.skip_missing(), b.skip_missing());
                        }
                    }
                }
                assert_eq!(a.next_msn(), b.next_msn());
                assert_eq!(a.len(), b.len());
                assert_eq!(a.position(msn), b.position(msn));
                assert_eq!(a.get(msn), b.get(msn));
                assert_eq!(a.head_ready(), b.head_ready());
                if let MsnPosition::Pending { offset } = b.position(msn) {
                    assert_eq!(b.pending(offset), a.get(msn));
                }
            }
        }
    }
}
