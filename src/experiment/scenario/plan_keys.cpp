#include "experiment/scenario/plan_keys.hpp"

#include "engines/sim/protocol.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "support/units.hpp"

namespace collsim {

namespace {

// The hash of a file's bytes ("absent" when it cannot be read), each file read once per run.
std::string file_hash(const std::string& path) {
  static std::map<std::string, std::string> done;
  if (path.empty()) return "none";
  auto it = done.find(path);
  if (it != done.end()) return it->second;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return done.emplace(path, in ? hash_hex(bytes.str()) : "absent").first->second;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += i + ",";
  return out;
}

std::string sim_text(const SimConfig& s) {
  return "platform=" + file_hash(s.platform_file) + ";map_by=" + models::to_string(s.map_by) +
         ";eager=" + std::to_string(s.eager_limit.value_or(kIdealEagerLimit)) + ";cfg=" + joined(s.cfg) +
         ";protocol=" + s.protocol + ";protocol_options=" + joined(s.protocol_options);
}

std::string placement_text(const models::Placement& p) {
  // The model engine places by node, and by socket with a socket level (model_settings_text adds
  // the sockets then). Placements that fill a node's cores in order (core,
  // ppr:K:node, node) know its sockets since 2026-12-04, for the sim engine's node model (whose
  // key has map_by and the platform); they are written as before, with one socket, so that
  // earlier results still resume.
  const int sockets = p.cores_per_socket > 0 ? 1 : p.sockets;
  return std::to_string(p.block) + "/" + std::to_string(p.round_robin) + "/" + std::to_string(sockets) + "/" +
         (p.by_socket ? "1" : "0") + (p.by_numa ? "/numa:" + std::to_string(p.numa_block) : std::string());
}

std::string hockney_text(const models::Hockney& h) { return format_real(h.alpha) + "/" + format_real(h.beta); }

std::string mpi_text(const MpiLaunch& m) {
  // How the program is launched (paths differ between machines) does not change what it measures.
  // The statistic and the launches only when not the defaults, so that earlier runs still resume.
  return "runs=" + std::to_string(m.min_runs) + "-" + std::to_string(m.max_runs) + ";ci=" + format_real(m.ci_target) +
         (m.time_is_min ? ";time=min" : "") + (m.launches > 1 ? ";launches=" + std::to_string(m.launches) : "");
}

}  // namespace

std::string model_settings_text(const ModelConfig& m) {
  std::string t = std::string("kind=") + to_string(m.kind) + ";hockney=" + hockney_text(m.hockney) +
                  ";intra=" + hockney_text(m.two_level.intra) + ";inter=" + hockney_text(m.two_level.inter) +
                  ";placement=" + placement_text(m.two_level.placement) + ";loggp=" + format_real(m.loggp.L) + "/" +
                  format_real(m.loggp.o) + "/" + format_real(m.loggp.g) + "/" + format_real(m.loggp.G) +
                  ";one_port=" + (m.one_port ? "1" : "0") + ";copy=" + format_real(m.copy_bandwidth) +
                  // Only when set, so that the fingerprints of plans from before reductions still match.
                  (m.reduce_gamma > 0 ? ";reduce_gamma=" + format_real(m.reduce_gamma) : std::string());
  // What came with the node model (2026-12), each only where it changes a run, so that earlier
  // results of the same runs still resume: two-level sends inside a node one at a time (the new
  // default; concurrent_intra_sends, and one_port, which holds every port anyway, keep the
  // earlier key), the socket level with the sockets of the placement, and the overheads.
  // One rank per node (block 1, no round robin) never sends inside a node.
  const bool shares_nodes = m.two_level.placement.block != 1 || m.two_level.placement.round_robin != 0;
  if (m.kind == ModelConfig::Kind::two_level && !m.concurrent_intra_sends && !m.one_port && shares_nodes)
    t += ";intra_sends=serial";
  if (m.kind == ModelConfig::Kind::two_level && m.two_level.cross_socket) {
    const models::Placement& p = m.two_level.placement;
    t += ";cross_socket=" + hockney_text(*m.two_level.cross_socket) + ";sockets=" + std::to_string(p.sockets) + "/" +
         std::to_string(p.cores_per_socket) + "/" + (p.by_socket ? "1" : "0");
  }
  if (m.kind == ModelConfig::Kind::two_level && (m.two_level.cross_numa || m.two_level.cross_group)) {
    const models::Placement& p = m.two_level.placement;
    t += ";cores=" + std::to_string(p.cores_per_socket) + "/" + std::to_string(p.cores_per_numa) + "/" +
         std::to_string(p.cores_per_group) + "/" + (p.by_socket ? "1" : "0");
    if (m.two_level.cross_numa) t += ";cross_numa=" + hockney_text(*m.two_level.cross_numa);
    if (m.two_level.cross_group) t += ";cross_group=" + hockney_text(*m.two_level.cross_group);
  }
  if (m.kind != ModelConfig::Kind::loggp && !m.send_overhead.empty())
    t += ";send_overhead=" + models::to_string(m.send_overhead);
  if (m.kind != ModelConfig::Kind::loggp && !m.recv_overhead.empty())
    t += ";recv_overhead=" + models::to_string(m.recv_overhead);
  if (m.kind != ModelConfig::Kind::loggp && m.get_overhead) t += ";get_overhead=" + models::to_string(*m.get_overhead);
  // A copy's per-call cost and win_sync's (2026-12), likewise only when set.
  if (m.copy_overhead > 0) t += ";copy_overhead=" + format_real(m.copy_overhead);
  if (m.sync_overhead > 0) t += ";sync_overhead=" + format_real(m.sync_overhead);
  return t;
}

std::string hash_hex(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

std::vector<std::string> keys_of(const std::vector<std::string>& texts) {
  std::map<std::string, int> seen;
  std::map<std::string, std::string> text_of_key;
  std::vector<std::string> keys;
  keys.reserve(texts.size());
  for (const auto& t : texts) {
    const int n = ++seen[t];
    const std::string text = n == 1 ? t : t + "#" + std::to_string(n);
    std::string key = hash_hex(text);
    const auto [it, fresh] = text_of_key.emplace(key, text);
    if (!fresh) throw std::logic_error("points '" + it->second + "' and '" + text + "' have one key " + key);
    keys.push_back(std::move(key));
  }
  return keys;
}

std::string collective_point_text(const PlanPoint& p) {
  const RunSpec& s = p.spec;
  std::string t = "engine=" + std::string(engine_name(p.engine)) + ";op=" + std::string(s.algorithm->name) +
                  ";procs=" + std::to_string(s.procs) + ";bytes=" + std::to_string(s.bytes) +
                  ";segment=" + std::to_string(s.algorithm->takes(Knob::segment) ? s.params.segment : 0) +
                  ";root=" + std::to_string(s.params.root);
  if (s.algorithm->takes(Knob::fanout)) t += ";fanout=" + std::to_string(s.params.fanout);
  if (s.algorithm->takes(Knob::radix)) t += ";radix=" + std::to_string(s.params.radix);
  if (s.algorithm->takes(Knob::max_requests)) t += ";max_requests=" + std::to_string(s.params.max_requests);
  if (operation_info(s.algorithm->op).reduces)
    t += ";datatype=" + std::string(to_string(s.params.reduction.type)) +
         ";reduce_op=" + std::string(to_string(s.params.reduction.op));
  for (const auto& [name, value] : p.axes) t += ";" + name + "=" + value;
  return t;
}

std::string collective_fingerprint(const Scenario& sc, const std::vector<PlanPoint>& plan) {
  std::string all =
      "collective;real_bytes=" + std::string(sc.real_bytes ? "1" : "0") + ";formulas=" + joined(sc.formulas) +
      ";params=" + file_hash(sc.params_file) + ";mpi=" + mpi_text(sc.mpi) +
      (sc.critical_path ? ";critical_path=1" : "") +
      // Added only when not the default, so that earlier runs still resume.
      (sc.timing.kind != Timing::Kind::collective ? ";timing=" + std::string(to_string(sc.timing.kind)) : "") + "\n";
  for (const PlanPoint& p : plan) {
    all += collective_point_text(p);
    // Only the settings the point's engine reads: a model sweep does not depend on the platform.
    all += '|';
    if (p.engine == Engine::sim) all += sim_text(p.sim);
    if (p.engine == Engine::model || is_formula(p.engine)) all += model_settings_text(p.model);
    all += '\n';
  }
  return hash_hex(all);
}

std::string coarray_point_text(const CoarrayScenario& /*sc*/, const CoarrayPlanPoint& at) {
  const CoarrayPoint& p = at.point;
  return "engine=" + std::string(engine_name(at.engine)) + ";sweep=" + at.group + ";op=" + p.op() +
         ";local=" + p.local.str() + ";local_shape=" + p.local.shape().str() + ";remote=" + p.remote.str() +
         ";remote_shape=" + p.remote.shape().str() + ";elem=" + std::to_string(p.local.shape().element_bytes) +
         ";statements=" + std::to_string(p.statements) + ";buffer=" + std::to_string(p.options.buffer_bytes) +
         ";registered=" + (p.options.registered ? "1" : "0") +
         ";get_behaviour=" + (p.options.get == coarray::GetBehaviour::omni ? "omni" : "table1") +
         // Only Omni's packing is named, so the keys of Table 1 points written before it resume.
         (p.options.packing == coarray::Packing::omni ? ";packing=omni" : "") +
         (p.options.scheme == coarray::Method::datatype ? ";scheme=datatype" : "") +
         // Likewise only a sync other than memory.
         (p.sync == coarray::SyncKind::memory ? "" : std::string(";sync=") + coarray::to_string(p.sync)) +
         // Likewise only per-statement registration, which came later.
         (p.options.registered && p.options.registration == coarray::RegisterWhen::per_statement
              ? ";registration=per-statement"
              : "") +
         // Likewise only a pattern other than one.
         (p.pattern == coarray::Pattern::one ? "" : std::string(";pattern=") + coarray::to_string(p.pattern)) +
         ";images=" + std::to_string(p.images);
}

std::string coarray_fingerprint(const CoarrayScenario& sc, const std::vector<CoarrayPlanPoint>& plan) {
  std::string all = "coarray;real_bytes=" + std::string(sc.real_bytes ? "1" : "0") + ";mpi=" + mpi_text(sc.mpi) +
                    "\nsim:" + sim_text(sc.sim) + "\nmodel:" + model_settings_text(sc.model) + "\n";
  for (const auto& at : plan) all += coarray_point_text(sc, at) + "\n";
  return hash_hex(all);
}

}  // namespace collsim
