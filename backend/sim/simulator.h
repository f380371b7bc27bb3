#pragma once
// The discrete-event simulator: a simulated clock and an event queue that drive the real
// scheduler engine (no second scheduler). Jobs arrive from a trace, run for their real runtime
// once the engine starts them, checkpoint, get preempted (with a grace period before the
// preemptor's work begins), and the cluster changes underneath them: node failures and returns,
// GPU faults, drains, MIG reconfigurations that take time, and operator commands at given times.
// Everything is deterministic for a given seed: the same inputs give the same event log hash.
//
// Batch mode runs as fast as possible (run()); the console's live demo paces it against wall
// time by calling runUntil() from a timer (PacedClock says how far).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "scheduler/command.h"
#include "scheduler/engine.h"
#include "sim/metrics.h"
#include "sim/telemetry.h"
#include "sim/trace.h"
#include "sim/usage_recorder.h"

namespace tessera {

struct SimConfig {
  Seconds cycleInterval = 30;       // the scheduler runs at most this often, and only when needed
  Seconds idleCycleInterval = 300;  // while work waits and nothing announces a change
  Seconds sampleInterval = 300;     // metrics sample period
  Seconds preemptionGrace = 30;     // victim's SIGTERM-to-exit time; the preemptor waits for it
  Seconds migReconfigTime = 120;    // drain-to-ready time of a MIG repartition (GPU operator style)
  std::optional<Seconds> until;     // stop at this simulated time (default: when all work is done)
  uint64_t seed = 1;                // telemetry noise and synthetic choices
  bool checkInvariants = false;     // run the engine's invariant checker after every cycle
  // Lifts the engine's wall-clock backfill budget (planning then stops only at the policy's
  // depth), so results do not depend on the machine's speed.
  bool deterministic = true;
  // Slurm-style time limit: a job still running at its runtime estimate is stopped then (failed).
  bool enforceTimeLimit = true;
};

// What happens to the cluster (not to jobs) at a given time. Operator commands go through the
// engine's one command path (command.h) like the console's and the CLI's.
namespace simev {
struct NodeFailure {
  std::string node;
  Seconds repair = 3600;  // down for this long, then returns empty
};
struct GpuFault {
  std::string gpu;        // "node/index"
  int xid = 79;           // NVIDIA Xid code, recorded in the log
  Seconds repair = 1800;  // the node drains, the GPU is reset, the node returns
};
struct MigReconfigure {
  std::string gpu;     // "node/index"
  std::string layout;  // MIG layout text (docs/mig-layout-syntax.md)
};
struct Operator {
  Command command;
  std::string actor = "operator";
};
}  // namespace simev
using ClusterEvent =
    std::variant<simev::NodeFailure, simev::GpuFault, simev::MigReconfigure, simev::Operator>;

struct ScheduledEvent {
  Seconds at = 0;
  ClusterEvent event;
  std::string file;  // the events file, for messages
  int line = 0;
};

// One line of the simulator's own log (the engine keeps job transitions in its event log).
struct SimLogEntry {
  Seconds time = 0;
  std::string what;
};

class Simulator {
 public:
  // Starts from `engine` as it is (a fork of a live or saved state, or a fresh one): running jobs
  // keep running until their expected end (or forever without an estimate); `trace` jobs arrive
  // at their submit times, which must not be before the engine's clock.
  Simulator(Engine engine, Trace trace, SimConfig config, std::vector<ScheduledEvent> events = {});

  // Runs until the event queue is empty or config.until. Returns the first hard error (an
  // invariant violation when checking, a scheduled event naming an unknown node): the simulation
  // stops there and the error says when and what.
  Status run(const std::function<void(double fractionDone)>& progress = {});
  // Processes every event up to and including time t (paced mode); returns false when finished.
  Expected<bool> runUntil(Seconds t);
  [[nodiscard]] bool finished() const;
  [[nodiscard]] std::optional<Seconds> nextEventTime() const;

