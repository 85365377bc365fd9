//! The values a manifest may hold (`spec/conformance.md` section 3.1, `CONF-FMT-008`).
//!
//! A manifest parses when every key has the right type; it is valid when every value is
//! one the specification allows and a device can be configured with. [`Manifest::validate`]
//! checks the second, so that a scenario that could never run is refused when it is read,
//! naming the key, rather than failing in the device. The reader of scenario files, the
//! command line, the conformance suite and the reference model share this one check.
//!
//! The rules, key by key:
//!
//! | key | rule |
//! |---|---|
//! | `name` | 1 to 255 ASCII letters, digits, `.`, `_` or `-`, not starting with `.` |
//! | `requirements` | at least one; each `AREA-TOPIC-NNN` or a clause ID `AREA-TOPIC-NNN.x`; no ID twice |
//! | `ports` | 1 to 32 (`ERTH-PORT-001`: a port status has 32 bits) |
//! | `nic.pmtu` | 256, 512, 1024, 2048 or 4096 (`SND-SEG-001`) |
//! | `nic.mpr` | 1 to 64 (`SETH-MPR-002`) |
//! | `nic.sack_coalesce`, `nic.ack_coalesce`, `nic.ack_req_every`, `nic.wwi_limit` | at least 1 |
//! | `nic.sack_delay`, `nic.tail_probe` | positive |
//! | `nic.max_qps` | 1 to 2^24 (a QPN has 24 bits) |
//! | `recovery.rto`, `recovery.probe_interval` | positive |
//! | `recovery.rto_max` | at least `recovery.rto` |
//! | `recovery.backoff` | at least 1 |
//! | every duration and tolerance | at most [`MAX_SPAN_NS`] |
//! | `link.local_mac`, `link.peer_mac` | unicast, not all zero, different |
//! | `link.local_ip`, `link.peer_ip` | the same family; not unspecified, multicast, broadcast, loopback or IPv4-mapped; different |
//! | `link.vlan` | 0 to 4094 (`ENC-VLAN-001`: 4095 is reserved; a VLAN ID has 12 bits) |

use std::collections::BTreeSet;
use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use openrdma_codec::EthernetAddress;

use crate::config::{NicSettings, RecoverySettings, RetirementMode};
use crate::device::Capability;
use crate::scenario::{Link, Manifest};

/// The longest duration, tolerance or record time a scenario may hold, in nanoseconds:
/// 2^62 ns, about 146 years. A time plus a duration, both in range, then always fits the
/// 64-bit nanosecond clock of the boundary.
pub const MAX_SPAN_NS: u64 = 1 << 62;

/// The most ports a manifest may declare: a port status has one bit per port
/// (`ERTH-PORT-001`).
pub const MAX_PORTS: u16 = 32;

/// The longest scenario name, in bytes.
pub const MAX_NAME_LEN: usize = 255;

/// A value of a manifest that the specification or a device would refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}{} = {value}: {reason}", index.map(|i| format!("[{i}]")).unwrap_or_default())]
pub struct ManifestError {
    /// The key at fault, as its TOML path: `nic.pmtu`, `link.vlan`, `requirements`.
    pub key: &'static str,
    /// The element of a list at fault (`requirements`), counted from 0.
    pub index: Option<usize>,
    /// The value, as TOML writes it.
    pub value: String,
    /// Why it is refused.
    pub reason: String,
}

impl ManifestError {
    /// An error on `key`, whose value is `value`.
    pub fn new(key: &'static str, value: impl fmt::Display, reason: impl Into<String>) -> Self {
        ManifestError { key, index: None, value: value.to_string(), reason: reason.into() }
    }

    /// An error on element `index` of the list `key`.
    pub fn at(
        key: &'static str,
        index: usize,
        value: impl fmt::Display,
        reason: impl Into<String>,
    ) -> Self {
        ManifestError { key, index: Some(index), value: value.to_string(), reason: reason.into() }
    }
}

