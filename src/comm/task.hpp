// Task<T>: the coroutine type every collective algorithm is written as.
//
// Tasks are lazy: nothing runs until the task is co_awaited by another task or started by an
// engine with start(). Awaiting a task runs it at once, inline; if it finishes without
// suspending (always, in the engines whose operations complete synchronously), the awaiting
// coroutine simply continues. If it suspends, the awaiting coroutine suspends too and is resumed
// by the task when it finishes. Neither way relies on the compiler turning resumption into a tail
// call (GCC does not at -O0), so an algorithm looping over thousands of segments, each awaiting
// a sub-task, runs in constant stack. Exceptions thrown inside a task are rethrown in whoever
// awaits it.
#pragma once

#include <coroutine>
#include <exception>
#include <functional>
#include <optional>
#include <utility>

#include "comm/frame_pool.hpp"

namespace collsim {

template <class T = void>
class Task;

namespace detail {

struct PromiseBase {
  // Frames come from the frame pool (see frame_pool.hpp): a million-rank run makes millions.
  static void* operator new(std::size_t bytes) { return frame_pool::allocate(bytes); }
  static void operator delete(void* frame, std::size_t bytes) noexcept { frame_pool::release(frame, bytes); }

  std::coroutine_handle<> continuation;
  std::exception_ptr error;
  // True while the awaiting coroutine runs this task inline and is still on the stack: a task
  // that finishes then must return to it rather than resume it.
  bool running_inline = false;

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> self) noexcept {
      auto& promise = self.promise();
      if (promise.running_inline || !promise.continuation) return std::noop_coroutine();
      return promise.continuation;
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { error = std::current_exception(); }
};

template <class T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <class U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  T take() {
    if (error) std::rethrow_exception(error);
    return std::move(*value);
  }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void take() {
    if (error) std::rethrow_exception(error);
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) noexcept : handle_(h) {}
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { destroy(); }

  bool await_ready() const noexcept { return false; }
  // Returns false (do not suspend) when the task finished inline.
  bool await_suspend(std::coroutine_handle<> awaiting) {
    auto& promise = handle_.promise();
    promise.continuation = awaiting;
    promise.running_inline = true;
    handle_.resume();
    promise.running_inline = false;
    return !handle_.done();
  }
  T await_resume() { return handle_.promise().take(); }

  bool done() const noexcept { return handle_ && handle_.done(); }
  Handle handle() const noexcept { return handle_; }

 private:
  void destroy() {
    if (handle_) handle_.destroy();
    handle_ = {};
  }
  Handle handle_;
};

namespace detail {
template <class T>
Task<T> Promise<T>::get_return_object() noexcept {
  return Task<T>{std::coroutine_handle<Promise<T>>::from_promise(*this)};
}
inline Task<void> Promise<void>::get_return_object() noexcept {
  return Task<void>{std::coroutine_handle<Promise<void>>::from_promise(*this)};
}
}  // namespace detail

// Runs `task` until its first suspension (or to the end). The caller keeps ownership of the task
// and checks done()/result() later; engines whose awaits never suspend see it finished on return.
inline void start(Task<>& task) { task.handle().resume(); }

// Rethrows the exception a finished task ended with, if any.
inline void rethrow_if_failed(const Task<>& task) {
  if (task.handle() && task.handle().promise().error) std::rethrow_exception(task.handle().promise().error);
}

}  // namespace collsim
