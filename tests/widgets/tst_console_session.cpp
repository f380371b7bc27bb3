// The console's session adapter: replies arrive as signals on the GUI thread, actions report
// their result or the engine's refusal, explanations come back for the asked job, and a
// destroyed adapter receives nothing (the worker threads never touch it).
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "../service/demo_backend.h"
#include "clusterspec/cluster_spec.h"
#include "console_session.h"
#include "service/backend.h"

using namespace tessera;
using tessera::widgets::ConsoleSession;

Q_DECLARE_METATYPE(tessera::ClusterSnapshot)
Q_DECLARE_METATYPE(std::vector<tessera::JobInfo>)
Q_DECLARE_METATYPE(tessera::Explanation)
Q_DECLARE_METATYPE(tessera::CommandResult)

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
    QTRY_COMPARE(explained.count(), 1);
    QCOMPARE(explained.at(0).at(0).value<Explanation>().job, id);
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
