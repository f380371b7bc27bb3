// The backend core: acknowledged work is durable, a restart rebuilds the same engine (jobs,
// placements, queue order, quotas, drains, layouts, reservations), batches are all or nothing,
// refusals carry the right error class, dry runs change nothing but are audited, a failed commit
// is reported and leaves memory as the database has it, and event sequence numbers run on
// without gaps across restarts. The per-team and per-pool metric series add up to the cluster's,
// and the snapshot carries the backfill plan's and the operator's reservations. A reply comes only
// after its commit was fsynced.
#include <QTemporaryDir>
#include <QtTest>
#include <future>
#include <thread>

#include <sqlite3.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "../service/demo_backend.h"
#include "../store/sync_counting_vfs.h"
#include "backend_test_util.h"
#include "clusterspec/cluster_spec.h"
#include "core/engine_text.h"
#include "scheduler/command_yaml.h"
#include "service/backend.h"

using namespace tessera;
using namespace tessera::test;

namespace {

// The engine's state as an operator would compare it: every active job with its state, where
// it runs, hold, rank and class; the queue order; quota use per team; nodes not up; MIG
// layouts; reservations; clock; fair-share usage.
std::string digest(const Engine& e) {
  std::ostringstream out;
  out << "now " << e.now() << "\n";
  // By id: the engine's storage order is not part of its state (a restart puts running jobs
  // back first); the queue order below is.
  auto jobs = e.jobs();
  std::sort(jobs.begin(), jobs.end(),
            [](const JobRecord* a, const JobRecord* b) { return a->job.id < b->job.id; });
  for (const JobRecord* r : jobs) {
    if (!r->active()) continue;
    out << "job " << r->job.id << " " << jobStateName(r->state) << " class " << r->job.priorityClass
        << " held " << r->job.held << " rank " << r->job.queueRank << " preemptions "
        << r->preemptions << " kept " << r->workKept;
    if (r->placement)
      for (const auto& t : r->placement->tasks) {
        out << " [" << e.cluster().node(t.node).name;
        for (GpuId g : t.gpus) out << " " << e.cluster().gpu(g).index;
        out << " mig " << t.migStart << "]";
      }
    out << "\n";
  }
  out << "queue";
  for (const JobRecord* r : e.queue()) out << " " << r->job.id;
  out << "\n";
  const auto use = e.teamUse();
  const auto& teams = e.quotas().teams();
  for (size_t t = 0; t < teams.size(); ++t) {
    out << "team " << teams[t].name << " use " << use[t].gpus << " fair "
        << e.fairShare().usage(static_cast<int>(t));
    for (const auto& [k, q] : teams[t].quotas)
      out << " " << k << "=" << q.guaranteed << "/" << q.borrowLimit << "/" << q.lendLimit;
    out << "\n";
  }
  for (const Node& n : e.cluster().nodes())
    if (e.state().nodeState(n.id) != NodeState::Up)
      out << "node " << n.name << " " << nodeStateName(e.state().nodeState(n.id)) << "\n";
  for (const Gpu& g : e.cluster().gpus())
    if (!e.state().gpu(g.id).layout.empty())
      out << "layout " << g.id << " "
          << formatMigLayout(e.cluster().modelOf(g.id), e.state().gpu(g.id).layout, true) << "\n";
  for (const Reservation& r : e.reservations().all())
    if (r.kind != Reservation::Kind::Backfill)
      out << "reservation " << r.id << " " << r.from << "-" << r.until << " " << r.gpus.size()
          << "\n";
  return out.str();
}

struct Fixture {
  QTemporaryDir dir;
  Seconds now = 1000;
  std::string path() const { return dir.filePath("state.db").toStdString(); }
  BackendConfig config() {
    BackendConfig c;
    c.database = path();
    c.cluster = demoCluster();
    auto w = demoWorkload();
    if (!w) qFatal("demo workload: %s", w.error().str().c_str());
    c.tenants = *w;
    c.runCycles = false;
    c.clock = [this] { return now; };
    return c;
  }
  std::unique_ptr<Backend> open() {
    auto b = Backend::open(config());
    if (!b) qFatal("open: %s", b.error().str().c_str());
    return std::move(*b);
  }
};

std::vector<Job> demoJobs() {
  auto w = demoWorkload();
  std::vector<Job> jobs = w->jobs;
  for (Job& j : jobs) j.id = kNoJob;
  return jobs;
}

std::vector<JobId> submit(Backend& b, std::vector<Job> jobs, const std::string& who = "alice") {
  return ok(await<std::vector<JobId>>(
      [&](auto reply) { b.submit(std::move(jobs), Caller{who}, std::nullopt, reply); }));
}

std::variant<CommandResult, ApiError> act(Backend& b, Command c, bool dryRun = false) {
  return await<CommandResult>(
      [&](auto reply) { b.act(std::move(c), dryRun, Caller{"bob"}, std::nullopt, reply); });
}

void cycle(Backend& b) {
  ok(await<CycleStats>([&](auto reply) { b.cycleNow(reply); }));
}

std::string digestOf(Backend& b) {
  std::string d;
  b.inspect([&](const Engine& e) { d = digest(e); });
  return d;
}

// The newest raw sample of a series (fails the test when there is none).
double latest(Backend& b, const std::string& series) {
  MetricQuery q;
  q.series = series;
  q.resolution = MetricResolution::Raw;
  const auto a = ok(await<MetricAnswer>([&](auto reply) { b.metrics(q, reply); }));
  if (a.series.points.empty()) qFatal("no samples of %s", series.c_str());
  return a.series.points.back().value;
}

std::vector<std::string> seriesNames(Backend& b) {
  return ok(await<MetricAnswer>([&](auto reply) { b.metrics(MetricQuery{}, reply); })).names;
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string scoped(const std::string& metric, const std::string& label, const std::string& v) {
  return metric + "{" + label + "=\"" + v + "\"}";
}

// A GB200 rack gang (16 x 4 GPUs in one NVLink domain of 72) with a two-hour estimate: a second
// one cannot start while the first runs, and gets a backfill reservation for when it ends.
Job rackJob() {
  Job j = demoJobs()[1];
  j.estimatedRuntime = 7200;
  return j;
}

Command parse(const std::string& yaml) {
  YAML::Node n = YAML::Load(yaml);
  static const std::string file = "test";
  auto c = commandFromYaml(YamlField(n, "command", &file));
  if (!c) qFatal("command: %s", c.error().str().c_str());
  return *c;
}

// A submission whose commit fails (another process holds the write lock past the busy timeout)
// while the stored state cannot be read back either (its global row is not JSON): the rollback
// fails too.
std::variant<std::vector<JobId>, ApiError> submitWithUnreadableStore(const Fixture& f, Backend& b) {
  sqlite3* other = nullptr;
  if (sqlite3_open(f.path().c_str(), &other) != SQLITE_OK) qFatal("cannot open the database");
  sqlite3_busy_timeout(other, 5000);
  if (sqlite3_exec(other, "UPDATE meta SET value = 'not json' WHERE key = 'global'", nullptr,
                   nullptr, nullptr) != SQLITE_OK ||
      sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) != SQLITE_OK)
    qFatal("cannot spoil the database: %s", sqlite3_errmsg(other));
  auto r = await<std::vector<JobId>>(
      [&](auto reply) { b.submit({demoJobs()[1]}, Caller{}, std::nullopt, reply); });
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  return r;
}

// Two jobs submitted and held (so they stay pending with a reason to store): the first is to
// end, the second to wait.
std::pair<JobId, JobId> twoHeldJobs(Backend& b) {
  const auto ids = submit(b, {demoJobs()[4], demoJobs()[4]});
  for (JobId id : ids)
    if (auto r = act(b, parse("{hold: " + std::to_string(id) + "}"));
        !std::holds_alternative<CommandResult>(r))
      qFatal("cannot hold job %lld: %s", static_cast<long long>(id),
             std::get<ApiError>(r).message.c_str());
  return {ids[0], ids[1]};
}

int storedEventsOf(const Fixture& f, JobId job) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(f.path().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
    qFatal("cannot open the database");
  sqlite3_stmt* q = nullptr;
  sqlite3_prepare_v2(db, "SELECT count(*) FROM events WHERE job = ?", -1, &q, nullptr);
  sqlite3_bind_int64(q, 1, static_cast<sqlite3_int64>(job));
  const int n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) : -1;
  sqlite3_finalize(q);
  sqlite3_close(db);
  return n;
}

