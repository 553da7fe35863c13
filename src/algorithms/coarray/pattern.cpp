#include "algorithms/coarray/pattern.hpp"

#include <algorithm>
#include <stdexcept>

namespace collsim::coarray {

const char* to_string(Pattern pattern) {
  switch (pattern) {
    case Pattern::one: return "one";
    case Pattern::all_to_one: return "all-to-one";
    case Pattern::ring: return "ring";
    case Pattern::halo: return "halo";
  }
  return "one";
}

std::optional<Pattern> parse_pattern(std::string_view name) {
  for (Pattern p : {Pattern::one, Pattern::all_to_one, Pattern::ring, Pattern::halo})
    if (name == to_string(p)) return p;
  return std::nullopt;
}

std::string pattern_problem(Pattern pattern, int images) {
  if (images < 2) return std::string(to_string(pattern)) + " needs at least 2 images";
  if (pattern == Pattern::halo && images < 3)
    return "halo needs at least 3 images (on 2, an image's left and right neighbours are the same image)";
  return "";
}

std::vector<int> Traffic::targets(int rank) const {
  switch (pattern) {
    case Pattern::one: return rank == origin ? std::vector<int>{target} : std::vector<int>{};
    case Pattern::all_to_one: return rank == 0 ? std::vector<int>{} : std::vector<int>{0};
    case Pattern::ring: return {(rank + 1) % images};
    case Pattern::halo: return {(rank + images - 1) % images, (rank + 1) % images};
  }
  return {};
}

std::vector<int> Traffic::sources(int rank) const {
  switch (pattern) {
    case Pattern::one: return rank == target ? std::vector<int>{origin} : std::vector<int>{};
    case Pattern::all_to_one: {
      std::vector<int> all;
      if (rank == 0)
        for (int r = 1; r < images; ++r) all.push_back(r);
      return all;
    }
    case Pattern::ring: return {(rank + images - 1) % images};
    // The left neighbour's copy in slot 0, the right one's in slot 1, as ghost cells lie.
    case Pattern::halo: return {(rank + images - 1) % images, (rank + 1) % images};
  }
  return {};
}

int Traffic::slots() const {
  switch (pattern) {
    case Pattern::all_to_one: return images - 1;
    case Pattern::halo: return 2;
    default: return 1;
  }
}

int Traffic::slot(int to, int source) const {
  const std::vector<int> s = sources(to);
  const auto at = std::find(s.begin(), s.end(), source);
  if (at == s.end())
    throw std::logic_error("coarray pattern: image " + std::to_string(source + 1) + " does not put to image " +
                           std::to_string(to + 1));
  return static_cast<int>(at - s.begin());
}

std::vector<int> Traffic::partners(int rank) const {
  std::vector<int> all = targets(rank);
  const std::vector<int> s = sources(rank);
  all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

}  // namespace collsim::coarray
