#include "robotouille/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace robotouille {

namespace {

// Spins up to kSpin until done() holds (then true), before a caller blocks on a condition
// variable: waking a blocked thread costs tens of microseconds, as much as a small loop.
constexpr std::chrono::microseconds kSpin{50};

template <typename Done>
bool spin_until(Done&& done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int32_t i = 1;; ++i) {
    if (done()) return true;
    if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return false;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

// [begin, end) of chunk c when n rows are split into `chunks` near-equal contiguous parts.
std::pair<int64_t, int64_t> chunk_range(int64_t n, int32_t chunks, int32_t c) {
  return {n * c / chunks, n * (c + 1) / chunks};
}

}  // namespace

ThreadPool::ThreadPool(int32_t threads, int64_t min_rows_per_thread)
    : min_rows_per_thread_(std::max<int64_t>(1, min_rows_per_thread)) {
  if (threads < 1) throw std::invalid_argument("a thread pool needs at least one thread");
  workers_.reserve(static_cast<size_t>(threads - 1));
  for (int32_t i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run(int64_t n, const Body& body) {
  if (n <= 0) return;
  const int64_t wanted = std::max<int64_t>(1, n / min_rows_per_thread_);
  const auto chunks = static_cast<int32_t>(std::min<int64_t>(threads(), wanted));
  if (chunks == 1) {
    body(0, n);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    body_ = &body;
    rows_ = n;
    chunks_ = chunks;
    pending_.store(chunks - 1, std::memory_order_relaxed);
    error_ = nullptr;
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  std::exception_ptr mine;
  try {
    const auto [begin, end] = chunk_range(n, chunks, 0);
    body(begin, end);
  } catch (...) {
    mine = std::current_exception();
  }
  spin_until([this] { return pending_.load(std::memory_order_acquire) == 0; });
  std::unique_lock<std::mutex> lock(mutex_);
  finished_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
  body_ = nullptr;
  if (mine) std::rethrow_exception(mine);
  if (error_) std::rethrow_exception(error_);
}

void ThreadPool::worker_loop(int32_t index) {
  uint64_t seen = 0;
  for (;;) {
    const Body* body = nullptr;
    int64_t rows = 0;
    int32_t chunks = 0;
    spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; });
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_.load() != seen; });
      if (stopping_) return;
      seen = generation_.load();
      body = body_;
      rows = rows_;
      chunks = chunks_;
    }
    if (index >= chunks) continue;  // this loop uses fewer chunks than there are threads
    std::exception_ptr error;
    try {
      const auto [begin, end] = chunk_range(rows, chunks, index);
      (*body)(begin, end);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (error && !error_) error_ = error;
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) finished_.notify_one();
    }
  }
}

}  // namespace robotouille