// Holds the engine thread in a task until release(), as a long cycle does.
class EngineHold {
 public:
  explicit EngineHold(Backend& b)
      : thread_([this, &b] {
          b.inspect([this](const Engine&) {
            entered_.set_value();
            released_.wait();
          });
        }) {
    entered_.get_future().wait();
  }
  ~EngineHold() {
    release();
    thread_.join();
  }
  EngineHold(const EngineHold&) = delete;
  EngineHold& operator=(const EngineHold&) = delete;
  void release() {
    if (!done_.exchange(true)) release_.set_value();
  }

 private:
  std::promise<void> entered_, release_;
  std::shared_future<void> released_ = release_.get_future().share();
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// The reply to `call` when it came within five seconds; answerSoon: a reply that must succeed.
template <typename T, typename Call>
std::optional<std::variant<T, ApiError>> answerWithin(Call&& call) {
  auto p = std::make_shared<std::promise<std::variant<T, ApiError>>>();
  auto answer = p->get_future();
  call([p](std::variant<T, ApiError> r) { p->set_value(std::move(r)); });
  if (answer.wait_for(std::chrono::seconds(5)) != std::future_status::ready) return std::nullopt;
  return answer.get();
}

template <typename T, typename Call>
std::optional<T> answerSoon(Call&& call) {
  auto r = answerWithin<T>(std::forward<Call>(call));
  if (!r) return std::nullopt;
  return ok(*r);
}

}  // namespace

class TstBackend : public QObject {
  Q_OBJECT

 private slots:
  // Every database this process opens goes through the fsync-counting VFS.
  void initTestCase() { SyncCountingVfs::install(); }

  void acknowledgedSubmitsAreStored() {
    Fixture f;
    std::vector<JobId> ids;
    {
      auto b = f.open();
      ids = submit(*b, demoJobs());
      QCOMPARE(ids.size(), demoJobs().size());
      QCOMPARE(ids.front(), JobId{1});
    }
    auto db = Database::open(f.path());
    QVERIFY(db);
    StateStore store(*db);
    for (JobId id : ids) {
      auto row = store.job(id);
      QVERIFY(row && *row);
      QCOMPARE((*row)->state, JobState::Pending);
      QCOMPARE((*row)->job.id, id);
    }
  }

  // "Acknowledged" means on disk, not in the page cache: the WAL is fsynced after the request is
  // applied and before its reply is sent. A kill -9 keeps the page cache, so the crash tests
  // cannot see the difference; counting fsyncs at the moment of the reply can.
  void aReplyComesAfterItsCommitIsSynced() {
    Fixture f;
    auto b = f.open();
    uint64_t syncsAtReply = 0;
    const uint64_t beforeSubmit = SyncCountingVfs::walSyncs();
    const JobId id =
        ok(await<std::vector<JobId>>([&](auto reply) {
          b->submit({demoJobs()[0]}, Caller{}, std::nullopt,
                    [&syncsAtReply, reply](std::variant<std::vector<JobId>, ApiError> r) {
                      syncsAtReply = SyncCountingVfs::walSyncs();
                      reply(std::move(r));
                    });
        })).front();
    QVERIFY2(syncsAtReply > beforeSubmit, "a submit was acknowledged before its commit's fsync");
    const uint64_t beforeAct = SyncCountingVfs::walSyncs();
    ok(await<CommandResult>([&](auto reply) {
      b->act(cmd::Hold{id}, false, Caller{}, std::nullopt,
             [&syncsAtReply, reply](std::variant<CommandResult, ApiError> r) {
               syncsAtReply = SyncCountingVfs::walSyncs();
               reply(std::move(r));
             });
    }));
    QVERIFY2(syncsAtReply > beforeAct, "an action was acknowledged before its commit's fsync");
  }

