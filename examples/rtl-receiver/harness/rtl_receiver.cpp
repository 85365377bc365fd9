#include "rtl_receiver.h"

#include "Vmrc_rx_reliability.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif

namespace rtl {

namespace {
// The longest the block may stay busy for one packet or one timer: the window slide takes
// one cycle per PSN, so a few thousand cycles is far beyond any correct run.
constexpr uint64_t kMaxBusyCycles = 100000;
}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Accept: return "accept";
    case Verdict::Duplicate: return "duplicate";
    case Verdict::OutOfWindow: return "out of window";
    case Verdict::UnknownQp: return "unknown QP";
    case Verdict::NotAWrite: return "not a write";
    case Verdict::TooLong: return "payload longer than the PMTU";
    case Verdict::ShortSegment: return "FIRST or MIDDLE shorter than the PMTU";
    case Verdict::NoAccess: return "no access to the region";
  }
  return "?";
}

RtlReceiver::RtlReceiver(const Config& cfg, const std::string& vcd)
    : ctx_(new VerilatedContext), top_(new Vmrc_rx_reliability(ctx_.get())) {
  if (!vcd.empty()) {
#if VM_TRACE
    ctx_->traceEverOn(true);
    vcd_.reset(new VerilatedVcdC);
    top_->trace(vcd_.get(), 99);
    vcd_->open(vcd.c_str());
#else
    (void)vcd;
    throw SimulationError("--vcd needs a build with tracing: make build TRACE=1");
#endif
  }
  top_->cfg_mpr = cfg.mpr;
  top_->cfg_pmtu = cfg.pmtu;
  top_->cfg_sack_coalesce = cfg.sack_coalesce;
  top_->cfg_sack_delay_ns = cfg.sack_delay_ns;
  top_->rsp_ready = 1;
  top_->now_ns = 0;
  top_->rst = 1;
  tick();
  tick();
  top_->rst = 0;
  settle();
}

RtlReceiver::~RtlReceiver() {
  top_->final();
#if VM_TRACE
  if (vcd_) vcd_->close();
#endif
}

void RtlReceiver::settle() {
  top_->eval();
  dump();
}

// Writes the signals to the waveform, one time step per evaluation.
void RtlReceiver::dump() {
#if VM_TRACE
  if (vcd_) vcd_->dump(vcd_time_++);
#endif
}

// One clock cycle; outputs are read after the rising edge.
void RtlReceiver::tick() {
  top_->clk = 0;
  top_->eval();
  dump();
  top_->clk = 1;
  settle();
}

// Reads what the block presents after an edge: a verdict, a response (rsp_ready is always
// high, so each response is presented for exactly one cycle).
void RtlReceiver::collect(std::vector<Response>* out) {
  if (top_->verdict_valid) {
    have_verdict_ = true;
    verdict_ = static_cast<Verdict>(top_->verdict);
  }
  if (top_->rsp_valid && out != nullptr) {
    Response r;
    r.at = now_;
    r.is_nack = top_->rsp_is_nack;
    r.dest_qp = top_->rsp_dest_qp;
    r.psn = top_->rsp_psn;
    r.ev = top_->rsp_ev;
    r.tx_timestamp = top_->rsp_tx_timestamp;
    r.ack_psn_offset = static_cast<int16_t>(top_->rsp_ack_psn_offset);
    r.sack_bitmap = top_->rsp_sack_bitmap;
    r.mpr = top_->rsp_mpr;
    r.ooo_count = top_->rsp_ooo_count;
    r.rcvd_bytes = top_->rsp_rcvd_bytes;
    r.nack_reason = top_->rsp_nack_reason;
    out->push_back(r);
  }
}

bool RtlReceiver::create_qp(uint32_t qpn, uint32_t peer_qpn, uint32_t peer_initial_psn) {
  if (top_->qp_table_full) return false;
  top_->qp_create = 1;
  top_->qp_create_qpn = qpn;
  top_->qp_create_peer_qpn = peer_qpn;
  top_->qp_create_epsn = peer_initial_psn;
  tick();
  top_->qp_create = 0;
  settle();
  return true;
}

bool RtlReceiver::register_region(uint32_t rkey, uint64_t base, uint64_t len,
                                  bool remote_write) {
  if (top_->mr_table_full) return false;
  top_->mr_register = 1;
  top_->mr_rkey = rkey;
  top_->mr_base = base;
  top_->mr_len = len;
  top_->mr_remote_write = remote_write;
  tick();
  top_->mr_register = 0;
  settle();
  return true;
}

void RtlReceiver::run_until(uint64_t t, std::vector<Response>& out) {
  while (top_->timer_pending && top_->timer_deadline <= t) {
    // Time jumps to the deadline; the block fires the timer there.
    now_ = top_->timer_deadline > now_ ? top_->timer_deadline : now_;
    top_->now_ns = now_;
    settle();
    for (uint64_t n = 0; top_->busy; ++n) {
      if (n == kMaxBusyCycles) throw SimulationError("the block stayed busy on a timer");
      tick();
      collect(&out);
    }
  }
  now_ = t > now_ ? t : now_;
  top_->now_ns = now_;
  settle();
}

Verdict RtlReceiver::offer(const Packet& p, std::vector<Response>& out) {
  top_->pkt_opcode = p.opcode;
  top_->pkt_dest_qp = p.dest_qp & 0xFFFFFF;
  top_->pkt_psn = p.psn & 0xFFFFFF;
  top_->pkt_ack_req = p.ack_req;
  top_->pkt_rtx = p.rtx;
  top_->pkt_ev = p.ev;
  top_->pkt_tx_timestamp = p.tx_timestamp;
  top_->pkt_va = p.va;
  top_->pkt_rkey = p.rkey;
  top_->pkt_payload_len = p.payload_len > 0xFFFF ? 0xFFFF : p.payload_len;
  top_->pkt_valid = 1;
  settle();
  have_verdict_ = false;
  for (uint64_t n = 0; !top_->pkt_ready; ++n) {
    if (n == kMaxBusyCycles) throw SimulationError("the block never took the packet");
    tick();
    collect(&out);
  }
  tick();  // the edge that takes the packet
  top_->pkt_valid = 0;
  settle();
  collect(&out);
  for (uint64_t n = 0; top_->busy; ++n) {
    if (n == kMaxBusyCycles) throw SimulationError("the block stayed busy on a packet");
    tick();
    collect(&out);
  }
  if (!have_verdict_) throw SimulationError("the block gave no verdict for a packet");
  return verdict_;
}

}  // namespace rtl
