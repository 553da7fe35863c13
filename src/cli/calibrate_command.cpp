// collsim calibrate: runs the seed's estimation experiments on one engine and writes the
// parameters file (experiment/analysis/calibration.hpp says what is measured and how it is fitted).
#include <algorithm>
#include <climits>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/engine_options.hpp"
#include "cli/progress_line.hpp"
#include "engines/engine.hpp"
#include "engines/sim/generated_platform.hpp"
#include "experiment/analysis/calibration.hpp"
#include "experiment/analysis/osu_calibration.hpp"
#include "experiment/scenario/named_files.hpp"
#include "support/statistics.hpp"
#include "support/units.hpp"

namespace collsim::cli {

namespace {

// calibrate --from-osu: a platform from OSU output instead of experiments.
std::vector<OptionDef> from_osu_options() {
  return {
      {"from-osu", "DIR",
       "write a platform fitted to OSU output: DIR/socket, DIR/sockets, DIR/nodes with osu_latency.txt, "
       "osu_bw.txt, osu_bibw.txt, osu_mbw_mr.txt, osu_bcast*.txt (platforms/README.md); the platform goes to "
       "--output (default osu-platform.xml), the fit beside it (.fit.csv)"},
      {"sockets", "S", "--from-osu: sockets per node (default 2)"},
      {"cores", "C", "--from-osu: cores per socket (required)"},
      {"nodes", "N", "--from-osu: nodes of the platform (default 2)"},
      {"param", "NAME=VALUE",
       "--from-osu: a platform parameter the data do not give, as collsim platform takes it (e.g. speed=41.6Gf)", true},
  };
}

std::vector<OptionDef> calibrate_options() {
  std::vector<OptionDef> defs = {
      {"engine", "sim|model|mpi|mpi-native", "the engine the experiments run on (required)"},
      {"procs", "LIST", "process counts of the per-algorithm experiments (default 2,4,8,16)"},
      {"bytes", "LIST",
       "message sizes: below the segment and multiples of it (default 1KiB,4KiB,8KiB,32KiB,128KiB,512KiB); "
       "each as its operation means it (collsim algorithms)"},
      {"segment", "SIZE", "m_s: the segment size of the experiments and of the derived formulas (default 8KiB)"},
      {"ops", "LIST",
       "the algorithms to calibrate, e.g. bcast/binomial,allreduce/ring (default: all with a derived formula "
       "that run at --procs, the two_proc ones only when it has 2)"},
      {"gamma-procs", "N", "measure gamma(p) for p = 2..N (default: the largest of --procs)"},
      {"pingpong-sizes", "LIST",
       "ping-pong sizes for the textbook (alpha, beta); 'none' to skip (default 1,16,256,4KiB,64KiB,1MiB,4MiB)"},
      {"fit", "huber|least-squares", "robust regression with Huber weights (default) or ordinary least squares"},
      {"output", "FILE", "the parameters file to write (also -o FILE; default parameters.yaml)"},
  };
  for (auto& d : engine_options()) defs.push_back(d);
  for (auto& d : mpi_run_options()) defs.push_back(d);
  defs.push_back({"quiet", "", "no progress line"});
  for (auto& d : from_osu_options()) defs.push_back(d);
  return defs;
}

template <class T, class F>
std::vector<T> read_list(const ParsedOptions& o, const std::string& name, const std::string& fallback, F one) {
  const std::string text = o.text(name, fallback);
  std::vector<T> out;
  for (const std::string& item : split_commas(text)) {
    const auto v = one(item);
    if (!v) throw UsageError("--" + name + ": '" + item + "' is not valid in '" + text + "'");
    // As in a scenario's lists: each value once, a repeat is a slip (scenarios/README.md).
    if (std::find(out.begin(), out.end(), *v) != out.end())
      throw UsageError("--" + name + ": '" + item + "' is listed twice in '" + text + "'");
    out.push_back(*v);
  }
  return out;
}

// `text` as lines of at most 96 characters, broken between words.
std::string wrapped(const std::string& text) {
  std::string out, line;
  std::istringstream words(text);
  for (std::string w; words >> w;) {
    if (!line.empty() && line.size() + 1 + w.size() > 96) out += line + "\n", line.clear();
    line += (line.empty() ? "" : " ") + w;
  }
  return out + line + "\n";
}

// How the fits per protocol regime are made, for the table and --help.
std::string regimes_rule(const std::string& protocol) {
  return "Fitted per protocol regime" + (protocol.empty() ? std::string() : " of " + protocol + " between nodes") +
         " (rows '<= E B': eager; '>= E+1 B (+H msgs)': rendezvous, each message after H control messages priced "
         "as eager ones): an experiment goes to the highest regime its messages reach, its messages in lower regimes "
         "priced at their fits; a regime with too few experiments to fit takes the (alpha, beta) of the regime "
         "below (the eager one: the fit of the regime above's experiments) and is flagged poor.";
}

std::string about() {
  return std::string(
             "Runs the seed's experiments (gamma(p); per algorithm: the broadcast then a linear gather of\n"
             "one segment timed on the root (on the sim engine, see below), any other collective alone; the\n"
             "ping-pong; a local reduction when a reducing algorithm is calibrated) and fits alpha and beta\n"
             "per algorithm, with float sum for the reductions, with alpha >= 0 and beta >= 0 (the\n"
             "constrained optimum, GSL's regressions), and gamma(p) as the non-decreasing fit >= 1 of the\n"
             "measured ratios (the file keeps both).\n") +
         wrapped("Each fit is printed with its residuals and its quality, which the file keeps beside it: " +
                 poor_fit_rule() + ".") +
         wrapped(
             "On the sim engine the fits are per protocol regime: the profile between nodes of --protocol "
             "(eager up to its limit, rendezvous above; collsim algorithms shows the formulas per regime). " +
             regimes_rule("")) +
         wrapped(
             "On the sim engine every experiment is timed to its last rank, with no gather (its clock is "
             "global), and the file gets the simulated network's terms that the derived formulas read: "
             "eager_handover (tcp: an eager send is done once handed over), node_ranks (a node's ranks "
             "share its link) and fair_sharing (a rank's sends posted together end together); README, "
             "\"The simulated network's terms\".") +
         "Read the result with: collsim measure --engine formula --params FILE.\n"
         "\n"
         "With --from-osu DIR it runs nothing: it fits a platform (the node model, and the protocols of\n"
         "--protocol: tcp+shm, the default, or ucx) to OSU\n"
         "micro-benchmark output measured on a cluster, one folder per placement of the pair (socket/,\n"
         "sockets/, nodes/), prints the fit with its residuals and writes the platform through\n"
         "collsim platform's writer (platforms/README.md, \"A platform from OSU measurements\").";
}

int calibrate_from_osu(const ParsedOptions& o) {
  const std::vector<OptionDef> own_options = from_osu_options();
  for (const auto& d : calibrate_options()) {
    const bool own =
        d.name == "output" || d.name == "quiet" || d.name == "protocol" ||
        std::any_of(own_options.begin(), own_options.end(), [&](const OptionDef& f) { return f.name == d.name; });
    if (!own && o.has(d.name)) throw UsageError("--" + d.name + " does not go with --from-osu");
  }
  if (!o.has("cores")) throw UsageError("--from-osu needs --cores (cores per socket of the measured nodes)");
  ClusterSpec spec;
  std::vector<std::string> given;
  const auto set = [&](const std::string& name, const std::string& value, const std::string& option) {
    try {
      set_parameter(spec, name, value);
    } catch (const InputError& e) {
      throw UsageError(option + ": " + e.what());
    }
    given.push_back(name);
  };
  spec.nodes = 2;
  for (const char* name : {"sockets", "cores", "nodes", "protocol"})
    if (o.has(name)) set(name, o.text(name), std::string("--") + name);
  for (const std::string& p : o.all("param")) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--param: '" + p + "' is not NAME=VALUE");
    set(p.substr(0, eq), p.substr(eq + 1), "--param");
  }
  const std::string out = o.text("output", "osu-platform.xml");
  check_output_file(out, "platform");
  std::string fit_file = out;
  if (fit_file.ends_with(".xml")) fit_file.resize(fit_file.size() - 4);
  fit_file += ".fit.csv";
  check_output_file(fit_file, "fit");

