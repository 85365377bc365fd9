//! Templates: what software installs in the NIC beforehand so that an 8-byte doorbell
//! token can stand for a whole work request (requirements `TPL-*`), and the expansion of a
//! token into a [`WorkRequest`] (`TPL-EXPAND-*`, `DB-*`).
//!
//! A template describes a ring of `slots` equal-shaped transfers over one QP: slot `i`
//! sends from `local_base + i × local_stride` to `remote_base + i × remote_stride` and
//! reports in flag slot `flag_base_slot + i`. A token names the template, the slot and,
//! optionally, a length.
//!
//! The template table itself is NIC state and lives in the model; the codec gives the pure
//! rules: [`Template::validate`] (may this template be installed?), [`Template::expand`]
//! (the stateless checks and the expansion) and [`accept_doorbell`] (every check, in the
//! order of `DB-ORDER-001`, given what the NIC holds). The installation rules that need
//! NIC state — the key check (`TPL-KEY-001`), the flag table's bounds (`TPL-FLAG-001`),
//! atomic change and re-installation (`TPL-INSTALL-002` to `TPL-INSTALL-004`) — belong to
//! the model.

use core::fmt;

use super::{DoorbellReject, DoorbellToken, LengthBound, WorkRequest, WrOpcode};
use super::{MAX_MESSAGE_LEN, check_seq};
use crate::{Lkey, Qpn, Rkey, TemplateId};

/// The largest slot count: the index field has 16 bits.
pub const MAX_SLOTS: u32 = 1 << 16;

/// One side of a transfer, for errors about regions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Side {
    /// The sender's (GPU) memory.
    Local,
    /// The receiver's memory.
    Remote,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Local => "local",
            Side::Remote => "remote",
        })
    }
}

/// A template as software installs it (table 4 of the host-interface chapter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Template {
    /// Template ID, 0 to 4095 (`TPL-ID-001`); tokens name it in bits 59:48.
    pub template_id: TemplateId,
    /// A disabled template rejects every token as unknown (`DB-TEMPLATE-001`).
    pub enabled: bool,
    /// The QP that sends the messages (`TPL-QPN-001`).
    pub qpn: Qpn,
    /// WRITE or WRITE_WITH_IMM (`TPL-OPCODE-001`).
    pub opcode: WrOpcode,
    /// Start of the local region.
    pub local_base: u64,
    /// Local key of the registered memory holding the local region.
    pub local_lkey: Lkey,
    /// Bytes in the local region (`TPL-REGION-001`, `TPL-REGION-002`).
    pub local_region_len: u64,
    /// Start of the remote region.
    pub remote_base: u64,
    /// Remote key of the remote region.
    pub remote_rkey: Rkey,
    /// Bytes in the remote region.
    pub remote_region_len: u64,
    /// Number of slots, 1 to 65536 (`TPL-SLOTS-001`).
    pub slots: u32,
    /// Distance between consecutive local slots, in bytes (0 allowed: every slot sends
    /// the same buffer).
    pub local_stride: u64,
    /// Distance between consecutive remote slots, in bytes.
    pub remote_stride: u64,
    /// Bytes per length unit: a power of two from 1 to 2^31 (`TPL-UNIT-001`).
    pub length_unit: u32,
    /// The length of a token whose `length_units` is 0 (may be 0: a zero-length write).
    pub default_length: u32,
    /// The largest length a token may ask for, at most 2^31 (`TPL-LEN-001`).
    pub max_length: u32,
    /// WRITE_WITH_IMM: the immediate of slot `i` is `imm_base + i` modulo 2^32
    /// (`TPL-EXPAND-005`); ignored for WRITE.
    pub imm_base: u32,
    /// Flag slot of slot 0; slot `i` reports in `flag_base_slot + i` (`TPL-FLAG-001`).
    pub flag_base_slot: u32,
    /// Whether success also writes a completion entry (errors always do).
    pub signaled: bool,
}