  [[nodiscard]] const Engine& engine() const { return engine_; }
  [[nodiscard]] Seconds now() const { return engine_.now(); }
  [[nodiscard]] const MetricsRecorder& metrics() const { return metrics_; }
  [[nodiscard]] const std::vector<SimLogEntry>& log() const { return log_; }
  [[nodiscard]] const SimConfig& config() const { return config_; }
  [[nodiscard]] const Trace& trace() const { return trace_; }
  // Telemetry of every GPU now (idle GPUs read zero).
  [[nodiscard]] std::vector<GpuTelemetry> telemetry() const;
  // One job's telemetry at time t (per GPU it holds), by its trace's usage profile.
  [[nodiscard]] JobTelemetry jobTelemetry(JobId job, Seconds t) const;
  // Feeds `recorder` (the usage ledger, usage_recorder.h) as the simulation runs; it must
  // outlive the run. Set before run().
  void recordUsage(UsageRecorder* recorder) { usage_ = recorder; }
  // FNV-1a over the engine's event log and the simulator's log: equal for equal runs.
  [[nodiscard]] uint64_t logHash() const;
  // Every job's life so far, in submission order, and the summary of the run (metrics.h).
  [[nodiscard]] std::vector<JobOutcome> outcomes() const;
  [[nodiscard]] SimSummary summary() const;

 private:
  enum class Kind : uint8_t {
    Arrival,
    End,
    Checkpoint,
    Cluster,
    NodeBack,
    MigApply,
    Cycle,
    Sample
  };
  struct QueuedEvent {
    Seconds at = 0;
    uint64_t seq = 0;  // insertion order breaks ties: deterministic
    Kind kind = Kind::Cycle;
    uint64_t a = 0;     // job id, trace index, node, GPU or event index, by kind
    uint64_t b = 0;     // run number (End, Checkpoint)
    bool last = false;  // a sample
    // Same time: samples last, so they see the cycle that time's events asked for.
    friend bool operator>(const QueuedEvent& x, const QueuedEvent& y) {
      if (x.at != y.at) return x.at > y.at;
      return x.last != y.last ? x.last : x.seq > y.seq;
    }
  };
  struct RunInfo {                     // per job id, what the simulator knows beyond the engine
    uint32_t traceIndex = UINT32_MAX;  // UINT32_MAX: was in the engine before the simulation
    uint32_t run = 0;                  // bumped on every start and stop; stale events ignore
    Seconds firstStart = -1;
    Seconds runStart = 0;      // of the current run
    double gpus = 0;           // GPU equivalents of the current run
    double gpuSeconds = 0;     // of finished runs
    bool timeLimited = false;  // the current run ends at its time limit, not its work
    int interruptions = 0;     // requeued by node failures, GPU faults, reconfigurations
    double gpuHoursLostToInterruptions = 0;
  };

  void push(Seconds at, Kind kind, uint64_t a = 0, uint64_t b = 0);
  // Events that mean the simulation has more to do. Cycles, samples and checkpoints only
  // accompany work: a run whose only jobs never end must still finish.
  static bool keepsRunning(Kind k) {
    return k != Kind::Cycle && k != Kind::Sample && k != Kind::Checkpoint;
  }
  Status process(const QueuedEvent& e);
  Status arrive(uint32_t traceIndex);
  Status end(JobId id, uint32_t run);
  void checkpointJob(JobId id, uint32_t run);
  Status apply(const ScheduledEvent& e);
  // The simulator's own holds (failures, faults, reconfigurations): put until `until`, then
  // returned by a NodeBack event; a second cause with the same key extends the first.
  Status holdNode(NodeId n, NodeHold hold, Seconds until);
  Status returnNode(uint64_t node, uint64_t key);
  Status startReconfigure(const simev::MigReconfigure& m, size_t eventIndex);
  Status finishReconfigure(size_t eventIndex);
  void requeueJobsOn(NodeId n, std::optional<GpuId> gpu, const Text& why);
  Status cycle();
  Status heartbeat();
  void followEngineEvents();
  void onStarted(JobId id, bool afterPreemption);
  void onStopped(JobId id);
  void requestCycle();
  void sample();
  [[nodiscard]] UsageProfile usageOf(JobId id) const;
  Expected<NodeId> nodeNamed(const std::string& name) const;
  Expected<GpuId> gpuNamed(const std::string& name) const;
  void note(std::string what);
  void shiftTraceIds();

