#pragma once
// What runs the jobs the engine places. The engine decides; an Executor carries the decisions
// out on a real cluster (Slurm: slurm_executor.h) and reports back what the cluster did on its
// own: jobs that started or ended, nodes it took out or returned. `none` runs nothing: live mode
// without a cluster behind it (dry setups, tests), where jobs end only when cancelled.
//
// All calls come from the backend's engine thread. An executor that cannot reach its cluster
// says so in status() and keeps what it could not do for later; the engine's queue goes on
// accepting work meanwhile.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/ids.h"
#include "core/text.h"
#include "workload/job.h"

namespace tessera {

class Engine;

enum class ExecutorState : uint8_t { None, Ready, Unavailable };
// "none", "ready", "unavailable"
inline const char* executorStateName(ExecutorState s) {
  switch (s) {
    case ExecutorState::Ready:
      return "ready";
    case ExecutorState::Unavailable:
      return "unavailable";
    case ExecutorState::None:
      break;
  }
  return "none";
}

struct ExecutorStatus {
  std::string name = "none";  // "none", "slurm"
  ExecutorState state = ExecutorState::None;
  std::string detail;    // why unavailable ("slurmctld does not answer: ...")
  Seconds lastSync = 0;  // engine time of the last complete observation; 0 = never
  friend bool operator==(const ExecutorStatus&, const ExecutorStatus&) = default;
};

// The cluster's own record of one of the engine's jobs (the Slurm job), as last seen.
struct ExternalJob {
  std::string id;      // the Slurm job id
  std::string state;   // its word: "PENDING", "RUNNING", ...
  std::string reason;  // its reason: "JobHeldUser", "BadConstraints", "None"
  std::vector<std::string> nodes;
  friend bool operator==(const ExternalJob&, const ExternalJob&) = default;
};

// What the cluster did by itself, as the executor observed it.
namespace observed {
struct JobEnded {  // a running job ended
  JobId job = kNoJob;
  bool ok = true;  // completed; else failed (exit code, timeout, node failure, ...)
  Text reason;     // the cluster's words ("Slurm: FAILED, exit code 3")
};
struct JobBounced {  // the cluster refused a placement: the job goes back to pending
  JobId job = kNoJob;
  Text reason;
  // Refused again where it was refused before: the engine, whose view has not changed, would
  // place it there once more, so it is held in the queue until an operator releases it.
  bool hold = false;
};
// A running job's GPUs as the cluster bound them, where they differ from the engine's: GPU
// indices on each of its nodes. Slurm picks among a node's free GPUs of the type for whole GPUs,
// and the lowest GPU with room for a share's gres/shard or an MPS client's gres/mps
// (docs/slurm.md).
struct JobBound {
  JobId job = kNoJob;
  std::vector<std::pair<std::string, std::vector<int>>> gpus;  // node -> GPU indices on it
};
struct JobGone {  // a pending job's cluster side vanished (cancelled outside Tessera)
  JobId job = kNoJob;
  Text reason;
};
// A job submitted straight to the cluster (sbatch), held by Tessera's gate for the engine: the
// job as the executor translated it (team from the user/account mapping, GPUs per task from its
// GRES), or why it cannot be translated.
struct Offer {
  int64_t externalId = 0;
  Job job;
  std::string refusal;  // set: not offered to the engine, refused with this
  // Set when the job already runs in the cluster (it started before Tessera's gate was
  // installed, or someone released it behind Tessera): it is taken in as running where it runs,
  // so the engine never hands out its GPUs, rather than queued.
  struct RunningTask {
    std::string node;
    std::vector<int> gpus;  // the GPU indices it holds on the node, as the cluster bound them
  };
  std::vector<RunningTask> running;
  Seconds started = 0;
};
struct NodeOut {  // the cluster drained it or took it down; returned when `out` is false
  std::string node;
  bool out = true;
  bool down = false;
  Text reason;
};
}  // namespace observed

struct Observations {
  std::vector<observed::JobEnded> ended;
  std::vector<observed::JobBounced> bounced;
  std::vector<observed::JobGone> gone;
  std::vector<observed::Offer> offers;
  std::vector<observed::NodeOut> nodes;
  std::vector<observed::JobBound> bound;
  [[nodiscard]] bool empty() const {
    return ended.empty() && bounced.empty() && gone.empty() && offers.empty() && nodes.empty() &&
           bound.empty();
  }
};

class Executor {
 public:
  virtual ~Executor() = default;
  [[nodiscard]] virtual ExecutorStatus status() const = 0;
  // Whether the cluster could ever run `job` (checked at submit, beside the engine's own
  // checks): a refusal names the field.
  [[nodiscard]] virtual Status admit(const Job& job) const = 0;
  // After each commit: carry out what the engine decided since the last call (started jobs are
  // placed and released, preempted ones requeued, cancelled ones cancelled) and what the
  // engine's node holds ask of the cluster.
  virtual void carryOut(const Engine& engine) = 0;
  // Before a cycle: what the cluster did since the last call.
  virtual Observations observe(const Engine& engine) = 0;
  // The engine's answer to an offer: the job it became, or why it was refused.
  virtual void adopted(int64_t externalId, JobId job) = 0;
  virtual void refused(int64_t externalId, const std::string& why) = 0;
  // The engine was reloaded (a restart, a rollback): everything is carried out afresh.
  // `instance` names the database, so the cluster's records of another one are not this one's.
  virtual void resync(const std::string& instance) = 0;
  [[nodiscard]] virtual std::optional<ExternalJob> job(JobId id) const = 0;
  // How the executor tells its host that observations wait (from any thread): the host then
  // runs a cycle at once instead of at its next interval, so a GPU freed in the cluster is
  // given out again as soon as Slurm's own scheduler would. Set once, before the first call.
  virtual void setWake(std::function<void()> wake) { (void)wake; }
};

// Runs nothing and observes nothing.
class NoExecutor final : public Executor {
 public:
  [[nodiscard]] ExecutorStatus status() const override { return {}; }
  [[nodiscard]] Status admit(const Job&) const override { return okStatus(); }
  void carryOut(const Engine&) override {}
  Observations observe(const Engine&) override { return {}; }
  void adopted(int64_t, JobId) override {}
  void refused(int64_t, const std::string&) override {}
  void resync(const std::string&) override {}
  [[nodiscard]] std::optional<ExternalJob> job(JobId) const override { return std::nullopt; }
};

}  // namespace tessera
