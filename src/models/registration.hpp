// What registering memory with the network card costs: the kernel pins each page and hands its
// physical address to the NIC (ibv_reg_mr on InfiniBand), so a registration costs a fixed time per
// call plus a time per page it spans. The engines that simulate time charge it to the rank that
// registers (comm.register_memory): the model engine from ModelConfig::registration, the sim engine
// from the platform's host properties (collsim/registration_call, collsim/registration_page,
// collsim/page_size); the mpi engine charges nothing, real MPI registers what it registers.
//
// The defaults are published measurements of ibv_reg_mr with its ibv_dereg_mr (a runtime that
// registers per statement also deregisters), on 4 KiB pages (x86-64 Linux's base page):
//  - per call 20 us: libfabric's verbs;ofi_rxm registering the origin of every RMA operation (one
//    page each) took 21.3 us per operation against 0.49-0.80 us once the registrations were
//    cached (https://github.com/ofiwg/libfabric/pull/12836);
//  - per page 0.5 us: 500 GB registered one region after another in 49.2 s and deregistered in
//    11.8 s, 61.0 s for 122 million 4 KiB pages (https://github.com/kvcache-ai/Mooncake/pull/855);
//    256 GB took more than 20 s to register alone, 0.3 us a page and more
//    (https://github.com/ofiwg/libfabric/issues/4738).
#pragma once

#include <cstddef>

namespace collsim::models {

inline constexpr double kRegistrationCallS = 20e-6;
inline constexpr double kRegistrationPageS = 0.5e-6;
inline constexpr std::size_t kPageBytes = 4096;

struct RegistrationCost {
  double call = kRegistrationCallS;      // s per registration (with its deregistration)
  double per_page = kRegistrationPageS;  // s per page registered
  std::size_t page_size = kPageBytes;    // bytes

  // The pages `bytes` from a page boundary span: ceil(bytes / page_size).
  std::size_t pages(std::size_t bytes) const { return page_size > 0 ? (bytes + page_size - 1) / page_size : 0; }
  // One registration of `bytes` from a page boundary: call + pages * per_page (0 bytes: nothing).
  double time(std::size_t bytes) const { return bytes == 0 ? 0 : call + static_cast<double>(pages(bytes)) * per_page; }
  bool operator==(const RegistrationCost&) const = default;
};

}  // namespace collsim::models
