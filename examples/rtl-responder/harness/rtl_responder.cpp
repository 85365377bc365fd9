#include "rtl_responder.h"

#include <algorithm>
#include <iostream>
#include <sstream>
#include <type_traits>

#include "Vmrc_responder.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif

namespace rtl {

namespace {
// The longest the NIC may stay busy with no frame waiting, in cycles: far beyond any run.
constexpr uint64_t kMaxBusyCycles = 1000000;

#ifndef RTL_DATA_W
#error "build with the Makefile: it passes RTL_DATA_W (the RTL's DATA_W)"
#endif
// Bytes a beat of the frame interfaces and of the bus.
constexpr size_t kBeat = RTL_DATA_W / 8;

uint64_t be64(const uint8_t* b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | b[i];
  return v;
}

// Byte i of a data port: a 64-bit port is an integer, a wider one Verilator's array of
// 32-bit words.
template <typename T>
uint8_t get_byte(const T& port, size_t i) {
  if constexpr (std::is_integral_v<T>) {
    return uint8_t(uint64_t(port) >> (8 * i));
  } else {
    return uint8_t(port[i / 4] >> (8 * (i % 4)));
  }
}

template <typename T>
void set_bytes(T& port, const uint8_t* b, size_t n) {
  if constexpr (std::is_integral_v<T>) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(b[i]) << (8 * i);
    port = v;
  } else {
    for (size_t w = 0; w < kBeat / 4; ++w) port[w] = 0;
    for (size_t i = 0; i < n; ++i) port[i / 4] |= uint32_t(b[i]) << (8 * (i % 4));
  }
}

// Lane i of a keep or strobe port (one bit a byte: at most 64).
bool lane(uint64_t mask, size_t i) { return mask >> i & 1; }
}  // namespace

RtlResponder::RtlResponder(const Config& cfg, const std::string& vcd, bool verbose)
    : ctx_(new VerilatedContext), top_(new Vmrc_responder(ctx_.get())), verbose_(verbose) {
  if (!vcd.empty()) {
#if VM_TRACE
    ctx_->traceEverOn(true);
    vcd_.reset(new VerilatedVcdC);
    top_->trace(vcd_.get(), 99);
    vcd_->open(vcd.c_str());
#else
    throw SimulationError("--vcd needs a build with tracing: make build TRACE=1");
#endif
  }
  top_->m_tready = 1;
  top_->rst = 1;
  tick(nullptr);
  tick(nullptr);
  top_->rst = 0;
  // the NIC parameters (mrc_csr's register map)
  csr(0x000, uint64_t(cfg.pmtu) | uint64_t(cfg.mpr) << 16 | uint64_t(cfg.per_qp) << 24 |
                 uint64_t(cfg.ipv6) << 25 | uint64_t(cfg.vlan) << 26 |
                 uint64_t(cfg.vid & 0xFFF) << 28 | uint64_t(cfg.ports & 7) << 40);
  csr(0x008, uint64_t(cfg.sack_coalesce) | uint64_t(cfg.ack_coalesce) << 16 |
                 uint64_t(cfg.wwi_limit) << 32);
  csr(0x010, cfg.sack_delay_ns);
  csr(0x018, cfg.local_mac);
  csr(0x020, cfg.peer_mac);
  csr(0x028, be64(cfg.local_ip));
  csr(0x030, be64(cfg.local_ip + 8));
  csr(0x038, be64(cfg.peer_ip));
  csr(0x040, be64(cfg.peer_ip + 8));
  // the NIC clears its tables after reset (the retirement table, one entry a cycle)
  for (int n = 0; !top_->idle; ++n) {
    if (n == 100000) throw SimulationError("the NIC never came out of reset");
    tick(nullptr);
  }
  // the scenario's clock starts now
  top_->time_load = 1;
  top_->time_value = 0;
  tick(nullptr);
  top_->time_load = 0;
  top_->eval();
}

RtlResponder::~RtlResponder() {
  top_->final();
#if VM_TRACE
  if (vcd_) vcd_->close();
#endif
}

uint64_t RtlResponder::now() const { return top_->now_ns; }

void RtlResponder::log(const std::string& what) const {
  if (verbose_) std::cerr << "rtl-responder @" << top_->now_ns << " ns: " << what << "\n";
}

void RtlResponder::csr(uint32_t addr, uint64_t data) {
  top_->csr_we = 1;
  top_->csr_addr = addr;
  top_->csr_wdata = data;
  tick(nullptr);
  top_->csr_we = 0;
}

