#include "experiment/analysis/parameters.hpp"

#include <cmath>
#include <sstream>

#include "experiment/scenario/yaml_reader.hpp"

namespace collsim {

namespace {

// The keys of a fit's uncertainty, all or none, in file order.
constexpr const char* kUncertaintyKeys[] = {"log_sd", "var_alpha", "cov_alpha_beta", "var_beta", "dof"};

std::string uncertainty_text(const std::optional<models::FitUncertainty>& u) {
  if (!u) return "";
  return ", log_sd: " + format_real(u->log_sd) + ", var_alpha: " + format_real(u->var_alpha) +
         ", cov_alpha_beta: " + format_real(u->cov_alpha_beta) + ", var_beta: " + format_real(u->var_beta) +
         ", dof: " + std::to_string(u->dof);
}

std::string fit_text(const HockneyFit& f, bool moves_data) {
  const std::string quality = f.quality.empty() ? fit_quality(f, moves_data) : f.quality;
  return "{alpha: " + format_real(f.alpha) + ", beta: " + format_real(f.beta) +
         ", points: " + std::to_string(f.points) + ", rms_residual_s: " + format_real(f.rms_residual_s) +
         ", max_rel_residual: " + format_real(f.max_rel_residual) + ", quality: \"" + quality + "\"" +
         uncertainty_text(f.uncertainty) + "}";
}

// An algorithm's regimes above its first fit, as the key `above` of its entry.
std::string regimes_text(const std::vector<RegimeFit>& regimes, bool moves_data) {
  if (regimes.empty()) return "";
  std::string s = ", above: [";
  for (std::size_t i = 0; i < regimes.size(); ++i) {
    const RegimeFit& r = regimes[i];
    const std::string fit = fit_text(r.fit, moves_data);  // "{alpha: ...}"
    s += (i ? ", " : "") + std::string("{from: ") + std::to_string(r.from) +
         ", handshake_messages: " + std::to_string(r.handshake_messages) +
         ", handshake_bytes: " + std::to_string(r.handshake_bytes) + ", " + fit.substr(1);
  }
  return s + "]";
}

template <class T, class F>
std::string list_text(const std::vector<T>& v, F format) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + format(v[i]);
  return s + "]";
}

// A fit's uncertainty: all of its keys or none (nullopt).
std::optional<models::FitUncertainty> read_uncertainty(const Reader& in, const YAML::Node& n,
                                                       const std::string& where) {
  std::string given, missing;
  for (const char* key : kUncertaintyKeys) {
    std::string& list = n[key] ? given : missing;
    if (!list.empty()) list += ", ";
    list += key;
  }
  if (given.empty()) return std::nullopt;
  if (!missing.empty())
    in.fail(n, where + " has " + given + " but not " + missing + ": a prediction interval needs all of them, or none");
  models::FitUncertainty u;
  u.log_sd = in.real(n["log_sd"], where + ".log_sd", 0);
  u.var_alpha = in.real(n["var_alpha"], where + ".var_alpha", 0);
  u.cov_alpha_beta = in.real(n["cov_alpha_beta"], where + ".cov_alpha_beta", -1e300);
  u.var_beta = in.real(n["var_beta"], where + ".var_beta", 0);
  u.dof = static_cast<int>(in.integer(n["dof"], where + ".dof", 1, INT_MAX));
  // A covariance matrix is positive semi-definite; its rounding to 17 digits keeps that to ~1e-15.
  if (u.cov_alpha_beta * u.cov_alpha_beta > u.var_alpha * u.var_beta * (1 + 1e-9))
    in.fail(n["cov_alpha_beta"], where + ".cov_alpha_beta: its square exceeds var_alpha * var_beta (not a covariance)");
  return u;
}

// A latency or a time per byte below 0 is no physical cost: it would predict negative times.
// `extra`: the keys besides a fit's that the entry may have (an algorithm's regimes, a regime's place).
HockneyFit read_fit(const Reader& in, const YAML::Node& n, const std::string& where, bool moves_data,
                    const std::vector<std::string>& extra = {}) {
  std::vector<std::string> keys = {"alpha",   "beta",   "points",    "rms_residual_s", "max_rel_residual",
                                   "quality", "log_sd", "var_alpha", "cov_alpha_beta", "var_beta",
                                   "dof"};
  keys.insert(keys.end(), extra.begin(), extra.end());
  in.only_keys(n, where, keys);
  if (!n["alpha"] || !n["beta"]) in.fail(n, where + " needs alpha and beta");
  HockneyFit f;
  f.alpha = in.real(n["alpha"], where + ".alpha", 0);
  f.beta = in.real(n["beta"], where + ".beta", 0);
  if (n["points"]) f.points = static_cast<int>(in.integer(n["points"], where + ".points", 0, INT_MAX));
  if (n["rms_residual_s"]) f.rms_residual_s = in.real(n["rms_residual_s"], where + ".rms_residual_s", 0);
  if (n["max_rel_residual"]) f.max_rel_residual = in.real(n["max_rel_residual"], where + ".max_rel_residual", 0);
  // Files older than the quality entry get it judged now, by the same rule.
  f.quality = n["quality"] ? in.text(n["quality"], where + ".quality") : fit_quality(f, moves_data);
  if (f.quality != "ok" && !f.quality.starts_with("poor: "))
    in.fail(n["quality"], where + ".quality: '" + f.quality + "' is not ok or poor: REASONS");
  f.uncertainty = read_uncertainty(in, n, where);
  return f;
}

// An algorithm's `above`: regimes with strictly ascending `from` >= 1, each a fit.
std::vector<RegimeFit> read_regimes(const Reader& in, const YAML::Node& n, const std::string& where, bool moves_data) {
  if (!n.IsSequence() || n.size() == 0)
    in.fail(n, where + " must be a list of regimes: {from, handshake_messages, handshake_bytes, alpha, beta, ...}");
  std::vector<RegimeFit> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const YAML::Node r = n[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!r.IsMap()) in.fail(r, at + " must be a mapping {from, handshake_messages, handshake_bytes, alpha, beta, ...}");
    for (const char* key : {"from", "handshake_messages", "handshake_bytes"})
      if (!r[key]) in.fail(r, at + " needs " + key);
    RegimeFit f;
    f.from = in.bytes(r["from"], at + ".from");
    if (f.from == 0) in.fail(r["from"], at + ".from: a regime above the first starts at 1 byte or more");
    if (!out.empty() && f.from <= out.back().from)
      in.fail(r["from"], at + ".from: " + std::to_string(f.from) + " is not above the previous regime's " +
                             std::to_string(out.back().from) + " (regimes ascend)");
    f.handshake_messages = static_cast<int>(in.integer(r["handshake_messages"], at + ".handshake_messages", 0, 1000));
    f.handshake_bytes = in.bytes(r["handshake_bytes"], at + ".handshake_bytes");
    f.fit = read_fit(in, r, at, moves_data, {"from", "handshake_messages", "handshake_bytes"});
    out.push_back(f);
  }
  return out;
}

