//! The OpenRDMA conformance suite: the specification's requirements, scenarios, the replay
//! runner, device adapters and the scoreboard.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod requirements;
