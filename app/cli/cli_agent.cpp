// tessera agent: the per-node daemon of docs/agent.md. Every interval it reads the node's GPU
// telemetry (dcgm-exporter's scrape when one answers, else an NVML sample) and pushes it to
// tesserad with PushTelemetry; while tesserad is away it keeps a bounded buffer and retries with
// exponential backoff. It reports the node's inventory (ReportInventory) at start, on change and
// after tesserad was away (a restarted tesserad learns it again), before any buffered sample.
// tesserad answers a push with the MIG layouts the node is to have; the agent applies them
// (agent_mig.h).
#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <deque>
#include <iomanip>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include "cli/agent_inventory.h"
#include "cli/agent_mig.h"
#include "cli/cli.h"
#include "cli/cli_ctl.h"
#include "cli/cli_node.h"
#include "core/strings.h"
#include "inventory/catalog_check.h"
#include "inventory/inventory_output.h"
#include "inventory/node_probe.h"
#include "inventory/nvml_faults.h"
#include "inventory/nvml_sampler.h"

namespace tessera::cli {

namespace {

using Clock = std::chrono::steady_clock;

// ============================================================================ dcgm-exporter scrape

constexpr size_t kMaxScrapeBytes = 64u << 20;

// libcurl wants one global init before any thread uses it; the agent is its only user.
void curlOnce() {
  static const bool ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  (void)ready;
}

// An http:// or https:// URL with a host, as libcurl's own parser reads it.
Status checkScrapeUrl(const std::string& url) {
  curlOnce();
  const std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), curl_url_cleanup);
  if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
    return Error{"'" + url + "' is not a URL", {}};
  char* scheme = nullptr;
  char* host = nullptr;
  const bool read = curl_url_get(u.get(), CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
                    curl_url_get(u.get(), CURLUPART_HOST, &host, 0) == CURLUE_OK;
  const std::string s = scheme ? scheme : "", h = host ? host : "";
  curl_free(scheme);
  curl_free(host);
  if (!read || (s != "http" && s != "https"))
    return Error{"'" + url + "' is not an http:// or https:// URL", {}};
  if (h.empty()) return Error{"'" + url + "' names no host", {}};
  return okStatus();
}

size_t keepScrape(char* data, size_t size, size_t count, void* into) {
  auto& body = *static_cast<std::string*>(into);
  if (body.size() + size * count > kMaxScrapeBytes) return 0;  // libcurl stops: CURLE_WRITE_ERROR
  body.append(data, size * count);
  return size * count;
}

// The body of a GET (HTTP/1.0, as dcgm-exporter's scrapers send it, so the answer is never
// chunked); anything but status 200 is an error. Connecting, and each stretch without a byte,
// wait at most `timeoutMs`; redirects are followed (at most 3), https:// verifies the server.
Expected<std::string> httpGet(const std::string& url, int timeoutMs) {
  curlOnce();
  const std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(),
                                                                 curl_easy_cleanup);
  if (!curl) return Error{url + ": cannot start an HTTP client", {}};
  const std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(
      curl_slist_append(nullptr, "Accept: text/plain"), curl_slist_free_all);
  std::string body;
  char detail[CURL_ERROR_SIZE] = {};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 3L);
  curl_easy_setopt(c, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_0));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_USERAGENT, "tessera-agent");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for timeouts: the agent has threads
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeoutMs));
  // A stalled answer: under one byte per second for the step's time.
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, std::max(1L, static_cast<long>(timeoutMs / 1000)));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keepScrape);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
  if (const CURLcode rc = curl_easy_perform(c); rc != CURLE_OK) {
    if (rc == CURLE_WRITE_ERROR) return Error{url + ": answer over 64 MiB", {}};
    return Error{url + ": " + (detail[0] ? std::string(detail) : curl_easy_strerror(rc)), {}};
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200) return Error{url + ": HTTP status " + std::to_string(status), {}};
  return body;
}

// ============================================================================ signals

std::atomic<bool> gStop{false};

extern "C" void onStopSignal(int) {
  gStop.store(true);
}

