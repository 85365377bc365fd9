//! The crate's one error type: every error the suite returns converts into it.

use openrdma_device::DeviceError;

use crate::capture::CaptureError;
use crate::file::FileError;
use crate::protocol::{FieldsError, ProtocolError, ServeError};
use crate::req::Clause;
use crate::requirements::SpecError;

/// Any error of the suite. Each variant holds the error of one part (scenario and capture
/// files, the adapter protocol and its server, a device behind the adapter, the built-in
/// specification), which says what is wrong and where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A scenario or a capture cannot be read or written.
    #[error(transparent)]
    File(#[from] FileError),
    /// A capture cannot be read, or cannot be read any further.
    #[error(transparent)]
    Capture(#[from] CaptureError),
    /// A line is not a message of the adapter protocol, or not the one expected.
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// An output frame given as fields is wrong.
    #[error(transparent)]
    Fields(#[from] FieldsError),
    /// Serving a device over the adapter protocol stopped early.
    #[error(transparent)]
    Serve(#[from] ServeError),
    /// A device behind the adapter failed, timed out or broke the protocol.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The specification the suite is built with has a problem.
    #[error(transparent)]
    Spec(#[from] SpecError),
}

impl Error {
    /// The clause of the specification the error enforces, where one does.
    pub fn requirement(&self) -> Option<Clause> {
        match self {
            Error::File(e) => e.requirement(),
            Error::Protocol(e) => e.requirement(),
            Error::Fields(e) => Some(e.requirement()),
            Error::Serve(e) => e.requirement(),
            Error::Device(e) => e.requirement().and_then(Clause::parse),
            Error::Capture(_) | Error::Spec(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_error_names_its_clause_through_the_suite_error() {
        let e = Error::from(DeviceError::Unsupported("no doorbells".into()));
        assert_eq!(e.requirement().map(Clause::id), Some("CONF-ADP-009.a"));
        assert!(e.to_string().contains("no doorbells"));
    }
}
