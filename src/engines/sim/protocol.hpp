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
//  - ucx: Open MPI 4.1's pml ucx over InfiniBand or RoCE between nodes (UCX 1.12-1.15's tagged
//    protocols on rc_mlx5, the transport it picks for a few peers; values from openucx/ucx at
//    tag v1.14.1, file:line below). A payload of N bytes, sent by MPI_Isend:
//      N <= max_short (2038): eager short, 8 + N bytes written into the work request (with the
//        2 KiB of device memory ConnectX-5 and later have: UCT_IB_MLX5_AM_MAX_SHORT,
//        src/uct/ib/mlx5/ib_mlx5.h:128, raised to DM_SIZE 2k, src/uct/ib/mlx5/ib_mlx5.c:36, by
//        src/uct/ib/rc/accel/rc_mlx5_iface.c:229, less the 2-byte rc_mlx5 and 8-byte tag
//        headers, src/uct/ib/rc/base/rc_iface.c:240 and src/ucp/core/ucp_ep.c:2279; 226 without
//        device memory); the send completes at once.
//      up to zcopy_thresh (2153): eager bcopy, the sender copies N bytes into registered
//        buffers at its host's copy rate (memcpy_bw), then 8 + N bytes leave; the send completes
//        once copied.
//      below rndv_thresh (29119): eager zcopy, 8 + N bytes straight from the user's buffer; the
//        send completes when the RC acknowledgement is back, one route latency after the
//        arrival.
//      from rndv_thresh on: rendezvous, get_zcopy scheme (UCX_RNDV_SCHEME auto picks it for host
//        memory, src/ucp/rndv/rndv.c:56): the RTS (58 bytes: ucp_rndv_rts_hdr_t 33,
//        src/ucp/rndv/rndv.h:30, the tag 8 and the packed rkey 17) to the receiver, which once
//        matched (and inside MPI) RDMA-reads the N bytes from the sender's memory: a read request
//        crossing one route latency, then the data coming back, without the sender's CPU; the
//        receive completes when the read is done, and the ATS (9 bytes, ucp_reply_hdr_t,
//        src/ucp/proto/proto_am.h:26) goes back and completes the send.
//    zcopy_thresh and rndv_thresh are UCX's "auto" values (src/ucp/core/ucp_context.c:138-215,
//    computed at start-up from the transport's estimates, src/ucp/core/ucp_ep.c:1938 and :3183):
//    the ones ucx_info -e printed on a ConnectX in openucx/ucx pull request #6162. MPI_Send is
//    not MPI_Isend: Open MPI's blocking send asks for fast completion
//    (ompi/mca/pml/ucx/pml_ucx.c:904 at v4.1.6), for which UCX takes UCX_RNDV_SEND_NBR_THRESH
//    (256 KiB, ucp_context.c:146) as the rendezvous threshold and never zero-copies
//    (src/ucp/tag/tag_send.c:63-76): eager bcopy up to 262143 bytes.
//  - ucx_sm: UCX inside a node (posix shared memory for eager messages, CMA for the rendezvous'
//    single copy), the shm mechanism with UCX's parameters: the sender copies 8 + N bytes into
//    the receiver's FIFO (eager short up to 92 bytes, bcopy above: the same copy) and its send
//    completes once copied; from rndv_thresh (8256 bytes, the FIFO's segment,
//    src/uct/sm/mm/base/mm_iface.c:14, above which UCX's auto threshold falls) a rendezvous:
//    RTS (50 bytes: 33, the tag 8 and a 9-byte rkey), the receiver's single copy
//    (process_vm_readv), ATS (9) back. Blocking sends again up to 262143 bytes eager. (ucx_info
//    -e of UCX 1.13.1 with UCX_TLS=posix,cma: "tag_send: 0..<egr/short>..93..<egr/bcopy>..8256..
//    <rndv>", "tag_send_nbr: ..262144..<rndv>".)
//
// A selection names the profile used between nodes and inside a node: "ideal" (both ideal),
// "tcp" (both tcp, as with Open MPI's --mca btl tcp,self), "tcp+shm" (Open MPI's default on
// Ethernet: tcp between nodes, vader inside a node), "ucx" (Open MPI with pml ucx: ucx between
// nodes, ucx_sm inside one). The default is the platform's `collsim/protocol` host property,
// else "tcp+shm".
//
// Parameters are set, in increasing priority, by their defaults (Open MPI 4.1's), by host
// properties of the platform (`<prop id="collsim/tcp/buffer" value="1MiB"/>`, in a <cluster> for
// all its hosts) and by options "PROFILE/KEY:VALUE" (scenario `sim: protocol_options:`, command
// line --protocol-option). Keys: eager_limit (size; ideal, tcp, shm), buffer (size, tcp),
// send_overhead, recv_overhead and get_overhead (an Overhead, below), sync_overhead and
// yield_overhead (times, every profile),
// connect (tcp: established or first_use),
// interface (tcp: shared or fifo), inline_limit (size, shm), header (size, ideal: bytes every
// message carries besides its payload, 0 by default; SimGrid's SMPI sends 16); ucx and ucx_sm
// take UCX's names: rndv_thresh and rndv_send_nbr_thresh (sizes: the first rendezvous payload
// of MPI_Isend and of MPI_Send), and for ucx max_short and zcopy_thresh (sizes).
//
// Software overheads, as SimGrid's SMPI has them (smpi/os, smpi/or): a rank spends
// send_overhead(N) handing a message of N bytes over before any of it moves, and
// recv_overhead(N) in the call that completes its receive, after the message has arrived; its
// actor is busy meanwhile, so one rank's messages pay them one after another. Both are 0 by
// default (Open MPI's per-message cost is small beside a network's latency; inside a node it is
// not, which a platform states per profile). One-sided operations pay send_overhead too (of their
// bytes; a flush of 0); a get pays get_overhead instead when the profile states it, since a get
// and its wait cost the origin more than a put does on shared memory (validation/coarray-cases.md,
// finding 15), and a win_sync (MPI_Win_sync, half of a coarray's sync memory) costs the
// rank sync_overhead, 0 by default, of the profile inside its node (it orders the rank's own
// window); models/coarray_cost.hpp's F.
//
// Oversubscribed nodes: Open MPI turns mpi_yield_when_idle on when a node runs more processes than
// it has cores (ompi_info: "will default to 1 when oversubscribing nodes"), and a process that then
// polls for progress calls sched_yield each time it finds nothing. On this project's machine (osc
// sm) MPI_Win_flush and MPI_Win_flush_all poll so; MPI_Rput, MPI_Rget, their MPI_Wait and
// MPI_Win_sync do not: forcing the yield slows blocking puts and leaves gets and non-blocking puts
// as they were (validation/coarray-cases.md, finding 21). A rank whose node holds more ranks than
// the node has cores pays yield_overhead, 0 by default, of the profile inside its node, on every
// flush and flush_all. The time slices the waiting processes take meanwhile are not modelled, nor
// the polls of two-sided messages.
//
// tcp connections: by default taken as established, as they are after the warm-up calls of a
// measured run (and as SMPI takes them). With tcp/connect:first_use, a pair's socket opens when
// either side first needs it, as Open MPI's does: a TCP connect (SYN, SYN-ACK), then the
// initiator's 24-byte handshake (process name and magic string) and the acceptor's answer of 24
// bytes; the acceptor's fragments follow its answer, the initiator's wait for it to arrive, and
// eager sends queued meanwhile complete only once written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/overhead.hpp"
#include "models/point_to_point.hpp"

