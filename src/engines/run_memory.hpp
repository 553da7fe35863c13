// The memory a run will take, estimated before it starts, and the limit it must fit in: so that a
// run too large for the machine is refused in one line (exit status 2) instead of exhausting
// memory part-way. Every command that runs points calls check_run_memory before the first one.
//
// The estimate is the payload (every rank's buffers when bytes are real, twice over for the
// algorithms' temporaries and the messages in flight; a program's own figure) plus the engine's
// cost per rank (its records, coroutine frames, request tables; the sim engine's actor stacks),
// measured per engine (tools/bench/README.md, "Memory per rank"). What no per-rank figure bounds
// (an algorithm that posts a message to every rank at once, P^2 in all) is watched while the
// model engine runs: memory_exceeded() is polled every million events.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engines/engine.hpp"
#include "engines/run.hpp"

namespace collsim {

struct RunMemory {
  double payload = 0;  // bytes
  double engine = 0;   // bytes
  double total() const { return payload + engine; }
};

// A formula engine holds nothing per rank; a measured engine's ranks are counted as the model's.
RunMemory estimate_run_memory(Engine engine, const RunSpec& spec);

// The memory runs may take: COLLSIM_MEMORY_LIMIT (a size: 512MiB, 16GiB) when set, else this
// machine's physical memory. InputError when the variable is not a size.
std::uint64_t memory_limit();

// InputError, one line, when `jobs` runs of this estimate at once would not fit memory_limit():
// "bcast/binomial on 1000000000 processes on engine model needs about 240GiB of memory (...),
// more than this machine's 23.4GiB: ...".
void check_run_memory(Engine engine, const RunSpec& spec, int jobs = 1);
// The same for an estimate already made, of the run `what`; `virtual_hint` says how the caller's
// input asks for virtual payloads.
void check_memory(const RunMemory& need, const std::string& what, Engine engine, int jobs = 1,
                  const std::string& virtual_hint = "--payload virtual");

// This process's resident memory now, in bytes (0 where /proc does not tell).
std::uint64_t resident_bytes();
// When the process holds more than memory_limit(): the InputError line for the run `what`;
// else empty.
std::string memory_exceeded(const std::string& what);

// "23.4GiB", "512MiB", "1.25KiB": a size for people, 3 significant digits.
std::string readable_bytes(double bytes);

}  // namespace collsim
