// The headless backend's performance targets (tesserad issue), measured through the real gRPC
// server on loopback with durability on (SQLite in WAL mode, synchronous=FULL: an fsync per
// group commit), on the demo cluster (392 GPUs) with demo job shapes:
//   1. sustained submits: SubmitBatch of N jobs from K threads (>= 20,000 jobs/s) and one job per
//      Submit from C concurrent threads (>= 2,000 jobs/s), with cycles off (pure ingest) and on;
//   2. W concurrent WatchEvents streams from seq 0 while the batched submitter runs: no stream
//      more than 1 s behind the commit;
//   3. restart with 150,000 jobs and 1,000,000 events: Backend::open + ApiServer::start + the
//      first GetSnapshot in a fresh process in < 3 s;
//   4. reads while cycles run back to back over P pending jobs (default 141,000): GetSnapshot,
//      GetJob, ListJobs (a page of pending and one of finished jobs), QueryMetrics and a brief
//      Explain, each p99 < 50 ms from one client thread; a full Explain beside them, which runs
//      on the engine thread and so waits for the cycle.
// Figures are printed with MET / NOT MET and as RESULT lines (bench_stats.h) for
// installer/run-benchmarks.sh; the exit code is non-zero only on errors (a failed RPC, a lost or
// repeated event), never for a missed target. Percentiles are nearest rank, the sample count
// beside each: calls for latencies, events for watch lag (weighted by the events each message
// carried), rounds for the disk probe.
//
// What the figures do not cover: the per-identity rate limit is raised (the server's default
// would cap a client at 500 requests/s); the clients share the machine's cores with the server;
// time to serving starts at Backend::open in an already loaded process (exec, dynamic loading
// and reading the configuration are outside it).
//
// Run: build/release/tests/bench/bench_tesserad [--seconds S] [--batch N] [--threads K]
//      [--concurrency C] [--watchers W] [--jobs J] [--events E] [--pending P]
//      [--only submit|watch|restart|reads]
//      [--dir DIR] [--db PATH] [--prepare-only] [--smoke]
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <future>
#include <latch>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench_backend.h"
#include "bench_stats.h"
#include "bench_store.h"
#include "clusterspec/cluster_spec.h"
#include "core/engine_text.h"
#include "rpc/client.h"
#include "rpc/server.h"
#include "service/backend.h"
#include "workload/workload_spec.h"

using namespace tessera;
namespace fs = std::filesystem;
namespace v1 = tessera::v1;
using Clock = std::chrono::steady_clock;
using Stub = v1::Scheduler::Stub;

namespace {

struct Options {
  double seconds = 10;
  int batch = 1000;
  int threads = 4;
  int concurrency = 64;
  int watchers = 100;
  size_t jobs = 150000;
  size_t events = 1000000;
  size_t pending = 141000;
  std::string only;
  std::string dir;
  std::string db;
  bool prepareOnly = false;
  bool smoke = false;
  std::string child;  // hidden: "cold" or "warm" = measure one restart of --db in this process
  bool childCycles = true;
};

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what);
}

double secondsOf(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

using bench::weightedPercentile;

template <typename T, typename Call>
T await(Call&& call) {
  return bench::awaitOrExit<T>("bench_tesserad", std::forward<Call>(call));
}

// --- machine facts

int cpusAvailable() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

std::string utcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return out;
}

std::string fsTypeOf(const std::string& path) {
  struct statfs s {};
  if (statfs(path.c_str(), &s) != 0) return "unknown";
  switch (static_cast<unsigned long>(s.f_type)) {
    case 0xEF53UL:
      return "ext4";
    case 0x58465342UL:
      return "xfs";
    case 0x9123683EUL:
      return "btrfs";
    case 0x01021994UL:
      return "tmpfs (NOT a real disk: fsync is free)";
    case 0x794C7630UL:
      return "overlayfs";
    default: {
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%lx", static_cast<unsigned long>(s.f_type));
      return hex;
    }
  }
}

// A 4 KiB write + fdatasync in `dir`, `rounds` times: what one group commit costs at least.
bench::Summary fsyncMs(const std::string& dir, int rounds) {
  const std::string path = dir + "/fsync-probe";
  const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  if (fd < 0) fail("cannot write in " + dir);
  std::vector<char> block(4096, 'x');
  std::vector<double> ms;
  for (int i = 0; i < rounds; ++i) {
    const auto t0 = Clock::now();
    if (::pwrite(fd, block.data(), block.size(), static_cast<off_t>(i) * 4096) < 0 ||
        ::fdatasync(fd) != 0)
      fail("fsync probe failed in " + dir);
    ms.push_back(secondsOf(Clock::now() - t0) * 1000);
  }
  ::close(fd);
  fs::remove(path);
  return bench::summarize(ms);
}

void printMachine(const Options& o, const std::string& dir) {
  utsname u{};
  uname(&u);
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) < 0) load[0] = -1;
  // 200 rounds: enough for a p99 (bench::hasPercentile); the smoke run's 10 show the max.
  const bench::Summary disk = fsyncMs(dir, o.smoke ? 10 : 200);
  std::printf("bench_tesserad  %s\n", utcNow().c_str());
  std::printf("  machine      : nproc %d (hardware threads %u), %s\n", cpusAvailable(),
              std::thread::hardware_concurrency(), bench::cpuModel().c_str());
  std::printf("  kernel       : %s %s, load average %.2f %.2f %.2f\n", u.sysname, u.release,
              load[0], load[1], load[2]);
  std::printf("  database dir : %s (%s)\n", dir.c_str(), fsTypeOf(dir).c_str());
  if (bench::hasPercentile(0.99, disk.n))
    std::printf("  disk         : 4 KiB write + fdatasync p50 %.2f ms, p99 %.2f ms of %zu\n",
                disk.median, disk.p99, disk.n);
  else
    std::printf("  disk         : 4 KiB write + fdatasync p50 %.2f ms, max %.2f ms of %zu\n",
                disk.median, disk.max, disk.n);
  std::printf("  store        : SQLite WAL, synchronous=FULL (Database::open); rate limit off\n");
  std::printf(
      "                 (ServerOptions::ratePerSecond raised: tesserad's default is 500/s"
      " per identity)\n");
  bench::printSummary("disk.fdatasync_4k", disk, "ms");
  std::printf("\n");
}

