#include "experiment/trace/critical_path.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "comm/comm.hpp"
#include "support/units.hpp"

namespace collsim {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// Engines compute some times two ways (the model's send_start is its arrival less the transfer),
// so one instant may differ in its last bits between events: times this close are one time.
double slack(double t) { return 1e-12 * std::abs(t); }

bool is_wait(OpKind op) { return op == OpKind::wait_all || op == OpKind::wait_any; }
// The request of a message's sending end (isend, put) and of its receiving end (irecv, get).
bool sending_end(OpKind op) { return op == OpKind::isend || op == OpKind::put; }

struct MessageEvents {
  std::size_t send_start = kNone, arrive = kNone, done_send = kNone, done_recv = kNone;
};

// The events of one run, indexed for the walk.
class TraceIndex {
 public:
  explicit TraceIndex(const std::vector<TraceEvent>& events) : ev_(events) {
    int procs = 0;
    for (const TraceEvent& e : events) procs = std::max(procs, e.rank + 1);
    ops_.resize(static_cast<std::size_t>(procs));
    done_.resize(static_cast<std::size_t>(procs));
    position_.assign(events.size(), kNone);
    post_of_.assign(events.size(), kNone);
    std::map<std::tuple<int, OpKind, std::int64_t>, std::size_t> latest_post;  // by (rank, op, request)
    for (std::size_t i = 0; i < events.size(); ++i) {
      const TraceEvent& e = events[i];
      if (e.rank < 0) throw TraceContractError("an event without a rank", i);
      const auto r = static_cast<std::size_t>(e.rank);
      switch (e.kind) {
        case TraceKind::post:
          if (e.request >= 0) latest_post[{e.rank, e.op, e.request}] = i;
          [[fallthrough]];
        case TraceKind::complete:
          position_[i] = ops_[r].size();
          ops_[r].push_back(i);
          break;
        case TraceKind::send_start: messages_[e.message].send_start = i; break;
        case TraceKind::arrive: messages_[e.message].arrive = i; break;
        case TraceKind::request_done: {
          done_[r].push_back(i);
          (sending_end(e.op) ? messages_[e.message].done_send : messages_[e.message].done_recv) = i;
          const auto post = latest_post.find({e.rank, e.op, e.request});
          if (e.request >= 0 && post != latest_post.end()) post_of_[i] = post->second;
          break;
        }
      }
    }
    // In time order (stable: at one time, as recorded), for holders' binary searches.
    for (auto& dones : done_)
      std::stable_sort(dones.begin(), dones.end(),
                       [&](std::size_t a, std::size_t b) { return ev_[a].time < ev_[b].time; });
  }

  const TraceEvent& operator[](std::size_t i) const { return ev_[i]; }
  const std::vector<std::size_t>& ops(int rank) const { return ops_[static_cast<std::size_t>(rank)]; }
  // The rank's request_done events in time order (at one time, as recorded).
  const std::vector<std::size_t>& done(int rank) const { return done_[static_cast<std::size_t>(rank)]; }
  std::size_t position(std::size_t i) const { return position_[i]; }
  MessageEvents message(std::int64_t id) const {
    const auto m = messages_.find(id);
    return m == messages_.end() ? MessageEvents{} : m->second;
  }

  // The post of the request that request_done `done` completes: the latest post of that rank's
  // request id recorded before it. (Ids are reused once a request is waited for, so times would
  // not tell: a reused id may be posted at the very instant the old request was done.)
  std::size_t post_of(std::size_t done) const { return post_of_[done]; }
  // The post of the sending end of message `m` (isend, put; get: the origin's post, which asks
  // the target to send).
  std::size_t sender_post(const MessageEvents& m) const {
    if (m.done_send != kNone) return post_of(m.done_send);
    if (m.done_recv != kNone && ev_[m.done_recv].op == OpKind::get) return post_of(m.done_recv);
    return kNone;
  }
  std::size_t receiver_post(const MessageEvents& m) const {
    if (m.done_recv == kNone || ev_[m.done_recv].op != OpKind::irecv) return kNone;
    return post_of(m.done_recv);
  }
  // Where message m's rendezvous handshake starts: the later of its send's post (`post`) and its
  // receive's (the request to send, then the answer once the receive is posted).
  std::size_t handshake_from(const MessageEvents& m, std::size_t post) const {
    const std::size_t recv = receiver_post(m);
    return recv != kNone && ev_[recv].time > ev_[post].time ? recv : post;
  }
  // The complete of the operation posted at `post` (kNone if the rank's events end there).
  std::size_t complete_of(std::size_t post) const {
    const auto& ops = ops_[static_cast<std::size_t>(ev_[post].rank)];
    const std::size_t next = position_[post] + 1;
    return next < ops.size() && ev_[ops[next]].kind == TraceKind::complete ? ops[next] : kNone;
  }
  // Whether message m's send was done before its data began to leave (a tcp send whose data the
  // socket buffer took while the interface was busy): its send_start is then caused by that.
  bool handed_over_before_start(const MessageEvents& m) const {
    return m.done_send != kNone && m.send_start != kNone && ev_[m.done_send].op == OpKind::isend &&
           ev_[m.done_send].time < ev_[m.send_start].time;
  }

