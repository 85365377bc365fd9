// mrc_icrc: the ICRC engine (wire-format chapter, ICRC-CALC-001, ICRC-COVER-001).
//
// CRC-32 of IEEE 802.3 (reflected, polynomial 0xEDB88320) over a 64-bit beat whose byte i
// is bits 8i+7:8i, one beat per cycle; `en` says which bytes count. `init` loads the state
// the 8 bytes of 0xFF that stand for RoCEv2's missing LRH leave, so the caller feeds only the
// IP packet, with the masked fields (ICRC-MASK-001) already replaced by ones. Two instances:
// one checks arriving frames, one seals the frames the responder sends.
`default_nettype none
module mrc_icrc (
    input  wire        clk,
    input  wire        rst,
    input  wire        init,
    input  wire        valid,
    input  wire [63:0] data,
    input  wire [7:0]  en,
    output wire [31:0] crc
);
    localparam [31:0] AFTER_FF8 = 32'hDEBB20E3;  // state after eight 0xFF bytes

    reg [31:0] state;

    function [31:0] update;
        input [31:0] c;
        input [63:0] d;
        input [7:0]  e;
        integer i, j;
        reg [31:0] x;
        begin
            x = c;
            for (i = 0; i < 8; i = i + 1) begin
                if (e[i]) begin
                    x = x ^ {24'd0, d[8*i +: 8]};
                    for (j = 0; j < 8; j = j + 1)
                        x = (x >> 1) ^ (x[0] ? 32'hEDB88320 : 32'h0);
                end
            end
            update = x;
        end
    endfunction

    wire [31:0] base = init ? AFTER_FF8 : state;

    always @(posedge clk) begin
        if (rst) state <= AFTER_FF8;
        else if (init || valid) state <= valid ? update(base, data, en) : base;
    end

    assign crc = ~state;
endmodule
`default_nettype wire
