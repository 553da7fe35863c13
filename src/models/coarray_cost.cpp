#include "models/coarray_cost.hpp"

namespace collsim::models {

// With S = plan.bytes, k = plan.transfers (over all statements), C = plan.bytes_copied / bw the
// time of every copy together (each byte goes through the buffer once; copies of one unit run
// back to back, so only their sum matters) and n_i the size of put i (sum n_i = S):
//
// Blocking, any case: unit i copies its pieces (c_i), posts its put at t, waits for it (t + alpha
// + beta*n_i: the put has arrived) and flushes (+ alpha: nothing else is unflushed and it has
// arrived). Units run one after the other, so the segment's statements take
//   sum_i (c_i + 2*alpha + beta*n_i) = C + 2*alpha*k + beta*S,
// and the segment end adds nothing: nothing is outstanding and flush_all finds no unflushed put.
//
// Non-blocking, buffered (cases 1 to 4): before copying unit i into the one buffer the rank
// waits for put i-1 out of it, which completes when it arrives. So unit i starts when put i-1
// arrives, copies (c_i), posts put i, which arrives alpha + beta*n_i later: the last put arrives
// at sum_i (c_i + alpha + beta*n_i) = C + alpha*k + beta*S, the statements of one segment
// chaining through the same buffer. The segment end waits for it (the only outstanding put) and
// flush_all adds the acknowledgement: + alpha.
//
// Non-blocking, DMA (case 0): no copies and no waits, so all k puts, of m = plan.unit() bytes
// each, are posted at 0 and arrive together at alpha + beta*m (contention-free); the segment end
// waits for them and flushes: 2*alpha + beta*m, whatever k and the number of statements.
//
// No transfers (empty sections): nothing is posted, and flush_all returns at once: 0.
double coarray_put_time(const coarray::Plan& plan, const CoarrayCosts& costs, bool blocking) {
  if (plan.transfers == 0) return 0;
  const double alpha = costs.hockney.alpha, beta = costs.hockney.beta;
  const auto k = static_cast<double>(plan.transfers);
  const auto s = static_cast<double>(plan.bytes);
  const double copies = copy_time(static_cast<double>(plan.bytes_copied), costs.copy_bandwidth);
  if (blocking) return copies + 2 * alpha * k + beta * s;
  if (plan.scheme.dma()) return 2 * alpha + beta * static_cast<double>(plan.unit());
  return copies + alpha * k + beta * s + alpha;
}

// Every get is waited for before the next operation: a get of n bytes takes 2*alpha + beta*n,
// and the copies out of the buffer add C (cases 1 to 4; Table 1's single get per unit or Omni's
// get per NL piece only change k). DMA gets straight into local memory, C = 0.
//   k*2*alpha + beta*S + C
double coarray_get_time(const coarray::Plan& plan, const CoarrayCosts& costs) {
  const double alpha = costs.hockney.alpha, beta = costs.hockney.beta;
  return 2 * alpha * static_cast<double>(plan.transfers) + beta * static_cast<double>(plan.bytes) +
         copy_time(static_cast<double>(plan.bytes_copied), costs.copy_bandwidth);
}

}  // namespace collsim::models
