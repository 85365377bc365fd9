// The responder RTL, simulated by Verilator, behind a small C++ interface: host registers,
// frames in, and what the NIC makes visible — frames on its ports and the posted writes of
// its host bus, reassembled by a bus monitor — each at the time of the clock edge where it
// became visible.

#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

class VerilatedContext;
class Vmrc_responder;
class VerilatedVcdC;

namespace rtl {

// What the bus monitor and the MAC saw, in the order they became visible.
struct Output {
  enum Kind { Frame, DmaWrite, Flag, Completion, CompletionNoQueue, Report } kind = Frame;
  uint64_t at = 0;  // ns
  uint32_t port = 0;                // Frame
  std::vector<uint8_t> bytes;       // Frame; DmaWrite payload; Flag, Completion: bytes written
  uint64_t addr = 0;                // bus writes
  uint32_t qpn = 0, psn = 0, msn = 0;
  uint32_t cq = 0, slot = 0;        // Completion
  uint32_t cause = 0;               // Report: 0 WWI-LIMIT-002, 1 CQE-RING-004
};

// The NIC parameters of a scenario (receiver table 1, the manifest's link).
struct Config {
  uint16_t pmtu = 4096;
  uint8_t mpr = 2;
  bool per_qp = false;
  uint16_t sack_coalesce = 4;
  uint16_t ack_coalesce = 1;
  uint16_t wwi_limit = 64;
  uint32_t sack_delay_ns = 1000;
  bool ipv6 = false;
  bool vlan = false;
  uint16_t vid = 0;
  uint8_t ports = 1;
  uint64_t local_mac = 0, peer_mac = 0;
  uint8_t local_ip[16] = {}, peer_ip[16] = {};  // IPv4 in the last four bytes
};

// The RTL failed (a bus write that breaks the posted-write rules, a model that never gets
// idle): the device failed.
struct SimulationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class RtlResponder {
 public:
  RtlResponder(const Config& cfg, const std::string& vcd, bool verbose);
  ~RtlResponder();
  RtlResponder(const RtlResponder&) = delete;
  RtlResponder& operator=(const RtlResponder&) = delete;

  // Host commands, as writes to the NIC's registers. Each returns false when the NIC's
  // table for it is full (or, for a QP, when it would need a second shared domain).
  bool create_qp(uint32_t qpn, uint32_t peer_qpn, uint32_t peer_initial_psn, uint32_t domain,
                 uint64_t flag_base, uint32_t flag_slots, bool has_rcq, uint32_t rcq,
                 bool has_scq, uint32_t scq);
  bool register_region(uint32_t rkey, uint64_t base, uint64_t len, bool remote_write);
  bool create_cq(uint32_t cq, uint64_t base, uint32_t entries);
  void cq_consumer(uint32_t cq, uint32_t consumed);

  // A frame arrives from the wire: the MAC presents it as soon as the NIC takes frames.
  void receive(std::vector<uint8_t> frame);

  // Lets the clock run until `t` (never past it), collecting what becomes visible.
  void run_until(uint64_t t, std::vector<Output>& out);

  uint64_t now() const;

 private:
  void tick(std::vector<Output>* out);
  void csr(uint32_t addr, uint64_t data);
  uint64_t status();
  void collect(std::vector<Output>* out);
  void log(const std::string& what) const;

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vmrc_responder> top_;
#if VM_TRACE
  std::unique_ptr<VerilatedVcdC> vcd_;
#endif
  uint64_t vcd_time_ = 0;
  bool verbose_ = false;
  // the MAC's receive queue and the beat being presented
  std::deque<std::vector<uint8_t>> rx_;
  size_t rx_off_ = 0;
  // the frame being sent
  std::vector<uint8_t> tx_;
  // the bus write being received
  struct Write {
    uint32_t kind = 0;
    uint64_t addr = 0;
    uint32_t len = 0, fbe = 0, lbe = 0;
    uint32_t qpn = 0, psn = 0, msn = 0, cq = 0, slot = 0;
    uint32_t beat = 0;
    std::map<uint64_t, uint8_t> bytes;
  } w_;
  bool in_write_ = false;
  // memory of the completion queues, as the bus wrote it (CONF-DEV-006)
  std::map<uint64_t, uint8_t> cq_mem_;
};

}  // namespace rtl
