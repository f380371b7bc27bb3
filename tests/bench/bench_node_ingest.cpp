// Node agents at cluster scale (issue 24): N nodes of 8 H100s each (1,000 by default) report their
// inventory and push a dcgm-exporter scrape every `interval` seconds (10), through the real gRPC
// server on loopback with durability on, while R readers call GetSnapshot and GetJob in a loop.
// The readers' p99 is measured first without the agents (baseline) and then with them; the
// target is "reads p99 unchanged" (within 25 % here, or 1 ms, whichever is larger, since two
// runs of the same phase differ by that much on a shared machine). Also: the time the first
// inventory of every node takes, and the pushes' own latency. Every push in the loaded phase is
// a full scrape; inventories are re-sent by every agent each interval, the worst case (an agent
// sends one only when it changes).
//
// Figures are printed with MET / NOT MET and as RESULT lines (bench_stats.h); the exit code is
// non-zero only on errors (a refused push or read), never for a missed target.
//
// Run: build/release/tests/bench/bench_node_ingest [--nodes N] [--interval S] [--seconds S]
//      [--readers R] [--jobs J] [--telemetry-refresh S] [--inventories-at-start] [--smoke]
// --inventories-at-start: as `tessera agent` does, each node reports its inventory once (the first
// phase) and then pushes telemetry alone; by default every push is followed by the inventory
// again, the worst case.
// --telemetry-refresh is tesserad's telemetry.refresh (default 1 s, as the daemon has it; 0: every
// push makes the published views stale, as before that setting existed).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench_stats.h"
#include "clusterspec/cluster_spec.h"
#include "rpc/client.h"
#include "rpc/convert.h"
#include "rpc/server.h"
#include "service/backend.h"
#include "workload/workload_spec.h"

using namespace tessera;
namespace fs = std::filesystem;
namespace v1 = tessera::v1;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  int nodes = 1000;
  double interval = 10;
  double seconds = 30;
  int readers = 2;
  int jobs = 2000;
  double telemetryRefresh = 1;
  bool inventoriesAtStart = false;
  bool smoke = false;
};

[[noreturn]] void fail(const std::string& why) {
  throw std::runtime_error(why);
}

std::string nodeName(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "n%04d", i + 1);
  return buf;
}

std::shared_ptr<const Cluster> cluster(int nodes) {
  const std::string spec =
      "version: 1\nname: ingest\nnode_templates:\n  h100x8: {gpu_model: H100-SXM5-80GB, gpus: 8}\n"
      "fabric:\n  leafs:\n    - {name: leaf-1}\ngroups:\n  - {name: n, template: h100x8, nodes: "
      "\"n[0001-" +
      nodeName(nodes - 1).substr(1) + "]\", leaf: leaf-1}\n";
  auto c = loadClusterSpec(spec, "ingest.yaml");
  if (!c) fail("cluster: " + c.error().str());
  return *c;
}

v1::ReportInventoryRequest inventory(const std::string& node) {
  v1::ReportInventoryRequest r;
  r.set_node(node);
  r.set_hostname(node);
  r.set_source("nvml");
  r.set_driver_version("580.159.04");
  for (uint32_t g = 0; g < 8; ++g) {
    auto* gpu = r.add_gpus();
    gpu->set_index(g);
    gpu->set_name("NVIDIA H100 80GB HBM3");
    gpu->set_model("H100-SXM5-80GB");
    gpu->set_uuid("GPU-" + node + "-" + std::to_string(g));
    gpu->set_memory_mib(81559);
    gpu->set_mig_supported(true);
  }
  return r;
}

// What `tessera node sample` prints for 8 GPUs: utilization, memory, temperature, power.
std::string scrape(const std::string& node, int tick) {
  std::string out;
  for (const char* metric : {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE",
                             "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE"})
    for (int g = 0; g < 8; ++g)
      out += std::string(metric) + "{gpu=\"" + std::to_string(g) + "\",Hostname=\"" + node +
             "\",modelName=\"NVIDIA H100 80GB HBM3\"} " + std::to_string((tick + g) % 100) + "\n";
  return out;
}

struct Stack {
  std::unique_ptr<Backend> backend;
  std::unique_ptr<rpc::ApiServer> server;
  std::string address;
};

