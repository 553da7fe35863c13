#include "experiment/trace/explanation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "comm/comm.hpp"
#include "support/units.hpp"

namespace collsim {
namespace {

struct Line {
  double time;
  std::size_t order;  // the event's place in the trace, for lines at one time
  std::string text;
};

std::string at(double t) {
  char out[64];
  std::snprintf(out, sizeof out, "t=%-10s ", format_seconds(t).c_str());
  return out;
}

std::string rank(int r) { return "rank " + std::to_string(r); }

using Facts = std::unordered_map<std::int64_t, MessageFacts>;

std::string segment(const Facts& facts, std::int64_t message) {
  const auto it = facts.find(message);
  return "segment " + (it == facts.end() ? std::string("?") : std::to_string(it->second.segment));
}

std::string percent(double part, double whole) {
  char out[32];
  std::snprintf(out, sizeof out, "%5.1f %%", whole > 0 ? 100 * part / whole : 0.0);
  return out;
}

// When each message's data began to leave and when it arrived, and when its send was done.
struct Moves {
  double start = -1, arrive = -1, send_done = -1;
};

std::unordered_map<std::int64_t, Moves> moves_of(const std::vector<TraceEvent>& events) {
  std::unordered_map<std::int64_t, Moves> moves;
  for (const TraceEvent& e : events) {
    if (e.message < 0) continue;
    Moves& m = moves[e.message];
    if (e.kind == TraceKind::send_start) m.start = e.time;
    if (e.kind == TraceKind::arrive) m.arrive = e.time;
    if (e.kind == TraceKind::request_done && e.op == OpKind::isend) m.send_done = e.time;
  }
  return moves;
}

}  // namespace

std::string explain_narrative(const std::vector<TraceEvent>& events, const ExplainContext& context) {
  const Facts numbers = message_facts(events);
  const auto moves = moves_of(events);
  const auto holders = wait_holders(events);
  bool told_send_done = false;
  std::vector<Line> lines;
  std::vector<std::size_t> last_post;                                 // per rank: its pending operation's post
  std::set<std::tuple<int, int, std::uint64_t, TraceProtocol>> told;  // protocols explained
  for (std::size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (e.rank >= static_cast<int>(last_post.size())) last_post.resize(static_cast<std::size_t>(e.rank) + 1, i);
    switch (e.kind) {
      case TraceKind::post: last_post[static_cast<std::size_t>(e.rank)] = i; break;
      case TraceKind::send_start: {
        const std::string what = e.op == OpKind::put   ? " puts "
                                 : e.op == OpKind::get ? " answers a get with "
                                                       : " sends ";
        std::string text =
            rank(e.rank) + what + segment(numbers, e.message) + " (" + format_bytes(e.bytes) + ") to " + rank(e.peer);
        const auto facts = numbers.find(e.message);
        if (facts != numbers.end() && e.op != OpKind::get) {
          const double posted = facts->second.posted;
          const auto moved = moves.find(e.message);
          const double done = e.op == OpKind::isend && moved != moves.end() ? moved->second.send_done : -1;
          // Later than its post by more than rounding (the model computes the start backwards).
          if (posted >= 0 && e.time - posted > 1e-12 * e.time) {
            const bool rendezvous = e.protocol == TraceProtocol::rendezvous;
            text += ", " + format_seconds(e.time - posted) + " after posting it (";
            if (done >= 0 && done < e.time && rendezvous)  // done earlier: handed over, then the interface busy
              text += "the rendezvous: it waited for the receiver until " + format_seconds(done) +
                      ", when its send was done with the data handed over, then for a busy port or link)";
            else if (done >= 0 && done < e.time)
              text += "its send was done at " + format_seconds(done) +
                      " with the data handed over, then its port or link was busy)";
            else
              text += rendezvous ? "the rendezvous: it waited for the receiver)" : "its port or link was busy)";
          }
        }
        lines.push_back({e.time, i, text});
        if (context.protocol_reason && e.protocol != TraceProtocol::none &&
            told.insert({e.rank, e.peer, e.bytes, e.protocol}).second) {
          std::string why = context.protocol_reason(e.rank, e.peer, e.bytes, e.protocol);
          lines.push_back({e.time, i,
                           std::string(12, ' ') + "the message took the " + to_string(e.protocol) + " protocol" +
                               (why.empty() ? "" : ": " + why)});
        }
        break;
      }
      case TraceKind::arrive:
        lines.push_back({e.time, i,
                         segment(numbers, e.message) + " (" + format_bytes(e.bytes) + ") from " + rank(e.peer) +
                             " has arrived at " + rank(e.rank)});
        break;
      case TraceKind::request_done: break;
      case TraceKind::complete: {
        const TraceEvent& p = events[last_post[static_cast<std::size_t>(e.rank)]];
        const double d = e.time - p.time;
        if (p.kind != TraceKind::post || d <= 0) break;
        std::string text = rank(e.rank);
        bool local_completion = false;  // a wait for a send done before its data arrived
        if (e.op == OpKind::copy) {
          text += " copies " + format_bytes(p.bytes) + " locally (" + format_seconds(d) + ")";
        } else if (e.op == OpKind::reduce_local) {
          text += " reduces " + format_bytes(p.bytes) + " locally (" + format_seconds(d) + ")";
        } else if (holders[i] >= 0) {
          const TraceEvent& h = events[static_cast<std::size_t>(holders[i])];
          const bool send = h.op != OpKind::irecv && h.op != OpKind::get;
          if (!send)
            text += " waits for " + segment(numbers, h.message) + " from " + rank(h.peer);
          else
            text += " waits for its send of " + segment(numbers, h.message) + " to " + rank(h.peer);
          text += " (" + format_seconds(d) + ")";
          // A send done before its data arrived: say when the data moved, and once what it means.
          const auto m = moves.find(h.message);
          local_completion = h.op == OpKind::isend && m != moves.end() && m->second.arrive > h.time;
          if (local_completion)
            text += m->second.start > h.time ? ", done before its data leaves at " + format_seconds(m->second.start)
                                             : ", done before its data arrives at " + format_seconds(m->second.arrive);
        } else {
          text += " waits in " + std::string(to_string(e.op)) + " (" + format_seconds(d) + ")";
        }
        lines.push_back({p.time, i, text});
        if (local_completion && !told_send_done) {
          lines.push_back({p.time, i, std::string(12, ' ') + context.send_done});
          told_send_done = true;
        }
        break;
      }
    }
  }
  // Each rank's finish: its last complete.
  std::vector<std::ptrdiff_t> last(last_post.size(), -1);
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].kind == TraceKind::complete)
      last[static_cast<std::size_t>(events[i].rank)] = static_cast<std::ptrdiff_t>(i);
  for (std::size_t r = 0; r < last.size(); ++r)
    if (last[r] >= 0) {
      const TraceEvent& e = events[static_cast<std::size_t>(last[r])];
      lines.push_back({e.time, static_cast<std::size_t>(last[r]), rank(e.rank) + " is done"});
    }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const Line& a, const Line& b) { return a.time != b.time ? a.time < b.time : a.order < b.order; });
  std::string out;
  if (!context.protocol_reason) out += context.no_protocol + ".\n";
  for (const Line& l : lines) out += (l.text.rfind(' ', 0) == 0 ? std::string(13, ' ') : at(l.time)) + l.text + "\n";
  return out;
}

