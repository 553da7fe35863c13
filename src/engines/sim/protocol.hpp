// Point-to-point protocol profiles of the sim engine: what happens on the network between an MPI
// send and its receive, and when each side's call completes.
//
//  - ideal: the textbook model collsim started with. Below the eager limit the transfer starts
//    when the send is posted and the send completes when it has arrived; from the limit on the
//    transfer starts once both sides have posted, and both complete when it ends. Messages are
//    independent flows that share links fairly.
//  - tcp: Open MPI's ob1 over the tcp BTL (../shared/reference/openmpi-p2p-protocols.md):
//    one bidirectional socket per pair of ranks, each direction a FIFO in which a fragment starts
//    only when the previous one has been written; every fragment carries its headers. The
//    sockets leaving a host share its link: Linux's TCP small queues let a socket have only about
//    a millisecond of its traffic in the interface's queue at once, so several sockets' large
//    messages leave interleaved, whatever the queueing discipline (measured on the testbed with
//    one FIFO and with a queue per flow: validation/testbed.md). With tcp/interface:fifo they
//    leave one after another instead, in the order they were handed over (the rule collsim used
//    before 2026-12-04, kept for comparison). Those arriving from several hosts share the
//    receiving link. A payload
//    of at most eager_limit - 56 bytes is eager: one fragment of 22 + N bytes, and the send
//    completes once the data is handed to the kernel (after send_overhead), as long as the
//    socket buffer has room for it behind what is still queued. Larger messages use the
//    rendezvous: RNDV (40 bytes) to the receiver; once matched, the receiver answers with a PUT
//    control (64 bytes, on the way back); the sender then writes the data (24 + N) and a FIN
//    (32) behind it. The send completes when the kernel has accepted the data (its tail fits in
//    the socket buffer), the receive when the FIN arrives. A rank answers a RNDV or a PUT control
//    only while it is inside MPI: not during a local copy.
//  - shm: Open MPI's vader BTL between ranks of one node (single copy through CMA). Eager up to
//    eager_limit - 56 bytes (14 + N bytes through shared memory): payloads up to inline_limit
//    complete at once, larger ones when the receiver has taken the fragment. Larger messages:
//    RGET (48 bytes) to the receiver, which, once matched, copies the whole message from the
//    sender's memory in one go and returns a FIN (24 bytes); the send completes on the FIN.
//    Intra-node traffic uses the host's loopback route (a <cluster>'s loopback_bw/loopback_lat).
//
// A selection names the profile used between nodes and inside a node: "ideal" (both ideal),
// "tcp" (both tcp, as with Open MPI's --mca btl tcp,self), "tcp+shm" (Open MPI's default on
// Ethernet: tcp between nodes, vader inside a node). The default is the platform's
// `collsim/protocol` host property, else "tcp+shm".
//
// Parameters are set, in increasing priority, by their defaults (Open MPI 4.1's), by host
// properties of the platform (`<prop id="collsim/tcp/buffer" value="1MiB"/>`, in a <cluster> for
// all its hosts) and by options "PROFILE/KEY:VALUE" (scenario `sim: protocol_options:`, command
// line --protocol-option). Keys: eager_limit (size), buffer (size, tcp), send_overhead and
// recv_overhead (an Overhead, below), connect (tcp: established or first_use), interface (tcp:
// shared or fifo), inline_limit (size, shm), header (size, ideal: bytes every message carries
// besides its payload, 0 by default; SimGrid's SMPI sends 16).
//
// Software overheads, as SimGrid's SMPI has them (smpi/os, smpi/or): a rank spends
// send_overhead(N) handing a message of N bytes over before any of it moves, and
// recv_overhead(N) in the call that completes its receive, after the message has arrived; its
// actor is busy meanwhile, so one rank's messages pay them one after another. Both are 0 by
// default (Open MPI's per-message cost is small beside a network's latency; inside a node it is
// not, which a platform states per profile).
//
// tcp connections: by default taken as established, as they are after the warm-up calls of a
// measured run (and as SMPI takes them). With tcp/connect:first_use, a pair's socket opens when
// either side first needs it, as Open MPI's does: a TCP connect (SYN, SYN-ACK), then the
// initiator's 24-byte handshake (process name and magic string) and the acceptor's answer of 24
// bytes; the acceptor's fragments follow its answer, the initiator's wait for it to arrive, and
// eager sends queued meanwhile complete only once written.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/overhead.hpp"

