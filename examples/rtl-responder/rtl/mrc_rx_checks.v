// mrc_rx_checks: the receiver's checks and decisions (receiver chapter: RCV-QP-001,
// RCV-QP-002, RCV-OPC-001, RCV-CHECK-001, RCV-SEG-*, RCV-PLACE-002, RCV-MSG-001/002,
// RCV-REJECT-001, RCV-SACK-001 to -008, RCV-ACK-001 to -003, RCV-NAK-002, RCV-DUP-002;
// completion: FLAG-LAST-002, WWI-LIMIT-002, RET-ERR-002; paths: EV-PROBE-004).
//
// Deliberate bug: BUG_FLAG_BEFORE_DATA queues a packet's payload after the flags its
// arrival released, so a message's flag can become visible before its data.
//
// One packet at a time, from the parser, through the checks in the order of RCV-CHECK-001,
// acting on the first that fails; an accepted write is marked in the window, recorded in
// its message's entry, placed (a command to placement), retired as far as it allows, then
// acknowledged: transport ACKs first, then the SACK or the SACK timer. The per-QP SACK
// state (count of writes not yet acknowledged, the timer, the last triggering packet,
// bytes received) lives here. Timers that fall due are served before the next packet
// (receiver section 6). A QP moves to the error state on WWI-LIMIT-002 and on a full
// completion queue, after the input that filled it (CQE-RING-004); its failure passes its
// messages over in the retirement order (RET-ERR-001) and is reported to the CPU half.
`default_nettype none
module mrc_rx_checks #(
    parameter NUM_QPS     = 4,
    parameter NUM_REGIONS = 4
) (
    input  wire                      clk,
    input  wire                      rst,
    input  wire [63:0]               now_ns,
    // configuration
    input  wire [15:0]               cfg_pmtu,
    input  wire [6:0]                cfg_mpr,
    input  wire [15:0]               cfg_sack_coalesce,
    input  wire [15:0]               cfg_ack_coalesce,
    input  wire [15:0]               cfg_wwi_limit,
    input  wire [31:0]               cfg_sack_delay,
    input  wire [NUM_QPS-1:0]        qp_valid,
    input  wire [24*NUM_QPS-1:0]     qp_qpn,
    input  wire [24*NUM_QPS-1:0]     qp_peer,
    input  wire [32*NUM_QPS-1:0]     qp_rcq,
    input  wire [NUM_QPS-1:0]        qp_rcq_v,
    input  wire [32*NUM_QPS-1:0]     qp_scq,
    input  wire [NUM_QPS-1:0]        qp_scq_v,
    input  wire                      qp_create,
    input  wire [3:0]                qp_create_row,
    input  wire [NUM_REGIONS-1:0]    mr_valid,
    input  wire [32*NUM_REGIONS-1:0] mr_rkey,
    input  wire [64*NUM_REGIONS-1:0] mr_base,
    input  wire [64*NUM_REGIONS-1:0] mr_len,
    input  wire [NUM_REGIONS-1:0]    mr_rw,
    // the packet
    input  wire                      p_valid,
    output reg                       p_done,
    input  wire [1:0]                p_slot,
    input  wire                      p_discard,
    input  wire [7:0]                p_opcode,
    input  wire [23:0]               p_dest_qp,
    input  wire [23:0]               p_psn,
    input  wire                      p_ack_req,
    input  wire                      p_rtx,
    input  wire [15:0]               p_ts,
    input  wire [15:0]               p_msn,
    input  wire [15:0]               p_rqmsn,
    input  wire [63:0]               p_va,
    input  wire [31:0]               p_rkey,
    input  wire [31:0]               p_dma_len,
    input  wire [31:0]               p_imm,
    input  wire [15:0]               p_probe_id,
    input  wire [15:0]               p_payload_len,
    input  wire [15:0]               p_payload_off,
    input  wire [31:0]               p_ev,
    output reg  [3:0]                slot_free,
    // the window
    output reg  [3:0]                qi,
    input  wire [23:0]               w_epsn,
    input  wire                      w_dup,
    input  wire                      w_oow,
    input  wire [23:0]               w_offset,
    output reg                       w_accept,
    input  wire [63:0]               w_bitmap,
    input  wire [14:0]               w_ooo,
    input  wire [24*NUM_QPS-1:0]     w_epsn_all,
    // retirement
    input  wire                      lk_retired,
    input  wire                      lk_beyond,
    output reg                       lk_read,
    input  wire                      e_valid,
    input  wire [3:0]                e_qi,
    input  wire [31:0]               e_total,
    input  wire [31:0]               e_placed,
    input  wire                      e_last,
    input  wire                      e_has_imm,
    input  wire [31:0]               e_imm,
    input  wire [15:0]               e_rqmsn,
    input  wire [23:0]               e_lpsn,
    output reg                       up_we,
    output reg  [31:0]               up_total,
    output reg  [31:0]               up_placed,
    output reg                       up_last,
    output reg                       up_has_imm,
    output reg  [31:0]               up_imm,
    output reg  [15:0]               up_rqmsn,
    output reg  [23:0]               up_lpsn,
    output reg                       rt_start,
    output reg  [3:0]                rt_qi,
    input  wire                      rt_busy,
    input  wire [NUM_QPS-1:0]        rt_retired,
    input  wire [NUM_QPS-1:0]        last_v,
    input  wire [16*NUM_QPS-1:0]     last_msn,
    input  wire [24*NUM_QPS-1:0]     ret_psn,
    input  wire [16*NUM_QPS-1:0]     ret_unacked,
    input  wire [16*NUM_QPS-1:0]     delivered,
    input  wire [15:0]               next_msn_of,
    output reg                       ack_sent,
    output reg  [3:0]                ack_qi,
    input  wire                      ovf,
    input  wire [31:0]               ovf_cq,
    output reg                       ovf_clear,
    output reg  [NUM_QPS-1:0]        qp_err,
    // frames to send
    output reg                       t_push,
    input  wire [3:0]                t_free,
    output reg  [1:0]                t_kind,
    output reg  [23:0]               t_dqp,
    output reg  [23:0]               t_psn,
    output reg  [31:0]               t_ev,
    output reg  [15:0]               t_aoff,
    output reg                       t_pr,
    output reg  [23:0]               t_cack,
    output reg  [7:0]                t_mpr,
    output reg  [63:0]               t_bitmap,
    output reg  [15:0]               t_ts,
    output reg  [14:0]               t_ooo,
    output reg  [23:0]               t_rcvd,
    output reg  [7:0]                t_reason,
    output reg  [7:0]                t_syn,
    output reg  [23:0]               t_amsn,
    // commands to placement: payload, reports
    output reg                       c_push,
    input  wire [4:0]                c_free,
    output reg  [2:0]                c_kind,
    output reg  [63:0]               c_addr,
    output reg  [15:0]               c_len,
    output reg  [1:0]                c_slot,
    output reg  [15:0]               c_src,
    output reg  [23:0]               c_qpn,
    output reg  [23:0]               c_psn,
    output reg  [15:0]               c_msn,
    output reg  [255:0]              c_data,
    // the earliest SACK timer, for the testbench
    output reg                       timer_pending,
    output reg  [63:0]               timer_deadline,
    output wire                      idle
);
    localparam C_IDLE = 5'd0, C_QP = 5'd1, C_CLASS = 5'd2, C_SEG = 5'd3, C_MSG = 5'd4,
               C_MSG2 = 5'd5, C_ACCEPT = 5'd6, C_RETIRE = 5'd7, C_RWAIT = 5'd8,
               C_ACKS = 5'd9, C_SACK = 5'd10, C_DONE = 5'd11, C_SETTLE = 5'd12,
               C_TIMER = 5'd13, C_FAILRPT = 5'd14, C_DUPACK = 5'd15, C_TIMER2 = 5'd16,
               C_WAIT = 5'd17;
    localparam NACK_PSN_OOR_WINDOW = 8'h0B, NACK_UNEXP_EVENT = 8'h19;
    localparam AETH_ACK = 8'h1F, AETH_NAK_REMOTE_ACCESS = 8'h62;
    localparam CAUSE_WWI = 8'd0, CAUSE_CQ = 8'd1;

    reg [4:0] cs;
    reg [4:0] after_acks;   // where the ACK loop returns
    reg [4:0] after_fail;   // where a failure's report returns

    // per-QP SACK state
    reg [15:0] unacked  [0:NUM_QPS-1];
    reg        tmr_v    [0:NUM_QPS-1];
    reg [63:0] tmr      [0:NUM_QPS-1];
    reg [31:0] last_ev  [0:NUM_QPS-1];
    reg [15:0] last_ts  [0:NUM_QPS-1];
    reg [23:0] last_psn [0:NUM_QPS-1];
    reg [31:0] rcvd     [0:NUM_QPS-1];   // payload bytes accepted, modulo 2^32

    // ---- lookups ---------------------------------------------------------------------------
    reg        qp_hit;
    reg [3:0]  qp_i;
    reg        mr_hit;
    reg [63:0] mr_b, mr_l;
    reg        mr_w;
    reg        due;
    reg [3:0]  due_i;
    integer k;
    always @* begin
        qp_hit = 1'b0;
        qp_i = 4'd0;
        for (k = NUM_QPS - 1; k >= 0; k = k - 1)
            if (qp_valid[k] && qp_qpn[24*k +: 24] == p_dest_qp) begin
                qp_hit = 1'b1;
                qp_i = k[3:0];
            end
        mr_hit = 1'b0;
        mr_b = 64'd0;
        mr_l = 64'd0;
        mr_w = 1'b0;
        for (k = NUM_REGIONS - 1; k >= 0; k = k - 1)
            if (mr_valid[k] && mr_rkey[32*k +: 32] == p_rkey) begin
                mr_hit = 1'b1;
                mr_b = mr_base[64*k +: 64];
                mr_l = mr_len[64*k +: 64];
                mr_w = mr_rw[k];
            end
        due = 1'b0;
        due_i = 4'd0;
        timer_pending = 1'b0;
        timer_deadline = 64'hFFFF_FFFF_FFFF_FFFF;
        for (k = NUM_QPS - 1; k >= 0; k = k - 1)
            if (qp_valid[k] && !qp_err[k] && tmr_v[k]) begin
                if (now_ns >= tmr[k]) begin
                    due = 1'b1;
                    due_i = k[3:0];
                end
                timer_pending = 1'b1;
                if (tmr[k] < timer_deadline) timer_deadline = tmr[k];
            end
    end

    wire is_write = p_opcode >= 8'hC6 && p_opcode <= 8'hCB;
    wire is_last  = p_opcode == 8'hC8 || p_opcode == 8'hC9 || p_opcode == 8'hCA ||
                    p_opcode == 8'hCB;
    wire is_imm   = p_opcode == 8'hC9 || p_opcode == 8'hCB;
    // RCV-PLACE-002: [va, va + len) inside the region
    wire [64:0] va_end = {1'b0, p_va} + {49'd0, p_payload_len};
    wire [64:0] mr_end = {1'b0, mr_b} + {1'b0, mr_l};
    wire region_ok = mr_hit && mr_w && p_va >= mr_b && va_end <= mr_end;
    wire [15:0] rq_ahead = p_rqmsn - delivered[16*qi +: 16];
    // RCV-SACK-001: the write filled a hole when epsn moved past psn + 1
    wire [23:0] moved = w_epsn - p_psn;
    wire filled_hole = !moved[23] && moved > 24'd1;

    assign idle = cs == C_IDLE && !p_valid && !due;

    // signed distance trigger - cack_psn, clamped to 16 bits (SETH-ACKPSN-003)
    function [15:0] aoff;
        input [23:0] trig;
        input [23:0] ep;
        reg [23:0] dd;
        begin
            dd = trig - (ep - 24'd1);
            if (!dd[23] && dd > 24'h007FFF) aoff = 16'h7FFF;
            else if (dd[23] && dd < 24'hFF8000) aoff = 16'h8000;
            else aoff = dd[15:0];
        end
    endfunction

    // ---- frame descriptors (RCV-SACK-005, RCV-NACK-001, RCV-ACK-002, RCV-NAK-002) ----------
    task sack;
        input [31:0] ev;
        input [23:0] trig;
        input        pr;
        input [15:0] pid;
        input [15:0] ts;
        begin
            t_push <= 1'b1;
            t_kind <= 2'd0;
            t_dqp <= qp_peer[24*qi +: 24];
            t_psn <= w_epsn - 24'd1;  // OPC-PSN-002: cack_psn
            t_ev <= ev;
            t_aoff <= pr ? pid : aoff(trig, w_epsn);
            t_pr <= pr;
            t_cack <= w_epsn - 24'd1;
            t_mpr <= {1'b0, cfg_mpr};
            t_bitmap <= w_bitmap;
            t_ts <= ts;
            t_ooo <= w_ooo;
            t_rcvd <= rcvd[qi][31:8];
            // RCV-SACK-008: the count resets; the timer stops unless an ACK is owed
            unacked[qi] <= 16'd0;
            if (ret_unacked[16*qi +: 16] == 16'd0) tmr_v[qi] <= 1'b0;
        end
    endtask

    task nack;
        input [7:0] reason;
        begin
            t_push <= 1'b1;
            t_kind <= 2'd1;
            t_dqp <= qp_peer[24*qi +: 24];
            t_psn <= p_psn;  // OPC-PSN-002: nack_psn
            t_ev <= p_ev;
            t_reason <= reason;
            t_amsn <= p_psn;
            t_ts <= p_ts;
        end
    endtask

    // a transport ACK (nak = 0) or NAK of QP q; an ACK needs a retired message
    task ack;
        input [3:0]  q;
        input [31:0] ev;
        input        nak;
        begin
            if (nak || last_v[q]) begin
                t_push <= 1'b1;
                t_kind <= 2'd2;
                t_dqp <= qp_peer[24*q +: 24];
                t_psn <= ret_psn[24*q +: 24];  // OPC-PSN-002.b
                t_ev <= ev;
                t_syn <= nak ? AETH_NAK_REMOTE_ACCESS : AETH_ACK;
                t_amsn <= {8'd0, last_v[q] ? last_msn[16*q +: 16] : next_msn_of - 16'd1};
                ack_sent <= 1'b1;
                ack_qi <= q;
            end
        end
    endtask

    task report;
        input [3:0] q;
        input [7:0] cause;
        begin
            c_push <= 1'b1;
            c_kind <= 3'd4;
            c_qpn <= qp_qpn[24*q +: 24];
            c_data <= {248'd0, cause};
        end
    endtask

    // ---- the sequence ----------------------------------------------------------------------
    reg [3:0]  aq;          // ACK loop index
    reg [31:0] ack_ev;
    reg        placed;      // a payload command was queued for this packet
    reg [3:0]  fq;          // QP failing
    reg [7:0]  fcause;
    reg        in_packet;

    integer q;
    always @(posedge clk) begin
        p_done <= 1'b0;
        slot_free <= 4'b0000;
        w_accept <= 1'b0;
        lk_read <= 1'b0;
        up_we <= 1'b0;
        rt_start <= 1'b0;
        ack_sent <= 1'b0;
        ovf_clear <= 1'b0;
        t_push <= 1'b0;
        c_push <= 1'b0;
        if (rst) begin
            cs <= C_IDLE;
            qp_err <= {NUM_QPS{1'b0}};
            for (q = 0; q < NUM_QPS; q = q + 1) begin
                unacked[q] <= 16'd0;
                tmr_v[q] <= 1'b0;
                rcvd[q] <= 32'd0;
            end
        end else begin
            case (cs)
                C_IDLE: begin
                    // room for everything one input can queue
                    if (t_free >= NUM_QPS + 2 && c_free >= 5'd3) begin
                        if (due) begin
                            qi <= due_i;
                            cs <= C_TIMER;
                        end else if (p_valid) begin
                            qi <= qp_i;
                            placed <= 1'b0;
                            in_packet <= 1'b1;
                            cs <= C_QP;
                        end
                    end
                end
                C_QP: begin
                    // RCV-FRAME-001, RCV-QP-001, RCV-QP-002, RCV-OPC-001: no action
                    if (p_discard || !qp_hit || qp_err[qi]) cs <= C_DONE;
                    else if (p_opcode == 8'hDE) begin
                        // EV-PROBE-004: a SACK with pr set, on the probe's EV
                        sack(p_ev, w_epsn - 24'd1, 1'b1, p_probe_id, p_ts);
                        cs <= C_DONE;
                    end else if (is_write) cs <= C_CLASS;
                    else cs <= C_DONE;
                end
                C_CLASS: begin
                    if (w_dup) begin
                        // RCV-DUP-001: a SACK at once; RCV-DUP-002: and the ACK if retired
                        last_ev[qi] <= p_ev;
                        sack(p_ev, p_psn, 1'b0, 16'd0, p_ts);
                        cs <= lk_retired ? C_DUPACK : C_DONE;
                    end else if (w_oow) begin
                        nack(NACK_PSN_OOR_WINDOW);  // RCV-WIN-002
                        cs <= C_DONE;
                    end else cs <= C_SEG;
                end
                C_DUPACK: begin
                    ack(qi, p_ev, 1'b0);
                    cs <= C_DONE;
                end
                C_SEG: begin
                    if ({16'd0, p_payload_len} > {16'd0, cfg_pmtu}) cs <= C_DONE;   // RCV-SEG-001
                    else if (!is_last && p_payload_len != cfg_pmtu) cs <= C_DONE; // RCV-SEG-002
                    else if (!region_ok) begin
                        ack(qi, p_ev, 1'b1);                                       // RCV-PLACE-002
                        cs <= C_DONE;
                    end else if (lk_retired || lk_beyond) cs <= C_DONE;  // FLAG-LAST-002, RCV-MSG-002
                    else begin
                        lk_read <= 1'b1;
                        cs <= C_MSG;
                    end
                end
                C_MSG: cs <= C_MSG2;  // the entry's read
                C_MSG2: begin
                    // RCV-MSG-001
                    if (e_valid && (e_qi != qi || e_total != p_dma_len ||
                                    {1'b0, e_placed} + {17'd0, p_payload_len} > {1'b0, e_total}))
                        cs <= C_DONE;
                    else if (!e_valid && {16'd0, p_payload_len} > p_dma_len) cs <= C_DONE;
                    else if (is_last && is_imm && rq_ahead > cfg_wwi_limit && !rq_ahead[15]) begin
                        // WWI-LIMIT-002: NACK UNEXP_EVENT, then the QP fails
                        nack(NACK_UNEXP_EVENT);
                        fq <= qi;
                        fcause <= CAUSE_WWI;
                        ack_ev <= last_ev[qi];
                        qp_err[qi] <= 1'b1;
                        rt_qi <= qi;
                        after_fail <= C_DONE;
                        after_acks <= C_FAILRPT;
                        cs <= C_RETIRE;
                    end else cs <= C_ACCEPT;
                end
                C_ACCEPT: begin
                    // accept: the window, the message's entry, the payload
                    w_accept <= 1'b1;
                    unacked[qi] <= unacked[qi] + 16'd1;
                    rcvd[qi] <= rcvd[qi] + {16'd0, p_payload_len};
                    up_we <= 1'b1;
                    up_total <= e_valid ? e_total : p_dma_len;
                    up_placed <= (e_valid ? e_placed : 32'd0) + {16'd0, p_payload_len};
                    up_last <= (e_valid && e_last) || is_last;
                    up_has_imm <= (e_valid && e_has_imm) || is_imm;
                    up_imm <= is_imm ? p_imm : e_imm;
                    up_rqmsn <= e_valid ? e_rqmsn : p_rqmsn;
                    up_lpsn <= is_last ? p_psn : e_valid ? e_lpsn : 24'd0;
                    if (p_payload_len != 16'd0) begin
                        // RCV-PLACE-003: the payload placed at RETH va onward
`ifndef BUG_FLAG_BEFORE_DATA
                        c_push <= 1'b1;
