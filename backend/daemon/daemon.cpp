#include "daemon/daemon.h"

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <future>
#include <memory>

#include "clusterspec/cluster_spec.h"
#include "clusterspec/cluster_summary.h"
#include "daemon/backend_metrics.h"
#include "daemon/logger.h"
#include "daemon/metrics_exporter.h"
#include "daemon/report_scheduler.h"
#include "executor/slurm_executor.h"
#include "rpc/server.h"
#include "service/backend.h"

namespace tessera {
namespace {

struct Loaded {
  GpuCatalog catalog;
  std::shared_ptr<const Cluster> cluster;
  Workload tenants;
  Policy policy;
  std::optional<TokenBook> tokens;
};

int unreadableOr(const std::string& path, int otherwise) {
  return !path.empty() && !std::filesystem::is_regular_file(path) ? kTesseradUsage : otherwise;
}

// Everything the configuration names, loaded and checked; on failure the exit code to use.
std::variant<Loaded, int> loadAll(const TesseradConfig& c, const Logger& log) {
  auto fail = [&](const Error& e, const std::string& path) -> std::variant<Loaded, int> {
    log.error(e.str());
    return unreadableOr(path, kTesseradInvalidConfig);
  };
  if (auto st = validateTesseradConfig(c); !st) {
    log.error("configuration: " + st.error().str());
    return kTesseradInvalidConfig;
  }
  auto catalog = loadCatalog(c.catalog);
  if (!catalog) return fail(catalog.error(), c.catalog);
  Loaded l{std::move(*catalog), nullptr, {}, {}, std::nullopt};
  // Slurm 22.05 runs gres/mps with one_sharing unless gres.conf says all_sharing: a spec that
  // does not say is read as Slurm's default (docs/slurm.md, "Which GPU Slurm gives a share").
  const MpsNodeSharing mpsDefault =
      c.executor == "slurm" ? MpsNodeSharing::One : MpsNodeSharing::All;
  auto cluster = loadClusterOrDemo(c.cluster, l.catalog, mpsDefault);
  if (!cluster) return fail(cluster.error(), c.cluster);
  l.cluster = *cluster;
  auto tenants =
      c.workload.empty() ? demoWorkload(&l.catalog) : loadWorkloadFile(c.workload, &l.catalog);
  if (!tenants) return fail(tenants.error(), c.workload);
  l.tenants = std::move(*tenants);
  l.tenants.jobs.clear();
  if (!c.policy.empty()) {
    auto policy = loadPolicyFile(c.policy);
    if (!policy) return fail(policy.error(), c.policy);
    l.policy = std::move(*policy);
  }
  if (!c.tokens.empty()) {
    auto tokens = TokenBook::load(c.tokens);
    if (!tokens) return fail(tokens.error(), c.tokens);
    l.tokens = std::move(*tokens);
  }
  return l;
}

BackendConfig backendConfig(const TesseradConfig& c, Loaded& l) {
  BackendConfig b;
  b.database = c.database;
  b.mode = c.mode == "live" ? BackendMode::Live : BackendMode::SimulatedLive;
  b.cluster = l.cluster;
  b.tenants = l.tenants;
  b.policy = l.policy;
  // Slurm's MIG types are declared in gres.conf: jobs take the instances that exist, and a
  // layout changes only by an operator's repartition (carried out through slurm.mig_hook).
  if (c.executor == "slurm") b.policy.mig.createInstances = false;
  b.catalog = &l.catalog;
  b.autoAdmitNodes = c.inventoryAutoAdmit;
  b.readingsRefreshSeconds = c.telemetryRefreshSeconds;
  b.cycleSeconds = c.cycleSeconds;
  b.speed = c.speed;
  b.arrivalsPerHour = c.arrivalsPerHour;
  b.gpuFaultsPerDay = c.gpuFaultsPerDay;
  b.gpuFaultRepair = c.gpuFaultRepair;
  b.seed = c.seed;
  b.retention = {c.retentionRaw, c.retentionMinute, c.retentionHour};
  b.historyRetention = {c.retentionJobs, c.retentionEvents};
  b.history.finishedFor = c.memoryFinishedFor;
  b.history.events = static_cast<size_t>(c.memoryEvents);
  return b;
}

// Pin, release and drain need root or SlurmUser: refuse to start without, saying so, rather
// than accept jobs that Slurm will never be told to run.
Status checkSlurmAccess(const TesseradConfig& c) {
  if (c.executor != "slurm") return okStatus();
  slurm::ProcessRunner runner(1);
  slurm::SlurmClient client(runner, slurmExecutorConfig(c.slurm).client);
  if (auto config = client.config(); !config)
    return Error{"executor slurm: cannot read Slurm's configuration: " + config.error().str(), {}};
  return client.checkPermissions();
}

// The render command of html/pdf reports: the configured one, else `tessera` beside this
// executable (both are installed into the same bin directory, and sit side by side in a build).
std::vector<std::string> renderCommandOf(const ReportsConfig& r) {
  if (!r.renderCommand.empty()) return r.renderCommand;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {"tessera"};
  return {(self.parent_path() / "tessera").string()};
}

bool needsRenderer(const ReportsConfig& r) {
  for (const ReportSchedule& s : r.schedules)
    for (const std::string& f : s.formats)
      if (f == "html" || f == "pdf") return true;
  return false;
}

// The reports directory exists (or was made) and the render command can run, when needed.
Status checkReports(const ReportsConfig& r) {
  if (r.schedules.empty()) return okStatus();
  std::error_code ec;
  std::filesystem::create_directories(r.dir, ec);
  if (!std::filesystem::is_directory(r.dir) || access(r.dir.c_str(), W_OK) != 0)
    return Error{"reports.dir: cannot write into " + r.dir + (ec ? ": " + ec.message() : ""), {}};
  if (!needsRenderer(r)) return okStatus();
  const std::string program = renderCommandOf(r).front();
  // A bare name is looked up in PATH when it runs.
  if (program.find('/') != std::string::npos && access(program.c_str(), X_OK) != 0)
    return Error{
        "reports.render_command: " + program + " cannot be run (html and pdf reports need it)", {}};
  return okStatus();
}

// Scheduled reports through the backend's own report path (a worker thread and a read-only
// connection), waited for on the scheduler's thread.
std::unique_ptr<ReportScheduler> startReports(const TesseradConfig& config, Backend& backend,
                                              const Logger& log) {
  if (config.reports.schedules.empty()) return nullptr;
  ReportsConfig rc = config.reports;
  rc.renderCommand = renderCommandOf(rc);
  auto compute = [&backend](const ReportRequest& request, const std::function<bool()>& stopping) {
    std::promise<std::variant<Report, ApiError>> answer;
    auto future = answer.get_future();
    backend.report(request, ReportLimits{std::nullopt, stopping},
                   [&answer](std::variant<Report, ApiError> r) { answer.set_value(std::move(r)); });
    return future.get();
  };
  auto scheduler = std::make_unique<ReportScheduler>(
      std::move(rc), compute, [&backend] { return backend.committedNow(); }, log);
  scheduler->start();
  log.info("scheduled reports", {{"dir", config.reports.dir},
                                 {"schedules", std::to_string(config.reports.schedules.size())}});
  return scheduler;
}

int waitForSignal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  int sig = 0;
  sigwait(&set, &sig);
  return sig;
}

}  // namespace

