#pragma once
// What a console or a script can ask of a running scheduler, in engine value types and with no
// transport in sight: the in-process Backend (tesserad's core, also embeddable) and the gRPC
// client (RemoteSession) implement the same interface, so the console switches between an
// embedded engine and a remote tesserad without widget changes.
//
// Calls are asynchronous: the reply callback runs once, on a thread of the implementation's
// choosing (the Backend's engine thread after the batch committed; the client's thread). A
// reply is never given before the change it reports is durable.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "report/report.h"
#include "scheduler/command.h"
#include "scheduler/explain.h"
#include "service/executor.h"
#include "store/metric_store.h"
#include "store/state_store.h"

namespace tessera {

// Who is calling: written to the audit log as the actor of what they apply.
struct Caller {
  std::string name = "local";
};

struct PlacedTask {
  std::string node;
  std::vector<int> gpus;  // local indexes
  int migStart = -1;
};

// A job as the API shows it: its stored row plus what only the live engine knows.
struct JobInfo {
  JobRow row;
  int priority = 0;
  int queuePosition = 0;  // 1 = next; 0 = not pending
  std::optional<Seconds> eta;
  std::string blockedBy;
  std::vector<PlacedTask> placement;
  std::optional<ExternalJob> external;  // its Slurm job (executor slurm), as last seen
};

struct JobPage {
  std::vector<JobInfo> jobs;
  JobId nextAfter = 0;  // pass as JobFilter::afterId for the next page; 0 = no more
};

struct GpuView {
  int index = 0;
  std::string model;
  std::string sharing;    // exclusive, mig, shared (time-sliced), mps
  std::string migLayout;  // busy instances marked
  struct Occupant {
    JobId job = kNoJob;
    int milli = 1000;  // an MPS client: its active-thread percentage x 10
    std::string migProfile;
    std::string team;   // the job's team (the heatmap's "owning team" layer)
    int migStart = -1;  // MIG: the instance's first memory slice (an MPS client: its server's)
    // An MPS client: the limits its server enforces, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE and
    // CUDA_MPS_PINNED_DEVICE_MEM_LIMIT; 0 = not an MPS client.
    int mpsThreads = 0;
    int64_t mpsMemoryMiB = 0;
    [[nodiscard]] bool mps() const { return mpsThreads > 0; }
  };
  std::vector<Occupant> occupants;
  // The GPU's MPS servers (one on the GPU, or one per MIG instance); none: it runs no MPS.
  struct Mps {
    int clientLimit = 0;     // clients one server accepts (the architecture's limit)
    int threadBudget = 100;  // active-thread percentage one server hands out in all
    MpsCoLocation coLocation = MpsCoLocation::Team;
    // One: the node's MPS GPUs take new clients on one GPU at a time (Slurm's one_sharing);
    // of the GPU's own server only (MIG instances' servers are not under it).
    MpsNodeSharing nodeSharing = MpsNodeSharing::All;
  };
  std::optional<Mps> mps;
  double allocated = 0;
  std::optional<double> util;
  std::optional<double> smActive;
  std::optional<double> tensorActive;  // fraction of cycles the tensor pipes were busy
  std::optional<double> memoryUsed;    // framebuffer used / framebuffer held
  std::optional<double> power;         // power draw / board power limit
  std::optional<double> temperatureC;  // GPU temperature, °C
  std::string nvlinkDomain;
  int numa = -1;  // the GPU's NUMA zone (NumaZone::id) from the hardware; -1 = unknown
  // A hardware fault that took the GPU out (an Xid error), until it is repaired.
  struct Fault {
    int xid = 0;
    std::string message;  // dcgm-exporter's err_msg ("GPU has fallen off the bus")
    Seconds since = 0;
    std::optional<Seconds> until;  // expected repair; none = unknown
  };
  std::optional<Fault> fault;
};

// One reason a node is out, with whose it is (scheduler/node_holds.h).
struct NodeHoldView {
  std::string owner;  // operator, failure, gpu-fault, mig-reconfigure, executor, inventory
  std::string gpu;    // gpu-fault, mig-reconfigure and inventory: the GPU ("pod-a-02/3")
  Text reason;
  bool down = false;
  Seconds since = 0;
  friend bool operator==(const NodeHoldView&, const NodeHoldView&) = default;
};

struct NodeView {
  std::string name;
  std::string state;  // up, draining, down
  Text stateReason;   // why it is not up: an operator's words, or a fault's sentence
                      // ("psu", "Xid 79 on GPU pod-a-02/3")
  std::string pool;
  std::string leaf;
  std::string spine;
  std::vector<GpuView> gpus;
  std::vector<NodeHoldView> holds;  // every owner's, oldest first; stateReason is derived
};

struct TeamView {
  std::string name;
  std::string parent;
  double gpusInUse = 0;
  int guaranteed = 0;
  double fairShareUsage = 0;
};

// A hold on GPUs over a time window, as the Gantt draws it on the node rows: the reservations of
// the last backfill plan (for blocked jobs, where and when they are expected to start) and the
// operator's (maintenance windows, capacity held for a team).
struct ReservationView {
  std::string id;      // "bf-JOB" for backfill, the operator's name otherwise
  std::string kind;    // backfill, maintenance, team (reservationKindName)
  JobId job = kNoJob;  // backfill: the blocked job it holds for
  std::string team;    // backfill: the job's team; team: who may use it
  Seconds start = 0;
  std::optional<Seconds> end;  // none: open-ended
  struct NodeHold {
    std::string node;
    std::vector<int> gpus;  // local indexes
  };
  std::vector<NodeHold> nodes;  // in cluster order
};

struct ClusterSnapshot {
  Seconds now = 0;
  std::string mode;
  std::vector<NodeView> nodes;
  std::vector<TeamView> teams;
  int pendingJobs = 0;
  int runningJobs = 0;
  double gpusTotal = 0;
  double gpusAllocated = 0;
  uint64_t lastEventSeq = 0;
  uint64_t cycles = 0;
  double lastCycleMs = 0;
  std::vector<ReservationView> reservations;  // backfill plan first, then the operator's
  // What runs the jobs (live mode): "none", or "slurm" with whether it answers and when the
  // engine last saw the whole cluster.
  struct Executor {
    std::string name = "none";
    std::string state = "none";  // none, ready, unavailable
    std::string detail;          // why unavailable
    Seconds lastSync = 0;        // engine time; 0 = never
  } executor;
};

struct MetricQuery {
  std::string series;  // empty = list the names
  int64_t from = 0;
  int64_t to = 0;  // 0 = now
  MetricResolution resolution = MetricResolution::Auto;
  size_t maxPoints = 2000;
};

struct MetricAnswer {
  MetricSeries series;
  std::vector<std::string> names;  // when the query named no series
};

// The error classes the API maps to status codes; the message says what and where.
enum class ErrorKind : uint8_t {
  InvalidArgument,     // a field is wrong (the message names it)
  NotFound,            // no such job, node, GPU, reservation
  FailedPrecondition,  // valid, but not in this state (cancel a finished job)
  Unavailable,         // the database refused the write; nothing was applied
  DeadlineExceeded,    // the caller's deadline passed before the work started
  Internal,
  // Only from a remote session (the server's gatekeeping):
  PermissionDenied,   // the caller's role does not allow it
  Unauthenticated,    // no token or an unknown one
  ResourceExhausted,  // rate or size limit
};
const char* errorKindName(ErrorKind k);
struct ApiError {
  ErrorKind kind = ErrorKind::Internal;
  std::string message;
  // The message as a sentence the console translates, for the engine's refusals; empty for the
  // rest (their message stays English).
  Text text{};
};
template <typename T>
using Reply = std::function<void(std::variant<T, ApiError>)>;

using Deadline = std::optional<std::chrono::steady_clock::time_point>;

class ClusterSession {
 public:
  virtual ~ClusterSession() = default;
  // Each job gets the next id; all or nothing.
  virtual void submit(std::vector<Job> jobs, const Caller& who, Deadline d,
                      Reply<std::vector<JobId>> reply) = 0;
  virtual void job(JobId id, Reply<JobInfo> reply) = 0;
  virtual void jobs(JobFilter filter, Reply<JobPage> reply) = 0;
  virtual void act(Command command, bool dryRun, const Caller& who, Deadline d,
                   Reply<CommandResult> reply) = 0;
  virtual void explainJob(JobId id, Reply<Explanation> reply) = 0;
  // Explain without the per-node breakdown and counterfactuals: the last cycle's verdict for a
  // pending job (reason, queue position, estimated start, the jobs it waits for), which needs no
  // pass over the nodes and never waits behind a cycle where the session keeps a published view
  // (tesserad); for running and finished jobs the same answer as explainJob. A session without
  // such a view answers with the whole explanation. Pure, so that a new session decides: a
  // default to the whole explanation would make the console compute it twice per selection.
  virtual void explainBrief(JobId id, Reply<Explanation> reply) = 0;
  virtual void snapshot(Reply<ClusterSnapshot> reply) = 0;
  virtual void metrics(MetricQuery query, Reply<MetricAnswer> reply) = 0;
  // A utilization and chargeback report (report/report.h) over the session's database. Slow
  // (it reads the usage ledger of the whole range), so it never runs on the engine thread: the
  // reply comes from a worker. Errors: InvalidArgument for the request (the message names the
  // field: teams, from, to, time_zone, idle_threshold, prices_yaml), Unavailable when the
  // database cannot be read or the backend is stopping, Internal for a failed read midway.
  virtual void report(ReportRequest request, Reply<Report> reply) = 0;

  // Calls `onChange` (on a thread of the implementation's choosing; it must not block) soon
  // after new events are committed, until the returned function is called - so a console can
  // redraw within milliseconds of a change instead of polling. The cancel function blocks until
  // no further call can happen.
  using CancelWatch = std::function<void()>;
  virtual CancelWatch watchChanges(std::function<void()> onChange) = 0;
};

}  // namespace tessera
