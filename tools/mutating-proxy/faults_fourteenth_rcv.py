"""The faults of the fourteenth reading, responder side: SACK counters and offsets whose
change passed where the judge left a bound open.

A SACK is built after its trigger is accepted: its out-of-order count includes the trigger
even beyond the bitmap's reach. Each fault is one bug a NIC team could ship.
`faults.py` imports this module last, so the helpers it uses are defined.
"""

from mods import fault, out_frames


m = fault("sack-ooo-before-trigger",
          "The out-of-order counter is read for the SACK before the trigger's own update "
          "lands: a SACK whose trigger lies after cack_psn counts one PSN too few in "
          "CC_STATE ooo_count.",
          ["CCS-OOO-001", "RCV-SACK-007"])


@out_frames(m, ("sack",))
def _(ctx, f, item):
    off = f.get("seth", "ack_psn_offset")
    n = f.get("cc_state", "ooo_count")
    if f.get("seth", "pr") or off <= 0 or off == 0x7FFF or n == 0:
        return
    f.set("cc_state", "ooo_count", n - 1)
