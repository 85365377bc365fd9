"""The faults of the fifteenth reading, latency of answers: a SACK that one write makes
due is sent later than one latency allows.

A SACK that a write makes due at once follows one latency (CONF-TIME-004): nothing the
runner re-times comes between the write and its answer. Each fault is one bug a NIC team
could ship.
`faults.py` imports this module last, so the helpers it uses are defined.
"""

from mods import delay, fault, frame_of, kind


m = fault("sack-builder-slow",
          "The SACK builder waits for a second pass over the receive bitmap: every SACK "
          "with pr 0 leaves three quarters of late_ns after the device made it.",
          ["RCV-SACK-001", "RCV-SACK-002"])


@m.hook("outputs")
def _(ctx, outs, m=m):
    for item in outs:
        f = frame_of(item)
        if f is not None and kind(f) == "sack" and not f.get("seth", "pr"):
            delay(ctx, item, ctx.late_ns * 3 // 4, m.name)
    return outs