// SIGTERM and SIGINT ask the loop to stop while the agent runs; the old handlers come back after.
class StopSignals {
 public:
  StopSignals() {
    gStop.store(false);
    struct sigaction sa {};
    sa.sa_handler = onStopSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &oldTerm_);
    sigaction(SIGINT, &sa, &oldInt_);
  }
  ~StopSignals() {
    sigaction(SIGTERM, &oldTerm_, nullptr);
    sigaction(SIGINT, &oldInt_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction oldTerm_ {
  }, oldInt_{};
};

// Sleeps until `t` in short steps; false when a stop was asked for.
bool sleepUntil(Clock::time_point t) {
  while (!gStop.load()) {
    const auto left = t - Clock::now();
    if (left <= Clock::duration::zero()) return true;
    std::this_thread::sleep_for(std::min<Clock::duration>(left, std::chrono::milliseconds(20)));
  }
  return false;
}

// ============================================================================ the agent

struct AgentFlags {
  ctl::GlobalFlags connection;
  AgentPlace place;  // --node, --leaf, --pool
  double interval = 10;
  std::string dcgmUrl = "http://127.0.0.1:9400/metrics";
  size_t buffer = 60;
  double maxBackoff = 60;
  NvmlProbeOptions nvml;
  std::string migApply = "on";  // on, dry-run, off
  std::string nvidiaSmi = "nvidia-smi";
};

MigApplyMode migApplyMode(const std::string& word) {
  return word == "off"       ? MigApplyMode::Off
         : word == "dry-run" ? MigApplyMode::DryRun
                             : MigApplyMode::On;
}

// 1 s doubling up to the maximum, each wait drawn within ±20 % so that the nodes of a cluster
// do not all come back at the same instant.
class Backoff {
 public:
  explicit Backoff(double max) : max_(max), next_(std::min(1.0, max)) {}
  double next() {
    const double base = next_;
    next_ = std::min(next_ * 2, max_);
    return std::min(max_, base * std::uniform_real_distribution<double>(0.8, 1.2)(rng_));
  }
  void reset() { next_ = std::min(1.0, max_); }

 private:
  double max_, next_;
  std::mt19937 rng_{std::random_device{}()};
};

struct Sample {
  std::string exposition, source;
};

enum class Sent { Ok, Unreachable, Refused };

class Agent {
 public:
  Agent(Context& ctx, const AgentFlags& f, rpc::RemoteSession& session, const GpuCatalog& catalog,
        std::string server)
      : ctx_(ctx),
        f_(f),
        session_(session),
        catalog_(catalog),
        server_(std::move(server)),
        backoff_(f.maxBackoff),
        host_(probeHostName()),
        mig_(migApplyMode(f.migApply), f.nvidiaSmi, [this](const std::string& m) { log(m); }) {}

  int run() {
    log("node " + f_.place.node + ", server " + server_ + ", every " + number(f_.interval) +
        " s, buffer " + std::to_string(f_.buffer) + " samples; telemetry from " +
        (f_.dcgmUrl.empty() ? std::string()
                            : "dcgm-exporter at " + f_.dcgmUrl +
                                  " when it "
                                  "answers, else ") +
        "NVML");
    auto next = Clock::now();
    do {
      cycle();
      next += interval();
      next = std::max(next, Clock::now());  // a slow cycle skips ticks instead of bunching
    } while (sleepUntil(next));
    log("stopping; " + std::to_string(buffer_.size()) + " unsent samples dropped");
    return kExitOk;
  }

 private:
  [[nodiscard]] Clock::duration interval() const {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(f_.interval));
  }
  // At most `digits` decimals, trailing zeros dropped: "10", "0.2", "1.7".
  static std::string number(double v, int digits = 3) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    std::string text = s.str();
    text.erase(text.find_last_not_of('0') + 1);
    if (text.ends_with('.')) text.pop_back();
    return text;
  }
  void log(const std::string& message) { ctx_.err << "tessera agent: " << message << std::endl; }

  void cycle() {
    probeInventory();
    Sample s = readTelemetry();
    if (!s.exposition.empty()) enqueue(std::move(s));
    if (Clock::now() >= nextAttempt_) flush();
    applyMig();
  }

  // The layouts tesserad answered the pushes with. After commands ran, the node is probed again
  // at once: NVML's answer is logged against the plan and reported (tesserad lifts its hold when
  // the report shows the layout).
  void applyMig() {
    if (!node_ || !mig_.apply(*node_, check_)) return;
    probeInventory();
    mig_.readBack(*node_, check_);
    if (Clock::now() >= nextAttempt_) (void)flushInventory();
  }

  // Probes the node; a different inventory (or a first one) becomes due for tesserad. A probe
  // that fails is logged when its error changes, and the last good inventory stays due.
  void probeInventory() {
    NodeProbeOptions options;
    options.nvml = f_.nvml;
    auto node = probeNode(options);
    if (!node) {
      const std::string error = "cannot probe the node: " + node.error().str();
      if (error != probeError_) log(error);
      probeError_ = error;
      return;
    }
    probeError_.clear();
    check_ = checkAgainstCatalog(*node, catalog_);
    node_ = *node;
    const CatalogCheck& check = check_;
    v1::ReportInventoryRequest request = inventoryRequest(*node, check, f_.place);
    std::string key;
    (void)request.SerializeToString(&key);  // a plain message: the same fields, the same bytes
    if (key == inventoryKey_) return;
    std::string text;
    for (const auto& u : check.unknown) text += "\n  " + u;
    log(std::string(inventory_ ? "inventory changed" : "inventory") + ": " +
        std::to_string(node->gpus.size()) + " GPUs, driver " + node->driverVersion + text);
    inventoryKey_ = std::move(key);
    inventory_ = std::move(request);
    inventoryDue_ = true;
  }

  Sent sendInventory(std::string& message) {
    v1::ReportInventoryResponse response;
    grpc::ClientContext context;
    session_.prepare(context);
    const grpc::Status status = session_.stub().ReportInventory(&context, *inventory_, &response);
    if (!status.ok()) return failed(status, message);
    std::string said = "node " + f_.place.node + " " + response.admission();
    for (const auto& c : response.changes()) said += "\n  " + c;
    for (const auto& w : response.warnings()) said += "\n  warning: " + w;
    if (said != inventoryReply_) log("tesserad took the inventory: " + said);
    inventoryReply_ = said;
    return Sent::Ok;
  }

  static Sent failed(const grpc::Status& status, std::string& message) {
    message = status.error_message();
    const auto code = status.error_code();
    return code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::DEADLINE_EXCEEDED
               ? Sent::Unreachable
               : Sent::Refused;
  }

  Sample readTelemetry() {
    std::string dcgmError;
    if (!f_.dcgmUrl.empty()) {
      auto body = httpGet(f_.dcgmUrl, 2000);
      if (body && !trim(*body).empty())
        return noteSource({*body, "dcgm-exporter " + f_.dcgmUrl}, {});
      dcgmError = "dcgm-exporter at " + f_.dcgmUrl + ": " +
                  (body ? std::string("empty answer") : body.error().str()) + "; ";
    }
    auto samples = sampleNvml(f_.nvml);
    if (!samples) return noteSource({}, "no telemetry: " + dcgmError + samples.error().str());
    watchFaults(*samples);
    return noteSource({dcgmExposition(*samples, host_), "nvml"}, {});
  }

  // Xid and double-bit ECC events between samples (nvml_faults.h): the watch opens with the
  // first NVML sample and stays open; one that cannot open is tried again each interval, its
  // error logged once.
  void watchFaults(std::vector<GpuSample>& samples) {
    if (!faults_) {
      auto watch = NvmlFaultWatch::open(f_.nvml);
      if (!watch) {
        const std::string error = "no NVML fault events: " + watch.error().str();
        if (error != faultsError_) log(error);
        faultsError_ = error;
        return;
      }
      faults_ = std::move(*watch);
      for (const auto& n : faults_->notes()) log("NVML fault events: " + n);
    }
    for (const auto& e : faults_->poll()) log("NVML event: " + e);
    faults_->annotate(samples);
  }

  // Logs where telemetry comes from (or why none) when that changes.
  Sample noteSource(Sample s, const std::string& error) {
    const std::string what = error.empty() ? "telemetry from " + s.source : error;
    if (what != source_) log(what);
    source_ = what;
    return s;
  }

  void enqueue(Sample s) {
    if (buffer_.size() >= f_.buffer) {
      buffer_.pop_front();
      if (++dropped_ == 1)
        log("buffer full (" + std::to_string(f_.buffer) +
            " samples): dropping the oldest until tesserad answers");
    }
    buffer_.push_back(std::move(s));
  }

  Sent push(const Sample& s, std::string& message) {
    v1::PushTelemetryRequest request;
    request.set_exposition(s.exposition);
    request.set_source("tessera agent (" + s.source + ")");
    request.set_node(f_.place.node);
    v1::PushTelemetryResponse response;
    grpc::ClientContext context;
    session_.prepare(context);
    const grpc::Status status = session_.stub().PushTelemetry(&context, request, &response);
    if (status.ok()) {
      std::string warnings;
      for (const auto& w : response.warnings()) warnings += "\n  warning: " + w;
      if (warnings != warnings_ && !warnings.empty()) log("tesserad says:" + warnings);
      warnings_ = warnings;
      mig_.take(response);
      return Sent::Ok;
    }
    return failed(status, message);
  }

  // Sends the inventory when due, then the buffer oldest first; stops at the first failure and
  // waits out the backoff.
  void flush() {
    if (!flushInventory()) return;
    size_t sent = 0;
    while (!buffer_.empty()) {
      std::string message;
      const Sent result = push(buffer_.front(), message);
      if (result == Sent::Ok) {
        buffer_.pop_front();
        ++sent;
        continue;
      }
      if (result == Sent::Refused) {
        // Retrying cannot help (a bad token, a node tesserad does not know): the sample goes.
        log("tesserad refused the sample (dropped): " + message);
        buffer_.pop_front();
      }
      return waitAfterFailure(result, message);
    }
    if (away_) {
      log("tesserad is back: sent " + std::to_string(sent) + " buffered samples" +
          (dropped_ ? ", dropped the " + std::to_string(dropped_) + " oldest while it was away"
                    : std::string()));
      away_ = false;
    }
    dropped_ = 0;
    backoff_.reset();
  }

  // False when tesserad is unreachable (the backoff then runs). A refused inventory is not
  // retried until it changes: the same report would be refused again.
  bool flushInventory() {
    if (!inventoryDue_ || !inventory_) return true;
    std::string message;
    const Sent result = sendInventory(message);
    if (result == Sent::Refused) log("tesserad refused the inventory: " + message);
    if (result != Sent::Unreachable) {
      inventoryDue_ = false;
      return true;
    }
    waitAfterFailure(result, message);
    return false;
  }

  void waitAfterFailure(Sent result, const std::string& message) {
    if (result == Sent::Unreachable) {
      // A tesserad that restarted forgets which nodes reported: tell it again once it is back.
      inventoryDue_ = inventory_.has_value();
      if (!away_) {
        log("tesserad at " + server_ + " unreachable (" + message + "); buffering up to " +
            std::to_string(f_.buffer) + " samples");
        away_ = true;
      }
    }
    const double wait = backoff_.next();
    log("next try in " + number(wait, 1) + " s");
    nextAttempt_ = Clock::now() +
                   std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait));
  }

  Context& ctx_;
  const AgentFlags& f_;
  rpc::RemoteSession& session_;
  const GpuCatalog& catalog_;
  std::string server_;
  Backoff backoff_;
  std::string host_;
  std::deque<Sample> buffer_;
  size_t dropped_ = 0;  // since tesserad was last reached
  bool away_ = false;
  Clock::time_point nextAttempt_{};
  std::string source_, warnings_;
  std::optional<v1::ReportInventoryRequest> inventory_;  // the last probed
  std::string inventoryKey_, inventoryReply_, probeError_;
  bool inventoryDue_ = false;
  std::optional<NodeInventory> node_;  // the last probed, and its catalog check
  CatalogCheck check_;
  AgentMigApply mig_;
  std::unique_ptr<NvmlFaultWatch> faults_;  // open while NVML answers
  std::string faultsError_;
};