  void restartRebuildsTheSameEngine() {
    Fixture f;
    std::string before;
    {
      auto b = f.open();
      const auto ids = submit(*b, demoJobs());
      cycle(*b);
      f.now += 600;
      Job big = demoJobThatWaits();
      const JobId held = submit(*b, {big}).front();
      QVERIFY(std::holds_alternative<CommandResult>(
          act(*b, parse("{hold: " + std::to_string(held) + "}"))));
      QVERIFY(!ids.empty());
      QVERIFY(std::holds_alternative<CommandResult>(
          act(*b, parse("{drain: {node: pod-a-03, reason: psu}}"))));
      QVERIFY(std::holds_alternative<CommandResult>(act(
          *b,
          parse("{set_quota: {team: vision, key: H100-SXM5-80GB, guaranteed: 8, borrow: 4}}"))));
      QVERIFY(std::holds_alternative<CommandResult>(act(
          *b, parse("{create_reservation: {id: mw1, nodes: [pod-a-04], from: 2h, until: 4h}}"))));
      submit(*b, demoJobs());
      cycle(*b);
      f.now += 600;
      cycle(*b);
      before = digestOf(*b);
      QVERIFY(before.find("running") != std::string::npos);
      QVERIFY(before.find("node pod-a-03 draining") != std::string::npos);
    }
    auto b = f.open();
    const std::string after = digestOf(*b);
    QCOMPARE(after, before);
    QVERIFY(b->restoredJobs() > 0);
    // And it carries on: the next cycle decides from the same state.
    cycle(*b);
  }

  void aMoveAmongPeersSurvivesARestart() {
    Fixture f;
    std::string before;
    {
      auto b = f.open();
      std::vector<Job> jobs;
      for (int i = 0; i < 6; ++i) {
        Job j = demoJobThatWaits();
        jobs.push_back(j);
      }
      const auto ids = submit(*b, jobs);
      cycle(*b);
      QVERIFY(std::holds_alternative<CommandResult>(
          act(*b, parse("{move: {job: " + std::to_string(ids[4]) +
                        ", to: before, before: " + std::to_string(ids[1]) + "}}"))));
      before = digestOf(*b);
    }
    auto b = f.open();
    QCOMPARE(digestOf(*b), before);
  }

  void aBatchIsAllOrNothing() {
    Fixture f;
    auto b = f.open();
    auto jobs = demoJobs();
    jobs[1].team = "no-such-team";
    auto r = await<std::vector<JobId>>(
        [&](auto reply) { b->submit(jobs, Caller{}, std::nullopt, reply); });
    QVERIFY(std::holds_alternative<ApiError>(r));
    const auto& e = std::get<ApiError>(r);
    QCOMPARE(e.kind, ErrorKind::InvalidArgument);
    QVERIFY2(e.message.find("jobs[1]") != std::string::npos, e.message.c_str());
    QVERIFY(e.message.find("no-such-team") != std::string::npos);
    // The sentence too: field first, then the job and its problem.
    QCOMPARE(e.text.patternText(), std::string_view(text::kLabelled));
    QCOMPARE(e.text.args()[0].english(), std::string("jobs[1]"));
    QCOMPARE(e.text.args()[1].args()[1].patternText(), std::string_view(text::kUnknownTeam));
    QCOMPARE(e.text.english(), e.message);
    size_t count = 0;
    b->inspect([&](const Engine& eng) { count = eng.jobs().size(); });
    QCOMPARE(count, size_t{0});
    // The ids a refused batch would have used are still free.
    QCOMPARE(submit(*b, {demoJobs().front()}).front(), JobId{1});
  }

  void refusalsHaveTheRightClass() {
    Fixture f;
    auto b = f.open();
    const auto ids = submit(*b, {demoJobs()[4]});
    auto unknown = act(*b, parse("{hold: 999}"));
    QCOMPARE(std::get<ApiError>(unknown).kind, ErrorKind::NotFound);
    auto node = act(*b, parse("{drain: {node: nope}}"));
    QCOMPARE(std::get<ApiError>(node).kind, ErrorKind::NotFound);
    auto layout = act(*b, parse("{repartition: {gpu: inf-01/0, layout: 9g.99gb}}"));
    QVERIFY(std::holds_alternative<ApiError>(layout));
    QVERIFY(std::get<ApiError>(layout).kind != ErrorKind::Internal);
    QVERIFY(std::holds_alternative<CommandResult>(
        act(*b, parse("{cancel: " + std::to_string(ids[0]) + "}"))));
    auto again = act(*b, parse("{cancel: " + std::to_string(ids[0]) + "}"));
    QCOMPARE(std::get<ApiError>(again).kind, ErrorKind::FailedPrecondition);
    // The engine's sentence decides: a finished job's priority is a state problem, a layout that
    // drops a busy instance stays a bad layout, an unknown class a bad argument.
    auto ended =
        act(*b, parse("{set_priority: {job: " + std::to_string(ids[0]) + ", class: serving}}"));
    QCOMPARE(std::get<ApiError>(ended).kind, ErrorKind::FailedPrecondition);
    QVERIFY(!std::get<ApiError>(ended).text.empty());
    const auto live = submit(*b, {demoJobs()[4]});
    auto badClass =
        act(*b, parse("{set_priority: {job: " + std::to_string(live[0]) + ", class: nope}}"));
    QCOMPARE(std::get<ApiError>(badClass).kind, ErrorKind::InvalidArgument);
    auto missing = await<JobInfo>([&](auto reply) { b->job(12345, reply); });
    QCOMPARE(std::get<ApiError>(missing).kind, ErrorKind::NotFound);
    // Reservations and quotas: what is missing, what already exists, what is malformed.
    auto noReservation = act(*b, parse("{delete_reservation: nope}"));
    QCOMPARE(std::get<ApiError>(noReservation).kind, ErrorKind::NotFound);
    QVERIFY(!std::get<ApiError>(noReservation).text.empty());
    const std::string mw =
        "{create_reservation: {id: mw9, nodes: [pod-a-04], from: 2h, until: 4h}}";
    QVERIFY(std::holds_alternative<CommandResult>(act(*b, parse(mw))));
    QCOMPARE(std::get<ApiError>(act(*b, parse(mw))).kind, ErrorKind::FailedPrecondition);
    // (The YAML reader refuses this one itself; a gRPC request reaches the engine.)
    auto backwards = act(*b, cmd::CreateReservation{"mw8", {"pod-a-04"}, 14400, 7200, ""});
    QCOMPARE(std::get<ApiError>(backwards).kind, ErrorKind::InvalidArgument);
    auto noTeam = act(*b, parse("{set_quota: {team: nobody, key: '*', guaranteed: 8}}"));
    QCOMPARE(std::get<ApiError>(noTeam).kind, ErrorKind::NotFound);
  }

