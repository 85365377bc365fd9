// The harness: runs the responder RTL (rtl/, simulated by Verilator) as a device of the
// OpenRDMA conformance suite, speaking its adapter protocol (spec/conformance.md, section 9)
// on standard input and output: JSON Lines, one message per line. Standard error is for
// logs.
//
//   openrdma run --impl process -- build/rtl-responder-harness [--verbose] [--vcd FILE]
//
// It is thin on purpose: frames go in as their bytes (the RTL parses them; the runner's
// decoded `fields` are not asked for), frames come out as the bytes the RTL built, host
// commands become writes to the NIC's registers, and the bus monitor reports each posted
// write as it crossed the bus: payload as `dma_write`, flags as `flag_write`, completion
// entries as `completion` when byte 31 becomes visible (CONF-DEV-006). Time: the clock runs
// at 250 MHz, and each output carries the time of the clock edge where it became visible.
//
// A scenario that needs what the RTL does not have (a requester, commands from the CPU
// half, more QPs, regions or queues than its tables, a window beyond MAX_MPR) is
// `unsupported`, never failed.

#include <arpa/inet.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rtl_responder.h"

using nlohmann::json;

#if !defined(RTL_MAX_MPR) || !defined(RTL_CLK_NS)
#error "build with the Makefile: it passes RTL_MAX_MPR and RTL_CLK_NS (the RTL's parameters)"
#endif

namespace {

constexpr int kProtocolVersion = 1;

struct Unsupported {
  std::string reason;
};

struct ProtocolError {
  std::string message;
};

std::string hex(const std::vector<uint8_t>& b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  s.reserve(2 * b.size());
  for (uint8_t x : b) {
    s.push_back(d[x >> 4]);
    s.push_back(d[x & 15]);
  }
  return s;
}

std::vector<uint8_t> unhex(const std::string& s) {
  if (s.size() % 2) throw ProtocolError{"a hexadecimal string of odd length"};
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw ProtocolError{"a hexadecimal string with a non-hex digit"};
  };
  std::vector<uint8_t> b(s.size() / 2);
  for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t(nib(s[2 * i]) << 4 | nib(s[2 * i + 1]));
  return b;
}