SlurmExecutorConfig slurmExecutorConfig(const SlurmSettings& s) {
  SlurmExecutorConfig sc;
  if (!s.conf.empty()) sc.client.environment["SLURM_CONF"] = s.conf;
  sc.client.binDir = s.binDir;
  sc.pollSeconds = s.pollSeconds;
  sc.idlePollSeconds = s.idlePollSeconds;
  sc.driver.fullPollSeconds = s.fullPollSeconds;
  sc.driver.preemptGrace = s.preemptGrace;
  sc.driver.preemptSignal = s.preemptSignal;
  sc.driver.adopt = s.adopt;
  sc.exactGpus = s.exactGpus;
  sc.mpsPerGpu = s.mpsPerGpu;
  sc.driver.migHook = s.migHook;
  sc.driver.migHookTimeout = std::chrono::seconds(s.migHookTimeout);
  sc.driver.releaseSettle = s.releaseSettle;
  sc.driver.migDir = s.migDir;
  sc.defaultTeam = s.defaultTeam;
  sc.adoptedClass = s.adoptedClass;
  sc.defaultTimeLimitMinutes = s.defaultTimeLimitMinutes;
  sc.userTeams = s.userTeams;
  sc.teamAccounts = s.teamAccounts;
  sc.poolPartitions = s.poolPartitions;
  sc.gresTypes = s.gresTypes;
  return sc;
}

