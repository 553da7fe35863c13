#include "engines/sim/simulation.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <optional>
#include <unordered_map>
#include <utility>

#include <xbt/log.h>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include "algorithms/rank_data.hpp"
#include "engines/sim/node_model.hpp"
#include "engines/sim/route.hpp"
#include "engines/sim/sim_comm.hpp"
#include "engines/sim/sim_trace.hpp"
#include "support/sanitizers.hpp"
#include "support/units.hpp"

// SimGrid prints its own deadlock banner from this category before calling our deadlock hook;
// our report says more, so the category is silenced (see silence_deadlock_banner).
XBT_LOG_EXTERNAL_CATEGORY(ker_engine);

namespace collsim::sim {

namespace s4u = simgrid::s4u;

namespace {

// Actor contexts. Raw contexts are SimGrid's fastest. AddressSanitizer cannot follow raw
// context switches (SimGrid from Debian is not built to tell it), so sanitized builds use one
// thread per actor, with the threads' default stacks.
std::vector<std::string> context_options() {
  return {kAddressSanitizer ? "--cfg=contexts/factory:thread" : "--cfg=contexts/factory:raw"};
}

// Stack of every actor (ranks and helpers), unless the platform's <config>
// or sim.cfg sets contexts/stack-size. The algorithms' coroutine frames live on the heap and
// Task<> runs awaited sub-tasks inline (a loop over segments does not deepen the stack), so a
// stack holds only the actor's entry, the engine's call chain and SimGrid's under the current
// wait. Measured in a release build (x86-64, AVX-512): every sim test passes with 6 KiB stacks
// and guard pages, and fails with 5 KiB; the deepest use, about 5.7 KiB, is the first call
// through a not yet bound PLT entry (glibc's lazy binding saves the whole AVX-512 register state
// on the stack), steady waits use about 3 KiB. 16 KiB leaves a margin of 2.7; unoptimised builds
// have larger frames and keep SimGrid's earlier setting here, 64 KiB. The depth does not grow
// with the number of ranks, so the guarded small runs of the tests vouch for the unguarded large
// ones. The stack size is what a rank costs: SimGrid allocates an unguarded stack zero-filled
// (calloc), so each is resident in full (2^18 ranks at 64 KiB: 16 GiB).
constexpr int kStackKiB =
#if defined(__OPTIMIZE__)
    16;
#else
    64;
#endif

// Guard pages (unless the platform or sim.cfg sets contexts/guard-size): one page below each
// stack makes an overflow fail loudly (SimGrid reports an access violation and names
// contexts/stack-size) instead of overwriting memory. A guarded stack costs the process two
// memory maps, and the kernel refuses maps beyond vm.max_map_count (65530 by default: about
// 32k actors), so the pages are kept only when the run's actors fit, estimated generously; above
// that they are dropped. SimGrid reads the setting when it creates and when it destroys a stack,
// so it is chosen once, before the first actor.
std::size_t max_map_count() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  std::size_t n = 0;
  return in >> n ? n : 65530;
}

std::size_t maps_in_use() {
  std::ifstream in("/proc/self/maps");
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

void silence_deadlock_banner() {
  if (XBT_LOG_ISENABLED(ker_engine, xbt_log_priority_critical))  // initialises the category
    xbt_log_threshold_set(&_XBT_LOGV(ker_engine), xbt_log_priority_infinite);
}

// SimGrid's exception text up to its first line: some go on with long lists (every option,
// every host).
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// What SimGrid says of a platform it could not read, for what check_platform_file cannot see:
// "Parse error at FILE:LINE: what" becomes "FILE:LINE:COLUMN: what" without the state of
// SimGrid's parser ("Invalid XML (XML input line N, state S): ").
std::string platform_problem(const std::string& file, const std::string& text) {
  std::string what = first_line(text);
  const std::string prefix = "Parse error at " + file + ":";
  if (what.rfind(prefix, 0) != 0) return file + ": " + what;
  std::string rest = what.substr(prefix.size());
  const auto colon = rest.find(": ");
  if (colon == std::string::npos || colon == 0 || colon > 9 ||
      !std::all_of(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(colon),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return file + ": " + rest;
  const long line = std::stol(rest.substr(0, colon));
  rest = rest.substr(colon + 2);
  if (rest.rfind("Invalid XML (", 0) == 0) {
    const auto state = rest.find("): ");
    if (state != std::string::npos) rest = rest.substr(state + 3);
  }
  return place_of_line(file, line) + ": " + rest;
}

// The cluster as rank placement sees it: the host count, and the first host's sockets (its
// collsim/sockets property; 0 when absent) and cores (generated platforms and grisou.xml give
// every node the same).
models::NodeShape node_shape(const std::vector<s4u::Host*>& hosts) {
  models::NodeShape shape;
  shape.nodes = static_cast<int>(hosts.size());
  shape.cores = hosts.front()->get_core_count();
  const sim::NodeShapeFacts facts = node_facts(*hosts.front());
  shape.sockets = facts.sockets;
  shape.core_group = facts.core_group;
  shape.numa_domains = facts.numa_domains;
  return shape;
}

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t i0 = i, j0 = j;
      while (i0 < a.size() && a[i0] == '0') ++i0;
      while (j0 < b.size() && b[j0] == '0') ++j0;
      std::size_t i1 = i0, j1 = j0;
      while (i1 < a.size() && digit(a[i1])) ++i1;
      while (j1 < b.size() && digit(b[j1])) ++j1;
      if (i1 - i0 != j1 - j0) return i1 - i0 < j1 - j0;
      const int c = a.substr(i0, i1 - i0).compare(b.substr(j0, j1 - j0));
      if (c != 0) return c < 0;
      i = i1;
      j = j1;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  if ((a.size() - i) != (b.size() - j)) return a.size() - i < b.size() - j;
  return a < b;  // only leading zeros differ
}

double parse_bandwidth(std::string_view text) { return parse_rate(text).value_or(-1); }

std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  std::size_t runs = 0;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t k = i;
    while (k + 1 < ranks.size() && ranks[k + 1] == ranks[k] + 1) ++k;
    if (++runs > 10) return s + ", ... (" + std::to_string(ranks.size()) + " ranks)";
    if (!s.empty()) s += ", ";
    s += std::to_string(ranks[i]);
    if (k > i) s += (k == i + 1 ? ", " : "-") + std::to_string(ranks[k]);
    i = k + 1;
  }
  return s;
}

void Attempt::write(unsigned char flags, std::string_view first, std::string_view second) {
  // Truncated to fit: names or messages of kilobytes are not worth more.
  const std::size_t a = std::min(first.size(), kBytes / 2 - 2), b = std::min(second.size(), kBytes / 2 - 2);
  shared_[0] = static_cast<char>(flags);
  // An empty view may have no data at all, which memcpy may not be given even for 0 bytes.
  if (a > 0) std::memcpy(shared_ + 1, first.data(), a);
  shared_[1 + a] = '\0';
  if (b > 0) std::memcpy(shared_ + 2 + a, second.data(), b);
  shared_[2 + a + b] = '\0';
}

void Attempt::end() { std::memset(shared_, 0, 3); }

Attempt::Error Attempt::error(const char* shared, const std::string& platform_file) {
  Error e;
  e.flags = static_cast<unsigned char>(shared[0]);
  const std::string first(shared + 1, ::strnlen(shared + 1, kBytes / 2));
  const char* rest = shared + 2 + first.size();
  const std::string second(rest, ::strnlen(rest, kBytes / 2));
  e.message = !(e.flags & route)
                  ? first
                  : place_of_host(platform_file, first) + ": no route from host " + first + " to host " + second;
  return e;
}

struct Simulation::Impl {
  SimConfig config;
  Attempt* attempt = nullptr;
  s4u::Engine* engine = nullptr;                       // deliberately never deleted: the process exits after the run
  std::vector<s4u::Host*> hosts;                       // natural order of names: node i of the placement
  models::Placement placement;                         // config.map_by resolved against the hosts
  std::vector<double> memcpy_rate;                     // per host, bytes/s, 0 = free
  std::vector<double> copy_overhead;                   // per host, s per copy besides its bytes
  std::vector<double> shared_cache;                    // per host, bytes of its copies' cache; 0: none
  std::vector<double> uncached_rate;                   // per host, bytes/s of a copy of lines not in it
  std::vector<models::RegistrationCost> registration;  // per host
  std::unique_ptr<NodeModel> nodes;                    // the inside of the nodes in use, under shm
  Protocols protocols;
  Mailboxes mailboxes;
  Measurement* current = nullptr;
  std::uint64_t generation = 0;
  Reporter* reporter = nullptr;
  bool choose_guard = false;  // contexts/guard-size is ours to set

