#include "comm/comm.hpp"

namespace collsim {

Task<> Comm::send(Buffer data, int dest, int tag) {
  Request r = co_await isend(data, dest, tag);
  co_await wait(r);
}

Task<> Comm::recv(Buffer data, int source, int tag) {
  Request r = co_await irecv(data, source, tag);
  co_await wait(r);
}

Task<> Comm::sendrecv(Buffer send_data, int dest, int send_tag, Buffer recv_data, int source, int recv_tag) {
  Request r = co_await irecv(recv_data, source, recv_tag);
  co_await send(send_data, dest, send_tag);
  co_await wait(r);
}

}  // namespace collsim
