// Which images run a segment's statement, and to which images: the many-image patterns of
// `--pattern` (issue 31 item 4). Every active image executes the same statement (same sections)
// in one segment; a target receives each of its sources' copies in a coarray slot of its own, so
// every copy can be checked (in Fortran: a(..., slot)[t] = b(...)).
//  - one: the origin to the target alone (collsim's only pattern before);
//  - all_to_one: every image but image 1 to image 1 (many to one: its port and memory are shared);
//  - ring: image i to image i+1, the last to image 1;
//  - halo: image i to both neighbours i-1 and i+1, periodic (a 1-D halo exchange on a ring of
//    images: every image does the same work, so no image's time is an edge case). It needs 3
//    images: on 2, an image's two neighbours are one image.
// Ranks are 0-based (image = rank + 1). The caf-native kernel (engines/caf/caf_kernel.inc)
// mirrors these rules and slot numbers; change both together.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collsim::coarray {

enum class Pattern { one = 0, all_to_one = 1, ring = 2, halo = 3 };  // caf_spec.F90's numbers too
// "one", "all-to-one", "ring", "halo": the names --pattern and the scenario's `pattern:` take.
const char* to_string(Pattern pattern);
std::optional<Pattern> parse_pattern(std::string_view name);
// "" when `pattern` means something on `images` images, else why not (one line).
std::string pattern_problem(Pattern pattern, int images);

// Who puts (gets) to whom in a point; origin and target matter for `one` only.
struct Traffic {
  Pattern pattern = Pattern::one;
  int images = 2, origin = 0, target = 1;

  // The images `rank` runs the statement to, in the order it runs them (halo: left, then right).
  std::vector<int> targets(int rank) const;
  // The images that run the statement to `rank`; its index here is the slot of that source.
  std::vector<int> sources(int rank) const;
  // Slots every image's window holds per statement (the most sources any image has).
  int slots() const;
  // The slot of `source`'s copies at `target` (a target of source).
  int slot(int target, int source) const;
  // The images `rank` names in sync images: its targets and sources, each once, in rank order.
  std::vector<int> partners(int rank) const;
};

}  // namespace collsim::coarray
