#include "algorithms/exchange.hpp"

namespace collsim {

Task<> exchange(Comm& comm, Buffer send_data, int dest, Buffer recv_data, int source, int tag) {
  Request recv = co_await comm.irecv(recv_data, source, tag);
  co_await comm.send(send_data, dest, tag);
  co_await comm.wait(recv);
}

}  // namespace collsim
