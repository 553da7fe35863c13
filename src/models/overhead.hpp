// Per-message software overhead: the time a rank's core spends on one message at one end (handing
// it over before it moves, or completing its receive once it has arrived), piecewise linear in the
// message's size, as SimGrid's SMPI takes smpi/os, smpi/or and smpi/ois. Both engines that simulate
// time charge it: the sim engine per protocol profile (engines/sim/protocol.hpp), the model engine
// per message (engines/model/model_engine.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace collsim::models {

// A cost in seconds, piecewise linear in a message's size: "SIZE:BASE:PER_BYTE;..." with sizes
// increasing from 0 (a section holds from its size up to the next one's), or one time for all
// sizes ("2us" = "0:2us:0"). Each value as the command line reads it: 4KiB, 1.5us, 0.1ns.
struct Overhead {
  struct Section {
    std::size_t from = 0;
    double base = 0, per_byte = 0;

    bool operator==(const Section&) const = default;
  };
  std::vector<Section> sections;  // empty: no cost

  double at(std::size_t bytes) const;
  bool empty() const { return sections.empty(); }
  bool operator==(const Overhead&) const = default;
};
// The table of `text`, or nullopt with `problem` set to what is wrong.
std::optional<Overhead> parse_overhead(const std::string& text, std::string& problem);
// The table as parse_overhead reads it back: "0:1e-06:0;65536:5e-06:2e-10" ("0" when empty).
std::string to_string(const Overhead& overhead);

}  // namespace collsim::models