// --- results

struct Row {
  std::string part, what, figure, target;
  int verdict = -1;  // -1 = information, 0 = NOT MET, 1 = MET
};

struct Report {
  std::vector<Row> rows;
  std::vector<std::string> errors;
  void add(Row r) { rows.push_back(std::move(r)); }
  void error(const std::string& e) {
    std::fprintf(stderr, "ERROR: %s\n", e.c_str());
    errors.push_back(e);
  }
};

std::string fixed(double v, int decimals) {
  char out[64];
  std::snprintf(out, sizeof out, "%.*f", decimals, v);
  return out;
}

void printTable(const std::vector<Row>& rows) {
  size_t w[4] = {4, 4, 6, 6};
  for (const Row& r : rows) {
    w[0] = std::max(w[0], r.part.size());
    w[1] = std::max(w[1], r.what.size());
    w[2] = std::max(w[2], r.figure.size());
    w[3] = std::max(w[3], r.target.size());
  }
  const auto line = [&](const std::string& a, const std::string& b, const std::string& c,
                        const std::string& d, const std::string& e) {
    std::printf("  %-*s | %-*s | %*s | %-*s | %s\n", static_cast<int>(w[0]), a.c_str(),
                static_cast<int>(w[1]), b.c_str(), static_cast<int>(w[2]), c.c_str(),
                static_cast<int>(w[3]), d.c_str(), e.c_str());
  };
  line("part", "what", "figure", "target", "verdict");
  std::printf("  %s\n", std::string(w[0] + w[1] + w[2] + w[3] + 24, '-').c_str());
  for (const Row& r : rows)
    line(r.part, r.what, r.figure, r.target, r.verdict < 0 ? "" : (r.verdict ? "MET" : "NOT MET"));
  std::printf("\n");
}

// --- the backend and its server, in this process

struct Stack {
  std::unique_ptr<Backend> backend;
  std::unique_ptr<rpc::ApiServer> server;
  std::string address;
  ~Stack() {
    if (server) server->shutdown(std::chrono::milliseconds(2000));
    if (backend) backend->stop();
  }
};

Workload demoTenants() {
  auto w = demoWorkload();
  if (!w) fail("demo workload: " + w.error().str());
  return *w;
}

std::vector<Job> demoJobs() {
  std::vector<Job> jobs = demoTenants().jobs;
  if (jobs.empty()) fail("the demo workload has no jobs");
  for (Job& j : jobs) j.id = kNoJob;
  return jobs;
}

BackendConfig configFor(const std::string& database, bool cycles) {
  BackendConfig c;
  c.database = database;
  c.mode = BackendMode::Live;
  c.cluster = demoCluster();
  c.tenants = demoTenants();
  c.tenants.jobs.clear();
  c.runCycles = cycles;
  c.cycleSeconds = 1;
  return c;
}

rpc::ServerOptions serverOptions() {
  rpc::ServerOptions so;
  so.listen = "127.0.0.1:0";
  so.ratePerSecond = 1e9;
  so.rateBurst = 1e9;
  return so;
}

std::unique_ptr<Stack> startServer(std::unique_ptr<Backend> backend) {
  auto stack = std::make_unique<Stack>();
  stack->backend = std::move(backend);
  auto server = rpc::ApiServer::start(*stack->backend, serverOptions());
  if (!server) fail("server: " + server.error().str());
  stack->server = std::move(*server);
  stack->address = "127.0.0.1:" + std::to_string(stack->server->port());
  return stack;
}

std::unique_ptr<Stack> startStack(const std::string& database, bool cycles) {
  auto backend = Backend::open(configFor(database, cycles));
  if (!backend) fail("backend: " + backend.error().str());
  return startServer(std::move(*backend));
}

// Each client its own connection, as separate processes would have.
std::shared_ptr<grpc::Channel> connect(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetMaxReceiveMessageSize(64 << 20);
  auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10)))
    fail("cannot connect to " + address);
  return channel;
}

void withDeadline(grpc::ClientContext& ctx, int seconds) {
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
}

v1::SubmitBatchRequest batchRequest(int size) {
  const auto jobs = demoJobs();
  v1::SubmitBatchRequest r;
  for (size_t i = 0; i < static_cast<size_t>(size); ++i)
    *r.add_jobs() = rpc::jobSpecToProto(jobs[i % jobs.size()]);
  return r;
}

v1::SubmitRequest singleRequest(size_t i) {
  const auto jobs = demoJobs();
  v1::SubmitRequest r;
  *r.mutable_job() = rpc::jobSpecToProto(jobs[i % jobs.size()]);
  return r;
}

// --- part 1: submit load

// One acknowledged SubmitBatch: its ids are first .. first+count-1 (a batch gets dense ids).
struct BatchAck {
  JobId first = 0;
  uint32_t count = 0;
  Clock::time_point sent, acked;
};

struct ClientLog {
  std::vector<double> latencyMs;
  std::vector<BatchAck> acks;
  uint64_t jobs = 0;
  uint64_t failures = 0;
  std::string firstError;
  Clock::time_point finished;
  void failed(const std::string& why) {
    if (failures++ == 0) firstError = why;
  }
};

template <typename Call>
void clientLoop(Clock::time_point start, Clock::time_point end, ClientLog& log, Call&& call) {
  std::this_thread::sleep_until(start);
  while (Clock::now() < end && log.failures < 20) call();
  log.finished = Clock::now();
}

void batchedClient(Stub& stub, const v1::SubmitBatchRequest& req, Clock::time_point start,
                   Clock::time_point end, ClientLog& log) {
  clientLoop(start, end, log, [&] {
    grpc::ClientContext ctx;
    withDeadline(ctx, 60);
    v1::SubmitBatchResponse resp;
    const auto sent = Clock::now();
    const grpc::Status st = stub.SubmitBatch(&ctx, req, &resp);
    const auto acked = Clock::now();
    if (!st.ok()) return log.failed("SubmitBatch: " + st.error_message());
    if (resp.ids_size() != req.jobs_size() ||
        resp.ids(resp.ids_size() - 1) - resp.ids(0) + 1 != static_cast<uint64_t>(resp.ids_size()))
      return log.failed("SubmitBatch: ids not one dense range");
    log.latencyMs.push_back(secondsOf(acked - sent) * 1000);
    log.jobs += static_cast<uint64_t>(resp.ids_size());
    log.acks.push_back({resp.ids(0), static_cast<uint32_t>(resp.ids_size()), sent, acked});
  });
}

