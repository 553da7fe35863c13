#include "cli/commands.hpp"
#include "cli/options.hpp"

namespace collsim::cli {

int compare_command(std::span<char* const>) { throw UsageError("collsim compare is not built yet"); }

}  // namespace collsim::cli
