#include "engines/run.hpp"

namespace collsim {

std::string describe(const RunSpec& spec) {
  std::string s = std::string(spec.algorithm ? spec.algorithm->name : "?") + " on " + std::to_string(spec.procs) +
                  " processes (root " + std::to_string(spec.params.root) + ", " + std::to_string(spec.bytes) + " bytes";
  if (spec.params.segment) s += ", segment " + std::to_string(spec.params.segment);
  return s + ")";
}

}  // namespace collsim