 private:
  const std::vector<TraceEvent>& ev_;
  std::vector<std::vector<std::size_t>> ops_;   // per rank: its posts and completes, as recorded
  std::vector<std::vector<std::size_t>> done_;  // per rank: its request_done events
  std::vector<std::size_t> position_;           // an op event's place in its rank's ops_
  std::vector<std::size_t> post_of_;            // a request_done's post_of
  std::unordered_map<std::int64_t, MessageEvents> messages_;
};

// The request_done of `rank` that released the wait `complete` posted at `post` (kNone if none):
// of a request posted before the wait (one posted later may be done at the same instant).
std::size_t holder_of(const TraceIndex& idx, std::size_t post, std::size_t complete) {
  const TraceEvent& e = idx[complete];
  std::size_t holder = kNone;
  const auto& dones = idx.done(e.rank);
  // Those done after the wait's post, up to its complete.
  const auto earlier = [&](double t, std::size_t d) { return t < idx[d].time; };
  const auto first = std::upper_bound(dones.begin(), dones.end(), idx[post].time, earlier);
  const auto end = std::upper_bound(first, dones.end(), e.time, earlier);
  for (auto it = first; it != end; ++it) {
    const std::size_t d = *it;
    const double t = idx[d].time;
    const std::size_t posted = idx.post_of(d);
    if (posted == kNone || idx.position(posted) > idx.position(post)) continue;
    if (holder == kNone || t >= idx[holder].time) holder = d;
  }
  return holder;
}

// The post just before op event `complete` on its rank, kNone when there is none.
std::size_t post_before(const TraceIndex& idx, std::size_t complete) {
  const std::size_t pos = idx.position(complete);
  if (pos == 0) return kNone;
  const std::size_t p = idx.ops(idx[complete].rank)[pos - 1];
  return idx[p].kind == TraceKind::post ? p : kNone;
}

// The step from `cause` at `from` to `effect` at `to` (the walk's times: see critical_path).
PathStep step(PathStep::Kind kind, double from, double to, const TraceEvent& effect) {
  PathStep s;
  s.kind = kind;
  s.from = from;
  s.to = to;
  s.rank = effect.rank;
  s.op = effect.op;
  s.message = effect.message;
  s.bytes = effect.bytes;
  s.protocol = effect.protocol;
  const double d = s.to - s.from;
  switch (kind) {
    case PathStep::Kind::copy: s.shares.copying = d; break;
    case PathStep::Kind::held:
    case PathStep::Kind::queued:
    case PathStep::Kind::handshake: s.shares.waiting = d; break;
    case PathStep::Kind::transfer: s.shares.transfer = d; break;
    default: s.shares.other = d; break;
  }
  return s;
}

// A send's local completion (TraceKind::request_done `done` of message m, before its arrival):
// its cause and what it waited for (critical_path.hpp).
std::pair<std::size_t, PathStep::Handover> handed_over(const TraceIndex& idx, std::size_t done,
                                                       const MessageEvents& m) {
  const TraceEvent& e = idx[done];
  if (m.send_start != kNone && !idx.handed_over_before_start(m)) return {m.send_start, PathStep::Handover::leaving};
  const std::size_t post = idx.sender_post(m);
  if (post == kNone) return {kNone, PathStep::Handover::none};
  if (e.protocol == TraceProtocol::rendezvous) return {idx.handshake_from(m, post), PathStep::Handover::handshake};
  // Done after the rank had left the send's call: the socket buffer had no room (or the
  // connection was not open yet) until then.
  const std::size_t left = idx.complete_of(post);
  return {post, left != kNone && e.time > idx[left].time ? PathStep::Handover::room : PathStep::Handover::at_post};
}

[[noreturn]] void broken(const std::string& what, std::size_t at) { throw TraceContractError(what, at); }

// The run's last complete: where its critical path ends (kNone without any).
std::size_t last_complete(const std::vector<TraceEvent>& events) {
  std::size_t last = kNone;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (e.kind == TraceKind::complete && (last == kNone || e.time > events[last].time)) last = i;
  }
  return last;
}

