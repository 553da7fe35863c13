// `collsim explain`'s text: one traced run told step by step in plain words (who sends which
// segment to whom, who waits for what and how long, which protocol a message took and why, when a
// send was done before its data arrived), then its critical path (critical_path.hpp) as a short
// table with the shares of the finish time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "comm/trace.hpp"
#include "experiment/trace/critical_path.hpp"

namespace collsim {

struct ExplainContext {
  // Why a message of `bytes` from `sender` to `receiver` took `protocol`, as a clause ("100 KiB
  // is above tcp's eager limit of 64 KiB"); empty says nothing. Unset: the engine has no
  // protocol, said once at the top.
  std::function<std::string(int sender, int receiver, std::uint64_t bytes, TraceProtocol protocol)> protocol_reason;
  std::string no_protocol =
      "the model has no protocol (no eager or rendezvous): a message leaves when it is posted, or under "
      "--one-port when its ports are free";
  // What a send's completion means on the engine, said once under the first wait for a send that
  // was done before its data arrived (a local completion).
  std::string send_done =
      "a send is done once its data is handed over (its buffer may be reused), which may be before the data has "
      "left or arrived";
};

// The narrative, one line per event worth telling, in time order ("t=12.3 us  rank 0 sends
// segment 2 (8 KiB) to rank 4").
std::string explain_narrative(const std::vector<TraceEvent>& events, const ExplainContext& context);

// The critical path's steps that take time, and its shares in % and seconds.
std::string critical_path_table(const CriticalPath& path, const std::vector<TraceEvent>& events);

}  // namespace collsim