void singleClient(Stub& stub, const v1::SubmitRequest& req, Clock::time_point start,
                  Clock::time_point end, ClientLog& log) {
  clientLoop(start, end, log, [&] {
    grpc::ClientContext ctx;
    withDeadline(ctx, 60);
    v1::SubmitResponse resp;
    const auto sent = Clock::now();
    const grpc::Status st = stub.Submit(&ctx, req, &resp);
    const auto acked = Clock::now();
    if (!st.ok()) return log.failed("Submit: " + st.error_message());
    log.latencyMs.push_back(secondsOf(acked - sent) * 1000);
    log.jobs += 1;
  });
}

struct LoadResult {
  uint64_t jobs = 0, calls = 0, failures = 0;
  double seconds = 0;
  std::vector<double> latencyMs;
  std::vector<BatchAck> acks;
  std::string firstError;
  [[nodiscard]] double rate() const {
    return seconds > 0 ? static_cast<double>(jobs) / seconds : 0;
  }
};

LoadResult merge(std::vector<ClientLog>& logs, Clock::time_point start) {
  LoadResult r;
  for (ClientLog& l : logs) {
    r.jobs += l.jobs;
    r.calls += l.latencyMs.size();
    r.failures += l.failures;
    r.seconds = std::max(r.seconds, secondsOf(l.finished - start));
    r.latencyMs.insert(r.latencyMs.end(), l.latencyMs.begin(), l.latencyMs.end());
    r.acks.insert(r.acks.end(), l.acks.begin(), l.acks.end());
    if (r.firstError.empty()) r.firstError = l.firstError;
  }
  std::sort(r.acks.begin(), r.acks.end(),
            [](const BatchAck& a, const BatchAck& b) { return a.first < b.first; });
  return r;
}

// `clients` threads, each on its own connection, submitting for `seconds` from the same start.
LoadResult runLoad(const std::string& address, const Options& o, bool batched, int clients) {
  std::vector<std::unique_ptr<Stub>> stubs;
  for (int i = 0; i < clients; ++i) stubs.push_back(v1::Scheduler::NewStub(connect(address)));
  const v1::SubmitBatchRequest batch = batchRequest(o.batch);
  std::vector<v1::SubmitRequest> singles;
  for (size_t i = 0; i < static_cast<size_t>(clients); ++i) singles.push_back(singleRequest(i));
  std::vector<ClientLog> logs(static_cast<size_t>(clients));
  const auto start = Clock::now() + std::chrono::milliseconds(200);
  const auto end = start + std::chrono::microseconds(static_cast<int64_t>(o.seconds * 1e6));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < static_cast<size_t>(clients); ++i)
    threads.emplace_back([&, i] {
      if (batched)
        batchedClient(*stubs[i], batch, start, end, logs[i]);
      else
        singleClient(*stubs[i], singles[i], start, end, logs[i]);
    });
  for (auto& t : threads) t.join();
  return merge(logs, start);
}

std::string engineLine(Backend& b) {
  const auto s = await<ClusterSnapshot>([&](auto r) { b.snapshot(r); });
  char out[160];
  std::snprintf(out, sizeof out, "pending %d, running %d, cycles %llu, last cycle %.0f ms",
                s.pendingJobs, s.runningJobs, static_cast<unsigned long long>(s.cycles),
                s.lastCycleMs);
  return out;
}

void checkLoad(const LoadResult& r, const char* what, Report& report) {
  if (r.failures)
    report.error(std::string(what) + ": " + std::to_string(r.failures) +
                 " failed calls, first: " + r.firstError);
  if (r.jobs == 0) report.error(std::string(what) + ": no job acknowledged");
}

// "p50 6.40 / p99 13.00 ms of 90000 calls"; the max instead of a p99 the calls cannot hold.
std::string latencyText(const bench::Summary& l) {
  const bool p99 = bench::hasPercentile(0.99, l.n);
  return "p50 " + fixed(l.median, 2) + (p99 ? " / p99 " : " / max ") +
         fixed(p99 ? l.p99 : l.max, 2) + " ms of " + std::to_string(l.n) + " calls";
}

void submitRun(const Options& o, const std::string& dir, bool batched, bool cycles,
               Report& report) {
  const std::string db =
      dir + "/submit-" + (batched ? "batch" : "single") + (cycles ? "-cycles" : "") + ".db";
  auto stack = startStack(db, cycles);
  const int clients = batched ? o.threads : o.concurrency;
  const LoadResult r = runLoad(stack->address, o, batched, clients);
  const std::string engine = engineLine(*stack->backend);
  stack.reset();
  const char* what = batched ? "1a SubmitBatch" : "1b Submit";
  checkLoad(r, what, report);
  const bench::Summary latency = bench::summarize(r.latencyMs);
  std::printf(
      "  %-15s cycles %-3s: %8.0f jobs/s  (%llu jobs, %llu calls in %.2f s; latency %s; %s)\n",
      what, cycles ? "on" : "off", r.rate(), static_cast<unsigned long long>(r.jobs),
      static_cast<unsigned long long>(r.calls), r.seconds, latencyText(latency).c_str(),
      engine.c_str());
  const std::string key = std::string("submit.") + (batched ? "batch" : "single") +
                          (cycles ? ".cycles_on" : ".cycles_off");
  bench::printResult(key + ".rate", r.rate(), "jobs/s", 1);
  bench::printSummary(key + ".call", latency, "ms");
  std::fflush(stdout);
  const std::string shape =
      batched ? std::to_string(o.batch) + "/call x " + std::to_string(o.threads) + " thr"
              : "1/call x " + std::to_string(o.concurrency) + " thr";
  const std::string label = std::string(batched ? "SubmitBatch " : "Submit ") + shape +
                            (cycles ? ", cycles on" : ", cycles off");
  const double target = batched ? 20000 : 2000;
  report.add({"1 submit", label + ": jobs/s", fixed(r.rate(), 0), ">= " + fixed(target, 0),
              r.rate() >= target ? 1 : 0});
  report.add({"1 submit", label + ": call latency", latencyText(latency), "", -1});
}