// What caused an event on the path: the event before it on the chain (kNone for the first post of
// a rank, where the chain starts), the kind of step between, and for a send's local completion
// what it waited for.
struct Cause {
  Cause(std::size_t e = kNone, PathStep::Kind k = PathStep::Kind::local,
        PathStep::Handover h = PathStep::Handover::none)
      : event(e), kind(k), handover(h) {}
  std::size_t event;
  PathStep::Kind kind;
  PathStep::Handover handover;
};

// A complete: its post, or what released it (a wait's request, a barrier's peers).
Cause cause_of_complete(const TraceIndex& idx, std::size_t cur) {
  const TraceEvent& e = idx[cur];
  const std::size_t post = post_before(idx, cur);
  if (post == kNone) broken("a complete of rank " + std::to_string(e.rank) + " without its post", cur);
  Cause c{post, e.op == OpKind::copy ? PathStep::Kind::copy : PathStep::Kind::local};
  if (e.time > idx[post].time) {
    if (is_wait(e.op)) {
      const std::size_t holder = holder_of(idx, post, cur);
      if (holder != kNone) {
        c.event = holder;
        c.kind = PathStep::Kind::wait;
      } else {
        c.kind = PathStep::Kind::held;
      }
    } else if (e.op != OpKind::copy && e.op != OpKind::isend && e.op != OpKind::irecv) {
      c.kind = PathStep::Kind::held;  // barrier, flush, window synchronisation
    }
  }
  return c;
}

// A request_done: a receive's data arriving, or a send's delivery or local completion.
Cause cause_of_request_done(const TraceIndex& idx, std::size_t cur) {
  const TraceEvent& e = idx[cur];
  const MessageEvents m = idx.message(e.message);
  Cause c;
  if (!sending_end(e.op)) {  // irecv, get: the data is here
    const std::size_t post = e.op == OpKind::irecv ? idx.receiver_post(m) : kNone;
    if (m.arrive != kNone && (post == kNone || idx[m.arrive].time >= idx[post].time)) {
      c = {m.arrive, PathStep::Kind::delivered};
    } else if (m.arrive != kNone) {
      c = {post, PathStep::Kind::delivered};
    } else {  // mpi: the later of the two posts, and the transfer between
      const std::size_t sent = idx.sender_post(m);
      c = {sent == kNone || (post != kNone && idx[post].time > idx[sent].time) ? post : sent, PathStep::Kind::transfer};
    }
  } else if (m.arrive != kNone && idx[m.arrive].time <= e.time) {
    c = {m.arrive, PathStep::Kind::delivered};
  } else if (m.send_start == kNone && m.arrive == kNone) {  // mpi: the transfer from its post
    c = {idx.sender_post(m), PathStep::Kind::transfer};
  } else {  // done before its data arrived
    std::tie(c.event, c.handover) = handed_over(idx, cur, m);
    c.kind = PathStep::Kind::handed_over;
  }
  if (c.event == kNone) broken("request_done of message " + std::to_string(e.message) + " without its cause", cur);
  return c;
}

// A send_start: its post, a busy port or link after a hand-over, or a rendezvous handshake.
Cause cause_of_send_start(const TraceIndex& idx, std::size_t cur) {
  const TraceEvent& e = idx[cur];
  const MessageEvents m = idx.message(e.message);
  Cause c{idx.sender_post(m), PathStep::Kind::queued};
  if (c.event == kNone) broken("send_start of message " + std::to_string(e.message) + " without its post", cur);
  if (e.op == OpKind::get) {
    c.kind = PathStep::Kind::transfer;  // the request's way to the target: latency
  } else if (idx.handed_over_before_start(m)) {
    c.event = m.done_send;  // handed over, then the port or link was busy
  } else if (e.time > idx[c.event].time && e.protocol == TraceProtocol::rendezvous) {
    c.kind = PathStep::Kind::handshake;
    c.event = idx.handshake_from(m, c.event);
  }
  return c;
}

