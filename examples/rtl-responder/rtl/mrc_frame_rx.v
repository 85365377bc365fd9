// mrc_frame_rx: the frame parser (wire-format chapter sections 2 to 8; receiver RCV-FRAME-001).
//
// Takes frames from the MAC as a stream of DW-bit beats (512 by default, as a 100G MAC
// presents them; 64 is the other choice) with byte keep and last (byte i of a beat in bits
// 8i+7:8i, the first byte on the wire in bits 7:0), stores each in one of four
// packet-buffer slots, and decodes it: Ethernet, an 802.1Q or 802.1ad tag, IPv4 (with
// options) or IPv6, UDP, BTH and the MRC extension headers the opcode calls for. While the
// frame streams in it checks the ICRC (with an mrc_icrc), the UDP checksum when it is not
// zero, and, from the header words, the IPv4 header checksum. A frame that is not a whole,
// sound RoCEv2 packet, or that the responder has no use for, comes out with `p_discard`
// set: the checks then take no action on it (RCV-FRAME-001, RCV-OPC-001).
//
// Pipeline: the stream goes through a delay line of DL beats so that the layout (where the
// IP, UDP and BTH headers start and the IP packet ends), registered from the header words
// that hold the first 24 bytes, is known for every byte the ICRC and checksum see (DL is 5
// beats of 8 bytes, 3 of 64). After the last beat: the line drains (DL cycles), then two
// evaluation cycles (layout, then fields and verdict).
`default_nettype none
module mrc_frame_rx #(
    parameter DW        = 512, // beat width in bits (64 or 512)
    parameter SLOT_AW   = 13 - $clog2(DW / 8),  // words per packet-buffer slot (8 KiB)
    parameter SLOTS_W   = 2,   // 2^SLOTS_W slots: frames received while earlier ones are placed
    parameter HDR_BYTES = 160  // header bytes kept in registers (rounded up to whole beats)
) (
    input  wire                 clk,
    input  wire                 rst,
    // frames from the MAC
    input  wire [DW-1:0]        s_tdata,
    input  wire [DW/8-1:0]      s_tkeep,
    input  wire                 s_tlast,
    input  wire                 s_tvalid,
    output wire                 s_tready,
    // the decoded packet, held until p_done
    output reg                  p_valid,
    input  wire                 p_done,
    output reg  [SLOTS_W-1:0]   p_slot,
    output reg                  p_discard,
    output reg  [3:0]           p_reason,
    output reg  [7:0]           p_opcode,
    output reg  [23:0]          p_dest_qp,
    output reg  [23:0]          p_psn,
    output reg                  p_ack_req,
    output reg                  p_rtx,
    output reg  [15:0]          p_ts,        // TSETH or PETH tx_timestamp, 0 without
    output reg  [15:0]          p_msn,
    output reg  [15:0]          p_rqmsn,
    output reg  [63:0]          p_va,
    output reg  [31:0]          p_rkey,
    output reg  [31:0]          p_dma_len,
    output reg  [31:0]          p_imm,
    output reg  [15:0]          p_probe_id,
    output reg  [15:0]          p_payload_len,
    output reg  [15:0]          p_payload_off,  // byte offset of the payload in the frame
    output reg  [31:0]          p_ev,
    // slots: freed by placement (or the checks) when nothing more reads them
    input  wire [(1<<SLOTS_W)-1:0] slot_free,
    // packet-buffer read port, for placement (one cycle of latency)
    input  wire [SLOT_AW+SLOTS_W-1:0] pb_raddr,
    output reg  [DW-1:0]        pb_rdata
);
    localparam DB = DW / 8;                          // bytes a beat
    localparam LB = $clog2(DB);
    localparam HDR_WORDS = (HDR_BYTES + DB - 1) / DB;
    localparam DL = 23 / DB + 3;                     // delay line: the layout's beats, and 2
    // discard reasons (for logs and waveforms)
    localparam R_NONE = 4'd0, R_DECODE = 4'd1, R_NOT_ROCE = 4'd2, R_IPV4_CKSUM = 4'd3,
               R_UDP_CKSUM = 4'd4, R_ICRC = 4'd5, R_OPCODE = 4'd6, R_NOT_OURS = 4'd7,
               R_TOO_LONG = 4'd8;

    localparam S_IDLE = 3'd0, S_RECV = 3'd1, S_FLUSH = 3'd2, S_EVAL1 = 3'd3, S_EVAL2 = 3'd4,
               S_HOLD = 3'd5;

    reg [2:0] state;
    reg [DW-1:0] pbuf [0:(1 << (SLOT_AW + SLOTS_W)) - 1];
    reg [DW-1:0] hdr [0:HDR_WORDS - 1];
    reg [(1<<SLOTS_W)-1:0] busy;  // slot holds a packet not yet freed
    reg [SLOTS_W-1:0] wslot;      // slot being written
    reg [15:0] wcnt;         // beats received
    reg [15:0] flen;         // bytes received
    reg overflow;            // the frame did not fit its slot

    // ---- header bytes as one vector, byte k at bits 8k+7:8k -------------------------------
    wire [DW*HDR_WORDS-1:0] hv;
    genvar g;
    generate
        for (g = 0; g < HDR_WORDS; g = g + 1) begin : hvec
            assign hv[DW*g +: DW] = hdr[g];
        end
    endgenerate

    function [7:0] hb;  // header byte n
        input [DW*HDR_WORDS-1:0] v;
        input integer n;
        begin
            hb = v[8*n +: 8];
        end
    endfunction

    // ---- layout, from the header words (registered every cycle) ---------------------------
    wire [15:0] et0  = {hb(hv, 12), hb(hv, 13)};
    wire        tag  = et0 == 16'h8100 || et0 == 16'h88A8;
    wire [15:0] et   = tag ? {hb(hv, 16), hb(hv, 17)} : et0;
    wire [7:0]  l3   = tag ? 8'd18 : 8'd14;
    wire [8*60-1:0] ipv = hv >> (8 * l3);
    wire        is4  = et == 16'h0800;
    wire        is6  = et == 16'h86DD;
    wire [7:0]  hl   = is6 ? 8'd40 : {2'b00, ipv[3:0], 2'b00};
    wire [15:0] iplen = is6 ? 16'd40 + {ipv[39:32], ipv[47:40]} : {ipv[23:16], ipv[31:24]};
    wire [15:0] ip_end = {8'd0, l3} + iplen;
    wire [15:0] udp_at = {8'd0, l3} + {8'd0, hl};
    wire [15:0] bth_at = udp_at + 16'd8;

    reg [7:0]  L_l3;
    reg        L_is4, L_is6;
    reg [15:0] L_ip_end, L_udp_at, L_bth_at;
    always @(posedge clk) begin
        L_l3 <= l3;
        L_is4 <= is4;
        L_is6 <= is6;
        L_ip_end <= ip_end;
        L_udp_at <= udp_at;
        L_bth_at <= bth_at;
    end
    wire [15:0] L_icrc_at = L_ip_end - 16'd4;

    // ---- the stream ---------------------------------------------------------------------
    assign s_tready = state == S_RECV || (state == S_IDLE && !busy[wslot]);
    wire take = s_tvalid && s_tready;

    function [7:0] popcount;  // bytes a keep says
        input [DB-1:0] k;
        integer i;
        begin
            popcount = 8'd0;
            for (i = 0; i < DB; i = i + 1) popcount = popcount + {7'd0, k[i]};
        end
    endfunction

    // the delay line
    reg [DW-1:0] dl_data [0:DL-1];
    reg [DB-1:0] dl_keep [0:DL-1];
    reg [15:0]   dl_idx  [0:DL-1];
    reg [DL-1:0] dl_vld;
    reg [2:0]    flush_cnt;
    wire shift = take || state == S_FLUSH;
    wire [DW-1:0] o_data = dl_data[DL-1];
    wire [DB-1:0] o_keep = dl_keep[DL-1];
    wire [15:0]   o_base = dl_idx[DL-1] << LB;
    wire          o_vld  = dl_vld[DL-1] && shift;

    // per byte of the beat leaving the line: ICRC coverage, masking, the trailer, UDP sum
    reg [DW-1:0] cdata;
    reg [DB-1:0] cen;
    reg [31:0] usum_beat;
    integer i;
    reg [15:0] pos;
    reg [7:0]  b;
    always @* begin
        cdata = o_data;
        cen = {DB{1'b0}};
        usum_beat = 32'd0;
        for (i = 0; i < DB; i = i + 1) begin
            pos = o_base + i[15:0];
            b = o_data[8*i +: 8];
            if (o_keep[i] && pos >= {8'd0, L_l3} && pos < L_icrc_at) cen[i] = 1'b1;
            // ICRC-MASK-001: the variant fields count as ones
            if (L_is6) begin
                if (pos == {8'd0, L_l3}) b = b | 8'h0F;
                if (pos == {8'd0, L_l3} + 16'd1 || pos == {8'd0, L_l3} + 16'd2 ||
                    pos == {8'd0, L_l3} + 16'd3 || pos == {8'd0, L_l3} + 16'd7) b = 8'hFF;
            end else begin
                if (pos == {8'd0, L_l3} + 16'd1 || pos == {8'd0, L_l3} + 16'd8 ||
                    pos == {8'd0, L_l3} + 16'd10 || pos == {8'd0, L_l3} + 16'd11) b = 8'hFF;
            end
            if (pos == L_udp_at + 16'd6 || pos == L_udp_at + 16'd7 || pos == L_bth_at + 16'd4)
                b = 8'hFF;
            cdata[8*i +: 8] = b;
            // the UDP datagram, as big-endian 16-bit words (udp_at is even)
            if (o_keep[i] && pos >= L_udp_at && pos < L_ip_end)
                usum_beat = usum_beat + (i[0] ? {24'd0, o_data[8*i +: 8]}
                                               : {16'd0, o_data[8*i +: 8], 8'd0});
        end
    end

    wire [31:0] icrc_calc;
    reg         icrc_init;
    mrc_icrc #(.DW(DW)) u_icrc (
        .clk(clk), .rst(rst), .init(icrc_init), .valid(o_vld), .data(cdata), .en(cen),
        .crc(icrc_calc)
    );

    reg [31:0] icrc_found;
    reg [31:0] usum;
    integer k;
    always @(posedge clk) begin
        if (icrc_init) begin
            icrc_found <= 32'd0;
            usum <= 32'd0;
        end else if (o_vld) begin
            for (k = 0; k < DB; k = k + 1) begin
                if (o_keep[k] && o_base + k[15:0] >= L_icrc_at && o_base + k[15:0] < L_ip_end)
                    icrc_found[8*(o_base + k[15:0] - L_icrc_at) +: 8] <= o_data[8*k +: 8];
            end
            usum <= usum + usum_beat;
        end
    end

    // ---- evaluation ---------------------------------------------------------------------
    function [15:0] fold;
        input [31:0] s;
        reg [31:0] t;
        begin
            t = {16'd0, s[15:0]} + {16'd0, s[31:16]};
            t = {16'd0, t[15:0]} + {16'd0, t[31:16]};
            fold = t[15:0];
        end
    endfunction

    // stage 1: the structure (decode errors, whether it is RoCEv2 at all)
    reg        e_err, e_ignore, e_v4ok, e_udpok;
    reg [15:0] e_rest, e_ext;
    reg [7:0]  e_opcode;
    reg        e_ts;
    reg [1:0]  e_pad;
    reg [8*48-1:0] e_bth;  // BTH and the extension headers
    reg [15:0] e_srcport;
    reg [15:0] e_flow;

    wire [15:0] avail = flen - {8'd0, L_l3};
    wire [8*48-1:0] bthv = hv >> (8 * L_bth_at);
    wire [7:0] opc = bthv[7:0];
    wire       tsb = bthv[8*8 + 4];
    reg [15:0] ext_len;
    reg        known_opc;
    always @* begin
        known_opc = 1'b1;
        case (opc)
            8'hC6, 8'hC7, 8'hC8, 8'hCA: ext_len = tsb ? 16'd24 : 16'd20;
            8'hC9, 8'hCB:               ext_len = tsb ? 16'd28 : 16'd24;
            8'hD1:                      ext_len = 16'd4;
            8'hD8, 8'hDE:               ext_len = 16'd16;
            8'hD9:                      ext_len = 16'd36;
            8'hDC:                      ext_len = 16'd36;
            8'hDD:                      ext_len = 16'd20;
            default: begin
                ext_len = 16'd0;
                // RC, UD and CNP opcodes of the table decode, but are not MRC
                known_opc = opc <= 8'h14 || opc == 8'h16 || opc == 8'h17 || opc == 8'h64 ||
                            opc == 8'h65 || opc == 8'h81;
            end
        endcase
    end

    // the IPv4 header checksum over ihl words
    reg [31:0] v4sum;
    integer w;
    always @* begin
        v4sum = 32'd0;
        for (w = 0; w < 30; w = w + 1)
            if (w < {26'd0, ipv[3:0], 1'b0})
                v4sum = v4sum + {16'd0, ipv[16*w +: 8], ipv[16*w + 8 +: 8]};
    end

    // the UDP pseudo-header
    reg [31:0] pseudo;
    integer p;
    always @* begin
        pseudo = 32'd17 + {16'd0, iplen - {8'd0, hl}};
        if (L_is6) begin
            for (p = 0; p < 16; p = p + 1)
                pseudo = pseudo + {16'd0, ipv[8*(8 + 2*p) +: 8], ipv[8*(9 + 2*p) +: 8]};
        end else begin
            for (p = 0; p < 4; p = p + 1)
                pseudo = pseudo + {16'd0, ipv[8*(12 + 2*p) +: 8], ipv[8*(13 + 2*p) +: 8]};
        end
    end

    wire [8*8-1:0] udpv   = hv >> (8 * L_udp_at);
    wire [15:0] u_sport   = {udpv[7:0], udpv[15:8]};
    wire [15:0] u_dport   = {udpv[23:16], udpv[31:24]};
    wire [15:0] u_len     = {udpv[39:32], udpv[47:40]};
    wire [15:0] u_cksum   = {udpv[55:48], udpv[63:56]};
    wire [15:0] ip_payload = L_ip_end - L_udp_at;
    wire [15:0] body      = L_bth_at + 16'd12;

    // stage 2 registers the fields
    wire [8*48-1:0] x = e_bth;
    function [7:0] xb;
        input [8*48-1:0] v;
        input integer n;
        begin
            xb = v[8*n +: 8];
        end
    endfunction
    wire [4:0] t = e_ts ? 5'd4 : 5'd0;

    always @(posedge clk) begin
        if (rst) begin
            state <= S_IDLE;
            busy <= {(1<<SLOTS_W){1'b0}};
            wslot <= {SLOTS_W{1'b0}};
            p_valid <= 1'b0;
            dl_vld <= {DL{1'b0}};
            wcnt <= 16'd0;
            icrc_init <= 1'b1;
        end else begin
            icrc_init <= 1'b0;
            busy <= busy & ~slot_free;
            if (p_done) p_valid <= 1'b0;
            if (shift) begin
                dl_data[0] <= s_tdata;
                dl_keep[0] <= take ? s_tkeep : {DB{1'b0}};
                dl_idx[0] <= wcnt;
                dl_vld <= {dl_vld[DL-2:0], take};
                for (k = 1; k < DL; k = k + 1) begin
                    dl_data[k] <= dl_data[k-1];
                    dl_keep[k] <= dl_keep[k-1];
                    dl_idx[k] <= dl_idx[k-1];
                end
            end
            if (take) begin
                if (wcnt < (16'd1 << SLOT_AW)) pbuf[{wslot, wcnt[SLOT_AW-1:0]}] <= s_tdata;
                else overflow <= 1'b1;
                if (wcnt < HDR_WORDS) hdr[wcnt] <= s_tdata;
                wcnt <= wcnt + 16'd1;
                flen <= flen + {8'd0, popcount(s_tkeep)};
            end
            case (state)
                S_IDLE: if (take) begin
                    state <= s_tlast ? S_FLUSH : S_RECV;
                    flush_cnt <= 3'd0;
                    wcnt <= 16'd1;
                    flen <= {8'd0, popcount(s_tkeep)};
                    overflow <= 1'b0;
                end
                S_RECV: if (take && s_tlast) begin
                    state <= S_FLUSH;
                    flush_cnt <= 3'd0;
                end
                S_FLUSH: begin
                    flush_cnt <= flush_cnt + 3'd1;
                    if (flush_cnt == DL - 1) state <= S_EVAL1;
                end
                S_EVAL1: begin
                    // decode_into: each length must fit what came before it
                    e_err <= 1'b0;
                    e_ignore <= 1'b0;
                    if (flen < 16'd14 || (tag && flen < 16'd18)) e_err <= 1'b1;
                    else if (!is4 && !is6) e_ignore <= 1'b1;
                    else if (is4 && (flen < {8'd0, L_l3} + 16'd20 || ipv[7:4] != 4'd4 ||
                                     ipv[3:0] < 4'd5 || avail < {8'd0, hl} ||
                                     iplen > avail || iplen < {8'd0, hl}))
                        e_err <= 1'b1;
                    else if (is6 && (flen < {8'd0, L_l3} + 16'd40 || ipv[7:4] != 4'd6 ||
                                     iplen > avail))
                        e_err <= 1'b1;
                    else if (is4 && (ipv[53] || {ipv[52:48], ipv[63:56]} != 13'd0 ||
                                     ipv[79:72] != 8'd17))
                        e_ignore <= 1'b1;  // a fragment, or not UDP
                    else if (is6 && ipv[55:48] != 8'd17) e_ignore <= 1'b1;
                    else if (ip_payload < 16'd8 || u_len != ip_payload) e_err <= 1'b1;
                    else if (u_dport != 16'd4791) e_ignore <= 1'b1;
                    else if (L_ip_end < body + 16'd4) e_err <= 1'b1;
                    else if (known_opc && L_icrc_at - body < ext_len) e_err <= 1'b1;
                    else if ({14'd0, bthv[13:12]} > L_icrc_at - body - ext_len) e_err <= 1'b1;
                    e_v4ok <= !is4 || fold(v4sum) == 16'hFFFF;
                    e_udpok <= u_cksum == 16'd0 || fold(usum + pseudo) == 16'hFFFF;
                    e_ext <= ext_len;
                    e_rest <= L_icrc_at - body - ext_len - {14'd0, bthv[13:12]};
                    e_opcode <= known_opc ? opc : 8'hFF;
                    e_ts <= tsb;
                    e_pad <= bthv[13:12];
                    e_bth <= bthv;
                    e_srcport <= u_sport;
                    e_flow <= is6 ? {ipv[23:16], ipv[31:24]} : 16'd0;
                    state <= S_EVAL2;
                end
                S_EVAL2: if (!p_valid) begin
                    // discard_reason, in its order, then what the responder acts on
                    p_reason <= overflow ? R_TOO_LONG :
                                e_err ? R_DECODE :
                                e_ignore ? R_NOT_ROCE :
                                !e_v4ok ? R_IPV4_CKSUM :
                                !e_udpok ? R_UDP_CKSUM :
                                icrc_calc != icrc_found ? R_ICRC :
                                e_opcode == 8'hFF ? R_OPCODE :
                                !((e_opcode >= 8'hC6 && e_opcode <= 8'hCB) || e_opcode == 8'hDE)
                                    ? R_NOT_OURS : R_NONE;
                    p_discard <= overflow || e_err || e_ignore || !e_v4ok || !e_udpok ||
                                 icrc_calc != icrc_found ||
                                 !((e_opcode >= 8'hC6 && e_opcode <= 8'hCB) || e_opcode == 8'hDE);
                    p_opcode <= e_opcode;
                    p_dest_qp <= {xb(x, 5), xb(x, 6), xb(x, 7)};
                    p_ack_req <= x[8*8 + 7];
                    p_rtx <= x[8*8 + 5];
                    p_psn <= {xb(x, 9), xb(x, 10), xb(x, 11)};
                    p_rqmsn <= {xb(x, 12), xb(x, 13)};
                    p_msn <= {xb(x, 14), xb(x, 15)};
                    if (e_opcode == 8'hDE) begin
                        p_probe_id <= {xb(x, 16), xb(x, 17)};
                        p_ts <= {xb(x, 24), xb(x, 25)};
                    end else begin
                        p_probe_id <= 16'd0;
                        p_ts <= e_ts ? {xb(x, 16), xb(x, 17)} : 16'd0;
                    end
                    p_va <= {xb(x, 16 + t), xb(x, 17 + t), xb(x, 18 + t), xb(x, 19 + t),
                             xb(x, 20 + t), xb(x, 21 + t), xb(x, 22 + t), xb(x, 23 + t)};
                    p_rkey <= {xb(x, 24 + t), xb(x, 25 + t), xb(x, 26 + t), xb(x, 27 + t)};
                    p_dma_len <= {xb(x, 28 + t), xb(x, 29 + t), xb(x, 30 + t), xb(x, 31 + t)};
                    p_imm <= {xb(x, 32 + t), xb(x, 33 + t), xb(x, 34 + t), xb(x, 35 + t)};
                    p_payload_len <= e_rest;
                    p_payload_off <= body + e_ext;
                    p_ev <= {e_srcport, e_flow};
                    p_slot <= wslot;
                    p_valid <= 1'b1;
                    busy[wslot] <= 1'b1;
                    wslot <= wslot + 1'b1;
                    icrc_init <= 1'b1;
                    wcnt <= 16'd0;
                    state <= S_IDLE;
                end
                default: state <= S_IDLE;
            endcase
        end
    end

    always @(posedge clk) pb_rdata <= pbuf[pb_raddr];

endmodule
`default_nettype wire
