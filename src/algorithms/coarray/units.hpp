// The units a Table 1 scheme (scheme.hpp) moves, one after another: each is a range of the remote
// coarray, contiguous, that one put or get covers, and the local pieces it is made of (copied
// into or out of the buffer one by one, or, for DMA, the one piece moved straight).
//
// Units follow the m-byte runs of the transfer (section.hpp's Runs) in Fortran order: cases 0
// and 1 take one run per unit; cases 2 and 3 gather the consecutive NL-byte runs of one remote
// run, unit/NL of them per unit; case 4 cuts each run into B-byte units, the last one shorter.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/coarray/scheme.hpp"
#include "algorithms/coarray/section.hpp"

namespace collsim::coarray {

struct Piece {
  std::size_t local = 0;  // byte offset in the local array
  std::size_t bytes = 0;
};

struct Unit {
  std::size_t remote = 0;  // byte offset in the remote coarray
  std::size_t bytes = 0;   // the sum of the pieces
  std::vector<Piece> pieces;
};

class Units {
 public:
  // Keeps references to `scheme` and `runs`, which must outlive it.
  Units(const Scheme& scheme, const Runs& runs);
  // Moves to the next unit (the first, on the first call); false when there are no more.
  bool next();
  const Unit& unit() const { return unit_; }

 private:
  const Scheme& scheme_;
  const Runs& runs_;
  std::size_t per_remote_run_ = 1;  // cases 2, 3: m-byte runs per remote run
  std::size_t per_unit_ = 1;        // cases 2, 3: m-byte runs per unit
  std::size_t run_ = 0;             // the next run to take
  std::size_t within_ = 0;          // case 4: bytes of run_ already taken
  Unit unit_;
};

}  // namespace collsim::coarray