void partSubmit(const Options& o, const std::string& dir, Report& report) {
  std::printf(
      "== 1. sustained submits over loopback, durability on (%.0f s each, fresh database "
      "each)\n",
      o.seconds);
  for (bool cycles : {false, true}) {
    submitRun(o, dir, true, cycles, report);
    submitRun(o, dir, false, cycles, report);
  }
  std::printf("\n");
}

// --- part 2: watchers while submitting

struct WatchMessage {
  Clock::time_point received;
  JobId minId = 0, maxId = 0;  // of its `submitted` events (0 = none)
};

struct Watcher {
  grpc::ClientContext ctx;
  std::unique_ptr<Stub> stub;
  std::vector<WatchMessage> messages;
  std::atomic<uint64_t> lastSeq{0};
  std::string error;
};

void watchLoop(Watcher& w) {
  v1::WatchEventsRequest req;
  req.set_after_seq(0);
  auto reader = w.stub->WatchEvents(&w.ctx, req);
  v1::WatchEventsResponse resp;
  uint64_t last = 0;
  while (reader->Read(&resp)) {
    WatchMessage m{Clock::now(), 0, 0};
    for (const v1::Event& e : resp.events()) {
      if (e.seq() != last + 1 && w.error.empty())
        w.error = "event " + std::to_string(last + 1) + " lost or repeated (got " +
                  std::to_string(e.seq()) + ")";
      last = e.seq();
      if (e.kind() != "submitted") continue;
      if (m.minId == 0) m.minId = e.job();
      m.maxId = e.job();
    }
    if (m.minId) w.messages.push_back(m);
    w.lastSeq.store(last, std::memory_order_release);
  }
  const grpc::Status st = reader->Finish();
  if (!st.ok() && st.error_code() != grpc::StatusCode::CANCELLED && w.error.empty())
    w.error = "WatchEvents: " + st.error_message();
}

