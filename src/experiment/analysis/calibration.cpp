#include "experiment/analysis/calibration.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include <unistd.h>

#include "engines/sim/protocol.hpp"
#include "experiment/sweep/mpi_launcher.hpp"
#include "experiment/sweep/runner.hpp"

namespace collsim {

namespace {

// Rank 0 sends its buffer to the last rank and gets it back; timed on rank 0, half is one way.
Task<> pingpong(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  const int peer = comm.size() - 1;
  if (comm.rank() == 0) {
    co_await comm.send(b.data, peer, tags::bcast);
    co_await comm.recv(b.data, peer, tags::bcast);
  } else if (comm.rank() == peer) {
    co_await comm.recv(b.data, 0, tags::bcast);
    co_await comm.send(b.data, 0, tags::bcast);
  }
}

const AlgorithmInfo kPingPong{
    "calibrate/pingpong", Operation::bcast, 0, 0, "round trip between rank 0 and the last", &pingpong};

// One rank combines its vector into its result: the time of a local reduction of that many bytes.
Task<> reduce_local(Comm& comm, RankBuffers b, const AlgorithmParams& params) {
  co_await comm.reduce_local(b.result, b.data, params.reduction);
}

const AlgorithmInfo kReduceLocal{"calibrate/reduce_local",          Operation::reduce, 0, 0,
                                 "one local reduction on one rank", &reduce_local};

// Median seconds of `apply` on real buffers of `bytes` in this process: what the mpi engines'
// ranks run for comm.reduce_local (engines/mpi), on this machine.
double time_apply(Reduction r, std::size_t bytes) {
  std::vector<std::byte> in(bytes), inout(bytes);
  std::vector<double> runs;
  for (int i = 0; i < 21; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    apply(r, Buffer(in.data(), in.size()), Buffer(inout.data(), inout.size()));
    runs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(runs.begin(), runs.begin() + 10, runs.end());
  return runs[10];
}

// The derived model of one experiment under `costs`.
double model_time(const RunSpec& spec, const models::FormulaCosts& costs) {
  models::FormulaInput in{spec.procs, spec.bytes, spec.params, costs};
  double t = spec.algorithm->derived(in);
  if (spec.then_gather > 0) {
    models::FormulaInput g{spec.procs, spec.then_gather, {}, in.costs};
    g.params.root = spec.params.root;
    t += find_algorithm("gather/basic_linear")->derived(g);
  }
  return t;
}

// The regimes of costs.regimes (0: costs.hockney) that one experiment's messages fall in, its
// gather's included.
std::vector<bool> regimes_used(const RunSpec& spec, const models::FormulaCosts& costs) {
  std::vector<bool> used = models::regimes_used(spec.algorithm->derived, {spec.procs, spec.bytes, spec.params, costs});
  if (spec.then_gather > 0) {
    models::FormulaInput g{spec.procs, spec.then_gather, {}, costs};
    g.params.root = spec.params.root;
    const std::vector<bool> more = models::regimes_used(find_algorithm("gather/basic_linear")->derived, g);
    for (std::size_t k = 0; k < used.size(); ++k) used[k] = used[k] || more[k];
  }
  return used;
}

// Which (alpha, beta) of the costs a fit estimates: regime k's, and with `tied` every regime
// below it too (one pair for all of them: the fallback when the lower ones cannot be fitted).
struct Unknown {
  std::size_t regime = 0;
  bool tied = false;
};

// One experiment as an equation alpha*x1 + beta*x2 = y in the unknown regime's (alpha, beta),
// every other cost held at its value in `costs` (the lower regimes at their fits). The derived
// models are sums and maxima of terms alpha*a + beta*b + gamma_r*c: piecewise linear and, scaled
// together, proportional. With no reduction to charge, x1 and x2 are the model at (1, 0) and
// (0, 1) less the model at (0, 0) (the part of the other regimes: 0 with one regime, the seed's
// reading; exact where the formula is one line, calibration.hpp), and y the time less that part.
// With one, the terms that win the maxima depend on how (alpha, beta) compare with gamma_r, so the
// equation is taken where the fit is: at an estimate (alpha0, beta0), x1 and x2 are the model's
// slopes there, and y is the time less the rest, model(alpha0, beta0) - alpha0*x1 - beta0*x2
// (Euler's identity for a proportional function). Refitted from the fit's own estimate, it gives
// back the true parameters once the estimate is in their linear piece.
Observation equation(const RunSpec& spec, double time, const models::FormulaCosts& costs, Unknown unknown,
                     double alpha0 = 0, double beta0 = 0) {
  const double reduce_gamma = costs.reduce_gamma;
  auto f = [&](double a, double b, double rg) {
    models::FormulaCosts c = costs;
    for (std::size_t k = unknown.tied ? 0 : unknown.regime; k <= unknown.regime; ++k) c.regime_costs(k) = {a, b};
    c.reduce_gamma = rg;
    return model_time(spec, c);
  };
  if ((reduce_gamma <= 0 && !costs.intra) || alpha0 <= 0 || beta0 <= 0) {
    // Other regimes, and messages inside a node (FormulaCosts::intra), may have a part: take it out.
    const bool rest = !costs.regimes.empty() || costs.intra.has_value();
    const double base = rest ? f(0, 0, 0) : 0;
    return {f(1, 0, 0) - base, f(0, 1, 0) - base, time - (reduce_gamma > 0 || rest ? f(0, 0, reduce_gamma) : 0)};
  }
  constexpr double h = 1e-7;
  const double at = f(alpha0, beta0, reduce_gamma);
  const double x1 = (f(alpha0 * (1 + h), beta0, reduce_gamma) - at) / (alpha0 * h);
  const double x2 = (f(alpha0, beta0 * (1 + h), reduce_gamma) - at) / (beta0 * h);
  return {x1, x2, time - (at - alpha0 * x1 - beta0 * x2)};
}

// An operation without data (barrier) costs alpha only: alpha = sum(x1*y) / sum(x1^2), or 0 when
// that is below (one parameter: the bound is the constrained optimum).
LinearFit2 fit_alpha(const std::vector<Observation>& obs) {
  double xy = 0, xx = 0;
  for (const Observation& o : obs) xy += o.x1 * o.y, xx += o.x1 * o.x1;
  if (obs.empty() || !(xx > 0)) throw std::invalid_argument("no experiment to fit alpha to");
  LinearFit2 f{std::max(0.0, xy / xx), 0, 0, 0};
  double sq = 0;
  for (const Observation& o : obs) {
    const double r = o.y - f.c1 * o.x1;
    sq += r * r;
    if (o.y > 0) f.max_rel_residual = std::max(f.max_rel_residual, std::abs(r) / o.y);
  }
  f.rms_residual = std::sqrt(sq / static_cast<double>(obs.size()));
  return f;
}

HockneyFit to_fit(const LinearFit2& f, std::size_t points) {
  return {f.c1, f.c2, static_cast<int>(points), f.rms_residual, f.max_rel_residual};
}

// One-way times of the ping-pong sizes under one launch of collsim-mpi pingpong (2 ranks): half the
// median round trip, or half the fastest with the launch's statistic min (as the experiments' times).
std::vector<double> mpi_pingpong_launch(const MpiLaunch& launch, const std::vector<std::size_t>& sizes) {
  const auto dir = std::filesystem::temp_directory_path() / ("collsim-pingpong-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "pingpong.csv").string();
  std::string list;
  for (std::size_t s : sizes) list += (list.empty() ? "" : ",") + std::to_string(s);
  std::vector<std::string> argv = launcher_command(launch);
  for (const char* a : {"-np", "2"}) argv.emplace_back(a);
  argv.push_back(mpi_program(launch));
  for (const std::string& a : {std::string("pingpong"), std::string("--sizes"), list, std::string("--output"), csv})
    argv.push_back(a);
  std::string cmd;
  for (const auto& a : argv) cmd += "'" + a + "' ";
  cmd += ">/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream in(csv);
  std::vector<double> one_way;
  std::string line;
  std::getline(in, line);  // header: bytes,runs,min_rtt_s,median_rtt_s,mean_rtt_s,max_rtt_s,one_way_s,...
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    if (cells.size() >= 7) one_way.push_back(launch.time_is_min ? std::stod(cells[2]) / 2 : std::stod(cells[6]));
  }
  std::filesystem::remove_all(dir);
  if (status != 0 || one_way.size() != sizes.size())
    throw EngineError("collsim-mpi pingpong failed (exit status " + std::to_string(status) + "): " + cmd);
  return one_way;
}

// Each size's one-way time from mpi.launches launches: the fastest launch's with statistic min,
// else the median launch's, as a point's row (pick_launch).
std::vector<double> mpi_pingpong(const MpiLaunch& launch, const std::vector<std::size_t>& sizes) {
  std::vector<std::vector<double>> launches;
  for (int i = 0; i < std::max(1, launch.launches); ++i) launches.push_back(mpi_pingpong_launch(launch, sizes));
  std::vector<double> one_way(sizes.size());
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    std::vector<double> times;
    for (const auto& l : launches) times.push_back(l[k]);
    one_way[k] = pick_launch(std::move(times), launch.time_is_min, [](double t) { return t; });
  }
  return one_way;
}

// The gamma experiment's times for p = 2..spec.procs in the model engine, from the one run on
// spec.procs processes: the root posts its sends in rank order and a send is never held up by one
// posted after it (Hockney's ports are granted in posting order; LogGP's sends follow one another
// on the root's CPU and NIC), and each receiver takes one message, so receiver r is done at the
// same time in every run with more than r processes. The root is done with its sends no later
// than the last of them has arrived, so the run on p processes ends when the latest of receivers
// 1..p-1 is done (tests/experiment/calibration_test.cpp compares with a run per p): one run of P
// processes instead of P-1 runs of up to P.
std::vector<double> gamma_in_one_run(const ModelConfig& model, const RunSpec& spec) {
  const RunResult r = run_model(model, spec);
  std::vector<double> times;
  double latest = 0;
  for (std::size_t rank = 1; rank < r.finish_s.size(); ++rank)
    times.push_back(latest = std::max(latest, r.finish_s[rank]));
  return times;
}

}  // namespace

std::vector<const AlgorithmInfo*> default_calibration_algorithms(const std::vector<int>& procs,
                                                                 std::vector<const AlgorithmInfo*>* left_out) {
  std::vector<const AlgorithmInfo*> out;
  for (const auto& a : all_algorithms()) {
    if (!a.derived) continue;
    if (std::any_of(procs.begin(), procs.end(), [&](int p) { return p >= 2 && runs_on(a, p); }))
      out.push_back(&a);
    else if (left_out)
      left_out->push_back(&a);
  }
  return out;
}

namespace {

// The algorithms to calibrate and the largest P of gamma(p), once the setup is checked.
struct Checked {
  std::vector<const AlgorithmInfo*> algorithms;
  int gamma_max = 0;
};

Checked check_setup(const CalibrationSetup& setup) {
  if (std::find(kCalibrationEngines.begin(), kCalibrationEngines.end(), setup.engine) == kCalibrationEngines.end())
    throw InputError("calibrate: " +
                     not_an_engine(engine_name(setup.engine), kCalibrationEngines, "an engine to calibrate on"));
  if (setup.procs.empty() || setup.bytes.empty()) throw InputError("calibrate: no process counts or sizes");
  Checked c;
  c.algorithms = setup.algorithms.empty() ? default_calibration_algorithms(setup.procs) : setup.algorithms;
  for (const AlgorithmInfo* a : c.algorithms)
    if (!a->derived) throw InputError("calibrate: " + std::string(a->name) + " has no derived formula to fit");
  c.gamma_max =
      setup.gamma_max_procs > 0 ? setup.gamma_max_procs : *std::max_element(setup.procs.begin(), setup.procs.end());
  if (c.gamma_max < 2) throw InputError("calibrate: gamma(p) needs process counts of at least 2");
  return c;
}

// The experiments, in the order they run: gamma(p) first (the fits need it), then every
// algorithm's grid, then the ping-pong and the local reduction (the mpi engines run those two
// apart: collsim-mpi pingpong, and the arithmetic timed in this process).
struct Experiments {
  std::vector<PlanPoint> plan;
  std::size_t gamma_points = 0;           // plan[0, gamma_points): gamma(p) for p = 2..gamma_max
  std::size_t pingpong_begin = 0;         // plan[pingpong_begin, intra_begin): the ping-pong
  std::size_t intra_begin = 0;            // plan[intra_begin, reduce_begin): the same inside a node
  std::size_t reduce_begin = 0;           // plan[reduce_begin, end): the local reduction
  bool reduces = false;                   // a reducing algorithm is calibrated
  std::vector<std::size_t> reduce_bytes;  // the local reduction's sizes, ascending
  int ranks_per_node = 1;
  std::size_t total = 0;  // progress steps: the plan's, and on the mpi engines the ping-pong and the reduction
};

// Where the engine's protocol switches, for the fits per regime: the setup's when it gives one;
// on the sim engine its profile between nodes (the selection the experiments ran under, `ran`,
// with the setup's protocol options); none elsewhere (the model engine sends every message eager).
std::optional<models::ProtocolSwitch> protocol_switch(const CalibrationSetup& setup, const std::string& ran) {
  if (setup.protocol_switch) return setup.protocol_switch;
  if (setup.engine != Engine::sim) return std::nullopt;
  const Protocols p = resolve_protocols(ran.empty() ? setup.env.sim.protocol : ran, setup.env.sim.protocol_options,
                                        setup.env.sim.eager_limit, [](const std::string&) { return std::string(); });
  return p.inter.protocol_switch();
}

Experiments plan_experiments(const CalibrationSetup& setup, const Checked& checked) {
  const Engine engine = setup.engine;
  const bool mpi = is_measured(engine);
  Experiments ex;
  std::vector<PlanPoint>& plan = ex.plan;
  auto add = [&](const AlgorithmInfo* a, int p, std::size_t m, std::size_t segment, std::size_t then_gather) {
    PlanPoint pt;
    pt.engine = engine;
    pt.spec.algorithm = a;
    pt.spec.procs = p;
    pt.spec.bytes = m;
    pt.spec.params.segment = a->takes(Knob::segment) ? segment : 0;
    // Measured: a rooted operation's experiment ends on the root (a broadcast's by its gather), the
    // others' on their last rank. Simulated (sim): every call is timed to its last rank with no
    // gather, as runs are compared: its clock is global, and under tcp's eager hand-over the
    // gather's messages leave while the broadcast still runs, so the experiment is not the sum of
    // the two formulas the fit would read.
    const bool to_last_rank = engine == Engine::sim;
    pt.spec.then_gather = to_last_rank ? 0 : then_gather;
    pt.spec.timed_on_root = !to_last_rank && operation_info(a->op).rooted;
    pt.spec.real_bytes = mpi;  // the mpi engines always move real bytes
    plan.push_back(pt);
  };
  const AlgorithmInfo* linear = find_algorithm("bcast/basic_linear");
  for (int p = 2; p <= checked.gamma_max; ++p) {
    add(linear, p, setup.segment, 0, 0);
    // Until the last receiver has the segment: the seed separates its repetitions by barriers,
    // which wait for the receivers too. On the root alone, eager sends complete at hand-over, and
    // the time would say nothing about the network.
    plan.back().spec.timed_on_root = false;
  }
  ex.gamma_points = plan.size();
  for (const AlgorithmInfo* a : checked.algorithms) {
    const OperationInfo& op = operation_info(a->op);
    const std::size_t before = plan.size();
    for (int p : setup.procs) {
      if (p < 2 || !runs_on(*a, p)) continue;
      if (!op.moves_data) {
        add(a, p, 0, 0, 0);
        continue;
      }
      // Sizes that are no whole number of the reduction's elements are not calls of `op`.
      for (std::size_t m : setup.bytes)
        if (m > 0 && call_error(op, m, kDefaultReduction).empty())
          add(a, p, m, setup.segment, a->op == Operation::bcast ? setup.segment : 0);
    }
    if (plan.size() == before)
      throw InputError("calibrate: " + std::string(a->name) +
                       " has no experiment among these process counts and sizes");
  }
  ex.reduces = std::any_of(checked.algorithms.begin(), checked.algorithms.end(),
                           [](const AlgorithmInfo* a) { return operation_info(a->op).reduces; });
  // The local reduction's sizes: the experiments' whole-element sizes.
  std::vector<std::size_t>& reduce_bytes = ex.reduce_bytes;
  if (ex.reduces)
    for (std::size_t m : setup.bytes)
      if (m > 0 && call_error(operation_info(Operation::reduce), m, kDefaultReduction).empty())
        reduce_bytes.push_back(m);
  std::sort(reduce_bytes.begin(), reduce_bytes.end());
  reduce_bytes.erase(std::unique(reduce_bytes.begin(), reduce_bytes.end()), reduce_bytes.end());
  if (ex.reduces && reduce_bytes.size() < 2)
    throw InputError("calibrate: the local reduction needs two sizes of whole " +
                     std::string(to_string(kDefaultReduction.type)) + " elements among --bytes");
  // Ranks per node (the ping-pong between ranks 0 and rpn crosses the network).
  if (!mpi) {
    const models::Placement placement =
        engine == Engine::model ? setup.env.model.two_level.placement : platform_hockney(setup.env.sim).placement;
    ex.ranks_per_node = placement.round_robin > 0 ? 1 : placement.block;
  }
  ex.pingpong_begin = plan.size();
  if (!mpi)
    for (std::size_t m : setup.pingpong_bytes) add(&kPingPong, std::max(ex.ranks_per_node, 1) + 1, m, 0, 0);
  // The simulated hosts' ranks talk over the loopback or shared memory, not the host's link: the
  // ping-pong between ranks 0 and 1 of one host prices the derived formulas' messages inside a node.
  ex.intra_begin = plan.size();
  if (engine == Engine::sim && ex.ranks_per_node > 1)
    for (std::size_t m : setup.pingpong_bytes) add(&kPingPong, 2, m, 0, 0);
  ex.reduce_begin = plan.size();
  if (!mpi)
    for (std::size_t m : reduce_bytes) add(&kReduceLocal, 1, m, 0, 0);
  ex.total = plan.size() + (mpi && !setup.pingpong_bytes.empty() ? 1 : 0) + (mpi && ex.reduces ? 1 : 0);
  return ex;
}

// Every experiment's time, in plan order; `record` is given each row as it comes.
std::vector<double> run_experiments(const CalibrationSetup& setup, const Experiments& ex, int gamma_max,
                                    const std::function<void(const Measurement&)>& record) {
  const Engine engine = setup.engine;
  const bool mpi = is_measured(engine);
  // gamma(p) is the cost of the root's sends to p-1 ranks over a transfer between nodes: measured
  // one rank per node where the cluster has the nodes (so gamma(2) is not a transfer inside a
  // node, which with two ranks per node it would be); the mpi engines run where mpirun placed them.
  Scenario gamma_env = setup.env;
  gamma_env.model.two_level.placement = models::block_placement(1);
  if (engine == Engine::sim && platform_host_count(setup.env.sim.platform_file) >= static_cast<std::size_t>(gamma_max))
    gamma_env.sim.map_by = models::MapBy{};
  const Scenario& gamma_run = mpi ? setup.env : gamma_env;
  const auto gamma_end = ex.plan.begin() + static_cast<std::ptrdiff_t>(ex.gamma_points);
  std::vector<PlanPoint> gamma_plan(ex.plan.begin(), gamma_end);
  std::vector<PlanPoint> rest(gamma_end, ex.plan.end());
  // The runner takes each point's engine settings.
  for (PlanPoint& pt : gamma_plan) std::tie(pt.sim, pt.model) = std::tie(gamma_run.sim, gamma_run.model);
  for (PlanPoint& pt : rest) std::tie(pt.sim, pt.model) = std::tie(setup.env.sim, setup.env.model);
  std::vector<double> times;
  times.reserve(ex.plan.size());
  const auto keep = [&](const Measurement& m) {
    times.push_back(m.time_s);
    record(m);
  };
  if (engine == Engine::model) {
    const std::vector<double> t = gamma_in_one_run(gamma_run.model, gamma_plan.back().spec);
    for (std::size_t i = 0; i < t.size(); ++i) {
      RunResult r;
      r.time_s = t[i];
      keep(to_measurement(Engine::model, gamma_plan[i].spec, r));
    }
  } else {
    run_plan(gamma_run, gamma_plan, keep);
  }
  run_plan(setup.env, rest, keep);
  return times;
}

// What the parameters file says of the calibration itself: engine, platform, protocol, ranks
// per node, segment, method, grid, and whether a network receives one message at a time.
Parameters parameters_of(const CalibrationSetup& setup, const Experiments& ex) {
  const Engine engine = setup.engine;
  Parameters out;
  out.engine = engine_name(engine);
  out.platform = setup.env.sim.platform_file;
  out.protocol = engine == Engine::sim ? setup.env.sim.protocol : "";
  out.ranks_per_node = ex.ranks_per_node;
  out.segment = setup.segment;
  out.method = to_string(setup.method);
  out.procs = setup.procs;
  // The model engine says how its ports behave; a network is taken to receive one message at a
  // time, as the seed's models do.
  out.serial_receive =
      engine != Engine::model || setup.env.model.one_port || setup.env.model.kind == ModelConfig::Kind::loggp;
  out.bytes = setup.bytes;
  return out;
}

// gamma(p) = time(p) / time(2) as measured, and its fit (fit_gamma).
void fit_gamma(const Experiments& ex, const std::vector<double>& times, FitMethod method, Parameters& out) {
  for (std::size_t i = 0; i < ex.gamma_points; ++i) out.gamma_measured.push_back(times[i] / times[0]);
  const GammaFit g = fit_gamma(out.gamma_measured, method);
  out.gamma = g.values;
  out.gamma_intercept = g.intercept;
  out.gamma_slope = g.slope;
}

// The local reduction's seconds per byte: the slope of its times (the intercept is a call's fixed
// cost, which the formulas do not have). The mpi engines time the arithmetic in this process.
double fit_reduce_gamma(const Experiments& ex, const std::vector<double>& times, bool mpi) {
  std::vector<double> x, y;
  for (std::size_t k = 0; k < ex.reduce_bytes.size(); ++k) {
    x.push_back(static_cast<double>(ex.reduce_bytes[k]));
    y.push_back(mpi ? time_apply(kDefaultReduction, ex.reduce_bytes[k]) : times[ex.reduce_begin + k]);
  }
  // The least-squares slope, computed here: free reductions (all times 0) are a valid answer.
  double mx = 0, my = 0;
  for (std::size_t k = 0; k < x.size(); ++k) mx += x[k], my += y[k];
  mx /= static_cast<double>(x.size()), my /= static_cast<double>(x.size());
  double sxy = 0, sxx = 0;
  for (std::size_t k = 0; k < x.size(); ++k) sxy += (x[k] - mx) * (y[k] - my), sxx += (x[k] - mx) * (x[k] - mx);
  return std::max(0.0, sxy / sxx);  // sizes differ (two at least): sxx > 0
}

// Each algorithm's (alpha, beta), per regime where the protocol switches, from its experiments,
// gamma(p) and the reduction's gamma known.
void fit_algorithms(const Experiments& ex, const std::vector<const AlgorithmInfo*>& algorithms,
                    const std::vector<double>& times, FitMethod method,
                    const std::optional<models::ProtocolSwitch>& protocol_switch, Parameters& out) {
  const models::Gamma gamma(out.gamma, out.gamma_intercept, out.gamma_slope);
  std::size_t i = ex.gamma_points;
  for (const AlgorithmInfo* a : algorithms) {
    const std::size_t first = i;
    while (i < ex.plan.size() && ex.plan[i].spec.algorithm == a) ++i;
    models::FormulaCosts costs{{}, gamma, out.serial_receive, operation_info(a->op).reduces ? out.reduce_gamma : 0};
    if (protocol_switch) costs.regimes = models::regimes_of(*protocol_switch, {});
    costs.eager_handover = out.eager_handover;
    costs.node_ranks = out.node_ranks;
    costs.fair_sharing = out.fair_sharing;
    if (out.intra_pingpong && out.node_ranks > 1)
      costs.intra = models::Hockney{out.intra_pingpong->alpha, out.intra_pingpong->beta};
    std::vector<RunSpec> specs;
    for (std::size_t k = first; k < i; ++k) specs.push_back(ex.plan[k].spec);
    try {
      RegimeSplit split = fit_algorithm(specs,
                                        std::vector<double>(times.begin() + static_cast<std::ptrdiff_t>(first),
                                                            times.begin() + static_cast<std::ptrdiff_t>(i)),
                                        costs, method, operation_info(a->op).moves_data);
      out.algorithms[std::string(a->name)] = split.fit;
      if (!split.above.empty()) out.regimes[std::string(a->name)] = split.above;
    } catch (const std::invalid_argument& e) {
      throw InputError("calibrate " + std::string(a->name) + ": " + e.what());
    }
  }
}

// The textbook models' one (alpha, beta), both >= 0: the ping-pong's one-way times (the mpi
// engines run collsim-mpi pingpong).
HockneyFit fit_pingpong(const CalibrationSetup& setup, const Experiments& ex, const std::vector<double>& times,
                        const std::function<void(std::size_t, std::size_t)>& progress) {
  std::vector<double> x, y;
  if (is_measured(setup.engine)) {
    y = mpi_pingpong(setup.env.mpi, setup.pingpong_bytes);
    if (progress) progress(ex.total, ex.total);
  } else {
    for (std::size_t i = ex.pingpong_begin; i < ex.intra_begin; ++i) y.push_back(times[i] / 2);
  }
  for (std::size_t s : setup.pingpong_bytes) x.push_back(static_cast<double>(s));
  try {
    HockneyFit f = to_fit(fit_line_nonnegative(x, y, setup.method), x.size());
    f.quality = fit_quality(f, true);
    return f;
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("calibrate: ping-pong: ") + e.what());
  }
}

// The ping-pong inside a node (sim, ranks per node > 1): one (alpha, beta) over its sizes below
// the protocol's switch inside a node (`limit`, 0: none), the eager sizes a segment has. Fewer
// than two such sizes: none, and messages inside a node cost what those between nodes do.
std::optional<HockneyFit> fit_intra_pingpong(const CalibrationSetup& setup, const Experiments& ex,
                                             const std::vector<double>& times, std::size_t limit, FitMethod method) {
  std::vector<double> x, y;
  for (std::size_t i = ex.intra_begin; i < ex.reduce_begin; ++i) {
    const std::size_t m = setup.pingpong_bytes[i - ex.intra_begin];
    if (limit > 0 && m >= limit) continue;
    x.push_back(static_cast<double>(m));
    y.push_back(times[i] / 2);
  }
  if (x.size() < 2) return std::nullopt;
  try {
    HockneyFit f = to_fit(fit_line_nonnegative(x, y, method), x.size());
    f.quality = fit_quality(f, true);
    return f;
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("calibrate: ping-pong inside a node: ") + e.what());
  }
}

}  // namespace

