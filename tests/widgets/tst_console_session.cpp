// The console's session adapter: replies arrive as signals on the GUI thread, actions report
// their result or the engine's refusal, explanations come back for the asked job, and a
// destroyed adapter receives nothing (the worker threads never touch it).
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <condition_variable>
#include <mutex>
#include <optional>

#include "../service/demo_backend.h"
#include "clusterspec/cluster_spec.h"
#include "console_session.h"
#include "service/backend.h"
#include "service/node_inventory_source.h"

using namespace tessera;
using tessera::widgets::ConsoleSession;

Q_DECLARE_METATYPE(tessera::ClusterSnapshot)
Q_DECLARE_METATYPE(std::vector<tessera::JobInfo>)
Q_DECLARE_METATYPE(tessera::Explanation)
Q_DECLARE_METATYPE(tessera::CommandResult)
Q_DECLARE_METATYPE(std::vector<tessera::NodeInventoryView>)

namespace {

std::shared_ptr<Backend> embedded(const QTemporaryDir& dir) {
  return test::openDemoBackend(dir.filePath("console.db"), 100);
}

JobId submitBig(Backend& b) {
  Job j = test::demoJobThatWaits();
  std::promise<JobId> p;
  b.submit({j}, Caller{}, std::nullopt, [&](std::variant<std::vector<JobId>, ApiError> r) {
    p.set_value(std::get<std::vector<JobId>>(r)[0]);
  });
  return p.get_future().get();
}

// Explanations under the test's control: each explain call parks its reply until the test lets
// it go, so the order in which brief and whole answers arrive is the test's choice.
class ParkedExplanations : public ClusterSession {
 public:
  struct Parked {
    Explanation answer;
    Reply<Explanation> reply;
  };
  void submit(std::vector<Job>, const Caller&, Deadline, Reply<std::vector<JobId>> r) override {
    r(ApiError{ErrorKind::Unavailable, "not here"});
  }
  void job(JobId, Reply<JobInfo> r) override { r(ApiError{ErrorKind::Unavailable, "not here"}); }
  void jobs(JobFilter, Reply<JobPage> r) override {
    r(ApiError{ErrorKind::Unavailable, "not here"});
  }
  void act(Command, bool, const Caller&, Deadline, Reply<CommandResult> r) override {
    r(ApiError{ErrorKind::Unavailable, "not here"});
  }
  void snapshot(Reply<ClusterSnapshot> r) override {
    r(ApiError{ErrorKind::Unavailable, "not here"});
  }
  void metrics(MetricQuery, Reply<MetricAnswer> r) override {
    r(ApiError{ErrorKind::Unavailable, "not here"});
  }
  void report(ReportRequest, Reply<Report> r) override {
    r(ApiError{ErrorKind::Unavailable, "not here"});
  }
  CancelWatch watchChanges(std::function<void()>) override {
    return [] {};
  }
  void explainJob(JobId id, Reply<Explanation> r) override { park(whole_, id, "whole", r); }
  void explainBrief(JobId id, Reply<Explanation> r) override { park(brief_, id, "brief", r); }

  // Waits for the call, then answers it.
  void releaseWhole() { release(whole_); }
  void releaseBrief() { release(brief_); }

 private:
  void park(std::optional<Parked>& slot, JobId id, const char* which, Reply<Explanation> r) {
    std::lock_guard lock(mutex_);
    Explanation x;
    x.job = id;
    x.dominantReason = literal(which);
    slot = Parked{std::move(x), std::move(r)};
    arrived_.notify_all();
  }
  void release(std::optional<Parked>& slot) {
    std::unique_lock lock(mutex_);
    arrived_.wait(lock, [&] { return slot.has_value(); });
    Parked p = std::move(*slot);
    slot.reset();
    lock.unlock();
    p.reply(std::move(p.answer));
  }
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::optional<Parked> whole_, brief_;
};

// A session that keeps node inventories (as tesserad and the embedded backend do).
class WithInventory final : public ParkedExplanations, public NodeInventorySource {
 public:
  void nodeInventory(Reply<std::vector<NodeInventoryView>> r) override {
    NodeInventoryView v;
    v.node = "gpu-new";
    v.admission = Admission::Pending;
    r(std::vector<NodeInventoryView>{v});
  }
};

std::string reasonOf(const QSignalSpy& spy, int i) {
  return spy.at(i).at(0).value<Explanation>().dominantReason.english();
}

}  // namespace

class TstConsoleSession : public QObject {
  Q_OBJECT

