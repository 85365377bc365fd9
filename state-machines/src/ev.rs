//! Entropy values (paths) and their state machine (requirements `EV-*`).
//!
//! ```text
//!                 SACK m=SKIP_ONCE / NACK TRIMMED
//!        +------------------------------------------+
//!        |                                          v
//!     +------+   skip_hold expires            +------+
//!     | GOOD |<-------------------------------| SKIP |
//!     +------+                                +------+
//!      ^  |  ^ probe answered m=NONE             |
//!      |  |  |                                   | SACK m=ALWAYS_SKIP, timeout
//!      |  |  |   +-------------+                 v
//!      |  |  +---| ASSUMED_BAD |<----------------+
//!      |  +----->|             |  (from GOOD too: SACK m=ALWAYS_SKIP, timeout)
//!      |         +-------------+---probe answered m=SKIP_ONCE---> SKIP
//!      |
//!      | controller allow          +--------+
//!      +---------------------------| DENIED |<--- controller deny (from any state)
//!                                  +--------+
//! ```
//!
//! The table is data ([`TRANSITIONS`]), printed and snapshot-tested; [`next_state`] is a
//! lookup in it. The states and the SACK marks are boundary data ([`openrdma_device::ev`]).

use serde::{Deserialize, Serialize};

pub use openrdma_device::{EvMark, EvState};

/// The state after `event` in state `from`, or `None` when the event does not change it: a
/// lookup in [`TRANSITIONS`].
pub fn next_state(from: EvState, event: EvEvent) -> Option<EvState> {
    TRANSITIONS.iter().find(|t| t.from == from && t.event == event).map(|t| t.to)
}

/// Events that move an EV between states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvEvent {
    /// A SACK for a packet on this EV carried m = SKIP_ONCE (NIC).
    SackSkipOnce,
    /// A SACK carried m = ALWAYS_SKIP (NIC).
    SackAlwaysSkip,
    /// A NACK TRIMMED or TRIMMED_LASTHOP reported this EV (NIC).
    NackTrimmed,
    /// `skip_hold` passed since the EV entered SKIP (NIC).
    SkipExpired,
    /// A retransmission timeout with no trim and no SACK blamed this EV (CPU).
    Timeout,
    /// A probe on this EV was answered with m = NONE (NIC, reported to the CPU).
    ProbeGood,
    /// A probe on this EV was answered with m = SKIP_ONCE.
    ProbeSkip,
    /// A controller denied the EV (CPU).
    Deny,
    /// A controller allowed the EV (CPU).
    Allow,
}

/// One row of the transition table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Transition {
    /// Requirement ID of the rule.
    pub requirement: &'static str,
    /// State before.
    pub from: EvState,
    /// Event.
    pub event: EvEvent,
    /// State after.
    pub to: EvState,
}

macro_rules! transitions {
    ($( $id:literal: $from:ident --$ev:ident--> $to:ident; )*) => {
        /// The EV state machine as data: every transition the specification allows.
        pub const TRANSITIONS: &[Transition] = &[
            $( Transition {
                requirement: $id,
                from: EvState::$from,
                event: EvEvent::$ev,
                to: EvState::$to,
            }, )*
        ];
    };
}

transitions! {
    "EV-SKIP-001": Good --SackSkipOnce--> Skip;
    "EV-SKIP-001": Good --NackTrimmed--> Skip;
    "EV-SKIP-002": Skip --SkipExpired--> Good;
    "EV-BAD-001": Good --SackAlwaysSkip--> AssumedBad;
    "EV-BAD-001": Skip --SackAlwaysSkip--> AssumedBad;
    "REC-EV-002.a": Good --Timeout--> AssumedBad;
    "REC-EV-002.a": Skip --Timeout--> AssumedBad;
    "EV-PROBE-002": AssumedBad --ProbeGood--> Good;
    "EV-PROBE-003": AssumedBad --ProbeSkip--> Skip;
    "EV-DENY-001": Good --Deny--> Denied;
    "EV-DENY-001": Skip --Deny--> Denied;
    "EV-DENY-001": AssumedBad --Deny--> Denied;
    "EV-DENY-002": Denied --Allow--> Good;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_deterministic() {
        for (i, a) in TRANSITIONS.iter().enumerate() {
            for b in &TRANSITIONS[i + 1..] {
                assert!(!(a.from == b.from && a.event == b.event), "two rows for {a:?}");
            }
        }
    }

    #[test]
    fn denied_ignores_data_path_events() {
        for e in [EvEvent::SackSkipOnce, EvEvent::NackTrimmed, EvEvent::Timeout, EvEvent::ProbeGood]
        {
            assert_eq!(next_state(EvState::Denied, e), None);
        }
        assert_eq!(next_state(EvState::Denied, EvEvent::Allow), Some(EvState::Good));
    }
}
