//! The OpenRDMA command line. The binary (`src/main.rs`) only parses arguments and
//! dispatches to [`cmd`]; the pieces that several commands share live here:
//!
//! * [`capture`] reads pcap and pcapng files as an iterator of records;
//! * [`render`] shows a decoded frame as JSON or as text;
//! * [`error`] holds the error type and the exit codes (0 clean, 1 findings, 2 failure);
//! * [`output`] writes standard output and report files without panicking or hiding a
//!   failure.

pub mod capture;
pub mod cmd;
pub mod error;
pub mod output;
pub mod render;
