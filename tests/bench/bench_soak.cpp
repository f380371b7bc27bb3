// tesserad for months (tesserad-for-months issue): a soak of the headless backend. Simulated-live
// mode on a 6,000-GPU cluster at high speed for 30 simulated days, with synthetic load shaped so
// that over a million jobs are submitted, run and finish; durability on (SQLite WAL,
// synchronous=FULL), cycles back to back. It samples the process's resident memory once per
// simulated day and states the growth after warm-up (target < 10 %), the jobs and events that
// went through, the cycle times, and then reopens the database it left (1M finished jobs kept:
// retention off; the event log topped up to 10M with synthetic audit lines) to time a restart to
// serving (target < 5 s).
//
// Run: build/release/tests/bench/bench_soak [--days D] [--nodes N] [--arrivals-per-hour A]
//      [--runtime-scale S] [--speed X] [--warmup-days W] [--restart-events N] [--dir DIR]
//      [--keep-db] [--smoke]
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_backend.h"
#include "bench_stats.h"
#include "bench_store.h"
#include "clusterspec/cluster_spec.h"
#include "service/backend.h"
#include "workload/workload_spec.h"

using namespace tessera;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  double days = 30;
  int nodes = 750;  // x 8 GPUs
  double arrivalsPerHour = 1500;
  double runtimeScale = 0.015;
  double speed = 6000;  // engine seconds per wall second
  double warmupDays = 3;
  std::string dir;
  size_t restartEvents = 10'000'000;  // the event log is topped up to this before the restart
  bool keepDb = false;
  bool smoke = false;
};

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "bench_soak: %s\n", why.c_str());
  std::exit(1);
}

std::string utcNow() {
  const std::time_t t = std::time(nullptr);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return out;
}

// What the engine holds, read on its thread.
struct EngineFigures {
  Seconds now = 0;
  JobId lastJob = 0;  // ids are given in order: the jobs submitted so far
  size_t inMemory = 0, finishedInMemory = 0, pending = 0, running = 0, events = 0;
  uint64_t eventCount = 0;
};

EngineFigures figuresOf(Backend& b) {
  EngineFigures f;
  b.inspect([&f](const Engine& e) {
    f.now = e.now();
    const auto all = e.jobs();
    f.inMemory = all.size();
    f.lastJob = all.empty() ? 0 : all.back()->job.id;
    f.finishedInMemory = e.finishedInMemory();
    f.pending = e.pending().size();
    f.running = e.running().size();
    f.events = e.events().size();
    f.eventCount = e.eventCount();
  });
  return f;
}

struct DaySample {
  double day = 0, rss = 0;
  EngineFigures engine;
};

BackendConfig configFor(const Options& o, const std::string& db, std::mutex& m,
                        std::vector<double>& cycleMs) {
  BackendConfig c;
  c.database = db;
  c.mode = BackendMode::SimulatedLive;
  c.cluster = bench::dgxCluster(o.nodes, "bench-soak");
  auto w = demoWorkload();
  if (!w) fail("demo workload: " + w.error().str());
  c.tenants = std::move(*w);
  c.tenants.jobs.clear();
  // The demo teams' quotas are sized for the 392-GPU demo cluster: on this one they would only
  // grow the queue. Fair share stays on.
  for (Team& t : c.tenants.teams) t.quotas.clear();
  c.speed = o.speed;
  c.arrivalsPerHour = o.arrivalsPerHour;
  c.runtimeScale = o.runtimeScale;
  c.cycleSeconds = 0.05;
  c.sampleEvery = 300;
  c.onCycle = [&m, &cycleMs](const CycleReport& r) {
    std::lock_guard lock(m);
    cycleMs.push_back(r.stats.cycleMs);
  };
  return c;
}

void printDay(const DaySample& s) {
  const EngineFigures& e = s.engine;
  std::printf(
      "  day %5.1f  rss %7.1f MiB  submitted %8lld  pending %6zu  running %5zu  in memory %6zu "
      "(finished %5zu)  events %9llu (in memory %6zu)\n",
      s.day, s.rss, static_cast<long long>(e.lastJob), e.pending, e.running, e.inMemory,
      e.finishedInMemory, static_cast<unsigned long long>(e.eventCount), e.events);
  std::fflush(stdout);
}

std::vector<DaySample> soak(const Options& o, const std::string& db, std::vector<double>& cycleMs) {
  std::mutex m;
  auto backend = Backend::open(configFor(o, db, m, cycleMs));
  if (!backend) fail("backend: " + backend.error().str());
  Backend& b = **backend;
  std::vector<DaySample> days;
  double nextDay = 0;
  const Seconds start = figuresOf(b).now;
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const EngineFigures f = figuresOf(b);
    const double day = static_cast<double>(f.now - start) / 86400.0;
    if (day < nextDay && day < o.days) continue;
    days.push_back({day, bench::rssMiB(), f});
    printDay(days.back());
    nextDay = std::floor(day) + 1;
    if (day >= o.days) break;
  }
  b.stop();
  return days;
}

