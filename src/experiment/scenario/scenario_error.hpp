// The error of a wrong input file (a scenario, a parameters file): its message names the file,
// the place and the problem, and the commands turn it into one line and exit status 2.
#pragma once

#include <stdexcept>

namespace collsim {

class ScenarioError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace collsim
