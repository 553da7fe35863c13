// The trace seam's contract (comm/trace.hpp), checked on the events of one run, the same for
// every engine: the model engine's tests run it on every algorithm, the sim and mpi engines'
// tests on theirs.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "comm/comm.hpp"
#include "comm/trace.hpp"
#include "common/collsim_test.hpp"

namespace collsim_test {

struct TraceExpectations {
  int procs = 1;
  bool messages = true;  // the engine records send_start and arrive (not the mpi engines)
  double slack = 0;      // tolerated clock disagreement between ranks (merged mpi traces)
};

// "" when `events` keep the contract, else the first breach found.
inline std::string trace_contract(const std::vector<TraceEvent>& events, const TraceExpectations& want) {
  auto at = [](const TraceEvent& e) {
    return std::string(to_string(e.kind)) + " " + to_string(e.op) + " on rank " + std::to_string(e.rank) + " at " +
           std::to_string(e.time);
  };
  std::vector<std::vector<const TraceEvent*>> ops(static_cast<std::size_t>(want.procs));
  std::map<std::int64_t, const TraceEvent*> starts, arrivals;
  std::map<std::pair<int, std::int64_t>, std::vector<const TraceEvent*>> posted, done;  // by (rank, request)
  for (const TraceEvent& e : events) {
    if (e.rank < 0 || e.rank >= want.procs) return "rank out of range: " + at(e);
    if (e.time < -want.slack) return "negative time: " + at(e);
    switch (e.kind) {
      case TraceKind::post:
      case TraceKind::complete: ops[static_cast<std::size_t>(e.rank)].push_back(&e); break;
      case TraceKind::send_start:
        if (!want.messages) return "a send_start from an engine that records none: " + at(e);
        if (!starts.emplace(e.message, &e).second) return "two send_starts of message " + std::to_string(e.message);
        break;
      case TraceKind::arrive:
        if (!want.messages) return "an arrive from an engine that records none: " + at(e);
        if (!arrivals.emplace(e.message, &e).second) return "two arrivals of message " + std::to_string(e.message);
        break;
      case TraceKind::request_done: done[{e.rank, e.request}].push_back(&e); break;
    }
  }
  // Per rank, one operation in flight: post, then its complete, no earlier and for the same op.
  for (int r = 0; r < want.procs; ++r) {
    const auto& list = ops[static_cast<std::size_t>(r)];
    double last = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const TraceEvent& e = *list[i];
      const bool is_post = i % 2 == 0;
      if (is_post != (e.kind == TraceKind::post)) return "post and complete do not alternate: " + at(e);
      if (e.time < last) return "operation events go back in time: " + at(e);
      last = e.time;
      if (!is_post && e.op != list[i - 1]->op) return "complete of another op than posted: " + at(e);
      if (is_post && (e.op == OpKind::isend || e.op == OpKind::irecv || e.op == OpKind::put || e.op == OpKind::get))
        posted[{r, e.request}].push_back(&e);
    }
    if (list.size() % 2 != 0) return "rank " + std::to_string(r) + " ends with an operation not completed";
  }
  // Every request posted is done once per post, no earlier than its post (ids are reused).
  for (const auto& [key, posts] : posted) {
    const auto found = done.find(key);
    const std::size_t n = found == done.end() ? 0 : found->second.size();
    if (n != posts.size())
      return "rank " + std::to_string(key.first) + " request " + std::to_string(key.second) + " posted " +
             std::to_string(posts.size()) + " times, done " + std::to_string(n) + " times";
    for (std::size_t i = 0; i < n; ++i)
      if (found->second[i]->time + want.slack < posts[i]->time)
        return "request done before its post: " + at(*found->second[i]);
  }
  if (done.size() != posted.size()) return "a request_done for a request never posted";
  if (!want.messages) return "";
  // Messages: one arrival per start, at the peer, later, the same size; receives done after it.
  for (const auto& [id, s] : starts) {
    const auto a = arrivals.find(id);
    if (a == arrivals.end()) return "message " + std::to_string(id) + " started and never arrived";
    if (a->second->rank != s->peer || a->second->peer != s->rank || a->second->bytes != s->bytes ||
        a->second->tag != s->tag)
      return "message " + std::to_string(id) + " arrived elsewhere, with another size or tag: " + at(*a->second);
    if (a->second->time < s->time) return "message " + std::to_string(id) + " arrived before it started";
  }
  if (arrivals.size() != starts.size()) return "an arrival of a message that never started";
  for (const auto& [key, list] : done)
    for (const TraceEvent* d : list) {
      if (d->op != OpKind::irecv) continue;
      const auto a = arrivals.find(d->message);
      if (a == arrivals.end() || a->second->rank != d->rank) return "a receive done without its message: " + at(*d);
      if (d->time < a->second->time) return "a receive done before its message arrived: " + at(*d);
    }
  return "";
}

}  // namespace collsim_test
