// Model engine configurations the suites share.
#pragma once

#include "common/collsim_test.hpp"
#include "engines/model/model_engine.hpp"

namespace collsim_test {

// LogGP with g above o, and (m-1)G above g from 2.5 KB on: both of LogGP's injection regimes occur.
inline ModelConfig loggp() {
  ModelConfig c;
  c.kind = ModelConfig::Kind::loggp;
  c.loggp.L = 3e-6;
  c.loggp.o = 0.7e-6;
  c.loggp.g = 1.5e-6;
  c.loggp.G = 0.6e-9;
  return c;
}

}  // namespace collsim_test
