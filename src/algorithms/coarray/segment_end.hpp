// How a segment of coarray statements ends: the image control statement (Fortran 2018 11.6) the
// origin executes after its statements, and what the other images execute to match it, as Omni
// XcalableMP builds them on MPI-3 (libxmp/src/xmp_coarray_mpi.c; Comm's sync_memory and
// sync_images are those builds):
//  - sync memory: ends the origin's segment only (its puts complete at their targets); no other
//    image takes part. collsim's default, and the only end before `--sync`.
//  - sync all: every image executes it: sync memory, a barrier, sync memory. The barrier is the
//    caller's (SegmentEnd::barrier): Comm::barrier is free in the simulated engines, and a
//    segment's end must cost what its messages cost.
//  - sync images: the origin executes sync images(target) and the target sync images(origin):
//    sync memory, a zero-byte message each way, sync memory. Other images take no part. Under a
//    many-image pattern (pattern.hpp) each image names its targets and sources (`partners`).
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "comm/comm.hpp"

namespace collsim::coarray {

enum class SyncKind { memory = 0, all = 1, images = 2 };  // caf_spec.F90's numbers too
// "memory", "all", "images": the names --sync and the scenario's `sync:` take.
const char* to_string(SyncKind kind);
// The kind named `name`; nullopt for another name.
std::optional<SyncKind> parse_sync(std::string_view name);

struct SegmentEnd {
  SyncKind kind = SyncKind::memory;
  int origin = 0, target = 1;  // ranks: the image that ran the statements and its target
  // sync images' list of this rank when set (a many-image pattern); else origin and target name
  // each other.
  std::optional<std::vector<int>> partners;
  // sync all's barrier among every rank of comm (required for SyncKind::all).
  std::function<Task<>(Comm&)> barrier;
};

// This rank's part of the statement that ends the segment: the origin's (call it once its puts
// have been waited for), or another image's under sync all and sync images (the target's sync
// images(origin); nothing on an image neither origin nor target). Under sync memory only the
// origin calls it.
Task<> sync_statement(Comm& comm, Window w, const SegmentEnd& end);

}  // namespace collsim::coarray