Cause cause_of(const TraceIndex& idx, std::size_t cur) {
  const TraceEvent& e = idx[cur];
  switch (e.kind) {
    case TraceKind::complete: return cause_of_complete(idx, cur);
    case TraceKind::post: {
      const std::size_t pos = idx.position(cur);
      if (pos == 0) return {kNone, PathStep::Kind::start};
      return {idx.ops(e.rank)[pos - 1], PathStep::Kind::local};
    }
    case TraceKind::request_done: return cause_of_request_done(idx, cur);
    case TraceKind::arrive: {
      const std::size_t start = idx.message(e.message).send_start;
      if (start == kNone) broken("arrive of message " + std::to_string(e.message) + " without its send_start", cur);
      return {start, PathStep::Kind::transfer};
    }
    case TraceKind::send_start: return cause_of_send_start(idx, cur);
  }
  return {};
}

// The step from `cause` at `then` to event `e` at `now`: who sent to whom, and its time split
// into shares.
PathStep chain_step(const TraceIndex& idx, const TraceEvent& e, const Cause& cause, double then, double now) {
  const TraceEvent& c = idx[cause.event];
  PathStep s = step(cause.kind, then, now, e);
  switch (e.kind) {
    case TraceKind::arrive:  // the transfer: from the sender to this rank
      s.rank = e.peer;
      s.peer = e.rank;
      if (c.latency >= 0) {
        s.shares.latency = std::min(c.latency, s.to - s.from);
        s.shares.transfer = s.to - s.from - s.shares.latency;
      }
      s.protocol = c.protocol;
      break;
    case TraceKind::send_start:
      s.peer = e.peer;
      if (cause.kind == PathStep::Kind::transfer) {  // get: the request on its way
        s.shares.latency = s.shares.transfer;
        s.shares.transfer = 0;
      }
      break;
    case TraceKind::request_done:
      if (cause.kind == PathStep::Kind::transfer && !sending_end(e.op)) {  // mpi: from the sender to this rank
        s.rank = e.peer;
        s.peer = e.rank;
        break;
      }
      s.peer = e.peer;
      if (cause.kind == PathStep::Kind::handed_over) {
        s.handover = cause.handover;
        s.shares = {};
        const double d = s.to - s.from;
        if (cause.handover == PathStep::Handover::room || cause.handover == PathStep::Handover::handshake) {
          s.shares.waiting = d;
        } else if (cause.handover == PathStep::Handover::leaving && e.protocol != TraceProtocol::none) {
          // Its first bytes on the wire (the model's protocol-less LogGP: the sender's overhead).
          s.shares.latency = c.latency >= 0 ? std::min(c.latency, d) : 0;
          s.shares.transfer = d - s.shares.latency;
        } else {
          s.shares.other = d;
        }
      }
      break;
    case TraceKind::complete:
      s.peer = c.kind == TraceKind::request_done ? c.peer : e.peer;
      if (c.kind == TraceKind::request_done) {
        s.message = c.message;
        s.bytes = c.bytes;
      }
      break;
    default: break;
  }
  return s;
}

// The path's shares: its steps' sums, with `other` what they leave of [0, finish].
PathShares tiled_shares(const std::vector<PathStep>& steps, double finish) {
  PathShares sum;
  for (const PathStep& s : steps) {
    sum.latency += s.shares.latency;
    sum.transfer += s.shares.transfer;
    sum.waiting += s.shares.waiting;
    sum.copying += s.shares.copying;
  }
  // The steps tile [0, finish]; what rounding leaves of the telescoping sum goes to other.
  // When other is more than half the finish (LogGP's overheads on a path of small messages),
  // x + (f - x) can miss f by an ulp, and no value of other then hits f: the largest of the other
  // shares but copying (the copy steps' time, exactly) moves by ulps until one does, so that the
  // shares add up to the finish exactly.
  double* largest = &sum.latency;
  for (double* share : {&sum.transfer, &sum.waiting})
    if (*share > *largest) largest = share;
  for (int i = 0; i < 16; ++i) {
    sum.other = finish - (sum.latency + sum.transfer + sum.waiting + sum.copying);
    if (sum.total() == finish) break;
    *largest = std::nextafter(*largest, sum.total() < finish ? HUGE_VAL : -HUGE_VAL);
  }
  return sum;
}

}  // namespace

