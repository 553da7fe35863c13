#include "cli/time_left.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace collsim::cli {

void TimeLeft::row_done(double seconds) {
  if (done_ >= sizes_.size()) return;
  auto& [sum, rows] = by_size_[sizes_[done_++]];
  sum += seconds;
  ++rows;
}

double TimeLeft::seconds_left() const {
  if (by_size_.empty()) return 0;
  double left = 0;
  for (std::size_t i = done_; i < sizes_.size(); ++i) {
    const std::size_t size = sizes_[i];
    auto at = by_size_.lower_bound(size);  // the size itself, or the nearest larger one
    if (at != by_size_.end() && at->first == size) {
      left += at->second.first / at->second.second;
      continue;
    }
    if (at != by_size_.begin() && std::prev(at)->first > 0) {
      const auto& [smaller, measured] = *std::prev(at);
      left += measured.first / measured.second * static_cast<double>(size) / static_cast<double>(smaller);
      continue;
    }
    if (at == by_size_.end()) at = std::prev(at);  // only a measured size 0 below
    left += at->second.first / at->second.second;
  }
  return left;
}

std::string rough_duration(double seconds) {
  const long long s = std::llround(std::max(seconds, 0.0)), minutes = (s + 30) / 60;
  char text[48];
  if (s < 60)
    std::snprintf(text, sizeof text, "%lld s", s);
  else if (minutes < 60)
    std::snprintf(text, sizeof text, "%lld min", minutes);
  else
    std::snprintf(text, sizeof text, "%lld h %02lld min", minutes / 60, minutes % 60);
  return text;
}

}  // namespace collsim::cli
