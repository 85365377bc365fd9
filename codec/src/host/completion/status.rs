//! The completion status codes, shared with the completion flag (CQE-STATUS-001).

use super::*;

/// The outcome of a work request or of a rejected doorbell token, as written in completion
/// entries and completion flags (requirement `CQE-STATUS-001`).
///
/// Lossless: every byte is a `CompletionStatus`; [`CompletionStatus::name`] is `None` for a
/// code the specification does not define. Codes are grouped: `0x00` success, `0x01..=0x0F`
/// a rejected doorbell token (the token never became a message), `0x10..=0x1F` an accepted
/// message that failed.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct CompletionStatus(pub u8);

macro_rules! statuses {
    ($( $(#[$doc:meta])* $konst:ident = $val:literal; )*) => {
        impl CompletionStatus {
            $( $(#[$doc])* pub const $konst: CompletionStatus = CompletionStatus($val); )*

            /// Every status the specification defines, in numeric order.
            pub const ALL: &'static [CompletionStatus] = &[$(CompletionStatus($val)),*];

            /// The name the specification uses, or `None` for an undefined code.
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    $( $val => Some(stringify!($konst)), )*
                    _ => None,
                }
            }
        }
    };
}

statuses! {
    /// The message was delivered and acknowledged (sender) or retired (receiver).
    SUCCESS = 0x00;
    /// Doorbell token with a version other than 1 (`DB-VERSION-001`).
    BAD_VERSION = 0x01;
    /// Doorbell token naming a template that is not installed or is disabled
    /// (`DB-TEMPLATE-001`).
    UNKNOWN_TEMPLATE = 0x02;
    /// Doorbell token whose seq is behind the expected one: replayed or duplicated
    /// (`DB-SEQ-002`).
    STALE_SEQ = 0x03;
    /// Doorbell token whose seq is ahead of the expected one: a token was lost or
    /// reordered (`DB-SEQ-003`).
    SEQ_GAP = 0x04;
    /// Doorbell token whose index is not below the template's slot count (`DB-INDEX-001`).
    INDEX_OUT_OF_RANGE = 0x05;
    /// Doorbell token whose length exceeds the template's maximum or a region
    /// (`DB-LENGTH-002`..`DB-LENGTH-004`).
    LENGTH_OUT_OF_RANGE = 0x06;
    /// The retry limit was reached without a transport ACK; the QP went to error.
    RETRY_EXCEEDED = 0x10;
    /// The responder answered with an AETH NAK "invalid request" (syndrome 0x61).
    REMOTE_INVALID_REQUEST = 0x11;
    /// The responder answered with an AETH NAK "remote access error" (syndrome 0x62).
    REMOTE_ACCESS_ERROR = 0x12;
    /// The responder answered with an AETH NAK "remote operation error" (syndrome 0x63).
    REMOTE_OP_ERROR = 0x13;
    /// The responder sent a fatal MRC NACK (`UNEXP_EVENT`, 0x19); the QP went to error.
    FATAL_NACK = 0x14;
    /// The message was accepted but never completed: its QP went to error first.
    FLUSHED = 0x15;
}

impl CompletionStatus {
    /// Whether this is [`CompletionStatus::SUCCESS`]. Every other code, known or not, is a
    /// failure (`CQE-STATUS-003`).
    pub const fn is_success(self) -> bool {
        self.0 == 0
    }

    /// Whether the code is one of the doorbell rejections (`0x01..=0x0F`).
    pub const fn is_doorbell_reject(self) -> bool {
        matches!(self.0, 0x01..=0x0F)
    }

    /// Whether the specification defines this code.
    pub const fn is_known(self) -> bool {
        self.name().is_some()
    }

    /// The status table 8 gives an AETH NAK 0x61, 0x62 or 0x63 (`CQE-STATUS-004`).
    /// `None` for every other syndrome: an ACK ends no message, and any other that is not
    /// an ACK (the PSN sequence error NAK 0x60, an RNR NAK, a reserved kind) ends it with
    /// REMOTE_OP_ERROR (`SND-ACK-006`), which the caller gives.
    pub const fn from_aeth_nak(syndrome: u8) -> Option<CompletionStatus> {
        match syndrome {
            0x61 => Some(CompletionStatus::REMOTE_INVALID_REQUEST),
            0x62 => Some(CompletionStatus::REMOTE_ACCESS_ERROR),
            0x63 => Some(CompletionStatus::REMOTE_OP_ERROR),
            _ => None,
        }
    }
}

impl fmt::Debug for CompletionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "CompletionStatus::{n}"),
            None => write!(f, "CompletionStatus({:#04x})", self.0),
        }
    }
}

impl fmt::Display for CompletionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "UNKNOWN({:#04x})", self.0),
        }
    }
}
