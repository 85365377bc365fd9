//! Faults of the start state (the manifest's `start` table, `CONF-ADP-021`): a device that
//! claims `start-state` and does not start where the table says.

use openrdma_conformance::req;

use super::{Edits, Fault, fault};

/// Every start-state fault.
pub static FAULTS: &[Fault] = &[fault(
    "start-state-ignored",
    "the checkpoint-restore path is never wired to the counters: every domain's MSN counter and retirement pointer and every template's expected seq start at 0, whatever the start state says",
    &[req::CONF_ADP_021, req::RET_DOMAIN_003, req::SND_MSN_001, req::DB_SEQ_001],
    &["snd-msn-start-high", "snd-msn-start-wrap"],
    Edits { config: Some(|m| m.start = Default::default()), ..Edits::NONE },
)];
