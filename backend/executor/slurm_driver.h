#pragma once
// The Slurm side of "Tessera decides, Slurm runs": what the engine wants of each job and node
// (intents), reconciled against what Slurm says (one squeue --json and one sinfo --json per step),
// with the commands that close the gap and what Slurm did by itself reported back.
//
// Reconciliation is level-based, like a Kubernetes controller: each step compares wants with
// Slurm's state and acts on the difference, so a lost command, a tesserad restart, kill -9
// mid-submit or a slurmctld restart are all just another difference. Jobs are matched by their
// --comment=tessera:<id> tag, never by Slurm job id alone (a crashed controller reuses ids).
//
// Not thread-safe: SlurmExecutor runs it on its own thread.
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ids.h"
#include "executor/mig_apply.h"
#include "service/executor.h"
#include "slurm/slurm_client.h"

namespace tessera {

// What the engine wants of one job on the Slurm side.
struct JobIntent {
  enum class Want : uint8_t {
    Held,    // pending in the engine: held in Slurm (requeued first if it runs there)
    Placed,  // running in the engine: pinned to `nodes` and released
    Ended,   // finished in the engine (cancelled, or seen ending): gone from Slurm too
  };
  JobId job = kNoJob;
  Want want = Want::Held;
  std::vector<std::string> nodes;  // Placed
  // Placed: the engine's GPU indices on each node, compared with what Slurm bound - whole GPUs,
  // or the one GPU of a share or MPS client, whose gres/shard or gres/mps index names it.
  std::map<std::string, std::vector<int>> gpus;
  std::string gres = "gpu";  // the GRES whose indices in gres_detail are those GPUs
  // Which run the engine means: its preemption count. A job preempted and placed again before
  // the driver saw the preemption is still requeued once, then released on its new nodes.
  int run = 0;
  // Jobs submitted through Tessera: how to create their Slurm job when it does not exist yet.
  // Adopted jobs (sbatch'ed by users, held by the gate) have none: their job exists.
  std::optional<slurm::SubmitRequest> submit;
  // Its Slurm job names the placement's devices (exact GPUs): made only once placed, and made
  // again (the old one cancelled) when placed elsewhere.
  bool submitWhenPlaced = false;
  // When the engine placed it (Placed): the start latency is measured from here.
  std::chrono::steady_clock::time_point decidedAt{};
};

// What the engine holds nodes out for (its own holds, not Slurm's), and the nodes whose hold
// for a Slurm drain an operator cleared (resumed in Slurm too).
struct NodeIntents {
  std::map<std::string, std::string> out;  // node -> reason ("tessera: " is prefixed in Slurm)
  std::set<std::string> released;          // accumulated until the driver takes them
  // The engine's maintenance reservations on whole nodes, by their Slurm name
  // (tessera-<instance>-<id>): mirrored as MAINT reservations, so nothing started behind
  // Tessera lands there and `sinfo`/`scontrol show res` show the window.
  std::map<std::string, slurm::ReservationRequest> reservations;
  // Every node with GPUs in MIG mode, as the engine has its layouts now. One that differs from
  // what Slurm was last given is repartitioned: drained, its jobs left to end, the site's hook
  // run on the files, resumed.
  std::map<std::string, MigNodeConfig> mig;
};

// A job a user sbatch'ed, held by Tessera's gate, as Slurm describes it.
struct SlurmOffer {
  int64_t slurmId = 0;
  std::string name, user, account, partition;
  int nodes = 1;
  int gpusPerNode = 0;
  std::string gpuType;     // "h100", "a100_3g.40gb"; empty: untyped
  std::string sharedGres;  // a gres/shard or gres/mps request ("shard:1"); empty: none
  int timeLimitMinutes = 0;
  // Already running (not held): where, with the GPUs Slurm bound, and since when.
  std::vector<slurm::NodeGres> running;
  int64_t startTime = 0;
};

// What one step saw Slurm do by itself.
struct StepReport {
  Observations seen;  // without offers: those are SlurmOffers until the engine thread
  std::vector<SlurmOffer> offers;
  // Seconds from the engine's decision to the first poll that saw the job RUNNING in Slurm, one
  // per job that started since the last step (an upper bound: polls come every interval).
  std::vector<double> startSeconds;
  bool again = false;  // it submitted jobs: poll again now to place them, not after an interval
};

struct SlurmDriverConfig {
  Seconds preemptGrace = 0;  // checkpoint signal, then this long, then requeue
  int preemptSignal = 10;    // SIGUSR1: what checkpointing jobs commonly trap
  bool adopt = true;         // take over jobs users sbatch'ed (held by the gate)
  // poll() reads the full squeue --json at least this often while anything is to watch (idle:
  // only when the light listing shows news); between, the light listing (slurm/squeue_text.h)
  // when it shows nothing the last full view cannot take in.
  Seconds fullPollSeconds = 10;
  // MIG repartitions (docs/slurm.md): the site's command, run as <hook...> <node> <dir> once the
  // node is drained and idle, where <dir> holds mig-parted.yaml, gres.conf and slurm.conf. Empty:
  // the files are written and the node stays held until an operator, having applied them,
  // clears the hold.
  std::vector<std::string> migHook;
  std::string migDir = "tessera-mig";  // where the files go, one directory per node
  std::chrono::milliseconds migHookTimeout{300000};
  // A released job Slurm still leaves pending this long (Resources, Priority, ...: any reason
  // but BadConstraints, bounced at once, and BeginTime, cleared) is held again and bounced back
  // to the engine's queue: the engine counts it running, Slurm does not run it. Slurm starts a
  // job it can run about a second after its release.
  Seconds releaseSettle = 30;
};

class SlurmDriver {
 public:
  SlurmDriver(slurm::SlurmClient& client, SlurmDriverConfig config);

