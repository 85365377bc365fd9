//! The manifest's `start` table (version 2): the state of a device restored from a
//! checkpoint, for the counters a scenario could not otherwise bring to their high bits
//! (`spec/conformance.md` section 3.1, `CONF-ADP-021`).
//!
//! A NIC starts the MSN counter and the retirement pointer of a retirement domain at 0
//! (`RET-DOMAIN-003`), and the expected sequence number of a template at 0 when it is
//! installed (`DB-SEQ-001`). A scenario that needs them at 2^15 or near the wrap at 2^16
//! would need tens of thousands of messages or tokens first. The `start` table gives the
//! values instead: when the domain is created, or the template installed, the counter takes
//! the table's value where 0 was. Every entry left out stays 0, so a manifest without the
//! table describes the same device as before.
//!
//! A device that can be set to such a state claims the capability `start-state`; a
//! scenario with a `start` table requires it, so that a device that cannot is reported
//! `unsupported` (`CONF-ADP-022`).

use serde::{Deserialize, Serialize};

use crate::id::DomainId;

/// The starting counters of one retirement domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainStart {
    /// `domain`: the domain as `RET-DOMAIN-001` names it, the `domain` number of its QPs in
    /// shared retirement and the QPN of its one QP in per-QP retirement.
    pub domain: DomainId,
    /// `send_msn` (default 0): the first MSN the domain's sender counter gives
    /// (`SND-MSN-001`).
    #[serde(default)]
    pub send_msn: u16,
    /// `recv_msn` (default 0): the MSN the domain's retirement pointer starts at, the first
    /// message the responder retires (`RET-ORDER-001`).
    #[serde(default)]
    pub recv_msn: u16,
}

/// The starting expected sequence number of one template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateStart {
    /// `template`: the template ID, 0 to 4095 (`TPL-ID-001`).
    pub template: u16,
    /// `seq` (default 0): the sequence number the template expects when it is installed
    /// (`DB-SEQ-001`).
    #[serde(default)]
    pub seq: u16,
}

/// The manifest's `start` table. Empty by default, and then not written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StartState {
    /// `domains`: the retirement domains that do not start at 0.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub domains: Vec<DomainStart>,
    /// `templates`: the templates whose expected sequence number does not start at 0.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub templates: Vec<TemplateStart>,
}

impl StartState {
    /// Whether the table gives no value: every counter starts at 0.
    pub fn is_empty(&self) -> bool {
        self.domains.is_empty() && self.templates.is_empty()
    }

    /// The starting counters of `domain`: `(send_msn, recv_msn)`, `(0, 0)` when the table
    /// does not name it.
    pub fn domain(&self, domain: DomainId) -> (u16, u16) {
        self.domains
            .iter()
            .find(|d| d.domain == domain)
            .map_or((0, 0), |d| (d.send_msn, d.recv_msn))
    }

    /// The expected sequence number template `template` takes when it is installed, 0 when
    /// the table does not name it.
    pub fn template_seq(&self, template: u16) -> u16 {
        self.templates.iter().find(|t| t.template == template).map_or(0, |t| t.seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CONF-ADP-021: an empty table is every counter at 0 and writes nothing; entries read
    /// with their defaults, and a key the table does not define is refused.
    #[test]
    fn reads_and_defaults() {
        let s: StartState = toml::from_str("").unwrap();
        assert!(s.is_empty());
        assert_eq!(serde_json::to_string(&s).unwrap(), "{}");
        let s: StartState = toml::from_str(
            "domains = [{ domain = 3, send_msn = 32767 }]\ntemplates = [{ template = 9, seq = 65535 }]",
        )
        .unwrap();
        assert_eq!(s.domain(DomainId::new(3)), (32767, 0));
        assert_eq!(s.domain(DomainId::new(4)), (0, 0));
        assert_eq!(s.template_seq(9), 65535);
        assert_eq!(s.template_seq(8), 0);
        assert!(toml::from_str::<StartState>("msn = 1").is_err());
        assert!(toml::from_str::<StartState>("domains = [{ domain = 1, msn = 2 }]").is_err());
    }
}
