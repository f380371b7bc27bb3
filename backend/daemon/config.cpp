#include "daemon/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>

#include "workload/workload_spec.h"

namespace tessera {
namespace {

Error at(const std::string& file, const YAML::Node& n, const std::string& key,
         const std::string& message) {
  return Error{message, {file, n.Mark().line + 1, n.Mark().column + 1, key}};
}

using Setter = std::function<Status(const YAML::Node&, const std::string& key)>;

template <typename T>
Setter value(const std::string& file, T& out) {
  return [&file, &out](const YAML::Node& n, const std::string& key) -> Status {
    try {
      out = n.as<T>();
    } catch (const YAML::Exception&) {
      return at(file, n, key, "has the wrong type");
    }
    return okStatus();
  };
}

Setter duration(const std::string& file, Seconds& out) {
  return [&file, &out](const YAML::Node& n, const std::string& key) -> Status {
    const auto d = n.IsScalar() ? parseDuration(n.Scalar()) : std::nullopt;
    if (!d) return at(file, n, key, "is not a duration (90s, 15m, 2h, 7d)");
    out = *d;
    return okStatus();
  };
}

Setter seconds(const std::string& file, double& out) {
  return [&file, &out](const YAML::Node& n, const std::string& key) -> Status {
    const auto d = n.IsScalar() ? parseDuration(n.Scalar()) : std::nullopt;
    if (d) {
      out = static_cast<double>(*d);
      return okStatus();
    }
    try {
      out = n.as<double>();
    } catch (const YAML::Exception&) {
      return at(file, n, key, "is not a duration (0.5, 2s, 1m)");
    }
    return okStatus();
  };
}

// A string, or a list of strings.
Expected<std::vector<std::string>> stringsAt(const std::string& file, const YAML::Node& n,
                                             const std::string& key) {
  if (n.IsScalar()) return std::vector<std::string>{n.Scalar()};
  if (!n.IsSequence()) return at(file, n, key, "must be a text or a list of texts");
  std::vector<std::string> out;
  for (const auto& item : n) {
    if (!item.IsScalar()) return at(file, item, key, "must be a list of texts");
    out.push_back(item.Scalar());
  }
  return out;
}

Setter textList(const std::string& file, std::vector<std::string>& out) {
  return [&file, &out](const YAML::Node& n, const std::string& key) -> Status {
    TESSERA_TRY(list, stringsAt(file, n, key));
    out = std::move(list);
    return okStatus();
  };
}

// A map of names to names ({alice: vision, bob: nlp}).
Setter nameMap(const std::string& file, std::map<std::string, std::string>& out) {
  return [&file, &out](const YAML::Node& n, const std::string& key) -> Status {
    if (!n.IsMap()) return at(file, n, key, "must be a map of names to names");
    std::map<std::string, std::string> m;
    for (const auto& kv : n) {
      if (!kv.second.IsScalar())
        return at(file, kv.second, key + "." + kv.first.as<std::string>(), "must be a name");
      m[kv.first.as<std::string>()] = kv.second.Scalar();
    }
    out = std::move(m);
    return okStatus();
  };
}

bool fileNameSafe(const std::string& name) {
  return !name.empty() && name[0] != '.' && std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-';
  });
}

Status scheduleFormats(const std::string& file, const YAML::Node& v, const std::string& key,
                       ReportSchedule& s) {
  TESSERA_TRY(formats, stringsAt(file, v, key));
  for (const std::string& f : formats) {
    const auto known =
        std::find(std::begin(kScheduledReportFormats), std::end(kScheduledReportFormats), f);
    if (known == std::end(kScheduledReportFormats))
      return at(file, v, key, "unknown format '" + f + "' (csv, json, html, pdf)");
    if (std::count(formats.begin(), formats.end(), f) > 1)
      return at(file, v, key, "format '" + f + "' given twice");
  }
  if (formats.empty()) return at(file, v, key, "give at least one of csv, json, html, pdf");
  s.formats = std::move(formats);
  return okStatus();
}

