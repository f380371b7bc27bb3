#include "daemon/config.h"

#include <yaml-cpp/yaml.h>

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
      {"retention.raw", duration(path, c.retentionRaw)},
      {"retention.minute", duration(path, c.retentionMinute)},
      {"retention.hour", duration(path, c.retentionHour)},
      {"log.format", value(path, c.logFormat)},
      {"log.level", value(path, c.logLevel)},
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
  if (!(c.cycleSeconds > 0)) return bad("cycle_interval", "must be positive");
  if (!(c.ratePerSecond > 0) || !(c.rateBurst >= 1))
    return bad("limits", "rate_per_second must be positive and burst at least 1");
  if (c.maxMessageMiB < 1 || c.maxMessageMiB > 1024)
    return bad("limits.max_message_mib", "must be between 1 and 1024");
  if (!(c.speed > 0)) return bad("simulation.speed", "must be positive");
  if (!(c.arrivalsPerHour > 0)) return bad("simulation.arrivals_per_hour", "must be positive");
  if (c.logFormat != "text" && c.logFormat != "json")
    return bad("log.format", "must be text or json");
  if (c.logLevel != "debug" && c.logLevel != "info" && c.logLevel != "warn" &&
      c.logLevel != "error")
    return bad("log.level", "must be debug, info, warn or error");
  if (c.tlsCert.empty() != c.tlsKey.empty())
    return bad("tls", "give both the certificate and the key");
  return okStatus();
}

}  // namespace tessera
