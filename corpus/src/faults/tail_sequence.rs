//! A fault that proves a tail probe takes the next per-EV sequence number of its EV
//! (`SND-TAIL-002`): its answer then judges every transmission before it on the EV, the
//! latest one too (`SND-TAIL-003`, `CONF-CMP-113`).

use openrdma_conformance::req;

use super::inference::{Bugs, Wrong};
use super::{Fault, stream};

/// Every fault of this family.
pub static FAULTS: &[Fault] = &[stream(
    "probe-no-ev-sequence",
    "a tail probe takes no per-EV sequence number of its own and the EV's counter stays \
     with its latest data transmission: the probe's answer judges the transmissions on \
     the EV before that one and spares it, the one the probe came after",
    &[req::SND_TAIL_002],
    &["snd-tail-probe-two-lost"],
    |m| Box::new(Wrong::new(Bugs { probe_takes_latest: true, ..Bugs::NONE }, m)),
)];