int runTesserad(const TesseradConfig& config, bool checkOnly, std::ostream& out) {
  const Logger log(config.logFormat == "json", Logger::levelNamed(config.logLevel));
  // Before any thread exists, so every thread inherits the mask and sigwait() sees the signal.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  auto loaded = loadAll(config, log);
  if (auto* code = std::get_if<int>(&loaded)) return *code;
  Loaded& l = std::get<Loaded>(loaded);
  if (auto st = checkReports(config.reports); !st) {
    log.error("configuration: " + st.error().str());
    return kTesseradInvalidConfig;
  }
  if (checkOnly) {
    out << formatSummary(summarize(*l.cluster));
    out << "tesserad: configuration OK (mode " << config.mode << ", database " << config.database
        << ", listen " << config.listen
        << (l.tokens ? ", tokens " + std::to_string(l.tokens->size()) : ", no authentication")
        << ")\n";
    if (!config.reports.schedules.empty())
      out << "tesserad: " << config.reports.schedules.size() << " report schedule(s) into "
          << config.reports.dir << "\n";
    return kTesseradOk;
  }

  if (auto st = checkSlurmAccess(config); !st) {
    log.error(st.error().str());
    return kTesseradInvalidConfig;
  }
  auto metrics = std::make_shared<BackendMetrics>();
  BackendConfig bc = backendConfig(config, l);
  bc.onCycle = [metrics](const CycleReport& c) { metrics->recordCycle(c); };
  // Node inventories: what tesserad changed or doubts (catalog mismatches, GPUs held out).
  bc.onWarning = [&log](const std::string& m) { log.warn("inventory", {{"detail", m}}); };
  if (config.executor == "slurm") {
    SlurmExecutorConfig sc = slurmExecutorConfig(config.slurm);
    if (sc.driver.migDir.empty())
      sc.driver.migDir =
          (std::filesystem::path(config.database).parent_path() / "tessera-mig").string();
    sc.onStartLatency = [metrics](double s) { metrics->recordStartLatency("slurm", s); };
    bc.executor = [sc] {
      return std::make_unique<SlurmExecutor>(
          std::make_unique<slurm::ProcessRunner>(sc.maxConcurrent), sc);
    };
  }
  auto backend = Backend::open(std::move(bc));
  if (!backend) {
    log.error("cannot open the backend: " + backend.error().str(), {{"database", config.database}});
    return kTesseradCannotServe;
  }
  log.info("engine restored", {{"database", config.database},
                               {"active_jobs", std::to_string((*backend)->restoredJobs())},
                               {"seconds", std::to_string((*backend)->restoreSeconds())}});

  // Before "serving" is logged: a scrape from then on sees tessera_backend_up.
  const auto stopHealthExport = exportHealth(*metrics, **backend, log);
  rpc::ServerOptions so;
  so.listen = config.listen;
  so.tlsCert = config.tlsCert;
  so.tlsKey = config.tlsKey;
  so.allowInsecureRemote = config.allowInsecureRemote;
  so.tokens = l.tokens;
  so.ratePerSecond = config.ratePerSecond;
  so.rateBurst = config.rateBurst;
  so.maxMessageBytes = config.maxMessageMiB << 20;
  so.maxBatchJobs = config.maxBatchJobs;
  so.onCallFinished = [metrics](const std::string& method, double seconds) {
    metrics->recordCall(method, seconds);
  };
  auto server = rpc::ApiServer::start(**backend, so);
  if (!server) {
    log.error(server.error().str(), {{"listen", config.listen}});
    return kTesseradCannotServe;
  }
  std::unique_ptr<MetricsExporter> exporter;
  if (config.metricsListen != "off" && !config.metricsListen.empty()) {
    auto e = MetricsExporter::start(config.metricsListen, metrics->collectables());
    if (!e) {
      log.error("metrics endpoint: " + e.error().str());
      return kTesseradCannotServe;
    }
    exporter = std::move(*e);
  }
  log.info("serving", {{"mode", config.mode},
                       {"listen", config.listen},
                       {"port", std::to_string((*server)->port())},
                       {"metrics_port", exporter ? std::to_string(exporter->port()) : "off"},
                       {"auth", l.tokens ? "tokens" : "none"},
                       {"tls", config.tlsCert.empty() ? "off" : "on"}});
  auto reports = startReports(config, **backend, log);
  const int sig = waitForSignal();
  log.info("shutting down", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
  // The scheduler first: it abandons a report in progress rather than hold the shutdown.
  if (reports) reports->stop();
  (*server)->shutdown();
  stopHealthExport();
  if (exporter) exporter->stop();
  (*backend)->stop();
  log.info("stopped cleanly");
  return kTesseradOk;
}

}  // namespace tessera