  sim::Route checked_route(s4u::Host* from, s4u::Host* to) const;
  void check_routes(int procs) const;
  void measure(std::size_t index, const RunSpec& spec);
  void rank_main(Measurement& m, int rank, std::vector<double>& finish, std::vector<double>& osu,
                 std::vector<std::string>& errors);
  std::string deadlock_message() const;
};

Simulation::Simulation(const SimConfig& config, const CheckedPlatform& platform, Attempt& attempt)
    : impl_(std::make_unique<Impl>()) {
  impl_->config = config;
  impl_->attempt = &attempt;
  // SimGrid keeps pointers into argv for the process's lifetime.
  static std::vector<std::string> args;
  args = {"collsim-sim", "--log=root.thresh:warning"};
  for (auto& o : context_options()) args.push_back(o);
  // Debugging aid: SimGrid log settings, e.g. COLLSIM_SIM_LOG="ker_network.thres:debug".
  if (const char* log = std::getenv("COLLSIM_SIM_LOG")) args.push_back(std::string("--log=") + log);
  static std::vector<char*> argv;
  argv.clear();
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  try {
    impl_->engine = new s4u::Engine(&argc, argv.data());
  } catch (const std::exception& e) {
    // SimGrid appends the list of every known key: keep the first line.
    throw InputError("bad SimGrid option: " + first_line(e.what()));
  }
  if (argc > 1) throw InputError(std::string("SimGrid did not understand option '") + argv[1] + "'");
  // The user's options one by one, before the platform is loaded (SimGrid reads the network model
  // then), so that an error names the option it is about. Some values (a model's name) are
  // checked by SimGrid's aborting, hence the attempt.
  for (const auto& c : config.cfg) {
    const std::string what = "bad SimGrid option '" + c + "'";
    const auto attempting = attempt.begin(what, Attempt::simgrid_words);
    try {
      s4u::Engine::set_config(c);
    } catch (const std::exception& e) {
      throw InputError(what + ": " + first_line(e.what()));
    }
  }
  // The platform's <config> options, set here before SimGrid reads the file so that a bad one is
  // reported at its place. SimGrid then finds them set and leaves them, as it leaves those of
  // sim.cfg set above: those take precedence.
  for (const PlatformOption& o : platform.options) {
    bool unset = false;
    try {
      unset = simgrid::config::is_default(o.key.c_str());
    } catch (const std::exception&) {
      throw PlatformError(o.place + ": <config> option '" + o.key + "' is not a SimGrid option");
    }
    if (!unset) continue;
    const std::string what = o.place + ": <config> option " + o.key + " '" + o.value + "'";
    const auto attempting = attempt.begin(what, Attempt::simgrid_words | Attempt::platform);
    try {
      s4u::Engine::set_config(o.key + ":" + o.value);
    } catch (const std::exception& e) {
      throw PlatformError(what + ": " + first_line(e.what()));
    }
  }
  silence_deadlock_banner();

  const std::string& file = config.platform_file;
  try {
    impl_->engine->load_platform(file);
    // Routes are looked up before the simulation starts (hockney, check_routes), and Dijkstra
    // zones build their graph when sealed.
    impl_->engine->seal_platform();
  } catch (const std::exception& e) {
    throw PlatformError(platform_problem(file, e.what()));
  }
  // After the platform, whose <config> may set them too (it does not override sim.cfg).
  if (!kAddressSanitizer) {
    if (simgrid::config::is_default("contexts/stack-size")) s4u::Engine::set_config("contexts/stack-size", kStackKiB);
    impl_->choose_guard = simgrid::config::is_default("contexts/guard-size");
  }
  impl_->hosts = impl_->engine->get_all_hosts();
  if (impl_->hosts.empty()) throw PlatformError(file + ": the platform has no hosts");
  std::sort(impl_->hosts.begin(), impl_->hosts.end(),
            [](const s4u::Host* a, const s4u::Host* b) { return natural_less(a->get_name(), b->get_name()); });

  std::string error;
  const auto placement = models::place(config.map_by, node_shape(impl_->hosts), error);
  if (!placement) throw InputError(file + ": " + error);
  impl_->placement = *placement;

  // The copy rate is a host property: SimGrid 3.32 gives a <prop> inside a <cluster> to every
  // host of the cluster, and a <host> may carry its own. (Zone properties are not consulted:
  // NetZone::get_property crashes on zones without properties in 3.32.) check_platform_file saw
  // that each is a bandwidth.
  for (s4u::Host* h : impl_->hosts) {
    const char* v = h->get_property("memcpy_bw");
    impl_->memcpy_rate.push_back(v ? parse_bandwidth(v) : 0);
    const char* c0 = h->get_property("collsim/copy_overhead");
    impl_->copy_overhead.push_back(c0 ? parse_seconds(c0).value_or(0) : 0);
    // The node's cache (copy_cache.hpp) needs both its size and the rate of what it misses.
    const char* cache = h->get_property("collsim/shared_cache");
    const char* uncached = h->get_property("collsim/uncached_copy_bandwidth");
    const double cache_bytes = cache ? static_cast<double>(parse_bytes(cache).value_or(0)) : 0;
    const double uncached_rate = uncached ? parse_bandwidth(uncached) : 0;
    if ((cache_bytes > 0) != (uncached_rate > 0))
      throw PlatformError(place_of_host(file, h->get_name()) + ": host " + h->get_name() + " states " +
                          (cache_bytes > 0 ? "collsim/shared_cache without collsim/uncached_copy_bandwidth"
                                           : "collsim/uncached_copy_bandwidth without collsim/shared_cache") +
                          ": the node's cache needs both");
    impl_->shared_cache.push_back(cache_bytes);
    impl_->uncached_rate.push_back(uncached_rate);
    impl_->registration.push_back(sim::host_registration(*h));
  }

  // Protocol settings are host properties (a <prop> in a <cluster> reaches all its hosts); the
  // hosts that set one must agree on it.
  const auto property = [&](const std::string& name) -> std::string {
    std::string value;
    const s4u::Host* first = nullptr;
    for (const s4u::Host* h : impl_->hosts) {
      const char* v = h->get_property(name);
      if (!v) continue;
      if (!first) {
        first = h;
        value = v;
      } else if (value != v) {
        throw PlatformError(place_of_host(file, h->get_name()) + ": hosts " + first->get_name() + " and " +
                            h->get_name() + " disagree on " + name + " ('" + value + "' and '" + v + "')");
      }
    }
    return value;
  };
  try {
    impl_->protocols = resolve_protocols(config.protocol, config.protocol_options, config.eager_limit, property);
  } catch (const InputError& e) {
    const std::string what = e.what(), prefix = "platform property ";
    if (what.rfind(prefix, 0) != 0) throw;
    const std::string name = what.substr(prefix.size(), what.find(": ") - prefix.size());
    throw PlatformError(place_of_property(file, name) + ": " + what);
  }
}

Simulation::~Simulation() = default;

std::size_t Simulation::host_count() const { return impl_->hosts.size(); }

std::size_t Simulation::capacity() const {
  return static_cast<std::size_t>(impl_->placement.capacity(node_shape(impl_->hosts)));
}

models::TwoLevelHockney Simulation::hockney() const {
  const auto route = [this](s4u::Host* from, s4u::Host* to) { return impl_->checked_route(from, to); };
  const auto& hosts = impl_->hosts;
  models::TwoLevelHockney h;
  // An empty message's software costs (its profile's send and receive overheads) are part of the
  // latency a ping-pong on the platform shows, so they are part of the model's alpha.
  const auto fixed = [](const ProtocolProfile& p) { return p.send_overhead.at(0) + p.recv_overhead.at(0); };
  const double intra_fixed = fixed(impl_->protocols.intra);
  const Route intra = route(hosts.front(), hosts.front());
  h.intra = {intra.latency + intra_fixed, 1 / intra.bandwidth};
  // A host that states an inter-socket link (node_model.hpp) gives the model its socket level: a
  // transfer between sockets pays the link's latency on top and runs at the narrower of the two.
  const sim::NodeShapeFacts node = sim::node_facts(*hosts.front());
  if (node.sockets > 1 && (node.inter_socket_bandwidth > 0 || node.inter_socket_latency > 0))
    h.cross_socket =
        models::Hockney{intra.latency + intra_fixed + node.inter_socket_latency,
                        1 / (node.inter_socket_bandwidth > 0 ? std::min(intra.bandwidth, node.inter_socket_bandwidth)
                                                             : intra.bandwidth)};
  // The levels inside a socket (node_model.hpp): the latency of the level two ranks share on
  // top, at the narrower of the loopback and the link between core groups.
  const double group_bw = node.core_group > 0 && node.core_group_rate > 0
                              ? std::min(intra.bandwidth, node.core_group_rate)
                              : intra.bandwidth;
  if (node.core_group > 0 && (node.core_group_latency > 0 || node.core_group_rate > 0))
    h.cross_group = models::Hockney{intra.latency + intra_fixed + node.core_group_latency, 1 / group_bw};
  if (node.numa_domains > 1 && (node.numa_latency > 0 || node.core_group_rate > 0))
    h.cross_numa = models::Hockney{intra.latency + intra_fixed + node.numa_latency, 1 / group_bw};
  if (hosts.size() > 1) {
    const Route mean = mean_route(hosts, route);
    h.inter = {mean.latency + fixed(impl_->protocols.inter), 1 / mean.bandwidth};
  } else {
    h.inter = h.intra;
  }
  h.placement = impl_->placement;
  return h;
}

// SimGrid has no route between two hosts when a hand-written zone gives none: it returns one
// without links (Full), throws (Floyd) or crashes (Dijkstra), and a message sent over it aborts
// the simulation. Each lookup is an attempt, so that a crash is reported too.
Route Simulation::Impl::checked_route(s4u::Host* from, s4u::Host* to) const {
  const auto attempting = attempt->begin_route(from->get_name(), to->get_name());
  Route r;
  try {
    r = route_between(from, to);
  } catch (const std::exception&) {
    r = {};
  }
  if (!(r.bandwidth > 0) || std::isinf(r.bandwidth)) throw PlatformError(attempt->error(config.platform_file).message);
  return r;
}

// The routes that the ranks of a run of `procs` processes may take, looked up before anything
// is simulated (a smaller run's ranks are on some of the same hosts): every ordered pair of the
// hosts in use when there are at most kAllPairs of them, else the routes to and from the first
// one (large platforms are clusters, whose routes SimGrid makes all), and a host's route to
// itself when it holds two ranks or more.
void Simulation::Impl::check_routes(int procs) const {
  constexpr std::size_t kAllPairs = 128;
  std::vector<int> ranks(hosts.size(), 0);
  for (int r = 0; r < procs; ++r) ++ranks[static_cast<std::size_t>(placement.node_of(r))];
  std::vector<s4u::Host*> used;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (ranks[i] == 0) continue;
    used.push_back(hosts[i]);
    if (ranks[i] > 1) checked_route(hosts[i], hosts[i]);
  }
  if (used.size() <= kAllPairs) {
    for (s4u::Host* from : used)
      for (s4u::Host* to : used)
        if (from != to) checked_route(from, to);
    return;
  }
  for (std::size_t i = 1; i < used.size(); ++i) {
    checked_route(used.front(), used[i]);
    checked_route(used[i], used.front());
  }
}