uint64_t mac(const std::string& s) {
  unsigned v[6];
  if (std::sscanf(s.c_str(), "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
    throw ProtocolError{"a MAC address that does not read: " + s};
  uint64_t m = 0;
  for (unsigned x : v) m = m << 8 | (x & 0xFF);
  return m;
}

// An IP address as 16 bytes, an IPv4 address in the last four.
void ip(const std::string& s, uint8_t out[16]) {
  std::fill(out, out + 16, 0);
  if (s.find(':') != std::string::npos) {
    if (inet_pton(AF_INET6, s.c_str(), out) != 1) throw ProtocolError{"bad IPv6 address " + s};
  } else if (inet_pton(AF_INET, s.c_str(), out + 12) != 1) {
    throw ProtocolError{"bad IPv4 address " + s};
  }
}

uint32_t le32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 |
         uint32_t(b[at + 3]) << 24;
}

// A completion entry's fields from its 32 bytes (host-interface table 6), for an entry
// of a QP without a queue, which has no place in memory to show.
json entry_fields(const std::vector<uint8_t>& b) {
  uint64_t wr_id = 0;
  for (int i = 7; i >= 0; --i) wr_id = wr_id << 8 | b[i];
  return {{"wr_id", wr_id},
          {"status", b[8]},
          {"opcode", b[9]},
          {"has_imm", (b[10] & 1) != 0},
          {"is_receive", (b[10] & 2) != 0},
          {"has_timestamp", (b[10] & 4) != 0},
          {"flags_resv", b[10] & 0xF8},
          {"resv1", b[11]},
          {"qpn", le32(b, 12) & 0xFFFFFF},
          {"qpn_resv", b[15]},
          {"byte_len", le32(b, 16)},
          {"imm", le32(b, 20)},
          {"timestamp", le32(b, 24)},
          {"msn", uint32_t(b[28]) | uint32_t(b[29]) << 8},
          {"resv2", b[30]},
          {"phase", (b[31] & 1) != 0},
          {"owner_resv", b[31] & 0xFE}};
}

class Harness {
 public:
  Harness(std::string vcd, bool verbose) : vcd_(std::move(vcd)), verbose_(verbose) {}

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
    std::string name = "rtl-responder";
#ifdef RTL_VARIANT
    name += " (" RTL_VARIANT ")";
#endif
    return {{"type", "hello"},
            {"version", kProtocolVersion},
            {"name", name},
            {"capabilities",
             {"responder", "retirement", "shared-retirement", "per-qp-retirement",
              "write-immediate", "completion-queues", "ipv4", "ipv6", "paths"}},
            {"frame_fields", false}};
  }

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
    cfg.mpr = uint8_t(mpr);
    const auto pmtu = nic.at("pmtu").get<uint64_t>();
    if (pmtu > 4096) throw Unsupported{"a PMTU above 4096 does not fit the packet buffer"};
    cfg.pmtu = uint16_t(pmtu);
    cfg.per_qp = nic.at("retirement").get<std::string>() != "shared";
    const auto sc = nic.at("sack_coalesce").get<uint64_t>();
    const auto ac = nic.at("ack_coalesce").get<uint64_t>();
    const auto wl = nic.at("wwi_limit").get<uint64_t>();
    const auto delay = nic.at("sack_delay").get<uint64_t>();
    if (sc > 0xFFFF || ac > 0xFFFF || wl > 0xFFFF || delay > 0xFFFFFFFFull) {
      throw Unsupported{"sack_coalesce, ack_coalesce and wwi_limit must fit 16 bits, "
                        "sack_delay 32 bits of ns"};
    }
    cfg.sack_coalesce = uint16_t(sc);
    cfg.ack_coalesce = uint16_t(ac);
    cfg.wwi_limit = uint16_t(wl);
    cfg.sack_delay_ns = uint32_t(delay);
    const json& link = manifest.at("link");
    cfg.local_mac = mac(link.at("local_mac").get<std::string>());
    cfg.peer_mac = mac(link.at("peer_mac").get<std::string>());
    ip(link.at("local_ip").get<std::string>(), cfg.local_ip);
    ip(link.at("peer_ip").get<std::string>(), cfg.peer_ip);
    cfg.ipv6 = link.at("local_ip").get<std::string>().find(':') != std::string::npos;
    if (!link.at("vlan").is_null()) {
      cfg.vlan = true;
      cfg.vid = uint16_t(link.at("vlan").get<uint32_t>() & 0xFFF);
    }
    const auto ports = manifest.at("ports").get<uint64_t>();
    if (ports < 1 || ports > 7) throw Unsupported{"this RTL drives 1 to 7 ports"};
    cfg.ports = uint8_t(ports);
    seq_ = 0;
    rtl_.reset(new rtl::RtlResponder(cfg, vcd_, verbose_));
    return {{"type", "started"}};
  }

  json advance(const json& m) {
    const auto seq = m.at("seq").get<uint64_t>();
    if (seq != seq_ + 1) {
      throw ProtocolError{"advance: seq " + std::to_string(seq) + ", expected " +
                          std::to_string(seq_ + 1)};
    }
    seq_ = seq;
    std::vector<rtl::Output> out;
    for (const json& input : m.at("inputs")) {
      const auto at = input.at("at").get<uint64_t>();
      rtl_->run_until(at, out);
      apply(input.at("input"));
    }
    rtl_->run_until(m.at("until").get<uint64_t>(), out);
    json outputs = json::array();
    for (const rtl::Output& o : out) outputs.push_back({{"at", o.at}, {"output", render(o)}});
    return {{"type", "outputs"}, {"seq", seq}, {"outputs", outputs}};
  }

  void apply(const json& input) {
    const std::string kind = input.at("kind").get<std::string>();
    if (kind == "host") return host(input.at("command"));
    if (kind == "cpu") throw Unsupported{"this NIC takes no commands from a CPU half"};
    if (kind != "frame") throw ProtocolError{"advance: unknown input kind \"" + kind + "\""};
    rtl_->receive(unhex(input.at("bytes").get<std::string>()));
  }

  static uint32_t opt_u32(const json& c, const char* key, bool& present) {
    present = c.contains(key) && !c.at(key).is_null();
    return present ? c.at(key).get<uint32_t>() : 0;
  }

  void host(const json& c) {
    const std::string command = c.at("command").get<std::string>();
    if (command == "create_qp") {
      bool has_rcq = false, has_scq = false;
      const uint32_t rcq = opt_u32(c, "recv_cq", has_rcq);
      const uint32_t scq = opt_u32(c, "send_cq", has_scq);
      if (!rtl_->create_qp(c.at("qpn").get<uint32_t>(), c.at("peer_qpn").get<uint32_t>(),
                           c.at("peer_initial_psn").get<uint32_t>(),
                           c.value("domain", uint32_t(0)),
                           c.at("recv_flag_base").get<uint64_t>(),
                           c.at("recv_flag_slots").get<uint32_t>(), has_rcq, rcq, has_scq,
                           scq)) {
        throw Unsupported{"the scenario creates more QPs (or shared domains) than the RTL holds"};
      }
    } else if (command == "register_region") {
      if (!rtl_->register_region(c.at("rkey").get<uint32_t>(), c.at("base").get<uint64_t>(),
                                 c.at("len").get<uint64_t>(),
                                 c.at("remote_write").get<bool>())) {
        throw Unsupported{"the scenario registers more regions than the RTL's table holds"};
      }
    } else if (command == "create_cq") {
      if (!rtl_->create_cq(c.at("cq").get<uint32_t>(), c.at("base").get<uint64_t>(),
                           c.at("entries").get<uint32_t>())) {
        throw Unsupported{"the scenario creates more completion queues than the RTL holds"};
      }
    } else if (command == "cq_consumer") {
      rtl_->cq_consumer(c.at("cq").get<uint32_t>(), c.at("consumed").get<uint32_t>());
    } else {
      throw Unsupported{"host command " + command + " is for a requester or a device error "
                        "queue; this RTL has neither"};
    }
  }

  json render(const rtl::Output& o) const {
    using K = rtl::Output;
    switch (o.kind) {
      case K::Frame:
        return {{"kind", "frame"}, {"port", o.port}, {"bytes", hex(o.bytes)}};
      case K::DmaWrite:
        return {{"kind", "event"},
                {"event",
                 {{"event", "dma_write"},
                  {"qpn", o.qpn},
                  {"psn", o.psn},
                  {"msn", o.msn},
                  {"va", o.addr},
                  {"payload", {{"bytes", hex(o.bytes)}}}}}};
      case K::Flag: {
        uint64_t v = 0;
        for (size_t i = o.bytes.size(); i-- > 0;) v = v << 8 | o.bytes[i];
        return {{"kind", "event"},
                {"event",
                 {{"event", "flag_write"},
                  {"qpn", o.qpn},
                  {"side", "responder"},
                  {"msn", o.msn},
                  {"addr", o.addr},
                  {"value", v}}}};
      }
      case K::Completion:
        return {{"kind", "event"},
                {"event",
                 {{"event", "completion"},
                  {"side", "responder"},
                  {"queue",
                   {{"cq", o.cq}, {"slot", o.slot}, {"addr", o.addr}, {"bytes", hex(o.bytes)}}}}}};
      case K::CompletionNoQueue:
        return {{"kind", "event"},
                {"event",
                 {{"event", "completion"}, {"side", "responder"}, {"entry", entry_fields(o.bytes)}}}};
      case K::Report:
        return {{"kind", "event"},
                {"event",
                 {{"event", "report"},
                  {"report", "qp_error"},
                  {"qpn", o.qpn},
                  {"requirement", o.cause == 0 ? "WWI-LIMIT-002" : "CQE-RING-004"}}}};
    }
    return json::object();
  }

  std::string vcd_;
  bool verbose_ = false;
  bool greeted_ = false;
  std::unique_ptr<rtl::RtlResponder> rtl_;
  uint64_t seq_ = 0;
};

