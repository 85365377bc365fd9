// mrc_retire: message tracking, in-order retirement and completions (completion chapter:
// RET-DOMAIN-001, RET-CAP-001, RET-CAP-002, RET-ORDER-001, RET-ORDER-002, RET-FLAG-001,
// WWI-ORDER-001, RET-ERR-001; host-interface: FLAG-RECV-001/002, CQE-RING-001 to -005,
// CQE-RECV-001; receiver RCV-MSG-003).
//
// The retirement table is one memory of 2^TBL_AW entries, each with a valid bit; after
// reset a sweep clears them, one entry a cycle (`rt_busy` meanwhile). In shared retirement (cfg_per_qp = 0) the NIC's one
// domain uses entry `msn mod 4096` and its capacity C is 4096; in per-QP retirement QP q
// uses entries q * 256 + `msn mod 256` and C = W = mpr * 128 (RET-CAP-001). The checks look
// an entry up (`lk_*`, one cycle of latency), write it back (`up_*`), and start the
// retirement loop of a domain (`rt_start`), which retires complete messages at the head in
// MSN order: for each, its receive completion when it has an immediate, then its flag,
// both as commands to placement, whose queue keeps them after the message's data.
//
// An entry whose QP is in the error state is passed over when the pointer reaches it, as
// if it had retired (RET-ERR-001): the purge is lazy, which is the same to every output.
//
// Deliberate bug: BUG_LEN_16 keeps the message length (RETH dma_len) in a 16-bit register.
`default_nettype none
module mrc_retire #(
    parameter NUM_QPS = 4,
    parameter NUM_CQS = 4,
    parameter TBL_AW  = 12
) (
    input  wire                   clk,
    input  wire                   rst,
    input  wire [63:0]            now_ns,
    input  wire                   cfg_per_qp,
    input  wire [6:0]             cfg_mpr,
    input  wire                   qp_create,
    input  wire [3:0]             qp_create_row,
    input  wire [23:0]            qp_create_epsn,
    input  wire [24*NUM_QPS-1:0]  qp_qpn,
    input  wire [64*NUM_QPS-1:0]  qp_fbase,
    input  wire [32*NUM_QPS-1:0]  qp_fslots,
    input  wire [32*NUM_QPS-1:0]  qp_rcq,
    input  wire [NUM_QPS-1:0]     qp_rcq_v,
    input  wire [NUM_QPS-1:0]     qp_err,
    input  wire [NUM_CQS-1:0]     cq_valid,
    input  wire [32*NUM_CQS-1:0]  cq_num,
    input  wire [64*NUM_CQS-1:0]  cq_base,
    input  wire [32*NUM_CQS-1:0]  cq_entries,
    input  wire [32*NUM_CQS-1:0]  cq_consumed,
    // position of an MSN for QP lk_qi (combinational) and its entry (next cycle)
    input  wire [3:0]             lk_qi,
    input  wire [15:0]            lk_msn,
    output wire                   lk_retired,
    output wire                   lk_beyond,
    input  wire                   lk_read,
    output wire                   e_valid,
    output wire [3:0]             e_qi,
    output wire [31:0]            e_total,
    output wire [31:0]            e_placed,
    output wire                   e_last,
    output wire                   e_has_imm,
    output wire [31:0]            e_imm,
    output wire [15:0]            e_rqmsn,
    output wire [23:0]            e_lpsn,      // the PSN of the message's last packet
    // write an entry back (valid)
    input  wire                   up_we,
    input  wire [3:0]             up_qi,
    input  wire [15:0]            up_msn,
    input  wire [31:0]            up_total,
    input  wire [31:0]            up_placed,
    input  wire                   up_last,
    input  wire                   up_has_imm,
    input  wire [31:0]            up_imm,
    input  wire [15:0]            up_rqmsn,
    input  wire [23:0]            up_lpsn,
    // the retirement loop
    input  wire                   rt_start,
    input  wire [3:0]             rt_qi,       // a QP of the domain to run
    output wire                   rt_busy,
    output reg  [NUM_QPS-1:0]     rt_retired,  // QPs that retired messages in this run
    // per-QP state the checks read
    output reg  [NUM_QPS-1:0]     last_v,        // a message of the QP has retired
    output reg  [16*NUM_QPS-1:0]  last_msn,
    output reg  [24*NUM_QPS-1:0]  ret_psn,       // the last packet's PSN of that message
    output reg  [16*NUM_QPS-1:0]  ret_unacked,   // retired since the last transport ACK
    output reg  [16*NUM_QPS-1:0]  delivered,     // RQMSN of the last immediate delivered
    output wire [15:0]            next_msn_of,   // the next MSN of lk_qi's domain
    input  wire                   ack_sent,      // RCV-ACK-002: reset ret_unacked[ack_qi]
    input  wire [3:0]             ack_qi,
    // a completion queue ran out of slots (CQE-RING-004): its number, for the checks
    output reg                    ovf,
    output reg  [31:0]            ovf_cq,
    input  wire                   ovf_clear,
    // commands to placement
    output reg                    c_push,
    input  wire                   c_ready,
    output reg  [2:0]             c_kind,      // 1 flag, 2 completion entry, 3 entry without a queue
    output reg  [63:0]            c_addr,
    output reg  [23:0]            c_qpn,
    output reg  [15:0]            c_msn,
    output reg  [31:0]            c_cq,
    output reg  [31:0]            c_slot,
    output reg  [255:0]           c_data
);
    localparam ENT_W = 4 + 32 + 32 + 1 + 1 + 32 + 16 + 24;  // an entry, without its valid bit
    localparam TBL = 1 << TBL_AW;

    reg [ENT_W:0]   mem [0:TBL-1];   // valid bit on top
    reg [TBL_AW:0]  init_i;          // the reset sweep: entries cleared so far
    reg [15:0]      next_msn [0:NUM_QPS-1];   // per domain: index 0 in shared retirement
    reg [63:0]      written [0:NUM_CQS-1];    // entries written to each queue
    reg [NUM_CQS-1:0] stopped;

    function [TBL_AW-1:0] index;
        input per_qp;
        input [3:0] q;
        input [15:0] msn;
        begin
            if (per_qp) index = {q, 8'd0} | {{(TBL_AW-8){1'b0}}, msn[7:0]};
            else index = msn[TBL_AW-1:0];
        end
    endfunction

    // ---- position (RET-CAP-002) ----------------------------------------------------------
    wire [3:0]  lk_dom = cfg_per_qp ? lk_qi : 4'd0;
    assign next_msn_of = next_msn[lk_dom];
    wire [15:0] lk_off = lk_msn - next_msn[lk_dom];
    wire [15:0] cap = cfg_per_qp ? {2'd0, cfg_mpr, 7'd0} : 16'd4096;
    assign lk_retired = lk_off[15];
    assign lk_beyond = !lk_off[15] && lk_off >= cap;

    reg [ENT_W-1:0] rd;
    reg rd_v;
    wire [TBL_AW-1:0] lk_idx = index(cfg_per_qp, lk_qi, lk_msn);

    // the loop's read address, or the lookup's
    localparam R_IDLE = 3'd0, R_READ = 3'd1, R_CHECK = 3'd2, R_CQE = 3'd3, R_FLAG = 3'd4,
               R_WAITC = 3'd5, R_WAITF = 3'd6;
    reg [2:0] rs;
    reg [3:0] rdom;
    wire [TBL_AW-1:0] head_idx = index(cfg_per_qp, rdom, next_msn[rdom]);
    wire [TBL_AW-1:0] raddr = (rs == R_READ) ? head_idx : lk_idx;

    always @(posedge clk) {rd_v, rd} <= mem[raddr];


    assign e_valid = rd_v;
    assign {e_qi, e_total, e_placed, e_last, e_has_imm, e_imm, e_rqmsn, e_lpsn} = rd;
    assign rt_busy = rs != R_IDLE || rt_start || !init_i[TBL_AW];

    // ---- the retirement loop -------------------------------------------------------------
    reg [15:0] r_msn;
    reg [ENT_W-1:0] r_ent;
    wire [3:0]  r_qi     = r_ent[ENT_W-1 -: 4];
    wire [31:0] r_total  = r_ent[ENT_W-5 -: 32];
    wire [31:0] r_placed = r_ent[ENT_W-37 -: 32];
    wire        r_last   = r_ent[ENT_W-69];
    wire        r_himm   = r_ent[ENT_W-70];
    wire [31:0] r_imm    = r_ent[ENT_W-71 -: 32];
    wire [15:0] r_rqmsn  = r_ent[39:24];
    wire [23:0] r_lpsn   = r_ent[23:0];

    wire [3:0]  h_qi     = rd[ENT_W-1 -: 4];
    wire [31:0] h_total  = rd[ENT_W-5 -: 32];
    wire [31:0] h_placed = rd[ENT_W-37 -: 32];
    wire        h_last   = rd[ENT_W-69];

    // the table's one write port: the sweep, an entry written back, or an entry removed
    reg              w_en;
    reg [TBL_AW-1:0] w_addr;
    reg [ENT_W:0]    w_data;
    always @* begin
        w_en = 1'b0;
        w_addr = head_idx;
        w_data = {(ENT_W + 1){1'b0}};
        if (!init_i[TBL_AW]) begin
            w_en = 1'b1;
            w_addr = init_i[TBL_AW-1:0];
        end else if (up_we) begin
            w_en = 1'b1;
            w_addr = index(cfg_per_qp, up_qi, up_msn);
`ifdef BUG_LEN_16
            w_data = {1'b1, up_qi, 16'd0, up_total[15:0], up_placed, up_last, up_has_imm, up_imm,
                      up_rqmsn, up_lpsn};