uint64_t RtlResponder::status() {
  top_->eval();
  return top_->csr_status;
}

bool RtlResponder::create_qp(uint32_t qpn, uint32_t peer_qpn, uint32_t peer_initial_psn,
                             uint32_t domain, uint64_t flag_base, uint32_t flag_slots,
                             bool has_rcq, uint32_t rcq, bool has_scq, uint32_t scq) {
  const uint64_t before = status();
  csr(0x100, uint64_t(qpn & 0xFFFFFF) | uint64_t(peer_qpn & 0xFFFFFF) << 32);
  csr(0x108, uint64_t(peer_initial_psn & 0xFFFFFF) | uint64_t(domain) << 32);
  csr(0x110, flag_base);
  csr(0x118, flag_slots);
  csr(0x120, uint64_t(rcq) | uint64_t(has_rcq) << 32);
  csr(0x128, uint64_t(scq) | uint64_t(has_scq) << 32);
  csr(0x1F8, 1);
  const uint64_t after = status();
  return (after & 0xFF) == (before & 0xFF) + 1 && !(after >> 24 & 1);
}

bool RtlResponder::register_region(uint32_t rkey, uint64_t base, uint64_t len,
                                   bool remote_write) {
  const uint64_t before = status();
  csr(0x200, uint64_t(rkey) | uint64_t(remote_write) << 32);
  csr(0x208, base);
  csr(0x210, len);
  csr(0x2F8, 1);
  return (status() >> 8 & 0xFF) == (before >> 8 & 0xFF) + 1;
}

bool RtlResponder::create_cq(uint32_t cq, uint64_t base, uint32_t entries) {
  const uint64_t before = status();
  csr(0x300, cq);
  csr(0x308, base);
  csr(0x310, entries);
  csr(0x3F8, 1);
  return (status() >> 16 & 0xFF) == (before >> 16 & 0xFF) + 1;
}

void RtlResponder::cq_consumer(uint32_t cq, uint32_t consumed) {
  csr(0x380, uint64_t(cq) | uint64_t(consumed) << 32);
}

void RtlResponder::receive(std::vector<uint8_t> frame) {
  if (!frame.empty()) rx_.push_back(std::move(frame));
}

// One clock cycle. The MAC's beat is driven before the edge; what the NIC shows after the
// edge is collected.
void RtlResponder::tick(std::vector<Output>* out) {
  // present the next beat of the frame at the head of the receive queue
  if (!rx_.empty()) {
    const auto& f = rx_.front();
    const size_t n = std::min(kBeat, f.size() - rx_off_);
    set_bytes(top_->s_tdata, f.data() + rx_off_, n);
    top_->s_tkeep = n == 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
    top_->s_tlast = rx_off_ + kBeat >= f.size();
    top_->s_tvalid = 1;
  } else {
    top_->s_tvalid = 0;
  }
  top_->clk = 0;
  top_->eval();
  const bool took = top_->s_tvalid && top_->s_tready;
#if VM_TRACE
  if (vcd_) vcd_->dump(vcd_time_++);
#endif
  top_->clk = 1;
  top_->eval();
#if VM_TRACE
  if (vcd_) vcd_->dump(vcd_time_++);
#endif
  if (took) {
    rx_off_ += kBeat;
    if (rx_off_ >= rx_.front().size()) {
      rx_.pop_front();
      rx_off_ = 0;
    }
  }
  if (out != nullptr) collect(out);
}

void RtlResponder::run_until(uint64_t t, std::vector<Output>& out) {
  uint64_t busy = 0;
  while (true) {
    const uint64_t now = top_->now_ns;
    // Nothing to do but wait: jump to the next SACK timer or to t.
    top_->eval();
    if (rx_.empty() && top_->idle && !in_write_ && tx_.empty()) {
      uint64_t next = t;
      if (top_->timer_pending && top_->timer_deadline < next) next = top_->timer_deadline;
      if (next > now + RTL_CLK_NS) {
        top_->time_load = 1;
        top_->time_value = next;
        tick(&out);
        top_->time_load = 0;
        continue;
      }
      busy = 0;
    } else if (++busy > kMaxBusyCycles) {
      throw SimulationError("the NIC stayed busy for a million cycles");
    }
    if (now + RTL_CLK_NS > t) break;
    tick(&out);
  }
}

