//! Where entries go in a completion ring, and how a consumer tells a new one (CQE-RING-001).

use super::*;

/// Where the completion entry number `count` (0 for the first entry a queue ever receives)
/// goes in a ring of `ring_entries` entries, and the phase it carries (`CQE-RING-001`):
/// slot `count mod ring_entries`, phase 1 on even passes (the first pass is pass 0) and 0
/// on odd ones. `ring_entries` must be a power of two; `None` otherwise.
pub const fn cq_position(count: u64, ring_entries: u32) -> Option<(u32, bool)> {
    if !ring_entries.is_power_of_two() {
        return None;
    }
    let n = ring_entries as u64;
    Some(((count & (n - 1)) as u32, (count / n) % 2 == 0))
}

/// Whether the entry at a consumer's cursor is new (`CQE-RING-002`). A consumer that has
/// taken `consumed` entries from a ring of `ring_entries` entries looks at slot
/// `consumed mod ring_entries` ([`cq_position`]), and the entry there is new exactly when the
/// phase bit of its `owner` byte (byte 31) equals the phase of the consumer's current pass:
/// 1 on the first pass, 0 on the second, and so on. An entry left from the pass before, or
/// the zero of a freshly zeroed ring, is not new. `None` when `ring_entries` is not a power
/// of two.
///
/// The consumer reads the owner byte first, with acquire ordering, and the rest of the entry
/// only after this says `true`; that ordering is the caller's, as is zeroing the ring before
/// the NIC first writes to it.
pub const fn cq_entry_is_new(consumed: u64, ring_entries: u32, owner: u8) -> Option<bool> {
    match cq_position(consumed, ring_entries) {
        Some((_, phase)) => Some((owner & CQE_OWNER_PHASE != 0) == phase),
        None => None,
    }
}
