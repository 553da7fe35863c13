// The cost model of the coarray runtime's PUT and GET statements (algorithms/coarray), from their
// Table 1 plan, under Hockney (alpha, beta), a per-operation software overhead at the origin and
// a memory-copy bandwidth: the model engine's time for the same coroutines, exactly (up to
// rounding). The engine's one-sided rules (model_engine.cpp), for an origin that does one thing
// at a time:
//  - every put and flush (and a get, unless the engine has a get_overhead table) first costs the
//    origin o(n), its software overhead for an operation of n bytes (the engine's send_overhead
//    table; a flush moves 0 bytes), after which it goes on;
//  - the origin's port injects one put at a time and is busy beta*n while its bytes leave: a put
//    of n bytes ready at r starts at s = max(r, port free), frees the port at s + beta*n and
//    arrives, its request completing, at s + alpha + beta*n;
//  - flush(target) completes at max(ready, the latest arrival of the unflushed puts to target) +
//    alpha (the acknowledgement), or at ready if there are none; flush_all likewise;
//  - a get of n bytes posted at t completes at t + o_get(n) + 2*alpha + beta*n (request and
//    reply), o_get the engine's get_overhead table, or o where it has none;
//  - a copy of n bytes takes c0 + n / copy_bandwidth (c0 = copy_overhead, its per-call cost;
//    copy_bandwidth 0: the bytes are free) and holds the rank: a buffered unit is one copy in
//    cases 1 and 4, one per NL piece in cases 2 and 3 (Plan::copies in all);
//  - win_sync (half of sync memory: flush_all then win_sync; sync all and sync images run two)
//    takes F = sync_overhead on the rank's core; a barrier takes no time;
//  - a registration of n bytes (per-statement registration of DMA, before each statement's first
//    transfer) takes registration.time(n) (models/registration.hpp) and holds the origin.
//  - a strided put or get (the datatype scheme: one put or get of MPI derived datatypes) is one
//    RDMA per piece contiguous on both sides, as Open MPI's one-sided components issue it: osc
//    rdma cuts the two datatypes into their contiguous pieces and calls its contiguous transfer
//    once per piece (ompi/mca/osc/rdma/osc_rdma_comm.c:191-300, the length at :257, the call at
//    :277), osc ucx likewise, one ucp put per piece (ompi/mca/osc/ucx/osc_ucx_comm.c:157-200,
//    open-mpi/ompi 8efebee). So the origin pays o(m) for each of its k pieces of m bytes, k*o(m),
//    and the bytes leave back to back, one transfer of k*m bytes at the port (Hockney's latencies
//    of back-to-back transfers overlap); the k posting overheads all come before the first byte
//    leaves, which overstates by at most (k-1)*o(m) where posting and the wire overlap. A
//    contiguous section is one piece: the same as one contiguous put.
// The ports of one_port and the LogGP rules are not covered (the engine has them).
// On shared memory (Open MPI's osc sm maps the target's window into the origin) a put or get is a
// copy by the origin's core and a flush has nothing in flight: these rules with alpha = 0, beta the
// copy rate and o the measured cost of one operation, as tools/calibrate_shm states this machine
// (platforms/README.md, "This machine's shared memory"), with its c0 and F.
#pragma once

#include <optional>

#include "algorithms/coarray/pattern.hpp"
#include "algorithms/coarray/scheme.hpp"
#include "algorithms/coarray/segment_end.hpp"
#include "models/overhead.hpp"
#include "models/point_to_point.hpp"
#include "models/registration.hpp"

namespace collsim::models {

struct CoarrayCosts {
  Hockney hockney;
  double copy_bandwidth = 0;  // bytes/s of a local memory copy; 0: copies are free
  Overhead overhead{};        // the origin's per put (of its bytes) and flush (0 bytes); a get's too
  RegistrationCost registration{};
  std::size_t registered_bytes = 0;  // registered by each statement first (0: nothing registered)
  double copy_overhead = 0;          // c0: s per local copy, besides its bytes
  double sync_overhead = 0;          // F: s per win_sync
  // The origin's overhead for a get, in place of `overhead` when set.
  std::optional<Overhead> get_overhead{};