int runAgent(Context& ctx, AgentFlags& f) {
  if (!f.dcgmUrl.empty())
    if (auto url = checkScrapeUrl(f.dcgmUrl); !url)
      return ctx.fail("agent: --dcgm-url: " + url.error().str(), kExitUsage);
  auto options = ctl::resolveOptions(f.connection, ctl::processEnvironment());
  if (!options) return ctx.fail("agent: " + options.error().str(), kExitUsage);
  options->timeoutSeconds = f.connection.timeout;
  // The agent's own backoff paces the retries; the channel must not wait longer between its
  // reconnects, or a tesserad that is back would go unseen for up to two minutes.
  options->maxReconnectBackoffSeconds = std::min(1.0, f.maxBackoff);
  auto session = rpc::RemoteSession::connect(*options);
  if (!session) return ctx.fail("agent: " + session.error().str(), kExitUsage);
  const GpuCatalog* catalog = ctx.catalog();
  if (!catalog) return kExitUsage;
  if (f.place.node.empty()) f.place.node = probeHostName();
  const StopSignals signals;
  return Agent(ctx, f, **session, *catalog, options->address).run();
}

// A duration flag: a finite number of seconds above 0 (CLI::PositiveNumber's message would print
// the largest double as the range).
CLI::Validator positiveSeconds() {
  return {[](std::string& text) -> std::string {
            double v = 0;
            if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || v <= 0)
              return "'" + text + "' is not a number of seconds above 0";
            return {};
          },
          "SECONDS"};
}

}  // namespace

