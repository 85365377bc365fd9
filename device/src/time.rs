//! Time as an input: the model never reads a clock.

use core::fmt;
use core::ops::{Add, AddAssign, Sub};
use core::time::Duration;

/// Nanoseconds since the start of a scenario or simulation.
#[derive(
    Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct Timestamp(pub u64);

impl Timestamp {
    /// The start of time.
    pub const ZERO: Timestamp = Timestamp(0);
    /// The end of time; used as "never".
    pub const MAX: Timestamp = Timestamp(u64::MAX);

    /// Nanoseconds since the start.
    #[inline]
    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    /// A timestamp from nanoseconds.
    #[inline]
    pub const fn from_nanos(ns: u64) -> Timestamp {
        Timestamp(ns)
    }

    /// `self - earlier`, or zero if `earlier` is later.
    #[inline]
    pub fn saturating_since(self, earlier: Timestamp) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }
}

#[inline]
fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl Add<Duration> for Timestamp {
    type Output = Timestamp;
    #[inline]
    fn add(self, d: Duration) -> Timestamp {
        Timestamp(self.0.saturating_add(nanos(d)))
    }
}

impl AddAssign<Duration> for Timestamp {
    #[inline]
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}

impl Sub<Timestamp> for Timestamp {
    type Output = Duration;
    #[inline]
    fn sub(self, earlier: Timestamp) -> Duration {
        self.saturating_since(earlier)
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ns", self.0)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ns", self.0)
    }
}

/// Serde for an optional duration as nanoseconds, for fields that are left out when
/// absent (`#[serde(with = "opt_duration_ns", skip_serializing_if = "Option::is_none")]`).
pub mod opt_duration_ns {
    use core::time::Duration;

    /// Serializes a present duration as nanoseconds (an absent one is skipped).
    pub fn serialize<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => super::duration_ns::serialize(d, s),
            None => s.serialize_none(),
        }
    }

    /// Deserializes a duration from nanoseconds.
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Duration>, D::Error> {
        super::duration_ns::deserialize(d).map(Some)
    }
}

/// Serde helpers for `Duration` as integer nanoseconds (config files read better that way).
pub mod duration_ns {
    use core::time::Duration;

    /// Serializes a duration as nanoseconds.
    pub fn serialize<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
    }

    /// Deserializes a duration from nanoseconds.
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let ns = <u64 as serde::Deserialize>::deserialize(d)?;
        Ok(Duration::from_nanos(ns))
    }
}
