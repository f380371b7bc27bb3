#pragma once
// The backend core: one engine, one engine thread, one database. Every request becomes a work
// item on a queue; the engine thread takes all queued items at once, applies them in order,
// runs the scheduling cycle when it is due, and commits everything the batch changed (events,
// job rows, global state, metric samples) in ONE transaction - the group commit - before any
// reply of the batch is sent. So nothing is acknowledged that is not durable, and durability
// costs one fsync per batch rather than per request.
//
// When a commit fails (disk full, I/O error) the batch's replies say so and the engine is
// rebuilt from the database: memory never runs ahead of what is stored. When that rebuild fails
// too, the backend stops serving (health() says why) and refuses all work until restarted.
//
// What happens around the engine is its World (world.h): live (the wall clock, node agents'
// telemetry, and an Executor that runs the jobs - `none`: jobs end only when cancelled) or
// simulated-live (a demo cluster on a sped-up clock with synthetic load, simulated job ends and
// faults: what the console's remote mode connects to out of the box).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "service/daemon_session.h"
#include "service/event_hub.h"
#include "service/executor.h"
#include "service/jobs_view.h"
#include "service/session.h"
#include "service/world.h"
#include "sim/metrics.h"
#include "sim/telemetry.h"
#include "store/event_store.h"
#include "store/history_retention.h"
#include "store/metric_store.h"
#include "store/state_store.h"
#include "store/usage_store.h"

namespace tessera {

// Figures the daemon's Prometheus endpoint reads after each cycle (engine thread).
struct CycleReport {
  const Engine& engine;
  const CycleStats& stats;
  const std::vector<GpuTelemetry>* telemetry;  // simulated-live only
  const MetricSample* sample;                  // the latest metric sample (none before the first)
  ExecutorStatus executor;                     // what runs the jobs, as of this cycle
};

// What the engine keeps in memory of what the database already holds (Backend forgets the rest:
// finished jobs and old events are then read from the database, as after a restart).
struct HistoryMemory {
  Seconds finishedFor = 600;   // engine seconds a finished job stays in memory
  size_t compactAfter = 5000;  // finished records gathered before the job table is compacted
  size_t events = 10000;       // newest events kept (explanations of active jobs read older
                               // ones from the database)
};

struct BackendConfig {
  std::string database;  // SQLite file; created when missing
  BackendMode mode = BackendMode::Live;
  // The setup of a new database; a database that already holds a state keeps its own.
  std::shared_ptr<const Cluster> cluster;
  Workload tenants;
  Policy policy;
  const GpuCatalog* catalog = nullptr;  // resolves the stored cluster on restart
  double cycleSeconds = 2.0;            // wall seconds between scheduling cycles
  double speed = 60.0;                  // simulated-live: engine seconds per wall second
  double arrivalsPerHour = 120;         // simulated-live: synthetic arrivals per engine hour
  double gpuFaultsPerDay = 0;           // simulated-live: Xid faults per engine day (gpu_faults.h)
  Seconds gpuFaultRepair = 1800;        // simulated-live: how long a faulted GPU stays out
  uint64_t seed = 1;
  double runtimeScale = 1.0;  // simulated-live: multiplies synthetic runtimes
  Seconds sampleEvery = 60;   // engine seconds between metric samples
  MetricRetention retention;
  size_t maxBatch = 20000;      // work items per group commit
  size_t eventMemory = 200000;  // recent events kept in memory for watchers
  HistoryMemory history;
  HistoryRetention historyRetention;  // pruned hourly, with the metric roll-ups
  bool runCycles = true;              // false: cycles run only when asked (tests)
  std::function<Seconds()> clock;     // replaces the mode's clock (tests); never goes back
  // Live mode: what runs the jobs (none when unset: jobs end only when cancelled).
  std::function<std::unique_ptr<Executor>()> executor;
  // Live mode: a node that reports its inventory and is not in the cluster model is admitted
  // without an operator (tesserad.yaml inventory.auto_admit).
  bool autoAdmitNodes = false;
  // Live mode: how late agents' readings (utilization, memory, temperature) may reach the
  // published snapshot (tesserad.yaml telemetry.refresh). 0: every push makes the views stale, as
  // any other change does. Above 0, pushes carrying readings alone leave the views current and a
  // snapshot older than this is rebuilt for the next reader: 1,000 agents push 100 times a
  // second, and rebuilding per push would send every reader to the engine thread. Xid holds and
  // layout changes a push brings are events, never delayed.
  double readingsRefreshSeconds = 0;
  // What the engine thread has to tell the operator's log (an agent's catalog mismatches, GPUs
  // held out); called on the engine thread, must not block. Unset: not logged.
  std::function<void(const std::string&)> onWarning;
  // Called on the engine thread after every cycle (the daemon's Prometheus figures). Part of the
  // configuration because the engine thread starts inside open().
  std::function<void(const CycleReport&)> onCycle;
  // Called on the backup's worker thread after each step of a backup (tests: hold one midway).
  std::function<void()> onBackupStep;
};

class Backend final : public DaemonSession {
 public:
  // Opens (or creates) the database, rebuilds the engine from it, and starts the engine thread.
  static Expected<std::unique_ptr<Backend>> open(BackendConfig config);
  ~Backend() override;
  // Finishes the queued work, commits, and stops the engine thread. Idempotent.
  void stop();

