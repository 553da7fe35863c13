// Task<>: results, exceptions, and constant stack when sub-tasks complete inline.
#include <gtest/gtest.h>

#include <coroutine>
#include <stdexcept>

#include "comm/task.hpp"

namespace collsim {
namespace {

Task<int> answer() { co_return 42; }
Task<int> twice() { co_return 2 * co_await answer(); }
Task<> fails() {
  throw std::runtime_error("inside");
  co_return;
}
Task<> calls_failing(bool& caught) {
  try {
    co_await fails();
  } catch (const std::runtime_error&) {
    caught = true;
  }
}

TEST(Task, ReturnsValuesAndPropagatesExceptions) {
  Task<int> t = twice();
  t.handle().resume();
  ASSERT_TRUE(t.done());
  EXPECT_EQ(t.handle().promise().take(), 84);
  bool caught = false;
  Task<> c = calls_failing(caught);
  start(c);
  EXPECT_TRUE(c.done());
  EXPECT_TRUE(caught);
}

Task<> leaf(long& counter) {
  ++counter;
  co_return;
}
Task<> loop(long& counter, long n) {
  for (long i = 0; i < n; ++i) co_await leaf(counter);
}

// A million sub-tasks awaited in a loop: if each awaited-and-finished task left a frame on the
// stack (symmetric transfer without tail calls, as GCC compiles it at -O0) this overflows.
TEST(Task, LoopOfInlineSubtasksRunsInConstantStack) {
  long counter = 0;
  Task<> t = loop(counter, 1'000'000);
  start(t);
  EXPECT_TRUE(t.done());
  EXPECT_EQ(counter, 1'000'000);
}

// A task that suspends: the awaiting coroutine suspends with it and is resumed when it ends.
struct Gate {
  std::coroutine_handle<> waiter;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) noexcept { waiter = h; }
  void await_resume() const noexcept {}
};
Task<> waits_at(Gate& gate, int& stage) {
  stage = 1;
  co_await gate;
  stage = 2;
}
Task<> outer(Gate& gate, int& stage) {
  co_await waits_at(gate, stage);
  stage = 3;
}

TEST(Task, SuspendedSubtaskResumesItsAwaiter) {
  Gate gate;
  int stage = 0;
  Task<> t = outer(gate, stage);
  start(t);
  EXPECT_EQ(stage, 1);
  EXPECT_FALSE(t.done());
  gate.waiter.resume();
  EXPECT_EQ(stage, 3);
  EXPECT_TRUE(t.done());
}

}  // namespace
}  // namespace collsim
