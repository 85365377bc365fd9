//! The OpenRDMA conformance suite: the specification's requirements, scenarios, the replay
//! runner, device adapters and the scoreboard.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod capture;
pub mod file;
pub mod process;
pub mod protocol;
pub mod report;
pub mod requirements;
pub mod runner;
pub mod scoreboard;
