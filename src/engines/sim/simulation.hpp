// The SimGrid side of the sim engine (internal): one SimGrid Engine, the platform's hosts in rank
// order, and the driver that runs measurements one after the other. It lives in the child process
// that sim_engine.cpp forks, and talks to the outside only through a Reporter.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engines/run.hpp"
#include "engines/sim/sim_engine.hpp"
#include "models/point_to_point.hpp"

namespace collsim::sim {

// Where a simulation sends what it finds.
class Reporter {
 public:
  virtual ~Reporter() = default;
  // `trace`: the run's events when its spec asked for a trace (RunSpec::trace, a pointer into
  // the parent process, is only a flag here), else empty.
  virtual void result(std::size_t index, const RunResult& result, std::span<const TraceEvent> trace) = 0;
  // A failure that ends the simulation (deadlock, misuse of the messaging layer). It may be
  // called from inside any actor or from SimGrid's deadlock hook, where nothing can be unwound
  // safely, so it must not return (the child process exits).
  [[noreturn]] virtual void fail(const std::string& message) = 0;
};

class Simulation {
 public:
  // Creates the SimGrid engine and loads the platform. Throws InputError for a bad platform file
  // or a bad SimGrid option. Only one per process, ever.
  explicit Simulation(const SimConfig& config);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  std::size_t host_count() const;
  // Ranks that fit on the hosts under the configured placement.
  std::size_t capacity() const;
  // The platform as a two-level Hockney model (sim_engine.hpp, platform_hockney).
  models::TwoLevelHockney hockney() const;
  // Runs the specs in order; throws InputError before simulating anything if a spec does not fit
  // the platform.
  void run(std::span<const RunSpec> specs, Reporter& reporter);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "grisou-2" < "grisou-10": digit runs compare as numbers.
bool natural_less(std::string_view a, std::string_view b);

// Bytes per second from a SimGrid-style bandwidth ("6GBps", "10Gbps", "1.5e9", "800MiBps");
// negative when the text is not one.
double parse_bandwidth(std::string_view text);

// "ranks 1-3, 5" style list of ranks (sorted).
std::string rank_list(const std::vector<int>& ranks);

}  // namespace collsim::sim
