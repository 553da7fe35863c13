#include "engines/sim/sim_trace.hpp"

#include "engines/sim/route.hpp"

namespace collsim::sim {

std::size_t SimTrace::KeyHash::operator()(const Key& k) const noexcept {
  std::uint64_t h = static_cast<std::uint32_t>(k.src);
  h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(k.dst);
  h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(k.tag);
  h = h * 0x9E3779B97F4A7C15ull ^ k.seq;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

std::int64_t SimTrace::message(int src, int dst, int tag, std::uint64_t seq) {
  const auto [it, fresh] = ids_.try_emplace(Key{src, dst, tag, seq}, next_);
  if (fresh) ++next_;
  return it->second;
}

double SimTrace::latency(simgrid::s4u::Host* from, simgrid::s4u::Host* to) {
  auto& row = latency_[from];
  const auto [it, fresh] = row.try_emplace(to, 0.0);
  if (fresh) it->second = route_between(from, to).latency;
  return it->second;
}

SimTrace::Posted SimTrace::take(int rank, std::int64_t request) {
  const auto it = posted_.find(key(rank, request));
  if (it == posted_.end()) return {};
  const Posted p = it->second;
  posted_.erase(it);
  return p;
}

void SimTrace::record(double date, const Event& e) {
  TraceEvent t;
  t.kind = e.kind;
  t.time = date - start_;
  t.latency = e.kind == TraceKind::send_start ? e.latency : -1;
  t.bytes = e.bytes;
  t.message = e.message;
  t.request = e.request;
  t.rank = e.rank;
  t.peer = e.peer;
  t.tag = e.tag;
  t.op = e.op;
  t.protocol = e.protocol;
  sink_.record(t);
}

}  // namespace collsim::sim