  void aDryRunChangesNothingButIsAudited() {
    Fixture f;
    auto b = f.open();
    const auto ids = submit(*b, {demoJobs()[0]});
    const std::string before = digestOf(*b);
    auto r = act(*b, parse("{hold: " + std::to_string(ids[0]) + "}"), true);
    QVERIFY(!ok(r).applied);
    QCOMPARE(digestOf(*b), before);
    auto events = b->events().read(0, 100);
    QVERIFY(events);
    QVERIFY(std::any_of(events->begin(), events->end(), [](const Event& e) {
      return e.kind == EventKind::Command && e.actor == "bob" &&
             e.reason.english().find("dry run") != std::string::npos;
    }));
  }

  void eventSequenceRunsOnAcrossRestarts() {
    Fixture f;
    uint64_t last = 0;
    {
      auto b = f.open();
      submit(*b, demoJobs());
      cycle(*b);
      last = b->events().lastSeq();
      QVERIFY(last > 0);
    }
    auto b = f.open();
    QCOMPARE(b->events().lastSeq(), last);
    submit(*b, {demoJobs()[0]});
    auto events = b->events().read(0, 100000);
    QVERIFY(events);
    for (size_t i = 0; i < events->size(); ++i) QCOMPARE((*events)[i].seq, uint64_t(i + 1));
    QVERIFY(events->back().seq > last);
    QCOMPARE(events->back().kind, EventKind::Submitted);
    // Old events come from the database once memory no longer holds them.
    auto old = b->events().read(0, 5);
    QVERIFY(old && old->size() == 5 && old->front().seq == 1);
  }

  void finishedJobsAreServedFromTheDatabaseAfterARestart() {
    Fixture f;
    JobId id = 0;
    JobInfo live;
    Explanation liveHistory;
    {
      auto b = f.open();
      id = submit(*b, {demoJobs()[4]}).front();
      // Held, so it ends with a pending reason to store (a job that ran has none).
      QVERIFY(std::holds_alternative<CommandResult>(
          act(*b, parse("{hold: " + std::to_string(id) + "}"))));
      cycle(*b);
      QVERIFY(std::holds_alternative<CommandResult>(
          act(*b, parse("{cancel: " + std::to_string(id) + "}"))));
      live = ok(await<JobInfo>([&](auto reply) { b->job(id, reply); }));
      liveHistory = ok(await<Explanation>([&](auto reply) { b->explainJob(id, reply); }));
    }
    auto b = f.open();
    const JobInfo info = ok(await<JobInfo>([&](auto reply) { b->job(id, reply); }));
    QCOMPARE(info.row.state, JobState::Cancelled);
    QCOMPARE(info.row.reason.english(), live.row.reason.english());
    QCOMPARE(info.row.reason.patternText(), std::string_view(text::kHeld));
    QVERIFY(info.row.reason == live.row.reason);
    const Explanation x = ok(await<Explanation>([&](auto reply) { b->explainJob(id, reply); }));
    QCOMPARE(x.state, JobState::Cancelled);
    QVERIFY(x.history.size() >= 2);
    // The history read back from the database is the engine's, sentence by sentence: the
    // console translates it after a restart as before.
    QCOMPARE(x.history.size(), liveHistory.history.size());
    for (size_t i = 0; i < x.history.size(); ++i) {
      QCOMPARE(x.history[i].english(), liveHistory.history[i].english());
      QVERIFY(x.history[i] == liveHistory.history[i]);
    }
    QCOMPARE(x.history.back().args()[2].patternText(), std::string_view(text::kCancelledBy));
    const JobPage page = ok(await<JobPage>([&](auto reply) {
      JobFilter filter;
      b->jobs(filter, reply);
    }));
    QCOMPARE(page.jobs.size(), size_t{1});
  }

  // What the engine forgot is served from the database as after a restart, and the engine
  // itself is what a restart would rebuild.
  void finishedJobsLeaveMemoryButNotTheDatabase() {
    Fixture f;
    BackendConfig c = f.config();
    c.history = {0, 1, 4};  // forget every stored finished job, keep 4 events
    auto opened = Backend::open(c);
    QVERIFY(opened);
    Backend& b = **opened;
    // Not a structured binding: the lambdas below capture them, which clang 14 (the sanitizer
    // builds) refuses for bindings.
    const auto held = twoHeldJobs(b);
    const JobId ended = held.first, waiting = held.second;
    cycle(b);
    const Explanation historyBefore =
        ok(await<Explanation>([&](auto reply) { b.explainJob(waiting, reply); }));
    QVERIFY(std::holds_alternative<CommandResult>(
        act(b, parse("{cancel: " + std::to_string(ended) + "}"))));
    const JobInfo endedBefore = ok(await<JobInfo>([&](auto reply) { b.job(ended, reply); }));
    f.now += 10;  // past its end: the next batch forgets it
    cycle(b);
    bool forgotten = false, waitingKept = false;
    uint64_t firstEvent = 0;
    b.inspect([&](const Engine& e) {
      forgotten = e.job(ended) == nullptr;
      waitingKept = e.job(waiting) != nullptr;
      firstEvent = e.firstEvent();
    });
    QVERIFY(forgotten);
    QVERIFY(waitingKept);
    QVERIFY(firstEvent > 0);

    const JobInfo endedAfter = ok(await<JobInfo>([&](auto reply) { b.job(ended, reply); }));
    QCOMPARE(endedAfter.row.state, JobState::Cancelled);
    QCOMPARE(endedAfter.row.reason.english(), endedBefore.row.reason.english());
    const JobPage page = ok(await<JobPage>([&](auto reply) { b.jobs(JobFilter{}, reply); }));
    QCOMPARE(page.jobs.size(), size_t{2});
    // The waiting job's early events left memory: its history now comes from the database,
    // whole and in order.
    const Explanation historyAfter =
        ok(await<Explanation>([&](auto reply) { b.explainJob(waiting, reply); }));
    QCOMPARE(historyAfter.state, JobState::Pending);
    QCOMPARE(historyAfter.history.size(), historyBefore.history.size());
    for (size_t i = 0; i < historyAfter.history.size(); ++i)
      QCOMPARE(historyAfter.history[i].english(), historyBefore.history[i].english());
    // A command on a forgotten job is refused as on any ended one.
    const auto again = act(b, parse("{cancel: " + std::to_string(ended) + "}"));
    QCOMPARE(std::get<ApiError>(again).kind, ErrorKind::FailedPrecondition);

    const std::string before = digestOf(b);
    b.stop();
    auto reopened = f.open();
    QCOMPARE(digestOf(*reopened), before);
  }

