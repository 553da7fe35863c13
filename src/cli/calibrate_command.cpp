#include "cli/commands.hpp"
#include "cli/options.hpp"

namespace collsim::cli {

int calibrate_command(std::span<char* const>) { throw UsageError("collsim calibrate is not built yet"); }

}  // namespace collsim::cli