// gamma: the kept values >= 1 and non-decreasing, the measured ones beside them, and the line
// past the table: slope >= 0 and at least 1 at the first p it gives.
void read_gamma(const Reader& in, const YAML::Node& g, Parameters& p) {
  in.only_keys(g, "gamma", {"values", "measured", "intercept", "slope"});
  if (g["values"]) {
    p.gamma = in.list(g["values"], "gamma.values", [&](const YAML::Node& x) { return in.real(x, "gamma.values", 1); });
    for (std::size_t i = 1; i < p.gamma.size(); ++i)
      if (p.gamma[i] < p.gamma[i - 1])
        in.fail(g["values"][i], "gamma.values: gamma(" + std::to_string(i + 2) + ") = " + format_real(p.gamma[i]) +
                                    " is below gamma(" + std::to_string(i + 1) + ") = " + format_real(p.gamma[i - 1]) +
                                    ": sends to more ranks cannot take less time");
  }
  if (g["measured"]) {
    p.gamma_measured = in.list(g["measured"], "gamma.measured", [&](const YAML::Node& x) {
      const double v = in.real(x, "gamma.measured", 0);
      if (!(v > 0)) in.fail(x, "gamma.measured: a time ratio must be positive");
      return v;
    });
    if (p.gamma_measured.size() != p.gamma.size())
      in.fail(g["measured"], "gamma.measured has " + std::to_string(p.gamma_measured.size()) +
                                 " values and gamma.values " + std::to_string(p.gamma.size()) + ": one per p, in both");
  }
  if (g["intercept"]) p.gamma_intercept = in.real(g["intercept"], "gamma.intercept", -1e300);
  if (g["slope"]) p.gamma_slope = in.real(g["slope"], "gamma.slope", 0);
  const int first = static_cast<int>(p.gamma.size()) + 2;  // the first p the line gives
  const double at_first = p.gamma_intercept + p.gamma_slope * first;
  if (!p.gamma.empty() && at_first < 1)
    in.fail(g["intercept"] ? g["intercept"] : g,
            "gamma.intercept: the line " + format_real(p.gamma_intercept) + " + " + format_real(p.gamma_slope) +
                " p gives gamma(" + std::to_string(first) + ") = " + format_real(at_first) + ", below 1");
}

}  // namespace

