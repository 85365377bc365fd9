// mrc_rx_reliability: the packet-reliability half of an OpenRDMA (MRC) responder.
//
// What it does, per spec/receiver.md of the OpenRDMA specification:
//
//   * keeps a small table of QPs, filled by the host's create_qp command, each with its
//     receive window W = mpr * 128 PSNs and the window's bitmap: a ring of RING_BITS bits in
//     which PSN p lives at bit (p mod RING_BITS), so that the ring's head moves with epsn;
//   * classifies every arriving MRC write as duplicate, out of window or new, with 24-bit
//     PSN wrap (RCV-WIN-001); checks a new write's length (RCV-SEG-001, RCV-SEG-002) and its
//     memory region (RCV-PLACE-002); accepts it, sets its bit and moves epsn past every
//     received PSN at the front of the window (RCV-WIN-003);
//   * decides when to send a SACK (RCV-SACK-001..004: at once, after sack_coalesce accepted
//     packets, or when the SACK timer expires) and what it says (RCV-SACK-005..007: the
//     cumulative PSN, the 64-bit bitmap after it, ack_psn_offset, the CC_STATE counters);
//   * answers a duplicate with a SACK at once (RCV-DUP-001), and an out-of-window write with
//     a NACK PSN_OOR_WINDOW (RCV-WIN-002, RCV-NACK-001).
//
// What it does not do: it never sees payload bytes. Each packet comes in as the header
// fields a parser would extract; the block answers with a verdict per packet (ACCEPT means
// "place the payload at RETH va now", RCV-PLACE-003) and with the fields of the SACKs and
// NACKs to send. Framing (Ethernet/IP/UDP headers, checksums, ICRC) is the MAC's job.
// Message tracking, retirement, completion flags and transport ACKs are a separate block.
//
// Time: now_ns is the current time in nanoseconds, an input. The SACK timer of each QP is a
// deadline register compared against it; timer_deadline tells the environment when the
// block next needs time to reach a value.
//
// Interfaces (all synchronous to clk, active-high valid/ready):
//   pkt_*      one packet's header fields; taken on a clock edge where pkt_valid and
//              pkt_ready are both high.
//   verdict_*  one verdict per packet taken, a one-cycle pulse (see VERDICT_* below).
//   rsp_*      one SACK or NACK to send; held until rsp_ready.
//   qp_create, mr_register  host configuration, applied on the clock edge where they are
//              high; drive them only while busy is low.
//
// Storage: the tables are flip-flops, which suits the few QPs of a conformance run. A NIC
// with thousands of QPs keeps the same per-QP fields in a RAM indexed by QP, read in the
// LOOKUP state and written back once per packet; the state machine does not change.
//
// Deliberate faults, for showing that the conformance suite catches them (never define
// them in a real build):
//   BUG_WINDOW_SLIDES      a PSN that arrives ahead of epsn drags epsn forward to it, as
//                          parallel receive lanes do when a later PSN reaches the bitmap first.
//   BUG_BITMAP_OFF_BY_ONE  the SACK bitmap starts one PSN late (bit i reports epsn + 1 + i).

