// The harness: runs the RTL receiver (rtl/mrc_rx_reliability.v, simulated by Verilator)
// as a device of the OpenRDMA conformance suite, speaking its adapter protocol
// (spec/conformance.md, section 9) on standard input and output: JSON Lines, one message
// per line. Standard error is for logs.
//
//   openrdma run --impl process -- build/rtl-receiver-harness [--scope FILE] [--verbose]
//                                                              [--vcd FILE]
//
// What it does per message:
//   hello    says which capabilities it has: responder, ipv4, ipv6.
//   start    checks the scenario against what the RTL holds (mpr, the requirements of
//            scope.txt), and builds a freshly reset RTL configured from the manifest.
//   advance  for each input, lets time run to it (SACK timers fire at their deadlines), then
//            hands it to the RTL: create_qp and register_region go to its tables, a frame
//            goes in as the header fields the runner decoded (the `fields` beside the bytes:
//            no packet decoder here). Then time runs to `until`. Out come the SACKs and
//            NACKs the RTL decided, as `fields` for the runner to frame (the harness builds
//            no frames either), and a DMA write of the payload for each packet accepted.
//   finish   drops the RTL.
//
// Anything the RTL does not do makes the scenario `unsupported`, never failed: a requester
// command, a CPU command, more QPs or regions than its tables hold.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rtl_receiver.h"

using nlohmann::json;

#if !defined(RTL_MAX_MPR) || !defined(RTL_SCOPE_FILE)
#error "build with the Makefile: it passes RTL_MAX_MPR (the RTL's MAX_MPR) and RTL_SCOPE_FILE"
#endif

namespace {

constexpr int kProtocolVersion = 1;

// The scenario cannot run on this device: answered `unsupported`.
struct Unsupported {
  std::string reason;
};

// The runner broke the protocol: answered `error`, then the harness exits with status 2.
struct ProtocolError {
  std::string message;
};

// ---- scope.txt: which requirements the RTL implements ----------------------------------

struct ScopeEntry {
  std::string status;  // implemented, retirement or declined
  std::string why;
};

std::map<std::string, ScopeEntry> load_scope(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the scope file " + path);
  std::map<std::string, ScopeEntry> scope;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string id, status, why;
    fields >> id >> status;
    std::getline(fields >> std::ws, why);
    if (status != "implemented" && status != "retirement" && status != "declined") {
      throw std::runtime_error(path + ":" + std::to_string(n) + ": status of " + id +
                               " must be implemented, retirement or declined");
    }
    scope[id] = {status, why};
  }
  return scope;
}

// ---- small helpers -----------------------------------------------------------------------

// The entropy value of a frame: UDP source port in bits 31:16, and over IPv6 the low 16
// bits of the flow label in bits 15:0.
uint32_t entropy_of(const json& f) {
  uint32_t ev = f.at("udp").at("src_port").get<uint32_t>() << 16;
  if (f.contains("ipv6")) ev |= f.at("ipv6").at("flow_label").get<uint32_t>() & 0xFFFF;
  return ev;
}

// The bytes of a frame given in hexadecimal.
std::vector<uint8_t> unhex(const std::string& hex) {
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = std::stoul(hex.substr(2 * i, 2), nullptr, 16);
  return out;
}

// The ones' complement sum of `n` bytes at `p`, folded to 16 bits (RFC 1071).
uint32_t sum16(const uint8_t* p, size_t n, uint32_t acc = 0) {
  for (size_t i = 0; i + 1 < n; i += 2) acc += (p[i] << 8) | p[i + 1];
  if (n & 1) acc += p[n - 1] << 8;
  while (acc >> 16) acc = (acc & 0xFFFF) + (acc >> 16);
  return acc;
}