/// Whether `s` is a requirement ID as a manifest may name it: `AREA-TOPIC-NNN` (upper-case
/// letters and digits, the area starting with a letter, three digits), or the ID of one of
/// its clauses, `AREA-TOPIC-NNN.x` with `x` a lower-case letter (`spec/README.md`).
/// [`requirement_of`] gives the requirement of a clause ID.
pub fn is_requirement_ref(s: &str) -> bool {
    let Some(id) = requirement_of(s) else { return false };
    let parts: Vec<&str> = id.split('-').collect();
    let word =
        |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
    parts.len() == 3
        && word(parts[0])
        && parts[0].as_bytes()[0].is_ascii_uppercase()
        && word(parts[1])
        && parts[2].len() == 3
        && parts[2].bytes().all(|b| b.is_ascii_digit())
}

/// The requirement ID of a reference: `s` itself, or the part before `.` of a clause ID
/// `ID.x`. `None` when the clause part is not one lower-case letter.
pub fn requirement_of(s: &str) -> Option<&str> {
    match s.split_once('.') {
        None => Some(s),
        Some((id, clause)) => {
            (clause.len() == 1 && clause.as_bytes()[0].is_ascii_lowercase()).then_some(id)
        }
    }
}

fn ns(d: Duration) -> u128 {
    d.as_nanos()
}

fn too_long(key: &'static str, d: u128) -> Option<ManifestError> {
    (d > u128::from(MAX_SPAN_NS)).then(|| {
        ManifestError::new(
            key,
            d,
            format!(
                "at most 2^62 ns ({MAX_SPAN_NS}), so that a time plus it fits the 64-bit clock"
            ),
        )
    })
}

fn mac_problems(out: &mut Vec<ManifestError>, key: &'static str, mac: EthernetAddress) {
    if mac.0 == [0; 6] {
        out.push(ManifestError::new(
            key,
            format!("\"{mac}\""),
            "the all-zero MAC address names no station",
        ));
    } else if !mac.is_unicast() {
        out.push(ManifestError::new(
            key,
            format!("\"{mac}\""),
            "a multicast or broadcast MAC address (the I/G bit is set); an end of a link has a unicast address",
        ));
    }
}

fn ip_problems(out: &mut Vec<ManifestError>, key: &'static str, ip: IpAddr) {
    let value = format!("\"{ip}\"");
    let reason = match ip {
        IpAddr::V4(a) if a.is_unspecified() => Some("the unspecified address names no host"),
        IpAddr::V4(a) if a.is_broadcast() => Some("the broadcast address is not an end of a link"),
        IpAddr::V4(a) if a.is_multicast() => Some("a multicast address is not an end of a link"),
        IpAddr::V4(a) if a.is_loopback() => Some("a loopback address never appears on a wire"),
        IpAddr::V6(a) if a.is_unspecified() => Some("the unspecified address names no host"),
        IpAddr::V6(a) if a.is_multicast() => Some("a multicast address is not an end of a link"),
        IpAddr::V6(a) if a.is_loopback() => Some("a loopback address never appears on a wire"),
        IpAddr::V6(a) if a.to_ipv4_mapped().is_some() => {
            Some("an IPv4-mapped IPv6 address is not sent on a wire; write the IPv4 address")
        }
        _ => None,
    };
    if let Some(reason) = reason {
        out.push(ManifestError::new(key, value, reason));
    }
}

fn link_problems(out: &mut Vec<ManifestError>, l: &Link) {
    mac_problems(out, "link.local_mac", l.local_mac);
    mac_problems(out, "link.peer_mac", l.peer_mac);
    if l.local_mac == l.peer_mac {
        out.push(ManifestError::new(
            "link.peer_mac",
            format!("\"{}\"", l.peer_mac),
            "the peer has the device's own MAC address",
        ));
    }
    ip_problems(out, "link.local_ip", l.local_ip);
    ip_problems(out, "link.peer_ip", l.peer_ip);
    if l.local_ip.is_ipv4() != l.peer_ip.is_ipv4() {
        let (mine, theirs) = if l.local_ip.is_ipv4() { ("IPv4", "IPv6") } else { ("IPv6", "IPv4") };
        out.push(ManifestError::new(
            "link.peer_ip",
            format!("\"{}\"", l.peer_ip),
            format!(
                "an {theirs} peer for an {mine} device (`link.local_ip` = \"{}\"); both ends are IPv4 or both IPv6",
                l.local_ip
            ),
        ));
    } else if l.local_ip == l.peer_ip {
        out.push(ManifestError::new(
            "link.peer_ip",
            format!("\"{}\"", l.peer_ip),
            "the peer has the device's own IP address",
        ));
    }
    match l.vlan {
        Some(0xFFF) => out.push(ManifestError::new(
            "link.vlan",
            0xFFF,
            "VLAN ID 4095 is reserved by IEEE 802.1Q and never sent (ENC-VLAN-001); use 0 to 4094",
        )),
        Some(v) if v > 0xFFF => {
            out.push(ManifestError::new("link.vlan", v, "a VLAN ID has 12 bits; use 0 to 4094"))
        }
        _ => {}
    }
}

