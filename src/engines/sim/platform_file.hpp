// The check of a SimGrid platform file made before SimGrid reads it (internal to the sim engine,
// which every reader of platform files goes through: simulations, the model engine's two-level
// Hockney, calibration, scenarios). SimGrid 3.32 takes some bad files without a word and then
// aborts, crashes or simulates nonsense (a bandwidth of 0, a core speed of 0, a negative
// latency), and reports others in several lines of its parser's state without a column. Here
// each problem is one PlatformError "FILE:LINE:COLUMN: problem", at the element or text at fault.
//
// The file is read with expat. What is checked:
//  - well-formed XML, the DOCTYPE SimGrid requires, the root <platform> and its version (4 to
//    4.1: SimGrid's "too old" and "from the future");
//  - elements, attributes and which element may hold which, as SimGrid's DTD (version 4.1) has
//    them; elements SimGrid removed (<include>, <storage_type>, <storage>, <mount>) and actor
//    deployments (<actor>, <process>: collsim places its own ranks) are refused;
//  - values: speeds and bandwidths positive, latencies 0 or from 1 ns (SimGrid's clock
//    resolution, under which it warns), all finite and with a unit
//    (SimGrid's own unit parsers, xbt/parse_units.hpp, so the same spellings are accepted;
//    SimGrid takes unit-less values with a warning), core counts, radicals, zone routing names,
//    a cluster's topo_parameters (generated_platform.hpp reads them), pstates;
//  - names: hosts, routers, zones and links defined once, and route ends and link_ctn naming
//    something defined (when no <cluster>, <cabinet> or <peer> makes names of its own);
//  - at most kMaxPlatformHosts hosts, at least one;
//  - collsim's host properties: memcpy_bw a bandwidth, collsim/sockets a whole number that
//    divides the host's cores, collsim/protocol and collsim/PROFILE/KEY as protocol.hpp reads
//    them, collsim/registration_call, collsim/registration_page and collsim/copy_overhead times,
//    collsim/page_size, collsim/private_cache and collsim/shared_cache sizes,
//    collsim/uncached_copy_bandwidth a bandwidth or 0, all in a <host> or <cluster> (elsewhere
//    SimGrid gives them to no host).
// What only SimGrid can tell (routes, the values of its <config> options) is checked in the
// simulation process, which names places with the place_of_* functions below.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/registration.hpp"
#include "support/input_error.hpp"

namespace collsim {

// A bad platform file, the message naming its place: "FILE:LINE:COLUMN: problem".
class PlatformError : public InputError {
 public:
  using InputError::InputError;
};

// The most hosts a platform may have, written or generated (collsim platform's limit before it
// was every platform's): a radical of a billion hosts would exhaust memory inside SimGrid.
constexpr long long kMaxPlatformHosts = 1LL << 22;

// What is wrong with a latency of `seconds` for SimGrid ("" if nothing): negative, or below 1 ns,
// the resolution of its clock (surf/precision), under which it warns and rounds.
std::string latency_problem(double seconds);

// A <config> option of the platform (a <prop> in <config>), where it is written.
struct PlatformOption {
  std::string key, value;
  std::string place;  // "FILE:LINE:COLUMN"
};

struct CheckedPlatform {
  std::vector<PlatformOption> options;  // in file order
  // The registration cost the file states (collsim/registration_call, collsim/registration_page,
  // collsim/page_size: the first of each), the defaults for what it does not.
  models::RegistrationCost registration;
};

// Checks the platform file `file`; throws PlatformError ("FILE: cannot open: ..." when it cannot
// be read).
CheckedPlatform check_platform_file(const std::string& file);
// The same for a platform in memory, called `name` in messages.
CheckedPlatform check_platform_text(const std::string& name, std::string_view xml);

// Places in a platform file for what is found once SimGrid has read it: "FILE:LINE:COLUMN" of
// the element that defines host `host` (its <host> or <peer>, or the <cluster> or <cabinet> that
// makes it), of the first <prop id="ID">, of the first element on line
// `line` (column 1 if none starts there); "FILE" when there is no such element.
std::string place_of_host(const std::string& file, std::string_view host);
std::string place_of_property(const std::string& file, std::string_view id);
std::string place_of_line(const std::string& file, long line);

}  // namespace collsim
