#pragma once
// Where the terminal console's data comes from: a ClusterSession (the embedded demo's Backend or
// a RemoteSession), read with blocking calls from the console's loop, plus the event tail: the
// embedded backend's event hub, or a remote watch stream on its own thread, which resumes after
// the last event it saw when the connection comes back. The Feed owns that thread: its
// destructor cancels the stream and joins it, so the thread never outlives what it uses.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "rpc/client.h"
#include "service/backend.h"
#include "state.h"
#include "topology/gpu_catalog.h"

namespace tessera::tui {

// A brief explanation of an unchanged verdict with the last whole answer's node breakdown and
// advice (what the terminal console shows between whole explanations).
Explanation withLastAdvice(Explanation brief, const Explanation& whole);

class Feed {
 public:
  // `backend` for the embedded demo, `remote` for a tesserad; exactly one is set. `catalog` gives
  // the GPU models' MIG geometry.
  Feed(std::shared_ptr<Backend> backend, std::shared_ptr<rpc::RemoteSession> remote,
       const GpuCatalog& catalog = GpuCatalog::builtin());
  ~Feed();
  Feed(const Feed&) = delete;
  Feed& operator=(const Feed&) = delete;

  [[nodiscard]] ClusterSession& session() const;
  // The snapshot, the active jobs, new events and one more history point over `previous`;
  // `explainJob` also gets the engine's explanation: whole when the job is new to the view, when
  // its state or reason changed, or every kWholeExplainEvery; otherwise the brief one (it never
  // waits behind a cycle) over the last whole answer's node breakdown and advice. A failed call
  // keeps the previous values and says why in Data::connection.
  Data fetch(const Data& previous, JobId explainJob);
  static constexpr std::chrono::seconds kWholeExplainEvery{10};
  std::variant<CommandResult, ApiError> act(const Command& c, bool dryRun);
  // Calls `onChange` soon after the engine commits new events (it must not block).
  void watch(std::function<void()> onChange);

 private:
  void explain(Data& d, JobId id);
  void fetchInventory(Data& d);
  std::vector<Event> newEvents(uint64_t after);
  void startRemoteTail(uint64_t after);
  std::shared_ptr<Backend> backend_;
  std::shared_ptr<rpc::RemoteSession> remote_;
  const GpuCatalog& catalog_;
  ClusterSession::CancelWatch cancelWatch_;
  void followRemoteTail(uint64_t after);
  void stopRemoteTail();
  // The remote tail: filled by the watch thread, emptied by fetch().
  struct Tail {
    std::mutex mutex;
    std::condition_variable stopped;  // wakes the thread from its pause between reconnects
    std::deque<Event> events;
    bool stop = false;
    grpc::ClientContext* stream = nullptr;  // the stream being read, cancelled on stop
  };
  Tail tail_;
  std::thread tailThread_;
};

// A session call made synchronous: waits for the reply (at most `seconds`).
template <typename T>
std::variant<T, ApiError> await(const std::function<void(Reply<T>)>& call, double seconds = 15);

}  // namespace tessera::tui