// Whether the MAC and the IP/UDP layer drop the frame before the block sees it, for what
// the decoded fields do not say: a second VLAN tag (ENC-VLAN-002), a wrong IPv4 header
// checksum (ENC-IPV4-003), a non-zero UDP checksum that is wrong (ENC-UDP-006).
bool edge_drops(const std::string& bytes_hex, const json& f) {
  std::vector<uint8_t> b = unhex(bytes_hex);
  auto be16 = [&](size_t at) { return at + 2 <= b.size() ? (b[at] << 8) | b[at + 1] : 0; };
  size_t l2 = 14;
  uint32_t type = be16(12);
  if (type == 0x8100 || type == 0x88A8) {
    type = be16(16);
    l2 = 18;
    if (type == 0x8100 || type == 0x88A8) return true;
  }
  size_t udp, udp_len;
  uint32_t pseudo;
  if (f.contains("ipv4")) {
    size_t ihl = (b[l2] & 0xF) * 4;
    if (l2 + ihl > b.size() || sum16(&b[l2], ihl) != 0xFFFF) return true;
    udp = l2 + ihl;
    udp_len = be16(udp + 4);
    pseudo = sum16(&b[l2 + 12], 8, 17 + udp_len);
  } else {
    udp = l2 + 40;
    udp_len = be16(udp + 4);
    pseudo = sum16(&b[l2 + 8], 32, 17 + udp_len);
  }
  if (udp + udp_len > b.size() || be16(udp + 6) == 0) return false;
  return sum16(&b[udp], udp_len, pseudo) != 0xFFFF;
}

// The payload of a frame, in hexadecimal, cut from its bytes (also hexadecimal) using the
// lengths the runner decoded: it ends before the pad and the 4-byte ICRC, at the end of the
// IP packet.
std::string payload_hex(const std::string& bytes_hex, const json& f) {
  size_t l2 = 14 + (f.contains("vlan") ? 4 : 0);
  size_t ip_len = f.contains("ipv4") ? f.at("ipv4").at("total_len").get<size_t>()
                                     : 40 + f.at("ipv6").at("payload_len").get<size_t>();
  size_t pad = f.at("pad_len").get<size_t>();
  size_t len = f.at("payload_len").get<size_t>();
  size_t end = l2 + ip_len;
  if (end < 4 + pad + len || 2 * end > bytes_hex.size()) {
    throw ProtocolError{"a frame's decoded lengths do not fit its bytes"};
  }
  size_t start = end - 4 - pad - len;
  return bytes_hex.substr(2 * start, 2 * len);
}

// ---- the device ------------------------------------------------------------------------

class Harness {
 public:
  Harness(std::map<std::string, ScopeEntry> scope, std::string vcd, bool verbose)
      : scope_(std::move(scope)), vcd_(std::move(vcd)), verbose_(verbose) {}

  // Answers one message; throws ProtocolError when the runner broke the protocol.
  json answer(const json& m) {
    const std::string type = m.at("type").get<std::string>();
    if (type == "hello") return hello(m);
    if (!greeted_) throw ProtocolError{"expected hello, got " + type};
    if (type == "start") return guarded([&] { return start(m.at("manifest")); });
    if (type == "advance") {
      if (!rtl_) throw ProtocolError{"expected start, got advance"};
      return guarded([&] { return advance(m); });
    }
    if (type == "finish") {
      if (!rtl_) throw ProtocolError{"expected start, got finish"};
      rtl_.reset();
      return {{"type", "finished"}};
    }
    throw ProtocolError{"unknown message type \"" + type + "\""};
  }

 private:
  json hello(const json& m) {
    const int version = m.at("version").get<int>();
    if (version != kProtocolVersion) {
      throw ProtocolError{"adapter protocol version " + std::to_string(version) +
                          " is not spoken here; supported: 1"};
    }
    greeted_ = true;
    std::string name = "rtl-receiver";
#ifdef RTL_VARIANT
    name += " (" RTL_VARIANT ")";
#endif
    // Not `retirement`: flags, completions and transport ACKs are another block's.
    return {{"type", "hello"},
            {"version", kProtocolVersion},
            {"name", name},
            {"capabilities", {"responder", "ipv4", "ipv6"}}};
  }

  // Runs `f`; a scenario the RTL cannot hold is `unsupported`, a failing RTL an `error`.
  template <typename F>
  json guarded(F f) {
    try {
      return f();
    } catch (const Unsupported& u) {
      rtl_.reset();
      return {{"type", "unsupported"}, {"reason", u.reason}};
    } catch (const rtl::SimulationError& e) {
      rtl_.reset();
      return {{"type", "error"}, {"message", std::string("RTL: ") + e.what()}};
    }
  }

