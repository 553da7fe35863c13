// The test-support library (tests/common/) has one namespace, collsim_test; its helpers use
// collsim's names unqualified. Every helper header includes this one.
#pragma once

namespace collsim {}

namespace collsim_test {
using namespace collsim;
}  // namespace collsim_test