`default_nettype none

module mrc_rx_reliability #(
    parameter integer NUM_QPS     = 4,   // QP table entries
    parameter integer NUM_REGIONS = 4,   // memory region table entries
    parameter integer MAX_MPR     = 2    // largest mpr; MAX_MPR * 128 must be a power of two
) (
    input  wire        clk,
    input  wire        rst,                 // synchronous: empties both tables

    input  wire [63:0] now_ns,

    // Configuration (NicConfig), steady while the block runs.
    input  wire [7:0]  cfg_mpr,             // 1 .. MAX_MPR: W = mpr * 128
    input  wire [12:0] cfg_pmtu,            // 256, 512, 1024, 2048 or 4096
    input  wire [15:0] cfg_sack_coalesce,   // accepted packets per SACK, at least 1
    input  wire [31:0] cfg_sack_delay_ns,   // the SACK timer

    // Host: create a QP. epsn starts at the peer's initial PSN.
    input  wire        qp_create,
    input  wire [23:0] qp_create_qpn,
    input  wire [23:0] qp_create_peer_qpn,
    input  wire [23:0] qp_create_epsn,
    output wire        qp_table_full,

    // Host: register a memory region that remote writes may target.
    input  wire        mr_register,
    input  wire [31:0] mr_rkey,
    input  wire [63:0] mr_base,
    input  wire [63:0] mr_len,
    input  wire        mr_remote_write,
    output wire        mr_table_full,

    // An arriving packet: BTH, TSETH and RETH fields, the EV it came on, its payload length.
    input  wire        pkt_valid,
    output wire        pkt_ready,
    input  wire [7:0]  pkt_opcode,
    input  wire [23:0] pkt_dest_qp,
    input  wire [23:0] pkt_psn,
    input  wire        pkt_ack_req,
    input  wire        pkt_rtx,
    input  wire [31:0] pkt_ev,
    input  wire [15:0] pkt_tx_timestamp,    // TSETH tx_timestamp; 0 without a TSETH
    input  wire [63:0] pkt_va,              // RETH
    input  wire [31:0] pkt_rkey,            // RETH
    input  wire [15:0] pkt_payload_len,     // bytes; longer payloads saturate at 16'hFFFF

    // What became of it.
    output reg         verdict_valid,
    output reg  [3:0]  verdict,

    // A SACK or NACK to send to the peer QP, on EV rsp_ev.
    output reg         rsp_valid,
    input  wire        rsp_ready,
    output reg         rsp_is_nack,
    output reg  [23:0] rsp_dest_qp,         // the peer QP
    output reg  [23:0] rsp_psn,             // BTH psn: cack_psn, or nack_psn (OPC-PSN-002)
    output reg  [31:0] rsp_ev,              // SETH/NETH entropy, and the EV to send on
    output reg  [15:0] rsp_tx_timestamp,    // reflected (CC_STATE or NETH)
    output reg  [15:0] rsp_ack_psn_offset,  // SACK: signed
    output reg  [63:0] rsp_sack_bitmap,     // SACK: bit i = PSN cack_psn + 1 + i
    output reg  [7:0]  rsp_mpr,             // SACK
    output reg  [14:0] rsp_ooo_count,       // SACK CC_STATE
    output reg  [23:0] rsp_rcvd_bytes,      // SACK CC_STATE, 256-byte units
    output reg  [7:0]  rsp_nack_reason,     // NACK

    // Time the block waits for, and whether it is working.
    output wire        timer_pending,
    output wire [63:0] timer_deadline,
    output wire        busy
);

    // ---- constants -------------------------------------------------------------------

    localparam integer RING_BITS = MAX_MPR * 128;
    localparam integer RING_AW   = $clog2(RING_BITS);
    localparam integer QP_AW     = (NUM_QPS > 1) ? $clog2(NUM_QPS) : 1;
    localparam integer MR_AW     = (NUM_REGIONS > 1) ? $clog2(NUM_REGIONS) : 1;
    localparam integer CNT_W     = RING_AW + 1;       // counts 0 .. RING_BITS

    // Verdicts, one per packet.
    localparam [3:0] VERDICT_ACCEPT        = 4'd0;  // new and placed (RCV-PLACE-003)
    localparam [3:0] VERDICT_DUPLICATE     = 4'd1;  // answered with a SACK (RCV-DUP-001)
    localparam [3:0] VERDICT_OUT_OF_WINDOW = 4'd2;  // answered with a NACK (RCV-WIN-002)
    localparam [3:0] VERDICT_UNKNOWN_QP    = 4'd3;  // discarded (RCV-QP-001)
    localparam [3:0] VERDICT_NOT_A_WRITE   = 4'd4;  // discarded here (RCV-OPC-001)
    localparam [3:0] VERDICT_TOO_LONG      = 4'd5;  // discarded (RCV-SEG-001)
    localparam [3:0] VERDICT_SHORT_SEGMENT = 4'd6;  // discarded (RCV-SEG-002)
    localparam [3:0] VERDICT_NO_ACCESS     = 4'd7;  // discarded (RCV-PLACE-002)

    localparam [7:0] NACK_PSN_OOR_WINDOW = 8'h0B;

    // States. A packet goes IDLE -> LOOKUP -> CHECK, then either RESPOND or ADVANCE ->
    // DECIDE (-> RESPOND); an expired SACK timer goes IDLE -> TIMER (-> RESPOND).
    localparam [2:0] S_IDLE    = 3'd0;
    localparam [2:0] S_LOOKUP  = 3'd1;  // find the QP
    localparam [2:0] S_CHECK   = 3'd2;  // classify and check; accept or answer
    localparam [2:0] S_ADVANCE = 3'd3;  // move epsn over received PSNs, one per cycle
    localparam [2:0] S_DECIDE  = 3'd4;  // SACK now, or count it and arm the timer
    localparam [2:0] S_TIMER   = 3'd5;  // a SACK timer expired
    localparam [2:0] S_RESPOND = 3'd6;  // hold rsp_* until taken

    // ---- state -----------------------------------------------------------------------

    // The QP table.
    reg                 qp_valid     [0:NUM_QPS-1];
    reg [23:0]          qp_qpn       [0:NUM_QPS-1];
    reg [23:0]          qp_peer_qpn  [0:NUM_QPS-1];
    reg [23:0]          qp_epsn      [0:NUM_QPS-1];  // next PSN expected in order
    reg [RING_BITS-1:0] qp_ring      [0:NUM_QPS-1];  // received PSNs of [epsn, epsn + W)
    reg [CNT_W-1:0]     qp_ooo       [0:NUM_QPS-1];  // bits set in the ring (CCS-OOO-001)
    reg [31:0]          qp_bytes     [0:NUM_QPS-1];  // payload bytes accepted, mod 2^32
    reg [15:0]          qp_unacked   [0:NUM_QPS-1];  // accepted since the last SACK
    reg                 qp_timer_on  [0:NUM_QPS-1];  // the SACK timer runs
    reg [63:0]          qp_deadline  [0:NUM_QPS-1];  // ... and expires then
    reg [31:0]          qp_last_ev   [0:NUM_QPS-1];  // the last accepted write: a timer
    reg [15:0]          qp_last_ts   [0:NUM_QPS-1];  //   SACK's triggering packet
    reg [23:0]          qp_last_psn  [0:NUM_QPS-1];

    // The memory region table.
    reg                 mr_valid     [0:NUM_REGIONS-1];
    reg [31:0]          mr_key       [0:NUM_REGIONS-1];
    reg [63:0]          mr_lo        [0:NUM_REGIONS-1];
    reg [63:0]          mr_size      [0:NUM_REGIONS-1];
    reg                 mr_writable  [0:NUM_REGIONS-1];

    reg [2:0]           state;

    // The packet being handled.
    reg [7:0]           p_opcode;
    reg [23:0]          p_dest_qp;
    reg [23:0]          p_psn;
    reg                 p_ack_req;
    reg                 p_rtx;
    reg [31:0]          p_ev;
    reg [15:0]          p_ts;
    reg [63:0]          p_va;
    reg [31:0]          p_rkey;
    reg [15:0]          p_len;
    reg                 p_hit;           // its QP exists
    reg [QP_AW-1:0]     p_slot;          // ... in this entry (or the QP whose timer expired)
    reg [23:0]          p_offset;        // PSN - epsn on arrival
    reg [CNT_W-1:0]     p_advanced;      // how far epsn moved

    integer r, t, q, k;     // loop indices, one per process

    // ---- the QP the state machine works on --------------------------------------------

    wire [23:0]          cur_epsn    = qp_epsn[p_slot];
    wire [RING_BITS-1:0] cur_ring    = qp_ring[p_slot];
    wire [RING_AW-1:0]   head        = cur_epsn[RING_AW-1:0];
    wire [15:0]          window      = {1'b0, cfg_mpr, 7'd0};            // W = mpr * 128

    // RCV-WIN-001: duplicate when behind epsn (the PSN distance is negative, BTH-PSN-002) or
    // already received; out of window when W or more ahead; new otherwise.
    wire [23:0]          offset      = p_psn - cur_epsn;
    // A distance of exactly 2^23 is ahead: BTH-PSN-002 puts that PSN after epsn.
    wire                 behind      = offset[23] && (offset != 24'h800000);
    wire                 beyond      = !behind && (offset >= {8'd0, window});
    wire                 seen        = cur_ring[p_psn[RING_AW-1:0]];
    wire                 duplicate   = behind || seen;

    // MRC writes are opcodes 0xC6 .. 0xCB; LAST, LAST_IMM, ONLY and ONLY_IMM end a message.
    wire                 is_write    = (p_opcode >= 8'hC6) && (p_opcode <= 8'hCB);
    wire                 ends_msg    = (p_opcode >= 8'hC8) && (p_opcode <= 8'hCB);
    wire                 too_long    = p_len > {3'd0, cfg_pmtu};                  // RCV-SEG-001
    wire                 short_seg   = !ends_msg && (p_len != {3'd0, cfg_pmtu});  // RCV-SEG-002

    // RCV-PLACE-002: a registered, writable region holds [va, va + len).
    reg                  access_ok;
    reg [64:0]           end_addr;
    reg [64:0]           region_end;
    always @* begin
        access_ok  = 1'b0;
        end_addr   = {1'b0, p_va} + {49'd0, p_len};
        region_end = 65'd0;
        for (r = 0; r < NUM_REGIONS; r = r + 1) begin
            region_end = {1'b0, mr_lo[r]} + {1'b0, mr_size[r]};
            if (region_end[64]) region_end = {1'b0, 64'hFFFF_FFFF_FFFF_FFFF};   // saturate
            if (mr_valid[r] && mr_writable[r] && mr_key[r] == p_rkey
                    && p_va >= mr_lo[r] && !end_addr[64] && end_addr <= region_end)
                access_ok = 1'b1;
        end
    end

    // ---- what a SACK says now (RCV-SACK-005, RCV-SACK-007) ----------------------------

    wire [23:0]          cack        = cur_epsn - 24'd1;                 // SETH-CACK-001
    wire [2*RING_BITS-1:0] ring2     = {cur_ring, cur_ring};             // unrolled ring
`ifdef BUG_BITMAP_OFF_BY_ONE
    wire [RING_AW:0]     bitmap_at   = {1'b0, head} + 1'b1;
`else
    wire [RING_AW:0]     bitmap_at   = {1'b0, head};
`endif
    wire [63:0]          bitmap      = ring2[bitmap_at +: 64];           // bit i: epsn + i

    // The triggering packet: the one in hand, or for the timer the last one accepted.
    wire                 from_timer  = (state == S_TIMER);
    wire [23:0]          trig_psn    = from_timer ? qp_last_psn[p_slot] : p_psn;
    wire [31:0]          trig_ev     = from_timer ? qp_last_ev[p_slot]  : p_ev;
    wire [15:0]          trig_ts     = from_timer ? qp_last_ts[p_slot]  : p_ts;

    // SETH-ACKPSN-003: the trigger's PSN minus cack_psn, clamped to 16 bits signed (a far
    // duplicate only, receiver.md decision 11).
    wire [23:0]          trig_dist   = trig_psn - cack;
    wire                 fits16      = (trig_dist[23:15] == 9'h000) || (trig_dist[23:15] == 9'h1FF);
    wire [15:0]          ack_offset  = fits16 ? trig_dist[15:0]
                                    : (trig_dist[23] ? 16'h8000 : 16'h7FFF);

    // ---- timers ------------------------------------------------------------------------

    reg                  expire_any;
    reg [QP_AW-1:0]      expire_slot;
    reg                  pending_any;
    reg [63:0]           earliest;
    always @* begin
        expire_any  = 1'b0;
        expire_slot = {QP_AW{1'b0}};
        pending_any = 1'b0;
        earliest    = 64'hFFFF_FFFF_FFFF_FFFF;
        for (t = NUM_QPS - 1; t >= 0; t = t - 1) begin
            if (qp_valid[t] && qp_timer_on[t]) begin
                pending_any = 1'b1;
                if (qp_deadline[t] < earliest) earliest = qp_deadline[t];
                if (now_ns >= qp_deadline[t]) begin
                    expire_any  = 1'b1;
                    expire_slot = t[QP_AW-1:0];   // the lowest entry wins
                end
            end
        end
    end

    assign timer_pending  = pending_any;
    assign timer_deadline = earliest;

    // ---- table look-ups ----------------------------------------------------------------

    reg                  lookup_hit;
    reg [QP_AW-1:0]      lookup_slot;
    reg                  create_exists;
    reg                  qp_free_any;
    reg [QP_AW-1:0]      qp_free_slot;
    reg                  mr_exists;
    reg                  mr_free_any;
    reg [MR_AW-1:0]      mr_free_slot;
    always @* begin
        lookup_hit    = 1'b0;
        lookup_slot   = {QP_AW{1'b0}};
        create_exists = 1'b0;
        qp_free_any   = 1'b0;
        qp_free_slot  = {QP_AW{1'b0}};
        for (q = NUM_QPS - 1; q >= 0; q = q - 1) begin
            if (qp_valid[q] && qp_qpn[q] == p_dest_qp) begin
                lookup_hit  = 1'b1;
                lookup_slot = q[QP_AW-1:0];
            end
            if (qp_valid[q] && qp_qpn[q] == qp_create_qpn) create_exists = 1'b1;
            if (!qp_valid[q]) begin
                qp_free_any  = 1'b1;
                qp_free_slot = q[QP_AW-1:0];
            end
        end
        mr_exists    = 1'b0;
        mr_free_any  = 1'b0;
        mr_free_slot = {MR_AW{1'b0}};
        for (q = NUM_REGIONS - 1; q >= 0; q = q - 1) begin
            if (mr_valid[q] && mr_key[q] == mr_rkey) mr_exists = 1'b1;
            if (!mr_valid[q]) begin
                mr_free_any  = 1'b1;
                mr_free_slot = q[MR_AW-1:0];
            end
        end
    end

    assign qp_table_full = !qp_free_any;
    assign mr_table_full = !mr_free_any;
    assign pkt_ready     = (state == S_IDLE) && !expire_any;
    assign busy          = (state != S_IDLE) || expire_any;

    // ---- the state machine -------------------------------------------------------------

    wire [15:0] unacked_next = qp_unacked[p_slot] + 16'd1;
    wire        sack_now     = p_ack_req || p_rtx                  // RCV-SACK-001
                            || (p_offset != 24'd0)                 //   a hole precedes it
                            || (p_advanced > 1)                    //   it filled a hole
                            || (unacked_next >= cfg_sack_coalesce);  // RCV-SACK-002

    // Loads rsp_* with a SACK of QP p_slot for the triggering packet (RCV-SACK-005); sending
    // it restarts the QP's coalescing (RCV-SACK-008; the block retires nothing, so no ACK is ever owed).
    task load_sack;
        begin
            rsp_valid              <= 1'b1;
            rsp_is_nack            <= 1'b0;
            rsp_dest_qp            <= qp_peer_qpn[p_slot];
            rsp_psn                <= cack;
            rsp_ev                 <= trig_ev;
            rsp_tx_timestamp       <= trig_ts;
            rsp_ack_psn_offset     <= ack_offset;
            rsp_sack_bitmap        <= bitmap;
            rsp_mpr                <= cfg_mpr;
            rsp_ooo_count          <= {{(15 - CNT_W){1'b0}}, qp_ooo[p_slot]};
            rsp_rcvd_bytes         <= qp_bytes[p_slot][31:8];
            rsp_nack_reason        <= 8'd0;
            qp_unacked[p_slot]     <= 16'd0;
            qp_timer_on[p_slot]    <= 1'b0;
        end
    endtask

    always @(posedge clk) begin
        verdict_valid <= 1'b0;
        if (rst) begin
            state     <= S_IDLE;
            rsp_valid <= 1'b0;
            for (k = 0; k < NUM_QPS; k = k + 1) begin
                qp_valid[k]    <= 1'b0;
                qp_timer_on[k] <= 1'b0;
            end
            for (k = 0; k < NUM_REGIONS; k = k + 1) mr_valid[k] <= 1'b0;
        end else begin
            // Host configuration. A QP number or key that exists already is ignored.
            if (qp_create && !create_exists && qp_free_any) begin
                qp_valid[qp_free_slot]    <= 1'b1;
                qp_qpn[qp_free_slot]      <= qp_create_qpn;
                qp_peer_qpn[qp_free_slot] <= qp_create_peer_qpn;
                qp_epsn[qp_free_slot]     <= qp_create_epsn;
                qp_ring[qp_free_slot]     <= {RING_BITS{1'b0}};
                qp_ooo[qp_free_slot]      <= {CNT_W{1'b0}};
                qp_bytes[qp_free_slot]    <= 32'd0;
                qp_unacked[qp_free_slot]  <= 16'd0;
                qp_timer_on[qp_free_slot] <= 1'b0;
                qp_last_ev[qp_free_slot]  <= 32'd0;
                qp_last_ts[qp_free_slot]  <= 16'd0;
                qp_last_psn[qp_free_slot] <= qp_create_epsn - 24'd1;
            end
            if (mr_register && !mr_exists && mr_free_any) begin
                mr_valid[mr_free_slot]    <= 1'b1;
                mr_key[mr_free_slot]      <= mr_rkey;
                mr_lo[mr_free_slot]       <= mr_base;
                mr_size[mr_free_slot]     <= mr_len;
                mr_writable[mr_free_slot] <= mr_remote_write;
            end

            case (state)
            S_IDLE: begin
                // Timers first: they fell due before the packet now offered.
                if (expire_any) begin
                    p_slot <= expire_slot;
                    state  <= S_TIMER;
                end else if (pkt_valid) begin
                    p_opcode  <= pkt_opcode;
                    p_dest_qp <= pkt_dest_qp;
                    p_psn     <= pkt_psn;
                    p_ack_req <= pkt_ack_req;
                    p_rtx     <= pkt_rtx;
                    p_ev      <= pkt_ev;
                    p_ts      <= pkt_tx_timestamp;
                    p_va      <= pkt_va;
                    p_rkey    <= pkt_rkey;
                    p_len     <= pkt_payload_len;
                    state     <= S_LOOKUP;
                end
            end

            S_LOOKUP: begin
                p_hit  <= lookup_hit;
                p_slot <= lookup_slot;
                state  <= S_CHECK;
            end

            S_CHECK: begin
                // RCV-CHECK-001: the checks in order; the first that fails decides.
                verdict_valid <= 1'b1;
                state         <= S_IDLE;
                if (!p_hit) begin
                    verdict <= VERDICT_UNKNOWN_QP;              // RCV-QP-001
                end else if (!is_write) begin
                    verdict <= VERDICT_NOT_A_WRITE;             // RCV-OPC-001
                end else if (duplicate) begin
                    verdict <= VERDICT_DUPLICATE;               // RCV-DUP-001: SACK at once
                    load_sack;
                    state   <= S_RESPOND;
                end else if (beyond) begin
                    verdict <= VERDICT_OUT_OF_WINDOW;           // RCV-WIN-002, RCV-NACK-001
                    rsp_valid          <= 1'b1;
                    rsp_is_nack        <= 1'b1;
                    rsp_dest_qp        <= qp_peer_qpn[p_slot];
                    rsp_psn            <= p_psn;
                    rsp_ev             <= p_ev;
                    rsp_tx_timestamp   <= p_ts;
                    rsp_ack_psn_offset <= 16'd0;
                    rsp_sack_bitmap    <= 64'd0;
                    rsp_mpr            <= 8'd0;
                    rsp_ooo_count      <= 15'd0;
                    rsp_rcvd_bytes     <= 24'd0;
                    rsp_nack_reason    <= NACK_PSN_OOR_WINDOW;
                    state              <= S_RESPOND;
                end else if (too_long) begin
                    verdict <= VERDICT_TOO_LONG;                // RCV-SEG-001
                end else if (short_seg) begin
                    verdict <= VERDICT_SHORT_SEGMENT;           // RCV-SEG-002
                end else if (!access_ok) begin
                    verdict <= VERDICT_NO_ACCESS;               // RCV-PLACE-002
                end else begin
                    // Accept (RCV-WIN-003, RCV-PLACE-003): mark it received and count it.
                    verdict <= VERDICT_ACCEPT;
                    qp_ring[p_slot][p_psn[RING_AW-1:0]] <= 1'b1;
                    qp_ooo[p_slot]   <= qp_ooo[p_slot] + 1'b1;
                    qp_bytes[p_slot] <= qp_bytes[p_slot] + {16'd0, p_len};   // CCS-BYTES-001
`ifdef BUG_WINDOW_SLIDES
                    if (offset != 24'd0) qp_epsn[p_slot] <= p_psn;
`endif
                    p_offset   <= offset;
                    p_advanced <= {CNT_W{1'b0}};
                    state      <= S_ADVANCE;
                end
            end

            S_ADVANCE: begin
                // RCV-WIN-003: slide past every received PSN at the front, one per cycle.
                // (A wide design finds the first clear bit from the head in one step.)
                if (cur_ring[head]) begin
                    qp_ring[p_slot][head] <= 1'b0;
                    qp_epsn[p_slot]       <= cur_epsn + 24'd1;
                    qp_ooo[p_slot]        <= qp_ooo[p_slot] - 1'b1;
                    p_advanced            <= p_advanced + 1'b1;
                end else begin
                    state <= S_DECIDE;
                end
            end

            S_DECIDE: begin
                qp_last_psn[p_slot] <= p_psn;
                qp_last_ev[p_slot]  <= p_ev;
                qp_last_ts[p_slot]  <= p_ts;
                if (sack_now) begin
                    load_sack;
                    state <= S_RESPOND;
                end else begin
                    // RCV-SACK-004: count it; the timer starts with the first one waiting
                    // and is not restarted by later ones.
                    qp_unacked[p_slot] <= unacked_next;
                    if (!qp_timer_on[p_slot]) begin
                        qp_timer_on[p_slot] <= 1'b1;
                        qp_deadline[p_slot] <= now_ns + {32'd0, cfg_sack_delay_ns};
                    end
                    state <= S_IDLE;
                end
            end

            S_TIMER: begin
                // RCV-SACK-004: a SACK for the last accepted write if any wait, else none.
                if (qp_unacked[p_slot] != 16'd0) begin
                    load_sack;
                    state <= S_RESPOND;
                end else begin
                    qp_timer_on[p_slot] <= 1'b0;
                    state <= S_IDLE;
                end
            end

            S_RESPOND: begin
                if (rsp_ready) begin
                    rsp_valid <= 1'b0;
                    state     <= S_IDLE;
                end
            end

            default: state <= S_IDLE;
            endcase
        end
    end

endmodule

`default_nettype wire
