#include "comm/trace.hpp"

namespace collsim {

const char* to_string(TraceKind kind) {
  switch (kind) {
    case TraceKind::post: return "post";
    case TraceKind::complete: return "complete";
    case TraceKind::send_start: return "send_start";
    case TraceKind::arrive: return "arrive";
    case TraceKind::request_done: return "request_done";
  }
  return "?";
}

const char* to_string(TraceProtocol protocol) {
  switch (protocol) {
    case TraceProtocol::none: return "none";
    case TraceProtocol::eager: return "eager";
    case TraceProtocol::rendezvous: return "rendezvous";
    case TraceProtocol::one_sided: return "one_sided";
  }
  return "?";
}

}  // namespace collsim