/// Why a template may not be installed. Each variant names its requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "error", rename_all = "snake_case"))]
pub enum TemplateError {
    /// The template ID does not fit in 12 bits.
    #[error("[TPL-ID-001] template ID {template_id} does not fit in 12 bits")]
    IdOutOfRange {
        /// The ID found.
        template_id: TemplateId,
    },
    /// QPs 0, 1 and 2 carry no RDMA Writes.
    #[error("[TPL-QPN-001] QP {qpn} is reserved and carries no RDMA Write")]
    ReservedQpn {
        /// The QPN found.
        qpn: Qpn,
    },
    /// The opcode is neither WRITE nor WRITE_WITH_IMM.
    #[error("[TPL-OPCODE-001] opcode {opcode} is neither WRITE nor WRITE_WITH_IMM")]
    UnknownOpcode {
        /// The opcode found.
        opcode: WrOpcode,
    },
    /// The slot count is 0 or above 65536.
    #[error("[TPL-SLOTS-001] slot count {slots} is not between 1 and 65536")]
    SlotsOutOfRange {
        /// The slot count found.
        slots: u32,
    },
    /// The length unit is not a power of two, or is above 2^31.
    #[error("[TPL-UNIT-001] length unit {length_unit} is not a power of two from 1 to 2^31")]
    BadLengthUnit {
        /// The length unit found.
        length_unit: u32,
    },
    /// The maximum length is above 2^31.
    #[error("[TPL-LEN-001] max_length {max_length} is above 2^31")]
    MaxLengthTooLarge {
        /// The maximum found.
        max_length: u32,
    },
    /// The default length is above the maximum.
    #[error("[TPL-LEN-002] default_length {default_length} is above max_length {max_length}")]
    DefaultAboveMax {
        /// The default length.
        default_length: u32,
        /// The maximum.
        max_length: u32,
    },
    /// A region passes the end of the 64-bit address space.
    #[error("[TPL-REGION-001] the {side} region passes the end of the address space")]
    RegionWraps {
        /// Which region.
        side: Side,
    },
    /// The last slot at the default length does not fit in a region.
    #[error(
        "[TPL-REGION-002] the {side} region holds {region_len} bytes, but the last slot at the default length needs {need}"
    )]
    SlotsExceedRegion {
        /// Which region.
        side: Side,
        /// `(slots − 1) × stride + default_length`, saturated at 2^64 − 1.
        need: u64,
        /// The region's length.
        region_len: u64,
    },
    /// The flag slots pass 2^32 − 1.
    #[error("[TPL-FLAG-001] flag slots {flag_base_slot} + {slots} pass 2^32")]
    FlagSlotsWrap {
        /// The first flag slot.
        flag_base_slot: u32,
        /// The slot count.
        slots: u32,
    },
}

impl TemplateError {
    /// The requirement ID the template breaks.
    pub const fn requirement(&self) -> &'static str {
        match self {
            TemplateError::IdOutOfRange { .. } => "TPL-ID-001",
            TemplateError::ReservedQpn { .. } => "TPL-QPN-001",
            TemplateError::UnknownOpcode { .. } => "TPL-OPCODE-001",
            TemplateError::SlotsOutOfRange { .. } => "TPL-SLOTS-001",
            TemplateError::BadLengthUnit { .. } => "TPL-UNIT-001",
            TemplateError::MaxLengthTooLarge { .. } => "TPL-LEN-001",
            TemplateError::DefaultAboveMax { .. } => "TPL-LEN-002",
            TemplateError::RegionWraps { .. } => "TPL-REGION-001",
            TemplateError::SlotsExceedRegion { .. } => "TPL-REGION-002",
            TemplateError::FlagSlotsWrap { .. } => "TPL-FLAG-001",
        }
    }
}

impl Template {
    /// Checks every `TPL-*` rule, in the order the errors are listed; the first broken
    /// rule is returned. The NIC installs only a template that passes (`TPL-INSTALL-001`).
    pub fn validate(&self) -> Result<(), TemplateError> {
        if !self.template_id.fits_token() {
            return Err(TemplateError::IdOutOfRange { template_id: self.template_id });
        }
        if self.qpn.value() <= 2 {
            return Err(TemplateError::ReservedQpn { qpn: self.qpn });
        }
        if !self.opcode.is_known() {
            return Err(TemplateError::UnknownOpcode { opcode: self.opcode });
        }
        if self.slots == 0 || self.slots > MAX_SLOTS {
            return Err(TemplateError::SlotsOutOfRange { slots: self.slots });
        }
        if !self.length_unit.is_power_of_two() || self.length_unit > MAX_MESSAGE_LEN {
            return Err(TemplateError::BadLengthUnit { length_unit: self.length_unit });
        }
        if self.max_length > MAX_MESSAGE_LEN {
            return Err(TemplateError::MaxLengthTooLarge { max_length: self.max_length });
        }
        if self.default_length > self.max_length {
            return Err(TemplateError::DefaultAboveMax {
                default_length: self.default_length,
                max_length: self.max_length,
            });
        }
        for (side, base, len, stride) in [
            (Side::Local, self.local_base, self.local_region_len, self.local_stride),
            (Side::Remote, self.remote_base, self.remote_region_len, self.remote_stride),
        ] {
            if base.checked_add(len).is_none() {
                return Err(TemplateError::RegionWraps { side });
            }
            let need =
                u128::from(self.slots - 1) * u128::from(stride) + u128::from(self.default_length);
            if need > u128::from(len) {
                let need = u64::try_from(need).unwrap_or(u64::MAX);
                return Err(TemplateError::SlotsExceedRegion { side, need, region_len: len });
            }
        }
        if self.flag_base_slot.checked_add(self.slots - 1).is_none() {
            return Err(TemplateError::FlagSlotsWrap {
                flag_base_slot: self.flag_base_slot,
                slots: self.slots,
            });
        }
        Ok(())
    }