void Simulation::run(std::span<const RunSpec> specs, Reporter& reporter) {
  Impl* impl = impl_.get();
  const SimConfig& config = impl->config;
  const models::NodeShape shape = node_shape(impl->hosts);
  const auto slots = static_cast<std::size_t>(impl->placement.capacity(shape));
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const RunSpec& s = specs[i];
    if (!s.algorithm && !s.program) throw InputError("run " + std::to_string(i) + " names no algorithm");
    if (s.procs < 1) throw InputError(describe(s) + ": needs at least 1 process");
    if (static_cast<std::size_t>(s.procs) > slots)
      throw InputError("platform " + config.platform_file + " has " + std::to_string(impl->hosts.size()) +
                       " hosts, room for " + std::to_string(slots) + " ranks placed --map-by " +
                       models::to_string(config.map_by) + ", but " + std::to_string(s.procs) +
                       " processes were asked for");
    if (s.params.root < 0 || s.params.root >= s.procs)
      throw InputError(describe(s) + ": root " + std::to_string(s.params.root) + " is not a rank");
  }
  int procs = 0;
  for (const RunSpec& s : specs) procs = std::max(procs, s.procs);
  impl->check_routes(procs);
  if (impl->protocols.intra.kind == ProtocolKind::shm) {
    std::vector<NodeModel::Placed> placed;
    for (int r = 0; r < procs; ++r)
      placed.push_back({impl->hosts[static_cast<std::size_t>(impl->placement.node_of(r))], impl->placement.socket_of(r),
                        impl->placement.numa_of(r), impl->placement.group_of(r)});
    impl->nodes = std::make_unique<NodeModel>(placed);
  }

  if (impl->choose_guard) {
    // One actor per rank (the tcp and shm transport has none: transport.hpp).
    const auto actors = static_cast<std::size_t>(procs);
    constexpr std::size_t kSpareMaps = 4096;  // helper actors, SimGrid's and malloc's own maps
    const bool guard = 2 * actors + maps_in_use() + kSpareMaps <= max_map_count();
    s4u::Engine::set_config("contexts/guard-size", guard ? 1 : 0);
    impl->choose_guard = false;  // never again: SimGrid frees stacks by the setting in force
  }
  impl->reporter = &reporter;
  s4u::Engine::on_deadlock_cb([impl] { impl->reporter->fail(impl->deadlock_message()); });
  s4u::Actor::create("driver", impl->hosts.front(), [impl, specs] {
    for (std::size_t i = 0; i < specs.size(); ++i) impl->measure(i, specs[i]);
  });
  impl->engine->run();
}