std::string fit_quality(const HockneyFit& f, bool moves_data) {
  std::string why;
  const auto add = [&](const std::string& reason) { why += (why.empty() ? "" : "; ") + reason; };
  if (f.alpha == 0) add("alpha at its bound 0");
  if (moves_data && f.beta == 0) add("beta at its bound 0");
  if (f.max_rel_residual > kPoorFitResidual)
    add("worst relative residual " + format_real(std::round(1000 * f.max_rel_residual) / 10) + "% > " +
        format_real(100 * kPoorFitResidual) + "%");
  return why.empty() ? "ok" : "poor: " + why;
}

std::string poor_fit_rule() {
  return "a fit is poor when alpha or beta sits at its bound 0 (the fit would have taken it below 0: the data "
         "show no such term under the algorithm's formula) or when one of its experiments is off the fit by more "
         "than " +
         format_real(100 * kPoorFitResidual) + "% of its time";
}

void write_parameters(const std::string& path, const Parameters& p) {
  std::ostringstream o;
  o << "# collsim calibrate: Hockney parameters per algorithm (the seed's Section V), gamma(p) and the\n"
    << "# ping-pong. alpha in s, beta in s/byte. Read by: collsim measure --engine formula --params FILE.\n"
    << "collsim: parameters\n"
    << "engine: " << p.engine << "\n"
    << "platform: \"" << p.platform << "\"\n"
    << "protocol: \"" << p.protocol << "\"\n"
    << "ranks_per_node: " << p.ranks_per_node << "\n"
    << "segment: " << p.segment << "\n"
    << "method: " << p.method << "\n"
    << "serial_receive: " << (p.serial_receive ? "true" : "false") << "\n";
  if (p.node_ranks > 1)
    o << "node_ranks: " << p.node_ranks << "  # ranks per node whose sends to other nodes share its link\n";
  if (p.fair_sharing) o << "fair_sharing: true  # a rank's sends posted together share its link and end together\n";
  if (p.eager_handover)
    o << "eager_handover: true  # an eager send is done once handed over, its latency still running\n";
  o << "procs: " << list_text(p.procs, [](int x) { return std::to_string(x); }) << "\n"
    << "bytes: " << list_text(p.bytes, [](std::size_t x) { return std::to_string(x); }) << "\n"
    << "gamma:\n"
    << "  values: " << list_text(p.gamma, format_real)
    << "  # gamma(2), gamma(3), ...: the non-decreasing fit >= 1 of measured, what the formulas use\n";
  if (!p.gamma_measured.empty())
    o << "  measured: " << list_text(p.gamma_measured, format_real) << "  # time(p) / time(2) as measured\n";
  o << "  intercept: " << format_real(p.gamma_intercept) << "  # past the table: intercept + slope*p\n"
    << "  slope: " << format_real(p.gamma_slope) << "\n"
    << "reduce_gamma: " << format_real(p.reduce_gamma) << "  # s/byte of a local reduction\n";
  if (p.pingpong) o << "pingpong: " << fit_text(*p.pingpong, true) << "\n";
  if (p.intra_pingpong)
    o << "intra_pingpong: " << fit_text(*p.intra_pingpong, true)
      << "  # two ranks of one node, eager sizes: a message inside a node in the derived formulas\n";
  o << "algorithms:  # quality: " << poor_fit_rule() << "\n";
  for (const auto& [name, fit] : p.algorithms) {
    const bool moves_data = operation_info(find_algorithm(name)->op).moves_data;
    std::string text = fit_text(fit, moves_data);
    if (auto r = p.regimes.find(name); r != p.regimes.end() && !r->second.empty())
      text.insert(text.size() - 1, regimes_text(r->second, moves_data));
    o << "  " << name << ": " << text << "\n";
  }
  write_file_atomically(path, o.str(), "parameters file");
}

