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
  const char* inter;  // the profiles' names
  const char* intra;
};

constexpr Selection kSelections[] = {
    {"ideal", "ideal", "ideal"},
    {"tcp", "tcp", "tcp"},
    {"tcp+shm", "tcp", "shm"},
    {"ucx", "ucx", "ucx_sm"},
};

constexpr const char* kProfiles[] = {"ideal", "tcp", "shm", "ucx", "ucx_sm"};

const Selection* find_selection(const std::string& name) {
  for (const Selection& s : kSelections)
    if (name == s.name) return &s;
  return nullptr;
}

bool is_ucx(const ProtocolProfile& p) { return std::string(p.name).starts_with("ucx"); }

// The keys profile `p` takes, for the message naming an unknown one.
std::string keys_of(const ProtocolProfile& p) {
  const std::string overheads = "send_overhead, recv_overhead, get_overhead, sync_overhead, yield_overhead";
  if (is_ucx(p))
    return "rndv_thresh, rndv_send_nbr_thresh" +
           std::string(p.kind == ProtocolKind::rdma ? ", zcopy_thresh, max_short, " : ", ") + overheads;
  switch (p.kind) {
    case ProtocolKind::tcp: return "eager_limit, " + overheads + ", buffer, connect, interface";
    case ProtocolKind::shm: return "eager_limit, " + overheads + ", inline_limit";
    default: return "eager_limit, " + overheads + ", header";
  }
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
  const bool ucx = is_ucx(p);
  if (key == "eager_limit" && !ucx) return size(p.eager_limit, p.kind == ProtocolKind::ideal ? 1 : 57);
  if (key == "send_overhead" || key == "recv_overhead" || key == "get_overhead") {
    std::string problem;
    const auto table = parse_overhead(value, problem);
    if (!table) return problem;
    if (key == "get_overhead")
      p.get_overhead = *table;
    else
      (key == "send_overhead" ? p.send_overhead : p.recv_overhead) = *table;
    return "";
  }
  if (key == "sync_overhead" || key == "yield_overhead") {
    const auto t = parse_seconds(value);
    if (!t || *t < 0 || !std::isfinite(*t)) return "'" + value + "' is not a time of 0 or more (e.g. 1.5us)";
    (key == "sync_overhead" ? p.sync_overhead : p.yield_overhead) = *t;
    return "";
  }
  if (ucx && key == "rndv_thresh") return size(p.eager_limit, 1);
  if (ucx && key == "rndv_send_nbr_thresh") return size(p.blocking_eager_limit, 1);
  if (p.kind == ProtocolKind::rdma && key == "zcopy_thresh") return size(p.zcopy_limit, 0);
  if (p.kind == ProtocolKind::rdma && key == "max_short") return size(p.inline_limit, 0);
  if (key == "header" && p.kind == ProtocolKind::ideal) return size(p.header, 0);
  if (key == "buffer" && p.kind == ProtocolKind::tcp) return size(p.buffer, 0);
  if (key == "inline_limit" && p.kind == ProtocolKind::shm && !ucx) return size(p.inline_limit, 0);
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
  return std::string("unknown key for the ") + p.name + " profile (" + keys_of(p) + ")";
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
  const auto defaults = default_profile(profile);
  if (!defaults) return "'" + option + "': unknown profile '" + profile + "' (ideal, tcp, shm, ucx or ucx_sm)";
  for (ProtocolProfile* target : {&p.inter, &p.intra}) {
    if (profile != target->name) continue;
    const std::string problem = apply(*target, key, value);
    if (!problem.empty()) return "'" + option + "': " + problem;
  }
  // A profile the selection does not use still has its option checked.
  ProtocolProfile scratch = *defaults;
  const std::string problem = apply(scratch, key, value);
  return problem.empty() ? "" : "'" + option + "': " + problem;
}

}  // namespace

const char* to_string(ProtocolKind kind) {
  switch (kind) {
    case ProtocolKind::ideal: return "ideal";
    case ProtocolKind::tcp: return "tcp";
    case ProtocolKind::shm: return "shm";
    case ProtocolKind::rdma: return "rdma";
  }
  return "?";
}

