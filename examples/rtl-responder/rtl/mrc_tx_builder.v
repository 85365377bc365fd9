// mrc_tx_builder: the responder's frames — SACK, NACK, transport ACK and NAK — built whole
// in RTL with their ICRC (receiver RCV-SACK-005 to -007, RCV-NACK-001, RCV-ACK-002,
// RCV-NAK-002; wire format: ENC-ETH-*, ENC-VLAN-*, ENC-IPV4-*, ENC-IPV6-*, ENC-UDP-*,
// ENC-EV-001/002, BTH-*, SETH-*, CCS-*, NETH-*, AETH-*, ICRC-CALC-001).
//
// The checks push a descriptor (what to say); this block lays the frame out from the link's
// configuration (MACs, 802.1Q tag, IPv4 or IPv6 addresses), carries the EV in the UDP
// source port and, over IPv6, the flow label, fills the IPv4 header checksum, computes the
// ICRC over the IP packet with its variant fields masked (an mrc_icrc, one beat a cycle),
// then over IPv6 the UDP checksum of the datagram including the ICRC, and sends the frame
// on the port the EV's upper half chooses, as a stream of DW-bit beats with keep and last.
// A frame is at most 128 bytes: 16 beats of 8 bytes, or 2 of 64.
//
// Deliberate bug: BUG_ICRC_NO_MASK feeds the ICRC the masked fields as they are sent.
`default_nettype none
module mrc_tx_builder #(
    parameter DW  = 512,  // beat width in bits (64 or 512)
    parameter QAW = 3
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          cfg_ipv6,
    input  wire          cfg_vlan,
    input  wire [11:0]   cfg_vid,
    input  wire [2:0]    cfg_ports,
    input  wire [47:0]   cfg_lmac,
    input  wire [47:0]   cfg_pmac,
    input  wire [127:0]  cfg_lip,
    input  wire [127:0]  cfg_pip,
    // descriptors
    input  wire          t_push,
    output wire [QAW:0]  t_free,
    input  wire [1:0]    t_kind,     // 0 SACK, 1 NACK, 2 transport ACK or NAK
    input  wire [23:0]   t_dqp,      // the peer QP
    input  wire [23:0]   t_psn,      // BTH PSN
    input  wire [31:0]   t_ev,
    input  wire [15:0]   t_aoff,     // SACK ack_psn_offset
    input  wire          t_pr,
    input  wire [23:0]   t_cack,
    input  wire [7:0]    t_mpr,
    input  wire [63:0]   t_bitmap,
    input  wire [15:0]   t_ts,       // reflected timestamp (CC_STATE or NETH)
    input  wire [14:0]   t_ooo,
    input  wire [23:0]   t_rcvd,
    input  wire [7:0]    t_reason,   // NACK reason
    input  wire [7:0]    t_syn,      // AETH syndrome
    input  wire [23:0]   t_amsn,     // AETH msn (also NACK psn)
    // frames to the MAC
    output reg  [DW-1:0] m_tdata,
    output reg  [DW/8-1:0] m_tkeep,
    output reg           m_tlast,
    output reg           m_tvalid,
    output reg  [2:0]    m_tport,
    input  wire          m_tready,
    output wire          idle
);
    localparam DB = DW / 8;  // bytes a beat
    localparam QW = 2 + 24 + 24 + 32 + 16 + 1 + 24 + 8 + 64 + 16 + 15 + 24 + 8 + 8 + 24;
    localparam QD = 1 << QAW;
    reg [QW-1:0] q [0:QD-1];
    reg [QAW:0] wp, rp;
    wire [QAW:0] count = wp - rp;
    assign t_free = QD[QAW:0] - count;
    always @(posedge clk)
        if (t_push) q[wp[QAW-1:0]] <= {t_kind, t_dqp, t_psn, t_ev, t_aoff, t_pr, t_cack, t_mpr,
                                       t_bitmap, t_ts, t_ooo, t_rcvd, t_reason, t_syn, t_amsn};

    reg [QW-1:0] d;
    wire [1:0]  kind   = d[QW-1 -: 2];
    wire [23:0] dqp    = d[QW-3 -: 24];
    wire [23:0] psn    = d[QW-27 -: 24];
    wire [31:0] ev     = d[QW-51 -: 32];
    wire [15:0] aoff   = d[QW-83 -: 16];
    wire        pr     = d[QW-99];
    wire [23:0] cack   = d[QW-100 -: 24];
    wire [7:0]  mpr    = d[QW-124 -: 8];
    wire [63:0] bitmap = d[QW-132 -: 64];
    wire [15:0] ts     = d[QW-196 -: 16];
    wire [14:0] ooo    = d[QW-212 -: 15];
    wire [23:0] rcvd   = d[QW-227 -: 24];
    wire [7:0]  reason = d[QW-251 -: 8];
    wire [7:0]  syn    = d[QW-259 -: 8];
    wire [23:0] amsn   = d[QW-267 -: 24];

    // ---- lengths -------------------------------------------------------------------------
    wire [7:0]  ext   = kind == 2'd0 ? 8'd36 : kind == 2'd1 ? 8'd20 : 8'd4;
    wire [15:0] ulen  = 16'd24 + {8'd0, ext};       // UDP 8 + BTH 12 + ext + ICRC 4
    wire [7:0]  l2len = cfg_vlan ? 8'd18 : 8'd14;
    wire [7:0]  iphl  = cfg_ipv6 ? 8'd40 : 8'd20;
    wire [15:0] flen  = {8'd0, l2len} + {8'd0, iphl} + ulen;

    // ---- the headers in wire order, each left-justified in its field -----------------------
    wire [15:0] ip_type = cfg_ipv6 ? 16'h86DD : 16'h0800;
    wire [143:0] l2 = cfg_vlan ? {cfg_pmac, cfg_lmac, 16'h8100, 4'h0, cfg_vid, ip_type}
                               : {cfg_pmac, cfg_lmac, ip_type, 32'd0};
    wire [15:0] v4_total = 16'd20 + ulen;
    // ENC-IPV4: version 4, IHL 5, DSCP/ECN 0, ident 0, DF, TTL 64 (ENC-HOP-001), UDP
    reg [31:0] v4s;
    always @* begin
        v4s = 32'h4500 + {16'd0, v4_total} + 32'h4000 + 32'h4011 +
              {16'd0, cfg_lip[31:16]} + {16'd0, cfg_lip[15:0]} +
              {16'd0, cfg_pip[31:16]} + {16'd0, cfg_pip[15:0]};
        v4s = {16'd0, v4s[15:0]} + {16'd0, v4s[31:16]};
        v4s = {16'd0, v4s[15:0]} + {16'd0, v4s[31:16]};
    end
    wire [15:0] v4_cksum = ~v4s[15:0];
    wire [159:0] v4 = {8'h45, 8'h00, v4_total, 16'h0000, 16'h4000, 8'h40, 8'h11, v4_cksum,
                       cfg_lip[31:0], cfg_pip[31:0]};
    wire [159:0] v4m = {8'h45, 8'hFF, v4_total, 16'h0000, 16'h4000, 8'hFF, 8'h11, 16'hFFFF,
                        cfg_lip[31:0], cfg_pip[31:0]};
    // ENC-IPV6: traffic class 0, flow label = EV[15:0] (ENC-EV-001), hop limit 64
    // (ENC-HOP-001), UDP
    wire [319:0] v6 = {4'h6, 8'h00, 4'h0, ev[15:0], ulen, 8'h11, 8'h40, cfg_lip, cfg_pip};
    wire [319:0] v6m = {4'h6, 8'hFF, 4'hF, 16'hFFFF, ulen, 8'h11, 8'hFF, cfg_lip, cfg_pip};
    wire [319:0] ip  = cfg_ipv6 ? v6 : {v4, 160'd0};
    wire [319:0] ipm = cfg_ipv6 ? v6m : {v4m, 160'd0};

    wire [7:0] opcode = kind == 2'd0 ? 8'hDC : kind == 2'd1 ? 8'hDD : 8'hD1;
    wire [95:0] bth  = {opcode, 8'h00, 16'hFFFF, 8'h00, dqp, 8'h00, psn};
    wire [95:0] bthm = {opcode, 8'h00, 16'hFFFF, 8'hFF, dqp, 8'h00, psn};
    wire [223:0] seth = {8'h00, 6'd0, pr, 1'b0, aoff, ev, 32'd0, 8'h00, cack, 8'h00, mpr,
                         16'h0001, bitmap};
    wire [63:0]  ccs  = {ts, 1'b0, ooo, 8'h00, rcvd};
    wire [159:0] neth = {8'h00, 8'h00, reason, 8'h00, ev, 32'd0, 8'h00, amsn, 16'h0000, ts};
    wire [31:0]  aeth = {syn, amsn};
    wire [287:0] exth = kind == 2'd0 ? {seth, ccs} : kind == 2'd1 ? {neth, 128'd0}
                                                              : {aeth, 256'd0};
    // UDP, BTH, the extension headers, room for the ICRC: 60 bytes at most
    wire [479:0] rest  = {ev[31:16], 16'd4791, ulen, 16'h0000, bth, exth, 32'd0};
    wire [479:0] restm = {ev[31:16], 16'd4791, ulen, 16'hFFFF, bthm, exth, 32'd0};

    // the whole frame in wire order, left-justified in 128 bytes, then as bytes (byte k in
    // bits 8k+7:8k); each header's place is one of a few, so each shift is a choice among
    // constant shifts rather than a barrel shifter
    function [1023:0] place;
        input [143:0] a;   // layer 2
        input [319:0] b;   // IP
        input [479:0] c;   // UDP and up
        input vlan, is6;
        reg [1023:0] bb, cc;
        begin
            bb = vlan ? ({b, 704'd0} >> 144) : ({b, 704'd0} >> 112);
            case ({vlan, is6})
                2'b00: cc = {c, 544'd0} >> 272;   // 14 + 20 bytes
                2'b10: cc = {c, 544'd0} >> 304;   // 18 + 20
                2'b01: cc = {c, 544'd0} >> 432;   // 14 + 40
                default: cc = {c, 544'd0} >> 464; // 18 + 40
            endcase
            place = {a, 880'd0} | bb | cc;
        end
    endfunction
    wire [1023:0] wl  = place(l2, ip, rest, cfg_vlan, cfg_ipv6);
`ifdef BUG_ICRC_NO_MASK
    wire [1023:0] wlm = wl;
