//! The subcommands, one module each. `main.rs` parses the command line and dispatches here.

pub mod bench;
pub mod check;
pub mod dissect;
pub mod run;
pub mod serve;
pub mod sim;
pub mod traces;