  json start(const json& manifest) {
    rtl_.reset();
    const json& nic = manifest.at("nic");
    rtl::Config cfg;
    const auto mpr = nic.at("mpr").get<uint64_t>();
    if (mpr < 1 || mpr > RTL_MAX_MPR) {
      throw Unsupported{"mpr " + std::to_string(mpr) + " needs a window of " +
                        std::to_string(mpr * 128) + " PSNs; this RTL holds " +
                        std::to_string(RTL_MAX_MPR * 128)};
    }
    cfg.mpr = static_cast<uint8_t>(mpr);
    cfg.pmtu = static_cast<uint16_t>(nic.at("pmtu").get<uint32_t>());
    const auto coalesce = nic.at("sack_coalesce").get<uint64_t>();
    const auto delay = nic.at("sack_delay").get<uint64_t>();
    if (coalesce > 0xFFFF || delay > 0xFFFFFFFFull) {
      throw Unsupported{"sack_coalesce must fit 16 bits and sack_delay 32 bits of ns"};
    }
    cfg.sack_coalesce = static_cast<uint16_t>(coalesce);
    cfg.sack_delay_ns = static_cast<uint32_t>(delay);

    // Requirements this RTL does not implement (scope.txt): decline the scenario.
    std::string missing;
    for (const auto& id_json : manifest.at("requirements")) {
      const std::string id = id_json.get<std::string>();
      auto it = scope_.find(id);
      const bool declined = it != scope_.end() ? it->second.status == "declined"
                                               : id.rfind("RCV-", 0) == 0;
      if (declined) {
        missing += (missing.empty() ? "" : "; ") + id + " (" +
                   (it != scope_.end() ? it->second.why : "not in scope.txt") + ")";
      }
    }
    if (!missing.empty()) throw Unsupported{"the RTL does not implement " + missing};

    link_ = manifest.at("link");
    ports_ = std::max<uint32_t>(1, manifest.at("ports").get<uint32_t>());
    ipv6_ = link_.at("local_ip").get<std::string>().find(':') != std::string::npos;
    seq_ = 0;
    rtl_.reset(new rtl::RtlReceiver(cfg, vcd_));
    return {{"type", "started"}};
  }

  json advance(const json& m) {
    const auto seq = m.at("seq").get<uint64_t>();
    if (seq != seq_ + 1) {
      throw ProtocolError{"advance: seq " + std::to_string(seq) + ", expected " +
                          std::to_string(seq_ + 1)};
    }
    seq_ = seq;
    json outputs = json::array();
    for (const json& input : m.at("inputs")) {
      const auto at = input.at("at").get<uint64_t>();
      if (at < rtl_->now()) throw ProtocolError{"advance: an input goes back in time"};
      emit_responses(outputs, [&](auto& out) { rtl_->run_until(at, out); });
      apply(input.at("input"), at, outputs);
    }
    const auto until = m.at("until").get<uint64_t>();
    if (until < rtl_->now()) throw ProtocolError{"advance: until goes back in time"};
    emit_responses(outputs, [&](auto& out) { rtl_->run_until(until, out); });
    return {{"type", "outputs"}, {"seq", seq}, {"outputs", outputs}};
  }

  void apply(const json& input, uint64_t at, json& outputs) {
    const std::string kind = input.at("kind").get<std::string>();
    if (kind == "host") return host(input.at("command"));
    if (kind == "cpu") {
      throw Unsupported{"this RTL has no requester and takes no commands from the CPU half"};
    }
    if (kind != "frame") throw ProtocolError{"advance: unknown input kind \"" + kind + "\""};
    if (!input.contains("fields")) {
      throw ProtocolError{"advance: a frame without `fields` (this harness needs them)"};
    }
    const json& f = input.at("fields");
    // The MAC's job: frames that do not decode, or whose ICRC is bad (ICRC-VERIFY-001),
    // never reach the block; nor do frames that are not RoCEv2, or that the edge drops.
    if (!f.at("error").is_null() || f.at("icrc") != "ok" || !f.contains("bth") ||
        edge_drops(input.at("bytes").get<std::string>(), f)) {
      log(at, "frame dropped by the MAC");
      return;
    }
    const json& bth = f.at("bth");
    rtl::Packet p;
    p.opcode = bth.at("opcode").get<uint8_t>();
    p.dest_qp = bth.at("dest_qp").get<uint32_t>();
    p.psn = bth.at("psn").get<uint32_t>();
    p.ack_req = bth.at("ack_req").get<bool>();
    p.rtx = bth.at("rtx").get<bool>();
    p.ev = entropy_of(f);
    if (f.contains("tseth")) p.tx_timestamp = f.at("tseth").at("tx_timestamp").get<uint16_t>();
    if (f.contains("reth")) {
      p.va = f.at("reth").at("va").get<uint64_t>();
      p.rkey = f.at("reth").at("rkey").get<uint32_t>();
    }
    p.payload_len = f.at("payload_len").get<uint32_t>();

    rtl::Verdict v = rtl::Verdict::NotAWrite;
    emit_responses(outputs, [&](auto& out) { v = rtl_->offer(p, out); });
    log(at, "qp " + std::to_string(p.dest_qp) + " psn " + std::to_string(p.psn) + ": " +
                rtl::verdict_name(v));
    if (v == rtl::Verdict::Accept && p.payload_len > 0) {
      // RCV-PLACE-003: one DMA write of the payload at RETH va.
      json dma = {{"event", "dma_write"},
                  {"qpn", p.dest_qp},
                  {"psn", p.psn},
                  {"msn", f.at("meth").at("msn")},
                  {"va", p.va},
                  {"payload", {{"bytes", payload_hex(input.at("bytes").get<std::string>(), f)}}}};
      outputs.push_back({{"at", at}, {"output", {{"kind", "event"}, {"event", dma}}}});
    }
  }