// One key of a schedule; the price table is read here so a bad one stops tesserad at startup.
Status scheduleKey(const std::string& file, const std::string& key, const YAML::Node& v,
                   const std::string& field, ReportSchedule& s) {
  const std::string text = v.IsScalar() ? v.Scalar() : std::string();
  if (key == "formats") return scheduleFormats(file, v, field, s);
  if (key == "teams") {
    TESSERA_TRY(teams, stringsAt(file, v, field));
    s.teams = std::move(teams);
    return okStatus();
  }
  if (!v.IsScalar()) return at(file, v, field, "must be a text");
  if (key == "name") {
    if (!fileNameSafe(text))
      return at(file, v, field,
                "'" + text +
                    "': use letters, digits, '.', '_' and '-' (file names "
                    "start with it)");
    s.name = text;
  } else if (key == "every") {
    const auto p = parseReportPeriod(text);
    if (!p) return at(file, v, field, "'" + text + "' (daily, weekly or monthly)");
    s.every = *p;
  } else if (key == "group_by") {
    const auto g = parseReportGroup(text);
    if (!g)
      return at(file, v, field,
                "unknown group '" + text + "' (team, department, queue, pool, model, node, job)");
    s.groupBy = *g;
  } else if (key == "time_zone") {
    if (auto st = checkTimeZone(text); !st) return at(file, v, field, st.error().message);
    s.timeZone = text;
  } else if (key == "prices") {
    auto table = loadPriceTableFile(text);
    if (!table) return at(file, v, field, "price table: " + table.error().str());
    s.pricesFile = text;
    s.prices = std::move(*table);
  } else {
    return at(
        file, v, field,
        "unknown key '" + key + "' (name, every, group_by, formats, time_zone, prices, teams)");
  }
  return okStatus();
}

Expected<ReportSchedule> scheduleAt(const std::string& file, const YAML::Node& n,
                                    const std::string& field) {
  if (!n.IsMap()) return at(file, n, field, "must be a map (name, every, formats, ...)");
  ReportSchedule s;
  for (const auto& kv : n) {
    const std::string key = kv.first.as<std::string>();
    TESSERA_CHECK(scheduleKey(file, key, kv.second, field + "." + key, s));
  }
  if (s.name.empty()) return at(file, n, field + ".name", "is required");
  if (s.formats.empty())
    return at(file, n, field + ".formats", "is required (csv, json, html, pdf)");
  return s;
}

Setter schedules(const std::string& file, std::vector<ReportSchedule>& out) {
  return [&file, &out](const YAML::Node& n, const std::string& key) -> Status {
    if (!n.IsSequence()) return at(file, n, key, "must be a list of schedules");
    std::vector<ReportSchedule> list;
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string field = key + "[" + std::to_string(i) + "]";
      TESSERA_TRY(s, scheduleAt(file, n[i], field));
      for (const ReportSchedule& other : list)
        if (other.name == s.name)
          return at(file, n[i], field + ".name", "'" + s.name + "' is used by two schedules");
      list.push_back(std::move(s));
    }
    out = std::move(list);
    return okStatus();
  };
}

Status readMap(const std::string& file, const YAML::Node& node, const std::string& prefix,
               const std::map<std::string, Setter>& keys) {
  if (!node.IsMap()) return at(file, node, prefix, "must be a map");
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    const std::string full = prefix.empty() ? key : prefix + "." + key;
    const auto it = keys.find(full);
    if (it != keys.end()) {
      TESSERA_CHECK(it->second(kv.second, full));
      continue;
    }
    bool isSection = false;
    for (const auto& [k, setter] : keys) isSection = isSection || k.starts_with(full + ".");
    if (!isSection) return at(file, kv.first, full, "unknown key '" + full + "'");
    TESSERA_CHECK(readMap(file, kv.second, full, keys));
  }
  return okStatus();
}

}  // namespace

