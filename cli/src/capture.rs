//! Reading capture files: pcap and pcapng. The reader lives in the conformance crate, which
//! reads scenarios and observed captures with it; see [`openrdma_conformance::capture`].

pub use openrdma_conformance::capture::*;