  double registration_per_statement() const { return registration.time(registered_bytes); }
  const Overhead& get_table() const { return get_overhead ? *get_overhead : overhead; }
};

// The origin's overhead for one datatype transfer of `bytes` under `scheme` (a datatype scheme):
// k * o(m), its k = bytes / m pieces of m = min(NL, NR) bytes each.
double datatype_overhead(const coarray::Scheme& scheme, std::size_t bytes, const Overhead& overhead);

// A segment of plan.statements PUT statements in `mode`, then its end (sync memory: flush_all,
// then win_sync's F): from the first statement's start to the end of the sync memory.
double coarray_put_time(const coarray::Plan& plan, const CoarrayCosts& costs, coarray::PutMode mode);

// plan.statements GET statements one after another (GET is blocking), then the segment's end
// (sync memory: a flush_all with nothing to flush, o(0), and F).
double coarray_get_time(const coarray::Plan& plan, const CoarrayCosts& costs);

// What ending the segment with `kind` adds to coarray_put_time and coarray_get_time (which end it
// with sync memory) on `images` images, the statements run by rank `origin`.
// Every image but the origin has nothing before the statement, so it waits there
// from the start; the origin comes last, at the end T of its sync memory. A zero-byte message
// then takes s = o(0) + alpha from its sender's entry to its arrival (a blocking send completes
// when it arrives; receives cost nothing: no receive overhead), and each image ends with a sync
// memory of its own, f + F (f = o(0), with nothing to flush; F its win_sync):
//  - memory: 0;
//  - images: the origin's message to the target, s, then f + F: alpha + 2*o(0) + F (the target's
//    message to the origin left at the start);
//  - all: the barrier Open MPI 4.1 runs on `images` processes (algorithms/ompi41_decision.hpp),
//    timed from the origin's entry, then f + F. With k = log2 p', p' the largest power of two <= P,
//    and x = P - p':
//      recursive_doubling  k*s, + s if x > 0 (the extra ranks' release), + s if the origin is
//                          an extra rank (its announcement); 2 images: s, 3: 2s (origin 0 or 1)
//      linear              P*s (the origin's report to rank 0, then rank 0's P-1 releases one
//                          after another), (P-1)*s when the origin is rank 0
//      bruck               ceil(log2 P)*s: the origin's lateness reaches every rank, one round each
//      tree                popcount(origin)*s up to rank 0, then rank 0's releases down the tree
// Exact (the model engine's time, tests/coarray/coarray_model_test.cpp) under Hockney with one
// (alpha, beta) between every two images, when the others have done all they can without the
// origin before it enters: T >= f + F + s on 2 and 3 images, which a segment that moves a byte
// always takes; on more images the barrier's rounds without the origin take longer (the term
// is then a lower bound until T covers them).
double coarray_sync_time(coarray::SyncKind kind, int images, int origin, const CoarrayCosts& costs);

// A segment of the same statements run by every active image of `pattern` on `images` images
// (algorithms/coarray/pattern.hpp), ended by sync memory: its time on the slowest image, from the
// model engine's rules above plus one: the target's port takes in one put at a time, and a
// target's port sends one get's reply at a time (busy beta*n each). Under one (alpha, beta)
// between every two images:
//  - one, ring: coarray_put_time / coarray_get_time (in a ring no two images share a port);
//  - halo (periodic): the same with twice the statements (each image runs each statement to its
//    left, then its right neighbour). A target's port takes its two neighbours' transfers at the
//    times its own port sends its own two, which never overlap, so no transfer waits for it;
//  - all-to-one, one transfer per image (a segment of one unit): the N-1 images' transfers of n
//    bytes are ready together and pass the target's port one after another, so the last ends
//    (N-2)*beta*n after one image alone's: T1 + (N-2)*beta*n;
//  - all-to-one of blocking PUTs, k units of one size n an image (not the datatype scheme, no
//    per-statement registration): each unit is a cycle C = p + 2*alpha + beta*n + f, p its
//    copy (buffered) and o(n) before it starts. The first units pass the target's port one after
//    another, so image j starts j*beta*n late. If (N-1)*beta*n <= C every image is ready before its
//    turn comes round again and they keep that lag: T1 + (N-2)*beta*n. Otherwise the port is busy
//    from the first start to the last unit's end, (N-1)*k*beta*n, then the last arrives (alpha),
//    its flush and the end's: p + (N-1)*k*beta*n + 2*alpha + 2*f + F. The two differ by
//    (k-1)*(C - (N-1)*beta*n), so the time is the larger. (k = 1 is the line above.)
//  - all-to-one otherwise (GET, non-blocking, units of two sizes): nullopt (their interleaving at
//    the target, with waits for flushes and buffers, has no closed form here; the engine has it).
std::optional<double> coarray_pattern_time(coarray::Pattern pattern, int images, const coarray::Plan& plan,
                                           const CoarrayCosts& costs, coarray::PutMode mode, bool get);

}  // namespace collsim::models
