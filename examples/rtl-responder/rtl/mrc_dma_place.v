// mrc_dma_place: placement and the host bus (receiver RCV-PLACE-003; completion
// FLAG-ORDER-001, FLAG-ORDER-002; host-interface CQE-RING-003).
//
// One queue of commands, carried out in order, so that every write becomes visible in the
// order it was decided: a packet's payload, then the completion entries and flags of the
// messages it retired. Each command becomes posted memory writes on the bus, PCIe style:
//
//   - a write carries at most MAX_PAYLOAD bytes (a power of two from DW/8 to 4096) and never
//     crosses a MAX_PAYLOAD-aligned boundary, hence never a 4 KiB one;
//   - its first and last DW byte enables (bw_fbe, bw_lbe) follow the address and length;
//     a one-DW write has bw_lbe = 0;
//   - its data goes out as beats of DW bits (512 by default, as a PCIe x16 core at 250 MHz
//     presents them; 64 is the other choice) aligned on DW/8-byte addresses, beat k
//     covering (addr & ~(DW/8 - 1)) + k * DW/8, with a byte strobe each; bw_sop marks the
//     first beat, bw_eop the last.
//
// The payload is read from the packet buffer at its offset in the frame and realigned to
// the destination address (a barrel shift across two buffer words). Every write is tagged
// with the kind and the identity of what it carries (QP, PSN, MSN, or queue and slot), as a
// DMA engine knows them, for the bus monitor of the testbench. A completion entry is one
// naturally aligned 32-byte write (CQE-RING-003); an entry of a QP without a queue, and a
// report to the CPU half, take the same path so that they keep their order.
//
// Deliberate bug: BUG_ADDR_32 keeps the destination address in a 32-bit register.
`default_nettype none
module mrc_dma_place #(
    parameter DW          = 512,  // bus and packet-buffer word width in bits (64 or 512)
    parameter SLOT_AW     = 13 - $clog2(DW / 8),  // words per packet-buffer slot (8 KiB)
    parameter SLOTS_W     = 2,
    parameter MAX_PAYLOAD = 256,
    parameter QAW         = 4    // queue depth 2^QAW
) (
    input  wire                 clk,
    input  wire                 rst,
    // commands
    input  wire                 c_push,
    output wire [QAW:0]         c_free,
    input  wire [2:0]           c_kind,   // 0 data, 1 flag, 2 entry, 3 entry without queue, 4 report
    input  wire [63:0]          c_addr,
    input  wire [15:0]          c_len,    // data: payload bytes
    input  wire [SLOTS_W-1:0]   c_slot,   // data: packet-buffer slot
    input  wire [15:0]          c_src,    // data: payload offset in the frame
    input  wire [23:0]          c_qpn,
    input  wire [23:0]          c_psn,
    input  wire [15:0]          c_msn,
    input  wire [31:0]          c_cq,
    input  wire [31:0]          c_cslot,
    input  wire [255:0]         c_data,   // flag (63:0) or completion entry; report: cause
    // packet buffer
    output reg  [SLOT_AW+SLOTS_W-1:0] pb_raddr,
    input  wire [DW-1:0]        pb_rdata,
    output reg  [(1<<SLOTS_W)-1:0] slot_free,
    // the bus
    output reg                  bw_valid,
    output reg                  bw_sop,
    output reg                  bw_eop,
    output reg  [2:0]           bw_kind,
    output reg  [63:0]          bw_addr,
    output reg  [12:0]          bw_len,
    output reg  [3:0]           bw_fbe,
    output reg  [3:0]           bw_lbe,
    output reg  [DW-1:0]        bw_data,
    output reg  [DW/8-1:0]      bw_strb,
    output reg  [23:0]          bw_qpn,
    output reg  [23:0]          bw_psn,
    output reg  [15:0]          bw_msn,
    output reg  [31:0]          bw_cq,
    output reg  [31:0]          bw_cslot,
    output wire                 idle
);
    localparam DB = DW / 8;  // bytes a beat
    localparam LB = $clog2(DB);
    localparam CW = 3 + 64 + 16 + SLOTS_W + 16 + 24 + 24 + 16 + 32 + 32 + 256;
    localparam QD = 1 << QAW;

    reg [CW-1:0] q [0:QD-1];
    reg [QAW:0]  wp, rp;
    wire [QAW:0] count = wp - rp;
    assign c_free = QD[QAW:0] - count;

    always @(posedge clk) begin
        if (c_push) q[wp[QAW-1:0]] <= {c_kind, c_addr, c_len, c_slot, c_src, c_qpn, c_psn,
                                       c_msn, c_cq, c_cslot, c_data};
    end

    wire [CW-1:0] head = q[rp[QAW-1:0]];
    wire [2:0]   h_kind  = head[CW-1 -: 3];
    wire [63:0]  h_addr  = head[CW-4 -: 64];
    wire [15:0]  h_len   = head[CW-68 -: 16];
    wire [SLOTS_W-1:0] h_slot = head[CW-84 -: SLOTS_W];
    wire [15:0]  h_src   = head[CW-84-SLOTS_W -: 16];
    wire [23:0]  h_qpn   = head[CW-100-SLOTS_W -: 24];
    wire [23:0]  h_psn   = head[CW-124-SLOTS_W -: 24];
    wire [15:0]  h_msn   = head[CW-148-SLOTS_W -: 16];
    wire [31:0]  h_cq    = head[CW-164-SLOTS_W -: 32];
    wire [31:0]  h_cslot = head[CW-196-SLOTS_W -: 32];
    wire [255:0] h_data  = head[255:0];

    // the destination address as the engine holds it
`ifdef BUG_ADDR_32
    wire [63:0]  h_dst   = {32'd0, h_addr[31:0]};
`else
    wire [63:0]  h_dst   = h_addr;
`endif

    localparam D_IDLE = 3'd0, D_CHUNK = 3'd1, D_BEATS = 3'd2, D_SMALL = 3'd3;
    reg [2:0]  ds;
    reg [63:0] cur;       // next byte address to write
    reg [15:0] rem;       // payload bytes left
    reg [15:0] delta;     // source byte = destination address + delta (low 16 bits)
    reg [SLOTS_W-1:0] slot;
    reg [2:0]  kind;
    reg [23:0] qpn, psn;
    reg [15:0] msn;
    reg [31:0] cq, cslot;
    reg [255:0] data;
    // the write in progress
    reg [63:0] w_addr;    // its first byte
    reg [12:0] w_len;
    reg [15:0] nbeats, rcnt, bcnt;  // beats of the write; words read; beats sent
    reg [15:0] rtotal;    // beats of the whole payload
    reg [DW-1:0] prev;
    reg        have_prev;
    reg [15:0] rword;     // next packet-buffer word to read
    reg        rd_p1, rd_pending;  // a read issued one, two cycles ago

    assign idle = ds == D_IDLE && count == 0;

    // the size of the next write: up to the next MAX_PAYLOAD boundary
    wire [12:0] to_boundary = MAX_PAYLOAD[12:0] - {1'b0, cur[11:0] & (MAX_PAYLOAD[11:0] - 12'd1)};
    wire [12:0] clen = {3'd0, rem} < {3'd0, to_boundary} ? rem[12:0] : to_boundary;
    wire [63:0] aligned = cur >> LB << LB;

    // byte enables of a write (PCIe posted write rules)
    function [7:0] be;
        input [63:0] a;
        input [12:0] n;
        reg [63:0] e;
        reg [3:0] f, l;
        begin
            e = a + {51'd0, n} - 64'd1;
            f = 4'b1111 << a[1:0];
            l = 4'b1111 >> (2'd3 - e[1:0]);
            if (a[63:2] == e[63:2]) begin
                f = f & l;
                l = 4'b0000;
            end
            be = {l, f};
        end
    endfunction

    // strobe of a beat at aligned address b for the write [wa, wa + wn)
    function [DB-1:0] strb;
        input [63:0] b;
        input [63:0] wa;
        input [12:0] wn;
        integer i;
        begin
            for (i = 0; i < DB; i = i + 1)
                strb[i] = (b + i) >= wa && (b + i) < wa + {51'd0, wn};
        end
    endfunction

    wire [2*DW-1:0] pair = {pb_rdata, prev};
    wire [DW-1:0]   shifted = pair >> (8 * delta[LB-1:0]);
    wire [63:0]     beat_addr = (w_addr >> LB << LB) + ({48'd0, bcnt} << LB);
    // a small write (flag, entry, report): the beat at beat_addr holds the bytes of `data`
    // from (beat_addr - cur) on, `data` standing DB bytes into a line of zeros
    wire [7:0]      s_off = beat_addr[7:0] + DB[7:0] - cur[7:0];
    wire [DW+255:0] s_line = {data, {DW{1'b0}}} >> (8 * s_off);

    always @(posedge clk) begin
        bw_valid <= 1'b0;
        bw_sop <= 1'b0;
        bw_eop <= 1'b0;
        slot_free <= {(1<<SLOTS_W){1'b0}};
        if (rst) begin
            wp <= 0;
            rp <= 0;
            ds <= D_IDLE;
        end else begin
            if (c_push) wp <= wp + 1'b1;
            case (ds)
                D_IDLE: if (count != 0) begin
                    kind <= h_kind;
                    qpn <= h_qpn;
                    psn <= h_psn;
                    msn <= h_msn;
                    cq <= h_cq;
                    cslot <= h_cslot;
                    data <= h_data;
                    slot <= h_slot;
                    cur <= h_dst;
                    delta <= h_src - h_addr[15:0];
                    rem <= h_kind == 3'd0 ? h_len : h_kind == 3'd1 ? 16'd8 :
                           (h_kind == 3'd4 ? 16'd8 : 16'd32);
                    // a small write is one write at cur: w_addr and nbeats for its beats
                    w_addr <= h_dst;
                    nbeats <= ({16'd0, h_dst[LB-1:0]} +
                               (h_kind == 3'd2 || h_kind == 3'd3 ? 16'd32 : 16'd8) + DB - 1) >> LB;
                    bcnt <= 16'd0;
                    rp <= rp + 1'b1;
                    ds <= h_kind == 3'd0 ? D_CHUNK : D_SMALL;
                end
                D_CHUNK: begin
                    // the first write: its size; then read the buffer from the word that
                    // holds the byte for its first aligned address, a word a cycle for the
                    // whole payload
                    w_addr <= cur;
                    w_len <= clen;
                    nbeats <= ({16'd0, cur[LB-1:0]} + {3'd0, clen} + DB - 1) >> LB;
                    bcnt <= 16'd0;
                    rcnt <= 16'd0;
                    rtotal <= ({16'd0, cur[LB-1:0]} + rem + DB - 1) >> LB;
                    rword <= (aligned[15:0] + delta) >> LB;
                    have_prev <= 1'b0;
                    rd_p1 <= 1'b0;
                    rd_pending <= 1'b0;
                    cur <= cur + {51'd0, clen};
                    rem <= rem - {3'd0, clen};
                    ds <= D_BEATS;
                end
                D_BEATS: begin
                    // issue reads one word ahead; each beat takes two consecutive words. The
                    // writes of a payload follow each other beat after beat: each but the
                    // first starts on a MAX_PAYLOAD boundary, so on a beat of its own.
                    if (rcnt <= rtotal) begin
                        pb_raddr <= {slot, rword[SLOT_AW-1:0]};
                        rword <= rword + 16'd1;
                        rcnt <= rcnt + 16'd1;
                    end
                    rd_p1 <= rcnt <= rtotal;
                    rd_pending <= rd_p1;
                    if (rd_pending) begin
                        prev <= pb_rdata;
                        have_prev <= 1'b1;
                        if (have_prev) begin
                            bw_valid <= 1'b1;
                            bw_sop <= bcnt == 16'd0;
                            bw_eop <= bcnt == nbeats - 16'd1;
                            bw_kind <= 3'd0;
                            bw_addr <= w_addr;
                            bw_len <= w_len;
                            {bw_lbe, bw_fbe} <= be(w_addr, w_len);
                            bw_data <= shifted;
                            bw_strb <= strb(beat_addr, w_addr, w_len);
                            bw_qpn <= qpn;
                            bw_psn <= psn;
                            bw_msn <= msn;
                            bcnt <= bcnt + 16'd1;
                            if (bcnt == nbeats - 16'd1) begin
                                if (rem == 16'd0) begin
                                    slot_free[slot] <= 1'b1;
                                    ds <= D_IDLE;
                                end else begin
                                    // the next write, from the next beat on
                                    w_addr <= cur;
                                    w_len <= clen;
                                    nbeats <= ({3'd0, clen} + DB - 1) >> LB;
                                    bcnt <= 16'd0;
                                    cur <= cur + {51'd0, clen};
                                    rem <= rem - {3'd0, clen};
                                end
                            end
                        end
                    end
                end
                D_SMALL: begin
                    // a flag (8 bytes), a completion entry (32 bytes; one beat of 64 bytes,
                    // four of 8) or a report (8 bytes)
                    bw_valid <= 1'b1;
                    bw_sop <= bcnt == 16'd0;
                    bw_eop <= bcnt == nbeats - 16'd1;
                    bw_kind <= kind;
                    bw_addr <= cur;
                    bw_len <= rem[12:0];
                    {bw_lbe, bw_fbe} <= be(cur, rem[12:0]);
                    bw_data <= s_line[DW-1:0];
                    bw_strb <= strb(beat_addr, cur, rem[12:0]);
                    bw_qpn <= qpn;
                    bw_psn <= 24'd0;
                    bw_msn <= msn;
                    bw_cq <= cq;
                    bw_cslot <= cslot;
                    bcnt <= bcnt + 16'd1;
                    if (bcnt == nbeats - 16'd1) ds <= D_IDLE;
                end
                default: ds <= D_IDLE;
            endcase
        end
    end
endmodule
`default_nettype wire