  void host(const json& c) {
    const std::string command = c.at("command").get<std::string>();
    if (command == "create_qp") {
      if (!rtl_->create_qp(c.at("qpn").get<uint32_t>(), c.at("peer_qpn").get<uint32_t>(),
                           c.at("peer_initial_psn").get<uint32_t>())) {
        throw Unsupported{"the scenario creates more QPs than the RTL's QP table holds"};
      }
    } else if (command == "register_region") {
      if (!rtl_->register_region(c.at("rkey").get<uint32_t>(), c.at("base").get<uint64_t>(),
                                 c.at("len").get<uint64_t>(),
                                 c.at("remote_write").get<bool>())) {
        throw Unsupported{"the scenario registers more regions than the RTL's table holds"};
      }
    } else {
      throw Unsupported{"host command " + command + " is for a requester; this RTL has none"};
    }
  }

  // Runs `f`, which appends the RTL's responses to a list, and adds them to `outputs` as
  // frames given by their fields.
  template <typename F>
  void emit_responses(json& outputs, F f) {
    std::vector<rtl::Response> out;
    f(out);
    for (const rtl::Response& r : out) {
      outputs.push_back({{"at", r.at},
                         {"output",
                          {{"kind", "frame"}, {"port", r.ev % ports_}, {"fields", frame(r)}}}});
    }
  }

