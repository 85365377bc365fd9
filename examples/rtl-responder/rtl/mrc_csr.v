// mrc_csr: configuration and status registers (host-interface chapter: QPs, regions,
// completion queues, the consumer register; receiver table 1: the NIC parameters).
//
// Host software (here, the harness) writes 64-bit registers at 8-byte addresses. The NIC
// parameters are plain registers; a QP, a region or a completion queue is written into
// staging registers and created by a write to its COMMIT register, which takes the next
// free row of its table. The tables leave this block as flat vectors, row r of a field of
// width W in bits [W*r +: W].
//
//   0x000 NIC      pmtu[15:0] mpr[22:16] per_qp[24] ipv6[25] vlan[26] vid[39:28] ports[42:40]
//   0x008 COAL     sack_coalesce[15:0] ack_coalesce[31:16] wwi_limit[47:32]
//   0x010 DELAY    sack_delay in ns [31:0]
//   0x018 LMAC     0x020 PMAC      the link's MAC addresses [47:0]
//   0x028 LIP_HI   0x030 LIP_LO    this NIC's IP address (IPv4 in LIP_LO[31:0])
//   0x038 PIP_HI   0x040 PIP_LO    the peer's
//   0x100 QP_NUM   qpn[23:0] peer_qpn[55:32]
//   0x108 QP_PSN   peer_initial_psn[23:0] domain[63:32]
//   0x110 QP_FBASE recv_flag_base       0x118 QP_FSLOTS recv_flag_slots[31:0]
//   0x120 QP_RCQ   recv_cq[31:0] valid[32]   0x128 QP_SCQ send_cq[31:0] valid[32]
//   0x1F8 QP_COMMIT
//   0x200 MR_KEY   rkey[31:0] remote_write[32]   0x208 MR_BASE   0x210 MR_LEN   0x2F8 MR_COMMIT
//   0x300 CQ_NUM   cq[31:0]   0x308 CQ_BASE   0x310 CQ_ENTRIES[31:0]   0x3F8 CQ_COMMIT
//   0x380 CQ_CONS  cq[31:0] consumed[63:32]: the consumer register of a queue
//   0x800 STATUS   (read) qps[7:0] regions[15:8] cqs[23:16] domain_refused[24]
`default_nettype none
module mrc_csr #(
    parameter NUM_QPS     = 4,
    parameter NUM_REGIONS = 4,
    parameter NUM_CQS     = 4
) (
    input  wire                     clk,
    input  wire                     rst,
    input  wire                     csr_we,
    input  wire [11:0]              csr_addr,
    input  wire [63:0]              csr_wdata,
    output wire [63:0]              csr_status,
    // NIC parameters
    output reg  [15:0]              cfg_pmtu,
    output reg  [6:0]               cfg_mpr,
    output reg                      cfg_per_qp,
    output reg                      cfg_ipv6,
    output reg                      cfg_vlan,
    output reg  [11:0]              cfg_vid,
    output reg  [2:0]               cfg_ports,
    output reg  [15:0]              cfg_sack_coalesce,
    output reg  [15:0]              cfg_ack_coalesce,
    output reg  [15:0]              cfg_wwi_limit,
    output reg  [31:0]              cfg_sack_delay,
    output reg  [47:0]              cfg_lmac,
    output reg  [47:0]              cfg_pmac,
    output reg  [127:0]             cfg_lip,
    output reg  [127:0]             cfg_pip,
    // QP table
    output reg  [NUM_QPS-1:0]       qp_valid,
    output reg  [24*NUM_QPS-1:0]    qp_qpn,
    output reg  [24*NUM_QPS-1:0]    qp_peer,
    output reg  [64*NUM_QPS-1:0]    qp_fbase,
    output reg  [32*NUM_QPS-1:0]    qp_fslots,
    output reg  [32*NUM_QPS-1:0]    qp_rcq,
    output reg  [NUM_QPS-1:0]       qp_rcq_v,
    output reg  [32*NUM_QPS-1:0]    qp_scq,
    output reg  [NUM_QPS-1:0]       qp_scq_v,
    output reg                      qp_create,     // pulse: row qp_create_row was created
    output reg  [3:0]               qp_create_row,
    output reg  [23:0]              qp_create_epsn,
    // region table
    output reg  [NUM_REGIONS-1:0]   mr_valid,
    output reg  [32*NUM_REGIONS-1:0] mr_rkey,
    output reg  [64*NUM_REGIONS-1:0] mr_base,
    output reg  [64*NUM_REGIONS-1:0] mr_len,
    output reg  [NUM_REGIONS-1:0]   mr_rw,
    // completion-queue table
    output reg  [NUM_CQS-1:0]       cq_valid,
    output reg  [32*NUM_CQS-1:0]    cq_num,
    output reg  [64*NUM_CQS-1:0]    cq_base,
    output reg  [32*NUM_CQS-1:0]    cq_entries,
    output reg  [32*NUM_CQS-1:0]    cq_consumed
);
    reg [7:0] nqp, nmr, ncq;
    reg domain_refused;
    reg [31:0] first_domain;
    // staging
    reg [23:0] s_qpn, s_peer, s_epsn;
    reg [31:0] s_domain, s_fslots, s_rcq, s_scq;
    reg        s_rcq_v, s_scq_v;
    reg [63:0] s_fbase;
    reg [31:0] s_rkey;
    reg        s_rw;
    reg [63:0] s_mbase, s_mlen;
    reg [31:0] s_cq, s_centries;
    reg [63:0] s_cbase;

    assign csr_status = {39'd0, domain_refused, ncq, nmr, nqp};

    integer r;
    always @(posedge clk) begin
        qp_create <= 1'b0;
        if (rst) begin
            nqp <= 8'd0;
            nmr <= 8'd0;
            ncq <= 8'd0;
            qp_valid <= {NUM_QPS{1'b0}};
            mr_valid <= {NUM_REGIONS{1'b0}};
            cq_valid <= {NUM_CQS{1'b0}};
            domain_refused <= 1'b0;
            cfg_pmtu <= 16'd4096;
            cfg_mpr <= 7'd2;
            cfg_per_qp <= 1'b0;
            cfg_ipv6 <= 1'b0;
            cfg_vlan <= 1'b0;
            cfg_vid <= 12'd0;
            cfg_ports <= 3'd1;
            cfg_sack_coalesce <= 16'd4;
            cfg_ack_coalesce <= 16'd1;
            cfg_wwi_limit <= 16'd64;
            cfg_sack_delay <= 32'd1000;
        end else if (csr_we) begin
            case (csr_addr)
                12'h000: begin
                    cfg_pmtu <= csr_wdata[15:0];
                    cfg_mpr <= csr_wdata[22:16];
                    cfg_per_qp <= csr_wdata[24];
                    cfg_ipv6 <= csr_wdata[25];
                    cfg_vlan <= csr_wdata[26];
                    cfg_vid <= csr_wdata[39:28];
                    cfg_ports <= csr_wdata[42:40];
                end
                12'h008: begin
                    cfg_sack_coalesce <= csr_wdata[15:0];
                    cfg_ack_coalesce <= csr_wdata[31:16];
                    cfg_wwi_limit <= csr_wdata[47:32];
                end
                12'h010: cfg_sack_delay <= csr_wdata[31:0];
                12'h018: cfg_lmac <= csr_wdata[47:0];
                12'h020: cfg_pmac <= csr_wdata[47:0];
                12'h028: cfg_lip[127:64] <= csr_wdata;
                12'h030: cfg_lip[63:0] <= csr_wdata;
                12'h038: cfg_pip[127:64] <= csr_wdata;
                12'h040: cfg_pip[63:0] <= csr_wdata;
                12'h100: begin
                    s_qpn <= csr_wdata[23:0];
                    s_peer <= csr_wdata[55:32];
                end
                12'h108: begin
                    s_epsn <= csr_wdata[23:0];
                    s_domain <= csr_wdata[63:32];
                end
                12'h110: s_fbase <= csr_wdata;
                12'h118: s_fslots <= csr_wdata[31:0];
                12'h120: {s_rcq_v, s_rcq} <= csr_wdata[32:0];
                12'h128: {s_scq_v, s_scq} <= csr_wdata[32:0];
                12'h1F8: begin
                    // RET-DOMAIN-001: in shared retirement this NIC has one domain; a QP of
                    // another is refused, and the harness declines the scenario
                    if (!cfg_per_qp && nqp != 8'd0 && s_domain != first_domain)
                        domain_refused <= 1'b1;
                    else if (nqp < NUM_QPS) begin
                        if (nqp == 8'd0) first_domain <= s_domain;
                        for (r = 0; r < NUM_QPS; r = r + 1) begin
                            if (r == nqp) begin
                                qp_valid[r] <= 1'b1;
                                qp_qpn[24*r +: 24] <= s_qpn;
                                qp_peer[24*r +: 24] <= s_peer;
                                qp_fbase[64*r +: 64] <= s_fbase;
                                qp_fslots[32*r +: 32] <= s_fslots;
                                qp_rcq[32*r +: 32] <= s_rcq;
                                qp_rcq_v[r] <= s_rcq_v;
                                qp_scq[32*r +: 32] <= s_scq;
                                qp_scq_v[r] <= s_scq_v;
                            end
                        end
                        qp_create <= 1'b1;
                        qp_create_row <= nqp[3:0];
                        qp_create_epsn <= s_epsn;
                        nqp <= nqp + 8'd1;
                    end
                end
                12'h200: {s_rw, s_rkey} <= csr_wdata[32:0];
                12'h208: s_mbase <= csr_wdata;
                12'h210: s_mlen <= csr_wdata;
                12'h2F8: if (nmr < NUM_REGIONS) begin
                    for (r = 0; r < NUM_REGIONS; r = r + 1) begin
                        if (r == nmr) begin
                            mr_valid[r] <= 1'b1;
                            mr_rkey[32*r +: 32] <= s_rkey;
                            mr_base[64*r +: 64] <= s_mbase;
                            mr_len[64*r +: 64] <= s_mlen;
                            mr_rw[r] <= s_rw;
                        end
                    end
                    nmr <= nmr + 8'd1;
                end
                12'h300: s_cq <= csr_wdata[31:0];
                12'h308: s_cbase <= csr_wdata;
                12'h310: s_centries <= csr_wdata[31:0];
                12'h3F8: if (ncq < NUM_CQS) begin
                    for (r = 0; r < NUM_CQS; r = r + 1) begin
                        if (r == ncq) begin
                            cq_valid[r] <= 1'b1;
                            cq_num[32*r +: 32] <= s_cq;
                            cq_base[64*r +: 64] <= s_cbase;
                            cq_entries[32*r +: 32] <= s_centries;
                            cq_consumed[32*r +: 32] <= 32'd0;
                        end
                    end
                    ncq <= ncq + 8'd1;
                end
                12'h380: begin
                    for (r = 0; r < NUM_CQS; r = r + 1)
                        if (cq_valid[r] && cq_num[32*r +: 32] == csr_wdata[31:0])
                            cq_consumed[32*r +: 32] <= csr_wdata[63:32];
                end
                default: ;
            endcase
        end
    end
endmodule
`default_nettype wire
