// Closed-form times of the coarray runtime's PUT and GET statements (algorithms/coarray), from
// their Table 1 plan, under contention-free Hockney (alpha, beta) and a memory-copy bandwidth.
//
// They are the model engine's times for the same coroutines, exactly (up to rounding): the
// engine's one-sided rules are, for a rank that does one thing at a time,
//  - a put of n bytes posted at t arrives, and its request completes, at t + alpha + beta*n;
//    puts in flight do not slow each other;
//  - flush(target) completes at max(now, the latest arrival of the unflushed puts to target) +
//    alpha (the acknowledgement), at once if there are none; flush_all likewise over every
//    target (a statement here has one target);
//  - a get of n bytes posted at t completes at t + 2*alpha + beta*n (request and reply);
//  - a copy of n bytes takes n / copy_bandwidth (0: free) and holds the rank;
//  - posting, win_sync and barrier take no time.
#pragma once

#include "algorithms/coarray/scheme.hpp"
#include "models/point_to_point.hpp"

namespace collsim::models {

struct CoarrayCosts {
  Hockney hockney;
  double copy_bandwidth = 0;  // bytes/s of a local memory copy; 0: copies are free
};

// A segment of plan.statements PUT statements, then its end (sync memory): from the first
// statement's start to the end of the sync memory. Blocking: every put is waited for and
// flushed (MPI_Put + MPI_Win_flush); non-blocking: completion is awaited at the segment end only.
double coarray_put_time(const coarray::Plan& plan, const CoarrayCosts& costs, bool blocking);

// plan.statements GET statements one after another (GET is blocking). A sync memory after them
// adds nothing: a waited get is complete, and flushes wait for puts only.
double coarray_get_time(const coarray::Plan& plan, const CoarrayCosts& costs);

}  // namespace collsim::models
