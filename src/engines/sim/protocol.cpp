#include "engines/sim/protocol.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engines/run.hpp"
#include "support/units.hpp"

namespace collsim {

namespace {

struct Selection {
  const char* name;
  ProtocolKind inter, intra;
};

constexpr Selection kSelections[] = {
    {"ideal", ProtocolKind::ideal, ProtocolKind::ideal},
    {"tcp", ProtocolKind::tcp, ProtocolKind::tcp},
    {"tcp+shm", ProtocolKind::tcp, ProtocolKind::shm},
};

const Selection* find_selection(const std::string& name) {
  for (const Selection& s : kSelections)
    if (name == s.name) return &s;
  return nullptr;
}

std::optional<ProtocolKind> kind_named(const std::string& name) {
  if (name == "ideal") return ProtocolKind::ideal;
  if (name == "tcp") return ProtocolKind::tcp;
  if (name == "shm") return ProtocolKind::shm;
  return std::nullopt;
}

// Applies "KEY:VALUE" of profile `p` (the part after "PROFILE/"); "" or the problem.
std::string apply(ProtocolProfile& p, const std::string& key, const std::string& value) {
  auto size = [&](std::size_t& field, std::size_t min) -> std::string {
    const auto v = parse_bytes(value);
    if (!v) return "'" + value + "' is not a size";
    if (*v < min) return "must be at least " + std::to_string(min) + " bytes";
    field = *v;
    return "";
  };
  if (key == "eager_limit") return size(p.eager_limit, p.kind == ProtocolKind::ideal ? 1 : 57);
  if (key == "send_overhead" || key == "recv_overhead") {
    std::string problem;
    const auto table = parse_overhead(value, problem);
    if (!table) return problem;
    (key == "send_overhead" ? p.send_overhead : p.recv_overhead) = *table;
    return "";
  }
  if (key == "header" && p.kind == ProtocolKind::ideal) return size(p.header, 0);
  if (key == "buffer" && p.kind == ProtocolKind::tcp) return size(p.buffer, 0);
  if (key == "inline_limit" && p.kind == ProtocolKind::shm) return size(p.inline_limit, 0);
  if (key == "interface" && p.kind == ProtocolKind::tcp) {
    if (value != "shared" && value != "fifo") return "'" + value + "' is not shared or fifo";
    p.fifo_interface = value == "fifo";
    return "";
  }
  if (key == "connect" && p.kind == ProtocolKind::tcp) {
    if (value != "established" && value != "first_use") return "'" + value + "' is not established or first_use";
    p.connect_on_first_use = value == "first_use";
    return "";
  }
  return std::string("unknown key for the ") + to_string(p.kind) +
         " profile (eager_limit, send_overhead, recv_overhead" +
         (p.kind == ProtocolKind::tcp   ? ", buffer, connect, interface"
          : p.kind == ProtocolKind::shm ? ", inline_limit"
                                        : ", header") +
         ")";
}

// Splits "PROFILE/KEY:VALUE"; false when it has no such shape.
bool split(const std::string& option, std::string& profile, std::string& key, std::string& value) {
  const auto slash = option.find('/'), colon = option.find(':');
  if (slash == std::string::npos || colon == std::string::npos || colon < slash || slash == 0 || colon == slash + 1 ||
      colon + 1 == option.size())
    return false;
  profile = option.substr(0, slash);
  key = option.substr(slash + 1, colon - slash - 1);
  value = option.substr(colon + 1);
  return true;
}

std::string apply_option(Protocols& p, const std::string& option) {
  std::string profile, key, value;
  if (!split(option, profile, key, value)) return "'" + option + "' is not PROFILE/KEY:VALUE (e.g. tcp/buffer:1MiB)";
  const auto kind = kind_named(profile);
  if (!kind) return "'" + option + "': unknown profile '" + profile + "' (ideal, tcp or shm)";
  for (ProtocolProfile* target : {&p.inter, &p.intra}) {
    if (target->kind != *kind) continue;
    const std::string problem = apply(*target, key, value);
    if (!problem.empty()) return "'" + option + "': " + problem;
  }
  // A profile the selection does not use still has its option checked.
  ProtocolProfile scratch = default_profile(*kind);
  const std::string problem = apply(scratch, key, value);
  return problem.empty() ? "" : "'" + option + "': " + problem;
}

}  // namespace

const char* to_string(ProtocolKind kind) {
  switch (kind) {
    case ProtocolKind::ideal: return "ideal";
    case ProtocolKind::tcp: return "tcp";
    case ProtocolKind::shm: return "shm";
  }
  return "?";
}

ProtocolProfile default_profile(ProtocolKind kind) {
  ProtocolProfile p;
  p.kind = kind;
  switch (kind) {
    case ProtocolKind::ideal: break;
    case ProtocolKind::tcp:
      // btl_tcp_eager_limit; 8-byte tcp header plus ob1's headers (MATCH 14, RNDV 32, PUT 56 with
      // its 16-byte segment descriptor in front of the data, FIN 24); Linux's tcp_wmem maximum.
      p.eager_limit = 65536;
      p.eager_header = 8 + 14;
      p.rndv_bytes = 8 + 32;
      p.answer_bytes = 8 + 56;
      p.data_header = 8 + 16;
      p.fin_bytes = 8 + 24;
      p.buffer = 4194304;
      break;
    case ProtocolKind::shm:
      // btl_vader_eager_limit; MATCH 14, RGET 48, FIN 24; sendi up to 256 bytes.
      p.eager_limit = 4096;
      p.eager_header = 14;
      p.rndv_bytes = 48;
      p.fin_bytes = 24;
      p.inline_limit = 256;
      break;
  }
  return p;
}

std::string send_completion(const Protocols& protocols) {
  auto clause = [](const ProtocolProfile& p) -> std::string {
    switch (p.kind) {
      case ProtocolKind::ideal: return "ideal completes a send when its data has arrived";
      case ProtocolKind::tcp:
        return "tcp completes a send once the socket buffer has taken its data (a rendezvous: after the receiver's "
               "answer), so before the data has left or arrived";
      case ProtocolKind::shm:
        return "shm completes a send of at most " + std::to_string(p.inline_limit) +
               " bytes at once (copied into the receiver's fast box), a larger one when the receiver has taken it";
    }
    return "";
  };
  const std::string inter = clause(protocols.inter), intra = clause(protocols.intra);
  if (inter == intra) return inter;
  return "between nodes " + inter + "; inside a node " + intra;
}

std::string protocol_names() {
  std::string s;
  for (const Selection& sel : kSelections) s += (s.empty() ? "" : ", ") + std::string(sel.name);
  return s;
}

bool is_protocol_name(const std::string& name) { return find_selection(name) != nullptr; }

std::string eager_limit_problem(const std::string& protocol) {
  if (protocol.empty() || protocol == "ideal") return "";
  return "applies to the ideal protocol only, not " + protocol +
         " (whose limits are the protocol options tcp/eager_limit:SIZE and shm/eager_limit:SIZE)";
}

std::string check_protocol_option(const std::string& option) {
  Protocols scratch{"", default_profile(ProtocolKind::tcp), default_profile(ProtocolKind::shm)};
  std::string problem = apply_option(scratch, option);
  if (!problem.empty()) return problem;
  Protocols ideal{"", default_profile(ProtocolKind::ideal), default_profile(ProtocolKind::ideal)};
  return apply_option(ideal, option);
}

Protocols resolve_protocols(const std::string& name, const std::vector<std::string>& options,
                            std::optional<std::size_t> ideal_eager_limit,
                            const std::function<std::string(const std::string&)>& property) {
  std::string chosen = name;
  if (chosen.empty()) {
    chosen = property("collsim/protocol");
    if (!chosen.empty() && !find_selection(chosen))
      throw InputError("platform property collsim/protocol: '" + chosen + "' is not a protocol (" + protocol_names() +
                       ")");
  }
  if (chosen.empty()) chosen = "tcp+shm";
  const Selection* sel = find_selection(chosen);
  if (!sel) throw InputError("unknown protocol '" + chosen + "' (" + protocol_names() + ")");
  Protocols p{chosen, default_profile(sel->inter), default_profile(sel->intra)};
  if (ideal_eager_limit && p.inter.kind != ProtocolKind::ideal && p.intra.kind != ProtocolKind::ideal)
    throw InputError(std::string("the eager limit (--eager-limit, sim.eager_limit) is the ideal protocol's; ") +
                     (name.empty() ? "this platform's protocol (collsim/protocol) is " : "the protocol is ") + chosen +
                     ", whose limits are the protocol options tcp/eager_limit:SIZE and shm/eager_limit:SIZE");
  for (ProtocolProfile* target : {&p.inter, &p.intra})
    if (target->kind == ProtocolKind::ideal) target->eager_limit = ideal_eager_limit.value_or(kIdealEagerLimit);
  // Platform properties, then options.
  static const char* const kKeys[] = {"eager_limit", "send_overhead", "recv_overhead", "buffer",
                                      "connect",     "interface",     "inline_limit",  "header"};
  for (const char* profile : {"ideal", "tcp", "shm"})
    for (const char* key : kKeys) {
      const std::string prop = std::string("collsim/") + profile + "/" + key;
      const std::string value = property(prop);
      if (value.empty()) continue;
      const std::string problem = apply_option(p, std::string(profile) + "/" + key + ":" + value);
      if (!problem.empty()) throw InputError("platform property " + prop + ": " + problem);
    }
  for (const std::string& o : options) {
    const std::string problem = apply_option(p, o);
    if (!problem.empty()) throw InputError("protocol option " + problem);
  }
  return p;
}

}  // namespace collsim