  // retention.jobs / retention.events: past them, finished jobs and their events leave the
  // database; an active job keeps its whole history however old.
  void retentionPrunesFinishedJobsButNotActiveHistory() {
    Fixture f;
    BackendConfig c = f.config();
    c.historyRetention = {3600, 3600};
    c.history = {0, 1, 10000};  // the engine forgets at once: job() then reads the database
    auto opened = Backend::open(c);
    QVERIFY(opened);
    Backend& b = **opened;
    // Not a structured binding: the lambdas below capture them, which clang 14 (the sanitizer
    // builds) refuses for bindings.
    const auto held = twoHeldJobs(b);
    const JobId ended = held.first, waiting = held.second;
    QVERIFY(std::holds_alternative<CommandResult>(
        act(b, parse("{cancel: " + std::to_string(ended) + "}"))));
    const Explanation historyBefore =
        ok(await<Explanation>([&](auto reply) { b.explainJob(waiting, reply); }));
    f.now += 1800;
    cycle(b);  // an hour since the last roll-up has not passed: nothing is pruned
    QVERIFY(
        std::holds_alternative<JobInfo>(await<JobInfo>([&](auto reply) { b.job(ended, reply); })));
    f.now += 7200;
    cycle(b);
    const auto gone = await<JobInfo>([&](auto reply) { b.job(ended, reply); });
    QVERIFY(std::holds_alternative<ApiError>(gone));
    QCOMPARE(std::get<ApiError>(gone).kind, ErrorKind::NotFound);
    // In the database itself (the event hub's memory of recent events is not pruned).
    QCOMPARE(storedEventsOf(f, ended), 0);
    QVERIFY(storedEventsOf(f, waiting) >= 2);
    b.stop();
    auto reopened = f.open();  // the waiting job's old events are read from the database now
    const Explanation historyAfter =
        ok(await<Explanation>([&](auto reply) { reopened->explainJob(waiting, reply); }));
    QCOMPARE(historyAfter.history.size(), historyBefore.history.size());
    QCOMPARE(reopened->health().serving, true);
  }