  void want(JobIntent intent);  // replaces the job's earlier intent
  void wantNodes(NodeIntents nodes);
  // The tesserad database's instance: tags are tessera:<instance>.<job>, so the jobs of another
  // database (an old one, a second tesserad) are never taken for this one's.
  void setInstance(std::string instance) { instance_ = std::move(instance); }
  [[nodiscard]] std::string tagOf(JobId job) const { return instance_ + "." + std::to_string(job); }
  // The engine took the adopted Slurm job in as `job` (its comment becomes the tessera tag), or
  // refused it (the comment says why; it stays held and is not offered again).
  void adopted(int64_t slurmId, JobId job);
  void refused(int64_t slurmId, const std::string& why);

  // One full poll (squeue --json, sinfo --json) and reconciliation at wall time `now` (seconds
  // since the epoch). Returns what Slurm did by itself since the last step.
  StepReport step(Seconds now);
  // The same on the light listing where it will do (see takeGlance), else step(): what the
  // executor calls every interval.
  StepReport poll(Seconds now);
  // The intents that changed since the last step, carried out on the last poll's view of Slurm
  // (no poll): for the worker woken by new decisions shortly after a poll.
  StepReport act(Seconds now);
  [[nodiscard]] ExecutorStatus status() const { return status_; }
  // Nothing to watch: no job of the engine's, no live job in Slurm (one could be adopted), no
  // reservation and nothing to tag. Polls may then come less often.
  [[nodiscard]] bool idle() const;
  // The Slurm job the engine's job is, as last seen.
  [[nodiscard]] std::optional<ExternalJob> job(JobId id) const;
  [[nodiscard]] const std::unordered_map<JobId, ExternalJob>& seen() const { return seenJobs_; }

