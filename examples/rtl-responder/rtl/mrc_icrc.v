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

    // The bytes a beat includes are always a run of lanes (the stream's keep is a prefix,
    // and a frame's covered bytes one range), so the run is shifted down to lane 0 and the
    // CRC of each possible length is a pure XOR network; the length picks one. This keeps
    // the logic a few XOR levels deep instead of eight bytes of serial steps.
    function [31:0] crc_bytes;
        input [31:0] c;
        input [63:0] d;
        input integer n;
        integer i, j;
        reg [31:0] x;
        begin
            x = c;
            for (i = 0; i < 8; i = i + 1) begin
                if (i < n) begin
                    x = x ^ {24'd0, d[8*i +: 8]};
                    for (j = 0; j < 8; j = j + 1)
                        x = (x >> 1) ^ (x[0] ? 32'hEDB88320 : 32'h0);
                end
            end
            crc_bytes = x;
        end
    endfunction

    reg [2:0] first;
    reg [3:0] count;
    integer l;
    always @* begin
        first = 3'd0;
        count = 4'd0;
        for (l = 7; l >= 0; l = l - 1) if (en[l]) first = l[2:0];
        for (l = 0; l < 8; l = l + 1) count = count + {3'd0, en[l]};
    end
    wire [63:0] run = data >> (8 * first);

    wire [31:0] base = init ? AFTER_FF8 : state;
    reg [31:0] next;
    always @* begin
        case (count)
            4'd1: next = crc_bytes(base, run, 1);
            4'd2: next = crc_bytes(base, run, 2);
            4'd3: next = crc_bytes(base, run, 3);
            4'd4: next = crc_bytes(base, run, 4);
            4'd5: next = crc_bytes(base, run, 5);
            4'd6: next = crc_bytes(base, run, 6);
            4'd7: next = crc_bytes(base, run, 7);
            4'd8: next = crc_bytes(base, run, 8);
            default: next = base;
        endcase
    end

    always @(posedge clk) begin
        if (rst) state <= AFTER_FF8;
        else if (init || valid) state <= valid ? next : base;
    end

    assign crc = ~state;
endmodule
`default_nettype wire
