#pragma once
// The terminal console's fixture: the demo cluster with the demo workload submitted and one
// scheduling cycle run, on a fixed clock (engine time 5000), read into a tui::State exactly as
// the program's Feed reads a session - a fixed-seed snapshot whose screens never change between
// runs. Utilization history is a fixed ramp (the Backend has no telemetry in this mode).
#include <QTemporaryDir>
#include <QtTest>

#include <clocale>
#include <functional>
#include <memory>
#include <optional>

#include "../service/backend_test_util.h"
#include "../service/demo_backend.h"
#include "tui/feed.h"
#include "tui/state.h"

namespace tessera::test {

struct TuiDemo {
  QTemporaryDir dir;
  std::shared_ptr<Backend> backend;
  std::unique_ptr<tui::Feed> feed;
  tui::State state;

  // Another cluster and workload than the demo's: `adjust` sets the cluster and teams,
  // `workload` holds the jobs submitted.
  explicit TuiDemo(const std::function<void(BackendConfig&)>& adjust = {},
                   std::optional<Workload> workload = std::nullopt) {
    std::setlocale(LC_ALL, "C.UTF-8");  // wcwidth counts CJK and box glyphs as the terminal does
    backend = openDemoBackend(dir.filePath(QStringLiteral("tui.db")), 5000, adjust);
    auto w = workload ? Expected<Workload>(*workload) : demoWorkload();
    std::vector<Job> jobs = w->jobs;
    for (Job& j : jobs) j.id = kNoJob;
    ok(await<std::vector<JobId>>(
        [&](auto r) { backend->submit(jobs, Caller{"demo"}, std::nullopt, r); }));
    ok(await<CycleStats>([&](auto r) { backend->cycleNow(r); }));
    feed = std::make_unique<tui::Feed>(backend, nullptr);
    state.data = feed->fetch({}, kNoJob);
    state.data.source = "demo";
    state.data.history.clear();
    for (int i = 0; i < 30; ++i) state.data.history.push_back({i / 30.0, i / 60.0, i / 90.0});
  }
  // The first pending job that is not held (the demo has a few).
  JobId pendingJob() const {
    for (const JobInfo& j : state.data.jobs)
      if (j.row.state == JobState::Pending && !j.row.job.held) return j.row.job.id;
    qFatal("the demo has no pending job");
  }
  void explain(JobId job) { state.data = feed->fetch(state.data, job); }
};

}  // namespace tessera::test