`endif
                        c_kind <= 3'd0;
                        c_addr <= p_va;
                        c_len <= p_payload_len;
                        c_slot <= p_slot;
                        c_src <= p_payload_off;
                        c_qpn <= qp_qpn[24*qi +: 24];
                        c_psn <= p_psn;
                        c_msn <= p_msn;
                        placed <= 1'b1;
                    end
                    ack_ev <= p_ev;
                    rt_qi <= qi;
                    after_acks <= C_SACK;
                    cs <= C_RETIRE;
                end
                C_RETIRE: begin
                    // RET-ORDER-002: retire what became retirable before the next input
                    rt_start <= 1'b1;
                    cs <= C_RWAIT;
                end
                C_RWAIT: if (!rt_busy) begin
                    aq <= 4'd0;
                    cs <= C_ACKS;
                end
                C_ACKS: begin
                    // RCV-ACK-001, RCV-ACK-003: each QP that retired acknowledges, at once
                    // or with its timer
                    if (rt_retired[aq]) begin
                        if (ret_unacked[16*aq +: 16] >= cfg_ack_coalesce) ack(aq, ack_ev, 1'b0);
                        else if (!tmr_v[aq]) begin
                            tmr_v[aq] <= 1'b1;
                            tmr[aq] <= now_ns + {32'd0, cfg_sack_delay};
                        end
                    end
                    aq <= aq + 4'd1;
                    if (aq == NUM_QPS - 1) cs <= C_WAIT;
                end
                C_WAIT: cs <= after_acks;  // the last ACK's count reset settles
                C_SACK: begin
`ifdef BUG_FLAG_BEFORE_DATA
                    // the payload is queued only after the flags its packet released
                    c_push <= placed;