`else
    wire [1023:0] wlm = place(l2, ipm, restm, cfg_vlan, cfg_ipv6);
`endif
    reg [1023:0] le, lem;
    integer i;
    always @* begin
        for (i = 0; i < 128; i = i + 1) begin
            le[8*i +: 8] = wl[1023 - 8*i -: 8];
            lem[8*i +: 8] = wlm[1023 - 8*i -: 8];
        end
    end

    // ---- the sequence ----------------------------------------------------------------------
    localparam T_IDLE = 3'd0, T_BUILD = 3'd1, T_CRC = 3'd2, T_SEAL = 3'd3, T_UDP = 3'd4,
               T_SEND = 3'd5;
    reg [2:0]  ts_;
    reg [1023:0] f, fm;
    reg [15:0] n;        // frame length
    reg [7:0]  l3;       // IP header offset
    reg [4:0]  wi;       // beat
    wire [15:0] at = wi * DB;  // its first byte
    reg        crc_init, crc_v;
    reg [DW-1:0] crc_d;
    reg [DB-1:0] crc_en;
    wire [31:0] crc;
    mrc_icrc #(.DW(DW)) u_crc (
        .clk(clk), .rst(rst), .init(crc_init), .valid(crc_v), .data(crc_d), .en(crc_en),
        .crc(crc)
    );

    // the UDP checksum over IPv6 (ENC-UDP-004): pseudo-header, the datagram as built (its
    // checksum field 0, its ICRC not yet in), then the ICRC's two 16-bit words
    wire [479:0] udpv = rest;
    reg [31:0] us;
    reg [31:0] usum;
    integer k;
    always @* begin
        us = 32'd17 + {16'd0, ulen};
        for (k = 0; k < 8; k = k + 1)
            us = us + {16'd0, cfg_lip[127 - 16*k -: 16]} + {16'd0, cfg_pip[127 - 16*k -: 16]};
        for (k = 0; k < 30; k = k + 1)
            us = us + {16'd0, udpv[479 - 16*k -: 16]};
    end
    wire [31:0] us2 = usum + {16'd0, crc[7:0], crc[15:8]} + {16'd0, crc[23:16], crc[31:24]};
    wire [31:0] us3 = {16'd0, us2[15:0]} + {16'd0, us2[31:16]};
    wire [31:0] us4 = {16'd0, us3[15:0]} + {16'd0, us3[31:16]};
    wire [15:0] ucks = ~us4[15:0] == 16'd0 ? 16'hFFFF : ~us4[15:0];
    reg  [31:0] icrc;
    reg  [15:0] ucks_r;

    assign idle = ts_ == T_IDLE && count == 0;
    wire [15:0] pmod = ev[31:16] % {13'd0, cfg_ports == 3'd0 ? 3'd1 : cfg_ports};

    integer j;
    always @(posedge clk) begin
        crc_init <= 1'b0;
        crc_v <= 1'b0;
        m_tvalid <= 1'b0;
        m_tlast <= 1'b0;
        if (rst) begin
            wp <= 0;
            rp <= 0;
            ts_ <= T_IDLE;
        end else begin
            if (t_push) wp <= wp + 1'b1;
            case (ts_)
                T_IDLE: if (count != 0) begin
                    d <= q[rp[QAW-1:0]];
                    rp <= rp + 1'b1;
                    ts_ <= T_BUILD;
                end
                T_BUILD: begin
                    f <= le;
                    fm <= lem;
                    usum <= us;
                    n <= flen;
                    l3 <= l2len;
                    wi <= 5'd0;
                    crc_init <= 1'b1;
                    // the port: the EV's upper half modulo the ports, as the fabric's hash
                    m_tport <= pmod[2:0];
                    ts_ <= T_CRC;
                end
                T_CRC: begin
                    // ICRC-COVER-001: from the IP header to the byte before the ICRC
                    crc_v <= 1'b1;
                    crc_d <= fm[DW*wi +: DW];
                    for (j = 0; j < DB; j = j + 1)
                        crc_en[j] <= at + j >= {8'd0, l3} && at + j < n - 16'd4;
                    wi <= wi + 5'd1;
                    if (at + DB >= n - 16'd4) ts_ <= T_SEAL;
                end
                T_SEAL: if (!crc_v) begin
                    icrc <= crc;
                    ucks_r <= cfg_ipv6 ? ucks : 16'd0;
                    ts_ <= T_SEND;
                    wi <= 5'd0;
                end
                T_SEND: if (m_tready) begin
                    m_tvalid <= 1'b1;
                    // the ICRC (little-endian) in the last four bytes, and over IPv6 the UDP
                    // checksum, as the words go out
                    for (j = 0; j < DB; j = j + 1) begin
                        if (at + j >= n - 16'd4)
                            m_tdata[8*j +: 8] <= icrc[8 * (at + j - (n - 16'd4)) +: 8];
                        else if (at + j == {8'd0, l3} + 16'd46)
                            m_tdata[8*j +: 8] <= ucks_r[15:8];
                        else if (at + j == {8'd0, l3} + 16'd47)
                            m_tdata[8*j +: 8] <= ucks_r[7:0];
                        else
                            m_tdata[8*j +: 8] <= f[DW*wi + 8*j +: 8];
                    end
                    for (j = 0; j < DB; j = j + 1) m_tkeep[j] <= at + j < n;
                    m_tlast <= at + DB >= n;
                    wi <= wi + 5'd1;
                    if (at + DB >= n) ts_ <= T_IDLE;
                end
                default: ts_ <= T_IDLE;
            endcase
        end
    end
endmodule
`default_nettype wire
