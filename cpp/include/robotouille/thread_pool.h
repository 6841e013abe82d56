/*
 * ThreadPool: a fixed set of persistent worker threads that run one data-parallel loop at a time.
 *
 * run(n, body) splits [0, n) into at most `threads` contiguous chunks of near-equal size, runs
 * chunk 0 on the calling thread and the others on the workers, and returns when all are done.
 * Chunk boundaries depend only on n and the thread count, and body must write only the rows of
 * its own chunk, so results never depend on scheduling. Loops smaller than min_rows_per_thread
 * rows per chunk use fewer chunks (waking a thread costs microseconds). Threads that wait (the
 * workers for the next loop, the caller for the workers' chunks) spin up to 50 us before they
 * block, so back-to-back small loops (a search's batches) do not pay a wake-up each.
 *
 * Ownership: the pool owns its threads; the destructor stops and joins them. run() is not
 * reentrant and must be called from one thread at a time (the owner of the batch). An exception
 * thrown by body on any thread is rethrown by run() on the caller after all chunks finished.
 */
#ifndef ROBOTOUILLE_THREAD_POOL_H_
#define ROBOTOUILLE_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace robotouille {

class ThreadPool {
 public:
  using Body = std::function<void(int64_t begin, int64_t end)>;

  // threads >= 1 counts the calling thread: ThreadPool(1) starts no worker.
  explicit ThreadPool(int32_t threads, int64_t min_rows_per_thread = 256);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int32_t threads() const { return static_cast<int32_t>(workers_.size()) + 1; }

  void run(int64_t n, const Body& body);

 private:
  void worker_loop(int32_t index);

  std::vector<std::thread> workers_;
  int64_t min_rows_per_thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  // Written under mutex_: the current loop, its generation and how many worker chunks are left
  // (the last two also read without it, by threads that spin before they block).
  const Body* body_ = nullptr;
  int64_t rows_ = 0;
  int32_t chunks_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int32_t> pending_{0};
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace robotouille

#endif  // ROBOTOUILLE_THREAD_POOL_H_