// The line is fitted as g - 1 = u + slope*(p - first), u >= 0 and slope >= 0, first the first p
// past the table: the nonnegative fit of regression.hpp gives both bounds.
GammaFit fit_gamma(const std::vector<double>& measured, FitMethod method) {
  GammaFit out;
  out.values = fit_nondecreasing(measured, std::vector<double>(measured.size(), 1.0), 1.0);
  if (measured.size() < 2 || std::all_of(out.values.begin(), out.values.end(), [](double g) { return g == 1; }))
    return out;
  const double first = static_cast<double>(measured.size()) + 2;
  std::vector<double> x, y;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    x.push_back(static_cast<double>(i) + 2 - first);
    y.push_back(out.values[i] - 1);
  }
  LinearFit2 g;
  try {
    g = fit_line_nonnegative(x, y, measured.size() > 3 ? method : FitMethod::least_squares);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("calibrate: gamma(p): ") + e.what());
  }
  out.slope = g.c2;
  out.intercept = 1 + g.c1 - g.c2 * first;
  return out;
}

RegimeSplit fit_algorithm(const std::vector<RunSpec>& specs, const std::vector<double>& times,
                          const models::FormulaCosts& costs, FitMethod method, bool moves_data) {
  const double rg = costs.reduce_gamma;
  // The fit of regime `unknown` from the experiments `idx`, the other costs as in `at`.
  const auto fit_one = [&](const std::vector<std::size_t>& idx, const models::FormulaCosts& at, Unknown unknown) {
    auto fit_at = [&](double alpha0, double beta0) {
      std::vector<Observation> obs;
      for (std::size_t k : idx) obs.push_back(equation(specs[k], times[k], at, unknown, alpha0, beta0));
      const bool alpha_only = std::all_of(obs.begin(), obs.end(), [](const Observation& o) { return o.x2 == 0; });
      // alpha and beta are a latency and a time per byte: a negative one would fit the grid by
      // cancelling the other and predict negative times outside it (a two-level cluster fitted
      // with one level: bcast/binomial's beta came out negative under map-by node).
      HockneyFit h = to_fit(alpha_only ? fit_alpha(obs) : fit_through_origin_nonnegative(obs, method), obs.size());
      // The scatter of these experiments about the fit, for its prediction intervals.
      h.uncertainty = fit_uncertainty(obs, h.alpha, h.beta);
      return h;
    };
    HockneyFit fit = fit_at(0, 0);
    // With a reduction, refit where the last fit is (equation()), from a positive start: the
    // first, linear, fit can miss by more than its own size when the reduction decides which
    // terms win (reduce/chain's beta came out negative). Five rounds reach the linear piece of
    // every experiment in the tests. So too with messages inside a node priced apart: their fixed
    // cost counts only where their path wins a maximum, which at (1, 0) and (0, 1) it never does
    // (gather/basic_linear's messages from the root's node, beside those over its link: taken
    // out as a sum, they put alpha at 13.8 us where the data have 20 us).
    if (rg > 0 || at.intra) {
      fit.alpha = std::max(fit.alpha, 1e-7);
      fit.beta = std::max(fit.beta, std::max(rg, 1e-12));
      for (int round = 0; round < 5 && fit.alpha > 0 && fit.beta > 0; ++round) fit = fit_at(fit.alpha, fit.beta);
    }
    fit.quality = fit_quality(fit, moves_data);
    return fit;
  };
  RegimeSplit out;
  if (costs.regimes.empty()) {
    std::vector<std::size_t> all(specs.size());
    for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
    out.fit = fit_one(all, costs, {});
    return out;
  }
  // Each experiment goes to the highest regime its messages reach; a straddling one's messages
  // of lower regimes are priced at those regimes' fits (which come first).
  const std::size_t regimes = costs.regimes.size() + 1;
  std::vector<std::vector<std::size_t>> by(regimes);
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const std::vector<bool> used = regimes_used(specs[k], costs);
    std::size_t top = 0;
    for (std::size_t r = 0; r < regimes; ++r)
      if (used[r]) top = r;
    by[top].push_back(k);
    if (std::find(used.begin(), used.begin() + static_cast<std::ptrdiff_t>(top), true) !=
        used.begin() + static_cast<std::ptrdiff_t>(top))
      ++out.straddling;
  }
  // A regime's experiments `idx` under another regime's fit `from`: their residuals, no scatter
  // of their own (an interval needs a fit of theirs).
  const auto borrowed = [&](const std::vector<std::size_t>& idx, const models::FormulaCosts& at, Unknown unknown,
                            const HockneyFit& from) {
    HockneyFit f{from.alpha, from.beta, static_cast<int>(idx.size())};
    double sq = 0;
    for (std::size_t k : idx) {
      const Observation o = equation(specs[k], times[k], at, unknown);
      const double r = o.y - f.alpha * o.x1 - f.beta * o.x2;
      sq += r * r;
      if (o.y > 0) f.max_rel_residual = std::max(f.max_rel_residual, std::abs(r) / o.y);
    }
    f.rms_residual_s = idx.empty() ? 0 : std::sqrt(sq / static_cast<double>(idx.size()));
    return f;
  };
  models::FormulaCosts at = costs;
  std::vector<HockneyFit> fits(regimes);
  std::string eager_problem;
  try {
    fits[0] = fit_one(by[0], at, {0, false});
  } catch (const std::invalid_argument& e) {
    eager_problem = e.what();
  }
  at.hockney = {fits[0].alpha, fits[0].beta};
  const auto few = [](std::size_t n, const std::string& why) {
    return "poor: " + std::to_string(n) + " experiment" + (n == 1 ? "" : "s") + " in this regime" +
           (n > 0 ? " (" + why + ")" : "");
  };
  for (std::size_t r = 1; r < regimes; ++r) {
    const bool lower_fitted = r > 1 || eager_problem.empty();
    try {
      // The eager regime unfitted: this regime's experiments give one (alpha, beta) for both.
      fits[r] = fit_one(by[r], at, {r, !lower_fitted});
    } catch (const std::invalid_argument& e) {
      if (!lower_fitted)
        throw std::invalid_argument("no regime can be fitted: " + eager_problem + "; and above: " + e.what());
      // Too few to fit: it takes the regime below's (alpha, beta), and says so.
      fits[r] = borrowed(by[r], at, {r, false}, fits[r - 1]);
      fits[r].quality = few(by[r].size(), e.what()) + "; takes the (alpha, beta) of the regime below";
    }
    at.regime_costs(r) = {fits[r].alpha, fits[r].beta};
    if (!lower_fitted) {
      fits[0] = borrowed(by[0], at, {0, false}, fits[r]);
      fits[0].quality = few(by[0].size(), eager_problem) + "; takes the (alpha, beta) fitted with the regime above";
    }
  }
  out.fit = fits[0];
  for (std::size_t r = 1; r < regimes; ++r) {
    const models::Regime& g = costs.regimes[r - 1];
    out.above.push_back({g.from, g.handshake_messages, g.handshake_bytes, fits[r]});
  }
  return out;
}

