// A progress line on stderr for a command that can run for more than a few seconds (select at
// thousands of processes, the formula engine calibrating in the model engine), drawn like
// `collsim run`'s: "collsim select: 120/384 predictions, ETA 12s", on a terminal only, once the
// work has taken two seconds (so quick commands print nothing), at most four times a second, and
// erased when it is done, before the command's output.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <string>

namespace collsim::cli {

class ProgressLine {
 public:
  // "collsim select", "predictions"; `on` false (--quiet) draws nothing.
  ProgressLine(std::string what, std::string units, bool on = true)
      : what_(std::move(what)), units_(std::move(units)), on_(on && ::isatty(STDERR_FILENO)) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { clear(); }

  void update(std::size_t done, std::size_t total) {
    if (!on_) return;
    const auto now = Clock::now();
    if (now - start_ < std::chrono::seconds(2) || now - shown_ < std::chrono::milliseconds(250)) return;
    shown_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    std::string line = "\r" + what_ + ": " + std::to_string(done) + "/" + std::to_string(total) + " " + units_;
    if (done > 0 && done < total) {
      const auto eta = std::llround(elapsed * static_cast<double>(total - done) / static_cast<double>(done));
      line += ", ETA " + (eta >= 60 ? std::to_string(eta / 60) + "m" : std::string()) + std::to_string(eta % 60) + "s";
    }
    std::cerr << line << "\033[K" << std::flush;
    drawn_ = true;
  }
  // Erases the line (done before the command prints its results).
  void clear() {
    if (drawn_) std::cerr << "\r\033[K" << std::flush;
    drawn_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_, units_;
  bool on_, drawn_ = false;
  Clock::time_point start_ = Clock::now(), shown_{};
};

}  // namespace collsim::cli