Parameters read_parameters(const std::string& path) {
  const YAML::Node root = load_yaml_file(path, "parameters file");
  const Reader in(path);
  if (!root || !root.IsMap() || !root["collsim"] || root["collsim"].Scalar() != "parameters")
    throw ScenarioError(path +
                        ": not a collsim parameters file (it has no 'collsim: parameters'; "
                        "collsim calibrate writes them)");
  in.only_keys(root, "the parameters file",
               {"collsim", "engine", "platform", "protocol", "ranks_per_node", "segment", "method", "serial_receive",
                "eager_handover", "node_ranks", "fair_sharing", "procs", "bytes", "gamma", "reduce_gamma", "pingpong",
                "intra_pingpong", "algorithms"});
  Parameters p;
  p.file = path;
  if (root["engine"]) p.engine = in.text(root["engine"], "engine");
  if (root["platform"]) p.platform = in.text(root["platform"], "platform");
  if (root["protocol"]) p.protocol = in.text(root["protocol"], "protocol");
  if (root["ranks_per_node"])
    p.ranks_per_node = static_cast<int>(in.integer(root["ranks_per_node"], "ranks_per_node", 1, 1 << 20));
  if (root["segment"]) p.segment = in.bytes(root["segment"], "segment");
  if (root["method"]) p.method = in.text(root["method"], "method");
  if (root["serial_receive"]) p.serial_receive = in.boolean(root["serial_receive"], "serial_receive");
  if (root["eager_handover"]) p.eager_handover = in.boolean(root["eager_handover"], "eager_handover");
  if (root["node_ranks"]) p.node_ranks = static_cast<int>(in.integer(root["node_ranks"], "node_ranks", 1, 1 << 20));
  if (root["fair_sharing"]) p.fair_sharing = in.boolean(root["fair_sharing"], "fair_sharing");
  if (root["procs"]) p.procs = in.procs(root["procs"]);
  if (root["bytes"]) p.bytes = in.sizes(root["bytes"], "bytes");
  if (root["gamma"]) read_gamma(in, root["gamma"], p);
  if (root["reduce_gamma"]) p.reduce_gamma = in.real(root["reduce_gamma"], "reduce_gamma", 0);
  if (root["pingpong"]) p.pingpong = read_fit(in, root["pingpong"], "pingpong", true);
  if (root["intra_pingpong"]) p.intra_pingpong = read_fit(in, root["intra_pingpong"], "intra_pingpong", true);
  if (root["algorithms"]) {
    const YAML::Node a = root["algorithms"];
    if (!a.IsMap()) in.fail(a, "algorithms must be a mapping of algorithm: {alpha, beta}");
    for (const auto& kv : a) {
      const std::string name = kv.first.Scalar();
      const AlgorithmInfo* info = find_algorithm(name);
      if (!info) in.fail(kv.first, "unknown algorithm '" + name + "' (one of: " + algorithm_names() + ")");
      const bool moves_data = operation_info(info->op).moves_data;
      p.algorithms[std::string(info->name)] = read_fit(in, kv.second, "algorithms." + name, moves_data, {"above"});
      if (kv.second["above"])
        p.regimes[std::string(info->name)] =
            read_regimes(in, kv.second["above"], "algorithms." + name + ".above", moves_data);
    }
  }
  if (p.algorithms.empty() && !p.pingpong)
    throw ScenarioError(path + ": the parameters file has neither algorithms nor pingpong parameters");
  return p;
}

FormulaConfig formula_config(const Parameters& p, FormulaConfig::Kind kind) {
  FormulaConfig f;
  f.kind = kind;
  f.costs.gamma = models::Gamma(p.gamma, p.gamma_intercept, p.gamma_slope);
  f.costs.serial_receive = p.serial_receive;
  f.costs.reduce_gamma = p.reduce_gamma;
  if (p.pingpong) f.costs.hockney = {p.pingpong->alpha, p.pingpong->beta};
  // Derived formulas follow the protocol; the textbook ones keep their blocking reading.
  f.costs.eager_handover = kind == FormulaConfig::Kind::derived && p.eager_handover;
  f.costs.node_ranks = kind == FormulaConfig::Kind::derived ? p.node_ranks : 1;
  f.costs.fair_sharing = kind == FormulaConfig::Kind::derived && p.fair_sharing;
  if (kind == FormulaConfig::Kind::derived && p.intra_pingpong && p.node_ranks > 1)
    f.costs.intra = models::Hockney{p.intra_pingpong->alpha, p.intra_pingpong->beta};
  if (kind == FormulaConfig::Kind::derived || !p.pingpong) {
    for (const auto& [name, fit] : p.algorithms) {
      f.per_algorithm[name] = {fit.alpha, fit.beta};
      if (kind == FormulaConfig::Kind::derived && fit.uncertainty) f.uncertainty[name] = *fit.uncertainty;
      // Textbook formulas keep one (alpha, beta) for every size, as the traditional approach does.
      if (auto r = p.regimes.find(name); kind == FormulaConfig::Kind::derived && r != p.regimes.end())
        for (const RegimeFit& g : r->second) {
          f.per_algorithm_regimes[name].push_back(
              {g.from, {g.fit.alpha, g.fit.beta}, g.handshake_messages, g.handshake_bytes});
          f.regime_uncertainty[name].push_back(g.fit.uncertainty);
        }
    }
    f.fits_from = p.file.empty() ? "the calibration" : p.file;
  }
  return f;
}

}  // namespace collsim
