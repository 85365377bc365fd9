//! The freedoms: the clauses that leave a device a choice it shows at its boundary, and
//! the SHOULD and MAY clauses that leave it none.

use std::collections::BTreeSet;

use openrdma_conformance::req::*;
use openrdma_conformance::requirements::{Level, Subject};

/// The clauses that leave a device a choice inside a MUST or a comparison rule, each with
/// the choice it leaves. CONF-TIME-006 sets no lower bound on flags and completions, but
/// no legal device is earlier than the reference (conformance chapter, decision 11).
pub const CHOICES: &[(Clause, &str)] = &[
    (ENC_HOP_001_C, "any IPv4 ttl or IPv6 hop_limit from 64 to 255"),
    (SND_TS_002_C, "the origin and the unit (1 ns or more) of the timestamp clock"),
    (CONF_CMP_036, "nothing of a timestamp is compared but that its clock runs forward"),
    (CONF_CMP_026_A, "data packets are matched per QP: the order between QPs is free"),
    (CONF_CMP_026_B, "the VLAN priority and drop-eligible bit are not compared"),
    (CONF_CMP_026_C, "the entropy value is judged only by the EV states and the policy"),
    (CONF_CMP_026_D, "the other IP and UDP fields (DSCP, identification) are the device's"),
    (CONF_CMP_027_A, "any EV of the usable pool where the device's timing decides"),
    (CONF_CMP_029, "a probe may overtake a data packet of its QP sent at the same time"),
    (CONF_CMP_046_A, "a random policy's draws are its own: judged by their spread"),
    (CONF_CMP_048_A, "a round-robin or fixed choice may act on inputs up to late_ns / 2 late"),
    (CONF_CMP_048_B, "a skew-aware choice may take an acknowledgement up to late_ns / 2 late"),
    (CONF_CMP_049_A, "new data may go before a commanded probe taken up to late_ns / 2 late"),
    (CONF_CMP_007_B, "the number of SACKs: more, earlier or repeated"),
    (CONF_CMP_037_A, "transport ACKs may repeat an acknowledged MSN"),
    (CONF_CMP_045_C, "a SACK may leave out the PSNs received in the last late_ns"),
    (CONF_CMP_034_A, "the number, size and order of the DMA writes that place the bytes"),
    (CONF_CMP_034_B, "another message's bytes may land after a message's flag"),
    (CONF_CMP_009, "the four sequences of flags and completions interleave freely"),
    (CONF_CMP_060, "the sender flags of two QPs come in either order"),
    (CONF_CMP_092_A, "the retirement flags of two domains come in either order"),
    (CONF_CMP_092_B, "the entries of QPs no queue or domain ties come in either order"),
    (CONF_CMP_044_B, "up to one output per byte placed, besides the fixed allowance"),
    (CONF_CMP_012_B, "a device without retirement writes no flags, completions or ACKs"),
    (CONF_CMP_012_C, "a device without cpu-split is not judged on its reports"),
    (CONF_CMP_020_A, "the reports that depend on the device's paths and timing"),
    (CONF_DEV_005, "a device claims only the capabilities it has"),
    (CONF_ADP_017_B, "a completion written to a queue may come without its decoded entry"),
    (CONF_TIME_004, "each output up to late_ns / 2 later than the reference's"),
    (CONF_CMP_110_B, "an Armed before a Progress that counts outstanding PSNs"),
    (CONF_CMP_110_C, "a QP's reports of one instant that no step orders, in either order"),
];

/// The SHOULD and MAY clauses of a device that leave it no choice it can show at its
/// boundary, each with the reason (wire-format chapter, decisions 41 and 42; sender
/// chapter, decision 23).
pub const NOT_FREE: &[(Clause, &str)] = &[
    (SETH_TYPE_001_A, "a device sends a SETH only in a SACK, where RCV-SACK-005.h requires 0"),
    (SETH_PDC_001_A, "a device sends a SETH only in a SACK, where RCV-SACK-005.h requires 0"),
    (SETH_CC_001_A, "a device sends a SETH only in a SACK, where RCV-SACK-005.h requires 0"),
    (PETH_FTYPE_001_A, "a device sends a PETH only in a probe, where EV-PROBE-005.g requires 1"),
    // Sender chapter, decision 23.
    (SND_RTX_002_C, "a retransmission that may go is due (SND-SCHED-001): the reuse is forced"),
    // Wire-format chapter, decision 42.
    (EETH_STATUS_001_B, "a device that claims endpoint implements every defined operation"),
];

/// Every freedom: each leaf SHOULD or MAY clause of a device or its CPU half but those of
/// [`NOT_FREE`], and the clauses of [`CHOICES`].
pub fn freedoms() -> BTreeSet<Clause> {
    Clause::all()
        .filter(|c| {
            c.is_leaf()
                && matches!(c.level(), Level::Should | Level::May)
                && matches!(c.subject(), Subject::Device | Subject::CpuHalf)
                && !NOT_FREE.iter().any(|(n, _)| n == c)
        })
        .chain(CHOICES.iter().map(|(c, _)| *c))
        .collect()
}