Parameters calibrate(const CalibrationSetup& setup, const std::function<void(std::size_t, std::size_t)>& progress,
                     const std::function<void(const Measurement&)>& measured) {
  const Checked checked = check_setup(setup);
  const Experiments ex = plan_experiments(setup, checked);
  std::size_t done = 0;
  std::string protocol_run;  // sim: the protocol selection its experiments ran under
  const std::vector<double> times = run_experiments(setup, ex, checked.gamma_max, [&](const Measurement& m) {
    if (protocol_run.empty()) protocol_run = m.protocol;
    if (measured) measured(m);
    if (progress) progress(++done, ex.total);
  });

  Parameters out = parameters_of(setup, ex);
  const std::optional<models::ProtocolSwitch> sw = protocol_switch(setup, protocol_run);
  out.eager_handover = sw && sw->eager_handover;
  // The simulated hosts' ranks share the host's link; the model engine gives each rank its own.
  out.node_ranks = setup.engine == Engine::sim ? std::max(ex.ranks_per_node, 1) : 1;
  // Its flows share a link's bandwidth fairly: a rank's sends posted together end together.
  out.fair_sharing = setup.engine == Engine::sim;
  fit_gamma(ex, times, setup.method, out);
  // The local reduction first: the algorithms' fits take its time out of theirs.
  if (ex.reduces) {
    out.reduce_gamma = fit_reduce_gamma(ex, times, is_measured(setup.engine));
    if (is_measured(setup.engine) && progress) progress(ex.total, ex.total);
  }
  if (ex.intra_begin < ex.reduce_begin) {
    const Protocols p =
        resolve_protocols(protocol_run.empty() ? setup.env.sim.protocol : protocol_run, setup.env.sim.protocol_options,
                          setup.env.sim.eager_limit, [](const std::string&) { return std::string(); });
    const std::vector<models::Regime> regimes = models::regimes_of(p.intra.protocol_switch(), {});
    out.intra_pingpong = fit_intra_pingpong(setup, ex, times, regimes.empty() ? 0 : regimes.front().from, setup.method);
  }
  fit_algorithms(ex, checked.algorithms, times, setup.method, sw, out);
  if (!setup.pingpong_bytes.empty()) out.pingpong = fit_pingpong(setup, ex, times, progress);
  return out;
}

