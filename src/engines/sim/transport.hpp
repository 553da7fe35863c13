// The message transport of the tcp, shm and ucx protocol profiles (internal to the sim engine): how
// Open MPI's ob1 moves a message between two ranks, fragment by fragment (protocol.hpp says what
// each profile does).
//
// Every ordered pair of ranks has a connection: a FIFO of fragments (headers, data, control
// messages). Its writer starts one host-to-host flow per fragment (SimGrid's Comm::sendto: no
// receiving actor, as a socket needs none), each right behind the previous one's bytes, and,
// between hosts, after the fragments other connections handed to the host's interface before it;
// its reader hands the fragments over in order as their flows end. The ranks' MPI matching is
// done here, on arrival and on posting a receive, in MPI's order, and the ranks' requests are
// completed here; a rank blocked in a wait is woken through its condition variable.
//
// Writers and readers are state machines run by SimGrid's kernel (kernel_events.hpp), not
// actors: a connection costs a few hundred bytes and a fragment one flow and a few events.
// Everything here runs in the kernel: the ranks' calls enter it through a simcall.
//
// Two-sided messages only: one-sided operations (put, get, flush) are RDMA flows that SimComm
// starts itself, under every profile (sim_engine.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u.hpp>

#include "comm/trace.hpp"
#include "engines/sim/kernel_events.hpp"
#include "engines/sim/protocol.hpp"

namespace collsim::sim {

class NodeModel;
class SimComm;
struct Measurement;

class Transport {
 public:
  // hosts[r]: the host of rank r. Uses m.ranks for the ranks' SimComm. `nodes` (may be null)
  // models the inside of the nodes for shm copies.
  Transport(Measurement& m, const Protocols& protocols, std::vector<simgrid::s4u::Host*> hosts,
            const NodeModel* nodes = nullptr);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Called by rank `src`'s actor for its request `request`: a send of `size` bytes whose
  // snapshot is `payload` (owned from now on; may be the no-bytes marker, see `no_bytes`);
  // `message`: its id in a traced run (sim_trace.hpp), else -1; `blocking`: made by a blocking
  // send (UCX takes another rendezvous threshold for it).
  void send(int src, int dst, int tag, std::size_t size, std::byte* payload, std::int64_t request, std::int64_t message,
            bool blocking = false);
  // A receive posted by rank `dst`.
  void recv(int dst, int src, int tag, std::int64_t request);
  // Drops the connections once every rank has returned.
  void shutdown();

  const Protocols& protocols() const { return protocols_; }
  // The profile of messages between ranks a and b (intra when they share a host).
  const ProtocolProfile& profile(int a, int b) const;

 private:
  struct Message;
  struct Fragment;
  struct Connection;
  struct Nic;
  struct InFlight;
  struct Posted {
    int src, tag;
    std::int64_t request;
  };
  // A rank's core under the node model: it makes one copy at a time (node_model.hpp).
  struct Core {
    bool busy = false;
    std::deque<std::function<void()>> waiting;  // copies that wait for it, in order
  };
  struct Socket {  // a pair's tcp socket, when it is set up on first use
    int initiator = 0;
    bool initiator_ready = false, acceptor_ready = false;
  };

  Connection& connection(int from, int to);
  void enqueue(Connection& c, Fragment f);
  // The date `bytes` may start leaving through `nic`, behind what was handed to it before.
  static double reserve(Nic& nic, std::size_t bytes);
  // A rendezvous data fragment takes its place on the interface with its FIN right behind it.
  static void reserve_data(Nic& nic, Fragment& f);
  void open_socket(int initiator, int acceptor);
  void connected(Connection& c);
  // The writer: starts the connection's next fragments as far as the rules let it.
  void pump(Connection& c);
  void start_next(Connection& c);
  void begin_write(Connection& c, const Fragment& f);
  // The core that makes the copy `f` is under the node model (null: none does).
  Core* copier(const Connection& c, const Fragment& f);
  void release(Core& core);
  void await_acceptance(Connection& c, const Fragment& f);
  void finish_write(Connection& c, const Fragment& f);
  // The reader: a flow of the connection has ended; delivers what has arrived in order.
  void flow_ended(Connection& c, std::uint64_t sequence);
  void arrived(Connection& c, Fragment& f);
  void accept_waiting(Connection& c);
  void match_arrival(Message& msg);
  void matched(Message& msg);
  void answer(Message& msg);
  void put_data(Message& msg);
  void data_accepted(Message& msg);
  void deliver_payload(Message& msg);
  void complete_send(Message& msg);
  void complete_recv(Message& msg);
  // Runs `action` now if `rank` is inside MPI, else when its local copy ends.
  void when_in_mpi(int rank, std::function<void()> action);
  // Traced runs: a message event now, at its sender or its receiver.
  void trace(TraceKind kind, const Message& msg, bool at_receiver);
  void let_go_of_events();

  Measurement& m_;
  Protocols protocols_;
  std::vector<simgrid::s4u::Host*> hosts_;
  const NodeModel* nodes_ = nullptr;
  // Under the node model: bytes each rank has received so far, the data its cache may hold
  // (node_model.hpp, fresh data).
  std::vector<double> received_;
  std::vector<Core> cores_;  // by rank, under the node model
  std::unique_ptr<KernelEvents> events_ = std::make_unique<KernelEvents>();
  std::deque<Message> messages_;
  std::vector<std::unique_ptr<Connection>> connections_;                // created on first use
  std::unordered_map<simgrid::s4u::Host*, std::unique_ptr<Nic>> nics_;  // by sending host
  std::unordered_map<std::uint64_t, Connection*> by_pair_;              // key from * 2^32 + to
  std::unordered_map<std::uint64_t, Socket> sockets_;                   // key min * 2^32 + max
  // Per receiving rank, in arrival / post order. Vectors, which allocate nothing while empty (a
  // deque would cost ~600 bytes per rank); matching scans them anyway.
  std::vector<std::vector<Message*>> unexpected_;
  std::vector<std::vector<Posted>> posted_;
};

// The marker a message without bytes (virtual or empty) carries instead of a payload.
std::byte* no_bytes();

}  // namespace collsim::sim
