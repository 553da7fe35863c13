#include "experiment/calibration.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include <unistd.h>

#include "experiment/mpi_launcher.hpp"
#include "experiment/runner.hpp"
#include "models/formulas.hpp"

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

// The coefficients of alpha and beta in the derived model of one experiment.
std::pair<double, double> coefficients(const RunSpec& spec, const models::Gamma& gamma, bool serial_receive) {
  auto eval = [&](double alpha, double beta) {
    models::FormulaInput in{spec.procs, spec.bytes, spec.params, {{alpha, beta}, gamma, serial_receive}};
    double t = spec.algorithm->derived(in);
    if (spec.then_gather > 0) {
      models::FormulaInput g{spec.procs, spec.then_gather, {}, in.costs};
      g.params.root = spec.params.root;
      t += models::derived_gather_basic_linear(g);
    }
    return t;
  };
  return {eval(1, 0), eval(0, 1)};
}

HockneyFit to_fit(const LinearFit2& f, std::size_t points) {
  return {f.c1, f.c2, static_cast<int>(points), f.rms_residual, f.max_rel_residual};
}

// One-way times of the ping-pong sizes under collsim-mpi pingpong (2 ranks).
std::vector<double> mpi_pingpong(const MpiLaunch& launch, const std::vector<std::size_t>& sizes) {
  const auto dir = std::filesystem::temp_directory_path() / ("collsim-pingpong-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "pingpong.csv").string();
  std::string list;
  for (std::size_t s : sizes) list += (list.empty() ? "" : ",") + std::to_string(s);
  std::vector<std::string> argv = launcher_command(launch);
  for (const char* a : {"-np", "2"}) argv.emplace_back(a);
  argv.push_back(mpi_program(launch));
  for (const std::string& a : {std::string("pingpong"), std::string("--sizes"), list, std::string("--csv"), csv})
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
    if (cells.size() >= 7) one_way.push_back(std::stod(cells[6]));
  }
  std::filesystem::remove_all(dir);
  if (status != 0 || one_way.size() != sizes.size())
    throw EngineError("collsim-mpi pingpong failed (exit status " + std::to_string(status) + "): " + cmd);
  return one_way;
}

}  // namespace

bool calibrate_by_default(const AlgorithmInfo& a) {
  return a.derived && operation_info(a.op).rooted && operation_info(a.op).moves_data;
}

