// mrc_responder: an MRC responder NIC — frames in, frames and bus writes out.
//
//   MAC rx --> mrc_frame_rx --> mrc_rx_checks --> mrc_tx_builder --> MAC tx
//              (parse, ICRC)     |    |     |      (SACK/NACK/ACK, ICRC)
//                                |    |     '--> mrc_dma_place --> host bus (posted writes)
//                     mrc_rx_window  mrc_retire ------'
//                                 (flags, completion entries)
//   host --> mrc_csr (NIC parameters, QPs, regions, completion queues, consumer registers)
//
// One clock, CLK_NS nanoseconds a cycle (4: 250 MHz). The frame interfaces, the packet
// buffer and the host bus are DATA_W bits wide: 512 by default (128 Gb/s at 250 MHz, as a
// 100G MAC and a PCIe x16 core present them), or 64. The NIC's clock `now_ns` counts the
// cycles in nanoseconds; a testbench may load it (time_load) while the NIC is idle, to skip
// time in which nothing happens.
`default_nettype none
module mrc_responder #(
    parameter NUM_QPS     = 4,
    parameter NUM_REGIONS = 4,
    parameter NUM_CQS     = 4,
    parameter MAX_MPR     = 2,
    parameter MAX_PAYLOAD = 256,
    parameter CLK_NS      = 4,
    parameter DATA_W      = 512
) (
    input  wire         clk,
    input  wire         rst,
    // time
    output reg  [63:0]  now_ns,
    input  wire         time_load,
    input  wire [63:0]  time_value,
    // host registers
    input  wire         csr_we,
    input  wire [11:0]  csr_addr,
    input  wire [63:0]  csr_wdata,
    output wire [63:0]  csr_status,
    // frames from the MAC
    input  wire [DATA_W-1:0]   s_tdata,
    input  wire [DATA_W/8-1:0] s_tkeep,
    input  wire         s_tlast,
    input  wire         s_tvalid,
    output wire         s_tready,
    // frames to the MAC
    output wire [DATA_W-1:0]   m_tdata,
    output wire [DATA_W/8-1:0] m_tkeep,
    output wire         m_tlast,
    output wire         m_tvalid,
    output wire [2:0]   m_tport,
    input  wire         m_tready,
    // the host bus: posted writes
    output wire         bw_valid,
    output wire         bw_sop,
    output wire         bw_eop,
    output wire [2:0]   bw_kind,
    output wire [63:0]  bw_addr,
    output wire [12:0]  bw_len,
    output wire [3:0]   bw_fbe,
    output wire [3:0]   bw_lbe,
    output wire [DATA_W-1:0]   bw_data,
    output wire [DATA_W/8-1:0] bw_strb,
    output wire [23:0]  bw_qpn,
    output wire [23:0]  bw_psn,
    output wire [15:0]  bw_msn,
    output wire [31:0]  bw_cq,
    output wire [31:0]  bw_cslot,
    // for the testbench
    output wire         timer_pending,
    output wire [63:0]  timer_deadline,
    output wire         idle
);
    localparam SLOT_AW = 13 - $clog2(DATA_W / 8);  // 8 KiB a packet-buffer slot

    always @(posedge clk) begin
        if (rst) now_ns <= 64'd0;
        else if (time_load) now_ns <= time_value;
        else now_ns <= now_ns + CLK_NS;
    end

    // ---- configuration -------------------------------------------------------------------
    wire [15:0] cfg_pmtu, cfg_sack_coalesce, cfg_ack_coalesce, cfg_wwi_limit;
    wire [6:0]  cfg_mpr;
    wire        cfg_per_qp, cfg_ipv6, cfg_vlan;
    wire [11:0] cfg_vid;
    wire [2:0]  cfg_ports;
    wire [31:0] cfg_sack_delay;
    wire [47:0] cfg_lmac, cfg_pmac;
    wire [127:0] cfg_lip, cfg_pip;
    wire [NUM_QPS-1:0] qp_valid, qp_rcq_v, qp_scq_v;
    wire [24*NUM_QPS-1:0] qp_qpn, qp_peer;
    wire [64*NUM_QPS-1:0] qp_fbase;
    wire [32*NUM_QPS-1:0] qp_fslots, qp_rcq, qp_scq;
    wire qp_create;
    wire [3:0] qp_create_row;
    wire [23:0] qp_create_epsn;
    wire [NUM_REGIONS-1:0] mr_valid, mr_rw;
    wire [32*NUM_REGIONS-1:0] mr_rkey;
    wire [64*NUM_REGIONS-1:0] mr_base, mr_len;
    wire [NUM_CQS-1:0] cq_valid;
    wire [32*NUM_CQS-1:0] cq_num, cq_entries, cq_consumed;
    wire [64*NUM_CQS-1:0] cq_base;

    mrc_csr #(.NUM_QPS(NUM_QPS), .NUM_REGIONS(NUM_REGIONS), .NUM_CQS(NUM_CQS)) u_csr (
        .clk(clk), .rst(rst), .csr_we(csr_we), .csr_addr(csr_addr), .csr_wdata(csr_wdata),
        .csr_status(csr_status),
        .cfg_pmtu(cfg_pmtu), .cfg_mpr(cfg_mpr), .cfg_per_qp(cfg_per_qp), .cfg_ipv6(cfg_ipv6),
        .cfg_vlan(cfg_vlan), .cfg_vid(cfg_vid), .cfg_ports(cfg_ports),
        .cfg_sack_coalesce(cfg_sack_coalesce), .cfg_ack_coalesce(cfg_ack_coalesce),
        .cfg_wwi_limit(cfg_wwi_limit), .cfg_sack_delay(cfg_sack_delay),
        .cfg_lmac(cfg_lmac), .cfg_pmac(cfg_pmac), .cfg_lip(cfg_lip), .cfg_pip(cfg_pip),
        .qp_valid(qp_valid), .qp_qpn(qp_qpn), .qp_peer(qp_peer), .qp_fbase(qp_fbase),
        .qp_fslots(qp_fslots), .qp_rcq(qp_rcq), .qp_rcq_v(qp_rcq_v), .qp_scq(qp_scq),
        .qp_scq_v(qp_scq_v), .qp_create(qp_create), .qp_create_row(qp_create_row),
        .qp_create_epsn(qp_create_epsn),
        .mr_valid(mr_valid), .mr_rkey(mr_rkey), .mr_base(mr_base), .mr_len(mr_len),
        .mr_rw(mr_rw),
        .cq_valid(cq_valid), .cq_num(cq_num), .cq_base(cq_base), .cq_entries(cq_entries),
        .cq_consumed(cq_consumed)
    );

    // ---- receive ---------------------------------------------------------------------------
    wire p_valid, p_done, p_discard, p_ack_req, p_rtx;
    wire [1:0] p_slot;
    wire [3:0] p_reason;
    wire [7:0] p_opcode;
    wire [23:0] p_dest_qp, p_psn;
    wire [15:0] p_ts, p_msn, p_rqmsn, p_probe_id, p_payload_len, p_payload_off;
    wire [63:0] p_va;
    wire [31:0] p_rkey, p_dma_len, p_imm, p_ev;
    wire [3:0] slot_free_dma, slot_free_chk;
    wire [SLOT_AW+1:0] pb_raddr;
    wire [DATA_W-1:0] pb_rdata;

    mrc_frame_rx #(.DW(DATA_W), .SLOT_AW(SLOT_AW)) u_rx (
        .clk(clk), .rst(rst),
        .s_tdata(s_tdata), .s_tkeep(s_tkeep), .s_tlast(s_tlast), .s_tvalid(s_tvalid),
        .s_tready(s_tready),
        .p_valid(p_valid), .p_done(p_done), .p_slot(p_slot), .p_discard(p_discard),
        .p_reason(p_reason), .p_opcode(p_opcode), .p_dest_qp(p_dest_qp), .p_psn(p_psn),
        .p_ack_req(p_ack_req), .p_rtx(p_rtx), .p_ts(p_ts), .p_msn(p_msn), .p_rqmsn(p_rqmsn),
        .p_va(p_va), .p_rkey(p_rkey), .p_dma_len(p_dma_len), .p_imm(p_imm),
        .p_probe_id(p_probe_id), .p_payload_len(p_payload_len),
        .p_payload_off(p_payload_off), .p_ev(p_ev),
        .slot_free(slot_free_dma | slot_free_chk),
        .pb_raddr(pb_raddr), .pb_rdata(pb_rdata)
    );

    // ---- window ----------------------------------------------------------------------------
    wire [3:0] qi;
    wire [23:0] w_epsn, w_offset;
    wire w_dup, w_oow, w_accept;
    wire [63:0] w_bitmap;
    wire [14:0] w_ooo;
    wire [24*NUM_QPS-1:0] w_epsn_all;

    mrc_rx_window #(.NUM_QPS(NUM_QPS), .MAX_MPR(MAX_MPR)) u_win (
        .clk(clk), .rst(rst), .cfg_mpr(cfg_mpr),
        .init(qp_create), .init_qi(qp_create_row), .init_epsn(qp_create_epsn),
        .qi(qi), .psn(p_psn), .epsn(w_epsn), .is_dup(w_dup), .is_oow(w_oow),
        .offset(w_offset), .accept(w_accept), .sack_bitmap(w_bitmap), .ooo_count(w_ooo),
        .epsn_all(w_epsn_all)
    );

    // ---- retirement ------------------------------------------------------------------------
    wire lk_retired, lk_beyond, lk_read, e_valid, e_last, e_has_imm;
    wire [3:0] e_qi;
    wire [31:0] e_total, e_placed, e_imm;
    wire [15:0] e_rqmsn;
    wire [23:0] e_lpsn, up_lpsn;
    wire up_we, up_last, up_has_imm;
    wire [31:0] up_total, up_placed, up_imm;
    wire [15:0] up_rqmsn;
    wire rt_start, rt_busy;
    wire [3:0] rt_qi;
    wire [NUM_QPS-1:0] rt_retired, last_v, qp_err;
    wire [16*NUM_QPS-1:0] last_msn, ret_unacked, delivered;
    wire [24*NUM_QPS-1:0] ret_psn;
    wire [15:0] next_msn_of;
    wire ack_sent;
    wire [3:0] ack_qi;
    wire ovf, ovf_clear;
    wire [31:0] ovf_cq;
    wire r_push, r_ready;
    wire [2:0] r_kind;
    wire [63:0] r_addr;
    wire [23:0] r_qpn;
    wire [15:0] r_msn;
    wire [31:0] r_cq, r_slot;
    wire [255:0] r_data;
    wire [4:0] c_free;

    mrc_retire #(.NUM_QPS(NUM_QPS), .NUM_CQS(NUM_CQS)) u_ret (
        .clk(clk), .rst(rst), .now_ns(now_ns), .cfg_per_qp(cfg_per_qp), .cfg_mpr(cfg_mpr),
        .qp_create(qp_create), .qp_create_row(qp_create_row),
        .qp_create_epsn(qp_create_epsn), .qp_qpn(qp_qpn),
        .qp_fbase(qp_fbase), .qp_fslots(qp_fslots), .qp_rcq(qp_rcq), .qp_rcq_v(qp_rcq_v),
        .qp_err(qp_err), .cq_valid(cq_valid), .cq_num(cq_num), .cq_base(cq_base),
        .cq_entries(cq_entries), .cq_consumed(cq_consumed),
        .lk_qi(qi), .lk_msn(p_msn), .lk_retired(lk_retired), .lk_beyond(lk_beyond),
        .lk_read(lk_read), .e_valid(e_valid), .e_qi(e_qi), .e_total(e_total),
        .e_placed(e_placed), .e_last(e_last), .e_has_imm(e_has_imm), .e_imm(e_imm),
        .e_rqmsn(e_rqmsn), .e_lpsn(e_lpsn),
        .up_we(up_we), .up_qi(qi), .up_msn(p_msn), .up_total(up_total),
        .up_placed(up_placed), .up_last(up_last), .up_has_imm(up_has_imm), .up_imm(up_imm),
        .up_rqmsn(up_rqmsn), .up_lpsn(up_lpsn),
        .rt_start(rt_start), .rt_qi(rt_qi), .rt_busy(rt_busy), .rt_retired(rt_retired),
        .last_v(last_v), .last_msn(last_msn), .ret_psn(ret_psn), .ret_unacked(ret_unacked),
        .delivered(delivered), .next_msn_of(next_msn_of), .ack_sent(ack_sent),
        .ack_qi(ack_qi), .ovf(ovf), .ovf_cq(ovf_cq), .ovf_clear(ovf_clear),
        .c_push(r_push), .c_ready(r_ready), .c_kind(r_kind), .c_addr(r_addr), .c_qpn(r_qpn),
        .c_msn(r_msn), .c_cq(r_cq), .c_slot(r_slot), .c_data(r_data)
    );
    assign r_ready = c_free != 5'd0;

    // ---- checks ----------------------------------------------------------------------------
    wire t_push, t_pr;
    wire [3:0] t_free;
    wire [1:0] t_kind;
    wire [23:0] t_dqp, t_psn, t_cack, t_rcvd, t_amsn;
    wire [31:0] t_ev;
    wire [15:0] t_aoff, t_ts;
    wire [7:0] t_mpr, t_reason, t_syn;
    wire [63:0] t_bitmap;
    wire [14:0] t_ooo;
    wire k_push;
    wire [1:0] k_slot;
    wire [2:0] k_kind;
    wire [63:0] k_addr;
    wire [15:0] k_len, k_src, k_msn;
    wire [23:0] k_qpn, k_psn;
    wire [255:0] k_data;
    wire chk_idle, tx_idle, dma_idle;

    mrc_rx_checks #(.NUM_QPS(NUM_QPS), .NUM_REGIONS(NUM_REGIONS)) u_chk (
        .clk(clk), .rst(rst), .now_ns(now_ns),
        .cfg_pmtu(cfg_pmtu), .cfg_mpr(cfg_mpr), .cfg_sack_coalesce(cfg_sack_coalesce),
        .cfg_ack_coalesce(cfg_ack_coalesce), .cfg_wwi_limit(cfg_wwi_limit),
        .cfg_sack_delay(cfg_sack_delay),
        .qp_valid(qp_valid), .qp_qpn(qp_qpn), .qp_peer(qp_peer), .qp_rcq(qp_rcq),
        .qp_rcq_v(qp_rcq_v), .qp_scq(qp_scq), .qp_scq_v(qp_scq_v),
        .qp_create(qp_create), .qp_create_row(qp_create_row),
        .mr_valid(mr_valid), .mr_rkey(mr_rkey), .mr_base(mr_base), .mr_len(mr_len),
        .mr_rw(mr_rw),
        .p_valid(p_valid), .p_done(p_done), .p_slot(p_slot), .p_discard(p_discard),
        .p_opcode(p_opcode), .p_dest_qp(p_dest_qp), .p_psn(p_psn), .p_ack_req(p_ack_req),
        .p_rtx(p_rtx), .p_ts(p_ts), .p_msn(p_msn), .p_rqmsn(p_rqmsn), .p_va(p_va),
        .p_rkey(p_rkey), .p_dma_len(p_dma_len), .p_imm(p_imm), .p_probe_id(p_probe_id),
        .p_payload_len(p_payload_len), .p_payload_off(p_payload_off), .p_ev(p_ev),
        .slot_free(slot_free_chk),
        .qi(qi), .w_epsn(w_epsn), .w_dup(w_dup), .w_oow(w_oow), .w_offset(w_offset),
        .w_accept(w_accept), .w_bitmap(w_bitmap), .w_ooo(w_ooo), .w_epsn_all(w_epsn_all),
        .lk_retired(lk_retired), .lk_beyond(lk_beyond), .lk_read(lk_read),
        .e_valid(e_valid), .e_qi(e_qi), .e_total(e_total), .e_placed(e_placed),
        .e_last(e_last), .e_has_imm(e_has_imm), .e_imm(e_imm), .e_rqmsn(e_rqmsn),
        .e_lpsn(e_lpsn),
        .up_we(up_we), .up_total(up_total), .up_placed(up_placed), .up_last(up_last),
        .up_has_imm(up_has_imm), .up_imm(up_imm), .up_rqmsn(up_rqmsn),
        .up_lpsn(up_lpsn),
        .rt_start(rt_start), .rt_qi(rt_qi), .rt_busy(rt_busy), .rt_retired(rt_retired),
        .last_v(last_v), .last_msn(last_msn), .ret_psn(ret_psn), .ret_unacked(ret_unacked),
        .delivered(delivered), .next_msn_of(next_msn_of), .ack_sent(ack_sent),
        .ack_qi(ack_qi), .ovf(ovf), .ovf_cq(ovf_cq), .ovf_clear(ovf_clear), .qp_err(qp_err),
        .t_push(t_push), .t_free(t_free), .t_kind(t_kind), .t_dqp(t_dqp), .t_psn(t_psn),
        .t_ev(t_ev), .t_aoff(t_aoff), .t_pr(t_pr), .t_cack(t_cack), .t_mpr(t_mpr),
        .t_bitmap(t_bitmap), .t_ts(t_ts), .t_ooo(t_ooo), .t_rcvd(t_rcvd),
        .t_reason(t_reason), .t_syn(t_syn), .t_amsn(t_amsn),
        .c_push(k_push), .c_free(c_free), .c_kind(k_kind), .c_addr(k_addr), .c_len(k_len),
        .c_slot(k_slot), .c_src(k_src), .c_qpn(k_qpn), .c_psn(k_psn), .c_msn(k_msn),
        .c_data(k_data),
        .timer_pending(timer_pending), .timer_deadline(timer_deadline), .idle(chk_idle)
    );

    // ---- transmit --------------------------------------------------------------------------
    mrc_tx_builder #(.DW(DATA_W)) u_tx (
        .clk(clk), .rst(rst), .cfg_ipv6(cfg_ipv6), .cfg_vlan(cfg_vlan), .cfg_vid(cfg_vid),
        .cfg_ports(cfg_ports), .cfg_lmac(cfg_lmac), .cfg_pmac(cfg_pmac), .cfg_lip(cfg_lip),
        .cfg_pip(cfg_pip),
        .t_push(t_push), .t_free(t_free), .t_kind(t_kind), .t_dqp(t_dqp), .t_psn(t_psn),
        .t_ev(t_ev), .t_aoff(t_aoff), .t_pr(t_pr), .t_cack(t_cack), .t_mpr(t_mpr),
        .t_bitmap(t_bitmap), .t_ts(t_ts), .t_ooo(t_ooo), .t_rcvd(t_rcvd),
        .t_reason(t_reason), .t_syn(t_syn), .t_amsn(t_amsn),
        .m_tdata(m_tdata), .m_tkeep(m_tkeep), .m_tlast(m_tlast), .m_tvalid(m_tvalid),
        .m_tport(m_tport), .m_tready(m_tready), .idle(tx_idle)
    );

    // ---- placement -------------------------------------------------------------------------
    mrc_dma_place #(.DW(DATA_W), .SLOT_AW(SLOT_AW), .MAX_PAYLOAD(MAX_PAYLOAD)) u_dma (
        .clk(clk), .rst(rst),
        .c_push(k_push | r_push), .c_free(c_free),
        .c_kind(r_push ? r_kind : k_kind),
        .c_addr(r_push ? r_addr : k_addr),
        .c_len(r_push ? 16'd0 : k_len),
        .c_slot(k_slot), .c_src(k_src),
        .c_qpn(r_push ? r_qpn : k_qpn),
        .c_psn(r_push ? 24'd0 : k_psn),
        .c_msn(r_push ? r_msn : k_msn),
        .c_cq(r_cq), .c_cslot(r_slot),
        .c_data(r_push ? r_data : k_data),
        .pb_raddr(pb_raddr), .pb_rdata(pb_rdata), .slot_free(slot_free_dma),
        .bw_valid(bw_valid), .bw_sop(bw_sop), .bw_eop(bw_eop), .bw_kind(bw_kind),
        .bw_addr(bw_addr), .bw_len(bw_len), .bw_fbe(bw_fbe), .bw_lbe(bw_lbe),
        .bw_data(bw_data), .bw_strb(bw_strb), .bw_qpn(bw_qpn), .bw_psn(bw_psn),
        .bw_msn(bw_msn), .bw_cq(bw_cq), .bw_cslot(bw_cslot), .idle(dma_idle)
    );

    assign idle = chk_idle && tx_idle && dma_idle && s_tready && !p_valid && !rt_busy;
endmodule
`default_nettype wire
