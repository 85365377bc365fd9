#!/usr/bin/env python3
"""Writes a wrapper that lets one block of the responder be placed and routed on its own.

A block has hundreds of ports, far more than an FPGA package has pins. The wrapper feeds
every input of the block from a shift register driven by one pin, and folds every output
into one registered pin, so that the tool keeps all of the block's logic and times the
paths between its own registers.

    fmax_wrapper.py BLOCK [NAME=VALUE,...] FILE.v... > wrapper.v

The optional NAME=VALUE list overrides parameters of the block (a smaller packet buffer,
say, so that it fits the device's block RAM).
"""

import re
import sys


def ports(block, files, overrides):
    """The ports of module `block` as (direction, width) by name, with parameters at their
    defaults or overridden."""
    for path in files:
        text = open(path, encoding="utf-8").read()
        m = re.search(r"\bmodule\s+%s\b(.*?)\);" % re.escape(block), text, re.S)
        if not m:
            continue
        head = re.sub(r"//[^\n]*", "", m.group(1))
        params = dict(
            (k, v.strip())
            for k, v in re.findall(r"parameter\s+(\w+)\s*=\s*((?:[^,()\n]|\([^()\n]*\))+)", head)
        )
        params.update(overrides)
        # a default may name an earlier parameter: substitute until none is left
        for _ in range(len(params)):
            for k in params:
                for k2, v2 in params.items():
                    if k2 != k:
                        params[k] = re.sub(r"\b%s\b" % k2, "(%s)" % v2, params[k])
        body = head.split(")", 1)[1] if "#" in head else head
        out = []
        for d, rng, names in re.findall(
            r"\b(input|output)\s+(?:wire|reg)?\s*(\[[^\]]+\])?\s*([\w\s,]+?)(?=,\s*(?:input|output)\b|$)",
            body,
            re.S,
        ):
            width = 1
            if rng:
                hi, lo = rng[1:-1].split(":")
                expr = hi
                for k, v in params.items():
                    expr = re.sub(r"\b%s\b" % k, "(%s)" % v, expr)
                expr = expr.replace("$clog2", "clog2")
                width = eval(expr, {"clog2": lambda x: (int(x) - 1).bit_length()}) - int(lo) + 1
            for n in names.replace("\n", " ").split(","):
                n = n.strip()
                if n:
                    out.append((n, d, int(width)))
        return out
    sys.exit("module %s not found" % block)


def main():
    block, files = sys.argv[1], sys.argv[2:]
    overrides = {}
    if files and "=" in files[0]:
        overrides = dict(kv.split("=", 1) for kv in files.pop(0).split(","))
    ps = ports(block, files, overrides)
    ins = [(n, w) for n, d, w in ps if d == "input" and n not in ("clk", "rst")]
    outs = [(n, w) for n, d, w in ps if d == "output"]
    total = sum(w for _, w in ins) or 1
    print("module fmax_top (input wire clk, input wire rst, input wire din, output reg dout);")
    print("    reg [%d:0] sr;" % (total - 1))
    print("    always @(posedge clk) sr <= {sr[%d:0], din};" % max(total - 2, 0) if total > 1
          else "    always @(posedge clk) sr <= din;")
    for n, w in outs:
        print("    wire [%d:0] o_%s;" % (w - 1, n))
    conns = ["        .clk(clk)", "        .rst(rst)"]
    at = 0
    for n, w in ins:
        conns.append("        .%s(sr[%d:%d])" % (n, at + w - 1, at))
        at += w
    for n, _ in outs:
        conns.append("        .%s(o_%s)" % (n, n))
    params = ", ".join(".%s(%s)" % kv for kv in overrides.items())
    print("    %s %su_block (\n%s\n    );"
          % (block, "#(%s) " % params if params else "", ",\n".join(conns)))
    fold = " ^ ".join("(^o_%s)" % n for n, _ in outs) or "1'b0"
    print("    always @(posedge clk) dout <= %s;" % fold)
    print("endmodule")


if __name__ == "__main__":
    main()
