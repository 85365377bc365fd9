// mrc_rx_window: the receive window and its bitmap (receiver section 3: RCV-WIN-001 to
// RCV-WIN-003, RCV-DUP-001; the SACK's bitmap and counts, RCV-SACK-005, RCV-SACK-007).
//
// Per QP: `epsn` and a bitmap of MAX_MPR * 128 bits kept aligned on epsn (bit i = PSN
// epsn + i), so that accepting a PSN sets its bit and shifts the bitmap right past the run
// of received PSNs at its front in the same cycle, and a SACK's 64-bit bitmap is bits 63:0.
// `ones` counts the bits set (the received PSNs beyond cack_psn, CCS-OOO-001).
//
// The checks select a QP with `qi`; classification of `psn` is combinational, `accept`
// takes effect at the clock edge.
//
// Deliberate bugs, for the suite to catch:
//   BUG_WINDOW_SLIDES      a PSN accepted ahead of epsn drags epsn to it (SETH-CACK-001)
//   BUG_BITMAP_OFF_BY_ONE  the SACK's bitmap starts one PSN late (SETH-BITMAP-002)
`default_nettype none
module mrc_rx_window #(
    parameter NUM_QPS = 4,
    parameter MAX_MPR = 2
) (
    input  wire        clk,
    input  wire        rst,
    input  wire [6:0]  cfg_mpr,
    // QP creation: epsn = the peer's initial PSN
    input  wire        init,
    input  wire [3:0]  init_qi,
    input  wire [23:0] init_epsn,
    // the selected QP
    input  wire [3:0]  qi,
    input  wire [23:0] psn,
    output wire [23:0] epsn,
    output wire        is_dup,
    output wire        is_oow,
    output wire [23:0] offset,     // psn - epsn, for a new PSN
    input  wire        accept,     // mark `offset` received and slide
    output wire [63:0] sack_bitmap,
    output wire [14:0] ooo_count,
    output wire [24*NUM_QPS-1:0] epsn_all   // every QP's epsn, for transport ACKs
);
    localparam W = MAX_MPR * 128;

    reg [W-1:0]  bits [0:NUM_QPS-1];
    reg [23:0]   ep   [0:NUM_QPS-1];
    reg [15:0]   ones [0:NUM_QPS-1];

    wire [W-1:0] cur = bits[qi];
    assign epsn = ep[qi];
    wire [23:0] d = psn - ep[qi];              // distance, 24-bit serial arithmetic
    wire [23:0] window = {10'd0, cfg_mpr, 7'd0}; // mpr * 128
    assign offset = d;
    // BTH-PSN-002: a PSN exactly 2^23 ahead is after epsn, not behind it.
    wire behind = d[23] && d != 24'h800000;
    assign is_dup = behind || (d < window && cur[d[$clog2(W)-1:0]]);
    assign is_oow = !behind && d >= window;

`ifdef BUG_BITMAP_OFF_BY_ONE
    assign sack_bitmap = cur[64:1];
`else
    assign sack_bitmap = cur[63:0];
`endif
    assign ooo_count = ones[qi] > 16'h7FFF ? 15'h7FFF : ones[qi][14:0];

    // the run of ones at the front, after setting the new bit
    wire [W-1:0] setb = cur | ({{(W-1){1'b0}}, 1'b1} << d[$clog2(W)-1:0]);
    reg [$clog2(W):0] run;
    integer i;
    always @* begin
        run = 0;
        for (i = W - 1; i >= 0; i = i - 1)
            if (!setb[i]) run = i[$clog2(W):0];
        if (&setb) run = W[$clog2(W):0];
    end

    genvar gq;
    generate
        for (gq = 0; gq < NUM_QPS; gq = gq + 1) begin : eall
            assign epsn_all[24*gq +: 24] = ep[gq];
        end
    endgenerate

    integer q;
    always @(posedge clk) begin
        if (rst) begin
            for (q = 0; q < NUM_QPS; q = q + 1) begin
                bits[q] <= {W{1'b0}};
                ep[q] <= 24'd0;
                ones[q] <= 16'd0;
            end
        end else if (init) begin
            bits[init_qi] <= {W{1'b0}};
            ep[init_qi] <= init_epsn;
            ones[init_qi] <= 16'd0;
        end else if (accept) begin
`ifdef BUG_WINDOW_SLIDES
            // the lanes that let a later PSN reach the bitmap first drag epsn with it
            bits[qi] <= setb >> (d[$clog2(W)-1:0] + 1);
            ep[qi] <= psn + 24'd1;
            ones[qi] <= 16'd0;
`else
            bits[qi] <= setb >> run;
            ep[qi] <= ep[qi] + {{(23 - $clog2(W)){1'b0}}, run};
            ones[qi] <= ones[qi] + 16'd1 - {{(15 - $clog2(W)){1'b0}}, run};
`endif
        end
    end
endmodule
`default_nettype wire
