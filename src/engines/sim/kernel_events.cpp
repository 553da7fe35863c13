#include "engines/sim/kernel_events.hpp"

#include <stdexcept>

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/simix.hpp>

namespace collsim::sim {

namespace s4u = simgrid::s4u;
using simgrid::kernel::resource::Action;

namespace {
// The instance the flows' ends go to. SimGrid's signal takes callbacks for the life of the
// process (no way to remove one), so one is connected on first use and forwards to the transport
// of the simulation running now; a process runs one at a time.
KernelEvents* current = nullptr;
}  // namespace

KernelEvents::KernelEvents() {
  static const bool connected = [] {
    s4u::Link::on_communication_state_change_cb([](simgrid::kernel::resource::NetworkAction& action, Action::State) {
      // SimGrid's installed headers declare NetworkAction without its definition; it derives from
      // Action alone (src/kernel/resource/NetworkModel.hpp), which starts it.
      const auto& a = reinterpret_cast<const Action&>(action);
      if (current && (a.get_state() == Action::State::FINISHED || a.get_state() == Action::State::FAILED))
        current->action_changed(a.get_activity());
    });
    return true;
  }();
  (void)connected;
  if (current) throw std::logic_error("KernelEvents: one at a time");
  current = this;
}

KernelEvents::~KernelEvents() {
  if (current == this) current = nullptr;
}

// The flows still moving keep their Comm (SimGrid reports one released before its end): their
// ends reach no one, since this instance is no longer the current one.
void KernelEvents::disarm() {
  disarmed_ = true;
  if (current == this) current = nullptr;
}

void KernelEvents::at(double date, Callback f) {
  ++timers_;
  simgrid::kernel::timer::Timer::set(date, [this, f = std::move(f)] {
    --timers_;
    if (!disarmed_) f();
  });
}

s4u::CommPtr KernelEvents::flow(s4u::Host* from, s4u::Host* to, std::uint64_t bytes, Callback ended) {
  s4u::CommPtr comm = s4u::Comm::sendto_async(from, to, bytes);
  // SimGrid starts a flow of no bytes only when it is waited for (a connection's SYN is one).
  if (comm->get_state() != s4u::Activity::State::STARTED) comm->start();
  pending_.emplace(comm->get_impl(), Pending{comm, std::move(ended)});
  return comm;
}

void KernelEvents::in_kernel(const std::function<void()>& f) {
  simgrid::kernel::actor::simcall_answered([&f] { f(); });
}

void KernelEvents::action_changed(const void* activity) {
  const auto it = pending_.find(activity);
  if (it == pending_.end()) return;  // not ours: a rank's own comm
  ended_.push_back(std::move(it->second));
  pending_.erase(it);
  if (armed_) return;
  armed_ = true;
  at(s4u::Engine::get_clock(), [this] { run_ended(); });
}

// In the order the network model reported them, which is SimGrid's deterministic order.
void KernelEvents::run_ended() {
  armed_ = false;
  if (disarmed_) return;
  retired_.clear();
  std::vector<Pending> batch;
  batch.swap(ended_);
  for (Pending& p : batch) {
    retired_.push_back(std::move(p.comm));
    p.ended();
  }
}

}  // namespace collsim::sim
