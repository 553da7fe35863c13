#include "cli/commands.hpp"
#include "cli/options.hpp"

namespace collsim::cli {

int select_command(std::span<char* const>) { throw UsageError("collsim select is not built yet"); }

}  // namespace collsim::cli