  Engine engine_;
  Trace trace_;
  SimConfig config_;
  std::vector<ScheduledEvent> events_;
  std::priority_queue<QueuedEvent, std::vector<QueuedEvent>, std::greater<>> queue_;
  uint64_t seq_ = 0;
  size_t realQueued_ = 0;  // queued events other than cycles and samples
  std::unordered_map<JobId, RunInfo> runs_;
  std::set<JobId> pending_;  // ordered: samples and hashes must not depend on hashing
  size_t engineEventsSeen_ = 0;
  bool dirty_ = true;                        // something changed since the last cycle
  std::optional<Seconds> cycleAt_;           // the earliest queued cycle a change can rely on
  std::optional<Seconds> heartbeatAt_;       // the one queued idle-period cycle, if any
  static constexpr uint64_t kHeartbeat = 1;  // a Cycle event's `a`: the idle-period cycle
  [[nodiscard]] Seconds idlePeriod() const {
    return std::max(config_.cycleInterval, config_.idleCycleInterval);
  }
  Seconds lastCycle_ = -1;
  // Per simulator hold (node, owner and GPU packed as in holdNode): when it ends.
  std::map<std::pair<uint64_t, uint64_t>, Seconds> holdUntil_;
  Seconds start_ = 0;  // the clock when the simulation began
  size_t arrived_ = 0;
  size_t refused_ = 0;   // trace jobs the engine would not accept
  Seconds horizon_ = 0;  // last arrival or scheduled event
  MetricsRecorder metrics_;
  TelemetryModel telemetry_;
  UsageRecorder* usage_ = nullptr;
  std::vector<SimLogEntry> log_;
};

// Wall-time pacing for the live demo: simulated seconds advance `speed` times faster than wall
// seconds from the moment of start().
class PacedClock {
 public:
  explicit PacedClock(double speed = 60.0) : speed_(speed) {}
  void start(Seconds simNow, double wallSeconds);
  void setSpeed(double speed, double wallSeconds);  // keeps the current simulated time
  [[nodiscard]] Seconds simTimeAt(double wallSeconds) const;
  [[nodiscard]] double speed() const { return speed_; }

 private:
  double speed_;
  Seconds simStart_ = 0;
  double wallStart_ = 0;
};

// Reads a scheduled-events file (YAML list; format in docs/simulator.md):
//   - {at: 2h, node_failure: {node: n1, repair: 1h}}
//   - {at: 3h, gpu_fault: {gpu: n2/3, xid: 79, repair: 30m}}
//   - {at: 4h, mig_reconfigure: {gpu: a100-1/0, layout: "3g.40gb,4x1g.10gb"}}
//   - {at: 5h, command: {drain: {node: n3, reason: psu}}, actor: alice}
Expected<std::vector<ScheduledEvent>> loadSimEvents(std::string_view text, const std::string& file,
                                                    const Workload* tenants = nullptr);
Expected<std::vector<ScheduledEvent>> loadSimEventsFile(const std::string& path,
                                                        const Workload* tenants = nullptr);

// How a job without a trace profile uses its GPUs: by its workload class.
UsageProfile defaultUsage(const Job& job);

// Checks that every event names a node or GPU of `cluster` (and a valid MIG layout for that GPU)
// before a simulation starts; the error names the events file and line.
Status checkSimEvents(const Cluster& cluster, const std::vector<ScheduledEvent>& events);

// An engine on `cluster` with the trace's tenants and `policy`, ready for a Simulator.
Expected<Engine> engineForTrace(std::shared_ptr<const Cluster> cluster, const Trace& trace,
                                Policy policy);

}  // namespace tessera