  void submit(std::vector<Job> jobs, const Caller& who, Deadline d,
              Reply<std::vector<JobId>> reply) override;
  // GetJob, ListJobs and explainBrief are answered on the caller's thread from the jobs view
  // published after the last change (jobs_view.h) and the database rows of that same commit (a
  // read connection of their own), so they never wait behind a cycle; when the view is not
  // current (a write committed since, or nobody read jobs in the last minute) the engine thread
  // answers and then publishes a view. A read after a write sees the write.
  void job(JobId id, Reply<JobInfo> reply) override;
  void jobs(JobFilter filter, Reply<JobPage> reply) override;
  void explainBrief(JobId id, Reply<Explanation> reply) override;
  void act(Command command, bool dryRun, const Caller& who, Deadline d,
           Reply<CommandResult> reply) override;
  // On the engine thread: the per-node breakdown and counterfactuals need the live engine.
  void explainJob(JobId id, Reply<Explanation> reply) override;
  // Answered on the caller's thread from the view published after the last change when it is
  // current (so a read never waits behind a cycle), else on the engine thread, which then
  // publishes a new view. A read after a write sees the write.
  void snapshot(Reply<ClusterSnapshot> reply) override;
  // Answered on the caller's thread from a read connection of its own (a WAL reader never
  // waits for the engine thread's writer): a metric query never waits behind a cycle.
  void metrics(MetricQuery query, Reply<MetricAnswer> reply) override;
  CancelWatch watchChanges(std::function<void()> onChange) override;
  // Computed on a worker thread from a separate read-only connection to the database (WAL
  // readers never block the engine's writer); at most kMaxReports at a time, more are refused
  // with ResourceExhausted. stop() cancels and joins the workers.
  void report(ReportRequest request, Reply<Report> reply) override;
  void report(ReportRequest request, ReportLimits limits, Reply<Report> reply) override;
  static constexpr size_t kMaxReports = 4;
  // The engine clock as of the last commit: everything up to it is in the database, so a report
  // ending there is complete (tesserad's report scheduler waits for period ends on it).
  [[nodiscard]] Seconds committedNow() const { return committedNow_.load(); }
  // Runs a scheduling cycle now (with the tick's other work), after the queued requests.
  void cycleNow(Reply<CycleStats> reply);
  // A consistent copy of the database at `path` (which must not exist), taken on a worker thread
  // from a read connection of its own (one WAL snapshot: the engine thread goes on committing);
  // it shares the report workers' limit of kMaxReports.
  void backup(std::string path, Reply<uint64_t> reply) override;
  // A node agent's dcgm-exporter scrape (live_telemetry.h); `node` names the node when the
  // scrape's Hostname labels do not. FailedPrecondition in simulated-live mode.
  void pushTelemetry(DcgmScrape scrape, std::string node, Reply<TelemetryPush> reply) override;
  // Simulated-live mode answers FailedPrecondition; its warnings and changes also go to
  // onWarning (node_report.h, inventory_keeper.h).
  void reportInventory(InventoryReport report, Reply<InventoryReply> reply) override;
  void admitNode(std::string node, std::string actor, Reply<std::string> reply) override;
  void nodeInventory(Reply<std::vector<NodeInventoryView>> reply) override;

