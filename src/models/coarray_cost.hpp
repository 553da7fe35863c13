// The cost model of the coarray runtime's PUT and GET statements (algorithms/coarray), from their
// Table 1 plan, under Hockney (alpha, beta), a per-operation software overhead at the origin and
// a memory-copy bandwidth: the model engine's time for the same coroutines, exactly (up to
// rounding). The engine's one-sided rules (model_engine.cpp), for an origin that does one thing
// at a time:
//  - every put, get and flush first costs the origin o(n), its software overhead for an operation
//    of n bytes (the engine's send_overhead table; a flush moves 0 bytes), after which it goes on;
//  - the origin's port injects one put at a time and is busy beta*n while its bytes leave: a put
//    of n bytes ready at r starts at s = max(r, port free), frees the port at s + beta*n and
//    arrives, its request completing, at s + alpha + beta*n;
//  - flush(target) completes at max(ready, the latest arrival of the unflushed puts to target) +
//    alpha (the acknowledgement), or at ready if there are none; flush_all likewise;
//  - a get of n bytes posted at t completes at t + o(n) + 2*alpha + beta*n (request and reply);
//  - a copy of n bytes takes n / copy_bandwidth (0: free) and holds the rank;
//  - win_sync and barrier take no time;
//  - a registration of n bytes (per-statement registration of DMA, before each statement's first
//    transfer) takes registration.time(n) (models/registration.hpp) and holds the origin.
// The ports of one_port and the LogGP rules are not covered (the engine has them).
#pragma once

#include "algorithms/coarray/scheme.hpp"
#include "models/overhead.hpp"
#include "models/point_to_point.hpp"
#include "models/registration.hpp"

namespace collsim::models {

struct CoarrayCosts {
  Hockney hockney;
  double copy_bandwidth = 0;  // bytes/s of a local memory copy; 0: copies are free
  Overhead overhead{};        // the origin's per put, get (of their bytes) and flush (0 bytes)
  RegistrationCost registration{};
  std::size_t registered_bytes = 0;  // registered by each statement first (0: nothing registered)

  double registration_per_statement() const { return registration.time(registered_bytes); }
};

// A segment of plan.statements PUT statements in `mode`, then its end (sync memory): from the
// first statement's start to the end of the sync memory.
double coarray_put_time(const coarray::Plan& plan, const CoarrayCosts& costs, coarray::PutMode mode);

// plan.statements GET statements one after another (GET is blocking), then the segment's end
// (sync memory: a flush_all with nothing to flush, o(0)).
double coarray_get_time(const coarray::Plan& plan, const CoarrayCosts& costs);

}  // namespace collsim::models