    /// Whether a token naming `template` may use this template: same ID, enabled and valid
    /// (`DB-TEMPLATE-001`, `TPL-INSTALL-001`).
    pub fn usable_for(&self, template: TemplateId) -> bool {
        self.enabled && self.template_id == template && self.validate().is_ok()
    }

    /// The token a producer writes for slot `index` with sequence number `seq`;
    /// `length_units` 0 selects the default length.
    pub const fn token(&self, seq: u16, index: u16, length_units: u16) -> DoorbellToken {
        DoorbellToken::new(self.template_id, seq, index, length_units)
    }

    /// The `length_units` that ask for exactly `length` bytes, if there are such: `length`
    /// a non-zero multiple of `length_unit` with at most 65535 units. (A producer that
    /// wants the default length writes 0.)
    pub const fn length_units_for(&self, length: u32) -> Option<u16> {
        if self.length_unit == 0 || length == 0 || length % self.length_unit != 0 {
            return None;
        }
        let units = length / self.length_unit;
        if units > u16::MAX as u32 { None } else { Some(units as u16) }
    }

    /// The stateless checks of a token against this template, then its expansion
    /// (`TPL-EXPAND-001` to `TPL-EXPAND-007`): version, template (ID, enabled, valid),
    /// index, length. The sequence check, which needs NIC state, is [`check_seq`];
    /// [`accept_doorbell`] runs every check in the order of `DB-ORDER-001`.
    pub fn expand(&self, token: &DoorbellToken) -> Result<WorkRequest, DoorbellReject> {
        token.check_version()?;
        if !self.usable_for(token.template) {
            return Err(DoorbellReject::UnknownTemplate { template: token.template });
        }
        self.expand_slot(token)
    }

    /// Index and length checks and the expansion, for a template already known to be
    /// usable for the token (so every sum below stays in range: `TPL-REGION-*`,
    /// `TPL-FLAG-001`).
    fn expand_slot(&self, token: &DoorbellToken) -> Result<WorkRequest, DoorbellReject> {
        let index = token.index;
        if u32::from(index) >= self.slots {
            return Err(DoorbellReject::IndexOutOfRange { index, slots: self.slots });
        }
        let length: u64 = if token.length_units == 0 {
            self.default_length.into()
        } else {
            u64::from(token.length_units) * u64::from(self.length_unit)
        };
        if length > u64::from(self.max_length) {
            return Err(DoorbellReject::LengthOutOfRange {
                length,
                bound: LengthBound::MaxLength,
                limit: self.max_length.into(),
            });
        }
        // TPL-EXPAND-002 and -003, with DB-LENGTH-003 and -004.
        let local_va = slot_va(
            self.local_base,
            self.local_region_len,
            self.local_stride,
            index,
            length,
            LengthBound::LocalRegion,
        )?;
        let remote_va = slot_va(
            self.remote_base,
            self.remote_region_len,
            self.remote_stride,
            index,
            length,
            LengthBound::RemoteRegion,
        )?;
        Ok(WorkRequest {
            wr_id: token.to_u64(),
            qpn: self.qpn,
            opcode: self.opcode,
            local_va,
            lkey: self.local_lkey,
            remote_va,
            rkey: self.remote_rkey,
            // TPL-EXPAND-004. length <= max_length <= 2^31 (TPL-LEN-001), so it fits.
            length: length as u32,
            imm: if self.opcode == WrOpcode::WRITE_WITH_IMM {
                Some(self.imm_base.wrapping_add(index.into()))
            } else {
                None
            },
            // TPL-EXPAND-006.
            flag_slot: self.flag_base_slot.wrapping_add(index.into()),
            signaled: self.signaled,
        })
    }
}