  // Readable from any thread. Once not serving, it stays so until the process restarts.
  [[nodiscard]] BackendHealth health() const override;
  // Calls `onChange` with the new health whenever it changes (on the engine thread, under the
  // health lock: it must not block, read health() or cancel itself); the returned function
  // unsubscribes, and no call of `onChange` runs after it returns.
  CancelWatch watchHealth(std::function<void(const BackendHealth&)> onChange) override;
  // What runs the jobs, as of the last cycle (GetHealth's details); readable from any thread.
  [[nodiscard]] ExecutorStatus executorStatus() const override;

  [[nodiscard]] EventHub& events() override { return *hub_; }
  // The priority classes (fixed for the life of a database), readable from any thread.
  [[nodiscard]] const std::vector<PriorityClass>& priorityClasses() const override {
    return classes_;
  }
  [[nodiscard]] BackendMode mode() const override { return config_.mode; }
  [[nodiscard]] size_t restoredJobs() const { return restoredJobs_; }
  [[nodiscard]] double restoreSeconds() const { return restoreSeconds_; }
  // Simulated-live: engine seconds per wall second from now on (0 pauses the clock; cycles go
  // on, so commands still take effect). Ignored in live mode.
  void setSpeed(double speed);
  // Runs `f` on the engine thread with the engine (tests: compare state across restarts).
  void inspect(std::function<void(const Engine&)> f);

 private:
  struct Item;
  struct Batch;
  explicit Backend(BackendConfig config);
  Status restoreOrCreate();
  void post(std::unique_ptr<Item> item);
  void engineLoop();
  // Any thread: run a cycle as soon as the engine thread is free (the executor has news).
  void wakeForCycle();
  void runBatch(std::vector<std::unique_ptr<Item>>& items, bool tick);
  void forgetStoredHistory();
  CycleStats tickWork(Batch& batch);
  Status commit(Batch& batch);
  void rollbackToStore(const Error& why);
  // Rebuilds the engine, the usage ledger and the world from the database, as a restart does
  // (a rollback; a node that joined the cluster model).
  Status reloadFromStore();
  Status storeJoinedCluster(const Cluster& cluster);
  [[nodiscard]] const GpuCatalog& catalog() const;
  // Refuses all further work with `why`, and tells the health watchers.
  void stopServing(Error why);
  [[nodiscard]] Seconds clockNow() const;
  void sampleMetrics(Batch& batch);
  // Per team and pool: allocated, and with telemetry busy, SM active, tensor active.
  void sampleScopes(std::vector<std::pair<std::string, double>>& out, bool simulated) const;
  [[nodiscard]] UsageRecorder::TelemetryOf usageTelemetry() const;
  [[nodiscard]] JobLive liveOf(const JobRecord& r) const;
  // Runs `read` on the caller's thread over the current jobs view and the read connection; none
  // when the view is stale or missing (the caller asks the engine thread then).
  template <typename T, typename Read>
  std::optional<std::variant<T, ApiError>> readPublished(Read read);
  // An active job's history: what the database holds, then the engine's events not stored yet.
  [[nodiscard]] Expected<std::vector<Text>> historyOf(const JobRecord& r) const;
  // The job's history lines from the event store.
  [[nodiscard]] Expected<std::vector<Text>> storedHistory(JobId id) const;
  void runReport(const ReportRequest& request, const ReportLimits& limits,
                 const Reply<Report>& reply) const;
  void runBackup(const std::string& path, const Reply<uint64_t>& reply) const;
  // Runs `work` on a worker thread (reports, backups), or says why not.
  std::optional<ApiError> startWorker(std::function<void()> work);
  void stopReports();