impl NicSettings {
    /// Checks the `nic` table against the rules of `CONF-FMT-008` (see the module
    /// documentation): the first value at fault. The reference model configures itself
    /// only from a table that passes.
    pub fn validate(&self) -> Result<(), ManifestError> {
        first(self.problems())
    }

    /// Every value of the `nic` table at fault, keys named `nic.KEY`.
    pub fn problems(&self) -> Vec<ManifestError> {
        let n = self;
        let mut out = Vec::new();
        if !matches!(n.pmtu, 256 | 512 | 1024 | 2048 | 4096) {
            out.push(ManifestError::new(
                "nic.pmtu",
                n.pmtu,
                "the path MTU is 256, 512, 1024, 2048 or 4096 (SND-SEG-001)",
            ));
        }
        if n.mpr == 0 || n.mpr > 64 {
            out.push(ManifestError::new(
                "nic.mpr",
                n.mpr,
                "the window is 1 to 64 units of 128 packets (SETH-MPR-002)",
            ));
        }
        for (key, v) in [
            ("nic.sack_coalesce", n.sack_coalesce),
            ("nic.ack_coalesce", n.ack_coalesce),
            ("nic.ack_req_every", n.ack_req_every),
            ("nic.wwi_limit", u32::from(n.wwi_limit)),
        ] {
            if v == 0 {
                out.push(ManifestError::new(key, 0, "at least 1"));
            }
        }
        if n.sack_delay.is_zero() {
            out.push(ManifestError::new(
                "nic.sack_delay",
                0,
                "positive: a SACK is due some time after the packet it acknowledges (RCV-SACK-004)",
            ));
        }
        if n.tail_probe.is_some_and(|d| d.is_zero()) {
            out.push(ManifestError::new(
                "nic.tail_probe",
                0,
                "positive when present; leave it out to turn tail probing off (SND-TAIL-001)",
            ));
        }
        if n.max_qps == 0 || n.max_qps > 1 << 24 {
            out.push(ManifestError::new(
                "nic.max_qps",
                n.max_qps,
                "1 to 2^24 (16777216): a NIC holds at least one QP, and a QPN has 24 bits",
            ));
        }
        for (key, d) in [
            ("nic.sack_delay", n.sack_delay),
            ("nic.skip_hold", n.skip_hold),
            ("nic.nack_backoff", n.nack_backoff),
            ("nic.tail_probe", n.tail_probe.unwrap_or_default()),
        ] {
            out.extend(too_long(key, ns(d)));
        }

        out
    }
}

impl RecoverySettings {
    /// Checks the `recovery` table against the rules of `CONF-FMT-008`: the first value at
    /// fault.
    pub fn validate(&self) -> Result<(), ManifestError> {
        first(self.problems())
    }

    /// Every value of the `recovery` table at fault, keys named `recovery.KEY`.
    pub fn problems(&self) -> Vec<ManifestError> {
        let r = self;
        let mut out = Vec::new();
        if r.rto.is_zero() {
            out.push(ManifestError::new(
                "recovery.rto",
                0,
                "positive: the retransmission timer runs for this long (REC-RTO-001)",
            ));
        }
        if r.rto_max < r.rto {
            out.push(ManifestError::new(
                "recovery.rto_max",
                ns(r.rto_max),
                format!(
                    "at least `recovery.rto` ({}): the timeout only grows by back-off",
                    ns(r.rto)
                ),
            ));
        }
        if r.backoff == 0 {
            out.push(ManifestError::new(
                "recovery.backoff",
                0,
                "at least 1 (1: the timeout stays at `rto`, REC-RTO-005)",
            ));
        }
        if r.probe_interval.is_zero() {
            out.push(ManifestError::new(
                "recovery.probe_interval",
                0,
                "positive: an ASSUMED_BAD EV is probed this often (REC-PROBE-001)",
            ));
        }
        for (key, d) in [
            ("recovery.rto", r.rto),
            ("recovery.rto_max", r.rto_max),
            ("recovery.probe_interval", r.probe_interval),
        ] {
            out.extend(too_long(key, ns(d)));
        }

        out
    }
}

