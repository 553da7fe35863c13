// Point-to-point patterns the Open MPI algorithms share, written once with Open MPI's exact
// sequence of blocking and non-blocking calls.
#pragma once

#include "comm/comm.hpp"

namespace collsim {

// Open MPI's internal sendrecv (coll/base ompi_coll_base_sendrecv_actual): post the receive,
// send with a *blocking* send, then wait for the receive. (Comm::sendrecv posts both sides
// non-blocking and waits for both; under our engines the completion time is the same, but the
// algorithms call this one to keep Open MPI's call sequence.) Zero-byte sides are still sent.
Task<> exchange(Comm& comm, Buffer send_data, int dest, Buffer recv_data, int source, int tag);

}  // namespace collsim
