//! One error type for the boundary: [`Error`] holds a device's failure ([`DeviceError`]) or
//! a manifest value the specification refuses ([`ManifestError`]), each able to name the
//! requirement of `spec/conformance.md` it enforces.

use crate::device::DeviceError;
use crate::validate::ManifestError;

/// Any error of the boundary crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A device that cannot run a scenario, fails, breaks the adapter protocol or does not
    /// answer in time.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// A manifest value the specification or a device refuses.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}

impl Error {
    /// The requirement the error enforces ([`DeviceError::requirement`],
    /// [`ManifestError::requirement`]), or `None` when no single one does.
    pub fn requirement(&self) -> Option<&'static str> {
        match self {
            Error::Device(e) => e.requirement(),
            Error::Manifest(e) => Some(e.requirement()),
        }
    }
}

impl DeviceError {
    /// The requirement that makes this error the verdict it is: `CONF-ADP-009.a` for
    /// `unsupported`, `CONF-ADP-009.b` for a device that fails, `CONF-ADP-010.a` for one that
    /// does not answer in time. `None` for a protocol error, which many requirements of the
    /// adapter protocol define (the message names which).
    pub fn requirement(&self) -> Option<&'static str> {
        match self {
            DeviceError::Unsupported(_) => Some("CONF-ADP-009.a"),
            DeviceError::Failed(_) => Some("CONF-ADP-009.b"),
            DeviceError::Timeout { .. } => Some("CONF-ADP-010.a"),
            DeviceError::Protocol(_) => None,
        }
    }
}

impl ManifestError {
    /// The requirement the refusal enforces: `CONF-FMT-009.a` for the `requirements` list
    /// (empty, an ID that is not one, an ID named twice), `CONF-FMT-008.a` for any other
    /// value the table of manifest values does not allow.
    pub fn requirement(&self) -> &'static str {
        if self.key == "requirements" { "CONF-FMT-009.a" } else { "CONF-FMT-008.a" }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_their_requirement() {
        let e = Error::from(DeviceError::Unsupported("RD".into()));
        assert_eq!(e.requirement(), Some("CONF-ADP-009.a"));
        assert_eq!(e.to_string(), "unsupported: RD");
        assert_eq!(Error::from(DeviceError::Protocol("seq".into())).requirement(), None);
        let m = ManifestError::new("nic.pmtu", 300, "256, 512, 1024, 2048 or 4096");
        assert_eq!(Error::from(m).requirement(), Some("CONF-FMT-008.a"));
        let r = ManifestError::at("requirements", 0, "\"X\"", "not a requirement ID");
        assert_eq!(Error::from(r).requirement(), Some("CONF-FMT-009.a"));
    }
}