FILE* g_protocol = stdout;

void send(const json& m) {
  const std::string line = m.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), g_protocol);
  std::fflush(g_protocol);
}

}  // namespace

int main(int argc, char** argv) {
  std::string vcd;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--vcd" && i + 1 < argc) {
      vcd = argv[++i];
    } else if (a == "--verbose") {
      verbose = true;
    } else {
      std::cerr << "usage: " << argv[0] << " [--vcd FILE] [--verbose]\n";
      return 2;
    }
  }
  // The protocol keeps the original standard output; everything else printed (a $display,
  // a Verilator warning) goes to standard error.
  const int protocol_fd = dup(STDOUT_FILENO);
  if (protocol_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 ||
      (g_protocol = fdopen(protocol_fd, "w")) == nullptr) {
    std::cerr << "rtl-responder: cannot set up standard output\n";
    return 2;
  }
  Harness harness(vcd, verbose);
  std::string line;
  while (std::getline(std::cin, line)) {
    try {
      send(harness.answer(json::parse(line)));
    } catch (const ProtocolError& e) {
      send({{"type", "error"}, {"message", e.message}});
      return 2;
    } catch (const json::exception& e) {
      send({{"type", "error"}, {"message", std::string("malformed message: ") + e.what()}});
      return 2;
    }
  }
  return 0;
}