  BackendConfig config_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<StateStore> state_;
  std::unique_ptr<EventStore> eventStore_;
  std::unique_ptr<MetricStore> metricStore_;
  std::unique_ptr<UsageStore> usageStore_;
  UsageRecorder usage_;               // the usage ledger reports read (store/usage_store.h)
  std::unique_ptr<Database> readDb_;  // the event hub's own connection
  std::unique_ptr<EventStore> readEvents_;
  std::mutex metricReadMutex_;  // one statement at a time on the connection below
  std::unique_ptr<Database> metricReadDb_;
  std::unique_ptr<MetricStore> metricRead_;
  std::mutex jobReadMutex_;  // one statement at a time on the connection below
  std::unique_ptr<Database> jobReadDb_;
  std::unique_ptr<StateStore> jobRead_;
  std::unique_ptr<EventStore> jobReadEvents_;
  std::unique_ptr<EventHub> hub_;
  std::optional<Engine> engine_;
  BackendExtras extras_;
  std::vector<PriorityClass> classes_;
  uint64_t eventCursor_ = 0;     // engine events already stored (Engine::eventCount)
  std::optional<Error> broken_;  // set when a failed write could not be rolled back
  struct HealthBoard;            // health() and its watchers, shared with their cancel functions
  std::shared_ptr<HealthBoard> health_;
  uint64_t storeSeq_ = 0;  // last stored event sequence number
  size_t restoredJobs_ = 0;
  double restoreSeconds_ = 0;

  // The published views and the state version they show. stateVersion_ moves (engine thread,
  // before the commit writes) whenever what a view shows may have changed; the views are rebuilt
  // after the commit of a cycle, and of requests before a cycle, while someone reads them, and
  // after requests when a reader found them stale. Each part is built only while it is read.
  struct PublishedView {
    uint64_t version = 0;
    std::shared_ptr<const ClusterSnapshot> snapshot;
    std::shared_ptr<const JobsView> jobs;
    // The agents' readings the snapshot shows (readingsVersion_ when built), and when it was built.
    uint64_t readings = 0;
    std::chrono::steady_clock::time_point snapshotBuilt;
  };
  // Whether the view's snapshot may be served: it shows the latest readings, or is younger than
  // readingsRefreshSeconds.
  [[nodiscard]] bool readingsFresh(const PublishedView& view) const;
  // Whether the published snapshot, still read, is due for the readings pushed since (engine
  // thread: it rebuilds the snapshot before a reader would find it stale and have to wait).
  [[nodiscard]] bool readingsDue();
  void publishView();
  // The parts being read, from the engine as it is now, reusing those of `reuse` (engine thread).
  PublishedView buildView(uint64_t lastEventSeq, PublishedView reuse);
  // Publishes `view` as showing the current state version.
  void swapView(PublishedView view);
  // The published view when it shows the current state (else an empty one). Between a commit and
  // the view the engine thread publishes after it (publishPending_), it waits for that view
  // rather than sending the reader to the engine thread, which may by then run the next cycle.
  PublishedView currentView();
  void endPublish();
  // Whether anyone read that part in the last minute: a daemon nobody watches builds no views.
  [[nodiscard]] static bool readRecently(const std::atomic<int64_t>& lastRead);
  [[nodiscard]] bool viewsRead() const;
  std::atomic<uint64_t> stateVersion_{1};
  std::atomic<uint64_t> readingsVersion_{0};  // moves with each commit of pushed readings
  std::atomic<bool> viewWanted_{false};
  std::atomic<bool> publishPending_{false};
  std::condition_variable viewCv_;            // a view was published, or publishPending_ ended
  std::atomic<int64_t> lastSnapshotRead_{0};  // steady clock, nanoseconds
  std::atomic<int64_t> lastJobsRead_{0};
  mutable std::mutex viewMutex_;
  PublishedView view_;
  JobsViewBuilder jobsView_;  // engine thread

  std::unique_ptr<World> world_;
  Seconds lastSample_ = -1;
  std::optional<MetricSample> sample_;
  Seconds lastCompact_ = 0;

  std::mutex queueMutex_;
  std::condition_variable queueCv_;
  std::deque<std::unique_ptr<Item>> queue_;
  bool stopping_ = false;
  bool cycleSoon_ = false;  // wakeForCycle() asked for a cycle before nextTick_
  std::chrono::steady_clock::time_point nextTick_;
  std::thread thread_;
  std::atomic<Seconds> committedNow_{0};

  // Report workers: finished ones are joined when the next report starts, the rest by stop().
  struct ReportWorker {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::mutex reportMutex_;
  std::list<ReportWorker> reports_;
  std::atomic<bool> reportsStopping_{false};
};

}  // namespace tessera