  void aFailedCommitIsReportedAndNothingIsApplied() {
    Fixture f;
    auto b = f.open();
    submit(*b, {demoJobs()[0]});
    const std::string before = digestOf(*b);
    // Another process holds the database's write lock past the busy timeout.
    sqlite3* other = nullptr;
    QCOMPARE(sqlite3_open(f.path().c_str(), &other), SQLITE_OK);
    sqlite3_busy_timeout(other, 5000);
    QCOMPARE(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
    auto r = await<std::vector<JobId>>(
        [&](auto reply) { b->submit({demoJobs()[1]}, Caller{}, std::nullopt, reply); });
    sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(other);
    QVERIFY(std::holds_alternative<ApiError>(r));
    QCOMPARE(std::get<ApiError>(r).kind, ErrorKind::Unavailable);
    QCOMPARE(digestOf(*b), before);
    // The next write goes through, with the id the refused one did not keep.
    QCOMPARE(submit(*b, {demoJobs()[1]}).front(), JobId{2});
  }

  // When a write fails and the stored state cannot even be read back, the engine may hold
  // changes that were reported as not applied: every later request is refused rather than
  // letting a later commit store them.
  void aFailedRollbackRefusesFurtherWork() {
    Fixture f;
    auto b = f.open();
    std::vector<BackendHealth> told;  // engine thread; read after the replies below
    std::mutex toldMutex;
    const auto stopWatch = b->watchHealth([&](const BackendHealth& h) {
      std::lock_guard lock(toldMutex);
      told.push_back(h);
    });
    submit(*b, {demoJobs()[0]});
    QVERIFY(b->health().serving);
    QVERIFY(b->health().reason.empty());
    auto r = submitWithUnreadableStore(f, *b);
    QCOMPARE(kindOf(r), ErrorKind::Unavailable);
    auto later = await<std::vector<JobId>>(
        [&](auto reply) { b->submit({demoJobs()[2]}, Caller{}, std::nullopt, reply); });
    QCOMPARE(kindOf(later), ErrorKind::Unavailable);
    QVERIFY2(std::get<ApiError>(later).message.find("restart tesserad") != std::string::npos,
             std::get<ApiError>(later).message.c_str());
    // Health tells the truth: not serving, with the reason the refusals give.
    const BackendHealth health = b->health();
    QVERIFY(!health.serving);
    QVERIFY2(std::get<ApiError>(later).message.ends_with(": " + health.reason),
             health.reason.c_str());
    QVERIFY2(health.reason.find("the state could not be reloaded") != std::string::npos,
             health.reason.c_str());
    stopWatch();
    std::lock_guard lock(toldMutex);
    QCOMPARE(told.size(), size_t{1});
    QCOMPARE(told.front(), health);
  }

  // A cancelled health watch is not called any more.
  void aCancelledHealthWatchIsQuiet() {
    Fixture f;
    auto b = f.open();
    std::atomic<int> calls{0};
    b->watchHealth([&](const BackendHealth&) { ++calls; })();
    submit(*b, {demoJobs()[0]});
    auto r = submitWithUnreadableStore(f, *b);
    QCOMPARE(kindOf(r), ErrorKind::Unavailable);
    // The rollback runs after the replies: the next request is answered after it.
    QCOMPARE(kindOf(await<std::vector<JobId>>(
                 [&](auto reply) { b->submit({demoJobs()[2]}, Caller{}, std::nullopt, reply); })),
             ErrorKind::Unavailable);
    QVERIFY(!b->health().serving);
    QCOMPARE(calls.load(), 0);
  }

  void anExpiredDeadlineIsNotApplied() {
    Fixture f;
    auto b = f.open();
    auto r = await<std::vector<JobId>>([&](auto reply) {
      b->submit({demoJobs()[0]}, Caller{},
                std::chrono::steady_clock::now() - std::chrono::seconds(1), reply);
    });
    QCOMPARE(std::get<ApiError>(r).kind, ErrorKind::DeadlineExceeded);
    size_t count = 1;
    b->inspect([&](const Engine& e) { count = e.jobs().size(); });
    QCOMPARE(count, size_t{0});
  }

  void theSimulatedClockPausesAndResumes() {
    Fixture f;
    auto c = f.config();
    c.mode = BackendMode::SimulatedLive;
    c.clock = nullptr;
    c.speed = 3600;  // an engine hour per wall second
    auto b = Backend::open(c);
    QVERIFY(b);
    auto nowOf = [&] {
      Seconds t = 0;
      (*b)->inspect([&](const Engine& e) { t = e.now(); });
      return t;
    };
    (*b)->setSpeed(0);
    const Seconds paused = nowOf();
    QTest::qWait(300);
    QCOMPARE(nowOf(), paused);
    (*b)->setSpeed(3600);
    QTest::qWait(300);
    QVERIFY(nowOf() >= paused + 600);  // 0.3 s at 3600x, with slack for a loaded machine
  }

  // simulation.arrivals_per_hour holds at any speed: an engine hour passing in one tick brings
  // an hour of arrivals, not one chunk of the load generator (200 jobs).
  void arrivalsKeepTheirRateWhenATickCoversHours() {
    Fixture f;
    auto c = f.config();
    c.mode = BackendMode::SimulatedLive;
    c.arrivalsPerHour = 3600;
    c.tenants.jobs.clear();
    auto b = Backend::open(c);
    QVERIFY(b);
    const auto jobsNow = [&] {
      size_t n = 0;
      (*b)->inspect([&](const Engine& e) { n = e.jobs().size(); });
      return n;
    };
    cycle(**b);  // the generator starts with the first tick
    const size_t before = jobsNow();
    f.now += 3600;
    cycle(**b);
    const size_t arrived = jobsNow() - before;
    // Poisson: 3,600 expected, sigma 60.
    QVERIFY2(arrived > 3300 && arrived < 3900, std::to_string(arrived).c_str());
  }

  // GetSnapshot reads the view published after the last change: it is answered while the
  // engine thread is busy (a cycle over a long queue), and it shows a command as soon as the
  // command's reply has come.
  void aSnapshotNeverWaitsForTheEngineThread() {
    Fixture f;
    auto b = f.open();
    ok(await<ClusterSnapshot>([&](auto reply) { b->snapshot(reply); }));  // a console attached
    submit(*b, {demoJobs()[0]});
    cycle(*b);  // while snapshots are read, a cycle publishes the view
    EngineHold hold(*b);
    const auto snapshot = answerSoon<ClusterSnapshot>([&](auto r) { b->snapshot(r); });
    hold.release();
    QVERIFY2(snapshot, "GetSnapshot waited for the engine thread");
    QCOMPARE(snapshot->runningJobs + snapshot->pendingJobs, 1);
  }

  // GetJob, ListJobs and a brief Explain are served from the published jobs view while the engine
  // thread is busy (a long cycle), with the state of the last commit, and the same answers as
  // the engine thread gives.
  void jobReadsNeverWaitForTheEngineThread() {
    Fixture f;
    auto b = f.open();
    const auto ids = submit(*b, {demoJobs()[0], demoJobs()[4]});
    const JobId running = ids[0], held = ids[1];
    QVERIFY(std::holds_alternative<CommandResult>(
        act(*b, parse("{hold: " + std::to_string(held) + "}"))));
    ok(await<JobInfo>([&](auto reply) { b->job(held, reply); }));  // a reader attached
    cycle(*b);  // while jobs are read, a cycle publishes the view
    EngineHold hold(*b);
    const auto run = answerSoon<JobInfo>([&](auto r) { b->job(running, r); });
    const auto wait = answerSoon<JobInfo>([&](auto r) { b->job(held, r); });
    const auto page = answerSoon<JobPage>([&](auto r) { b->jobs(JobFilter{}, r); });
    const auto why = answerSoon<Explanation>([&](auto r) { b->explainBrief(held, r); });
    const auto whyRunning = answerSoon<Explanation>([&](auto r) { b->explainBrief(running, r); });
    const auto missing = answerWithin<JobInfo>([&](auto r) { b->job(held + 100, r); });
    hold.release();
    QVERIFY2(run && wait && page && why && whyRunning && missing,
             "a job read waited for the engine thread");
    QCOMPARE(std::get<ApiError>(*missing).kind, ErrorKind::NotFound);
    QCOMPARE(page->jobs.size(), size_t{2});
    QVERIFY(!run->placement.empty());

    // The engine thread's answers (a write makes the view stale) are the same.
    submit(*b, {demoJobs()[4]});
    const JobInfo engineRun = ok(await<JobInfo>([&](auto r) { b->job(running, r); }));
    const JobInfo engineWait = ok(await<JobInfo>([&](auto r) { b->job(held, r); }));
    for (const auto& [viewed, engine] :
         {std::pair{*run, engineRun}, std::pair{*wait, engineWait}}) {
      QCOMPARE(jobStateName(viewed.row.state), jobStateName(engine.row.state));
      QCOMPARE(viewed.row.reason.english(), engine.row.reason.english());
      QCOMPARE(viewed.row.job.held, engine.row.job.held);
      QCOMPARE(viewed.row.startTime, engine.row.startTime);
      QCOMPARE(viewed.priority, engine.priority);
      QCOMPARE(viewed.queuePosition, engine.queuePosition);
      QCOMPARE(viewed.blockedBy, engine.blockedBy);
      QCOMPARE(viewed.placement.size(), engine.placement.size());
    }
    QCOMPARE(page->jobs[1].row.reason.english(), engineWait.row.reason.english());
    const Explanation full = ok(await<Explanation>([&](auto r) { b->explainJob(held, r); }));
    QCOMPARE(why->dominantReason.english(), engineWait.row.reason.english());
    QCOMPARE(why->history.size(), full.history.size());
    const Explanation fullRunning =
        ok(await<Explanation>([&](auto r) { b->explainJob(running, r); }));
    QCOMPARE(whyRunning->dominantReason.english(), fullRunning.dominantReason.english());
  }

  // A backup copies one snapshot of the database on a worker thread: the engine thread goes on
  // committing meanwhile, and the copy opens as a database of its own, as of the backup's start.
  void aBackupNeverHoldsTheEngineThread() {
    Fixture f;
    BackendConfig c = f.config();
    std::promise<void> stepped, release;
    std::shared_future<void> released = release.get_future().share();
    std::atomic<bool> first{true};
    c.onBackupStep = [&] {
      if (!first.exchange(false)) return;
      stepped.set_value();
      released.wait();
    };
    auto opened = Backend::open(c);
    QVERIFY(opened);
    Backend& b = **opened;
    const JobId before = submit(b, std::vector<Job>(2000, demoJobs()[4])).front();
    const std::string copy = f.dir.filePath("copy.db").toStdString();
    std::promise<std::variant<uint64_t, ApiError>> copied;
    b.backup(copy, [&](std::variant<uint64_t, ApiError> r) { copied.set_value(std::move(r)); });
    stepped.get_future().wait();  // the backup is under way, held after its first step
    const auto during = answerSoon<std::vector<JobId>>(
        [&](auto r) { b.submit({demoJobs()[0]}, Caller{}, std::nullopt, r); });
    release.set_value();
    QVERIFY2(during, "a submit waited for the backup");
    QVERIFY(ok(copied.get_future().get()) > 0);

    BackendConfig restored = f.config();
    restored.database = copy;
    auto fromCopy = Backend::open(restored);
    QVERIFY(fromCopy);
    QVERIFY(std::holds_alternative<JobInfo>(
        await<JobInfo>([&](auto r) { (*fromCopy)->job(before, r); })));
    const JobId later = during->front();
    QCOMPARE(kindOf(await<JobInfo>([&](auto r) { (*fromCopy)->job(later, r); })),
             ErrorKind::NotFound);
  }

  // An applied action runs no cycle itself; the backend runs one right after it instead of at
  // the next tick, so a released job starts at once.
  void anAppliedActionWakesTheCycle() {
    Fixture f;
    BackendConfig c = f.config();
    c.runCycles = true;
    c.cycleSeconds = 3600;  // no tick during the test
    auto opened = Backend::open(c);
    QVERIFY(opened);
    Backend& b = **opened;
    // Submitted held: holding it after submit would race the cycle the submit wakes.
    Job job = demoJobs()[4];
    job.held = true;
    const JobId held = submit(b, {job}).front();
    const auto stateOf = [&] {
      JobState s = JobState::Pending;
      b.inspect([&](const Engine& e) { s = e.job(held)->state; });
      return s;
    };
    QCOMPARE(stateOf(), JobState::Pending);
    QVERIFY(std::holds_alternative<CommandResult>(
        act(b, parse("{release: " + std::to_string(held) + "}"))));
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(), JobState::Running, 10000);
  }