namespace collsim {

// The mechanisms: ideal, tcp (a socket per pair), shm (copies through shared memory and a
// single copy by the receiver: vader, and UCX inside a node) and rdma (UCX over InfiniBand).
enum class ProtocolKind { ideal, tcp, shm, rdma };

// The overhead tables (send_overhead, recv_overhead) are models::Overhead, shared with the model engine.
using models::Overhead;
using models::parse_overhead;

struct ProtocolProfile {
  ProtocolKind kind = ProtocolKind::ideal;
  const char* name = "ideal";  // the parameter set: ideal, tcp, shm, ucx, ucx_sm
  // A payload of at most eager_limit - eager_reserve bytes is eager: ideal fewer bytes than the
  // limit (reserve 1), tcp and shm at most the limit less ob1's largest header (56), ucx and
  // ucx_sm fewer than UCX's rendezvous threshold (1).
  std::size_t eager_limit = 65536;
  std::size_t eager_reserve = 1;
  // ucx, ucx_sm: the eager limit of blocking sends (UCX_RNDV_SEND_NBR_THRESH); 0: eager_limit.
  std::size_t blocking_eager_limit = 0;
  // rdma: eager payloads of non-blocking sends from this size on go zero-copy.
  std::size_t zcopy_limit = SIZE_MAX;
  // Bytes on the wire besides the payload (fixed by the implementation; see the file comment).
  std::size_t eager_header = 0, rndv_bytes = 0, answer_bytes = 0, data_header = 0, fin_bytes = 0;
  std::size_t header = 0;             // ideal: bytes every message carries besides its payload
  std::size_t inline_limit = 0;       // shm, rdma: eager sends of at most this many bytes complete at once
  std::size_t buffer = 0;             // tcp: socket buffer a sender may run ahead of the wire by
  Overhead send_overhead{};           // the sender's, before the message moves
  Overhead recv_overhead{};           // the receiver's, once the message has arrived
  double sync_overhead = 0;           // s a win_sync takes the rank's core (one-sided; see the file comment)
  double yield_overhead = 0;          // s a flush adds on an oversubscribed node (see the file comment)
  bool connect_on_first_use = false;  // tcp: simulate the socket's set-up (see the file comment)
  bool fifo_interface = false;        // tcp: a host's sockets leave through one FIFO (see the file comment)
  // The origin's overhead for a get, in place of send_overhead when set.
  std::optional<Overhead> get_overhead{};