// Waits until every watcher has seen `seq`; false at the timeout.
bool waitFor(std::vector<std::unique_ptr<Watcher>>& ws, uint64_t seq, double timeoutSeconds) {
  const auto until =
      Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(timeoutSeconds * 1000));
  while (Clock::now() < until) {
    const bool all = std::all_of(ws.begin(), ws.end(), [&](const auto& w) {
      return w->lastSeq.load(std::memory_order_acquire) >= seq;
    });
    if (all) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

struct LagStats {
  std::vector<double> streamMaxAck, streamMaxSent;     // per stream, seconds
  std::vector<std::pair<double, uint64_t>> ack, sent;  // (lag, events) over all streams
  uint64_t events = 0;
  uint64_t messages = 0;  // stream messages that carried submitted events
};

// Lag of each received `submitted` event: receive time - ack time (lower bound) and - send time
// (upper bound) of the batch that carried its job.
void addLags(const Watcher& w, const std::vector<BatchAck>& acks, LagStats& s) {
  double maxAck = 0, maxSent = 0;
  s.messages += w.messages.size();
  for (const WatchMessage& m : w.messages) {
    auto it = std::upper_bound(acks.begin(), acks.end(), m.minId,
                               [](JobId id, const BatchAck& a) { return id < a.first; });
    if (it != acks.begin()) --it;
    for (; it != acks.end() && it->first <= m.maxId; ++it) {
      const JobId lo = std::max(m.minId, it->first);
      const JobId hi = std::min(m.maxId, it->first + it->count - 1);
      if (hi < lo) continue;
      const double lagAck = secondsOf(m.received - it->acked);
      const double lagSent = secondsOf(m.received - it->sent);
      s.ack.emplace_back(lagAck, hi - lo + 1);
      s.sent.emplace_back(lagSent, hi - lo + 1);
      s.events += hi - lo + 1;
      maxAck = std::max(maxAck, lagAck);
      maxSent = std::max(maxSent, lagSent);
    }
  }
  s.streamMaxAck.push_back(maxAck);
  s.streamMaxSent.push_back(maxSent);
}

std::vector<std::unique_ptr<Watcher>> startWatchers(const std::string& address, int count,
                                                    std::vector<std::thread>& threads) {
  std::vector<std::unique_ptr<Watcher>> ws;
  for (int i = 0; i < count; ++i) {
    ws.push_back(std::make_unique<Watcher>());
    ws.back()->stub = v1::Scheduler::NewStub(connect(address));
  }
  for (auto& w : ws) threads.emplace_back([raw = w.get()] { watchLoop(*raw); });
  return ws;
}

// One batch before the timed run: every stream is open and has caught up when it arrived.
void warmUp(Stack& stack, std::vector<std::unique_ptr<Watcher>>& ws) {
  auto stub = v1::Scheduler::NewStub(connect(stack.address));
  grpc::ClientContext ctx;
  withDeadline(ctx, 30);
  v1::SubmitBatchResponse resp;
  const grpc::Status st = stub->SubmitBatch(&ctx, batchRequest(10), &resp);
  if (!st.ok()) fail("warm-up SubmitBatch: " + st.error_message());
  if (!waitFor(ws, stack.backend->events().lastSeq(), 30))
    fail("the watch streams did not open within 30 s");
}

void reportWatch(const Options& o, const LoadResult& load, const LagStats& lag, double drain,
                 Report& report) {
  const double maxAck = *std::max_element(lag.streamMaxAck.begin(), lag.streamMaxAck.end());
  const double maxSent = *std::max_element(lag.streamMaxSent.begin(), lag.streamMaxSent.end());
  const auto behind = std::count_if(lag.streamMaxAck.begin(), lag.streamMaxAck.end(),
                                    [](double s) { return s > 1.0; });
  const auto behindUpper = std::count_if(lag.streamMaxSent.begin(), lag.streamMaxSent.end(),
                                         [](double s) { return s > 1.0; });
  std::printf(
      "  %d streams, submitter %.0f jobs/s (%llu jobs); %llu submitted events checked in %llu "
      "messages;\n"
      "  lag after ack: max %.3f s, p99 %.3f s, p50 %.3f s; after send (upper bound): max "
      "%.3f s, p99 %.3f s (percentiles over the %llu events);\n"
      "  streams > 1 s behind: %ld (upper bound: %ld); all streams caught up %.2f s after "
      "the submitter stopped\n\n",
      o.watchers, load.rate(), static_cast<unsigned long long>(load.jobs),
      static_cast<unsigned long long>(lag.events), static_cast<unsigned long long>(lag.messages),
      maxAck, weightedPercentile(lag.ack, 0.99), weightedPercentile(lag.ack, 0.5), maxSent,
      weightedPercentile(lag.sent, 0.99), static_cast<unsigned long long>(lag.events),
      static_cast<long>(behind), static_cast<long>(behindUpper), drain);
  bench::printResult("watch.submitter.rate", load.rate(), "jobs/s", 1);
  bench::printResult("watch.lag_after_ack.max", maxAck, "s", lag.events);
  if (bench::hasPercentile(0.99, lag.events))
    bench::printResult("watch.lag_after_ack.p99", weightedPercentile(lag.ack, 0.99), "s",
                       lag.events);
  bench::printResult("watch.lag_after_send.max", maxSent, "s", lag.events);
  bench::printResult("watch.streams_behind", static_cast<double>(behind), "streams",
                     static_cast<size_t>(o.watchers));
  const std::string label = std::to_string(o.watchers) + " streams";
  report.add({"2 watch", label + ": submitter jobs/s", fixed(load.rate(), 0), "", -1});
  report.add({"2 watch",
              label + ": lag max / p99 s (after ack, " + std::to_string(lag.events) + " events)",
              fixed(maxAck, 3) + " / " + fixed(weightedPercentile(lag.ack, 0.99), 3), "", -1});
  report.add({"2 watch",
              label + ": lag max / p99 s (after send, " + std::to_string(lag.events) + " events)",
              fixed(maxSent, 3) + " / " + fixed(weightedPercentile(lag.sent, 0.99), 3), "", -1});
  report.add({"2 watch", label + ": streams > 1 s behind", std::to_string(behind), "0",
              behind == 0 ? 1 : 0});
}

void partWatch(const Options& o, const std::string& dir, Report& report) {
  std::printf(
      "== 2. %d WatchEvents streams from seq 0 while SubmitBatch %d x %d threads runs "
      "%.0f s (cycles off)\n",
      o.watchers, o.batch, o.threads, o.seconds);
  auto stack = startStack(dir + "/watch.db", false);
  std::vector<std::thread> threads;
  auto ws = startWatchers(stack->address, o.watchers, threads);
  warmUp(*stack, ws);
  const LoadResult load = runLoad(stack->address, o, true, o.threads);
  const auto stopped = Clock::now();
  const uint64_t last = stack->backend->events().lastSeq();
  const double drainLimit = o.smoke ? 15 : 120;
  const bool caughtUp = waitFor(ws, last, drainLimit);
  const double drain = secondsOf(Clock::now() - stopped);
  for (auto& w : ws) w->ctx.TryCancel();
  for (auto& t : threads) t.join();
  stack.reset();
  checkLoad(load, "2 SubmitBatch", report);
  if (!caughtUp)
    report.error("2 watch: not every stream received event " + std::to_string(last) + " within " +
                 fixed(drainLimit, 0) + " s after the submitter stopped");
  LagStats lag;
  for (const auto& w : ws) {
    if (!w->error.empty()) report.error("2 watch: " + w->error);
    addLags(*w, load.acks, lag);
  }
  const uint64_t expected = load.jobs * static_cast<uint64_t>(o.watchers);
  if (caughtUp && lag.events != expected)
    report.error("2 watch: " + std::to_string(lag.events) + " submitted events matched, expected " +
                 std::to_string(expected));
  reportWatch(o, load, lag, drain, report);
}

// --- part 3: restart

// Submits `count` demo-shaped jobs in batches of 5,000 through the backend; returns their ids.
std::vector<JobId> submitAll(Backend& b, size_t count) {
  const auto shapes = demoJobs();
  std::vector<JobId> ids;
  for (size_t done = 0; done < count;) {
    const size_t n = std::min<size_t>(5000, count - done);
    std::vector<Job> jobs;
    for (size_t i = 0; i < n; ++i) jobs.push_back(shapes[(done + i) % shapes.size()]);
    const auto got = await<std::vector<JobId>>(
        [&](auto r) { b.submit(std::move(jobs), Caller{"bench"}, std::nullopt, r); });
    ids.insert(ids.end(), got.begin(), got.end());
    done += n;
  }
  return ids;
}

// Cancels `ids` at once (the calls group-commit); fails when one is refused.
void cancelAll(Backend& b, const std::vector<JobId>& ids) {
  std::latch done(static_cast<std::ptrdiff_t>(ids.size()));
  std::atomic<size_t> refused{0};
  for (JobId id : ids)
    b.act(cmd::Cancel{id}, false, Caller{"bench"}, std::nullopt,
          [&](std::variant<CommandResult, ApiError> r) {
            if (std::holds_alternative<ApiError>(r)) ++refused;
            done.count_down();
          });
  done.wait();
  if (refused) fail(std::to_string(refused.load()) + " cancels refused");
}

// Every Act copies the engine and runs a what-if cycle on the copy, so a cancel costs in
// proportion to the queue: the cancels are made in rounds of 100 fresh jobs while the queue is
// short. Returns how many were cancelled.
size_t cancelRounds(Backend& b, size_t count) {
  size_t cancelled = 0;
  while (cancelled < count) {
    cancelAll(b, submitAll(b, std::min<size_t>(100, count - cancelled)));
    cancelled += std::min<size_t>(100, count - cancelled);
  }
  return cancelled;
}

// One cancel of a pending job with the whole queue in place: what an operator's Act costs.
void timeOneCancel(Backend& b) {
  JobId last = kNoJob;
  b.inspect([&](const Engine& e) {
    const auto q = e.queue();
    if (!q.empty()) last = q.back()->job.id;
  });
  if (last != kNoJob) cancelAll(b, {last});
}

void prepareDatabase(const Options& o, const std::string& path) {
  std::printf("  preparing %s: %zu jobs, %zu events\n", path.c_str(), o.jobs, o.events);
  std::fflush(stdout);
  auto t = Clock::now();
  const auto step = [&](const char* what) {
    std::printf("    %-40s %6.2f s\n", what, secondsOf(Clock::now() - t));
    std::fflush(stdout);
    t = Clock::now();
  };
  auto b = Backend::open(configFor(path, false));
  if (!b) fail("backend: " + b.error().str());
  Backend& backend = **b;
  // The cancels first, while the queue is short (see cancelRounds); then enough jobs to fill the
  // cluster and the cycles that start them; then the rest, which queue.
  const size_t cancels = std::min<size_t>(3000, o.jobs / 50);
  const size_t first = std::min<size_t>(2000, o.jobs / 2);
  cancelRounds(backend, cancels);
  step("cancels (rounds of 100 Act calls)");
  submitAll(backend, first);
  for (int i = 0; i < 3; ++i) await<CycleStats>([&](auto r) { backend.cycleNow(r); });
  step("first jobs + 3 scheduling cycles");
  submitAll(backend, o.jobs - first - cancels);
  step("the other submits (batches of 5,000)");
  timeOneCancel(backend);
  step("one more Cancel, whole queue in place");
  std::printf("    engine: %s\n", engineLine(backend).c_str());
  backend.stop();
  b->reset();
  if (auto st = bench::appendEvents(path, o.events); !st) fail(st.error().str());
  step("append synthetic audit events");
}

// Fraction of the file's pages in the page cache.
double residentFraction(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return 0;
  struct stat st {};
  double out = 0;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    const auto size = static_cast<size_t>(st.st_size);
    void* p = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (p != reinterpret_cast<void*>(intptr_t{-1})) {
      const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
      std::vector<unsigned char> in((size + page - 1) / page);
      if (mincore(p, size, in.data()) == 0)
        out = static_cast<double>(
                  std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; })) /
              static_cast<double>(in.size());
      munmap(p, size);
    }
  }
  ::close(fd);
  return out;
}

