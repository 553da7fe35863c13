// Memory for coroutine frames, and for the other small blocks every rank holds (its request
// table): per-thread free lists by size class, carved from large slabs.
//
// The model engine holds one suspended coroutine chain per rank, so a run of 2^20 ranks makes
// millions of frame allocations. General-purpose malloc spends most of that time in its own
// bookkeeping and in page faults; bump allocation from slabs (2 MiB, doubling up to 128 MiB)
// backed by transparent huge pages, with exact-size free lists for reuse, makes frames cheap.
// Slabs are never returned to the system (a process runs one experiment), so a block stays valid
// memory for the life of the process: one freed on another thread than the one that allocated it
// (the model engine creates frames on two threads and runs and frees them on one) simply joins
// the freeing thread's list.
//
// Under AddressSanitizer frames come from plain operator new, so ASan still sees every frame.
#pragma once

#include <cstddef>

namespace collsim::frame_pool {

void* allocate(std::size_t bytes);
void release(void* frame, std::size_t bytes) noexcept;

}  // namespace collsim::frame_pool