Parameters calibrate(const CalibrationSetup& setup, const std::function<void(std::size_t, std::size_t)>& progress) {
  const std::string& engine = setup.engine;
  const bool mpi = engine == "mpi" || engine == "mpi-native";
  if (engine != "model" && engine != "sim" && !mpi)
    throw InputError("calibrate: unknown engine '" + engine + "' (model, sim, mpi or mpi-native)");
  if (setup.procs.empty() || setup.bytes.empty()) throw InputError("calibrate: no process counts or sizes");
  std::vector<const AlgorithmInfo*> algorithms = setup.algorithms;
  if (algorithms.empty())
    for (const auto& a : all_algorithms())
      if (calibrate_by_default(a)) algorithms.push_back(&a);
  for (const AlgorithmInfo* a : algorithms)
    if (!a->derived) throw InputError("calibrate: " + std::string(a->name) + " has no derived formula to fit");
  const int gamma_max =
      setup.gamma_max_procs > 0 ? setup.gamma_max_procs : *std::max_element(setup.procs.begin(), setup.procs.end());
  if (gamma_max < 2) throw InputError("calibrate: gamma(p) needs process counts of at least 2");

  // The plan: gamma first (the fits need it), then every algorithm's grid, then the ping-pong.
  std::vector<PlanPoint> plan;
  auto add = [&](const AlgorithmInfo* a, int p, std::size_t m, std::size_t segment, std::size_t then_gather) {
    PlanPoint pt;
    pt.engine = engine;
    pt.spec.algorithm = a;
    pt.spec.procs = p;
    pt.spec.bytes = m;
    pt.spec.params.segment = a->takes(Knob::segment) ? segment : 0;
    pt.spec.then_gather = then_gather;
    pt.spec.timed_on_root = true;
    pt.spec.real_bytes = mpi;  // the mpi engines always move real bytes
    plan.push_back(pt);
  };
  const AlgorithmInfo* linear = find_algorithm("bcast/basic_linear");
  for (int p = 2; p <= gamma_max; ++p) {
    add(linear, p, setup.segment, 0, 0);
    // Until the last receiver has the segment: the seed separates its repetitions by barriers,
    // which wait for the receivers too. On the root alone, eager sends complete at hand-over, and
    // the time would say nothing about the network.
    plan.back().spec.timed_on_root = false;
  }
  const std::size_t gamma_points = plan.size();
  for (const AlgorithmInfo* a : algorithms)
    for (int p : setup.procs)
      for (std::size_t m : setup.bytes)
        if (p >= 2 && m > 0) add(a, p, m, setup.segment, a->op == Operation::bcast ? setup.segment : 0);
  // Ranks per node (the ping-pong between ranks 0 and rpn crosses the network).
  int rpn = 1;
  if (!mpi) {
    const models::Placement placement =
        engine == "model" ? setup.env.model.two_level.placement : platform_hockney(setup.env.sim).placement;
    rpn = placement.round_robin > 0 ? 1 : placement.block;
  }
  if (!mpi)
    for (std::size_t m : setup.pingpong_bytes) add(&kPingPong, std::max(rpn, 1) + 1, m, 0, 0);

  std::vector<double> times;
  times.reserve(plan.size());
  const std::size_t total = plan.size() + (mpi && !setup.pingpong_bytes.empty() ? 1 : 0);
  auto record = [&](const Measurement& m) {
    times.push_back(m.time_s);
    if (progress) progress(times.size(), total);
  };
  // gamma(p) is the cost of the root's sends to p-1 ranks over a transfer between nodes: measured
  // one rank per node where the cluster has the nodes (so gamma(2) is not a transfer inside a
  // node, which with two ranks per node it would be); the mpi engines run where mpirun placed them.
  Scenario gamma_env = setup.env;
  gamma_env.model.two_level.placement = models::block_placement(1);
  if (engine == "sim" && platform_host_count(setup.env.sim.platform_file) >= static_cast<std::size_t>(gamma_max))
    gamma_env.sim.map_by = models::MapBy{};
  const Scenario& gamma_run = mpi ? setup.env : gamma_env;
  std::vector<PlanPoint> gamma_plan(plan.begin(), plan.begin() + static_cast<std::ptrdiff_t>(gamma_points));
  std::vector<PlanPoint> rest(plan.begin() + static_cast<std::ptrdiff_t>(gamma_points), plan.end());
  // The runner takes each point's engine settings.
  for (PlanPoint& pt : gamma_plan) std::tie(pt.sim, pt.model) = std::tie(gamma_run.sim, gamma_run.model);
  for (PlanPoint& pt : rest) std::tie(pt.sim, pt.model) = std::tie(setup.env.sim, setup.env.model);
  run_plan(gamma_run, gamma_plan, record);
  run_plan(setup.env, rest, record);

  Parameters out;
  out.engine = engine;
  out.platform = setup.env.sim.platform_file;
  out.protocol = engine == "sim" ? setup.env.sim.protocol : "";
  out.ranks_per_node = rpn;
  out.segment = setup.segment;
  out.method = to_string(setup.method);
  out.procs = setup.procs;
  // The model engine says how its ports behave; a network is taken to receive one message at a
  // time, as the seed's models do.
  out.serial_receive =
      engine != "model" || setup.env.model.one_port || setup.env.model.kind == ModelConfig::Kind::loggp;
  out.bytes = setup.bytes;

  std::vector<double> ps, gs;
  for (std::size_t i = 0; i < gamma_points; ++i) {
    out.gamma.push_back(times[i] / times[0]);
    ps.push_back(plan[i].spec.procs);
    gs.push_back(out.gamma.back());
  }
  if (ps.size() >= 2) {
    LinearFit2 g;
    try {
      g = fit_line(ps, gs, ps.size() > 3 ? setup.method : FitMethod::least_squares);
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string("calibrate: gamma(p): ") + e.what());
    }
    out.gamma_intercept = g.c1;
    out.gamma_slope = g.c2;
  } else {
    out.gamma_intercept = 1;
    out.gamma_slope = 0;
  }
  const models::Gamma gamma(out.gamma, out.gamma_intercept, out.gamma_slope);

  std::size_t i = gamma_points;
  for (const AlgorithmInfo* a : algorithms) {
    std::vector<Observation> obs;
    for (; i < plan.size() && plan[i].spec.algorithm == a; ++i) {
      const auto [x1, x2] = coefficients(plan[i].spec, gamma, out.serial_receive);
      obs.push_back({x1, x2, times[i]});
    }
    try {
      out.algorithms[std::string(a->name)] = to_fit(fit_through_origin(obs, setup.method), obs.size());
    } catch (const std::invalid_argument& e) {
      throw InputError("calibrate " + std::string(a->name) + ": " + e.what());
    }
  }
  if (!setup.pingpong_bytes.empty()) {
    std::vector<double> x, y;
    if (mpi) {
      y = mpi_pingpong(setup.env.mpi, setup.pingpong_bytes);
      if (progress) progress(total, total);
    } else {
      for (; i < plan.size(); ++i) y.push_back(times[i] / 2);
    }
    for (std::size_t s : setup.pingpong_bytes) x.push_back(static_cast<double>(s));
    try {
      out.pingpong = to_fit(fit_line(x, y, setup.method), x.size());
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string("calibrate: ping-pong: ") + e.what());
    }
  }
  return out;
}

Parameters calibrate_in_model(const ModelConfig& model, int max_procs, std::size_t segment) {
  CalibrationSetup s;
  s.engine = "model";
  s.env.model = model;
  for (int p = 2; p < max_procs; p *= 2) s.procs.push_back(p);
  s.procs.push_back(std::max(max_procs, 2));
  s.bytes = {segment / 8, segment / 2};
  for (std::size_t k : {1, 4, 16, 64}) s.bytes.push_back(k * segment);
  s.segment = segment;
  s.gamma_max_procs = std::max(max_procs, 2);
  for (std::size_t k = 1; k <= (std::size_t{4} << 20); k *= 16) s.pingpong_bytes.push_back(k);
  return calibrate(s);
}

FormulaConfig formula_for_model(const ModelConfig& model, FormulaConfig::Kind kind, int max_procs,
                                std::size_t segment) {
  if (model.kind == ModelConfig::Kind::two_level)
    return formula_config(calibrate_in_model(model, max_procs, segment), kind);
  FormulaConfig f;
  f.kind = kind;
  f.costs = costs_from_model(model, max_procs, segment);
  return f;
}

}  // namespace collsim