Status loadTesseradConfig(const std::string& path, TesseradConfig& c) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return Error{"cannot open file", {path, 0, 0, ""}};
  } catch (const YAML::Exception& e) {
    return Error{e.msg, {path, e.mark.line + 1, e.mark.column + 1, ""}};
  }
  if (root.IsNull()) return okStatus();
  const std::map<std::string, Setter> keys{
      {"mode", value(path, c.mode)},
      {"executor", value(path, c.executor)},
      {"inventory.auto_admit", value(path, c.inventoryAutoAdmit)},
      {"telemetry.refresh", seconds(path, c.telemetryRefreshSeconds)},
      {"slurm.conf", value(path, c.slurm.conf)},
      {"slurm.bin_dir", value(path, c.slurm.binDir)},
      {"slurm.poll_interval", seconds(path, c.slurm.pollSeconds)},
      {"slurm.full_poll_interval", duration(path, c.slurm.fullPollSeconds)},
      {"slurm.idle_poll_interval", seconds(path, c.slurm.idlePollSeconds)},
      {"slurm.preempt_grace", duration(path, c.slurm.preemptGrace)},
      {"slurm.preempt_signal", value(path, c.slurm.preemptSignal)},
      {"slurm.adopt", value(path, c.slurm.adopt)},
      {"slurm.exact_gpus", value(path, c.slurm.exactGpus)},
      {"slurm.mps_per_gpu", value(path, c.slurm.mpsPerGpu)},
      {"slurm.mig_hook", textList(path, c.slurm.migHook)},
      {"slurm.mig_dir", value(path, c.slurm.migDir)},
      {"slurm.mig_hook_timeout", duration(path, c.slurm.migHookTimeout)},
      {"slurm.release_settle", duration(path, c.slurm.releaseSettle)},
      {"slurm.default_team", value(path, c.slurm.defaultTeam)},
      {"slurm.adopted_class", value(path, c.slurm.adoptedClass)},
      {"slurm.default_time_limit", value(path, c.slurm.defaultTimeLimitMinutes)},
      {"slurm.user_teams", nameMap(path, c.slurm.userTeams)},
      {"slurm.team_accounts", nameMap(path, c.slurm.teamAccounts)},
      {"slurm.pool_partitions", nameMap(path, c.slurm.poolPartitions)},
      {"slurm.gres_types", nameMap(path, c.slurm.gresTypes)},
      {"database", value(path, c.database)},
      {"cluster", value(path, c.cluster)},
      {"workload", value(path, c.workload)},
      {"policy", value(path, c.policy)},
      {"catalog", value(path, c.catalog)},
      {"listen", value(path, c.listen)},
      {"tls.cert", value(path, c.tlsCert)},
      {"tls.key", value(path, c.tlsKey)},
      {"tokens", value(path, c.tokens)},
      {"allow_insecure_remote", value(path, c.allowInsecureRemote)},
      {"metrics_listen", value(path, c.metricsListen)},
      {"cycle_interval", seconds(path, c.cycleSeconds)},
      {"limits.rate_per_second", value(path, c.ratePerSecond)},
      {"limits.burst", value(path, c.rateBurst)},
      {"limits.max_message_mib", value(path, c.maxMessageMiB)},
      {"limits.max_batch_jobs", value(path, c.maxBatchJobs)},
      {"simulation.speed", value(path, c.speed)},
      {"simulation.arrivals_per_hour", value(path, c.arrivalsPerHour)},
      {"simulation.seed", value(path, c.seed)},
      {"simulation.gpu_faults_per_day", value(path, c.gpuFaultsPerDay)},
      {"simulation.gpu_fault_repair", duration(path, c.gpuFaultRepair)},
      {"retention.raw", duration(path, c.retentionRaw)},
      {"retention.minute", duration(path, c.retentionMinute)},
      {"retention.hour", duration(path, c.retentionHour)},
      {"retention.jobs", duration(path, c.retentionJobs)},
      {"retention.events", duration(path, c.retentionEvents)},
      {"memory.finished_jobs", duration(path, c.memoryFinishedFor)},
      {"memory.events", value(path, c.memoryEvents)},
      {"log.format", value(path, c.logFormat)},
      {"log.level", value(path, c.logLevel)},
      {"reports.dir", value(path, c.reports.dir)},
      {"reports.render_command", textList(path, c.reports.renderCommand)},
      {"reports.schedules", schedules(path, c.reports.schedules)},
  };
  return readMap(path, root, "", keys);
}