void addAgentVerb(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<AgentFlags>();
  f->connection.timeout = 10;
  auto* agent = app.add_subcommand(
      "agent",
      "Per-node daemon: report this node's inventory to tesserad at start and on change, and "
      "push its GPU telemetry (dcgm-exporter's scrape, else NVML) every interval, buffering and "
      "retrying while tesserad is away (docs/agent.md)");
  ctl::addConnectionOptions(*agent, f->connection);
  agent
      ->add_option("--node", f->place.node,
                   "The scheduler's name of this node (default: host name)")
      ->type_name("NAME");
  agent
      ->add_option("--leaf", f->place.leaf,
                   "The fabric leaf the node joins under when admitted (default: one of its own)")
      ->type_name("NAME");
  agent->add_option("--pool", f->place.pool, "The node's pool when admitted (default: none)")
      ->type_name("NAME");
  agent->add_option("--interval", f->interval, "Seconds between samples (fractions allowed)")
      ->check(positiveSeconds())
      ->capture_default_str();
  agent
      ->add_option("--dcgm-url", f->dcgmUrl,
                   "dcgm-exporter's metrics URL (http:// or https://); when it does not "
                   "answer, NVML is sampled; empty = NVML only")
      ->capture_default_str();
  agent->add_option("--buffer", f->buffer, "Unsent samples kept while tesserad is away")
      ->check(CLI::Range(size_t{1}, size_t{1000000}))
      ->capture_default_str();
  agent->add_option("--max-backoff", f->maxBackoff, "Longest wait in seconds between retries")
      ->check(positiveSeconds())
      ->capture_default_str();
  agent->add_option("--nvml-library", f->nvml.library, "NVML library to load")
      ->capture_default_str();
  agent
      ->add_option("--mig-apply", f->migApply,
                   "Apply the MIG layouts tesserad plans for this node with nvidia-smi once it "
                   "holds the node (on), only log the commands (dry-run), or neither (off)")
      ->check(CLI::IsMember({"on", "dry-run", "off"}))
      ->capture_default_str();
  agent->add_option("--nvidia-smi", f->nvidiaSmi, "The nvidia-smi that MIG apply runs")
      ->type_name("PATH")
      ->capture_default_str();
  agent->callback([&ctx, f] { ctx.exitCode = runAgent(ctx, *f); });
}

}  // namespace tessera::cli