std::string critical_path_table(const CriticalPath& path, const std::vector<TraceEvent>& events) {
  const Facts numbers = message_facts(events);
  std::string out = "critical path (finish " + format_seconds(path.finish) + " on " + rank(path.last_rank) + "):\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-11s %-11s %-10s  %s\n", "from", "to", "share", "step");
  out += line;
  for (const PathStep& s : path.steps) {
    if (s.to <= s.from) continue;
    std::string what;
    const std::string seg = s.message >= 0 ? segment(numbers, s.message) : "";
    switch (s.kind) {
      case PathStep::Kind::transfer:
        what = seg + " (" + format_bytes(s.bytes) + ") " + rank(s.rank) + " -> " + rank(s.peer) +
               (s.protocol != TraceProtocol::none ? std::string(", ") + to_string(s.protocol) : "");
        break;
      case PathStep::Kind::queued:
        what = rank(s.rank) + "'s " + seg + " to " + rank(s.peer) + " waits for a busy port or link";
        break;
      case PathStep::Kind::handshake:
        what = rank(s.rank) + "'s " + seg + " waits for the rendezvous handshake with " + rank(s.peer) +
               " (its receive posted, the answer back)";
        break;
      case PathStep::Kind::handed_over: {
        // A local completion: the send is done, its data handed over (tcp: to the socket buffer).
        what = rank(s.rank) + "'s send of " + seg + " to " + rank(s.peer);
        switch (s.handover) {
          case PathStep::Handover::handshake:
            what +=
                ": the rendezvous handshake (its receive posted, the answer back), then done as the socket buffer "
                "takes its data, before it leaves";
            break;
          case PathStep::Handover::room:
            what +=
                ": room in the socket buffer (or its connection), then done as the buffer takes its data, before "
                "it leaves";
            break;
          case PathStep::Handover::leaving:
            what += s.protocol == TraceProtocol::none
                        ? " is done after the sender's overhead, before its data arrives"
                        : " is done once the rest of its data fits in the socket buffer, before it arrives";
            break;
          default: what += " is done in its post (its data handed over), before its data arrives"; break;
        }
        break;
      }
      case PathStep::Kind::copy: what = rank(s.rank) + " copies " + format_bytes(s.bytes); break;
      case PathStep::Kind::held: what = rank(s.rank) + " held in " + to_string(s.op); break;
      case PathStep::Kind::start: what = rank(s.rank) + " before its first operation"; break;
      default: what = rank(s.rank) + " " + to_string(s.kind); break;
    }
    const char* share = s.shares.waiting > 0                                          ? "waiting"
                        : s.shares.copying > 0                                        ? "copying"
                        : s.kind == PathStep::Kind::transfer || s.shares.transfer > 0 ? "lat+transf"
                                                                                      : "other";
    std::snprintf(line, sizeof line, "  %-11s %-11s %-10s  ", format_seconds(s.from).c_str(),
                  format_seconds(s.to).c_str(), share);
    out += line + what + "\n";  // `what` may be longer than `line`
  }
  out += "shares of the finish time:\n";
  const std::pair<const char*, double> rows[] = {{"latency", path.shares.latency},
                                                 {"transfer", path.shares.transfer},
                                                 {"waiting", path.shares.waiting},
                                                 {"copying", path.shares.copying},
                                                 {"other", path.shares.other}};
  for (auto [name, value] : rows) {
    if (std::abs(value) < 1e-9 * path.finish) value = 0;  // what rounding left in `other`
    std::snprintf(line, sizeof line, "  %-9s %s  %s\n", name, percent(value, path.finish).c_str(),
                  format_seconds(value).c_str());
    out += line;
  }
  return out;
}

}  // namespace collsim
