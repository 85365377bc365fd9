//! Faults of the host interface from a fifth reading of its chapter as a bug list: a
//! token's length taken from another register, a token of a template disabled at its
//! instant rejected with the status of a check it passes, a completion queue found full
//! with a slot free. Each proves a class of the judge's naming.

use std::collections::HashMap;

use openrdma_codec::TemplateId;
use openrdma_codec::host::{CompletionStatus, DoorbellToken, Template};
use openrdma_conformance::req;
use openrdma_device::{HostCommand, Input, Output, TimedInput, TimedOutput};

use super::templates::{Misreports, Reason, rewrite_entry};
use super::{Batch, Edits, Fault, Stream, fault};

/// Every fault of the fifth reading of the host interface.
pub static FAULTS: &[Fault] = &[
    fault(
        "zero-units-max-length",
        "a token with length_units 0 asks for the template's max_length instead of its default_length",
        &[req::DB_LENGTH_001, req::DB_ACCEPT_001],
        &["db-template-change"],
        Edits { stream: Some(|_| Box::<ZeroUnitsMax>::default()), ..Edits::NONE },
    ),
    fault(
        "disabled-template-as-bad-version",
        "a token naming a disabled template is rejected as BadVersion",
        &[req::DB_TEMPLATE_001],
        &["db-template-change"],
        Edits {
            stream: Some(|_| {
                Box::new(Misreports::new(Reason::Template, CompletionStatus::BAD_VERSION))
            }),
            per_input: true,
            ..Edits::NONE
        },
    ),
    fault(
        "consumer-count-one-short",
        "the free-slot test reads the consumer register one entry short, so a completion queue is found full with a slot still free",
        &[req::CQE_RING_004_B],
        &["ret-cq-wrap", "rcv-cq-receive"],
        Edits { host_in: Some(one_short), ..Edits::NONE },
    ),
    fault(
        "token-index-15-bits",
        "the index field of a token is decoded as 15 bits: a token for slot 32768 or above acts on slot index - 32768",
        &[
            req::TPL_EXPAND_003,
            req::TPL_EXPAND_002,
            req::TPL_EXPAND_005,
            req::TPL_EXPAND_006,
            req::DB_ACCEPT_001,
        ],
        &["db-fields-high"],
        Edits { host_in: Some(index_15_bits), ..Edits::NONE },
    ),
];

/// A token as a decoder that drops bit 15 of the index reads it.
fn index_15_bits(c: &mut HostCommand) {
    if let HostCommand::Doorbell { token } = c {
        *token &= !(1 << 31);
    }
}

/// The consumer register as a device that counts one entry too few holds it.
fn one_short(c: &mut HostCommand) {
    if let HostCommand::CqConsumer { consumed, .. } = c {
        *consumed = consumed.saturating_sub(1);
    }
}

/// Gives the device, for each token of length_units 0, the token that asks for its
/// template's max_length, and writes the stored token back into its completions: the
/// length multiplexer selects the wrong register, the wr_id comes from the register.
#[derive(Debug, Default)]
struct ZeroUnitsMax {
    templates: HashMap<TemplateId, Template>,
    /// The token the device took, to the token stored.
    stored: HashMap<u64, u64>,
}

impl ZeroUnitsMax {
    fn misread(&self, token: u64) -> Option<u64> {
        let tok = DoorbellToken::from_u64(token);
        let t = self.templates.get(&tok.template)?;
        if tok.length_units != 0 || t.max_length == t.default_length {
            return None;
        }
        let units = u16::try_from(t.max_length / t.length_unit.max(1)).ok()?;
        let exact = t.max_length % t.length_unit.max(1) == 0;
        (exact && units != 0).then(|| DoorbellToken { length_units: units, ..tok }.to_u64())
    }
}

impl Stream for ZeroUnitsMax {
    fn inputs(&mut self, mut inputs: Vec<TimedInput>) -> Vec<TimedInput> {
        for i in &mut inputs {
            match &mut i.input {
                Input::Host { command: HostCommand::SetTemplate(t) } => {
                    self.templates.insert(t.template_id, *t);
                }
                Input::Host { command: HostCommand::Doorbell { token } } => {
                    if let Some(taken) = self.misread(*token) {
                        self.stored.insert(taken, *token);
                        *token = taken;
                    }
                }
                _ => {}
            }
        }
        inputs
    }

    fn outputs(&mut self, mut outputs: Vec<TimedOutput>, _: Batch<'_>) -> Vec<TimedOutput> {
        for o in &mut outputs {
            if let Output::Event { event } = &mut o.output {
                rewrite_entry(event, |c| {
                    if let Some(&stored) = self.stored.get(&c.wr_id) {
                        c.wr_id = stored;
                    }
                });
            }
        }
        outputs
    }
}