 private:
  struct Tracked {
    JobIntent intent;
    int64_t slurmId = 0;
    Seconds requeueAt = 0;  // a preemption's signal went out; requeue then
    bool signalled = false;
    int releasedRun = -1;        // the run last released in Slurm; -1: none seen yet
    Seconds requeuedAt = 0;      // when it was last requeued (its old run still winds down)
    bool startTimed = false;     // the start of the released run was measured
    std::string boundReported;   // the binding last reported to differ from the engine's
    bool submittedHere = false;  // this process sbatch'ed it (so knows it never ran unseen)
    int lostRuns = 0;            // resubmitted after Slurm lost the job (at most kMaxResubmits)
    int64_t replaced = 0;        // cancelled: made for an earlier placement (submitWhenPlaced)
    Seconds releasedAt = 0;      // when the released run was first seen pending (or released)
    // The placement ("node5", nodes joined) Slurm last left pending past releaseSettle: a second
    // bounce from the same nodes holds the job in the engine (it would be placed there again).
    std::string leftPendingOn;
  };
  const slurm::SlurmJob* current(const Tracked& t) const;
  [[nodiscard]] bool takeGlance(const std::vector<slurm::JobGlance>& glances);
  void reconcileAll(Seconds now, StepReport& report);
  void unavailable(const Error& e);
  void reconcile(JobId id, Tracked& t, Seconds now, Observations& seen, bool& done);
  void reconcileJobs(const std::vector<JobId>& ids, Seconds now, Observations& seen);
  void place(Tracked& t, const slurm::SlurmJob& s, Seconds now, Observations& seen);
  void requeue(Tracked& t, const slurm::SlurmJob& s, Seconds now);
  void compareBinding(Tracked& t, const slurm::SlurmJob& s, Observations& seen);
  void keepHeld(Tracked& t, const slurm::SlurmJob& s, Seconds now);
  void leftPending(Tracked& t, const slurm::SlurmJob& s, Seconds now, Observations& seen);
  void replace(Tracked& t, const slurm::SlurmJob& s);
  [[nodiscard]] std::optional<std::string> unfitPin(const Tracked& t,
                                                    const slurm::SlurmJob& s) const;
  void cancelDuplicates();
  void offerAdoptions(std::vector<SlurmOffer>& offers);
  void reconcileNodes(Observations& seen);
  void reconcileReservations(Seconds now);
  void reconcileMig(Observations& seen);
  [[nodiscard]] bool migPending(const std::string& node) const;
  void returned(const std::string& node, Observations& seen);
  void applyMig(const std::string& node, Observations& seen);
  void failed(const std::string& what, const Error& e);
  void submit(JobId id, Tracked& t);
  [[nodiscard]] bool lostBeforeRunning(const Tracked& t) const;

  slurm::SlurmClient& client_;
  std::string instance_ = "0";
  SlurmDriverConfig config_;
  std::unordered_map<JobId, Tracked> tracked_;
  NodeIntents nodes_;
  // Nodes reported out because Slurm drained them or lost them, with what was reported.
  std::map<std::string, std::string> reportedOut_;
  std::set<std::string> released_;  // cleared by an operator: resume if Slurm still drains
  std::set<std::string> returned_;  // holds this driver ended (their release is not an operator's)
  std::set<int64_t> offered_;       // Slurm jobs offered for adoption (still in squeue)
  // Slurm's tessera-<instance>-* reservations as last read; read again when the wanted ones
  // change (nullopt: read at the next step).
  std::optional<std::set<std::string>> slurmReservations_;
  std::map<std::string, slurm::ReservationRequest> reservationsDone_;  // as last carried out
  std::map<int64_t, std::string> tags_;  // adopted or refused: the comment to set
  // MIG layouts: the signature Slurm's configuration has per node (the first the engine told,
  // then each one applied), and the repartitions under way.
  struct MigWork {
    MigNodeConfig want;
    bool failed = false;  // the hook failed (or there is none): held until an operator clears it
  };
  std::map<std::string, std::string> migApplied_;
  std::map<std::string, MigWork> migWork_;
  // The last poll: the full one, with what light ones saw since patched in.
  slurm::JobsDocument jobs_;
  Seconds lastFull_ = 0;           // when jobs_ was last read whole
  bool glanceUnreadable_ = false;  // the light listing did not parse: full polls only
  slurm::NodesDocument slurmNodes_;
  std::unordered_map<std::string, std::vector<const slurm::SlurmJob*>> byTag_;
  std::unordered_map<JobId, ExternalJob> seenJobs_;
  ExecutorStatus status_{"slurm", ExecutorState::Unavailable, "not polled yet", 0};
  // Filled during a step, handed out with its report.
  std::vector<double> startSeconds_;
  bool again_ = false;
  int submitBudget_ = 0;
  std::set<JobId> dirty_;  // intents changed since the last step
  bool stale_ = false;     // acting on the last poll's view (act), not a fresh one
};

}  // namespace tessera