/// `base + index × stride`, after checking that `length` bytes from there stay inside the
/// region `[base, base + region_len)` (`DB-LENGTH-003`, `DB-LENGTH-004`).
fn slot_va(
    base: u64,
    region_len: u64,
    stride: u64,
    index: u16,
    length: u64,
    bound: LengthBound,
) -> Result<u64, DoorbellReject> {
    let offset = u128::from(index) * u128::from(stride);
    let room = u128::from(region_len).saturating_sub(offset);
    if u128::from(length) > room {
        return Err(DoorbellReject::LengthOutOfRange {
            length,
            bound,
            limit: u64::try_from(room).unwrap_or(u64::MAX),
        });
    }
    // offset <= region_len and base + region_len <= 2^64 (TPL-REGION-001): no wrap.
    Ok(base.wrapping_add(offset as u64))
}

/// The NIC's whole decision on one doorbell token, as a pure function
/// (`DB-ORDER-001`): version, template, sequence, index, length; the first failing check
/// gives the rejection, and a token that passes them all becomes one work request
/// (`DB-ACCEPT-001`).
///
/// `template` is the template installed under `token.template`, if any (the model's table
/// lookup); `expected_seq` is the sequence number the NIC holds for it. On `Ok` the caller
/// advances `expected_seq` by one (modulo 2^16) and executes the request; on `Err` it
/// changes nothing and writes the error completion (`DB-REJECT-001`).
pub fn accept_doorbell(
    token: &DoorbellToken,
    template: Option<&Template>,
    expected_seq: u16,
) -> Result<WorkRequest, DoorbellReject> {
    token.check_version()?;
    let t = match template {
        Some(t) if t.usable_for(token.template) => t,
        _ => return Err(DoorbellReject::UnknownTemplate { template: token.template }),
    };
    check_seq(expected_seq, token.seq)?;
    t.expand_slot(token)
}

