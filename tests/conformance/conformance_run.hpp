// What the conformance drivers share: the run of a case and the verdict on its outcome.
#pragma once

#include <string>

#include "conformance/conformance_cases.hpp"
#include "engines/run.hpp"

namespace collsim::conformance {

inline RunSpec spec_of(const Case& c, int procs) {
  RunSpec s;
  s.algorithm = &c.algorithm;
  s.procs = procs;
  s.bytes = 0;
  s.real_bytes = false;
  return s;
}

// "" when a run of `c` on `procs` processes that ended with `error` ("" for none) is right.
inline std::string verdict(const Case& c, int procs, const std::string& error) {
  std::string want(c.error);
  for (std::size_t at; (at = want.find("{P}")) != std::string::npos;) want.replace(at, 3, std::to_string(procs));
  if (want.empty()) return error.empty() ? "" : "failed: " + error;
  if (error.empty()) return "succeeded, expected the error \"" + want + "\"";
  if (error.find(want) == std::string::npos) return "error \"" + error + "\" does not contain \"" + want + "\"";
  return "";
}

}  // namespace collsim::conformance