impl Link {
    /// Checks the `link` table against the rules of `CONF-FMT-008`: the first value at
    /// fault.
    pub fn validate(&self) -> Result<(), ManifestError> {
        first(self.problems())
    }

    /// Every value of the `link` table at fault, keys named `link.KEY`.
    pub fn problems(&self) -> Vec<ManifestError> {
        let mut out = Vec::new();
        link_problems(&mut out, self);
        out
    }
}

fn first(problems: Vec<ManifestError>) -> Result<(), ManifestError> {
    match problems.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

impl Manifest {
    /// Checks every value against the rules of `CONF-FMT-008` (see the module
    /// documentation); the first value at fault, in the order the keys are listed there.
    pub fn validate(&self) -> Result<(), ManifestError> {
        first(self.problems())
    }

    /// Every value at fault, in the order of [`Manifest::validate`].
    pub fn problems(&self) -> Vec<ManifestError> {
        let mut out = Vec::new();
        let name_ok = !self.name.is_empty()
            && self.name.len() <= MAX_NAME_LEN
            && !self.name.starts_with('.')
            && self.name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !name_ok {
            out.push(ManifestError::new(
                "name",
                format!("{:?}", self.name),
                "a scenario name is 1 to 255 ASCII letters, digits, `.`, `_` or `-`, not starting with `.`",
            ));
        }
        if self.requirements.is_empty() {
            out.push(ManifestError::new(
                "requirements",
                "[]",
                "a scenario checks at least one requirement",
            ));
        }
        let mut seen = BTreeSet::new();
        for (i, id) in self.requirements.iter().enumerate() {
            if !is_requirement_ref(id) {
                out.push(ManifestError::at(
                    "requirements",
                    i,
                    format!("{id:?}"),
                    "not a requirement ID: AREA-TOPIC-NNN, or a clause AREA-TOPIC-NNN.x",
                ));
            } else if !seen.insert(id.as_str()) {
                out.push(ManifestError::at("requirements", i, format!("{id:?}"), "named twice"));
            }
        }
        if self.ports == 0 || self.ports > MAX_PORTS {
            out.push(ManifestError::new(
                "ports",
                self.ports,
                "1 to 32 ports: a port status has one bit per port (ERTH-PORT-001)",
            ));
        }

        out.extend(self.nic.problems());
        out.extend(self.recovery.problems());
        out.extend(self.link.problems());
        out.extend(self.start_problems());

        let t = &self.tolerances;
        for (key, v) in [
            ("tolerances.late_ns", t.late_ns),
            ("tolerances.early_ns", t.early_ns),
            ("tolerances.drain_ns", t.drain_ns),
        ] {
            out.extend(too_long(key, u128::from(v)));
        }
        out
    }
}

impl Manifest {
    /// Every value of the `start` table at fault (`CONF-ADP-022`), keys named `start.KEY`.
    fn start_problems(&self) -> Vec<ManifestError> {
        let mut out = Vec::new();
        let s = &self.start;
        if s.is_empty() {
            return out;
        }
        if self.version.is_v1() {
            out.push(ManifestError::new(
                "version",
                1,
                "a `start` table is version 2 of the manifest: write `version = 2` (CONF-ADP-022)",
            ));
        }
        if !self.requires.contains(&Capability::StartState) {
            out.push(ManifestError::new(
                "requires",
                "[..]",
                "a scenario with a `start` table requires `start-state` (CONF-ADP-022)",
            ));
        }
        let mut seen = BTreeSet::new();
        for (i, d) in s.domains.iter().enumerate() {
            if !seen.insert(d.domain) {
                out.push(ManifestError::at("start.domains", i, d.domain, "domain named twice"));
            } else if self.nic.retirement == RetirementMode::PerQp && d.domain.value() >= 1 << 24 {
                out.push(ManifestError::at(
                    "start.domains",
                    i,
                    d.domain,
                    "in per-QP retirement a domain is named by its QPN, which has 24 bits",
                ));
            }
        }
        let mut seen = BTreeSet::new();
        for (i, t) in s.templates.iter().enumerate() {
            if t.template > 0x0FFF {
                out.push(ManifestError::at(
                    "start.templates",
                    i,
                    t.template,
                    "a template ID is 0 to 4095 (TPL-ID-001)",
                ));
            } else if !seen.insert(t.template) {
                out.push(ManifestError::at(
                    "start.templates",
                    i,
                    t.template,
                    "template named twice",
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ManifestVersion;
    use crate::scenario::{CpuHalf, Tolerances};

    fn good() -> Manifest {
        Manifest {
            version: ManifestVersion::V1,
            name: "x-v4".into(),
            description: "d".into(),
            requirements: vec!["RCV-ACK-001".into(), "RCV-ACK-002.b".into()],
            requires: Default::default(),
            nic: NicSettings::default(),
            cpu: CpuHalf::Scripted,
            recovery: RecoverySettings::default(),
            ports: 4,
            link: Link::default(),
            tolerances: Tolerances::default(),
            start: Default::default(),
        }
    }

    fn key_of(m: &Manifest) -> &'static str {
        m.validate().unwrap_err().key
    }

    #[test]
    fn conf_fmt_008_defaults_and_corpus_shape_pass() {
        assert_eq!(good().validate(), Ok(()));
    }

    #[test]
    fn conf_fmt_008_each_rule_names_its_key() {
        type Spoil = fn(&mut Manifest);
        let cases: Vec<(&str, Spoil)> = vec![
            ("name", |m| m.name = String::new()),
            ("name", |m| m.name = "../x".into()),
            ("requirements", |m| m.requirements.clear()),
            ("requirements", |m| m.requirements.push("rcv-ack-001".into())),
            ("requirements", |m| m.requirements.push("RCV-ACK-001".into())),
            ("requirements", |m| m.requirements.push("RCV-ACK-001.".into())),
            ("ports", |m| m.ports = 0),
            ("ports", |m| m.ports = 33),
            ("nic.pmtu", |m| m.nic.pmtu = 0),
            ("nic.mpr", |m| m.nic.mpr = 0),
            ("nic.mpr", |m| m.nic.mpr = 65),
            ("nic.sack_coalesce", |m| m.nic.sack_coalesce = 0),
            ("nic.ack_coalesce", |m| m.nic.ack_coalesce = 0),
            ("nic.ack_req_every", |m| m.nic.ack_req_every = 0),
            ("nic.wwi_limit", |m| m.nic.wwi_limit = 0),
            ("nic.sack_delay", |m| m.nic.sack_delay = Duration::ZERO),
            ("nic.tail_probe", |m| m.nic.tail_probe = Some(Duration::ZERO)),
            ("nic.max_qps", |m| m.nic.max_qps = 0),
            ("nic.max_qps", |m| m.nic.max_qps = (1 << 24) + 1),
            ("nic.skip_hold", |m| m.nic.skip_hold = Duration::from_nanos(u64::MAX)),
            ("recovery.rto", |m| m.recovery.rto = Duration::ZERO),
            ("recovery.rto_max", |m| m.recovery.rto_max = Duration::from_nanos(1)),
            ("recovery.backoff", |m| m.recovery.backoff = 0),
            ("recovery.probe_interval", |m| m.recovery.probe_interval = Duration::ZERO),
            ("link.local_mac", |m| m.link.local_mac = EthernetAddress([1, 0, 0, 0, 0, 1])),
            ("link.peer_mac", |m| m.link.peer_mac = EthernetAddress([0; 6])),
            ("link.peer_mac", |m| m.link.peer_mac = m.link.local_mac),
            ("link.peer_ip", |m| m.link.peer_ip = "fe80::2".parse().unwrap()),
            ("link.peer_ip", |m| m.link.peer_ip = m.link.local_ip),
            ("link.local_ip", |m| m.link.local_ip = "0.0.0.0".parse().unwrap()),
            ("link.peer_ip", |m| m.link.peer_ip = "224.0.0.1".parse().unwrap()),
            ("link.peer_ip", |m| m.link.peer_ip = "127.0.0.1".parse().unwrap()),
            ("link.vlan", |m| m.link.vlan = Some(4095)),
            ("link.vlan", |m| m.link.vlan = Some(4096)),
            ("tolerances.early_ns", |m| m.tolerances.early_ns = u64::MAX),
        ];
        for (key, spoil) in cases {
            let mut m = good();
            spoil(&mut m);
            assert_eq!(key_of(&m), key, "{:?}", m.validate());
        }
    }

    #[test]
    fn conf_fmt_008_edges_that_pass() {
        let mut m = good();
        m.ports = 32;
        m.nic.mpr = 64;
        m.nic.max_qps = 1 << 24;
        m.link.vlan = Some(0);
        m.recovery.rto_max = m.recovery.rto;
        m.recovery.retry_limit = 0;
        m.nic.skip_hold = Duration::ZERO;
        m.tolerances.drain_ns = MAX_SPAN_NS;
        assert_eq!(m.validate(), Ok(()));
        m.link.vlan = Some(4094);
        m.link.local_ip = "fd00::1".parse().unwrap();
        m.link.peer_ip = "fd00::2".parse().unwrap();
        assert_eq!(m.validate(), Ok(()));
    }

    #[test]
    fn messages_name_key_value_and_reason() {
        let mut m = good();
        m.link.local_ip = "10.0.0.1".parse().unwrap();
        m.link.peer_ip = "fd00::2".parse().unwrap();
        let e = m.validate().unwrap_err().to_string();
        assert_eq!(
            e,
            "link.peer_ip = \"fd00::2\": an IPv6 peer for an IPv4 device (`link.local_ip` = \
             \"10.0.0.1\"); both ends are IPv4 or both IPv6"
        );
        let mut m = good();
        m.requirements.push("X".into());
        assert_eq!(
            m.validate().unwrap_err().to_string(),
            "requirements[2] = \"X\": not a requirement ID: AREA-TOPIC-NNN, or a clause AREA-TOPIC-NNN.x"
        );
    }

    /// CONF-ADP-022: a `start` table needs version 2 and `start-state`;
    /// a domain or template is named once, a template ID has 12 bits, and a per-QP domain
    /// is a 24-bit QPN.
    #[test]
    fn start_table_rules() {
        use crate::id::DomainId;
        use crate::start::{DomainStart, TemplateStart};
        let mut m = good();
        let d = DomainStart { domain: DomainId::new(0), send_msn: 0x7FFF, recv_msn: 0 };
        m.start.domains.push(d);
        assert_eq!(key_of(&m), "version");
        m.version = ManifestVersion::V2;
        assert_eq!(key_of(&m), "requires");
        m.requires.insert(Capability::StartState);
        assert!(m.validate().is_ok());
        m.start.domains.push(d);
        assert_eq!(m.validate().unwrap_err().index, Some(1));
        m.start.domains[1].domain = DomainId::new(1 << 24);
        assert!(m.validate().is_ok());
        m.nic.retirement = RetirementMode::PerQp;
        assert_eq!(key_of(&m), "start.domains");
        m.start.domains.pop();
        m.start.templates.push(TemplateStart { template: 0x1000, seq: 1 });
        assert_eq!(key_of(&m), "start.templates");
        m.start.templates[0].template = 0xFFF;
        m.start.templates.push(TemplateStart { template: 0xFFF, seq: 2 });
        assert_eq!(m.validate().unwrap_err().index, Some(1));
        m.start.templates.pop();
        assert!(m.validate().is_ok());
    }

    #[test]
    fn clause_references() {
        assert_eq!(requirement_of("RCV-ACK-002.b"), Some("RCV-ACK-002"));
        assert_eq!(requirement_of("RCV-ACK-002"), Some("RCV-ACK-002"));
        assert_eq!(requirement_of("RCV-ACK-002.B"), None);
        assert!(is_requirement_ref("CONF-FMT-001.a"));
        assert!(!is_requirement_ref("CONF-FMT-001.a2"));
        assert!(!is_requirement_ref("CONF-FMT-01"));
        assert!(!is_requirement_ref("1CONF-FMT-001"));
    }
}
