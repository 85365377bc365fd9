// The RTL block, simulated by Verilator, behind a small C++ interface: configuration,
// host commands, one packet at a time, and time.
//
// The block never sees a byte of a frame: the harness hands it the header fields the
// conformance runner decoded, and gets back a verdict per packet and the fields of the
// SACKs and NACKs to send. Every call clocks the model until it is idle again.

#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

class VerilatedContext;
class Vmrc_rx_reliability;
class VerilatedVcdC;

namespace rtl {

// The verdicts of the block, as its `verdict` port encodes them (see the RTL's VERDICT_*).
enum class Verdict : uint8_t {
  Accept = 0,         // new and accepted: place the payload at RETH va
  Duplicate = 1,      // answered with a SACK
  OutOfWindow = 2,    // answered with a NACK
  UnknownQp = 3,      // discarded
  NotAWrite = 4,      // not acted on by this block
  TooLong = 5,        // discarded
  ShortSegment = 6,   // discarded
  NoAccess = 7,       // discarded
};

const char* verdict_name(Verdict v);

// The header fields of one arriving packet, as the block's pkt_* ports take them.
struct Packet {
  uint8_t opcode = 0;
  uint32_t dest_qp = 0;
  uint32_t psn = 0;
  bool ack_req = false;
  bool rtx = false;
  uint32_t ev = 0;            // the EV it arrived on
  uint16_t tx_timestamp = 0;  // TSETH tx_timestamp, 0 without a TSETH
  uint64_t va = 0;            // RETH
  uint32_t rkey = 0;          // RETH
  uint32_t payload_len = 0;   // bytes (saturated at 0xFFFF on the port)
};

// A SACK or NACK the block wants sent, as its rsp_* ports give it.
struct Response {
  uint64_t at = 0;  // ns
  bool is_nack = false;
  uint32_t dest_qp = 0;  // the peer QP
  uint32_t psn = 0;      // BTH psn
  uint32_t ev = 0;
  uint16_t tx_timestamp = 0;
  int16_t ack_psn_offset = 0;  // SACK
  uint64_t sack_bitmap = 0;    // SACK
  uint8_t mpr = 0;             // SACK
  uint16_t ooo_count = 0;      // SACK CC_STATE
  uint32_t rcvd_bytes = 0;     // SACK CC_STATE
  uint8_t nack_reason = 0;     // NACK
};

struct Config {
  uint8_t mpr = 1;
  uint16_t pmtu = 4096;
  uint16_t sack_coalesce = 4;
  uint32_t sack_delay_ns = 1000;
};

// The block stayed busy too long, or the harness used it wrongly: the device failed.
struct SimulationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class RtlReceiver {
 public:
  // A freshly reset block with this configuration; `vcd`, if not empty, names a waveform
  // file (in a build with TRACE=1).
  RtlReceiver(const Config& cfg, const std::string& vcd);
  ~RtlReceiver();
  RtlReceiver(const RtlReceiver&) = delete;
  RtlReceiver& operator=(const RtlReceiver&) = delete;

  // Host commands. Each returns false when the block's table is full.
  bool create_qp(uint32_t qpn, uint32_t peer_qpn, uint32_t peer_initial_psn);
  bool register_region(uint32_t rkey, uint64_t base, uint64_t len, bool remote_write);

  // Lets time run to `t`: each SACK timer that falls due at or before `t` fires at its
  // deadline, and the SACKs it sends are appended to `out`.
  void run_until(uint64_t t, std::vector<Response>& out);

  // Hands one packet to the block at the current time (call run_until first) and runs it
  // to completion; appends the SACK or NACK it sends to `out`.
  Verdict offer(const Packet& p, std::vector<Response>& out);

  uint64_t now() const { return now_; }

 private:
  void tick();
  void settle();
  void dump();
  void collect(std::vector<Response>* out);

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vmrc_rx_reliability> top_;
#if VM_TRACE
  std::unique_ptr<VerilatedVcdC> vcd_;  // waveforms, in a build with TRACE=1
#endif
  uint64_t now_ = 0;
  uint64_t vcd_time_ = 0;  // waveform time steps: two per clock cycle, one per settle
  bool have_verdict_ = false;
  Verdict verdict_ = Verdict::NotAWrite;
};

}  // namespace rtl