Status validateTesseradConfig(const TesseradConfig& c) {
  auto bad = [](const std::string& field, const std::string& message) -> Status {
    return Error{message, {"", 0, 0, field}};
  };
  if (c.mode != "live" && c.mode != "simulated-live")
    return bad("mode", "must be live or simulated-live, not '" + c.mode + "'");
  if (c.database.empty()) return bad("database", "is required");
  if (c.executor != "none" && c.executor != "slurm")
    return bad("executor", "must be none or slurm, not '" + c.executor + "'");
  if (c.executor == "slurm" && c.mode != "live")
    return bad("executor", "slurm runs the jobs of a live cluster: use mode live");
  if (!(c.slurm.pollSeconds > 0)) return bad("slurm.poll_interval", "must be positive");
  if (c.slurm.fullPollSeconds <= 0) return bad("slurm.full_poll_interval", "must be positive");
  if (!(c.slurm.idlePollSeconds > 0)) return bad("slurm.idle_poll_interval", "must be positive");
  if (c.slurm.migHookTimeout <= 0) return bad("slurm.mig_hook_timeout", "must be positive");
  if (c.slurm.releaseSettle <= 0) return bad("slurm.release_settle", "must be positive");
  if (c.slurm.preemptGrace < 0) return bad("slurm.preempt_grace", "cannot be negative");
  if (c.slurm.preemptSignal < 1 || c.slurm.preemptSignal > 64)
    return bad("slurm.preempt_signal", "must be a signal number (1-64)");
  if (c.slurm.mpsPerGpu < 1)
    return bad("slurm.mps_per_gpu", "must be at least 1 (the gres/mps count of one GPU)");
  if (c.slurm.defaultTimeLimitMinutes < 1)
    return bad("slurm.default_time_limit", "must be at least 1 (minutes)");
  if (!(c.cycleSeconds > 0)) return bad("cycle_interval", "must be positive");
  if (!(c.telemetryRefreshSeconds >= 0) || c.telemetryRefreshSeconds > 60)
    return bad("telemetry.refresh", "must be from 0 (with every push) to 60 seconds");
  if (c.retentionJobs < 0) return bad("retention.jobs", "cannot be negative (0 keeps forever)");
  if (c.retentionEvents < 0) return bad("retention.events", "cannot be negative (0 keeps forever)");
  if (c.memoryFinishedFor < 0) return bad("memory.finished_jobs", "cannot be negative");
  if (c.retentionJobs > 0 && c.retentionJobs <= c.memoryFinishedFor)
    return bad("retention.jobs", "must be longer than memory.finished_jobs (or 0: forever)");
  if (c.memoryEvents < 1000) return bad("memory.events", "must be at least 1000");
  if (!(c.ratePerSecond > 0) || !(c.rateBurst >= 1))
    return bad("limits", "rate_per_second must be positive and burst at least 1");
  if (c.maxMessageMiB < 1 || c.maxMessageMiB > 1024)
    return bad("limits.max_message_mib", "must be between 1 and 1024");
  if (!(c.speed > 0)) return bad("simulation.speed", "must be positive");
  if (!(c.arrivalsPerHour > 0)) return bad("simulation.arrivals_per_hour", "must be positive");
  if (!(c.gpuFaultsPerDay >= 0) || c.gpuFaultsPerDay > 1e6)
    return bad("simulation.gpu_faults_per_day", "must be between 0 and 1000000");
  if (c.gpuFaultRepair <= 0) return bad("simulation.gpu_fault_repair", "must be positive");
  if (c.logFormat != "text" && c.logFormat != "json")
    return bad("log.format", "must be text or json");
  if (c.logLevel != "debug" && c.logLevel != "info" && c.logLevel != "warn" &&
      c.logLevel != "error")
    return bad("log.level", "must be debug, info, warn or error");
  if (c.tlsCert.empty() != c.tlsKey.empty())
    return bad("tls", "give both the certificate and the key");
  if (!c.reports.schedules.empty() && c.reports.dir.empty())
    return bad("reports.dir", "is required with reports.schedules");
  return okStatus();
}

}  // namespace tessera
