// The parameters file: what `collsim calibrate` measured and fitted, and what the formula engine,
// selection and `collsim compare` read back (`--params FILE`, scenario `formula.params`).
//
// YAML, numbers at full precision (shortest round-trip form). It records where the numbers come
// from (engine, platform, protocol, ranks per node, segment size, the grid of the experiments)
// and, for every fit, its method and quality, so a prediction can be traced to its measurements.
// Its numbers are physical or the file is refused (read_parameters): alpha, beta and the
// reduction's gamma >= 0, gamma(p) >= 1 and non-decreasing, the line past it too, all finite.
// Fits per protocol regime (a sim calibration) keep the eager regime's fit where one fit always
// was and the regimes above it in the entry's `above` list (RegimeFit); files without it read as
// one regime, as they were written.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engines/formula/formula_engine.hpp"
#include "models/prediction_interval.hpp"

namespace collsim {

// T = alpha + beta * X fitted over `points` experiments.
struct HockneyFit {
  double alpha = 0, beta = 0;
  int points = 0;
  double rms_residual_s = 0;    // root mean square of T - fit, in seconds
  double max_rel_residual = 0;  // largest |T - fit| / T
  std::string quality{};        // fit_quality(): "ok" or "poor: " and why
  // What its prediction intervals need (models/prediction_interval.hpp): keys log_sd, var_alpha,
  // cov_alpha_beta, var_beta and dof in the file, all or none. Files written before intervals
  // have none, and their predictions then have no interval rather than a made-up one.
  std::optional<models::FitUncertainty> uncertainty = std::nullopt;
};

// The fit of one regime of an algorithm's larger messages (a rendezvous: `calibrate` on an engine
// whose protocol switches, from its own experiments): payloads of `from` bytes and more, each
// after handshake_messages control messages of handshake_bytes in all (models::Regime).
struct RegimeFit {
  std::size_t from = 0;
  int handshake_messages = 0;
  std::size_t handshake_bytes = 0;
  HockneyFit fit;
};

// A fit is poor when a parameter sits at its bound 0 (the constrained fit would have taken it
// below 0: under the algorithm's formula the data show no latency, or no cost per byte) or when
// one of its own experiments is off the fit by more than kPoorFitResidual of its time.
inline constexpr double kPoorFitResidual = 0.25;
// "ok", or "poor: " and the reasons, "; " between them. `moves_data`: the fit has a cost per
// byte to find (a barrier's beta is 0 by design).
std::string fit_quality(const HockneyFit& f, bool moves_data);
// The rule above in words, for calibrate's --help and its table.
std::string poor_fit_rule();

struct Parameters {
  std::string file;      // where they come from, for messages (read_parameters: the path); not written
  std::string engine;    // sim, model, mpi, mpi-native
  std::string platform;  // sim, model: the platform file; mpi: the host it ran on
  std::string protocol;  // sim: the protocol selection; else empty
  int ranks_per_node = 1;
  std::size_t segment = 8192;    // m_s: the segment of the experiments and of the derived formulas
  std::string method = "huber";  // robust (Huber) or least_squares
  // Whether the formulas take a rank's incoming messages one at a time (FormulaCosts): true for
  // measured and simulated networks (the seed's models), the model engine's port setting there.
  bool serial_receive = true;
  // Whether an eager send is done once handed over, alpha before its data arrives (FormulaCosts;
  // the protocol's ProtocolSwitch::eager_handover, sim engine under tcp). Absent (older files): no.
  bool eager_handover = false;
  // Ranks per node whose sends to other nodes share the node's link in the formulas
  // (FormulaCosts::node_ranks): the sim engine's ranks per node; 1 (older files, the model and mpi
  // engines): a link per rank.
  int node_ranks = 1;
  // Whether a rank's sends posted together share its link and end together (FormulaCosts;
  // the sim engine). Absent (older files, the model and mpi engines): one after the other.
  bool fair_sharing = false;
  std::vector<int> procs;          // the experiments' process counts
  std::vector<std::size_t> bytes;  // and message sizes
  // gamma(p) for p = 2..gamma.size()+1, normalised (gamma(2) = 1): `gamma` as the formulas use
  // it, the non-decreasing fit (>= 1) of `gamma_measured`, the experiment's times over the time
  // for p = 2 (empty in files older than the fit); and the line the formulas use past the table,
  // intercept + slope*p, with slope >= 0 and >= 1 from the first p past it on.
  std::vector<double> gamma;
  std::vector<double> gamma_measured;
  double gamma_intercept = 1, gamma_slope = 0;
  // Seconds per byte of a local reduction (the formulas' reduction gamma), from timing
  // comm.reduce_local alone; 0 when nothing reducing was calibrated.
  double reduce_gamma = 0;
  std::optional<HockneyFit> pingpong;  // RTT/2 = alpha + beta*m
  // The same between two ranks of one node, over its eager sizes (sim engine, ranks_per_node > 1):
  // what the derived formulas charge a message inside a node (FormulaCosts::intra). Absent (older
  // files, one rank per node): such a message costs what one between nodes does.
  std::optional<HockneyFit> intra_pingpong;
  std::map<std::string, HockneyFit> algorithms;  // by algorithm name
  // By algorithm name, the regimes above its fit in `algorithms` (which then holds the eager
  // regime's: payloads below the first `from`); absent: one regime for every size.
  std::map<std::string, std::vector<RegimeFit>> regimes;
};

void write_parameters(const std::string& path, const Parameters& p);
// Throws ScenarioError "FILE:LINE:COLUMN: problem" for a file that is not a parameters file.
Parameters read_parameters(const std::string& path);

// The formula engine's configuration from calibrated parameters. Derived formulas take each
// algorithm's own (alpha, beta) and gamma(p); textbook formulas take the ping-pong's (alpha, beta)
// for every algorithm, as the traditional approach does (the seed's Section III), falling back to
// the algorithm's own fit when no ping-pong was measured. Receives are serial as the file says.
// Derived formulas also take each fit's uncertainty, for their prediction intervals; textbook
// formulas take none: their (alpha, beta) were not fitted to the algorithm's experiments, so the
// file holds no scatter of theirs to build an interval from.
// An algorithm without its costs is refused by the engine (FormulaConfig::fits_from, naming p.file).
FormulaConfig formula_config(const Parameters& p, FormulaConfig::Kind kind);

}  // namespace collsim
