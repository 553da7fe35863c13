// What a closed-form prediction of a collective is given, and gamma(p).
//
// A formula (a registry entry's, src/registry/<operation>.cpp) predicts the time of one call from the call (process
// count, bytes, knobs) and the costs: one Hockney (alpha, beta), gamma(p) for the non-blocking sends of one message to
// several ranks, and whether a rank takes incoming messages one at a time. Where the protocol switches (eager below a
// size, rendezvous from it on), the costs hold a regime per protocol and every message of a formula is priced in the
// regime of its own payload (a segmented algorithm's segment, not the call's total), rendezvous ones with their
// handshake (point_to_point.hpp, piecewise_transfer).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "algorithms/params.hpp"
#include "models/point_to_point.hpp"

namespace collsim::models {

// gamma(p) (Nuriyev and Lastovetsky): the time of a linear broadcast of one segment from a root
// to p-1 ranks with non-blocking sends, over the time to one rank; gamma(2) = 1. Kept as measured
// values for p = 2..N, extended past N along the line through the last two (the seed: gamma is
// near linear), or along a fitted line. With no values it is 1 for every p >= 2: sends to several ranks cost no more
// than one, which is the contention-free Hockney model.
class Gamma {
 public:
  // The experiment's time for p processes, p >= 2 (the un-normalised gamma(p)).
  using Experiment = std::function<double(int p)>;

  Gamma() = default;
  // values[i] is gamma(i + 2); values[0] is made exactly 1 by dividing all of them by it.
  explicit Gamma(std::vector<double> values);
  // The same, extended past the table by the fitted line intercept + slope*p (already normalised).
  Gamma(std::vector<double> values, double intercept, double slope);
  // The table of experiment(p) for p = 2..max_procs, measured when a formula first reads it (each
  // p once, shared by the copies): a formula reads a few p (a tree's degrees, P - 1), where the
  // whole table is P - 1 runs of up to P processes. Values equal those of the table measured whole.
  Gamma(int max_procs, Experiment experiment);

  double operator()(int p) const;  // p >= 1; gamma(1) = 0 (nothing to send)
  // The cost, in single transfers, of `k` non-blocking sends of one message posted together:
  // gamma(k + 1) / gamma(2); 0 for k = 0. Also read as: the k-th of them arrives after
  // sends(k) transfers (the derived formulas' reading, exact for the model engine's ports).
  double sends(int k) const { return (*this)(k + 1); }

 private:
  struct Measured;
  std::size_t size() const;           // the table's values, gamma(2) to gamma(size() + 1)
  double value(std::size_t i) const;  // gamma(i + 2), i < size()

  std::vector<double> values_;
  std::shared_ptr<Measured> measured_;  // instead of values_ when measured on demand
  bool fitted_tail_ = false;
  double intercept_ = 0, slope_ = 0;
};

struct FormulaCosts {
  // Messages below the first regime's size; every message when `regimes` is empty (one Hockney).
  Hockney hockney;
  Gamma gamma;
  // true: a rank receives one message at a time (one port, as the seed's gather models assume);
  // false: messages arriving together at one rank do not slow each other (contention-free).
  bool serial_receive = false;
  // Seconds per byte of a local reduction (the textbook formulas' gamma; not gamma(p) above):
  // ModelConfig::reduce_gamma. 0: reductions are free.
  double reduce_gamma = 0;
  // Regimes of larger messages (a rendezvous), ascending; empty: one regime, hockney's.
  std::vector<Regime> regimes{};
  // true: a message of the first regime (eager) is done at its sender once handed over, its
  // latency (hockney.alpha) still to run (ProtocolSwitch::eager_handover: tcp); the sender's next
  // sends, and the next arrivals at a receiver taking one message at a time, overlap that latency.
  // false: a send is done when its data has arrived (the model engine).
  bool eager_handover = false;
  // Ranks placed in blocks of this many per node whose sends to other nodes share the node's link
  // (the sim engine's hosts, calibrated with that many ranks per node): a segmented tree's pace is
  // then at least that of the node's sends to other nodes, counted over all its ranks. 1: every
  // rank has its own link, as every formula read it before.
  int node_ranks = 1;
  // true: the sends a rank posts together share its link and end together (the sim engine's
  // flows share bandwidth fairly), so each of k children holds a segment at c(k)*t; false: they
  // leave one after the other and the j-th child holds it at c(j)*t (the model engine's port).
  bool fair_sharing = false;
  // A message between two ranks of one node (node_ranks > 1, block placement), when measured: its
  // Hockney (the loopback or shared memory, not the node's link; the calibration's ping-pong
  // inside a node), handed over as `eager_handover` says for the first regime. Absent: it costs
  // what a message between nodes does.
  std::optional<Hockney> intra{};

  double transfer(double bytes) const {
    return regimes.empty() ? hockney.transfer(bytes) : piecewise_transfer(hockney, regimes, bytes);
  }
  // The time a message holds its sender (or a receiver taking one at a time) before the next can
  // go: its transfer, less its latency when that runs on after the hand-over (eager_handover).
  double occupancy(double bytes) const {
    return transfer(bytes) - (eager_handover && regime_of(bytes) == 0 ? hockney.alpha : 0);
  }
  // Between ranks `from` and `to`: whether they share a node (node_ranks > 1) and a message between
  // them is priced by `intra`.
  bool inside_node(int from, int to) const { return intra && node_ranks > 1 && from / node_ranks == to / node_ranks; }
  // A message inside a node (`intra`): its transfer, and the part of it that runs on after the
  // hand-over (its latency, for an eager one under eager_handover).
  double intra_transfer(double bytes) const { return intra->transfer(bytes); }
  double intra_overlapped(double bytes) const { return eager_handover && regime_of(bytes) == 0 ? intra->alpha : 0; }
  // The regime of a payload: 0 for hockney's, k for regimes[k - 1].
  std::size_t regime_of(double bytes) const;
  // The (alpha, beta) of regime k (0: hockney), to read or set.
  Hockney& regime_costs(std::size_t k) { return k == 0 ? hockney : regimes.at(k - 1).hockney; }
  const Hockney& regime_costs(std::size_t k) const { return k == 0 ? hockney : regimes.at(k - 1).hockney; }
};

// One call to predict: the same fields as the engines' RunSpec, plus the costs.
struct FormulaInput {
  int procs = 1;
  std::size_t bytes = 0;  // as the operation's descriptor means it: the message, a block, the vector
  AlgorithmParams params;
  FormulaCosts costs;

  double t(double message_bytes) const { return costs.transfer(message_bytes); }
  // What the latency of a message of this size adds beyond its occupancy (FormulaCosts): alpha
  // for an eager message handed over, else 0.
  double overlapped(double message_bytes) const {
    return costs.transfer(message_bytes) - costs.occupancy(message_bytes);
  }
};

// Predicted seconds for one call.
using Formula = double (*)(const FormulaInput&);

// Which regimes of in.costs the messages `formula` charges at `in` fall in: used[k] for regime k
// (0: hockney's). Read by pricing one regime's messages at a time (1 s each, 1 s per byte), every
// other cost 0 (messages inside a node too: FormulaCosts::intra), handshakes and reductions free: a
// regime is used when that gives a time > 0.
std::vector<bool> regimes_used(Formula formula, const FormulaInput& in);
// The highest regime `formula` uses at `in` (0 when it sends nothing).
std::size_t top_regime(Formula formula, const FormulaInput& in);

}  // namespace collsim::models