void Simulation::Impl::measure(std::size_t index, const RunSpec& spec) {
  const auto P = static_cast<std::size_t>(spec.procs);
  const auto node = [this](std::size_t r) { return static_cast<std::size_t>(placement.node_of(static_cast<int>(r))); };
  Measurement m;
  m.spec = &spec;
  m.procs = spec.procs;
  // Creating actors takes no simulated time, so every rank starts at this date; ranks still
  // sleep until it, which keeps the protocol explicit if setup ever costs time.
  m.start = s4u::Engine::get_clock();
  m.generation = ++generation;
  m.barrier = s4u::Barrier::create(static_cast<unsigned>(P));
  // spec.trace points into the parent process: here it only asks for the events, which go back
  // with the result.
  TraceBuffer events(spec.trace ? spec.trace->max_events() : SIZE_MAX);
  std::optional<SimTrace> trace;
  if (spec.trace) m.trace = &trace.emplace(events, m.start);
  m.ranks.reserve(P);
  for (std::size_t r = 0; r < P; ++r) {
    m.ranks.push_back(
        std::make_unique<SimComm>(m, mailboxes, static_cast<int>(r), protocols.inter, memcpy_rate[node(r)]));
    m.ranks.back()->set_registration(registration[node(r)]);
    m.ranks.back()->set_copy_overhead(copy_overhead[node(r)]);
    if (spec.trace) m.ranks.back()->set_trace(&events);
  }
  // A node holding more ranks than it has cores is oversubscribed (protocol.hpp, yield_overhead).
  std::vector<int> ranks_on(hosts.size(), 0);
  for (std::size_t r = 0; r < P; ++r) ++ranks_on[node(r)];
  for (std::size_t r = 0; r < P; ++r)
    m.ranks[r]->set_oversubscribed(ranks_on[node(r)] > hosts[node(r)]->get_core_count());
  // Each node's cache, cold at every measurement (a program warms it: Comm::warms_up).
  std::vector<std::unique_ptr<CopyCache>> caches(hosts.size());
  for (std::size_t r = 0; r < P; ++r) {
    const std::size_t n = node(r);
    if (shared_cache[n] <= 0) continue;
    if (!caches[n]) caches[n] = std::make_unique<CopyCache>(shared_cache[n]);
    m.ranks[r]->set_cache(caches[n].get(), uncached_rate[n]);
  }
  std::vector<double> finish(P, 0.0), osu(P, 0.0);
  std::vector<std::string> errors(P);
  m.hosts.resize(P);
  for (std::size_t r = 0; r < P; ++r) m.hosts[r] = hosts[node(r)];
  std::unique_ptr<Transport> transport;
  if (protocols.inter.kind != ProtocolKind::ideal || protocols.intra.kind != ProtocolKind::ideal) {
    transport = std::make_unique<Transport>(m, protocols, m.hosts, nodes.get());
    m.transport = transport.get();
  }
  current = &m;
  // Every actor exists before any runs: a rank's first eager send names its destination's
  // actor as the mailbox's receiver, and creating actors yields to those already started.
  m.actors.reserve(P);
  for (std::size_t r = 0; r < P; ++r) m.actors.push_back(s4u::Actor::init("rank-" + std::to_string(r), hosts[node(r)]));
  for (std::size_t r = 0; r < P; ++r)
    m.actors[r]->start(
        [this, &m, &finish, &osu, &errors, r] { rank_main(m, static_cast<int>(r), finish, osu, errors); });
  for (auto& a : m.actors) a->join();
  if (transport) transport->shutdown();

  // A message nobody received would stay in its mailbox and be taken by the next measurement.
  for (const auto& [key, ch] : m.channels)
    if (!ch.unmatched_sends.empty())
      reporter->fail(describe(spec) + ": rank " + std::to_string(key.src) + " sent " +
                     std::to_string(ch.unmatched_sends.front()) + " bytes to rank " + std::to_string(key.dst) +
                     " (tag " + std::to_string(key.tag) + ") that no receive matched");
  mailboxes.release_receivers();
  current = nullptr;
  m.actors.clear();

  RunResult result;
  result.protocol = protocols.name;
  result.finish_s = std::move(finish);
  result.time_s = call_time(spec, result.finish_s);
  if (spec.timing.kind == Timing::Kind::osu) result.osu_s = std::move(osu);
  for (auto& e : errors)
    if (!e.empty()) {
      result.data_error = std::move(e);
      break;
    }
  // In time order, for the readers of traces; stable, so a rank's events at one date keep theirs.
  std::vector<TraceEvent> recorded = events.take();
  std::stable_sort(recorded.begin(), recorded.end(),
                   [](const TraceEvent& a, const TraceEvent& b) { return a.time < b.time; });
  reporter->result(index, result, recorded, events.overflowed());
}