  // A SACK or NACK as the fields of its frame (CONF-ADP-015): the runner computes the
  // lengths, checksums and ICRC. Outer headers as the scenario's link says, the EV in the
  // UDP source port and, over IPv6, the flow label (RCV-SACK-006, RCV-NACK-001).
  json frame(const rtl::Response& r) const {
    const int ip_type = ipv6_ ? 0x86DD : 0x0800;
    json f;
    const bool tagged = !link_.at("vlan").is_null();
    f["eth"] = {{"dst", link_.at("peer_mac")},
                {"src", link_.at("local_mac")},
                {"ethertype", tagged ? 0x8100 : ip_type}};
    if (tagged) {
      f["vlan"] = {{"pcp", 0}, {"dei", false}, {"vid", link_.at("vlan")}, {"ethertype", ip_type}};
    }
    if (ipv6_) {
      f["ipv6"] = {{"version", 6},           {"traffic_class", 0},
                   {"flow_label", r.ev & 0xFFFF}, {"next_header", 17},
                   {"hop_limit", 64},        {"src", link_.at("local_ip")},
                   {"dst", link_.at("peer_ip")}};
    } else {
      f["ipv4"] = {{"version", 4},      {"dscp", 0},         {"ecn", 0},
                   {"ident", 0},        {"flag_reserved", false}, {"dont_frag", true},
                   {"more_frags", false}, {"frag_offset", 0}, {"ttl", 64},
                   {"protocol", 17},    {"src", link_.at("local_ip")},
                   {"dst", link_.at("peer_ip")}, {"options", json::array()}};
    }
    f["udp"] = {{"src_port", r.ev >> 16}, {"dst_port", 4791}};
    f["bth"] = {{"opcode", r.is_nack ? 0xDD : 0xDC},
                {"solicited", false},
                {"mig_req", false},
                {"tver", 0},
                {"pkey", 0xFFFF},
                {"fecn", false},
                {"becn", false},
                {"resv6", 0},
                {"dest_qp", r.dest_qp},
                {"ack_req", false},
                {"rtx", false},
                {"ts", false},
                {"resv8", 0},
                {"psn", r.psn}};
    if (r.is_nack) {
      f["neth"] = {{"res_type", 0},  {"next_header", 0},  {"resv1", 0},
                   {"reason", r.nack_reason}, {"vendor_info", 0}, {"entropy", r.ev},
                   {"spdcid", 0},    {"dpdcid", 0},       {"resv12", 0},
                   {"nack_psn", r.psn}, {"cc_type", 0},   {"cc_flags", 0},
                   {"resv17", 0},    {"tx_timestamp", r.tx_timestamp}};
    } else {
      f["seth"] = {{"res_type", 0},
                   {"next_header", 0},
                   {"m", 0},
                   {"resv1", 0},
                   {"pr", false},
                   {"ack_psn_offset", r.ack_psn_offset},
                   {"entropy", r.ev},
                   {"spdcid", 0},
                   {"dpdcid", 0},
                   {"resv12", 0},
                   {"cack_psn", r.psn},
                   {"cc_type", 0},
                   {"cc_flags", 0},
                   {"mpr", r.mpr},
                   {"sack_offset", 1},
                   {"sack_bitmap", r.sack_bitmap}};
      f["cc_state"] = {{"tx_timestamp", r.tx_timestamp}, {"resv", false},
                       {"ooo_count", r.ooo_count},       {"r_c", false},
                       {"rcv_cwnd_pen", 0},              {"rcvd_bytes", r.rcvd_bytes}};
    }
    return f;
  }

  void log(uint64_t at, const std::string& what) const {
    if (verbose_) std::cerr << "rtl-receiver @" << at << " ns: " << what << "\n";
  }

  std::map<std::string, ScopeEntry> scope_;
  std::string vcd_;
  bool verbose_ = false;
  bool greeted_ = false;
  std::unique_ptr<rtl::RtlReceiver> rtl_;
  json link_;
  uint32_t ports_ = 1;
  bool ipv6_ = false;
  uint64_t seq_ = 0;
};

// The protocol's channel: the process's original standard output. Standard output itself is
// pointed at standard error (see main), so that whatever the simulation prints — a $display
// in the RTL, a Verilator warning — cannot corrupt the conversation.
FILE* g_protocol = stdout;

void send(const json& m) {
  const std::string line = m.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), g_protocol);
  std::fflush(g_protocol);
}

}  // namespace

int main(int argc, char** argv) {
  // The example's scope.txt, where the build found it; --scope names another.
  std::string scope_path = RTL_SCOPE_FILE;
  std::string vcd;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--scope" && i + 1 < argc) {
      scope_path = argv[++i];
    } else if (a == "--vcd" && i + 1 < argc) {
      vcd = argv[++i];
    } else if (a == "--verbose") {
      verbose = true;
    } else {
      std::cerr << "usage: " << argv[0] << " [--scope FILE] [--vcd FILE] [--verbose]\n";
      return 2;
    }
  }
  std::map<std::string, ScopeEntry> scope;
  try {
    scope = load_scope(scope_path);
  } catch (const std::exception& e) {
    std::cerr << "rtl-receiver: " << e.what() << "\n";
    return 2;
  }

  const int protocol_fd = dup(STDOUT_FILENO);
  if (protocol_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 ||
      (g_protocol = fdopen(protocol_fd, "w")) == nullptr) {
    std::cerr << "rtl-receiver: cannot set up standard output\n";
    return 2;
  }

  Harness harness(std::move(scope), vcd, verbose);
  std::string line;
  while (std::getline(std::cin, line)) {
    try {
      const json m = json::parse(line);
      send(harness.answer(m));
    } catch (const ProtocolError& e) {
      send({{"type", "error"}, {"message", e.message}});
      return 2;
    } catch (const json::exception& e) {
      // CONF-ADP-012: a message this harness cannot read ends the conversation.
      send({{"type", "error"}, {"message", std::string("malformed message: ") + e.what()}});
      return 2;
    }
  }
  return 0;
}