`else
            w_data = {1'b1, up_qi, up_total, up_placed, up_last, up_has_imm, up_imm, up_rqmsn,
                      up_lpsn};
`endif
        end else if (rs == R_CHECK && rd_v && (qp_err[h_qi] || (h_last && h_placed == h_total))) begin
            w_en = 1'b1;  // the head retires or is passed over: its entry goes
        end
    end
    always @(posedge clk) if (w_en) mem[w_addr] <= w_data;

    // the receive queue of the retiring message's QP
    reg        cq_hit;
    reg [31:0] cq_i;
    integer c;
    always @* begin
        cq_hit = 1'b0;
        cq_i = 32'd0;
        for (c = 0; c < NUM_CQS; c = c + 1)
            if (cq_valid[c] && qp_rcq_v[r_qi] && cq_num[32*c +: 32] == qp_rcq[32*r_qi +: 32]) begin
                cq_hit = 1'b1;
                cq_i = c;
            end
    end
    wire [31:0] cq_n    = cq_entries[32*cq_i +: 32];
    wire [31:0] in_use  = written[cq_i][31:0] - cq_consumed[32*cq_i +: 32];
    wire [31:0] slot    = written[cq_i][31:0] & (cq_n - 32'd1);
    wire        phase   = (written[cq_i][31:0] & cq_n) == 32'd0;
    wire [31:0] fslots  = qp_fslots[32*r_qi +: 32];
    wire        has_flags = fslots != 32'd0 && (fslots & (fslots - 32'd1)) == 32'd0 &&
                            fslots <= 32'd32768;
    // CQE-RECV-001: a receive completion, laid out as host-interface table 6
    wire [23:0] r_qpn = qp_qpn[24*r_qi +: 24];
    wire [255:0] cqe = {7'd0, phase, 8'd0, r_msn[15:8], r_msn[7:0],
                        now_ns[31:24], now_ns[23:16], now_ns[15:8], now_ns[7:0],
                        r_imm[31:24], r_imm[23:16], r_imm[15:8], r_imm[7:0],
                        r_total[31:24], r_total[23:16], r_total[15:8], r_total[7:0],
                        8'd0, r_qpn[23:16], r_qpn[15:8], r_qpn[7:0],
                        8'd0, 8'h07, 8'h01, 8'h00, 64'd0};

    integer q;
    always @(posedge clk) begin
        c_push <= 1'b0;
        if (rst) begin
            rs <= R_IDLE;
            init_i <= {(TBL_AW + 1){1'b0}};
            for (q = 0; q < NUM_QPS; q = q + 1) next_msn[q] <= 16'd0;
            for (q = 0; q < NUM_CQS; q = q + 1) written[q] <= 64'd0;
            stopped <= {NUM_CQS{1'b0}};
            last_v <= {NUM_QPS{1'b0}};
            last_msn <= {16*NUM_QPS{1'b0}};
            ret_psn <= {24*NUM_QPS{1'b0}};
            ret_unacked <= {16*NUM_QPS{1'b0}};
            delivered <= {16*NUM_QPS{1'b0}};
            ovf <= 1'b0;
            rt_retired <= {NUM_QPS{1'b0}};
        end else begin
            if (!init_i[TBL_AW]) init_i <= init_i + 1'b1;
            if (ovf_clear) ovf <= 1'b0;
            if (ack_sent) ret_unacked[16*ack_qi +: 16] <= 16'd0;
            case (rs)
                R_IDLE: if (rt_start) begin
                    rdom <= cfg_per_qp ? rt_qi : 4'd0;
                    rt_retired <= {NUM_QPS{1'b0}};
                    rs <= R_READ;
                end
                R_READ: rs <= R_CHECK;
                R_CHECK: begin
                    if (!rd_v) rs <= R_IDLE;
                    else if (qp_err[h_qi]) begin
                        // RET-ERR-001: a failed QP's message is passed over
                        next_msn[rdom] <= next_msn[rdom] + 16'd1;
                        rs <= R_READ;
                    end else if (h_last && h_placed == h_total) begin
                        // RET-ORDER-001: the head is complete and retires
                        r_msn <= next_msn[rdom];
                        r_ent <= rd;
                        next_msn[rdom] <= next_msn[rdom] + 16'd1;
                        rs <= rd[ENT_W-70] ? R_CQE : R_FLAG;
                    end else rs <= R_IDLE;
                end
                R_CQE: if (c_ready) begin
                    // WWI-ORDER-001: the completion, then the flag
                    delivered[16*r_qi +: 16] <= r_rqmsn;
                    c_kind <= 3'd2;
                    c_qpn <= r_qpn;
                    c_msn <= r_msn;
                    c_data <= cqe;
                    c_cq <= cq_num[32*cq_i +: 32];
                    c_slot <= slot;
                    c_addr <= cq_base[64*cq_i +: 64] + {27'd0, slot, 5'd0};
                    if (!cq_hit) begin
                        c_kind <= 3'd3;  // a QP without a receive queue: no place in memory
                        c_push <= 1'b1;
                    end else if (stopped[cq_i]) begin
                        // CQE-RING-004: a stopped queue takes no entry
                    end else if (in_use >= cq_n) begin
                        stopped[cq_i] <= 1'b1;
                        ovf <= 1'b1;
                        ovf_cq <= cq_num[32*cq_i +: 32];
                    end else begin
                        c_push <= 1'b1;
                        written[cq_i] <= written[cq_i] + 64'd1;
                    end
                    rs <= R_WAITC;
                end
                R_WAITC: rs <= R_FLAG;
                R_FLAG: if (c_ready) begin
                    // RET-FLAG-001, FLAG-RECV-002: generation = MSN, SUCCESS, valid, length
                    if (has_flags) begin
                        c_kind <= 3'd1;
                        c_qpn <= r_qpn;
                        c_msn <= r_msn;
                        c_addr <= qp_fbase[64*r_qi +: 64] +
                                  {45'd0, r_msn & fslots[15:0] - 16'd1, 3'd0};
                        c_data <= {192'd0, r_msn, 8'h00, 1'b1, 7'd0, r_total};
                        c_push <= 1'b1;
                    end
                    last_v[r_qi] <= 1'b1;
                    last_msn[16*r_qi +: 16] <= r_msn;
                    ret_psn[24*r_qi +: 24] <= r_lpsn;
                    ret_unacked[16*r_qi +: 16] <= ret_unacked[16*r_qi +: 16] + 16'd1;
                    rt_retired[r_qi] <= 1'b1;
                    rs <= R_WAITF;
                end
                R_WAITF: rs <= R_READ;
                default: rs <= R_IDLE;
            endcase
            if (qp_create) begin
                last_v[qp_create_row] <= 1'b0;
                // before any retirement, the PSN before the QP's first
                ret_psn[24*qp_create_row +: 24] <= qp_create_epsn - 24'd1;
                ret_unacked[16*qp_create_row +: 16] <= 16'd0;
                delivered[16*qp_create_row +: 16] <= 16'd0;
                if (cfg_per_qp) next_msn[qp_create_row] <= 16'd0;
            end
        end
    end
endmodule
`default_nettype wire
