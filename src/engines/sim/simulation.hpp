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
#include "engines/sim/platform_file.hpp"
#include "engines/sim/sim_engine.hpp"
#include "models/point_to_point.hpp"

namespace collsim::sim {

// Where a simulation sends what it finds.
class Reporter {
 public:
  virtual ~Reporter() = default;
  // `trace`: the run's events when its spec asked for a trace (RunSpec::trace, a pointer into
  // the parent process, is only a flag here), else empty.
  // `trace_lost`: the run recorded more events than its sink keeps (TraceSink::max_events), and
  // `trace` holds none.
  virtual void result(std::size_t index, const RunResult& result, std::span<const TraceEvent> trace,
                      bool trace_lost) = 0;
  // A failure that ends the simulation (deadlock, misuse of the messaging layer). It may be
  // called from inside any actor or from SimGrid's deadlock hook, where nothing can be unwound
  // safely, so it must not return (the child process exits).
  [[noreturn]] virtual void fail(const std::string& message) = 0;
};

// What the simulation process is doing while SimGrid may end it by an abort or a crash rather
// than an exception (setting a SimGrid option, looking a route up), as the error to report if it
// dies: kept in memory shared with the parent process, which reads it then (sim_engine.cpp).
// Layout: a flags byte, then two NUL-terminated texts (a message and nothing, or for a route
// lookup the names of its two hosts, so that a lookup costs two copies of names).
class Attempt {
 public:
  static constexpr std::size_t kBytes = 4096;
  enum Flags : unsigned char {
    simgrid_words = 1,  // SimGrid's own last words say what was wrong: append them
    platform = 2,       // a PlatformError (else an InputError)
    route = 4,          // the texts are the hosts of a route lookup
  };
  explicit Attempt(char* shared) : shared_(shared) {}
  // What is under way until the Scope that begin() returns is destroyed.
  class [[nodiscard]] Scope {
   public:
    explicit Scope(Attempt& a) : a_(a) {}
    ~Scope() { a_.end(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Attempt& a_;
  };
  Scope begin(std::string_view message, unsigned char flags) {
    write(flags, message, {});
    return Scope(*this);
  }
  Scope begin_route(std::string_view from, std::string_view to) {
    write(platform | route, from, to);
    return Scope(*this);
  }
  // The error of what is under way (message "" if nothing), a route's being "FILE:LINE:COLUMN:
  // no route from host A to host B" at A's element of `platform_file` (place_of_host). The
  // parent reads it from the shared memory after the process has ended.
  struct Error {
    std::string message;
    unsigned char flags = 0;
  };
  Error error(const std::string& platform_file) const { return error(shared_, platform_file); }
  static Error error(const char* shared, const std::string& platform_file);

 private:
  void write(unsigned char flags, std::string_view first, std::string_view second);
  void end();
  char* shared_;
};

class Simulation {
 public:
  // Creates the SimGrid engine and loads the platform, checked before by check_platform_file
  // into `platform` (whose <config> options are applied here, each under `attempt`). Throws
  // PlatformError for a bad platform file, InputError for a bad SimGrid option. Only one per
  // process, ever.
  Simulation(const SimConfig& config, const CheckedPlatform& platform, Attempt& attempt);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  std::size_t host_count() const;
  // Ranks that fit on the hosts under the configured placement.
  std::size_t capacity() const;
  // The platform as a two-level Hockney model (sim_engine.hpp, platform_hockney).
  models::TwoLevelHockney hockney() const;
  // Runs the specs in order; throws InputError before simulating anything if a spec does not fit
  // the platform, PlatformError if two hosts that ranks are placed on have no route.
  void run(std::span<const RunSpec> specs, Reporter& reporter);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "grisou-2" < "grisou-10": digit runs compare as numbers.
bool natural_less(std::string_view a, std::string_view b);

// Bytes per second from a bandwidth ("6GBps", "10Gbps", "25GbE", "1.5e9"), as parse_rate reads it
// (support/units.hpp); negative when the text is not a positive finite rate.
double parse_bandwidth(std::string_view text);

// "ranks 1-3, 5" style list of ranks (sorted).
std::string rank_list(const std::vector<int>& ranks);

}  // namespace collsim::sim