`endif
                    // RCV-SACK-001, -002, -004
                    last_ev[qi] <= p_ev;
                    last_ts[qi] <= p_ts;
                    last_psn[qi] <= p_psn;
                    if (p_ack_req || w_offset_r != 24'd0 || filled_hole || p_rtx ||
                        unacked[qi] >= cfg_sack_coalesce)
                        sack(p_ev, p_psn, 1'b0, 16'd0, p_ts);
                    else if (!tmr_v[qi]) begin
                        tmr_v[qi] <= 1'b1;
                        tmr[qi] <= now_ns + {32'd0, cfg_sack_delay};
                    end
                    cs <= C_DONE;
                end
                C_FAILRPT: begin
                    report(fq, fcause);
                    cs <= after_fail;
                end
                C_DONE: begin
                    if (in_packet) begin
                        p_done <= 1'b1;
                        if (!placed) slot_free[p_slot] <= 1'b1;
                        in_packet <= 1'b0;
                    end
                    aq <= 4'd0;
                    cs <= C_SETTLE;
                end
                C_SETTLE: begin
                    // CQE-RING-004: after the input, each QP reporting to a full queue fails
                    if (!ovf) cs <= C_IDLE;
                    else if (aq == NUM_QPS[3:0]) begin
                        ovf_clear <= 1'b1;
                        cs <= C_IDLE;
                    end else begin
                        aq <= aq + 4'd1;
                        if (qp_valid[aq] && !qp_err[aq] &&
                            ((qp_rcq_v[aq] && qp_rcq[32*aq +: 32] == ovf_cq) ||
                             (qp_scq_v[aq] && qp_scq[32*aq +: 32] == ovf_cq))) begin
                            fq <= aq;
                            fcause <= CAUSE_CQ;
                            ack_ev <= last_ev[aq];
                            qp_err[aq] <= 1'b1;
                            rt_qi <= aq;
                            after_fail <= C_SETTLE;
                            after_acks <= C_FAILRPT;
                            cs <= C_RETIRE;
                        end
                    end
                end
                C_TIMER: begin
                    // RCV-SACK-004: the timer's SACK, triggered by the last accepted write
                    if (unacked[qi] != 16'd0) sack(last_ev[qi], last_psn[qi], 1'b0, 16'd0, last_ts[qi]);
                    cs <= C_TIMER2;
                end
                C_TIMER2: begin
                    // RCV-ACK-001: the held-back transport ACK goes with the timer
                    if (ret_unacked[16*qi +: 16] != 16'd0) ack(qi, last_ev[qi], 1'b0);
                    tmr_v[qi] <= 1'b0;
                    cs <= C_WAIT;
                    after_acks <= C_IDLE;
                end
                default: cs <= C_IDLE;
            endcase
            if (qp_create) begin
                unacked[qp_create_row] <= 16'd0;
                tmr_v[qp_create_row] <= 1'b0;
                rcvd[qp_create_row] <= 32'd0;
                qp_err[qp_create_row] <= 1'b0;
                last_ev[qp_create_row] <= 32'd0;
                last_ts[qp_create_row] <= 16'd0;
            end
        end
    end

    // the packet's distance from epsn, as classified before it was accepted
    reg [23:0] w_offset_r;
    always @(posedge clk) if (cs == C_CLASS) w_offset_r <= w_offset;
endmodule
`default_nettype wire