void RtlResponder::collect(std::vector<Output>* out) {
  const uint64_t now = top_->now_ns;
  // the MAC
  if (top_->m_tvalid) {
    for (size_t i = 0; i < kBeat; ++i)
      if (lane(top_->m_tkeep, i)) tx_.push_back(get_byte(top_->m_tdata, i));
    if (top_->m_tlast) {
      Output o;
      o.kind = Output::Frame;
      o.at = now;
      o.port = top_->m_tport;
      o.bytes.swap(tx_);
      out->push_back(std::move(o));
      log("frame out, port " + std::to_string(o.port));
    }
  }
  // the bus monitor: reassemble each posted write, check its rules, and report it
  if (top_->bw_valid) {
    if (top_->bw_sop) {
      if (in_write_) throw SimulationError("bus: a write started inside another");
      w_ = Write();
      w_.kind = top_->bw_kind;
      w_.addr = top_->bw_addr;
      w_.len = top_->bw_len;
      w_.fbe = top_->bw_fbe;
      w_.lbe = top_->bw_lbe;
      w_.qpn = top_->bw_qpn;
      w_.psn = top_->bw_psn;
      w_.msn = top_->bw_msn;
      w_.cq = top_->bw_cq;
      w_.slot = top_->bw_cslot;
      in_write_ = true;
    } else if (!in_write_) {
      throw SimulationError("bus: a data beat outside a write");
    }
    const uint64_t beat_addr = (w_.addr & ~uint64_t(kBeat - 1)) + kBeat * uint64_t(w_.beat++);
    for (size_t i = 0; i < kBeat; ++i)
      if (lane(top_->bw_strb, i)) w_.bytes[beat_addr + i] = get_byte(top_->bw_data, i);
    if (top_->bw_eop) {
      in_write_ = false;
      log("bus write, kind " + std::to_string(w_.kind) + ", " + std::to_string(w_.bytes.size()) +
          " bytes at 0x" + [&] {
            std::ostringstream a;
            a << std::hex << w_.addr;
            return a.str();
          }());
      Output o;
      o.at = now;
      o.addr = w_.addr;
      o.qpn = w_.qpn;
      o.psn = w_.psn;
      o.msn = w_.msn;
      for (const auto& kv : w_.bytes) o.bytes.push_back(kv.second);
      if (w_.kind == 4) {
        o.kind = Output::Report;
        o.cause = o.bytes.empty() ? 0 : o.bytes[0];
        out->push_back(std::move(o));
        return;
      }
      if (w_.kind == 3) {
        // an entry of a QP without a completion queue: no place in memory
        o.kind = Output::CompletionNoQueue;
        out->push_back(std::move(o));
        return;
      }
      // The rules of a posted write: the bytes are contiguous from the address, as many as
      // the length; at most 4 KiB and inside one 4 KiB page; byte enables that match.
      const uint64_t first = w_.addr, last = w_.addr + w_.len - 1;
      if (w_.len == 0 || w_.bytes.size() != w_.len || w_.bytes.begin()->first != first ||
          w_.bytes.rbegin()->first != last) {
        throw SimulationError("bus: a write's strobes do not cover its address and length");
      }
      if ((first >> 12) != (last >> 12)) throw SimulationError("bus: a write crosses 4 KiB");
      uint32_t fbe = (0xFu << (first & 3)) & 0xF, lbe = 0xFu >> (3 - (last & 3));
      if ((first >> 2) == (last >> 2)) {
        fbe &= lbe;
        lbe = 0;
      }
      if (fbe != w_.fbe || lbe != w_.lbe) throw SimulationError("bus: wrong byte enables");
      if (w_.kind == 0) {
        o.kind = Output::DmaWrite;
      } else if (w_.kind == 1) {
        o.kind = Output::Flag;
      } else {
        // CONF-DEV-006: the entry when byte 31 of its slot becomes visible, with the bytes
        // the slot holds then
        for (const auto& kv : w_.bytes) cq_mem_[kv.first] = kv.second;
        const uint64_t slot_addr = w_.addr & ~uint64_t(31);
        if (w_.addr + w_.len <= slot_addr + 31) return;
        o.kind = Output::Completion;
        o.addr = slot_addr;
        o.cq = w_.cq;
        o.slot = w_.slot;
        o.bytes.clear();
        for (uint64_t a = slot_addr; a < slot_addr + 32; ++a) {
          auto it = cq_mem_.find(a);
          o.bytes.push_back(it == cq_mem_.end() ? 0 : it->second);
        }
      }
      out->push_back(std::move(o));
    }
  }
}

}  // namespace rtl
