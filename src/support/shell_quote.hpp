// Words for /bin/sh: the commands collsim runs through the shell and the job scripts it writes.
#pragma once

#include <string>

namespace collsim {

// `s` in single quotes for /bin/sh: one word, whatever it holds.
std::string shell_quoted(const std::string& s);

}  // namespace collsim