void evict(const std::string& path) {
  for (const std::string& f : {path, path + "-wal", path + "-shm"}) {
    const int fd = ::open(f.c_str(), O_RDONLY);
    if (fd < 0) continue;
    (void)::fdatasync(fd);
    (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

ClusterSnapshot firstSnapshot(const std::string& address) {
  auto stub =
      v1::Scheduler::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  const auto until = Clock::now() + std::chrono::seconds(60);
  while (true) {
    grpc::ClientContext ctx;
    withDeadline(ctx, 60);
    v1::ClusterSnapshot resp;
    const grpc::Status st = stub->GetSnapshot(&ctx, v1::GetSnapshotRequest{}, &resp);
    if (st.ok()) return rpc::snapshotFromProto(resp);
    if (Clock::now() > until) fail("GetSnapshot: " + st.error_message());
  }
}

// The measured restart (a fresh process): open + restore, server start, first GetSnapshot.
int childRestart(const Options& o) {
  if (o.child == "cold") evict(o.db);
  const double cached = residentFraction(o.db);
  BackendConfig config;
  config.database = o.db;
  config.runCycles = o.childCycles;
  config.cycleSeconds = 1;
  const auto t0 = Clock::now();
  auto backend = Backend::open(config);
  if (!backend) fail("backend: " + backend.error().str());
  const auto t1 = Clock::now();
  auto stack = startServer(std::move(*backend));
  const auto t2 = Clock::now();
  const ClusterSnapshot s = firstSnapshot(stack->address);
  const auto t3 = Clock::now();
  std::printf(
      "RESTART-CHILD open_s=%.4f restore_s=%.4f server_s=%.4f rpc_s=%.4f active=%zu pending=%d "
      "running=%d cycles=%llu last_cycle_ms=%.1f last_seq=%llu cached=%.3f\n",
      secondsOf(t1 - t0), stack->backend->restoreSeconds(), secondsOf(t2 - t1), secondsOf(t3 - t2),
      stack->backend->restoredJobs(), s.pendingJobs, s.runningJobs,
      static_cast<unsigned long long>(s.cycles), s.lastCycleMs,
      static_cast<unsigned long long>(s.lastEventSeq), cached);
  return 0;
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A copy of the prepared database for one measurement: a restart with cycles on starts jobs and
// commits, and the prepared file must stay as it was for the next run.
std::string stageCopy(const std::string& db, const std::string& dir) {
  const std::string run = dir + "/restart-run.db";
  for (const std::string& f : {run, run + "-wal", run + "-shm"}) fs::remove(f);
  fs::copy_file(db, run);
  if (fs::exists(db + "-wal")) fs::copy_file(db + "-wal", run + "-wal");
  return run;
}

std::map<std::string, double> runChild(const std::string& prepared, const std::string& dir,
                                       const std::string& cache, bool cycles) {
  const std::string db = stageCopy(prepared, dir);
  const std::string cmd = quoted(fs::read_symlink("/proc/self/exe").string()) +
                          " --child-restart " + cache + " --child-cycles " + (cycles ? "1" : "0") +
                          " --db " + quoted(db) + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) fail("cannot run " + cmd);
  std::map<std::string, double> out;
  char buf[1024];
  while (std::fgets(buf, sizeof buf, p)) {
    std::string line(buf);
    if (!line.starts_with("RESTART-CHILD ")) {
      std::fprintf(stderr, "  child: %s", line.c_str());
      continue;
    }
    std::istringstream in(line.substr(std::string("RESTART-CHILD ").size()));
    for (std::string kv; in >> kv;)
      if (const auto eq = kv.find('='); eq != std::string::npos)
        out[kv.substr(0, eq)] = std::stod(kv.substr(eq + 1));
  }
  if (pclose(p) != 0 || out.empty()) fail("the restart measurement failed: " + cmd);
  return out;
}

uintmax_t dbBytes(const std::string& path) {
  uintmax_t n = 0;
  std::error_code ec;
  for (const std::string& f : {path, path + "-wal"})
    if (fs::exists(f, ec)) n += fs::file_size(f, ec);
  return n;
}

// `key` names the RESULT line: restart.<key>.to_serving.
void restartRow(const std::string& label, const std::string& key,
                const std::map<std::string, double>& r, Report& report) {
  const double total = r.at("open_s") + r.at("server_s") + r.at("rpc_s");
  std::printf(
      "  %-28s open %.3f s (restore %.3f) + server %.3f s + first GetSnapshot %.3f s = "
      "%.3f s; active %.0f (pending %.0f, running %.0f), events %.0f, cycles %.0f "
      "(last %.0f ms), page cache before %.0f%%\n",
      label.c_str(), r.at("open_s"), r.at("restore_s"), r.at("server_s"), r.at("rpc_s"), total,
      r.at("active"), r.at("pending"), r.at("running"), r.at("last_seq"), r.at("cycles"),
      r.at("last_cycle_ms"), r.at("cached") * 100);
  bench::printResult("restart." + key + ".to_serving", total, "s", 1);
  std::fflush(stdout);
  report.add(
      {"3 restart", label + ": time to serving s", fixed(total, 2), "< 3", total < 3 ? 1 : 0});
  report.add({"3 restart", label + ": open / server / first RPC s",
              fixed(r.at("open_s"), 2) + " / " + fixed(r.at("server_s"), 3) + " / " +
                  fixed(r.at("rpc_s"), 2),
              "", -1});
}

void partRestart(const Options& o, const std::string& dir, Report& report) {
  std::printf(
      "== 3. restart: time to serving (Backend::open + ApiServer::start + first "
      "GetSnapshot), each in a fresh process\n");
  const std::string path = o.db.empty() ? dir + "/restart.db" : o.db;
  if (!fs::exists(path)) prepareDatabase(o, path);
  if (o.prepareOnly) return;
  std::printf("  database %s: %.1f MiB\n", path.c_str(),
              static_cast<double>(dbBytes(path)) / (1 << 20));
  std::fflush(stdout);
  restartRow("cold cache, cycles on", "cold", runChild(path, dir, "cold", true), report);
  restartRow("warm cache, cycles on", "warm", runChild(path, dir, "warm", true), report);
  const auto pure = runChild(path, dir, "warm", false);
  restartRow("warm cache, cycles off", "warm_cycles_off", pure, report);
  report.add({"3 restart", "database MiB", fixed(static_cast<double>(dbBytes(path)) / (1 << 20), 1),
              "", -1});
  report.add({"3 restart", "active jobs restored / events",
              fixed(pure.at("active"), 0) + " / " + fixed(pure.at("last_seq"), 0), "", -1});
  std::printf("\n");
}

// --- main

struct TempDir {
  std::string path;
  bool keep = false;
  explicit TempDir(const std::string& parent) {
    std::string tmpl =
        (parent.empty() ? fs::temp_directory_path().string() : parent) + "/bench-tesserad-XXXXXX";
    if (!mkdtemp(tmpl.data())) fail("cannot create a directory under " + tmpl);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!keep) fs::remove_all(path, ec);
  }
};

// --- part 4: reads while cycles run back to back

// One read RPC, timed from a client thread: which call, and how to make it.
struct ReadCall {
  std::string name;
  std::function<grpc::Status(Stub&, grpc::ClientContext&, size_t)> call;
};

template <typename Pick>
std::function<grpc::Status(Stub&, grpc::ClientContext&, size_t)> explainCall(Pick pick,
                                                                             bool brief) {
  return [pick, brief](Stub& s, grpc::ClientContext& c, size_t i) {
    v1::ExplainRequest q;
    q.set_job(pick(i));
    q.set_brief(brief);
    v1::Explanation r;
    return s.Explain(&c, q, &r);
  };
}

std::vector<ReadCall> readCalls(const std::vector<JobId>& pending, JobId firstCancelled) {
  const auto pick = [pending](size_t i) { return pending[(i * 7919) % pending.size()]; };
  return {
      {"GetSnapshot",
       [](Stub& s, grpc::ClientContext& c, size_t) {
         v1::ClusterSnapshot r;
         return s.GetSnapshot(&c, v1::GetSnapshotRequest{}, &r);
       }},
      {"GetJob (pending)",
       [pick](Stub& s, grpc::ClientContext& c, size_t i) {
         v1::GetJobRequest q;
         q.set_id(pick(i));
         v1::Job r;
         return s.GetJob(&c, q, &r);
       }},
      {"ListJobs (100 from a pending id)",
       [pick](Stub& s, grpc::ClientContext& c, size_t i) {
         v1::ListJobsRequest q;
         q.set_page_size(100);
         q.set_page_token(std::to_string(pick(i)));
         v1::ListJobsResponse r;
         return s.ListJobs(&c, q, &r);
       }},
      {"ListJobs (100 cancelled)",
       [firstCancelled](Stub& s, grpc::ClientContext& c, size_t) {
         v1::ListJobsRequest q;
         q.set_page_size(100);
         q.set_state(v1::JOB_STATE_CANCELLED);
         q.set_page_token(std::to_string(firstCancelled - 1));
         v1::ListJobsResponse r;
         return s.ListJobs(&c, q, &r);
       }},
      {"QueryMetrics (jobs_pending)",
       [](Stub& s, grpc::ClientContext& c, size_t) {
         v1::QueryMetricsRequest q;
         q.set_series("jobs_pending");
         v1::QueryMetricsResponse r;
         return s.QueryMetrics(&c, q, &r);
       }},
      {"Explain brief (pending)", explainCall(pick, true)},
      {"Explain full (pending)", explainCall(pick, false)},
  };
}

// A queue of `pending` jobs (some cancelled, for a page of finished ones), cycles back to back.
std::unique_ptr<Stack> readsStack(const Options& o, const std::string& dir,
                                  std::vector<JobId>& pending, JobId& firstCancelled) {
  BackendConfig c = configFor(dir + "/reads.db", true);
  c.cycleSeconds = 0.001;  // the next cycle starts as soon as the last one committed
  auto backend = Backend::open(c);
  if (!backend) fail("backend: " + backend.error().str());
  auto stack = startServer(std::move(*backend));
  const auto cancelled = submitAll(*stack->backend, 1000);
  cancelAll(*stack->backend, cancelled);
  firstCancelled = cancelled.front();
  pending = submitAll(*stack->backend, o.pending);
  return stack;
}

void partReads(const Options& o, const std::string& dir, Report& report) {
  std::printf("== reads: %zu pending jobs, cycles back to back, one client thread, %.0f s\n",
              o.pending, o.seconds);
  std::fflush(stdout);
  std::vector<JobId> pending;
  JobId firstCancelled = kNoJob;
  auto stack = readsStack(o, dir, pending, firstCancelled);
  const auto before = await<ClusterSnapshot>([&](auto r) { stack->backend->snapshot(r); });
  std::printf("  before: %s\n", engineLine(*stack->backend).c_str());
  auto stub = v1::Scheduler::NewStub(connect(stack->address));
  const auto calls = readCalls(pending, firstCancelled);
  std::vector<std::vector<double>> ms(calls.size());
  const auto timed = [&](size_t k, size_t i) {
    grpc::ClientContext ctx;
    withDeadline(ctx, 60);
    const auto t = Clock::now();
    const grpc::Status st = calls[k].call(*stub, ctx, i);
    if (!st.ok()) report.error(calls[k].name + ": " + st.error_message());
    return secondsOf(Clock::now() - t) * 1000;
  };
  // One untimed round: the first read of a kind finds no view and waits for the engine thread
  // once; from then on the engine thread publishes views after each commit.
  for (size_t k = 0; k < calls.size(); ++k) timed(k, 0);
  // The full Explain runs on the engine thread and waits for the cycle: timed apart, 10 calls.
  const size_t fast = calls.size() - 1;
  const auto end = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(o.seconds * 1e6));
  for (size_t i = 0; Clock::now() < end; ++i) ms[i % fast].push_back(timed(i % fast, i / fast));
  for (size_t i = 0; i < 10; ++i) ms[fast].push_back(timed(fast, i));
  const auto after = await<ClusterSnapshot>([&](auto r) { stack->backend->snapshot(r); });
  std::printf("  after: %s; %llu cycles while measuring\n", engineLine(*stack->backend).c_str(),
              static_cast<unsigned long long>(after.cycles - before.cycles));
  for (size_t k = 0; k < calls.size(); ++k) {
    const bench::Summary l = bench::summarize(ms[k]);
    std::string slow;  // which calls took over 100 ms (by index): the tail's cause
    for (size_t i = 0; i < ms[k].size(); ++i)
      if (ms[k][i] > 100) slow += " #" + std::to_string(i) + " " + fixed(ms[k][i], 0) + " ms";
    if (!slow.empty() && k < fast)
      std::printf("  %s over 100 ms:%s\n", calls[k].name.c_str(), slow.c_str());
    const bool full = calls[k].name.starts_with("Explain full");
    report.add({"reads", calls[k].name, latencyText(l),
                full ? "(on the engine thread)" : "p99 < 50 ms",
                full ? -1 : static_cast<int>(l.p99 < 50)});
    std::string key;  // "ListJobs (100 cancelled)" -> listjobs_100_cancelled
    for (char ch : calls[k].name)
      if (std::isalnum(static_cast<unsigned char>(ch)))
        key += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      else if (!key.empty() && key.back() != '_')
        key += '_';
    if (!key.empty() && key.back() == '_') key.pop_back();
    bench::printSummary("reads." + key, l, "ms");
  }
}

void applySmoke(Options& o) {
  o.seconds = 1;
  o.batch = 100;
  o.threads = 2;
  o.concurrency = 8;
  o.watchers = 4;
  o.jobs = 3000;
  o.events = 20000;
  o.pending = 2000;
}

int run(Options& o) {
  if (!o.child.empty()) return childRestart(o);
  if (o.smoke) applySmoke(o);
  if (o.prepareOnly) o.only = "restart";
  TempDir dir(o.dir);
  printMachine(o, dir.path);
  Report report;
  if (o.only.empty() || o.only == "submit") partSubmit(o, dir.path, report);
  if (o.only.empty() || o.only == "watch") partWatch(o, dir.path, report);
  if (o.only.empty() || o.only == "restart") partRestart(o, dir.path, report);
  if (o.only.empty() || o.only == "reads") partReads(o, dir.path, report);
  if (!report.rows.empty()) {
    std::printf("== results (%s)\n", utcNow().c_str());
    printTable(report.rows);
  }
  if (!report.errors.empty()) {
    std::fprintf(stderr, "%zu error(s); the first: %s\n", report.errors.size(),
                 report.errors.front().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tesserad performance targets: submits, watch fan-out, restart, reads"};
  Options o;
  app.add_option("--seconds", o.seconds, "Seconds per submit run")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--batch", o.batch, "Jobs per SubmitBatch call")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app.add_option("--threads", o.threads, "SubmitBatch client threads")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app.add_option("--concurrency", o.concurrency, "Submit (one job) client threads")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app.add_option("--watchers", o.watchers, "WatchEvents streams")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app.add_option("--jobs", o.jobs, "Jobs in the restart database")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app.add_option("--events", o.events, "Events in the restart database")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app.add_option("--pending", o.pending, "Pending jobs while reads are timed")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app.add_option("--only", o.only, "Run one part")
      ->check(CLI::IsMember({"submit", "watch", "restart", "reads"}));
  app.add_option("--dir", o.dir, "Where the databases go (default: the temp directory)");
  app.add_option("--db", o.db, "Restart database: reused when it exists, else prepared and kept");
  app.add_flag("--prepare-only", o.prepareOnly, "Prepare the restart database (--db) and stop");
  app.add_flag("--smoke", o.smoke, "Tiny sizes (ctest)");
  app.add_option("--child-restart", o.child)->group("");
  app.add_option("--child-cycles", o.childCycles)->group("");
  CLI11_PARSE(app, argc, argv);
  if (o.prepareOnly && o.db.empty()) {
    std::fprintf(stderr, "--prepare-only needs --db PATH\n");
    return 2;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_tesserad: %s\n", e.what());
    return 1;
  }
}
