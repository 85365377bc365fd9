//! The subcommands, one module each. `main.rs` parses the command line and dispatches here.

pub mod dissect;
