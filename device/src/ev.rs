//! Entropy values (paths) as the boundary sees them: the mark a SACK gives an EV, and the
//! state of an EV at a sender (requirements `EV-*`).
//!
//! The state machine that moves an EV between states is the model's
//! (`openrdma_sm::ev`); a report (`NicReport::EvState`) and a command
//! (`CpuCommand::SetEvState`) carry only the state.

use serde::{Deserialize, Serialize};

/// The SACK `m` field: the receiver's marking of the EV a packet arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EvMark {
    /// 00: no mark.
    None,
    /// 01: skip this EV once.
    SkipOnce,
    /// 10: always skip this EV (assume it bad).
    AlwaysSkip,
    /// 11: reserved; treated as no mark.
    Reserved,
}

impl EvMark {
    /// From the 2-bit field.
    #[inline]
    pub fn from_bits(m: u8) -> EvMark {
        match m & 3 {
            0 => EvMark::None,
            1 => EvMark::SkipOnce,
            2 => EvMark::AlwaysSkip,
            _ => EvMark::Reserved,
        }
    }
}

/// State of one entropy value at a sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EvState {
    /// Usable.
    Good,
    /// Not used until `skip_hold` has passed.
    Skip,
    /// Not used for data; probed by the CPU until a probe is answered.
    AssumedBad,
    /// Not used at all until a controller allows it.
    Denied,
}

impl EvState {
    /// Whether data packets may be sent on an EV in this state.
    #[inline]
    pub fn usable(self) -> bool {
        self == EvState::Good
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_good_is_usable() {
        assert!(EvState::Good.usable());
        assert!(
            !EvState::Skip.usable() && !EvState::AssumedBad.usable() && !EvState::Denied.usable()
        );
    }

    #[test]
    fn marks_from_bits() {
        let marks: Vec<EvMark> = (0..8).map(EvMark::from_bits).collect();
        assert_eq!(
            marks[..4],
            [EvMark::None, EvMark::SkipOnce, EvMark::AlwaysSkip, EvMark::Reserved]
        );
        assert_eq!(marks[..4], marks[4..]);
    }
}
