// The jobs view tesserad publishes for reads (service/jobs_view.h): a view rebuilt in place over
// the one before the last must read exactly as a view built afresh, and a view a reader still
// holds is never written.
#include <QtTest>

#include "../scheduler/engine_fixture.h"
#include "service/jobs_view.h"
#include "service/simulated_world.h"

using namespace tessera;

namespace {

using test::cluster;

Engine engine() {
  auto made = Engine::create(cluster(), test::tenants(), Policy{});
  if (!made) qFatal("%s", made.error().str().c_str());
  return std::move(*made);
}

Job job(JobId id, int gpus, int tasks = 1) {
  Job j = test::job(id, gpus);
  j.tasks = tasks;
  return j;
}

// Everything a read shows of an entry, as text, so two views compare whole.
std::string shown(const JobLive& j) {
  std::ostringstream o;
  o << j.id << '/' << j.job->id << ' ' << j.job->name << ' ' << int(j.state) << ' ' << j.startTime
    << ' ' << j.endTime << ' ' << j.preemptions << ' ' << j.gpuHoursLost << " ["
    << j.reason.english() << "] " << j.actualRuntime.value_or(-1) << ' ' << j.queuePosition << ' '
    << j.eta.value_or(-1) << " [" << j.blockedBy << "] w";
  for (JobId w : j.waitingFor) o << ' ' << w;
  o << " p";
  for (const PlacedTask& t : j.placement) {
    o << ' ' << t.node << ':' << t.migStart;
    for (int g : t.gpus) o << ',' << g;
  }
  o << " x" << j.external.has_value();
  return o.str();
}

std::vector<std::string> shown(const JobsView& v) {
  std::vector<std::string> rows;
  for (const JobLive& j : v.jobs) rows.push_back(shown(j));
  rows.push_back("pending " + std::to_string(v.pending));
  return rows;
}

}  // namespace

class TstJobsView : public QObject {
  Q_OBJECT

 private slots:
  // Jobs start, finish, wait with a plan, get a measured runtime and lose it, and the engine
  // forgets finished ones (the table shrinks): after each change the view rebuilt over an older
  // one reads as one built from nothing.
  void rebuiltInPlaceReadsAsBuiltAfresh() {
    Engine e = engine();
    SimulatedWorld world(SimulatedWorldConfig{});
    std::unordered_map<JobId, Seconds> actual;
    JobsViewBuilder builder;
    for (JobId id = 1; id <= 6; ++id) QVERIFY(e.submit(job(id, id == 3 ? 4 : 2, id == 3 ? 2 : 1)));
    e.runCycle();
    actual[1] = 1800;
    int reused = 0;
    const auto step = [&](const char* what) {
      std::vector<JobId> all;
      for (const JobRecord* r : e.jobs()) all.push_back(r->job.id);
      builder.touched(all);
      const auto view = builder.build(e, world, actual);
      reused += builder.lastBuildReused();
      JobsViewBuilder fresh;
      QCOMPARE(shown(*view), shown(*fresh.build(e, world, actual)));
      QVERIFY2(!view->jobs.empty(), what);
    };
    step("first");
    step("second");  // nothing changed
    QVERIFY(e.complete(1));
    actual.erase(1);
    QVERIFY(e.advanceTo(600));
    e.runCycle();
    step("a job finished and another started");
    e.runCycle();
    step("plans again");
    QVERIFY(e.advanceTo(4000));
    for (const JobRecord* r : e.running()) QVERIFY(e.complete(r->job.id));
    e.runCycle();
    step("everything ran once");
    for (const JobRecord* r : e.running()) QVERIFY(e.complete(r->job.id));
    QVERIFY(e.advanceTo(8000));
    (void)e.forgetHistory(7999, 0);
    step("finished jobs forgotten");
    QVERIFY(e.jobs().size() < 6);  // not vacuous: the table did shrink
    QVERIFY(reused >= 4);          // and the in-place path was the one compared
  }

  // A reader holding the view before the last keeps it unchanged: the builder makes a new one.
  void aViewAReaderHoldsIsNeverWritten() {
    Engine e = engine();
    SimulatedWorld world(SimulatedWorldConfig{});
    const std::unordered_map<JobId, Seconds> actual;
    JobsViewBuilder builder;
    for (JobId id = 1; id <= 3; ++id) QVERIFY(e.submit(job(id, 4)));
    auto held = builder.build(e, world, actual);  // all pending
    const std::vector<std::string> before = shown(*held);
    e.runCycle();  // two start
    (void)builder.build(e, world, actual);
    e.runCycle();
    auto third = builder.build(e, world, actual);
    QVERIFY(!builder.lastBuildReused());
    QCOMPARE(shown(*held), before);
    QVERIFY(shown(*third) != before);  // not vacuous: the jobs did change
    // Once the readers let go, the next build reuses the view before the last.
    held.reset();
    third.reset();
    (void)builder.build(e, world, actual);
    QVERIFY(builder.lastBuildReused());
  }
};

QTEST_GUILESS_MAIN(TstJobsView)
#include "tst_jobs_view.moc"