Stack start(const std::string& db, const Options& o) {
  BackendConfig c;
  c.database = db;
  c.mode = BackendMode::Live;
  c.cluster = cluster(o.nodes);
  auto tenants = demoWorkload();  // the demo's teams and classes, none of its jobs
  if (!tenants) fail("demo workload: " + tenants.error().str());
  c.tenants = std::move(*tenants);
  c.tenants.jobs.clear();
  c.cycleSeconds = 1;
  c.readingsRefreshSeconds = o.telemetryRefresh;
  Stack s;
  auto backend = Backend::open(std::move(c));
  if (!backend) fail("backend: " + backend.error().str());
  s.backend = std::move(*backend);
  rpc::ServerOptions so;
  so.listen = "127.0.0.1:0";
  so.ratePerSecond = 1e9;
  so.rateBurst = 1e9;
  auto server = rpc::ApiServer::start(*s.backend, so);
  if (!server) fail("server: " + server.error().str());
  s.server = std::move(*server);
  s.address = "127.0.0.1:" + std::to_string(s.server->port());
  return s;
}

std::unique_ptr<rpc::RemoteSession> client(const std::string& address) {
  rpc::ClientOptions o;
  o.address = address;
  o.timeoutSeconds = 30;
  auto c = rpc::RemoteSession::connect(o);
  if (!c) fail("client: " + c.error().str());
  return std::move(*c);
}

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

template <class Call>
void timed(std::vector<double>& ms, std::mutex& m, Call call) {
  const auto t0 = Clock::now();
  const grpc::Status st = call();
  if (!st.ok()) fail(st.error_message());
  const double d = msSince(t0);
  const std::lock_guard lock(m);
  ms.push_back(d);
}

// Readers in a loop until `stop`: GetSnapshot and GetJob alternately, each latency kept.
std::vector<double> readUntil(const std::string& address, int readers, JobId job,
                              const std::atomic<bool>& stop) {
  std::vector<double> ms;
  std::mutex m;
  std::vector<std::thread> threads;
  for (int r = 0; r < readers; ++r)
    threads.emplace_back([&] {
      auto c = client(address);
      for (int i = 0; !stop.load(); ++i) {
        grpc::ClientContext ctx;
        c->prepare(ctx);
        if (i % 2 == 0) {
          v1::ClusterSnapshot snap;
          timed(ms, m, [&] { return c->stub().GetSnapshot(&ctx, {}, &snap); });
        } else {
          v1::GetJobRequest q;
          q.set_id(job);
          v1::Job j;
          timed(ms, m, [&] { return c->stub().GetJob(&ctx, q, &j); });
        }
      }
    });
  for (auto& t : threads) t.join();
  return ms;
}

JobId submitJobs(const std::string& address, int jobs) {
  auto c = client(address);
  v1::SubmitBatchRequest batch;
  for (int i = 0; i < jobs; ++i) {
    auto* j = batch.add_jobs();
    j->set_team("vision");
    j->mutable_per_task()->set_gpus(static_cast<uint32_t>(1 + i % 8));
  }
  grpc::ClientContext ctx;
  c->prepare(ctx);
  v1::SubmitBatchResponse ids;
  const grpc::Status st = c->stub().SubmitBatch(&ctx, batch, &ids);
  if (!st.ok()) fail("submit: " + st.error_message());
  return ids.ids(ids.ids_size() / 2);
}

struct Agents {
  std::vector<double> inventoryMs, pushMs;
  std::mutex m;
};

// Every node once: its first inventory (the model check of all its GPUs).
double reportAll(const std::string& address, int nodes, Agents& a) {
  auto c = client(address);
  const auto t0 = Clock::now();
  for (int i = 0; i < nodes; ++i) {
    grpc::ClientContext ctx;
    c->prepare(ctx);
    v1::ReportInventoryResponse r;
    timed(a.inventoryMs, a.m,
          [&] { return c->stub().ReportInventory(&ctx, inventory(nodeName(i)), &r); });
  }
  return msSince(t0) / 1000;
}

