#include "algorithms/coarray/coarray_transfer.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "algorithms/coarray/units.hpp"

namespace collsim::coarray {

namespace {

void check_local(Buffer local, const Section& section) {
  if (local.size() < section.shape().bytes())
    throw std::invalid_argument("coarray transfer: local array of " + std::to_string(local.size()) +
                                " bytes for shape " + section.shape().str() + " (" +
                                std::to_string(section.shape().bytes()) + " bytes)");
}

// Buffer `which` is about to be overwritten: the put that reads it must be done with it.
Task<> release_buffer(Comm& comm, CoarrayContext& ctx, int which = 0) {
  Request& r = ctx.buffer_put[which];
  if (!r.is_null()) co_await comm.wait(r);
  r = Request{};
}

// Where a buffered unit of `bytes` is packed under `mode`, once it may be overwritten; sets
// `which` to the buffer's index (-1: nowait's own copy, tracked with the outstanding puts).
Task<Buffer> buffer_for(Comm& comm, CoarrayContext& ctx, PutMode mode, std::size_t bytes, int& which) {
  if (mode == PutMode::nowait) {
    which = -1;
    if (bytes <= ctx.stage.size() - ctx.stage_used) {
      const Buffer room = ctx.stage.view().slice(ctx.stage_used, bytes);
      ctx.stage_used += bytes;
      co_return room;
    }
    co_return ctx.staged.emplace_back(bytes, ctx.real).view();
  }
  which = 0;
  if (mode == PutMode::double_buffered) {
    which = ctx.next_buffer;
    ctx.next_buffer = 1 - which;
    if (ctx.storage[which].size() == 0) ctx.storage[which] = Storage(ctx.capacity(), ctx.real);
  }
  co_await release_buffer(comm, ctx, which);
  co_return ctx.storage[which].view().slice(0, bytes);
}

// Copies the unit's pieces one after another into the start of the buffer.
Task<> pack(Comm& comm, Buffer buffer, Buffer local, const Unit& unit) {
  std::size_t at = 0;
  for (const Piece& p : unit.pieces) {
    co_await comm.copy(buffer.slice(at, p.bytes), local.slice(p.local, p.bytes));
    at += p.bytes;
  }
}

// Copies the start of the buffer out to the unit's pieces.
Task<> unpack(Comm& comm, Buffer buffer, Buffer local, const Unit& unit) {
  std::size_t at = 0;
  for (const Piece& p : unit.pieces) {
    co_await comm.copy(local.slice(p.local, p.bytes), buffer.slice(at, p.bytes));
    at += p.bytes;
  }
}

Buffer register_span(Buffer local, const Section& local_section) {
  const Touched t = touched(local_section);
  return local.slice(t.offset, t.bytes);
}

Task<> get_and_wait(Comm& comm, Window w, int image, std::size_t offset, Buffer into) {
  Request r = co_await comm.get(w, image, offset, into);
  co_await comm.wait(r);
}

// The two sides of a datatype statement: the remote coarray starts at `remote_offset` of the window.
StridedTransfer datatype_transfer(const Section& local_section, std::size_t remote_offset,
                                  const Section& remote_section) {
  StridedTransfer t{local_section.layout(), remote_section.layout()};
  t.remote.first += static_cast<std::int64_t>(remote_offset);
  return t;
}

Task<> put_datatype(Comm& comm, CoarrayContext& ctx, int image, Buffer local, const Section& local_section,
                    std::size_t remote_offset, const Section& remote_section, PutMode mode) {
  if (local_section.elements() == 0) co_return;
  const StridedTransfer t = datatype_transfer(local_section, remote_offset, remote_section);
  Request put = co_await comm.put_strided(ctx.window, image, local, t);
  if (mode == PutMode::blocking) {
    co_await comm.wait(put);
    co_await comm.flush(ctx.window, image);
  } else {
    ctx.outstanding.push_back(put);
  }
}

Task<> get_datatype(Comm& comm, CoarrayContext& ctx, int image, Buffer local, const Section& local_section,
                    std::size_t remote_offset, const Section& remote_section) {
  if (local_section.elements() == 0) co_return;
  const StridedTransfer t = datatype_transfer(local_section, remote_offset, remote_section);
  Request get = co_await comm.get_strided(ctx.window, image, local, t);
  co_await comm.wait(get);
}

}  // namespace

const char* to_string(RegisterWhen when) { return when == RegisterWhen::once ? "once" : "per-statement"; }

std::optional<RegisterWhen> parse_register_when(const std::string& name) {
  for (const RegisterWhen w : {RegisterWhen::once, RegisterWhen::per_statement})
    if (name == to_string(w)) return w;
  return std::nullopt;
}

std::string heap_problem(const CoarrayOptions& options, std::size_t local_bytes) {
  if (!options.registered || options.registration != RegisterWhen::once) return "";
  const std::size_t need = local_bytes + buffer_capacity(options.buffer_bytes, options.packing);
  if (need <= options.heap_bytes) return "";
  return "the registered local array (" + std::to_string(local_bytes) + " bytes) and the buffer B (" +
         std::to_string(options.buffer_bytes) + ") take " + std::to_string(need) + " bytes of Omni's heap of " +
         std::to_string(options.heap_bytes) +
         " (XMP_ONESIDED_HEAP_SIZE), where Omni stops the program: give a larger --heap, or --registration "
         "per-statement";
}

Touched touched(const Section& section) {
  const std::vector<std::size_t> offsets = section.element_offsets();
  if (offsets.empty()) return {};
  const auto [low, high] = std::minmax_element(offsets.begin(), offsets.end());
  return {*low, *high + section.shape().element_bytes - *low};
}

void CoarrayContext::prepare(PutMode mode, std::size_t staged_bytes) {
  if (mode == PutMode::double_buffered && storage[1].size() == 0) storage[1] = Storage(capacity(), real);
  if (mode == PutMode::nowait && stage.size() < staged_bytes) stage = Storage(staged_bytes, real);
}

Task<> put_section(Comm& comm, CoarrayContext& ctx, int image, Buffer local, const Section& local_section,
                   std::size_t remote_offset, const Section& remote_section, PutMode mode) {
  check_local(local, local_section);
  if (ctx.options.scheme == Method::datatype) {
    check_conformable(local_section, remote_section);
    co_await put_datatype(comm, ctx, image, local, local_section, remote_offset, remote_section, mode);
    co_return;
  }
  const Scheme scheme = choose_scheme(local_section, remote_section, ctx.options.buffer_bytes, ctx.options.registered,
                                      ctx.options.packing);
  if (scheme.dma() && ctx.options.registration == RegisterWhen::per_statement)
    co_await comm.register_memory(register_span(local, local_section));
  const Runs runs(local_section, remote_section);
  for (Units units(scheme, runs); units.next();) {
    const Unit& unit = units.unit();
    Buffer from;
    int which = -1;  // the buffer the put reads, if one
    if (scheme.dma()) {
      from = local.slice(unit.pieces.front().local, unit.bytes);
    } else {
      from = co_await buffer_for(comm, ctx, mode == PutMode::blocking ? PutMode::nonblocking : mode, unit.bytes, which);
      co_await pack(comm, from, local, unit);
    }
    Request put = co_await comm.put(ctx.window, image, remote_offset + unit.remote, from);
    if (mode == PutMode::blocking) {
      co_await comm.wait(put);
      co_await comm.flush(ctx.window, image);
    } else if (which < 0) {
      ctx.outstanding.push_back(put);
    } else {
      ctx.buffer_put[which] = put;
    }
  }
}

Task<> get_section(Comm& comm, CoarrayContext& ctx, int image, Buffer local, const Section& local_section,
                   std::size_t remote_offset, const Section& remote_section) {
  check_local(local, local_section);
  if (ctx.options.scheme == Method::datatype) {
    check_conformable(local_section, remote_section);
    co_await get_datatype(comm, ctx, image, local, local_section, remote_offset, remote_section);
    co_return;
  }
  const Scheme scheme = choose_scheme(local_section, remote_section, ctx.options.buffer_bytes, ctx.options.registered,
                                      ctx.options.packing);
  const bool per_piece = ctx.options.get == GetBehaviour::omni && (scheme.table_case == 2 || scheme.table_case == 3);
  if (scheme.dma() && ctx.options.registration == RegisterWhen::per_statement)
    co_await comm.register_memory(register_span(local, local_section));
  const Runs runs(local_section, remote_section);
  for (Units units(scheme, runs); units.next();) {
    const Unit& unit = units.unit();
    const std::size_t from = remote_offset + unit.remote;
    if (scheme.dma()) {
      co_await get_and_wait(comm, ctx.window, image, from, local.slice(unit.pieces.front().local, unit.bytes));
      continue;
    }
    co_await release_buffer(comm, ctx);
    const Buffer buffer = ctx.storage[0].view();
    if (per_piece) {
      std::size_t at = 0;
      for (const Piece& p : unit.pieces) {
        co_await get_and_wait(comm, ctx.window, image, from + at, buffer.slice(0, p.bytes));
        co_await comm.copy(local.slice(p.local, p.bytes), buffer.slice(0, p.bytes));
        at += p.bytes;
      }
    } else {
      co_await get_and_wait(comm, ctx.window, image, from, buffer.slice(0, unit.bytes));
      co_await unpack(comm, buffer, local, unit);
    }
  }
}

Task<> end_segment(Comm& comm, CoarrayContext& ctx, const SegmentEnd& end) {
  for (Request& r : ctx.buffer_put)
    if (!r.is_null()) ctx.outstanding.push_back(std::exchange(r, Request{}));
  co_await comm.wait_all(ctx.outstanding);
  ctx.outstanding.clear();
  ctx.staged.clear();
  ctx.stage_used = 0;
  co_await sync_statement(comm, ctx.window, end);
}

Task<> put_segment(Comm& comm, CoarrayContext& ctx, std::vector<Destination> to, Buffer local,
                   const Section& local_section, const Section& remote_section, std::size_t nputs, PutMode mode,
                   const SegmentEnd& end) {
  const std::size_t coarray_bytes = remote_section.shape().bytes();
  for (std::size_t i = 0; i < nputs; ++i)
    for (const Destination& d : to)
      co_await put_section(comm, ctx, d.image, local, local_section, d.remote_offset + i * coarray_bytes,
                           remote_section, mode);
  co_await end_segment(comm, ctx, end);
}

Task<> put_segment(Comm& comm, CoarrayContext& ctx, int image, Buffer local, const Section& local_section,
                   std::size_t remote_offset, const Section& remote_section, std::size_t nputs, PutMode mode,
                   const SegmentEnd& end) {
  // Built first: GCC 12 rejects an initializer list inside a co_await's operands.
  std::vector<Destination> to(1, Destination{image, remote_offset});
  co_await put_segment(comm, ctx, std::move(to), local, local_section, remote_section, nputs, mode, end);
}

}  // namespace collsim::coarray
