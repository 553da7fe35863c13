// The SimGrid engine: runs collective algorithms on a simulated cluster (SimGrid S4U, flow-level
// network with contention and topology) described by a platform XML file.
//
// SimGrid allows one Engine per process and cannot restart it, so every call here forks a child
// process that hosts one whole simulation; results come back through a pipe as each measurement
// ends, so a run that is interrupted or fails part way keeps what finished. Many measurements run
// one after the other inside that one simulation (each starts when the previous one is over).
// A sweep of many small points calls run_sim_reusing_platform instead, which forks each
// simulation from a process that has loaded the platform once (the same results, without loading
// it again per call).
//
// Model of a rank and of MPI's point-to-point protocols (what the simulated times mean):
//  - One SimGrid actor per rank. Rank r runs on the host of its node under SimConfig::map_by
//    (models/placement.hpp: ppr:N:node, ppr:N:socket, node, socket, as `mpirun --map-by`), hosts
//    taken in natural order of their names (grisou-2 before grisou-10) as the nodes. Ranks on
//    one host share its network link and talk to each other over the host's loopback (a
//    <cluster> with loopback_bw/loopback_lat; without one, through the host's own link).
//  - Matching is MPI's: a receive names its source and tag; messages of one (source, destination,
//    tag) are received in the order sent; the receive size must equal the message size, else the
//    run fails with EngineError naming both ranks and both sizes.
//  - Point-to-point protocols: SimConfig::protocol selects Open MPI's tcp and shm protocols
//    (fragments with headers on one in-order connection per pair, eager sends complete once
//    handed over, rendezvous handshakes; transport.hpp) or the textbook `ideal` one, kept for
//    comparison with closed forms: eager (size < eager_limit) starts when the send is posted and
//    the send completes when the transfer ends; rendezvous starts when both sides have posted,
//    and both complete when it ends (an empty eager message travels as one byte: SimGrid 3.32
//    would deliver a zero-size one without its latency when the receive is posted while it is in
//    flight). protocol.hpp has the rules of each profile and where their parameters come from.
//  - A transfer's duration is whatever SimGrid's network model says for the route (latency,
//    bandwidth, sharing with the other transfers in flight); choose the model with `cfg`. The
//    default is SimGrid's (LV08: latency x 13.01, bandwidth x 0.97, TCP-like sharing);
//    "network/model:CM02", "network/crosstraffic:0" and a large "network/TCP-gamma" give
//    exactly latency + size / bandwidth on an idle route.
//  - comm.copy of n bytes takes c0 + n / memcpy rate of the rank's host (models::copy_time), read
//    from the host properties `memcpy_bw` (bytes/s, SimGrid bandwidth units accepted: "6GBps")
//    and `collsim/copy_overhead` (c0, a time; 0 when absent). A `<prop>` inside a
//    `<cluster>` applies to every host of the cluster in SimGrid 3.32; a host without the property
//    copies for free. Concurrent copies by ranks of one host do not slow each other down. A host
//    that states `collsim/shared_cache` (a size) and `collsim/uncached_copy_bandwidth` has its
//    copies, and the puts and gets between its ranks, go through its cache (copy_cache.hpp): the
//    bytes of lines it misses cost memcpy rate / uncached rate times more, and a program's timed
//    run follows an untimed one (Comm::warms_up).
//  - comm.reduce_local of n elements executes n flops on a core of the rank's host (the host's
//    `speed`), also outside MPI.
//  - barrier is free (zero simulated time): it only synchronises. So are win_allocate and
//    win_free, which are barriers that also allocate and release the ranks' window memory (held
//    for the whole measurement, zero-filled, real or virtual; windows numbered in allocation
//    order; a rank allocating another size than the others is an error naming both). The ranks
//    inside one of these calls must all be in the same one.
//  - One-sided operations are RDMA, under every profile: host-to-host flows that need no actor
//    at the target, which bypass the tcp and shm transports (the model is Open MPI's osc/rdma on
//    an RDMA network, not osc/pt2pt, which would carry them over ob1). A put of m bytes is one
//    flow origin -> target; its request completes when the flow ends (local completion taken as
//    arrival). flush(target) returns once every put to target since the last flush of the
//    window has arrived and an empty acknowledgement flow target -> origin has ended (flush_all:
//    each target's acknowledgement leaves when its own puts have arrived; they travel
//    concurrently); with nothing to flush it returns at once. A get is an empty request flow
//    origin -> target and, when it arrives, a flow of m bytes back; its request completes when
//    that ends. win_sync costs the rank the sync_overhead of the profile inside its node (protocol.hpp;
//    0 by default). On an idle route of latency L and bandwidth bw: blocking put
//    (put, wait, flush) = (L + m/bw) + L, get = 2L + m/bw. A put's source bytes are copied when
//    it is posted and written into the target's window when the origin sees the put complete
//    (its wait or flush); a get reads the target's bytes when its data flow ends.
//  - Real bytes are copied at send time into a buffer that travels with the message, so a send
//    buffer may be reused once the send completes, as in MPI; virtual buffers move no bytes.
//
// Traces (RunSpec::trace, comm/trace.hpp): the simulation process records the run's events and
// sends them back with its result, in time order, into the spec's sink; an untraced run records
// and sends none. A message's send_start is when the flow of its bytes starts (ideal: the
// transfer, at the send's post if eager, once both sides have posted if rendezvous; tcp: the
// eager fragment or, after RNDV and PUT control, the data fragment; shm: the eager fragment or
// the receiver's single copy), arrive when that flow has been delivered at the receiver, and
// request_done when the engine completes each side's request as described above; protocol is
// eager or rendezvous as the profile chose (ideal too: it models both), one_sided for put and
// get; latency is the route's (route.hpp). Local copies are the front's post and complete.
//
// A deadlock (every rank left blocked) ends the run with EngineError naming the ranks and what
// each waits for, e.g. "ranks 3, 5 waiting in recv from 1 tag 1001".
//
// SimGrid's own logging is limited to warnings; the environment variable COLLSIM_SIM_LOG adds
// SimGrid --log settings (e.g. "ker_network.thres:debug") when debugging the engine.
//
// SimGrid resolves simulated time to about 1 ns (its surf/precision option, 1e-9 s by default):
// events closer than that, such as a 1-byte copy, may merge.
//
// Scale: every actor (rank, tcp/shm connection end, helper) has a 16 KiB stack unless sim.cfg
// sets contexts/stack-size, with a guard page while the run's actors fit the kernel's map limit
// (an overflow then ends the run with EngineError naming contexts/stack-size). The stack is most
// of a rank's memory at scale (seconds and bytes per rank at 2^18 ranks: tools/bench/README.md,
// "Scale: sim engine").
//
// Timing follows engines/run.hpp: all ranks of a measurement start at one simulated date; a
// rank's finish is when its call returns; time_s is the last finish.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engines/run.hpp"
#include "models/point_to_point.hpp"
#include "models/registration.hpp"

