"""The faults of the fifteenth reading, retirement side: a retirement table that checks
retirement but places an MSN's offset from the next MSN wrong (RET-CAP-002).

Each is one bug a NIC team could ship: the write it misplaces is placed, where the
table should have called it retired and discarded it. `faults.py` imports this module
last, so the helpers it uses are defined.
"""

from faults_ninth import msn_offset, note_retired
from faults import rx5_place_rejected, rx5_answered
from mods import fault


def place_retired(m, pred):
    """The write is placed when the device rejected it without an answer and `pred`
    holds of its MSN and of its offset from the domain's next MSN (RCV-CHECK-001: a NAK
    or NACK answers a check made before the MSN's)."""
    def placed(ctx, w, outs, m=m):
        o = msn_offset(ctx, m, w, outs)
        return (o is not None and o[0] >= 0x8000 and pred(w["msn"] & 0xFFFF, o[0])
                and not rx5_answered(ctx, w, outs, ("nak", "nack")))
    rx5_place_rejected(m, placed)
    note_retired(m)


m = fault("rcv-msn-offset-no-modulo",
          "The retirement table takes an MSN's offset from the next MSN as a plain signed "
          "difference, without the modulo 2^16: a new PSN of a retired message just behind "
          "the pointer has a negative offset, passes for pending and is placed.",
          ["RET-CAP-002", "FLAG-LAST-002", "RCV-REJECT-001"])
# The next MSN is the MSN less its offset, modulo 2^16; below it as a plain number.
place_retired(m, lambda msn, off: msn < ((msn - off) & 0xFFFF))


m = fault("rcv-msn-offset-half-gap",
          "The retired range is taken as offsets above 2^15 and the range beyond the table "
          "as offsets from C below 2^15: an MSN exactly 2^15 after the next one falls in "
          "neither, passes for pending and is placed.",
          ["RET-CAP-002", "FLAG-LAST-002", "RCV-REJECT-001"])
place_retired(m, lambda msn, off: off == 0x8000)
