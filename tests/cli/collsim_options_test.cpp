// One meaning per option name across every command of collsim and collsim-mpi, read from their
// --help: an option is a flag everywhere or takes a value everywhere, and the options that name
// files and folders take the same kind of value wherever they appear (--csv prints CSV, --out is
// a folder, --output the one file a command writes, --trace a trace to write, --from-trace one
// to read, --png/--svg a picture, --plots a folder of them). -o is --output wherever it exists.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>

#include "common/cli_test_util.hpp"

namespace {

using namespace collsim_test;

// option name -> {value name ("" for a flag) -> the commands that spell it so}
using Spellings = std::map<std::string, std::map<std::string, std::set<std::string>>>;

Spellings every_commands_options() {
  Spellings out;
  const std::pair<const char*, const char*> programs[] = {{COLLSIM_BIN, "collsim"}, {COLLSIM_MPI_BIN, "collsim-mpi"}};
  const std::map<std::string, std::vector<std::string>> commands = {
      {"collsim",
       {"run", "report", "merge", "measure", "timeline", "explain", "calibrate", "compare", "select", "coarray",
        "platform", "tree", "algorithms", "slurm"}},
      {"collsim-mpi", {"measure", "fidelity", "run", "pingpong", "coarray"}}};
  const std::regex option(R"(^\s+--([a-z][a-z-]*)(?: (\S+))?\s)");
  for (const auto& [binary, program] : programs)
    for (const std::string& command : commands.at(program)) {
      const Outcome o = run_command(std::string(binary) + " " + command + " --help");
      EXPECT_EQ(o.status, 0) << program << " " << command << ": " << o.err;
      std::size_t found = 0;
      for (const std::string& line : lines(o.out)) {
        std::smatch m;
        if (!std::regex_search(line, m, option)) continue;
        out[m[1]][m[2]].insert(std::string(program) + " " + command);
        ++found;
      }
      EXPECT_GT(found, 0u) << program << " " << command << " --help lists no option";
    }
  return out;
}

TEST(Options, EachNameMeansOneThingInEveryCommand) {
  const Spellings options = every_commands_options();
  // What the file and folder options take, where they exist.
  const std::map<std::string, std::string> files = {
      {"csv", ""},     {"out", "DIR"},  {"output", "FILE"},         {"trace", "FILE"},
      {"png", "FILE"}, {"svg", "FILE"}, {"from-trace", "FILE.csv"}, {"plots", "DIR"}};
  for (const auto& [name, value] : files) {
    ASSERT_TRUE(options.count(name)) << "--" << name << " is in no command";
    for (const auto& [spelled, where] : options.at(name))
      for (const std::string& command : where) EXPECT_EQ(spelled, value) << command << ": --" << name << " " << spelled;
  }
  // Any other name is a flag everywhere or takes a value everywhere.
  for (const auto& [name, spellings] : options) {
    const bool flag = spellings.count("") > 0;
    EXPECT_TRUE(!flag || spellings.size() == 1)
        << "--" << name << " is a flag in " << *spellings.at("").begin() << " and takes a value elsewhere";
  }
}

TEST(Options, DashOIsOutputWhereACommandWritesOneFile) {
  const fs::path file = scratch() / "dash-o.xml";
  const Outcome o = collsim("platform --nodes 4 -o " + file.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(fs::file_size(file) > 0);
  expect_refused("platform --nodes 4 -o " + file.string() + " --output " + file.string(),
                 "collsim: option --output (or -o) given twice");
  expect_refused("platform --nodes 4 -o", "collsim: option -o needs a value (FILE)");
  // A command without --output takes no -o.
  expect_refused("tree bcast/binomial --procs 4 -o x",
                 "collsim: tree takes one algorithm name (collsim tree "
                 "bcast/binomial --procs 8)");
}

}  // namespace
