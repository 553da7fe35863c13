#include "algorithms/coarray/units.hpp"

#include <algorithm>

namespace collsim::coarray {

Units::Units(const Scheme& scheme, const Runs& runs) : scheme_(scheme), runs_(runs) {
  if (scheme.table_case == 2 || scheme.table_case == 3) {
    per_remote_run_ = scheme.nr / runs.run_bytes();
    per_unit_ = scheme.unit / runs.run_bytes();
  }
}

bool Units::next() {
  if (run_ >= runs_.count()) return false;
  const std::size_t m = runs_.run_bytes();
  unit_.pieces.clear();
  if (scheme_.table_case == 4) {
    const RunOffsets at = runs_[run_];
    unit_.bytes = std::min(scheme_.unit, m - within_);
    unit_.remote = at.remote + within_;
    unit_.pieces.push_back({at.local + within_, unit_.bytes});
    within_ += unit_.bytes;
    if (within_ == m) ++run_, within_ = 0;
    return true;
  }
  // A unit never spans two remote runs: they are not adjacent in the remote coarray.
  const std::size_t remote_run_end = (run_ / per_remote_run_ + 1) * per_remote_run_;
  const std::size_t n = std::min(per_unit_, remote_run_end - run_);
  unit_.remote = runs_[run_].remote;
  unit_.bytes = n * m;
  for (std::size_t k = 0; k < n; ++k) unit_.pieces.push_back({runs_[run_ + k].local, m});
  run_ += n;
  return true;
}

}  // namespace collsim::coarray
