// collsim compare: options, output files and plots; the comparison itself is
// experiment/analysis/comparison.hpp.
#include <array>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/plotting.hpp"
#include "engines/engine.hpp"
#include "engines/run.hpp"
#include "experiment/analysis/comparison.hpp"
#include "experiment/scenario/named_files.hpp"
#include "support/units.hpp"

namespace collsim::cli {
namespace {

namespace fs = std::filesystem;

std::vector<OptionDef> compare_options() {
  return {
      {"reference", "ENGINE",
       "engine the others are judged against: sim, mpi, mpi-native or model (default: mpi-native if "
       "measured, else mpi, else sim)"},
      {"out", "DIR", "write DIR/comparison.csv (per point) and DIR/selection.csv (per selector and call)"},
      {"plots", "DIR", "PNG plots in DIR (python3 with matplotlib); the CSV files go there too unless --out is given"},
      {"csv", "", "print the per-point CSV instead of the table"},
  };
}

const std::string kAbout =
    "Joins result rows (collsim run's results.csv, collsim measure --csv, collsim-mpi measure --csv) by point\n"
    "(op, procs, bytes, segment, root): the textbook and derived predictions (engines formula-textbook,\n"
    "formula-derived), the model engine, the simulation and the measurements side by side, each with its\n"
    "relative error against the reference engine. Then judges selectors per call (operation, procs,\n"
    "bytes) over the (algorithm, segment) candidates that have a reference time: textbook, derived, model\n"
    "and sim pick the smallest prediction, ompi-4.1 and ompi-3.1 are Open MPI's fixed decisions. A pick's\n"
    "degradation is its reference time over the best one (1.00 = optimal). Fanout and radix are not in\n"
    "result files: candidates are matched by algorithm and segment.\n"
    "Derived predictions from a parameters file that records its fits' scatter carry a " +
    fixed(100 * models::kPredictionLevel, 0) +
    "% prediction\n"
    "interval (result columns interval_low_s, interval_high_s): the error table gives its mean half-width\n"
    "and how many reference times lie inside it, a table lists each prediction with its interval,\n"
    "comparison.csv has <engine>_low_s and <engine>_high_s, and the plots shade it around the line.";

int compare(const ParsedOptions& o) {
  if (o.positional.empty()) throw UsageError("compare needs at least one results file (collsim compare RESULTS.csv)");
  std::optional<Engine> reference;
  if (o.has("reference")) {
    // The engines that give a time to judge the others by: the simulation and the measurements,
    // or the model engine.
    static constexpr std::array<Engine, 4> references = {Engine::sim, Engine::mpi, Engine::mpi_native, Engine::model};
    const std::string r = o.text("reference");
    reference = parse_engine(r, references);
    if (!reference) throw UsageError("--reference: " + not_an_engine(r, references, "an engine to compare with"));
  }
  // Checked before any work, so a missing plotting stack costs nothing.
  std::optional<std::string> python;
  if (o.has("plots")) {
    python = plotting_python();
    if (!python) {
      std::cerr << "collsim: --plots needs python3 with matplotlib (Debian: apt-get install python3-matplotlib)\n";
      return 2;
    }
  }

  std::vector<ResultsFile> files;
  for (const auto& path : o.positional) files.push_back({path, read_results_csv(path)});
  const Comparison c = compare_results(files, reference);

  const std::string dir = o.has("out") ? o.text("out") : o.text("plots");
  std::string points_csv, selection_csv;
  if (!dir.empty()) {
    make_output_folder(dir);
    points_csv = (fs::path(dir) / "comparison.csv").string();
    selection_csv = (fs::path(dir) / "selection.csv").string();
    write_file_atomically(points_csv, comparison_points_csv(c));
    write_file_atomically(selection_csv, comparison_selection_csv(c));
  }

  if (o.has("csv")) {
    std::cout << comparison_points_csv(c);
  } else {
    std::cout << format_comparison(c);
    if (!dir.empty()) std::cout << "\nwrote " << points_csv << " and " << selection_csv << "\n";
  }
  std::cout.flush();

  if (!python) return 0;
  return run_plotting_tool(*python, "plot_compare",
                           {"--points", points_csv, "--selection", selection_csv, "--out", o.text("plots"), "--level",
                            fixed(100 * models::kPredictionLevel, 0)},
                           o.has("csv"));
}

}  // namespace

Command compare_command() {
  return {"compare",
          "collsim compare RESULTS.csv [MORE.csv ...] [--reference ENGINE] [--out DIR] [--plots DIR] [--csv]",
          "predictions vs simulation vs measurements, and the selectors' picks",
          kAbout,
          compare_options(),
          compare,
          true};
}

}  // namespace collsim::cli