// `senders` threads share the nodes; each node pushes its scrape and (unless
// --inventories-at-start) re-reports its inventory once per interval, spread evenly over it.
void pushUntil(const std::string& address, const Options& o, Agents& a,
               const std::atomic<bool>& stop) {
  constexpr int kSenders = 4;
  std::vector<std::thread> threads;
  for (int s = 0; s < kSenders; ++s)
    threads.emplace_back([&, s] {
      auto c = client(address);
      const auto gap = std::chrono::duration<double>(o.interval * kSenders / o.nodes);
      auto next = Clock::now();
      for (int tick = 0, i = s; !stop.load(); i += kSenders) {
        if (i >= o.nodes) i = s, ++tick;
        std::this_thread::sleep_until(next);
        next += std::chrono::duration_cast<Clock::duration>(gap);
        grpc::ClientContext pctx, ictx;
        c->prepare(pctx);
        c->prepare(ictx);
        v1::PushTelemetryRequest push;
        push.set_exposition(scrape(nodeName(i), tick));
        v1::PushTelemetryResponse pr;
        timed(a.pushMs, a.m, [&] { return c->stub().PushTelemetry(&pctx, push, &pr); });
        if (o.inventoriesAtStart) continue;
        v1::ReportInventoryResponse ir;
        timed(a.inventoryMs, a.m,
              [&] { return c->stub().ReportInventory(&ictx, inventory(nodeName(i)), &ir); });
      }
    });
  for (auto& t : threads) t.join();
}

std::vector<double> readPhase(const std::string& address, const Options& o, JobId job,
                              const std::function<void(const std::atomic<bool>&)>& load) {
  std::atomic<bool> stop{false};
  std::thread loader([&] {
    if (load) load(stop);
  });
  std::vector<double> ms;
  std::thread reader([&] { ms = readUntil(address, o.readers, job, stop); });
  std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
  stop = true;
  reader.join();
  loader.join();
  return ms;
}

int run(const Options& o) {
  const fs::path dir =
      fs::temp_directory_path() / ("bench_node_ingest-" + std::to_string(getpid()));
  fs::create_directories(dir);
  Stack s = start((dir / "ingest.db").string(), o);
  std::printf(
      "bench_node_ingest: %d nodes x 8 GPUs, interval %.3g s, %d readers, %d jobs, "
      "%.3g s per phase, telemetry refresh %.3g s, inventories %s; %u cores, %s\n",
      o.nodes, o.interval, o.readers, o.jobs, o.seconds, o.telemetryRefresh,
      o.inventoriesAtStart ? "at start" : "with every push", std::thread::hardware_concurrency(),
      bench::cpuModel().c_str());
  const JobId job = submitJobs(s.address, o.jobs);
  const bench::Summary base = bench::summarize(readPhase(s.address, o, job, {}));
  Agents a;
  const double first = reportAll(s.address, o.nodes, a);
  const auto loaded = bench::summarize(readPhase(
      s.address, o, job, [&](const std::atomic<bool>& stop) { pushUntil(s.address, o, a, stop); }));
  const auto push = bench::summarize(a.pushMs);
  const auto inv = bench::summarize(a.inventoryMs);
  const double pushRate = static_cast<double>(push.n) / o.seconds;
  std::printf("first inventory of every node: %.2f s\n", first);
  std::printf("reads p99 %.2f ms alone, %.2f ms with %.0f pushes/s: %s\n", base.p99, loaded.p99,
              pushRate,
              loaded.p99 <= std::max(base.p99 * 1.25, base.p99 + 1.0) ? "MET" : "NOT MET");
  bench::printResult("first_inventories.seconds", first, "s", 1);
  bench::printSummary("reads.alone", base, "ms");
  bench::printSummary("reads.with_agents", loaded, "ms");
  bench::printSummary("push_telemetry", push, "ms");
  bench::printSummary("report_inventory", inv, "ms");
  bench::printResult("pushes_per_second", pushRate, "1/s", push.n);
  s.server->shutdown();
  s.backend->stop();
  fs::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"tesserad ingesting node agents' inventories and telemetry"};
  app.add_option("--nodes", o.nodes)->check(CLI::Range(1, 9999));
  app.add_option("--interval", o.interval)->check(CLI::PositiveNumber);
  app.add_option("--seconds", o.seconds)->check(CLI::PositiveNumber);
  app.add_option("--readers", o.readers)->check(CLI::Range(1, 64));
  app.add_option("--jobs", o.jobs)->check(CLI::Range(1, 100000));
  app.add_option("--telemetry-refresh", o.telemetryRefresh)->check(CLI::Range(0.0, 60.0));
  app.add_flag(
      "--inventories-at-start", o.inventoriesAtStart,
      "each node reports its inventory once, as the agent does (default: with every push)");
  app.add_flag("--smoke", o.smoke, "a few nodes for a second: checks that it runs");
  CLI11_PARSE(app, argc, argv);
  if (o.smoke) {
    o.nodes = 20;
    o.interval = 1;
    o.seconds = 1;
    o.jobs = 50;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_node_ingest: %s\n", e.what());
    return 1;
  }
}