double restartSeconds(const Options& o, const std::string& db) {
  std::mutex m;
  std::vector<double> ignored;
  BackendConfig c = configFor(o, db, m, ignored);
  c.runCycles = false;
  c.onCycle = nullptr;
  const auto t0 = Clock::now();
  auto backend = Backend::open(c);
  if (!backend) fail("restart: " + backend.error().str());
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("  restart: %.2f s to serving (restored %zu active jobs in %.2f s)\n", s,
              (*backend)->restoredJobs(), (*backend)->restoreSeconds());
  (*backend)->stop();
  return s;
}

int run(const Options& o) {
  const std::string dir =
      o.dir.empty()
          ? (fs::temp_directory_path() / ("bench_soak." + std::to_string(getpid()))).string()
          : o.dir;
  fs::create_directories(dir);
  const std::string db = dir + "/soak.db";
  fs::remove(db);
  std::printf("bench_soak  %s\n  machine: %s, %u hardware threads\n", utcNow().c_str(),
              bench::cpuModel().c_str(), std::thread::hardware_concurrency());
  std::printf(
      "  %d nodes x 8 GPUs, %.0f arrivals/h, runtime scale %.3f, speed %.0fx, %.1f days, "
      "warm-up %.1f days, database %s\n",
      o.nodes, o.arrivalsPerHour, o.runtimeScale, o.speed, o.days, o.warmupDays, db.c_str());
  std::vector<double> cycleMs;
  const auto t0 = Clock::now();
  const auto days = soak(o, db, cycleMs);
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();

  const DaySample* warm = nullptr;
  for (const DaySample& d : days)
    if (d.day >= o.warmupDays) {
      warm = &d;
      break;
    }
  const DaySample& last = days.back();
  const EngineFigures& e = last.engine;
  const auto finished =
      static_cast<long long>(e.lastJob) - static_cast<long long>(e.pending + e.running);
  std::printf(
      "\n  wall %.0f s; jobs submitted %lld, finished %lld; events %llu; database %.0f MiB\n", wall,
      static_cast<long long>(e.lastJob), finished, static_cast<unsigned long long>(e.eventCount),
      static_cast<double>(fs::file_size(db)) / (1 << 20));
  const bench::Summary cycles = bench::summarize(cycleMs);
  bench::printSummary("soak.cycle", cycles, "ms");
  if (warm && warm != &last) {
    const double growth = (last.rss - warm->rss) / warm->rss * 100;
    std::printf(
        "  RSS after warm-up (day %.1f) %.1f MiB, at the end (day %.1f) %.1f MiB: %+.1f %% "
        "(target < 10 %%) %s\n",
        warm->day, warm->rss, last.day, last.rss, growth, growth < 10 ? "MET" : "NOT MET");
    bench::printResult("soak.rss_growth", growth, "%", days.size());
  }
  bench::printResult("soak.jobs_finished", static_cast<double>(finished), "jobs", 1);
  const size_t events = std::max<size_t>(o.restartEvents, e.eventCount);
  if (auto st = bench::appendEvents(db, events); !st) fail(st.error().str());
  const double restart = restartSeconds(o, db);
  std::printf(
      "  restart with %lld finished jobs and %zu events (synthetic audit lines added): %.2f s "
      "(target < 5 s) %s\n",
      finished, events, restart, restart < 5 ? "MET" : "NOT MET");
  bench::printResult("soak.restart", restart, "s", 1);
  if (!o.keepDb) fs::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"tesserad soak: memory over 30 simulated days and 1M jobs, then a restart"};
  app.add_option("--days", o.days, "Simulated days to run");
  app.add_option("--nodes", o.nodes, "Nodes of 8 H100 GPUs");
  app.add_option("--arrivals-per-hour", o.arrivalsPerHour, "Synthetic arrivals per engine hour");
  app.add_option("--runtime-scale", o.runtimeScale, "Multiplies synthetic runtimes");
  app.add_option("--speed", o.speed, "Engine seconds per wall second");
  app.add_option("--warmup-days", o.warmupDays, "Days before the memory baseline");
  app.add_option("--dir", o.dir, "Directory for the database (default: a temporary one)");
  app.add_option("--restart-events", o.restartEvents,
                 "Events in the log before the restart is timed (synthetic audit lines)");
  app.add_flag("--keep-db", o.keepDb, "Keep the database afterwards");
  app.add_flag("--smoke", o.smoke, "A few simulated hours on a small cluster (ctest)");
  CLI11_PARSE(app, argc, argv);
  if (o.smoke) {
    o.days = 0.3;
    o.nodes = 50;
    o.arrivalsPerHour = 300;
    o.speed = 20000;
    o.warmupDays = 0.1;
    o.restartEvents = 5000;
  }
  return run(o);
}