  // The largest eager payload, of a non-blocking send or (`blocking`) of a blocking one.
  std::size_t eager_payload(bool blocking = false) const {
    return (blocking && blocking_eager_limit > 0 ? blocking_eager_limit : eager_limit) - eager_reserve;
  }
  bool is_eager(std::size_t bytes, bool blocking = false) const { return bytes <= eager_payload(blocking); }
  // rdma: whether an eager payload goes zero-copy.
  bool is_zcopy(std::size_t bytes, bool blocking) const { return !blocking && bytes >= zcopy_limit; }
  // Where this profile switches a non-blocking send to its rendezvous, and the control messages
  // that cross before the data then moves (the file comment): ideal none (its rendezvous only
  // waits for the receive), tcp 2 (RNDV, PUT control back), shm 1 (RGET; the receiver copies),
  // rdma 2 (RTS, then the receiver's read request). What follows the data (FIN, ATS) is left out:
  // it completes the send, not the receive. The closed-form formulas price messages by it
  // (models/point_to_point.hpp).
  models::ProtocolSwitch protocol_switch() const;
  // The origin's software overhead of a one-sided operation: a get's get_overhead when the
  // profile states one, else (puts, flushes, and gets by default) send_overhead.
  const Overhead& origin_overhead(bool get) const { return get && get_overhead ? *get_overhead : send_overhead; }
};

// The parameter set named `name` (ideal, tcp, shm, ucx, ucx_sm) with its defaults; nullopt for
// another name.
std::optional<ProtocolProfile> default_profile(const std::string& name);
const char* to_string(ProtocolKind kind);

struct Protocols {
  std::string name;       // "ideal", "tcp", "tcp+shm", "ucx"
  ProtocolProfile inter;  // between ranks on different hosts
  ProtocolProfile intra;  // between ranks of one host
};

// When a send is done under the selection, in a sentence for explanations: tcp and shm may
// complete a send before its data arrives (a local completion), ideal does on arrival.
std::string send_completion(const Protocols& protocols);

// The names accepted for a selection, for help texts: "ideal, tcp, tcp+shm, ucx".
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