  void aSnapshotShowsACommandAtOnce() {
    Fixture f;
    auto b = f.open();
    const auto nodeState = [&](const std::string& name) {
      const auto s = ok(await<ClusterSnapshot>([&](auto reply) { b->snapshot(reply); }));
      for (const NodeView& n : s.nodes)
        if (n.name == name) return n.state;
      return std::string("missing");
    };
    QCOMPARE(nodeState("pod-a-03"), std::string("up"));
    QCOMPARE(nodeState("pod-a-03"), std::string("up"));  // now from the published view
    QVERIFY(std::holds_alternative<CommandResult>(
        act(*b, parse("{drain: {node: pod-a-03, reason: psu}}"))));
    QCOMPARE(nodeState("pod-a-03"), std::string("draining"));
    QVERIFY(std::holds_alternative<CommandResult>(act(*b, parse("{undrain: pod-a-03}"))));
    QCOMPARE(nodeState("pod-a-03"), std::string("up"));
  }

  void scopeSeriesAddUpToTheCluster() {
    Fixture f;
    auto c = f.config();
    c.mode = BackendMode::SimulatedLive;
    auto b = Backend::open(c);
    QVERIFY(b);
    Backend& backend = **b;
    submit(backend, demoJobs());
    cycle(backend);
    const auto names = seriesNames(backend);
    QVERIFY(has(names, "gpus_tensor_active"));
    const double allocated = latest(backend, "gpus_allocated");
    QVERIFY(allocated > 10);
    std::vector<std::string> leaves, parents;
    backend.inspect([&](const Engine& e) {
      for (const Team& t : e.quotas().teams())
        (t.parent.empty() ? parents : leaves).push_back(t.name);
    });
    QVERIFY(!leaves.empty() && !parents.empty());
    // Every job belongs to a leaf team here: the leaves split the cluster's lines.
    for (const char* metric :
         {"gpus_allocated", "gpus_busy", "gpus_sm_active", "gpus_tensor_active"}) {
      double sum = 0;
      for (const auto& t : leaves) sum += latest(backend, scoped(metric, "team", t));
      QVERIFY2(std::abs(sum - latest(backend, metric)) < 1e-6, metric);
      double pools = 0;
      for (const char* pool : {"training", "inference", "dev"})
        pools += latest(backend, scoped(metric, "pool", pool));
      QVERIFY2(std::abs(pools - latest(backend, metric)) < 1e-6, metric);
    }
    // A department counts its teams.
    const double research = latest(backend, scoped("gpus_allocated", "team", "research"));
    QVERIFY(std::abs(research - latest(backend, scoped("gpus_allocated", "team", "llm")) -
                     latest(backend, scoped("gpus_allocated", "team", "vision"))) < 1e-6);
    QVERIFY(research > 0);
    // The telemetry model's order per job (a kernel ran >= SMs active >= tensor pipes active)
    // holds for any sum of jobs; all of it within the allocation.
    for (const auto& [label, value] : std::vector<std::pair<std::string, std::string>>{
             {"team", "llm"}, {"team", "research"}, {"pool", "training"}, {"pool", "dev"}}) {
      const double a = latest(backend, scoped("gpus_allocated", label, value));
      const double busy = latest(backend, scoped("gpus_busy", label, value));
      const double sm = latest(backend, scoped("gpus_sm_active", label, value));
      const double tensor = latest(backend, scoped("gpus_tensor_active", label, value));
      QVERIFY2(busy <= a + 1e-9 && sm <= busy + 1e-9 && tensor <= sm + 1e-9, value.c_str());
      QVERIFY2(a == 0 || tensor > 0 || value == "dev", value.c_str());
    }
    // Bounded: four series per team and per pool, whatever ran.
    const auto perScope = std::count_if(names.begin(), names.end(), [](const std::string& n) {
      return n.find("{team=") != std::string::npos && n.rfind("team_gpus", 0) != 0;
    });
    QCOMPARE(static_cast<size_t>(perScope), 4 * (leaves.size() + parents.size()));
  }