 private slots:
  void repliesArriveAsSignals() {
    QTemporaryDir dir;
    auto backend = embedded(dir);
    const JobId id = submitBig(*backend);
    ConsoleSession s(backend, "embedded");
    QSignalSpy snapshots(&s, &ConsoleSession::snapshotReady);
    QSignalSpy jobs(&s, &ConsoleSession::jobsReady);
    s.refresh();
    QTRY_COMPARE(snapshots.count(), 1);
    QTRY_COMPARE(jobs.count(), 1);
    const auto snap = snapshots.at(0).at(0).value<ClusterSnapshot>();
    QCOMPARE(snap.nodes.size(), size_t{62});
    QCOMPARE(snap.pendingJobs, 1);
    const auto list = jobs.at(0).at(0).value<std::vector<JobInfo>>();
    QCOMPARE(list.size(), size_t{1});
    QCOMPARE(list[0].row.job.id, id);
  }

  // A session that keeps node inventories sends them with each refresh; one that does not sends
  // nothing (and the refresh still brings the rest).
  void nodeInventoriesArriveFromSessionsThatKeepThem() {
    ConsoleSession with(std::make_shared<WithInventory>(), "inventory");
    QSignalSpy nodes(&with, &ConsoleSession::nodeInventoryReady);
    with.refresh();
    QTRY_COMPARE(nodes.count(), 1);
    const auto list = nodes.at(0).at(0).value<std::vector<NodeInventoryView>>();
    QCOMPARE(list.size(), size_t{1});
    QCOMPARE(list[0].node, std::string("gpu-new"));
    QCOMPARE(list[0].admission, Admission::Pending);

    ConsoleSession without(std::make_shared<ParkedExplanations>(), "parked");
    QSignalSpy none(&without, &ConsoleSession::nodeInventoryReady);
    QSignalSpy errors(&without, &ConsoleSession::sessionError);
    without.refresh();
    QTRY_COMPARE(errors.count(), 1);  // the snapshot's answer came back
    QTest::qWait(50);
    QCOMPARE(none.count(), 0);
  }

  void actionsReportResultOrRefusal() {
    QTemporaryDir dir;
    auto backend = embedded(dir);
    const JobId id = submitBig(*backend);
    ConsoleSession s(backend, "embedded");
    QSignalSpy done(&s, &ConsoleSession::actionDone);
    QSignalSpy failed(&s, &ConsoleSession::actionFailed);
    s.act(cmd::Hold{id}, true);
    QTRY_COMPARE(done.count(), 1);
    QCOMPARE(done.at(0).at(2).toBool(), true);  // dry run
    s.act(cmd::Hold{99999}, false);
    QTRY_COMPARE(failed.count(), 1);
    QVERIFY(failed.at(0).at(1).toString().contains("99999"));
    QSignalSpy explained(&s, &ConsoleSession::explanationReady);
    s.explain(id);
    // The brief answer and then the whole one, or the whole one alone when it came first.
    QTRY_VERIFY(explained.count() >= 1);
    for (const auto& signal : explained) QCOMPARE(signal.at(0).value<Explanation>().job, id);
  }

  // The inspector shows the last cycle's verdict at once, and the whole explanation when the
  // engine has worked it out.
  void theBriefVerdictComesFirstThenTheWholeExplanation() {
    auto parked = std::make_shared<ParkedExplanations>();
    ConsoleSession s(parked, "parked");
    QSignalSpy explained(&s, &ConsoleSession::explanationReady);
    s.explain(7);
    parked->releaseBrief();
    QTRY_COMPARE(explained.count(), 1);
    QCOMPARE(reasonOf(explained, 0), std::string("brief"));
    parked->releaseWhole();
    QTRY_COMPARE(explained.count(), 2);
    QCOMPARE(reasonOf(explained, 1), std::string("whole"));
    QCOMPARE(explained.at(1).at(0).value<Explanation>().job, JobId{7});
  }

  // A brief answer that arrives after the whole one would replace more with less.
  void aBriefAnswerAfterTheWholeOneIsDropped() {
    auto parked = std::make_shared<ParkedExplanations>();
    ConsoleSession s(parked, "parked");
    QSignalSpy explained(&s, &ConsoleSession::explanationReady);
    s.explain(7);
    parked->releaseWhole();
    QTRY_COMPARE(explained.count(), 1);
    parked->releaseBrief();
    // The late reply goes through the worker and the GUI thread's queue like the first did.
    QTest::qWait(200);
    QCOMPARE(explained.count(), 1);
    QCOMPARE(reasonOf(explained, 0), std::string("whole"));
  }

  void aDestroyedAdapterReceivesNothing() {
    QTemporaryDir dir;
    auto backend = embedded(dir);
    auto* s = new ConsoleSession(backend, "embedded");
    s->refresh();
    delete s;  // replies still in flight must not reach it
    QTest::qWait(300);
    backend->inspect([](const Engine&) {});  // the backend is still fine
  }
};

QTEST_MAIN(TstConsoleSession)
#include "tst_console_session.moc"