void Simulation::Impl::rank_main(Measurement& m, int rank, std::vector<double>& finish, std::vector<double>& osu,
                                 std::vector<std::string>& errors) {
  const RunSpec& spec = *m.spec;
  SimComm& comm = *m.ranks[static_cast<std::size_t>(rank)];
  RankWork work(spec, rank);
  s4u::this_actor::sleep_until(m.start);
  {
    Task<> task = work.run(comm);
    collsim::start(task);
    if (!task.done())
      reporter->fail(describe(spec) + ": rank " + std::to_string(rank) +
                     " suspended outside of the messaging layer (the sim engine never suspends)");
    try {
      rethrow_if_failed(task);
    } catch (const std::exception& e) {
      reporter->fail(describe(spec) + ": " + e.what());
    } catch (...) {
      reporter->fail(describe(spec) + ": rank " + std::to_string(rank) + " threw an unknown exception");
    }
  }
  comm.finished = true;
  finish[static_cast<std::size_t>(rank)] = work.timed_s().value_or(s4u::Engine::get_clock() - m.start);
  osu[static_cast<std::size_t>(rank)] = work.osu_s().value_or(0);
  try {
    comm.check_returned();
  } catch (const CommError& e) {
    reporter->fail(describe(spec) + ": " + e.what());
  }
  errors[static_cast<std::size_t>(rank)] = work.check();
}

std::string Simulation::Impl::deadlock_message() const {
  if (!current) return "deadlock in the sim engine outside of any measurement";
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  std::unordered_map<std::string, std::size_t> group_of;
  for (int r = 0; r < current->procs; ++r) {
    const SimComm& c = *current->ranks[static_cast<std::size_t>(r)];
    if (c.finished) continue;
    std::string what = c.waiting_on();
    auto [it, fresh] = group_of.try_emplace(what, groups.size());
    if (fresh) groups.emplace_back(std::move(what), std::vector<int>{});
    groups[it->second].second.push_back(r);
  }
  std::string msg = "deadlock in " + describe(*current->spec) + ": ";
  constexpr std::size_t kShown = 8;
  for (std::size_t g = 0; g < groups.size() && g < kShown; ++g) {
    const auto& [what, ranks] = groups[g];
    msg += (g ? "; " : "") + std::string(ranks.size() == 1 ? "rank " : "ranks ") + rank_list(ranks) + " waiting in " +
           what;
  }
  if (groups.size() > kShown) msg += "; and " + std::to_string(groups.size() - kShown) + " more groups";
  return msg;
}

}  // namespace collsim::sim
