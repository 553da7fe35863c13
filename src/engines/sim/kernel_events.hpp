// Callbacks that run inside SimGrid's kernel (maestro) rather than in actors (internal to the sim
// engine): a date reached, a host-to-host flow ended. The tcp and shm transport is a set of
// per-connection state machines driven by these, so that it costs no actor, no stack and no
// context switch per connection, only an event per fragment.
//
// SimGrid 3.32 has no per-activity completion callback that fires without a waiting actor, so the
// ends of flows are read from Link::on_communication_state_change, which reports every network
// action that changes state, and mapped back to the flow through the action's activity. The
// callback runs while the network model updates its actions, where no flow may be started, so the
// ended flows are handed to their callbacks by a timer at the same date, which the kernel runs
// right after the update, before any actor.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u.hpp>

namespace collsim::sim {

class KernelEvents {
 public:
  using Callback = std::function<void()>;

  KernelEvents();
  ~KernelEvents();
  KernelEvents(const KernelEvents&) = delete;
  KernelEvents& operator=(const KernelEvents&) = delete;

  // Runs `f` at simulated time `date` (not before now), in the kernel.
  void at(double date, Callback f);
  // Starts a flow of `bytes` from `from` to `to` now and runs `ended` in the kernel when it ends.
  // Must be called in the kernel (from a callback, or through in_kernel()).
  simgrid::s4u::CommPtr flow(simgrid::s4u::Host* from, simgrid::s4u::Host* to, std::uint64_t bytes, Callback ended);
  // Runs `f` in the kernel now: directly from a callback, through a simcall from an actor.
  static void in_kernel(const std::function<void()>& f);
  // Whether nothing is due any more: every timer has run and every flow's callback too.
  bool idle() const { return timers_ == 0 && pending_.empty() && ended_.empty(); }
  // From now on, what falls due runs nothing: for a run cut short (a rank failed with fragments
  // still moving), whose callbacks' owner is going. The instance itself must then outlive the
  // simulation (the kernel's timers still refer to it).
  void disarm();

 private:
  void action_changed(const void* activity);
  void run_ended();

  struct Pending {
    simgrid::s4u::CommPtr comm;
    Callback ended;
  };
  std::unordered_map<const void*, Pending> pending_;  // by the flow's kernel activity
  std::vector<Pending> ended_;                        // ended, callbacks not yet run
  // Flows whose callbacks ran: kept one round longer, until the kernel has finished with them (a
  // Comm released before the kernel's own clean-up of it is reported as freed before its end).
  std::vector<simgrid::s4u::CommPtr> retired_;
  bool armed_ = false;  // a timer will run ended_
  bool disarmed_ = false;
  std::size_t timers_ = 0;  // set and not yet run
};

}  // namespace collsim::sim
