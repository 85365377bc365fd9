// mrc_icrc: the ICRC engine (wire-format chapter, ICRC-CALC-001, ICRC-COVER-001).
//
// CRC-32 of IEEE 802.3 (reflected, polynomial 0xEDB88320) over a beat of DW/8 bytes whose
// byte i is bits 8i+7:8i, one beat per cycle; `en` says which bytes count. `init` loads the
// state the 8 bytes of 0xFF that stand for RoCEv2's missing LRH leave, so the caller feeds
// only the IP packet, with the masked fields (ICRC-MASK-001) already replaced by ones. Two
// instances: one checks arriving frames, one seals the frames the responder sends.
//
// The CRC is linear, so every step below is a constant matrix over GF(2), precomputed by
// icrc_rows.py into mrc_icrc_rows.vh; each output bit is one XOR tree over the input bits
// its row selects. Nothing is unrolled bit by bit, and there is no shifter, so synthesis
// is quick. (Constant functions computing the same matrices made yosys slower still.)
`default_nettype none
module mrc_icrc #(
    parameter DW = 512  // beat width in bits: 64 or 512
) (
    input  wire            clk,
    input  wire            rst,
    input  wire            init,
    input  wire            valid,
    input  wire [DW-1:0]   data,
    input  wire [DW/8-1:0] en,
    output wire [31:0]     crc
);
    localparam DB = DW / 8;
    localparam [31:0] AFTER_FF8 = 32'hDEBB20E3;  // state after eight 0xFF bytes
    localparam NB = DB >= 64 ? 7 : DB >= 32 ? 6 : DB >= 16 ? 5 : DB >= 8 ? 4 : DB >= 4 ? 3
                  : DB >= 2 ? 2 : 1;  // bits of a byte count 0..DB

    // The CRC is linear: D (row o, DW bits: the data bits that flip bit o of the state, from
    // zero, after the whole beat), ZF and ZB (row o of step g at 1024 g + 32 o: the state
    // carried over 2^g zero bytes, and taken back over them), from icrc_rows.py.
`include "mrc_icrc_rows.vh"
    localparam [32*DW-1:0] D = DW == 512 ? D512 : D64;

    reg [31:0] state;

    // The bytes a beat includes are always a run of lanes (the stream's keep is a prefix,
    // and a frame's covered bytes one range). From a zero state, zeros in front of the run
    // add nothing, and the zeros after it carry the CRC of the run over them: so the CRC of
    // the run is D applied to the masked beat, taken back over the lanes after the run. The
    // old state is carried over the run's length. Both in log2(DB) steps, one per bit.
    reg [7:0] last, count;  // the run: its last lane, and how many lanes
    integer l;
    always @* begin
        last = 8'd0;
        count = 8'd0;
        for (l = 0; l < DB; l = l + 1) if (en[l]) last = l;
        for (l = 0; l < DB; l = l + 1) count = count + {7'd0, en[l]};
    end
    wire [7:0] after = DB - 1 - last;

    reg [DW-1:0] masked;
    always @* for (l = 0; l < DB; l = l + 1) masked[8*l +: 8] = en[l] ? data[8*l +: 8] : 8'd0;

    wire [31:0] base = init ? AFTER_FF8 : state;
    // the CRC of the run taken back over the lanes after it, and the old state carried over
    // the run's length: stage g + 1 (bits 32(g+1) +: 32) applies the matrix of 2^g bytes if
    // bit g of `after`, or of `count`, is set; stage 0 is D applied to the masked beat
    wire [32*NB+31:0] run /* verilator split_var */;
    wire [32*NB+31:0] car /* verilator split_var */;
    genvar g, o;
    generate
        for (o = 0; o < 32; o = o + 1) begin : g_beat
            assign run[o] = ^(masked & D[DW*o +: DW]);
        end
        assign car[31:0] = base;
        for (g = 0; g < NB; g = g + 1) begin : g_step
            wire [31:0] tr, tc;
            for (o = 0; o < 32; o = o + 1) begin : g_row
                assign tr[o] = ^(run[32*g +: 32] & ZB[1024*g + 32*o +: 32]);
                assign tc[o] = ^(car[32*g +: 32] & ZF[1024*g + 32*o +: 32]);
            end
            assign run[32*(g+1) +: 32] = after[g] ? tr : run[32*g +: 32];
            assign car[32*(g+1) +: 32] = count[g] ? tc : car[32*g +: 32];
        end
    endgenerate
    wire [31:0] next = count == 8'd0 ? base : car[32*NB +: 32] ^ run[32*NB +: 32];

    always @(posedge clk) begin
        if (rst) state <= AFTER_FF8;
        else if (init || valid) state <= valid ? next : base;
    end

    assign crc = ~state;
endmodule
`default_nettype wire