namespace collsim {

enum class ProtocolKind { ideal, tcp, shm };

// The overhead tables (send_overhead, recv_overhead) are models::Overhead, shared with the model engine.
using models::Overhead;
using models::parse_overhead;

struct ProtocolProfile {
  ProtocolKind kind = ProtocolKind::ideal;
  // ideal: messages of fewer bytes are eager. tcp, shm: a payload of at most eager_limit - 56
  // bytes (ob1's largest header) is eager.
  std::size_t eager_limit = 65536;
  // Bytes on the wire besides the payload (fixed by the implementation; see the file comment).
  std::size_t eager_header = 0, rndv_bytes = 0, answer_bytes = 0, data_header = 0, fin_bytes = 0;
  std::size_t header = 0;             // ideal: bytes every message carries besides its payload
  std::size_t inline_limit = 0;       // shm: eager sends of at most this many bytes complete at once
  std::size_t buffer = 0;             // tcp: socket buffer a sender may run ahead of the wire by
  Overhead send_overhead;             // the sender's, before the message moves
  Overhead recv_overhead;             // the receiver's, once the message has arrived
  bool connect_on_first_use = false;  // tcp: simulate the socket's set-up (see the file comment)
  bool fifo_interface = false;        // tcp: a host's sockets leave through one FIFO (see the file comment)

  // The largest eager payload.
  std::size_t eager_payload() const { return kind == ProtocolKind::ideal ? eager_limit - 1 : eager_limit - 56; }
  bool is_eager(std::size_t bytes) const { return bytes <= eager_payload(); }
};

ProtocolProfile default_profile(ProtocolKind kind);
const char* to_string(ProtocolKind kind);

struct Protocols {
  std::string name;       // "ideal", "tcp", "tcp+shm"
  ProtocolProfile inter;  // between ranks on different hosts
  ProtocolProfile intra;  // between ranks of one host
};

// When a send is done under the selection, in a sentence for explanations: tcp and shm may
// complete a send before its data arrives (a local completion), ideal does on arrival.
std::string send_completion(const Protocols& protocols);

// The names accepted for a selection, for help texts: "ideal, tcp, tcp+shm".
std::string protocol_names();
bool is_protocol_name(const std::string& name);

// The ideal profile's eager limit unless --eager-limit (sim.eager_limit) gives one.
constexpr std::size_t kIdealEagerLimit = 65536;
// Why an eager limit (sim.eager_limit, --eager-limit) cannot be given with the protocol selection
// `protocol` ("" when it can, or when the selection is the platform's, not known yet): it is the
// ideal protocol's; tcp and shm take theirs as protocol options.
std::string eager_limit_problem(const std::string& protocol);

// Resolves a selection. `name` may be empty (then the platform's, else "tcp+shm"); `property`
// looks a host property up across the platform ("" when absent); `options` are "PROFILE/KEY:VALUE".
// `ideal_eager_limit` is the ideal profile's eager limit (the older --eager-limit setting), refused
// when no profile of the selection, the platform's included, is ideal.
// Throws InputError naming the option or property and the problem.
Protocols resolve_protocols(const std::string& name, const std::vector<std::string>& options,
                            std::optional<std::size_t> ideal_eager_limit,
                            const std::function<std::string(const std::string&)>& property);

// Checks one "PROFILE/KEY:VALUE" option; "" when it is well formed, else the problem.
std::string check_protocol_option(const std::string& option);

}  // namespace collsim