  const std::vector<OsuClassData> data = read_osu_dir(o.text("from-osu"));
  for (const OsuClassData& d : data)
    if (d.pair_class == PairClass::sockets && spec.sockets < 2)
      throw UsageError("--sockets " + std::to_string(spec.sockets) + ": sockets/ measured two sockets of a node");
  const OsuFit fit = fit_osu(data, spec, given);
  std::string command = "collsim calibrate";
  for (const std::string& arg : o.arguments) command += " " + arg;
  write_file_atomically(out, platform_xml(spec, command), "platform");
  write_file_atomically(fit_file, osu_fit_csv(fit), "fit");
  std::cout << osu_fit_table(fit) << "\nplatform: " << out << "\nfit: " << fit_file << "\n";
  return 0;
}

int calibrate(const ParsedOptions& o) {
  if (o.has("from-osu")) return calibrate_from_osu(o);
  for (const auto& d : from_osu_options())
    if (o.has(d.name)) throw UsageError("--" + d.name + " goes with --from-osu");
  if (!o.has("engine")) throw UsageError("missing --engine (sim, model, mpi or mpi-native)");
  CalibrationSetup s;
  const std::string engine = o.text("engine");
  const auto parsed = parse_engine(engine, kCalibrationEngines);
  if (!parsed) throw UsageError("--engine: " + not_an_engine(engine, kCalibrationEngines));
  s.engine = *parsed;
  const bool mpi = is_measured(s.engine);
  check_engine_options(o, s.engine);

  s.procs = read_list<int>(o, "procs", mpi ? "2,3,4" : "2,4,8,16", [](const std::string& x) {
    const auto v = parse_integer(x);
    return v && *v >= 2 && *v <= INT_MAX ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
  });
  auto size = [](const std::string& x) { return parse_bytes(x); };
  s.bytes = read_list<std::size_t>(o, "bytes", "1KiB,4KiB,8KiB,32KiB,128KiB,512KiB", size);
  s.segment = o.bytes("segment", 8192);
  if (s.segment == 0) throw UsageError("--segment must be at least 1 byte");
  if (o.has("ops"))
    s.algorithms = read_list<const AlgorithmInfo*>(o, "ops", "", [](const std::string& x) {
      const AlgorithmInfo* a = find_algorithm(x);
      return a ? std::optional<const AlgorithmInfo*>(a) : std::nullopt;
    });
  s.gamma_max_procs = static_cast<int>(o.integer("gamma-procs", 0, 2, 1 << 20));
  if (o.text("pingpong-sizes") != "none")
    s.pingpong_bytes = read_list<std::size_t>(o, "pingpong-sizes", "1,16,256,4KiB,64KiB,1MiB,4MiB", size);
  const std::string fit = o.text("fit", "huber");
  if (fit != "huber" && fit != "least-squares") throw UsageError("--fit: '" + fit + "' is not huber or least-squares");
  s.method = fit == "huber" ? FitMethod::huber : FitMethod::least_squares;

  if (s.engine == Engine::model) {
    s.env.model = read_model(o);
    if (o.has("platform")) s.env.sim = read_sim(o);  // recorded in the parameters file
  } else if (s.engine == Engine::sim) {
    s.env.sim = read_sim(o);
  } else {
    s.env.mpi = read_mpi_runs(o);
  }
  const std::string out = o.text("output", "parameters.yaml");
  check_output_file(out, "parameters file");  // before the experiments, which may be long
  if (s.algorithms.empty()) {
    // The default set leaves out what cannot run here; an algorithm named in --ops is refused.
    std::vector<const AlgorithmInfo*> left_out;
    s.algorithms = default_calibration_algorithms(s.procs, &left_out);
    std::string names;
    for (const AlgorithmInfo* a : left_out) names += (names.empty() ? "" : ", ") + std::string(a->name);
    if (!names.empty())
      std::cerr << "collsim calibrate: skipped " << names << ": they run on 2 processes only, and --procs "
                << o.text("procs") << " has no 2\n";
  }

  ProgressLine progress("collsim calibrate", "experiments", !o.has("quiet"));
  int experiments = 0, ci_missed = 0;  // mpi engines: those stopped at --max-runs with the CI wider
  const Parameters p = calibrate(
      s, [&](std::size_t done, std::size_t total) { progress.update(done, total); },
      [&](const Measurement& m) {
        ++experiments;
        ci_missed += m.ci_met == false ? 1 : 0;
      });
  progress.clear();
  write_parameters(out, p);

  std::cout << "calibrated on engine " << p.engine << (p.platform.empty() ? "" : ", platform " + p.platform)
            << ", segment " << format_bytes(p.segment) << ", fit " << p.method << "\n\n";
  // Each fit with its residuals and its quality (parameters.hpp's rule), the ping-pong's last.
  std::printf("%-30s %10s %11s %6s %10s %7s  %s\n", "algorithm", "alpha", "beta (s/B)", "points", "rms resid", "worst",
              "quality");
  int poor = 0, fits = 0;
  const auto row = [&](const std::string& name, const HockneyFit& f) {
    ++fits;
    poor += f.quality != "ok";
    std::printf("%-30s %10s %11.4g %6d %10s %6.1f%%  %s\n", name.c_str(), format_seconds(f.alpha).c_str(), f.beta,
                f.points, format_seconds(f.rms_residual_s).c_str(), 100 * f.max_rel_residual, f.quality.c_str());
  };
  // Fitted per protocol regime: the first row holds the eager regime's fit, one row per regime above.
  for (const auto& [name, f] : p.algorithms) {
    const auto regimes = p.regimes.find(name);
    if (regimes == p.regimes.end()) {
      row(name, f);
      continue;
    }
    row(name + " <= " + std::to_string(regimes->second.front().from - 1) + " B", f);
    for (const RegimeFit& r : regimes->second)
      row("  >= " + std::to_string(r.from) + " B (+" + std::to_string(r.handshake_messages) + " msgs)", r.fit);
  }
  if (p.pingpong) row("ping-pong (textbook)", *p.pingpong);
  if (!p.regimes.empty()) std::cout << wrapped(regimes_rule(p.protocol));
  if (poor > 0)
    std::cout << wrapped(std::to_string(poor) + " of " + std::to_string(fits) + " fits are poor: " + poor_fit_rule() +
                         ". Their predictions are no closer than their residuals.");
  std::cout << "gamma(p), p = 2.." << p.gamma.size() + 1 << ": ";
  for (std::size_t i = 0; i < p.gamma.size() && i < 8; ++i) std::cout << (i ? " " : "") << format_real(p.gamma[i]);
  if (p.gamma.size() > 8) std::cout << " ...";
  std::cout << "  (fit " << format_real(p.gamma_intercept) << " + " << format_real(p.gamma_slope) << " p)\n";
  if (p.reduce_gamma > 0)
    std::cout << "local reduction (" << to_string(kDefaultReduction.type) << ' ' << to_string(kDefaultReduction.op)
              << "): " << format_real(p.reduce_gamma) << " s/byte\n";
  if (ci_missed > 0)
    std::cout << "\nCI target not met: " << ci_missed << " of " << experiments << " experiments stopped at --max-runs "
              << s.env.mpi.max_runs << " with the 95% CI above " << format_real(100 * s.env.mpi.ci_target)
              << "% of the mean; the fits rest on less certain times\n";
  std::cout << "\nparameters: " << out << "\n";
  return 0;
}

}  // namespace

Command calibrate_command() {
  return {"calibrate",
          "collsim calibrate --engine sim|model|mpi|mpi-native [options] | --from-osu DIR --cores C [options]",
          "estimate alpha and beta per algorithm, and gamma(p): a parameters file; or a platform from OSU output",
          about(),
          calibrate_options(),
          calibrate};
}

}  // namespace collsim::cli
