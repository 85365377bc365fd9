//! The sequence number a template expects (`DB-SEQ-001`), kept with the numbers a device
//! that breaks one rule of its keeping would expect instead.

use openrdma_codec::host::CompletionStatus;

use crate::req::*;

/// The sequence number a template expects (`DB-SEQ-001`), and the numbers a device that
/// breaks one rule of its keeping would expect instead, each with the rule it breaks and
/// when it last came to differ. A device that rejects, by its sequence number, a token
/// whose number is right is named by the rule whose number explains its answer, the one
/// that differed last; by `DB-SEQ-001` when none does.
#[derive(Debug, Clone, Copy)]
pub(super) struct Seqs {
    pub(super) expected: u16,
    wrong: [Wrong; 3],
}

/// The number a device that breaks `rule` expects, and since when it differs.
#[derive(Debug, Clone, Copy)]
struct Wrong {
    rule: Clause,
    seq: u16,
    since: u64,
}

impl Seqs {
    pub(super) fn new() -> Seqs {
        let w = |rule| Wrong { rule, seq: 0, since: 0 };
        // A rejected token that advances the number (DB-REJECT-001); an installation that
        // keeps it (TPL-INSTALL-003.b); re-enabling that resets it (TPL-INSTALL-003.a).
        Seqs { expected: 0, wrong: [w(DB_REJECT_001), w(TPL_INSTALL_003_B), w(TPL_INSTALL_003_A)] }
    }

    /// Sets the number that `rule`'s wrong device expects, at `at`.
    pub(super) fn set(&mut self, rule: Clause, seq: u16, at: u64) {
        let e = self.expected;
        for w in self.wrong.iter_mut().filter(|w| w.rule == rule) {
            if seq != w.seq && seq != e {
                w.since = at;
            }
            w.seq = seq;
        }
    }

    pub(super) fn of(&self, rule: Clause) -> u16 {
        self.wrong.iter().find(|w| w.rule == rule).map_or(self.expected, |w| w.seq)
    }

    /// A token accepted: every number advances.
    pub(super) fn accept(&mut self) {
        self.expected = self.expected.wrapping_add(1);
        for w in &mut self.wrong {
            w.seq = w.seq.wrapping_add(1);
        }
    }

    /// An installation under an ID in use: the number starts again at 0.
    pub(super) fn install(&mut self, at: u64) {
        let kept = self.of(TPL_INSTALL_003_B);
        *self = Seqs { wrong: self.wrong, ..Seqs::new() };
        for w in &mut self.wrong {
            w.seq = 0;
        }
        self.set(TPL_INSTALL_003_B, kept, at);
    }

    /// The rule a device broke that rejects as `got` a token with sequence number `seq`
    /// that this number accepts.
    pub(super) fn rule_of(&self, seq: u16, got: CompletionStatus) -> Clause {
        self.wrong
            .iter()
            .filter(|w| w.seq != self.expected)
            .filter(|w| {
                openrdma_codec::host::check_seq(w.seq, seq).err().map(|r| r.status()) == Some(got)
            })
            .max_by_key(|w| w.since)
            .map_or(DB_SEQ_001, |w| w.rule)
    }
}