  void liveModeRecordsOnlyAllocationPerScope() {
    Fixture f;
    auto b = f.open();
    submit(*b, demoJobs());
    cycle(*b);
    const auto names = seriesNames(*b);
    QVERIFY(has(names, "gpus_allocated{team=\"llm\"}"));
    QVERIFY(has(names, "gpus_allocated{pool=\"training\"}"));
    QVERIFY(latest(*b, "gpus_allocated{team=\"llm\"}") > 0);
    // No telemetry in live mode: the lines are missing, not zero.
    for (const auto& n : names)
      QVERIFY2(n.rfind("gpus_busy", 0) != 0 && n.rfind("gpus_tensor_active", 0) != 0, n.c_str());
  }

  void aBlockedGangGetsAReservationInTheSnapshot() {
    Fixture f;
    auto b = f.open();
    const auto ids = submit(*b, {rackJob(), rackJob()});
    cycle(*b);
    ClusterSnapshot s = ok(await<ClusterSnapshot>([&](auto r) { b->snapshot(r); }));
    QCOMPARE(s.runningJobs, 1);
    QCOMPARE(s.reservations.size(), size_t{1});
    const ReservationView& r = s.reservations[0];
    QCOMPARE(r.kind, std::string("backfill"));
    QCOMPARE(r.id, "bf-" + std::to_string(ids[1]));
    QCOMPARE(r.job, ids[1]);
    QCOMPARE(r.team, std::string("llm"));
    QCOMPARE(r.start, f.now + 7200);  // when the first gang is expected to end
    QCOMPARE(r.end, std::optional<Seconds>(f.now + 2 * 7200));
    QCOMPARE(r.nodes.size(), size_t{16});
    // In the NVLink domain the running gang uses: the only one that can take the gang.
    std::string rack;
    std::map<std::string, std::string> domainOf;
    for (const NodeView& n : s.nodes) {
      if (n.gpus.empty()) continue;
      domainOf[n.name] = n.gpus[0].nvlinkDomain;
      for (const auto& o : n.gpus[0].occupants)
        if (o.job == ids[0]) rack = n.gpus[0].nvlinkDomain;
    }
    QVERIFY(!rack.empty());
    for (const auto& hold : r.nodes) {
      QCOMPARE(QString::fromStdString(domainOf[hold.node]), QString::fromStdString(rack));
      QCOMPARE(hold.gpus, std::vector<int>({0, 1, 2, 3}));
    }

    // An operator's window comes after the plan's, with its nodes.
    cmd::CreateReservation window{"fw-upgrade", {s.nodes[0].name}, f.now + 3600, f.now + 5400, ""};
    QVERIFY(std::holds_alternative<CommandResult>(act(*b, window)));
    s = ok(await<ClusterSnapshot>([&](auto r2) { b->snapshot(r2); }));
    QCOMPARE(s.reservations.size(), size_t{2});
    QCOMPARE(s.reservations[1].kind, std::string("maintenance"));
    QCOMPARE(s.reservations[1].id, std::string("fw-upgrade"));
    QCOMPARE(s.reservations[1].start, f.now + 3600);
    QCOMPARE(s.reservations[1].end, std::optional<Seconds>(f.now + 5400));
    QCOMPARE(s.reservations[1].nodes.size(), size_t{1});
    QCOMPARE(s.reservations[1].nodes[0].node, s.nodes[0].name);
    QCOMPARE(int(s.reservations[1].nodes[0].gpus.size()), int(s.nodes[0].gpus.size()));
  }

  void aDatabaseOfTheOtherModeIsRefused() {
    Fixture f;
    { f.open(); }
    auto c = f.config();
    c.mode = BackendMode::SimulatedLive;
    auto b = Backend::open(c);
    QVERIFY(!b);
    QVERIFY2(b.error().message.find("live mode") != std::string::npos, b.error().message.c_str());
  }
};

QTEST_GUILESS_MAIN(TstBackend)
#include "tst_backend.moc"