CriticalPath critical_path(const std::vector<TraceEvent>& events) {
  CriticalPath path;
  const TraceIndex idx(events);
  std::size_t cur = last_complete(events);
  if (cur == kNone) return path;
  path.finish = events[cur].time;
  path.last_rank = events[cur].rank;

  std::vector<PathStep> back;  // from the finish backwards
  // The current event's time on the chain: its own, or its effect's when it is later by rounding
  // only, so that the steps follow each other without gaps or overlaps.
  double now = path.finish;
  std::vector<bool> visited(events.size(), false);
  // Each step goes to an event no later than the current one; `visited` stops a malformed trace.
  for (;;) {
    const TraceEvent& e = events[cur];
    if (visited[cur]) broken("its events cause each other in a cycle (rank " + std::to_string(e.rank) + ")", cur);
    visited[cur] = true;
    const Cause cause = cause_of(idx, cur);
    if (cause.event == kNone) {  // the rank's first post: the chain starts at 0
      if (now > 0) back.push_back(step(PathStep::Kind::start, 0, now, e));
      break;
    }
    const TraceEvent& c = idx[cause.event];
    if (c.time > now + slack(now))
      broken("an event caused by a later one (" + std::string(to_string(e.kind)) + " of rank " +
                 std::to_string(e.rank) + " at " + format_real(e.time) + " s, after " + to_string(c.kind) +
                 " of rank " + std::to_string(c.rank) + " at " + format_real(c.time) + " s)",
             cur);
    const double then = std::abs(now - c.time) <= slack(now) ? now : c.time;
    back.push_back(chain_step(idx, e, cause, then, now));
    cur = cause.event;
    now = then;
  }
  path.steps.assign(back.rbegin(), back.rend());
  path.shares = tiled_shares(path.steps, path.finish);
  return path;
}

std::vector<std::ptrdiff_t> wait_holders(const std::vector<TraceEvent>& events) {
  const TraceIndex idx(events);
  std::vector<std::ptrdiff_t> out(events.size(), -1);
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].kind != TraceKind::complete || !is_wait(events[i].op)) continue;
    const std::size_t post = post_before(idx, i);
    if (post == kNone || events[i].time <= events[post].time) continue;
    const std::size_t holder = holder_of(idx, post, i);
    if (holder != kNone) out[i] = static_cast<std::ptrdiff_t>(holder);
  }
  return out;
}

std::unordered_map<std::int64_t, MessageFacts> message_facts(const std::vector<TraceEvent>& events) {
  const TraceIndex idx(events);
  std::unordered_map<std::int64_t, MessageFacts> facts;
  // (sender, receiver, tag) -> the messages, keyed by the sender's post (its place in the events).
  std::map<std::tuple<int, int, int>, std::vector<std::pair<std::size_t, std::int64_t>>> streams;
  for (const TraceEvent& e : events) {
    if (e.message < 0 || facts.count(e.message)) continue;
    MessageFacts& f = facts[e.message];
    const MessageEvents m = idx.message(e.message);
    const std::size_t post = idx.sender_post(m);
    if (m.send_start != kNone) {
      f.sender = idx[m.send_start].rank;
      f.receiver = idx[m.send_start].peer;
      f.tag = idx[m.send_start].tag;
    } else if (m.done_send != kNone) {
      f.sender = idx[m.done_send].rank;
      f.receiver = idx[m.done_send].peer;
    }
    if (post != kNone) {
      f.posted = idx[post].time;
      if (idx[post].op != OpKind::get) f.tag = idx[post].tag;
    }
    streams[{f.sender, f.receiver, f.tag}].push_back({post == kNone ? events.size() : post, e.message});
  }
  for (auto& [key, messages] : streams) {
    std::sort(messages.begin(), messages.end());
    for (std::size_t i = 0; i < messages.size(); ++i) facts[messages[i].second].segment = static_cast<int>(i);
  }
  return facts;
}

const char* to_string(PathStep::Kind kind) {
  switch (kind) {
    case PathStep::Kind::start: return "start";
    case PathStep::Kind::local: return "local";
    case PathStep::Kind::copy: return "copy";
    case PathStep::Kind::held: return "held";
    case PathStep::Kind::wait: return "wait";
    case PathStep::Kind::queued: return "queued";
    case PathStep::Kind::handshake: return "handshake";
    case PathStep::Kind::transfer: return "transfer";
    case PathStep::Kind::delivered: return "delivered";
    case PathStep::Kind::handed_over: return "handed over";
  }
  return "?";
}

}  // namespace collsim
