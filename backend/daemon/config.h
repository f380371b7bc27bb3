#pragma once
// tesserad's configuration: a YAML file (installer/tesserad.yaml is the annotated sample) with
// every key also available as a flag; flags win. Errors name the file, line and key.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/ids.h"
#include "report/report.h"
#include "report/report_time.h"

namespace tessera {

// Scheduled reports (daemon/report_scheduler.h, docs/tesserad.md#scheduled-reports): the
// formats a schedule may name, one schedule, and the `reports` section.
inline constexpr const char* kScheduledReportFormats[] = {"csv", "json", "html", "pdf"};

struct ReportSchedule {
  std::string name;  // file names start with it: letters, digits, '.', '_', '-'
  ReportPeriod every = ReportPeriod::Day;
  ReportGroup groupBy = ReportGroup::Team;
  std::vector<std::string> formats;  // of kScheduledReportFormats, each at most once
  std::string timeZone = "UTC";
  std::string pricesFile;            // empty: no cost figures
  std::optional<PriceTable> prices;  // read from pricesFile at startup
  std::vector<std::string> teams;    // only these teams; empty = all
};

struct ReportsConfig {
  std::string dir;  // where the files go; created when missing
  // The program (and leading arguments) that renders html and pdf; empty = `tessera` in the
  // directory of the running tesserad. A name without '/' is looked up in PATH.
  std::vector<std::string> renderCommand;
  std::vector<ReportSchedule> schedules;
};

// `executor: slurm` (docs/slurm.md): how tesserad reaches Slurm and maps Tessera's names to it.
struct SlurmSettings {
  std::string conf;    // SLURM_CONF for every Slurm command; empty: Slurm's default
  std::string binDir;  // where sbatch, squeue, ... are; empty: PATH
  double pollSeconds = 1;
  Seconds fullPollSeconds = 10;  // squeue --json at least this often (light listing between)
  double idlePollSeconds = 5;    // while nothing runs or waits
  Seconds preemptGrace = 0;      // checkpoint signal, then this long, then requeue
  int preemptSignal = 10;        // SIGUSR1
  bool adopt = true;             // take in jobs users sbatch'ed (held by the gate)
  bool exactGpus = false;        // the site's per-device GRES types: exact GPUs and MIG slots
  int mpsPerGpu = 100;           // gres/mps count per GPU in the site's gres.conf
  // MIG repartitions: the site's command (<hook...> <node> <dir>), where the files go (empty:
  // "tessera-mig" beside the database) and how long the command may take.
  std::vector<std::string> migHook;
  std::string migDir;
  Seconds migHookTimeout = 300;
  // A released job Slurm still leaves pending this long is bounced (SlurmDriverConfig).
  Seconds releaseSettle = 30;
  std::string defaultTeam;   // adopted jobs of unmapped users
  std::string adoptedClass;  // their priority class; empty: the lowest
  int defaultTimeLimitMinutes = 60;
  std::map<std::string, std::string> userTeams;       // Slurm user or account -> team
  std::map<std::string, std::string> teamAccounts;    // team -> --account
  std::map<std::string, std::string> poolPartitions;  // pool -> --partition
  std::map<std::string, std::string> gresTypes;       // GPU model -> Slurm GRES type
};

struct TesseradConfig {
  std::string mode = "live";      // live | simulated-live
  std::string executor = "none";  // live mode: none | slurm
  // Live mode: admit nodes that report their inventory without an operator (docs/tesserad.md).
  bool inventoryAutoAdmit = false;
  // Live mode: how late agents' pushed readings may reach the snapshot (BackendConfig).
  double telemetryRefreshSeconds = 1;
  SlurmSettings slurm;
  std::string database = "tesserad.db";
  std::string cluster;   // cluster spec; empty = the built-in demo cluster
  std::string workload;  // teams, quotas, priority classes (jobs are ignored); empty = demo tenants
  std::string policy;    // scheduler policy; empty = defaults
  std::string catalog;   // extra GPU catalog
  std::string listen = "127.0.0.1:50551";
  std::string tlsCert, tlsKey;
  std::string tokens;  // token file; empty = no authentication (loopback only)
  bool allowInsecureRemote = false;
  std::string metricsListen = "127.0.0.1:9464";  // "off" disables the Prometheus endpoint
  double cycleSeconds = 2;
  double ratePerSecond = 500;
  double rateBurst = 1000;
  int maxMessageMiB = 16;
  size_t maxBatchJobs = 100000;
  double speed = 60;
  double arrivalsPerHour = 120;
  double gpuFaultsPerDay = 0;  // simulated-live: injected Xid faults per engine day
  Seconds gpuFaultRepair = 1800;
  uint64_t seed = 1;
  Seconds retentionRaw = 6 * 3600, retentionMinute = 7 * 86400, retentionHour = 400 * 86400;
  // Finished jobs' rows and old events in the database (0 = forever), and what of them the
  // engine keeps in memory (Backend's HistoryMemory).
  Seconds retentionJobs = 0, retentionEvents = 0;
  Seconds memoryFinishedFor = 600;
  int64_t memoryEvents = 10000;
  std::string logFormat = "text";  // text | json
  std::string logLevel = "info";   // debug | info | warn | error
  ReportsConfig reports;           // file only (no flags)
};

// Reads `path` over the defaults in `config`; unknown keys and bad values are errors.
Status loadTesseradConfig(const std::string& path, TesseradConfig& config);
// Schedules are checked while reading (formats, zone, group, the price table is read), so their
// errors name file:line:column like the rest.
// Checks values that flags or the file may have set (mode, log format, positive intervals).
Status validateTesseradConfig(const TesseradConfig& config);

}  // namespace tessera