#[cfg(test)]
impl Template {
    /// The example template of the specification.
    pub(crate) fn example() -> Template {
        Template {
            template_id: TemplateId::new(5),
            enabled: true,
            qpn: Qpn::new(0x123),
            opcode: WrOpcode::WRITE_WITH_IMM,
            local_base: 0x7f00_0000_0000,
            local_lkey: Lkey::new(0x1111),
            local_region_len: 0x10_0000,
            remote_base: 0x2000_0000,
            remote_rkey: Rkey::new(0x2222),
            remote_region_len: 0x10_0000,
            slots: 256,
            local_stride: 0x1000,
            remote_stride: 0x1000,
            length_unit: 64,
            default_length: 4096,
            max_length: 16384,
            imm_base: 0xab00_0000,
            flag_base_slot: 0x100,
            signaled: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Msn;
    use crate::host::{CompletionRepr, CompletionStatus, FlagRepr};
    use alloc::string::ToString;
    use alloc::vec::Vec;

    fn t() -> Template {
        Template::example()
    }

    #[test]
    fn example_expands_as_the_specification_says() {
        let tok = DoorbellToken::from_u64(0x1005_0010_0003_0000);
        let wr = t().expand(&tok).unwrap();
        assert_eq!(
            wr,
            WorkRequest {
                wr_id: 0x1005_0010_0003_0000,
                qpn: Qpn::new(0x123),
                opcode: WrOpcode::WRITE_WITH_IMM,
                local_va: 0x7f00_0000_3000,
                lkey: Lkey::new(0x1111),
                remote_va: 0x2000_3000,
                rkey: Rkey::new(0x2222),
                length: 4096,
                imm: Some(0xab00_0003),
                flag_slot: 0x103,
                signaled: true,
            }
        );
        assert_eq!(accept_doorbell(&tok, Some(&t()), 0x10), Ok(wr));
        // The completion traces back to the doorbell.
        let cqe = CompletionRepr::for_request(&wr, CompletionStatus::SUCCESS, Msn::new(0x42));
        assert_eq!(DoorbellToken::from_u64(cqe.wr_id), tok);
        assert_eq!(
            FlagRepr::sender(tok.seq, CompletionStatus::SUCCESS, wr.length).to_u64(),
            0x0010_0080_0000_1000
        );
        // With explicit units: 128 x 64 = 8192 bytes from slot 3.
        let wr = t().expand(&t().token(0x11, 3, 128)).unwrap();
        assert_eq!(wr.length, 8192);
        assert_eq!(wr.wr_id, 0x1005_0011_0003_0080);
        // A plain WRITE carries no immediate.
        let plain = Template { opcode: WrOpcode::WRITE, ..t() };
        assert_eq!(plain.expand(&tok).unwrap().imm, None);
    }

    /// Every hex string of the "Worked examples" section of `spec/host-interface.md`.
    #[test]
    fn spec_worked_examples() {
        use crate::host::{CompletionRepr, FlagRepr, retirement_slot};
        let hex =
            |b: &[u8]| b.iter().map(|x| alloc::format!("{x:02x}")).collect::<Vec<_>>().join(" ");
        let tmpl = t();

        // Example 1: default length.
        let tok = DoorbellToken::new(TemplateId::new(5), 0x10, 3, 0);
        assert_eq!(tok.to_u64(), 0x1005_0010_0003_0000);
        assert_eq!(hex(&tok.to_bytes()), "00 00 03 00 10 00 05 10");
        let wr = accept_doorbell(&tok, Some(&tmpl), 0x10).unwrap();
        let mut wqe = [0u8; 64];
        wr.emit(&mut wqe).unwrap();
        assert_eq!(
            hex(&wqe),
            "00 00 03 00 10 00 05 10 01 03 00 00 23 01 00 00 \
             00 30 00 00 00 7f 00 00 11 11 00 00 00 10 00 00 \
             00 30 00 20 00 00 00 00 22 22 00 00 03 00 00 ab \
             03 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
        );
        let flag = FlagRepr::sender(tok.seq, CompletionStatus::SUCCESS, wr.length);
        assert_eq!(flag.to_u64(), 0x0010_0080_0000_1000);
        assert_eq!(hex(&flag.to_bytes()), "00 10 00 00 80 00 10 00");
        let cqe = CompletionRepr::for_request(&wr, CompletionStatus::SUCCESS, Msn::new(0x42))
            .with_timestamp(123_456)
            .with_phase(true);
        let mut b = [0u8; 32];
        cqe.emit(&mut b).unwrap();
        assert_eq!(
            hex(&b),
            "00 00 03 00 10 00 05 10 00 01 04 00 23 01 00 00 \
             00 10 00 00 00 00 00 00 40 e2 01 00 42 00 00 01"
        );
        let err = FlagRepr::sender(tok.seq, CompletionStatus::RETRY_EXCEEDED, wr.length);
        assert_eq!(err.to_u64(), 0x0010_1080_0000_0000);
        assert_eq!(hex(&err.to_bytes()), "00 00 00 00 80 10 10 00");

        // Example 2: explicit length units.
        let tok = DoorbellToken::new(TemplateId::new(5), 0x11, 3, 0x80);
        assert_eq!(hex(&tok.to_bytes()), "80 00 03 00 11 00 05 10");
        let wr = accept_doorbell(&tok, Some(&tmpl), 0x11).unwrap();
        assert_eq!((wr.length, wr.local_va, wr.remote_va), (8192, 0x7f00_0000_3000, 0x2000_3000));

        // Example 3: a rejection.
        let tok = DoorbellToken::new(TemplateId::new(5), 0x12, 0xFF, 0x41);
        assert_eq!(hex(&tok.to_bytes()), "41 00 ff 00 12 00 05 10");
        let r = accept_doorbell(&tok, Some(&tmpl), 0x12).unwrap_err();
        assert_eq!(
            r,
            DoorbellReject::LengthOutOfRange {
                length: 4160,
                bound: LengthBound::LocalRegion,
                limit: 4096
            }
        );
        let cqe = CompletionRepr::for_reject(tok.to_u64(), Some(&tmpl), r).with_phase(true);
        cqe.emit(&mut b).unwrap();
        assert_eq!(
            hex(&b),
            "41 00 ff 00 12 00 05 10 06 01 00 00 23 01 00 00 \
             00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01"
        );

        // Example 4: the receiver, QP 0x456, flags at 0x200, 64 slots.
        assert_eq!(retirement_slot(0x200, 64, Msn::new(7)), Some(0x207));
        let f = FlagRepr::retired(Msn::new(7), 4096);
        assert_eq!(hex(&f.to_bytes()), "00 10 00 00 80 00 07 00");
        let rx = CompletionRepr::receive(Qpn::new(0x456), 4096, 0xab00_0003, Msn::new(7))
            .with_phase(true);
        rx.emit(&mut b).unwrap();
        assert_eq!(
            hex(&b),
            "00 00 00 00 00 00 00 00 00 01 03 00 56 04 00 00 \
             00 10 00 00 03 00 00 ab 00 00 00 00 07 00 00 01"
        );
        assert_eq!(retirement_slot(0x200, 64, Msn::new(0x47)), Some(0x207));
        let next = FlagRepr::retired(Msn::new(0x47), 2048);
        assert_eq!(hex(&next.to_bytes()), "00 08 00 00 80 00 47 00");
        assert!(!f.matches(0x47) && next.matches(0x47));
    }

    #[test]
    fn example_template_is_valid_and_tight() {
        assert_eq!(t().validate(), Ok(()));
        // The last slot at the default length ends exactly at the end of each region.
        let wr = t().expand(&t().token(0, 255, 0)).unwrap();
        assert_eq!(wr.local_va + u64::from(wr.length), 0x7f00_0000_0000 + 0x10_0000);
        assert_eq!(wr.remote_va + u64::from(wr.length), 0x2000_0000 + 0x10_0000);
    }

    #[test]
    fn every_rejection() {
        let tmpl = t();
        let ok = tmpl.token(0, 3, 0);
        // BadVersion: 0 and 2..=15.
        for version in [0u8, 2, 15] {
            let tok = DoorbellToken { version, ..ok };
            let r = accept_doorbell(&tok, Some(&tmpl), 0).unwrap_err();
            assert_eq!(r, DoorbellReject::BadVersion { version });
            assert_eq!(tmpl.expand(&tok), Err(r));
        }
        // UnknownTemplate: none installed, disabled, a different ID, an invalid template.
        let unknown = DoorbellReject::UnknownTemplate { template: TemplateId::new(5) };
        assert_eq!(accept_doorbell(&ok, None, 0), Err(unknown));
        let disabled = Template { enabled: false, ..tmpl };
        assert_eq!(accept_doorbell(&ok, Some(&disabled), 0), Err(unknown));
        assert_eq!(disabled.expand(&ok), Err(unknown));
        let other = Template { template_id: TemplateId::new(6), ..tmpl };
        assert_eq!(other.expand(&ok), Err(unknown));
        let invalid = Template { length_unit: 3, ..tmpl };
        assert_eq!(accept_doorbell(&ok, Some(&invalid), 0), Err(unknown));
        // StaleSeq and SeqGap.
        assert_eq!(
            accept_doorbell(&tmpl.token(4, 3, 0), Some(&tmpl), 5),
            Err(DoorbellReject::StaleSeq { expected: 5, got: 4 })
        );
        assert_eq!(
            accept_doorbell(&tmpl.token(6, 3, 0), Some(&tmpl), 5),
            Err(DoorbellReject::SeqGap { expected: 5, got: 6 })
        );
        // IndexOutOfRange: index == slots.
        let r = tmpl.expand(&tmpl.token(0, 256, 0)).unwrap_err();
        assert_eq!(r, DoorbellReject::IndexOutOfRange { index: 256, slots: 256 });
        assert_eq!(r.status(), CompletionStatus::INDEX_OUT_OF_RANGE);
        // LengthOutOfRange, max_length: 257 units of 64 = 16448 > 16384.
        assert_eq!(
            tmpl.expand(&tmpl.token(0, 0, 257)),
            Err(DoorbellReject::LengthOutOfRange {
                length: 16448,
                bound: LengthBound::MaxLength,
                limit: 16384
            })
        );
        assert!(tmpl.expand(&tmpl.token(0, 0, 256)).is_ok());
        // LengthOutOfRange, local region: slot 255 has 4096 bytes of room.
        assert_eq!(
            tmpl.expand(&tmpl.token(0, 255, 65)),
            Err(DoorbellReject::LengthOutOfRange {
                length: 4160,
                bound: LengthBound::LocalRegion,
                limit: 4096
            })
        );
        assert!(tmpl.expand(&tmpl.token(0, 255, 64)).is_ok());
        // LengthOutOfRange, remote region: a remote region smaller than the local one.
        let small_remote = Template { remote_stride: 0x800, remote_region_len: 0x8_0000, ..tmpl };
        let small_remote = Template { default_length: 0x800, ..small_remote };
        assert_eq!(small_remote.validate(), Ok(()));
        assert_eq!(
            small_remote.expand(&small_remote.token(0, 255, 33)),
            Err(DoorbellReject::LengthOutOfRange {
                length: 2112,
                bound: LengthBound::RemoteRegion,
                limit: 2048
            })
        );
    }

    #[test]
    fn checks_run_in_the_specified_order() {
        let tmpl = t();
        // Everything wrong: the version wins.
        let all_bad = DoorbellToken {
            version: 0,
            template: TemplateId::new(5),
            seq: 9,
            index: 999,
            length_units: 999,
        };
        assert!(matches!(
            accept_doorbell(&all_bad, Some(&tmpl), 0),
            Err(DoorbellReject::BadVersion { .. })
        ));
        // Then the template, before the sequence.
        let tok = DoorbellToken { version: 1, ..all_bad };
        assert!(matches!(
            accept_doorbell(&tok, None, 0),
            Err(DoorbellReject::UnknownTemplate { .. })
        ));
        // Then the sequence, before index and length.
        assert!(matches!(
            accept_doorbell(&tok, Some(&tmpl), 0),
            Err(DoorbellReject::SeqGap { .. })
        ));
        // Then the index, before the length.
        assert!(matches!(
            accept_doorbell(&tok, Some(&tmpl), 9),
            Err(DoorbellReject::IndexOutOfRange { .. })
        ));
        // Then the maximum length, before the regions.
        let tok = DoorbellToken { index: 255, ..tok };
        assert!(matches!(
            accept_doorbell(&tok, Some(&tmpl), 9),
            Err(DoorbellReject::LengthOutOfRange { bound: LengthBound::MaxLength, .. })
        ));
        // Local region before remote region.
        let tok = DoorbellToken { length_units: 65, ..tok };
        let both_small = Template {
            remote_stride: 0x800,
            remote_region_len: 0x8_0000,
            default_length: 0x800,
            ..tmpl
        };
        assert!(matches!(
            accept_doorbell(&tok, Some(&both_small), 9),
            Err(DoorbellReject::LengthOutOfRange { bound: LengthBound::LocalRegion, .. })
        ));
    }

    #[test]
    fn a_stream_of_tokens_across_the_seq_wrap() {
        // The NIC-side loop the model runs: expected advances only on acceptance.
        let tmpl = t();
        let mut expected: u16 = 0xFFFE;
        let mut accepted = Vec::new();
        let script: [(u16, bool); 7] = [
            (0xFFFE, true),
            (0xFFFE, false), // duplicate: StaleSeq
            (0xFFFF, true),
            (0x0001, false), // 0x0000 lost: SeqGap
            (0x0000, true),  // resent: accepted
            (0x0001, true),
            (0xFFFF, false), // replay from before the wrap: StaleSeq
        ];
        for (i, (seq, want)) in script.into_iter().enumerate() {
            let tok = tmpl.token(seq, (i % 256) as u16, 0);
            match accept_doorbell(&tok, Some(&tmpl), expected) {
                Ok(wr) => {
                    assert!(want, "step {i} accepted");
                    expected = expected.wrapping_add(1);
                    accepted.push(wr.wr_id);
                }
                Err(r) => {
                    assert!(!want, "step {i} rejected: {r}");
                    let cqe = CompletionRepr::for_reject(tok.to_u64(), Some(&tmpl), r);
                    assert_eq!(cqe.qpn, tmpl.qpn);
                    assert_eq!(cqe.opcode, tmpl.opcode);
                    assert!(cqe.status.is_doorbell_reject());
                }
            }
        }
        assert_eq!(expected, 2);
        assert_eq!(accepted.len(), 4);
    }

    #[test]
    fn zero_length_default_and_zero_stride() {
        let signal = Template {
            default_length: 0,
            local_stride: 0,
            local_region_len: 0x1000,
            opcode: WrOpcode::WRITE,
            ..t()
        };
        assert_eq!(signal.validate(), Ok(()));
        let wr = signal.expand(&signal.token(0, 200, 0)).unwrap();
        assert_eq!((wr.length, wr.local_va), (0, 0x7f00_0000_0000));
        assert_eq!(wr.remote_va, 0x2000_0000 + 200 * 0x1000);
        // Every slot sends the same 4 KiB buffer; more does not fit.
        assert!(signal.expand(&signal.token(0, 7, 64)).is_ok());
        assert!(matches!(
            signal.expand(&signal.token(0, 7, 65)),
            Err(DoorbellReject::LengthOutOfRange { bound: LengthBound::LocalRegion, .. })
        ));
    }

    #[test]
    fn every_template_error() {
        let cases: [(Template, &str); 13] = [
            (Template { template_id: TemplateId::new(0x1000), ..t() }, "TPL-ID-001"),
            (Template { qpn: Qpn::new(2), ..t() }, "TPL-QPN-001"),
            (Template { opcode: WrOpcode(2), ..t() }, "TPL-OPCODE-001"),
            (Template { slots: 0, ..t() }, "TPL-SLOTS-001"),
            (Template { slots: MAX_SLOTS + 1, ..t() }, "TPL-SLOTS-001"),
            (Template { length_unit: 0, ..t() }, "TPL-UNIT-001"),
            (Template { length_unit: 96, ..t() }, "TPL-UNIT-001"),
            (Template { max_length: MAX_MESSAGE_LEN + 1, ..t() }, "TPL-LEN-001"),
            (Template { default_length: 16385, ..t() }, "TPL-LEN-002"),
            (Template { local_base: u64::MAX - 0xF_FFFF, ..t() }, "TPL-REGION-001"),
            (Template { slots: 257, ..t() }, "TPL-REGION-002"),
            (Template { remote_stride: 0x1001, ..t() }, "TPL-REGION-002"),
            (Template { flag_base_slot: u32::MAX - 254, ..t() }, "TPL-FLAG-001"),
        ];
        for (tmpl, id) in cases {
            let e = tmpl.validate().unwrap_err();
            assert_eq!(e.requirement(), id, "{e}");
            assert!(e.to_string().starts_with(&alloc::format!("[{id}]")), "{e}");
            // A template that fails validation is never usable.
            assert!(!tmpl.usable_for(tmpl.template_id));
        }
        assert_eq!(
            Template { slots: 257, ..t() }.validate(),
            Err(TemplateError::SlotsExceedRegion {
                side: Side::Local,
                need: 0x10_1000,
                region_len: 0x10_0000
            })
        );
        // The edges that are allowed.
        assert_eq!(Template { local_base: u64::MAX - 0x10_0000, ..t() }.validate(), Ok(()));
        assert_eq!(Template { flag_base_slot: u32::MAX - 255, ..t() }.validate(), Ok(()));
        assert_eq!(Template { length_unit: 1 << 31, ..t() }.validate(), Ok(()));
        assert_eq!(Template { qpn: Qpn::new(3), ..t() }.validate(), Ok(()));
        let huge = Template { local_stride: u64::MAX, ..t() };
        assert!(matches!(
            huge.validate(),
            Err(TemplateError::SlotsExceedRegion { side: Side::Local, need: u64::MAX, .. })
        ));
    }

    #[test]
    fn length_units_for_a_length() {
        assert_eq!(t().length_units_for(8192), Some(128));
        assert_eq!(t().length_units_for(100), None);
        assert_eq!(t().length_units_for(0), None);
        let unit1 = Template { length_unit: 1, ..t() };
        assert_eq!(unit1.length_units_for(65535), Some(65535));
        assert_eq!(unit1.length_units_for(65536), None);
    }

    #[test]
    fn random_tokens_never_panic_and_accepted_requests_stay_inside_the_regions() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5450_4C00);
        let templates = [
            t(),
            Template { local_stride: 0, default_length: 0, ..t() },
            Template {
                slots: MAX_SLOTS,
                length_unit: 1,
                local_stride: 1,
                remote_stride: 1,
                local_region_len: u64::from(MAX_SLOTS) + 100,
                remote_region_len: u64::from(MAX_SLOTS) + 100,
                default_length: 1,
                max_length: 200,
                local_base: u64::MAX - u64::from(MAX_SLOTS) - 100,
                ..t()
            },
        ];
        for tmpl in &templates {
            assert_eq!(tmpl.validate(), Ok(()));
            for _ in 0..3000 {
                let mut tok = DoorbellToken::from_u64(rng.next_u64());
                if rng.next_u32() % 2 == 0 {
                    tok.version = 1;
                    tok.template = tmpl.template_id;
                }
                if rng.next_u32() % 2 == 0 {
                    tok.index %= 300;
                    tok.length_units %= 300;
                }
                let Ok(wr) = accept_doorbell(&tok, Some(tmpl), tok.seq) else { continue };
                assert_eq!(tmpl.expand(&tok), Ok(wr));
                let l = u128::from(wr.length);
                let (lb, rb) = (u128::from(tmpl.local_base), u128::from(tmpl.remote_base));
                assert!(u128::from(wr.local_va) >= lb);
                assert!(u128::from(wr.local_va) + l <= lb + u128::from(tmpl.local_region_len));
                assert!(u128::from(wr.remote_va) >= rb);
                assert!(u128::from(wr.remote_va) + l <= rb + u128::from(tmpl.remote_region_len));
                assert!(wr.length <= tmpl.max_length);
                assert_eq!(wr.flag_slot, tmpl.flag_base_slot + u32::from(tok.index));
                let mut out = Vec::new();
                wr.validate(0, &mut out);
                assert!(out.is_empty(), "{out:?}");
            }
        }
    }

    #[cfg(feature = "arbitrary")]
    #[test]
    fn arbitrary_templates_never_panic() {
        use arbitrary::{Arbitrary, Unstructured};
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5450_4C01);
        let mut raw = [0u8; 256];
        for _ in 0..2000 {
            rng.fill_bytes(&mut raw);
            let mut u = Unstructured::new(&raw);
            let tmpl = Template::arbitrary(&mut u).unwrap();
            let tok = DoorbellToken::arbitrary(&mut u).unwrap();
            let _ = tmpl.validate();
            let _ = accept_doorbell(&tok, Some(&tmpl), tok.seq);
            if let Ok(wr) = tmpl.expand(&tok) {
                assert_eq!(tmpl.validate(), Ok(()));
                assert!(wr.length <= tmpl.max_length);
            }
        }
    }
}
