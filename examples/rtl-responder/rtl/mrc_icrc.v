// mrc_icrc: the ICRC engine (wire-format chapter, ICRC-CALC-001, ICRC-COVER-001).
//
// CRC-32 of IEEE 802.3 (reflected, polynomial 0xEDB88320) over a beat of DW/8 bytes whose
// byte i is bits 8i+7:8i, one beat per cycle; `en` says which bytes count. `init` loads the
// state the 8 bytes of 0xFF that stand for RoCEv2's missing LRH leave, so the caller feeds
// only the IP packet, with the masked fields (ICRC-MASK-001) already replaced by ones. Two
// instances: one checks arriving frames, one seals the frames the responder sends.
`default_nettype none
module mrc_icrc #(
    parameter DW = 512  // beat width in bits: 64 or 512 (any multiple of 8 up to 512)
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

    reg [31:0] state;

    // The bytes a beat includes are always a run of lanes (the stream's keep is a prefix,
    // and a frame's covered bytes one range). The CRC is linear: the state after n bytes M
    // is the old state carried over n zero bytes, XOR the CRC of M from a zero state. So the
    // run is shifted up to end in the last lane, the lanes before it zero (zeros in front add
    // nothing from a zero state): one XOR network over the whole beat serves every length.
    // The old state is carried over n zero bytes in log2(DB) steps, one per bit of n.
    function [31:0] crc_bytes;  // the state c after the `n` bytes of d, byte 0 first
        input [31:0] c;
        input [DW-1:0] d;
        input integer n;
        integer i, j;
        reg [31:0] x;
        begin
            x = c;
            for (i = 0; i < n; i = i + 1) begin
                x = x ^ {24'd0, d[8*i +: 8]};
                for (j = 0; j < 8; j = j + 1)
                    x = (x >> 1) ^ (x[0] ? 32'hEDB88320 : 32'h0);
            end
            crc_bytes = x;
        end
    endfunction

    reg [7:0] last, count;  // the run: its last lane, and how many lanes
    integer l;
    always @* begin
        last = 8'd0;
        count = 8'd0;
        for (l = 0; l < DB; l = l + 1) if (en[l]) last = l;
        for (l = 0; l < DB; l = l + 1) count = count + {7'd0, en[l]};
    end

    reg [DW-1:0] masked;
    always @* for (l = 0; l < DB; l = l + 1) masked[8*l +: 8] = en[l] ? data[8*l +: 8] : 8'd0;
    wire [DW-1:0] run_top = masked << (8 * (DB - 1 - last));
    wire [31:0] of_data = crc_bytes(32'd0, run_top, DB);

    wire [31:0] base = init ? AFTER_FF8 : state;
    // the old state carried over `count` zero bytes: a step of 2^b bytes for each bit b
    reg [31:0] carried;
    integer b;
    always @* begin
        carried = base;
        for (b = 0; (1 << b) <= DB; b = b + 1)
            if (count[b]) carried = crc_bytes(carried, {DW{1'b0}}, 1 << b);
    end
    wire [31:0] next = count == 8'd0 ? base : carried ^ of_data;

    always @(posedge clk) begin
        if (rst) state <= AFTER_FF8;
        else if (init || valid) state <= valid ? next : base;
    end

    assign crc = ~state;
endmodule
`default_nettype wire