namespace collsim {

struct SimConfig {
  std::string platform_file;  // SimGrid platform XML
  models::MapBy map_by;       // rank placement (default ppr:1:node)
  // ideal profile: messages < limit eager, others rendezvous (default kIdealEagerLimit)
  std::optional<std::size_t> eager_limit;
  std::vector<std::string> cfg;  // "key:value" SimGrid --cfg options, applied after ours
  // Point-to-point protocols (protocol.hpp): a selection ("ideal", "tcp", "tcp+shm"; empty: the
  // platform's collsim/protocol, else "tcp+shm") and "PROFILE/KEY:VALUE" options.
  std::string protocol;
  std::vector<std::string> protocol_options;

  bool operator==(const SimConfig&) const = default;  // points with equal settings share a simulation
};

// Runs the specs in order in one simulation hosted in a forked child process and calls
// on_result(index, result) in the calling process as each finishes.
// Throws PlatformError (an InputError, platform_file.hpp) for a bad platform file, checked before
// SimGrid reads it ("FILE:LINE:COLUMN: <problem>"; hosts that ranks are placed on without a route
// between them are found before any run); InputError for a bad SimGrid option, a placement the
// platform cannot resolve, or more processes than the placement fits on the hosts; EngineError
// for a deadlock (naming the ranks still waiting and on what), misuse of the messaging layer
// (size mismatch, bad rank, requests never waited) or a crash of the simulation. Results of the
// specs that finished before the error have been delivered.
void run_sim(const SimConfig& config, std::span<const RunSpec> specs,
             const std::function<void(std::size_t index, const RunResult&)>& on_result);

// As run_sim, with the same results, errors and output, but the child process is forked from a
// server process that loaded config's platform (and applied config) once, kept for the next call
// with an equal config and an unchanged platform file; another config replaces it. Worth it for
// runs on a small part of a platform, whose loading costs as much as they do (tools/bench/README.md,
// "Per-point set-up"): specs of more ranks than half the platform's room, and specs that the
// server cannot receive by value (a program, an algorithm outside the registry), run as run_sim
// runs them. The server is killed if this process dies; end_sim_server
// ends it in order.
void run_sim_reusing_platform(const SimConfig& config, std::span<const RunSpec> specs,
                              const std::function<void(std::size_t index, const RunResult&)>& on_result);

// Ends this process's server, if any, and waits for it (so that its processor time is counted as
// this process's children's): for a process about to _exit.
void end_sim_server();

// The platform as a two-level Hockney model, so that the model engine describes the same
// cluster as the simulation without hand-copied numbers: between ranks of one node, the route
// from the first host (in natural order of names) to itself, a <cluster>'s loopback; between
// nodes, the mean over routes between distinct hosts (route.hpp, mean_route: on a crossbar every
// route, so the first two hosts'; on a fat-tree, torus or dragonfly routes differ with distance
// and the model engine, which knows no topology, takes the average one). A route's alpha is the
// sum of its latencies, beta 1 / its narrowest bandwidth; inter-node alpha is their mean, beta
// the mean of the betas; all with the network model's factors (config.cfg applies: 13.01 and
// 0.97 under LV08, 1 under CM02). Protocols and headers are left out: it is what a message of m
// bytes costs alone on an idle route. Where the first host states an inter-socket link
// (collsim/inter_socket_bandwidth or _latency, and two sockets or more), a socket level too:
// between sockets, the loopback's latency plus the link's, at the narrower bandwidth. Its
// placement is config.map_by resolved on the platform. Throws InputError like run_sim.
models::TwoLevelHockney platform_hockney(const SimConfig& config);

// What registering memory costs on config's platform, for the model engine: the first value the
// file states of collsim/registration_call, collsim/registration_page and collsim/page_size (the
// sim engine takes each host's own), the defaults of models/registration.hpp for the others.
// Throws PlatformError (an InputError) for a bad file.
models::RegistrationCost platform_registration(const SimConfig& config);

// Number of hosts in a platform file (for validation messages); throws InputError.
std::size_t platform_host_count(const std::string& platform_file);

// The hosts of config's platform and how many ranks its placement (config.map_by) fits on
// them; throws InputError like run_sim.
struct PlatformSize {
  std::size_t hosts = 0;
  std::size_t capacity = 0;
};
PlatformSize platform_size(const SimConfig& config);

}  // namespace collsim
