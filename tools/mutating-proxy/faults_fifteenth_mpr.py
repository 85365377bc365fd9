"""The faults of the fifteenth reading, responder side: a probe answer whose cack_psn no
QP state gives, which passed where the answer's trigger, a probe_id, does not hang on
cack_psn.

Each fault is one bug a NIC team could ship. `faults.py` imports this module last, so the
helpers it uses are defined.
"""

from mods import fault, out_frames


m = fault("probe-answer-cack-23bit",
          "The probe answer block keeps its own copy of the cumulative-ACK register, 23 bits "
          "wide: a probe answer's SETH cack_psn and BTH psn lose bit 23, while SACKs for "
          "writes are right.",
          ["SETH-CACK-001", "RCV-SACK-005", "OPC-PSN-002", "PETH-RESP-001"])


@out_frames(m, ("probe-answer",))
def _(ctx, f, item):
    f.set("seth", "cack_psn", f.get("seth", "cack_psn") & 0x7FFFFF)
    f.set("bth", "psn", f.get("bth", "psn") & 0x7FFFFF)
