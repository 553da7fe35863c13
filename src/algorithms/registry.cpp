#include "algorithms/registry.hpp"

#include <array>

#include "algorithms/bcast.hpp"
#include "algorithms/gather.hpp"

namespace collsim {

std::string_view to_string(Operation op) {
  switch (op) {
    case Operation::bcast: return "bcast";
    case Operation::gather: return "gather";
  }
  return "?";
}

namespace {

template <Task<> (*F)(Comm&, Buffer, const AlgorithmParams&)>
Task<> as_bcast(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, p);
}

template <Task<> (*F)(Comm&, Buffer, Buffer, const AlgorithmParams&)>
Task<> as_gather(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, b.gathered, p);
}

const std::array kAlgorithms{
    AlgorithmInfo{"bcast/binomial", Operation::bcast, 6, true,
                  "binomial tree, segmented pipeline through it (generic tree bcast)",
                  &as_bcast<bcast_binomial>},
    AlgorithmInfo{"gather/basic_linear", Operation::gather, 1, false,
                  "non-roots send; the root receives in rank order",
                  &as_gather<gather_basic_linear>},
};

}  // namespace

std::span<const AlgorithmInfo> all_algorithms() { return kAlgorithms; }

const AlgorithmInfo* find_algorithm(std::string_view name) {
  for (const auto& a : kAlgorithms)
    if (a.name == name) return &a;
  return nullptr;
}

std::string algorithm_names() {
  std::string out;
  for (const auto& a : kAlgorithms) {
    if (!out.empty()) out += ", ";
    out += a.name;
  }
  return out;
}

}  // namespace collsim
