// InputError: bad user input (options, scenario and platform files, array sections), found in any
// layer; the command line reports it as one line and exit status 2.
#pragma once

#include <stdexcept>

namespace collsim {

class InputError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace collsim