// Where each value comes from: protocol.hpp's file comment.
std::optional<ProtocolProfile> default_profile(const std::string& name) {
  using K = ProtocolKind;
  if (name == "ideal") return ProtocolProfile{};
  // btl_tcp_eager_limit; 8-byte tcp header plus ob1's headers (MATCH 14, RNDV 32, PUT 56 with
  // its 16-byte segment descriptor in front of the data, FIN 24); Linux's tcp_wmem maximum.
  if (name == "tcp")
    return ProtocolProfile{.kind = K::tcp,
                           .name = "tcp",
                           .eager_limit = 65536,
                           .eager_reserve = 56,
                           .eager_header = 8 + 14,
                           .rndv_bytes = 8 + 32,
                           .answer_bytes = 8 + 56,
                           .data_header = 8 + 16,
                           .fin_bytes = 8 + 24,
                           .buffer = 4194304};
  // btl_vader_eager_limit; MATCH 14, RGET 48, FIN 24; sendi up to 256 bytes.
  if (name == "shm")
    return ProtocolProfile{.kind = K::shm,
                           .name = "shm",
                           .eager_limit = 4096,
                           .eager_reserve = 56,
                           .eager_header = 14,
                           .rndv_bytes = 48,
                           .fin_bytes = 24,
                           .inline_limit = 256};
  if (name == "ucx")
    return ProtocolProfile{.kind = K::rdma,
                           .name = "ucx",
                           .eager_limit = 29119,
                           .blocking_eager_limit = 262144,
                           .zcopy_limit = 2153,
                           .eager_header = 8,
                           .rndv_bytes = 33 + 8 + 17,
                           .fin_bytes = 9,
                           .inline_limit = 2038};
  // Every eager send completes once the sender has copied it into the receiver's FIFO.
  if (name == "ucx_sm")
    return ProtocolProfile{.kind = K::shm,
                           .name = "ucx_sm",
                           .eager_limit = 8256,
                           .blocking_eager_limit = 262144,
                           .eager_header = 8,
                           .rndv_bytes = 33 + 8 + 9,
                           .fin_bytes = 9,
                           .inline_limit = SIZE_MAX};
  return std::nullopt;
}

models::ProtocolSwitch ProtocolProfile::protocol_switch() const {
  models::ProtocolSwitch s{eager_payload(), 0, 0};
  switch (kind) {
    case ProtocolKind::ideal: break;
    case ProtocolKind::tcp:
      s.handshake_messages = 2, s.handshake_bytes = rndv_bytes + answer_bytes;
      s.eager_handover = true;  // an eager send completes once the socket buffer holds it (protocol.hpp)
      break;
    case ProtocolKind::shm: s.handshake_messages = 1, s.handshake_bytes = rndv_bytes; break;
    case ProtocolKind::rdma: s.handshake_messages = 2, s.handshake_bytes = rndv_bytes; break;
  }
  return s;
}

std::string send_completion(const Protocols& protocols) {
  auto clause = [](const ProtocolProfile& p) -> std::string {
    switch (p.kind) {
      case ProtocolKind::ideal: return "ideal completes a send when its data has arrived";
      case ProtocolKind::tcp:
        return "tcp completes a send once the socket buffer has taken its data (a rendezvous: after the receiver's "
               "answer), so before the data has left or arrived";
      case ProtocolKind::shm:
        if (p.inline_limit == SIZE_MAX)
          return std::string(p.name) +
                 " completes an eager send once copied into the receiver's shared memory, a rendezvous when the "
                 "receiver has copied it";
        return "shm completes a send of at most " + std::to_string(p.inline_limit) +
               " bytes at once (copied into the receiver's fast box), a larger one when the receiver has taken it";
      case ProtocolKind::rdma:
        return std::string(p.name) + " completes an eager send of at most " + std::to_string(p.inline_limit) +
               " bytes at once, a larger one once copied into its buffers or, zero-copy, when the network has "
               "acknowledged it, a rendezvous when the receiver's read is done";
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
         " (whose limits are the protocol options tcp/eager_limit:SIZE, shm/eager_limit:SIZE and "
         "ucx/rndv_thresh:SIZE)";
}

std::string check_protocol_option(const std::string& option) {
  Protocols none{"", ProtocolProfile{}, ProtocolProfile{}};
  none.inter.name = none.intra.name = "";  // no profile in use: apply_option checks the option alone
  return apply_option(none, option);
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
  Protocols p{chosen, *default_profile(sel->inter), *default_profile(sel->intra)};
  if (ideal_eager_limit && p.inter.kind != ProtocolKind::ideal && p.intra.kind != ProtocolKind::ideal)
    throw InputError(std::string("the eager limit (--eager-limit, sim.eager_limit) is the ideal protocol's; ") +
                     (name.empty() ? "this platform's protocol (collsim/protocol) is " : "the protocol is ") + chosen +
                     ", whose limits are the protocol options tcp/eager_limit:SIZE, shm/eager_limit:SIZE and "
                     "ucx/rndv_thresh:SIZE");
  for (ProtocolProfile* target : {&p.inter, &p.intra})
    if (target->kind == ProtocolKind::ideal) target->eager_limit = ideal_eager_limit.value_or(kIdealEagerLimit);
  // Platform properties, then options.
  static const char* const kKeys[] = {"eager_limit",   "send_overhead",        "recv_overhead", "get_overhead",
                                      "sync_overhead", "yield_overhead",       "buffer",        "connect",
                                      "interface",     "inline_limit",         "header",        "rndv_thresh",
                                      "zcopy_thresh",  "rndv_send_nbr_thresh", "max_short"};
  for (const char* profile : kProfiles)
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