Parameters calibrate_in_model(const ModelConfig& model, int max_procs, std::size_t segment,
                              std::vector<const AlgorithmInfo*> algorithms,
                              const std::function<void(std::size_t, std::size_t)>& progress) {
  CalibrationSetup s;
  s.engine = Engine::model;
  s.env.model = model;
  s.algorithms = std::move(algorithms);
  if (s.algorithms.empty()) throw InputError("calibrate: no algorithm to calibrate");
  for (int p = 2; p < max_procs; p *= 2) s.procs.push_back(p);
  s.procs.push_back(std::max(max_procs, 2));
  s.bytes = {segment / 8, segment / 2};
  for (std::size_t k : {1, 4, 16, 64}) s.bytes.push_back(k * segment);
  s.segment = segment;
  s.gamma_max_procs = std::max(max_procs, 2);
  for (std::size_t k = 1; k <= (std::size_t{4} << 20); k *= 16) s.pingpong_bytes.push_back(k);
  return calibrate(s, progress);
}

FormulaConfig formula_for_model(const ModelConfig& model, FormulaConfig::Kind kind, int max_procs, std::size_t segment,
                                const std::vector<const AlgorithmInfo*>& algorithms,
                                const std::function<void(std::size_t, std::size_t)>& progress) {
  if (model.kind == ModelConfig::Kind::two_level) {
    Parameters p = calibrate_in_model(model, max_procs, segment, algorithms, progress);
    p.file = "the calibration in the model engine";
    return formula_config(p, kind);
  }
  FormulaConfig f;
  f.kind = kind;
  f.costs = costs_from_model(model, max_procs, segment);
  return f;
}

}  // namespace collsim
