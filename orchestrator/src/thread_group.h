// Threads started one at a time and joined as they end: the job manager's job runs, a sweep's
// lanes. Start runs a function (move-only captures allowed) on a new thread; JoinEnded joins
// those whose function returned, without waiting for the others; JoinAll waits for all.
//
// Thread safety: none of its own; its owner serialises the calls (the job manager under its
// mutex; a sweep's lanes from the one thread that runs the sweep).
#pragma once

#include <atomic>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

namespace cosimo::orchestrator {

class ThreadGroup {
 public:
  ThreadGroup() = default;
  ThreadGroup(ThreadGroup&&) = default;
  ThreadGroup& operator=(ThreadGroup&&) = default;
  ~ThreadGroup() { JoinAll(); }

  template <typename F>
  void Start(F&& function) {
    auto done = std::make_shared<std::atomic<bool>>(false);
    threads_.push_back({done, std::thread([done, f = std::forward<F>(function)]() mutable {
                          f();
                          done->store(true);  // last thing: JoinEnded joins it without waiting
                        })});
  }

  void JoinEnded() {
    for (auto it = threads_.begin(); it != threads_.end();) {
      if (!it->done->load()) {
        ++it;
        continue;
      }
      it->thread.join();
      it = threads_.erase(it);
    }
  }

  void JoinAll() {
    for (Entry& t : threads_) {
      if (t.thread.joinable()) t.thread.join();
    }
    threads_.clear();
  }

 private:
  struct Entry {
    std::shared_ptr<std::atomic<bool>> done;
    std::thread thread;
  };
  std::vector<Entry> threads_;
};

}  // namespace cosimo::orchestrator
