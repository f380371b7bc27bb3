#pragma once
// tesserad's configuration: a YAML file (installer/tesserad.yaml is the annotated sample) with
// every key also available as a flag; flags win. Errors name the file, line and key.
#include <optional>
#include <string>

#include "core/expected.h"
#include "core/ids.h"

namespace tessera {

struct TesseradConfig {
  std::string mode = "live";  // live | simulated-live
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
  uint64_t seed = 1;
  Seconds retentionRaw = 6 * 3600, retentionMinute = 7 * 86400, retentionHour = 400 * 86400;
  std::string logFormat = "text";  // text | json
  std::string logLevel = "info";   // debug | info | warn | error
};

// Reads `path` over the defaults in `config`; unknown keys and bad values are errors.
Status loadTesseradConfig(const std::string& path, TesseradConfig& config);
// Checks values that flags or the file may have set (mode, log format, positive intervals).
Status validateTesseradConfig(const TesseradConfig& config);

}  // namespace tessera
