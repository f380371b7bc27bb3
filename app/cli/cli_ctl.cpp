// tessera ctl: every call of tesserad's gRPC API from the command line (docs/ctl.md). Each call
// resolves the connection settings, makes its RPCs through RemoteSession's stub (so `-o json`
// prints exactly the API's message) and prints a table or JSON.
#include "cli/cli_ctl.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <set>
#include <sstream>
#include <utility>

#include "cli/cli.h"
#include "cli/cli_context.h"
#include "core/strings.h"
#include "scheduler/command_yaml.h"
#include "topology/yaml_reader.h"
#include "workload/workload_spec.h"

namespace tessera::cli {
namespace ctl {

// ============================================================================ connection settings

namespace {

const std::set<std::string> kConfigKeys{"server", "token", "token_file", "ca", "server_name"};

std::string& settingOf(Settings& s, const std::string& key) {
  if (key == "server") return s.server;
  if (key == "token") return s.token;
  if (key == "token_file") return s.tokenFile;
  if (key == "ca") return s.ca;
  return s.serverName;
}

// "~/x" as a shell would expand it: config files are not seen by one.
std::string expandHome(const std::string& path) {
  const char* home = std::getenv("HOME");
  if (!path.starts_with("~/") || !home || !*home) return path;
  return std::string(home) + path.substr(1);
}

struct Source {
  std::string name;         // for messages: "the flags", "config file X"
  std::string bothMessage;  // what to say when it gives a token and a token file
  Settings settings;
};

std::string pick(const std::vector<Source>& sources, std::string Settings::*field) {
  for (const auto& s : sources)
    if (!(s.settings.*field).empty()) return s.settings.*field;
  return {};
}

Expected<std::string> readToken(const std::string& path, const std::string& source) {
  auto text = readTextFile(path);
  if (!text) return Error{"token file from " + source + ": " + text.error().str(), {}};
  std::string token(trim(*text));
  if (token.empty()) return Error{"token file '" + path + "' (from " + source + ") is empty", {}};
  return token;
}

// The token and the token file are one setting: the first source naming either decides.
Expected<std::string> pickToken(const std::vector<Source>& sources) {
  for (const auto& s : sources) {
    const Settings& v = s.settings;
    if (!v.token.empty() && !v.tokenFile.empty()) return Error{s.bothMessage, {}};
    if (!v.token.empty()) return v.token;
    if (!v.tokenFile.empty()) return readToken(v.tokenFile, s.name);
  }
  return std::string();
}

}  // namespace

Expected<Settings> parseConfig(std::string_view text, const std::string& fileName) {
  TESSERA_TRY(doc, parseYaml(text, fileName));
  Settings s;
  if (!doc.IsDefined() || doc.IsNull()) return s;  // an empty file sets nothing
  const YamlField root(doc, "", &fileName);
  TESSERA_CHECK(root.onlyKeys(kConfigKeys));
  for (const auto& [key, field] : root.entries()) {
    TESSERA_TRY(value, field.asString());
    settingOf(s, key) = value;
  }
  return s;
}

Expected<Settings> loadConfigFile(const std::string& path) {
  auto text = readTextFile(path);
  if (!text) return Error{"config file: " + text.error().str(), {}};
  TESSERA_TRY(s, parseConfig(*text, path));
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (std::string* file : {&s.tokenFile, &s.ca}) {
    if (file->empty()) continue;
    *file = expandHome(*file);
    if (std::filesystem::path(*file).is_relative()) *file = (dir / *file).string();
  }
  return s;
}

EnvLookup processEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value || !*value) return std::nullopt;
    return std::string(value);
  };
}

std::optional<std::string> configPath(const std::string& flag, const EnvLookup& env) {
  if (!flag.empty()) return flag;
  if (auto path = env("TESSERA_CTL_CONFIG")) return path;
  if (auto home = env("HOME")) {
    std::string path = *home + "/.config/tessera/ctl.yaml";
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) return path;
  }
  return std::nullopt;
}

Expected<rpc::ClientOptions> resolveOptions(const GlobalFlags& flags, const EnvLookup& env) {
  if (!(flags.timeout > 0) || !std::isfinite(flags.timeout))
    return Error{"--timeout must be a positive number of seconds", {}};
  Settings fromEnv;
  fromEnv.server = env("TESSERA_SERVER").value_or("");
  fromEnv.token = env("TESSERA_TOKEN").value_or("");
  fromEnv.ca = env("TESSERA_CA").value_or("");
  std::vector<Source> sources{
      {"the flags", "give --token or --token-file, not both", flags.connection},
      {"the environment", "", fromEnv}};
  if (auto path = configPath(flags.config, env)) {
    TESSERA_TRY(fromFile, loadConfigFile(*path));
    sources.push_back(
        {"config file " + *path, *path + ": give token or token_file, not both", fromFile});
  }
  rpc::ClientOptions o;
  if (auto server = pick(sources, &Settings::server); !server.empty()) o.address = server;
  TESSERA_TRY(token, pickToken(sources));
  o.token = token;
  o.caFile = pick(sources, &Settings::ca);
  o.serverName = pick(sources, &Settings::serverName);
  o.timeoutSeconds = flags.timeout;
  return o;
}

// ============================================================================ jobs from flags/YAML

namespace {

// What is wrong with a value, in words; nullopt = it was taken.
using Problem = std::optional<std::string>;
using Setter = Problem (*)(v1::JobSpec&, const std::string&);

std::optional<int64_t> parseInt64(std::string_view s) {
  s = trim(s);
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

Problem wholeNumber(const std::string& text, int64_t min, int64_t max, int64_t& out) {
  const auto n = parseInt64(text);
  if (!n || *n < min || *n > max)
    return "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
           ", got '" + text + "'";
  out = *n;
  return std::nullopt;
}

Problem setTasks(v1::JobSpec& s, const std::string& v) {
  int64_t n = 0;
  if (auto p = wholeNumber(v, 1, 4096, n)) return p;
  s.set_tasks(static_cast<uint32_t>(n));
  return std::nullopt;
}

Problem setGpus(v1::JobSpec& s, const std::string& v) {
  int64_t n = 0;
  if (auto p = wholeNumber(v, 1, 64, n)) return p;
  s.mutable_per_task()->set_gpus(static_cast<uint32_t>(n));
  return std::nullopt;
}

Problem setMig(v1::JobSpec& s, const std::string& v) {
  if (trim(v).empty()) return "expected a MIG profile, like 3g.40gb";
  s.mutable_per_task()->set_mig_profile(std::string(trim(v)));
  return std::nullopt;
}

// A share of one GPU as the user thinks of it (0.25); the API counts thousandths.
Problem setFraction(v1::JobSpec& s, const std::string& v) {
  const std::string_view t = trim(v);
  double f = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), f);
  if (t.empty() || ec != std::errc{} || ptr != t.data() + t.size() || !(f > 0) || f > 1)
    return "expected a share of one GPU above 0 and at most 1, like 0.25, got '" + v + "'";
  const long milli = std::lround(f * 1000);
  if (milli < 1) return "'" + v + "' is less than a thousandth of a GPU";
  s.mutable_per_task()->set_milli(static_cast<uint32_t>(milli));
  return std::nullopt;
}

Problem setVram(v1::JobSpec& s, const std::string& v) {
  int64_t n = 0;
  if (auto p = wholeNumber(v, 0, 10'000'000, n)) return p;
  s.mutable_per_task()->set_vram_mib(n);
  return std::nullopt;
}

Problem setCpus(v1::JobSpec& s, const std::string& v) {
  int64_t n = 0;
  if (auto p = wholeNumber(v, 0, 1 << 20, n)) return p;
  s.set_cpus_per_task(static_cast<uint32_t>(n));
  return std::nullopt;
}

Problem setMemoryGib(v1::JobSpec& s, const std::string& v) {
  int64_t n = 0;
  if (auto p = wholeNumber(v, 0, 1 << 24, n)) return p;
  s.set_memory_mib_per_task(n * 1024);
  return std::nullopt;
}

Problem setMinGpuMemoryGib(v1::JobSpec& s, const std::string& v) {
  int64_t n = 0;
  if (auto p = wholeNumber(v, 1, 100'000, n)) return p;
  s.set_min_gpu_memory_mib(n * 1024);
  return std::nullopt;
}

Problem setClass(v1::JobSpec& s, const std::string& v) {
  const std::pair<const char*, v1::WorkloadClass> classes[] = {
      {"training", v1::WORKLOAD_CLASS_TRAINING},
      {"inference", v1::WORKLOAD_CLASS_INFERENCE},
      {"interactive", v1::WORKLOAD_CLASS_INTERACTIVE},
      {"batch", v1::WORKLOAD_CLASS_BATCH}};
  for (const auto& [name, value] : classes)
    if (v == name) {
      s.set_workload_class(value);
      return std::nullopt;
    }
  return "expected training, inference, interactive or batch, got '" + v + "'";
}

Problem setTopology(v1::JobSpec& s, const std::string& v) {
  const std::pair<const char*, v1::TopologyLevel> levels[] = {
      {"node", v1::TOPOLOGY_LEVEL_NODE},
      {"nvlink-domain", v1::TOPOLOGY_LEVEL_NVLINK_DOMAIN},
      {"leaf", v1::TOPOLOGY_LEVEL_LEAF},
      {"spine", v1::TOPOLOGY_LEVEL_SPINE},
      {"any", v1::TOPOLOGY_LEVEL_ANY}};
  for (const auto& [name, value] : levels)
    if (v == name) {
      s.set_topology(value);
      return std::nullopt;
    }
  return "expected node, nvlink-domain, leaf, spine or any, got '" + v + "'";
}

Problem durationInto(const std::string& v, int64_t& out) {
  const auto d = parseDuration(v);
  if (!d) return "bad duration '" + v + "' (seconds, or like 90s, 15m, 2h, 1h30m, 1d)";
  out = *d;
  return std::nullopt;
}

Problem setRuntime(v1::JobSpec& s, const std::string& v) {
  int64_t d = 0;
  if (auto p = durationInto(v, d)) return p;
  s.set_estimated_runtime_s(d);
  return std::nullopt;
}

Problem setCheckpoint(v1::JobSpec& s, const std::string& v) {
  int64_t d = 0;
  if (auto p = durationInto(v, d)) return p;
  s.set_checkpoint_interval_s(d);
  return std::nullopt;
}

// The engine resolves pins by name; only the shape is checked here, so a typo fails early.
Problem addPinGpu(v1::JobSpec& s, const std::string& v) {
  const auto slash = v.rfind('/');
  if (slash == std::string::npos || slash == 0 || !parseInt(v.substr(slash + 1)))
    return "expected NODE/INDEX, like n1/0, got '" + v + "'";
  s.add_pin_gpus(v);
  return std::nullopt;
}

// One of the three GPU request forms, as the API's oneof demands.
std::optional<std::string> gpuKindProblem(int given, const std::string& names) {
  if (given == 1) return std::nullopt;
  return given == 0 ? "give one of " + names : "give only one of " + names;
}

struct FlagSetter {
  const char* flag;
  const std::string* value;
  Setter set;
};

}  // namespace

bool SubmitFlags::any() const {
  for (const std::string* s :
       {&name, &team, &priority, &workloadClass, &tasks, &gpus, &mig, &fraction, &vramMib, &cpus,
        &memoryGib, &minGpuMemoryGib, &pool, &topology, &runtime, &checkpointInterval})
    if (!s->empty()) return true;
  return topologyRequired || held || !models.empty() || !pinGpus.empty() || !pinNodes.empty();
}

Expected<v1::JobSpec> specFromFlags(const SubmitFlags& f) {
  if (f.team.empty()) return Error{"--team is required", {}};
  const int kinds = int(!f.gpus.empty()) + int(!f.mig.empty()) + int(!f.fraction.empty());
  if (auto p = gpuKindProblem(kinds, "--gpus N, --mig PROFILE or --fraction F"))
    return Error{*p, {}};
  if (f.topologyRequired && f.topology.empty())
    return Error{"--topology-required needs --topology LEVEL", {}};
  v1::JobSpec s;
  s.set_name(f.name);
  s.set_team(f.team);
  s.set_priority_class(f.priority);
  s.set_pool(f.pool);
  const FlagSetter setters[] = {{"--class", &f.workloadClass, setClass},
                                {"--tasks", &f.tasks, setTasks},
                                {"--gpus", &f.gpus, setGpus},
                                {"--mig", &f.mig, setMig},
                                {"--fraction", &f.fraction, setFraction},
                                {"--vram-mib", &f.vramMib, setVram},
                                {"--cpus", &f.cpus, setCpus},
                                {"--memory-gib", &f.memoryGib, setMemoryGib},
                                {"--min-gpu-memory-gib", &f.minGpuMemoryGib, setMinGpuMemoryGib},
                                {"--topology", &f.topology, setTopology},
                                {"--runtime", &f.runtime, setRuntime},
                                {"--checkpoint-interval", &f.checkpointInterval, setCheckpoint}};
  for (const FlagSetter& x : setters) {
    if (x.value->empty()) continue;
    if (auto p = x.set(s, *x.value)) return Error{std::string(x.flag) + ": " + *p, {}};
  }
  for (const auto& m : f.models) s.add_gpu_models(m);
  for (const auto& g : f.pinGpus)
    if (auto p = addPinGpu(s, g)) return Error{"--pin-gpu: " + *p, {}};
  for (const auto& n : f.pinNodes) s.add_pin_nodes(n);
  s.set_topology_required(f.topologyRequired);
  s.set_held(f.held);
  return s;
}

namespace {

const std::set<std::string> kJobKeys{"name",     "team",
                                     "priority", "preemptible",
                                     "class",    "tasks",
                                     "gpus",     "mig",
                                     "fraction", "vram_mib",
                                     "cpus",     "memory_gib",
                                     "model",    "min_gpu_memory_gib",
                                     "pool",     "topology",
                                     "runtime",  "checkpoint_interval",
                                     "held",     "hold",
                                     "pin"};

const std::pair<const char*, Setter> kScalarKeys[] = {{"class", setClass},
                                                      {"tasks", setTasks},
                                                      {"gpus", setGpus},
                                                      {"mig", setMig},
                                                      {"vram_mib", setVram},
                                                      {"cpus", setCpus},
                                                      {"memory_gib", setMemoryGib},
                                                      {"min_gpu_memory_gib", setMinGpuMemoryGib},
                                                      {"runtime", setRuntime},
                                                      {"checkpoint_interval", setCheckpoint}};

Status applyScalar(const YamlField& f, v1::JobSpec& s, Setter set) {
  TESSERA_TRY(value, f.asString());
  if (auto p = set(s, value)) return f.error(*p);
  return okStatus();
}

// A single value where a list is expected is a list of one (`model: H100`).
Expected<std::vector<std::string>> stringList(const YamlField& f) {
  if (f.isScalar()) {
    TESSERA_TRY(one, f.asString());
    return std::vector<std::string>{one};
  }
  return f.asStringList();
}

// `fraction: 0.25`, or the workload file's `fraction: {milli: 250, vram_mib: 8192}`.
Status readFraction(const YamlField& f, v1::JobSpec& s) {
  if (f.isScalar()) return applyScalar(f, s, setFraction);
  TESSERA_CHECK(f.onlyKeys({"milli", "vram_mib"}));
  TESSERA_TRY(milli, f.intAt("milli", 1, 1000));
  s.mutable_per_task()->set_milli(static_cast<uint32_t>(milli));
  if (f.has("vram_mib")) TESSERA_CHECK(applyScalar(f.child("vram_mib"), s, setVram));
  return okStatus();
}

// `topology: {level: nvlink-domain, required: true}`, or just the level.
Status readTopology(const YamlField& f, v1::JobSpec& s) {
  if (f.isScalar()) return applyScalar(f, s, setTopology);
  TESSERA_CHECK(f.onlyKeys({"level", "required"}));
  TESSERA_TRY(level, f.require("level"));
  TESSERA_CHECK(applyScalar(level, s, setTopology));
  if (f.has("required")) {
    TESSERA_TRY(required, f.child("required").asBool());
    s.set_topology_required(required);
  }
  return okStatus();
}

Status readPin(const YamlField& f, v1::JobSpec& s) {
  TESSERA_CHECK(f.onlyKeys({"gpus", "nodes"}));
  if (f.has("gpus")) {
    TESSERA_TRY(gpus, stringList(f.child("gpus")));
    for (const auto& g : gpus)
      if (auto p = addPinGpu(s, g)) return f.child("gpus").error(*p);
  }
  if (f.has("nodes")) {
    TESSERA_TRY(nodes, stringList(f.child("nodes")));
    for (const auto& n : nodes) s.add_pin_nodes(n);
  }
  return okStatus();
}

Status readTexts(const YamlField& f, v1::JobSpec& s) {
  TESSERA_TRY(team, f.stringAt("team"));
  s.set_team(team);
  if (f.has("name")) {
    TESSERA_TRY(name, f.stringAt("name"));
    s.set_name(name);
  }
  if (f.has("priority")) {
    TESSERA_TRY(priority, f.stringAt("priority"));
    s.set_priority_class(priority);
  }
  if (f.has("pool")) {
    TESSERA_TRY(pool, f.stringAt("pool"));
    s.set_pool(pool);
  }
  if (f.has("model")) {
    TESSERA_TRY(models, stringList(f.child("model")));
    for (const auto& m : models) s.add_gpu_models(m);
  }
  return okStatus();
}

Status readFlags(const YamlField& f, v1::JobSpec& s) {
  if (f.has("held") && f.has("hold")) return f.child("hold").error("give held: or hold:, not both");
  for (const char* key : {"held", "hold"}) {
    if (!f.has(key)) continue;
    TESSERA_TRY(held, f.child(key).asBool());
    s.set_held(held);
  }
  if (f.has("preemptible")) {
    TESSERA_TRY(preemptible, f.child("preemptible").asBool());
    s.set_preemptible(preemptible);
  }
  return okStatus();
}

Expected<v1::JobSpec> readJob(const YamlField& f) {
  TESSERA_CHECK(f.onlyKeys(kJobKeys));
  const int kinds = int(f.has("gpus")) + int(f.has("mig")) + int(f.has("fraction"));
  if (auto p = gpuKindProblem(kinds, "gpus:, mig: or fraction:")) return f.error(*p);
  v1::JobSpec s;
  TESSERA_CHECK(readTexts(f, s));
  for (const auto& [key, set] : kScalarKeys)
    if (f.has(key)) TESSERA_CHECK(applyScalar(f.child(key), s, set));
  if (f.has("fraction")) TESSERA_CHECK(readFraction(f.child("fraction"), s));
  if (f.has("topology")) TESSERA_CHECK(readTopology(f.child("topology"), s));
  if (f.has("pin")) TESSERA_CHECK(readPin(f.child("pin"), s));
  TESSERA_CHECK(readFlags(f, s));
  return s;
}

}  // namespace

Expected<std::vector<v1::JobSpec>> specsFromYaml(std::string_view text,
                                                 const std::string& fileName) {
  TESSERA_TRY(doc, parseYaml(text, fileName));
  const YamlField root(doc, "", &fileName);
  if (!root.isSequence())
    return root.error("expected a list of jobs (- team: ..., gpus: ...), as in docs/ctl.md");
  if (root.size() == 0) return root.error("the list of jobs is empty");
  std::vector<v1::JobSpec> specs;
  for (size_t i = 0; i < root.size(); ++i) {
    TESSERA_TRY(spec, readJob(root.item(i)));
    specs.push_back(std::move(spec));
  }
  return specs;
}

Expected<std::vector<v1::JobSpec>> specsFromFile(const std::string& path) {
  TESSERA_TRY(text, readTextFile(path));
  return specsFromYaml(text, path);
}

Expected<Window> reservationWindow(Seconds now, const std::string& from, const std::string& until) {
  const auto f = parseDuration(from);
  if (!f) return Error{"--from: bad duration '" + from + "' (like 0, 90s, 15m, 2h, 1h30m, 1d)", {}};
  const auto u = parseDuration(until);
  if (!u) return Error{"--until: bad duration '" + until + "' (like 90s, 15m, 2h, 1h30m, 1d)", {}};
  if (*u <= *f)
    return Error{
        "--until (" + formatDuration(*u) + ") must come after --from (" + formatDuration(*f) + ")",
        {}};
  return Window{now + *f, now + *u};
}

}  // namespace ctl

// ============================================================================ output helpers

namespace {

using namespace ctl;
using Stub = v1::Scheduler::Stub;

// Columns are aligned by characters, not bytes: names may be UTF-8.
size_t displayWidth(std::string_view s) {
  size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

// Rows of cells printed with every column as wide as its widest cell; the first row is the
// header when there is one. The last column is not padded, so long reasons do not widen lines.
class Table {
 public:
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out) const {
    std::vector<size_t> widths;
    for (const auto& row : rows_) {
      if (widths.size() < row.size()) widths.resize(row.size());
      for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], displayWidth(row[i]));
    }
    for (const auto& row : rows_) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) {
        line += row[i];
        if (i + 1 < row.size()) line.append(widths[i] - displayWidth(row[i]) + 2, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << "\n";
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string orDash(const std::string& s) {
  return s.empty() ? "-" : s;
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string number(double v) {
  std::ostringstream s;
  s << std::setprecision(6) << v;
  return s.str();
}

// "JOB_STATE_PENDING" -> "pending", "TOPOLOGY_LEVEL_NVLINK_DOMAIN" -> "nvlink-domain".
std::string enumWord(const std::string& name, std::string_view prefix) {
  std::string word = toLower(name.starts_with(prefix) ? name.substr(prefix.size()) : name);
  for (char& c : word)
    if (c == '_') c = '-';
  return word;
}

std::string stateWord(v1::JobState s) {
  return enumWord(v1::JobState_Name(s), "JOB_STATE_");
}

std::string classWord(v1::WorkloadClass c) {
  return c == v1::WORKLOAD_CLASS_UNSPECIFIED
             ? "batch"
             : enumWord(v1::WorkloadClass_Name(c), "WORKLOAD_CLASS_");
}

std::string topologyWord(v1::TopologyLevel l) {
  return l == v1::TOPOLOGY_LEVEL_UNSPECIFIED
             ? "any"
             : enumWord(v1::TopologyLevel_Name(l), "TOPOLOGY_LEVEL_");
}

// An engine time for people. Live mode's clock is unix time and simulated-live's counts from 0;
// a simulated clock would need 30 years of run time to pass 1e9, so the two cannot be confused.
std::string clockText(Seconds t) {
  if (t < 1'000'000'000) return "t=" + formatDuration(t);
  const auto tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%SZ", &tm);
  return buf;
}

std::string relativeText(Seconds t, Seconds now) {
  if (t == now) return "now";
  return t > now ? "in " + formatDuration(t - now) : formatDuration(now - t) + " ago";
}

template <typename Repeated>
std::string joinAll(const Repeated& values, std::string_view sep = ", ") {
  std::vector<std::string> parts;
  for (const auto& v : values) {
    if constexpr (std::is_arithmetic_v<std::decay_t<decltype(v)>>)
      parts.push_back(std::to_string(v));
    else
      parts.push_back(v);
  }
  return join(parts, sep);
}

// "4", "2x4" (gang of 2 tasks with 4 GPUs each), "3g.40gb", "250m" (a quarter GPU).
std::string requestText(const v1::JobSpec& s) {
  std::string per;
  switch (s.per_task().kind_case()) {
    case v1::GpuRequest::kGpus:
      per = std::to_string(s.per_task().gpus());
      break;
    case v1::GpuRequest::kMigProfile:
      per = s.per_task().mig_profile();
      break;
    case v1::GpuRequest::kMilli:
      per = std::to_string(s.per_task().milli()) + "m";
      break;
    case v1::GpuRequest::KIND_NOT_SET:
      per = "-";
      break;
  }
  return s.tasks() > 1 ? std::to_string(s.tasks()) + "x" + per : per;
}

std::string placementText(const v1::Job& j) {
  std::vector<std::string> tasks;
  for (const auto& p : j.placement()) {
    std::string t = p.node() + " GPUs " + joinAll(p.gpus(), ",");
    if (p.mig_start() >= 0 && j.spec().per_task().has_mig_profile())
      t += " (MIG slice " + std::to_string(p.mig_start()) + ")";
    tasks.push_back(std::move(t));
  }
  return join(tasks, "; ");
}

// ============================================================================ calling the server

// One call's connection and what went wrong with it.
struct Call {
  Context& ctx;
  const GlobalFlags& flags;
  std::unique_ptr<rpc::RemoteSession> remote;
  std::string address;
  int failed = 0;  // the exit code of the failure reported last

  [[nodiscard]] bool json() const { return flags.output == "json"; }
  [[nodiscard]] std::ostream& out() const { return ctx.out; }
};

int usageError(Context& ctx, const std::string& message) {
  ctx.err << "tessera ctl: " << message << "\n";
  return kExitUsage;
}

const char* statusWord(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "ok";
    case grpc::StatusCode::CANCELLED:
      return "cancelled";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "invalid argument";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "deadline exceeded";
    case grpc::StatusCode::NOT_FOUND:
      return "not found";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "already exists";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "permission denied";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "unauthenticated";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "resource exhausted";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "failed precondition";
    case grpc::StatusCode::ABORTED:
      return "aborted";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "out of range";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "unimplemented";
    case grpc::StatusCode::INTERNAL:
      return "internal";
    case grpc::StatusCode::UNAVAILABLE:
      return "unavailable";
    case grpc::StatusCode::DATA_LOSS:
      return "data loss";
    default:
      return "unknown";
  }
}

// UNAVAILABLE and DEADLINE_EXCEEDED get exit 3 because retrying may help (server down, network,
// a busy database); every other status is the server's considered refusal (exit 4).
int reportFailure(Call& c, const std::string& kind, const std::string& message, bool unreachable) {
  c.ctx.err << "tessera ctl: " << kind << ": " << (unreachable ? c.address + ": " : "") << message
            << "\n";
  return c.failed = unreachable ? kExitUnreachable : kExitRefused;
}

int failStatus(Call& c, const grpc::Status& status) {
  const auto code = status.error_code();
  std::string message = status.error_message();
  if (code == grpc::StatusCode::DEADLINE_EXCEEDED)
    message += " (no answer within " + number(c.flags.timeout) + " s; see --timeout)";
  return reportFailure(
      c, statusWord(code), message,
      code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::DEADLINE_EXCEEDED);
}

int failApi(Call& c, const ApiError& e) {
  return reportFailure(c, errorKindName(e.kind), e.message,
                       e.kind == ErrorKind::Unavailable || e.kind == ErrorKind::DeadlineExceeded);
}

template <typename Request, typename Response>
using Method = grpc::Status (Stub::*)(grpc::ClientContext*, const Request&, Response*);

// One unary RPC with the call's token and deadline; a failure is reported (see Call::failed).
template <typename Request, typename Response>
bool unary(Call& c, Method<Request, Response> method, const Request& request, Response& response) {
  grpc::ClientContext context;
  c.remote->prepare(context);
  const grpc::Status status = (c.remote->stub().*method)(&context, request, &response);
  if (status.ok()) return true;
  failStatus(c, status);
  return false;
}

// The API's message as JSON with the .proto field names: what scripts parse. Pretty for one
// document per call, one line per object for streams.
int printJson(Call& c, const google::protobuf::Message& message, bool oneLine = false) {
  google::protobuf::util::JsonPrintOptions o;
  o.add_whitespace = !oneLine;
  o.preserve_proto_field_names = true;
#if GOOGLE_PROTOBUF_VERSION >= 5026000
  o.always_print_fields_with_no_presence = true;
#else
  o.always_print_primitive_fields = true;
#endif
  std::string text;
  const auto status = google::protobuf::util::MessageToJsonString(message, &text, o);
  if (!status.ok())
    return reportFailure(c, "internal", "cannot print the answer as JSON: " + status.ToString(),
                         false);
  c.out() << text;
  if (text.empty() || text.back() != '\n') c.out() << "\n";
  return kExitOk;
}

std::optional<v1::ClusterSnapshot> fetchSnapshot(Call& c) {
  v1::ClusterSnapshot snapshot;
  if (!unary(c, &Stub::GetSnapshot, v1::GetSnapshotRequest{}, snapshot)) return std::nullopt;
  return snapshot;
}

// The server's clock: durations on the command line (reserve, metrics --since) count from it.
std::optional<Seconds> serverNow(Call& c) {
  auto snapshot = fetchSnapshot(c);
  if (!snapshot) return std::nullopt;
  return snapshot->now();
}

// The clock only to show times relative to it: the call itself already succeeded, so a failure
// here is a note, not an error (no "tessera ctl: KIND" line, no exit code).
std::optional<Seconds> displayNow(Call& c) {
  grpc::ClientContext context;
  c.remote->prepare(context);
  v1::ClusterSnapshot snapshot;
  const grpc::Status status = c.remote->stub().GetSnapshot(&context, {}, &snapshot);
  if (status.ok()) return snapshot.now();
  c.ctx.err << "(no server clock: " << status.error_message() << "; times are absolute)\n";
  return std::nullopt;
}

// Resolves the settings, opens the channel (no traffic yet) and runs `body`.
int withSession(Context& ctx, const GlobalFlags& flags, const std::function<int(Call&)>& body) {
  auto options = resolveOptions(flags, processEnvironment());
  if (!options) return usageError(ctx, options.error().str());
  auto remote = rpc::RemoteSession::connect(*options);
  if (!remote) return usageError(ctx, remote.error().str());
  Call c{ctx, flags, std::move(*remote), options->address};
  return body(c);
}

// ============================================================================ printing answers

bool needsNow(const v1::Job& j) {
  return (j.state() == v1::JOB_STATE_PENDING && j.has_eta()) ||
         ((j.state() == v1::JOB_STATE_RUNNING || j.state() == v1::JOB_STATE_ADMITTED) &&
          j.start_time() > 0);
}

// For a pending job when it should start, for a running one when it did.
std::string etaOrStart(const v1::Job& j, std::optional<Seconds> now) {
  auto when = [&now](Seconds t) { return now ? relativeText(t, *now) : clockText(t); };
  if (j.state() == v1::JOB_STATE_PENDING) return j.has_eta() ? when(j.eta()) : "-";
  if (needsNow(j)) return when(j.start_time());
  return "-";
}

std::string reasonText(const v1::Job& j) {
  if (j.blocked_by().empty()) return orDash(j.reason());
  return j.reason() + " [" + j.blocked_by() + "]";
}

// Relative times need the server's clock, fetched only when a row shows one; without it the
// absolute times are shown.
template <typename Jobs>
std::optional<Seconds> nowFor(Call& c, const Jobs& jobs) {
  for (const v1::Job& j : jobs)
    if (needsNow(j)) return displayNow(c);
  return std::nullopt;
}

void printJobTable(Call& c, const google::protobuf::RepeatedPtrField<v1::Job>& jobs) {
  const auto now = nowFor(c, jobs);
  Table t;
  t.add({"ID", "NAME", "TEAM", "CLASS", "STATE", "GPUS", "POSITION", "ETA/START", "REASON"});
  for (const v1::Job& j : jobs)
    t.add({std::to_string(j.id()), orDash(j.spec().name()), j.spec().team(),
           orDash(j.spec().priority_class()), stateWord(j.state()), requestText(j.spec()),
           j.queue_position() ? std::to_string(j.queue_position()) : "-", etaOrStart(j, now),
           reasonText(j)});
  t.print(c.out());
}

std::string resourcesText(const v1::JobSpec& s) {
  std::string text = requestText(s) + (s.per_task().has_gpus() ? " GPU" : "");
  if (s.per_task().vram_mib() > 0)
    text += ", " + std::to_string(s.per_task().vram_mib()) + " MiB VRAM";
  if (s.cpus_per_task() > 0) text += ", " + std::to_string(s.cpus_per_task()) + " CPUs";
  if (s.memory_mib_per_task() > 0)
    text += ", " + std::to_string(s.memory_mib_per_task() / 1024) + " GiB memory";
  return text + (s.tasks() > 1 ? " (per task)" : "");
}

void printJobDetails(Call& c, const v1::Job& j) {
  // Times read best both ways: when on the engine clock, and how long ago or ahead of now.
  const auto now = displayNow(c);
  auto when = [&now](Seconds t) {
    return now ? clockText(t) + " (" + relativeText(t, *now) + ")" : clockText(t);
  };
  const v1::JobSpec& s = j.spec();
  Table t;
  t.add({"id", std::to_string(j.id())});
  t.add({"name", orDash(s.name())});
  t.add({"team", s.team()});
  t.add({"priority", orDash(s.priority_class()) + " (" + std::to_string(j.priority()) +
                         (s.preemptible() ? ", preemptible)" : ")")});
  t.add({"class", classWord(s.workload_class())});
  t.add({"state", stateWord(j.state()) + (s.held() ? " (held)" : "")});
  t.add({"request", resourcesText(s)});
  if (s.gpu_models_size()) t.add({"models", joinAll(s.gpu_models())});
  if (!s.pool().empty()) t.add({"pool", s.pool()});
  if (s.topology() != v1::TOPOLOGY_LEVEL_UNSPECIFIED && s.topology() != v1::TOPOLOGY_LEVEL_ANY)
    t.add({"topology", topologyWord(s.topology()) + (s.topology_required() ? " (required)" : "")});
  if (s.pin_gpus_size() || s.pin_nodes_size()) {
    std::vector<std::string> pins(s.pin_gpus().begin(), s.pin_gpus().end());
    pins.insert(pins.end(), s.pin_nodes().begin(), s.pin_nodes().end());
    t.add({"pinned", join(pins, ", ")});
  }
  if (s.estimated_runtime_s() > 0) t.add({"runtime", formatDuration(s.estimated_runtime_s())});
  if (s.checkpoint_interval_s() > 0)
    t.add({"checkpoints", "every " + formatDuration(s.checkpoint_interval_s())});
  t.add({"submitted", when(j.submit_time())});
  if (j.start_time() > 0) t.add({"started", when(j.start_time())});
  if (j.end_time() > 0) t.add({"ended", when(j.end_time())});
  if (j.queue_position() > 0) t.add({"queue position", std::to_string(j.queue_position())});
  if (j.has_eta()) t.add({"eta", when(j.eta())});
  if (j.placement_size()) t.add({"placement", placementText(j)});
  if (!j.reason().empty()) t.add({"reason", j.reason()});
  if (!j.blocked_by().empty()) t.add({"blocked by", j.blocked_by()});
  if (j.preemptions() > 0)
    t.add({"preemptions", std::to_string(j.preemptions()) + " (" + fixed(j.gpu_hours_lost(), 1) +
                              " GPU-hours lost)"});
  t.print(c.out());
}

// What the action did in the server's words. A dry run's message is "dry run: WHAT; SUMMARY";
// the prefix and the summary are dropped because the lines below say both, item by item.
std::string actionText(const v1::ActResponse& r) {
  std::string text = r.message();
  if (r.applied()) return text;
  if (text.starts_with("dry run: ")) text.erase(0, 9);
  const std::string summary = "; " + r.impact().summary();
  if (!r.impact().summary().empty() && text.ends_with(summary))
    text.erase(text.size() - summary.size());
  return text;
}

void printActResponse(Call& c, const v1::ActResponse& r) {
  const std::string text = actionText(r);
  c.out() << (r.applied() ? "applied" : "dry run, nothing applied")
          << (text.empty() ? "" : ": " + text) << "\n";
  const v1::Impact& i = r.impact();
  Table t;
  t.add({"impact", std::to_string(i.started_size()) + " start, " +
                       std::to_string(i.preempted_size()) + " preempted, " +
                       std::to_string(i.stopped_size()) + " stopped, " +
                       fixed(i.gpu_hours_lost(), 2) + " GPU-hours lost"});
  if (i.started_size()) t.add({"starts", joinAll(i.started())});
  if (i.preempted_size()) t.add({"preempts", joinAll(i.preempted())});
  if (i.stopped_size()) t.add({"stops", joinAll(i.stopped())});
  for (const auto& p : i.placement_changes()) t.add({"placement", p});
  for (const auto& w : i.warnings()) t.add({"warning", w});
  if (r.applied() && r.event_seq() > 0) t.add({"audit event", "#" + std::to_string(r.event_seq())});
  t.print(c.out());
}

void printSnapshotSummary(Call& c, const v1::ClusterSnapshot& s) {
  const double share = s.gpus_total() > 0 ? 100.0 * s.gpus_allocated() / s.gpus_total() : 0.0;
  Table t;
  t.add({"now", clockText(s.now())});
  t.add({"mode", orDash(s.mode())});
  t.add({"pending", std::to_string(s.pending_jobs())});
  t.add({"running", std::to_string(s.running_jobs())});
  t.add({"allocation", fixed(s.gpus_allocated(), 1) + " of " + number(s.gpus_total()) + " GPUs (" +
                           fixed(share, 1) + "%)"});
  t.add({"nodes", std::to_string(s.nodes_size())});
  t.add({"last event", "#" + std::to_string(s.last_event_seq())});
  t.add({"cycles", std::to_string(s.cycles()) + " (last " + fixed(s.last_cycle_ms(), 1) + " ms)"});
  t.print(c.out());
  if (s.teams_size() == 0) return;
  c.out() << "\n";
  Table teams;
  teams.add({"TEAM", "PARENT", "GPUS IN USE", "GUARANTEED", "FAIR-SHARE USAGE"});
  for (const auto& team : s.teams())
    teams.add({team.name(), orDash(team.parent()), fixed(team.gpus_in_use(), 1),
               std::to_string(team.guaranteed()), number(team.fair_share_usage())});
  teams.print(c.out());
}

void printNodes(Call& c, const v1::ClusterSnapshot& s) {
  c.out() << "\n";
  Table t;
  t.add({"NODE", "STATE", "POOL", "LEAF", "GPUS", "ALLOCATED", "UTIL", "MODELS"});
  for (const auto& n : s.nodes()) {
    double allocated = 0, util = 0;
    int withUtil = 0;
    std::vector<std::string> models;
    for (const auto& g : n.gpus()) {
      allocated += g.allocated();
      if (g.has_util()) {
        util += g.util();
        ++withUtil;
      }
      if (std::find(models.begin(), models.end(), g.model()) == models.end())
        models.push_back(g.model());
    }
    t.add({n.name(), n.state(), orDash(n.pool()), orDash(n.leaf()), std::to_string(n.gpus_size()),
           fixed(allocated, 2), withUtil ? fixed(100.0 * util / withUtil, 0) + "%" : "-",
           orDash(join(models, ","))});
  }
  t.print(c.out());
}

std::string eventLine(const Event& e) {
  std::string line =
      "#" + std::to_string(e.seq) + " " + clockText(e.time) + " " + eventKindName(e.kind);
  if (e.job != kNoJob) {
    line += " job " + std::to_string(e.job);
    if (e.from != e.to)
      line += std::string(" (") + jobStateName(e.from) + " -> " + jobStateName(e.to) + ")";
  }
  if (e.by != kNoJob) line += " for job " + std::to_string(e.by);
  if (!e.reason.empty()) line += ": " + e.reason;
  // The scheduler is the usual actor; naming it on every line would only be noise.
  if (!e.actor.empty() && e.actor != "scheduler") line += " [" + e.actor + "]";
  return line;
}

// ============================================================================ the calls

// Unary call whose answer is printed as JSON or by `table`.
template <typename Request, typename Response, typename Print>
int callAndPrint(Call& c, Method<Request, Response> method, const Request& request, Print table) {
  Response response;
  if (!unary(c, method, request, response)) return c.failed;
  if (c.json()) return printJson(c, response);
  table(response);
  return kExitOk;
}

int submitOne(Call& c, const v1::JobSpec& spec) {
  v1::SubmitRequest request;
  *request.mutable_job() = spec;
  return callAndPrint(c, &Stub::Submit, request, [&c](const v1::SubmitResponse& r) {
    c.out() << "submitted job " << r.id() << "\n";
  });
}

int submitBatch(Call& c, const std::vector<v1::JobSpec>& specs) {
  v1::SubmitBatchRequest request;
  for (const auto& s : specs) *request.add_jobs() = s;
  return callAndPrint(c, &Stub::SubmitBatch, request, [&](const v1::SubmitBatchResponse& r) {
    for (int i = 0; i < r.ids_size(); ++i) {
      const auto k = static_cast<size_t>(i);
      const std::string name = k < specs.size() ? specs[k].name() : std::string();
      c.out() << "submitted job " << r.ids(i) << (name.empty() ? "" : " (" + name + ")") << "\n";
    }
  });
}

int getJob(Call& c, JobId id) {
  v1::GetJobRequest request;
  request.set_id(id);
  return callAndPrint(c, &Stub::GetJob, request, [&c](const v1::Job& j) { printJobDetails(c, j); });
}

struct ListArgs {
  std::string team, priorityClass, state;
  bool active = false, all = false;
  uint32_t limit = 0;
};

int listJobs(Call& c, const ListArgs& a) {
  v1::ListJobsRequest request;
  request.set_team(a.team);
  request.set_priority_class(a.priorityClass);
  if (!a.state.empty()) {
    v1::JobState state{};
    std::string name = "JOB_STATE_" + a.state;
    std::transform(name.begin(), name.end(), name.begin(), [](char ch) {
      return ch >= 'a' && ch <= 'z' ? static_cast<char>(ch - 'a' + 'A') : ch;
    });
    v1::JobState_Parse(name, &state);
    request.set_state(state);
  }
  request.set_active_only(a.active);
  request.set_page_size(a.limit);
  v1::ListJobsResponse all;
  for (;;) {
    v1::ListJobsResponse page;
    if (!unary(c, &Stub::ListJobs, request, page)) return c.failed;
    all.mutable_jobs()->MergeFrom(page.jobs());
    all.set_next_page_token(page.next_page_token());
    // A server handing back the token it was given would otherwise loop forever.
    if (!a.all || page.next_page_token().empty() || page.next_page_token() == request.page_token())
      break;
    request.set_page_token(page.next_page_token());
  }
  if (c.json()) return printJson(c, all);
  if (all.jobs_size() == 0) {
    c.ctx.err << "no jobs match\n";
    return kExitOk;
  }
  printJobTable(c, all.jobs());
  if (!all.next_page_token().empty())
    c.ctx.err << "(more jobs: --all follows every page, --limit N sets the page size)\n";
  return kExitOk;
}

// Cancel has its own RPC (jobs API); every other action goes through Act.
int act(Call& c, Command command, bool dryRun) {
  // Reservation windows are given relative to the server's clock, which only the server knows.
  if (auto* r = std::get_if<cmd::CreateReservation>(&command)) {
    const auto now = serverNow(c);
    if (!now) return c.failed;
    r->from += *now;
    r->until += *now;
  }
  auto print = [&c](const v1::ActResponse& r) { printActResponse(c, r); };
  if (const auto* cancel = std::get_if<cmd::Cancel>(&command)) {
    v1::CancelJobRequest request;
    request.set_id(cancel->job);
    request.set_dry_run(dryRun);
    return callAndPrint(c, &Stub::CancelJob, request, print);
  }
  return callAndPrint(c, &Stub::Act, rpc::commandToProto(command, dryRun), print);
}

int explainJob(Call& c, JobId id) {
  v1::ExplainRequest request;
  request.set_job(id);
  return callAndPrint(c, &Stub::Explain, request, [&c](const v1::Explanation& x) {
    c.out() << x.text();
    if (!x.text().empty() && x.text().back() != '\n') c.out() << "\n";
  });
}

int showSnapshot(Call& c, bool nodes) {
  return callAndPrint(c, &Stub::GetSnapshot, v1::GetSnapshotRequest{},
                      [&c, nodes](const v1::ClusterSnapshot& s) {
                        printSnapshotSummary(c, s);
                        if (nodes) printNodes(c, s);
                      });
}

struct WatchArgs {
  uint64_t after = 0;
  bool afterGiven = false;
  JobId job = kNoJob;
  int count = 0;  // 0 = until interrupted
};

int watchEvents(Call& c, const WatchArgs& a) {
  uint64_t after = a.after;
  if (!a.afterGiven) {
    // Without --after only what happens from now on: a long-lived server's history is large.
    auto snapshot = fetchSnapshot(c);
    if (!snapshot) return c.failed;
    after = snapshot->last_event_seq();
  }
  int printed = 0;
  const auto error = c.remote->watch(after, [&](const Event& e) {
    if (a.job != kNoJob && e.job != a.job) return true;
    if (c.json())
      printJson(c, rpc::eventToProto(e), true);
    else
      c.out() << eventLine(e) << "\n";
    c.out().flush();  // a pipe (| grep) should see each event as it happens
    ++printed;
    return a.count == 0 || printed < a.count;
  });
  if (error) return failApi(c, *error);
  return kExitOk;
}

struct MetricsArgs {
  std::string series, since, resolution = "auto";
  uint32_t maxPoints = 0;
};

int queryMetrics(Call& c, const MetricsArgs& a) {
  v1::QueryMetricsRequest request;
  request.set_series(a.series);
  request.set_resolution(a.resolution);
  request.set_max_points(a.maxPoints);
  if (!a.since.empty()) {
    const auto now = serverNow(c);
    if (!now) return c.failed;
    request.set_from(*now - *parseDuration(a.since));
  }
  return callAndPrint(c, &Stub::QueryMetrics, request, [&c](const v1::QueryMetricsResponse& r) {
    if (r.series().empty()) {
      for (const auto& name : r.series_names()) c.out() << name << "\n";
      return;
    }
    Table t;
    t.add({"TIME", "VALUE", "MIN", "MAX", "COUNT"});
    for (const auto& p : r.points())
      t.add({clockText(p.time()), number(p.value()), number(p.min()), number(p.max()),
             std::to_string(p.count())});
    t.print(c.out());
  });
}

int whoAmI(Call& c) {
  return callAndPrint(c, &Stub::WhoAmI, v1::WhoAmIRequest{}, [&c](const v1::WhoAmIResponse& r) {
    Table t;
    t.add({"name", r.name()});
    t.add({"role", r.role()});
    t.add({"server", c.address});
    t.add({"server version", r.server_version()});
    t.add({"mode", r.mode()});
    t.print(c.out());
  });
}

int health(Call& c) {
  auto answer = c.remote->health();
  if (const auto* e = std::get_if<ApiError>(&answer)) return failApi(c, *e);
  const std::string& status = std::get<std::string>(answer);
  if (c.json())
    c.out() << "{\"status\": \"" << status << "\"}\n";
  else
    c.out() << status << "\n";
  // A health check is for scripts: anything but SERVING must fail them.
  return status == "SERVING" ? kExitOk : kExitRefused;
}

int backup(Call& c, const std::string& path) {
  v1::BackupRequest request;
  request.set_path(path);
  return callAndPrint(c, &Stub::Backup, request, [&c](const v1::BackupResponse& r) {
    c.out() << "backup written on the server: " << r.path() << " (" << r.bytes() << " bytes)\n";
  });
}

struct ReportArgs {
  std::string kind = "utilization", format = "csv", since;
};

int getReport(Call& c, const ReportArgs& a) {
  v1::GetReportRequest request;
  request.set_kind(a.kind);
  request.set_format(a.format);
  if (!a.since.empty()) {
    const auto now = serverNow(c);
    if (!now) return c.failed;
    request.set_from(*now - *parseDuration(a.since));
    request.set_to(*now);
  }
  return callAndPrint(c, &Stub::GetReport, request, [&c](const v1::GetReportResponse& r) {
    c.out() << r.content();  // already CSV or JSON as asked
    if (!r.content().empty() && r.content().back() != '\n') c.out() << "\n";
  });
}

// ============================================================================ registration

const char* const kCtlFooter =
    "Connection settings, first source wins: flag > environment (TESSERA_SERVER, TESSERA_TOKEN,\n"
    "TESSERA_CA) > config file (--config FILE, else $TESSERA_CTL_CONFIG, else\n"
    "~/.config/tessera/ctl.yaml if it exists; YAML keys server, token, token_file, ca,\n"
    "server_name). The options may go before or after the call's name.\n"
    "Durations: 90 (seconds), 90s, 15m, 2h, 1h30m, 1d.\n"
    "Exit codes: 0 ok; 2 usage error, bad flag, unreadable or invalid local file;\n"
    "  3 server unreachable or no answer in time (UNAVAILABLE, DEADLINE_EXCEEDED);\n"
    "  4 the server refused the call (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION,\n"
    "    PERMISSION_DENIED, UNAUTHENTICATED, RESOURCE_EXHAUSTED, UNIMPLEMENTED, ...).\n"
    "Errors print 'tessera ctl: KIND: MESSAGE' on stderr. Details: docs/ctl.md.";

const char* const kCallFooter =
    "Connection options (--server, --token, --ca, -o json, --timeout, ...) and exit codes\n"
    "(0 ok, 2 usage, 3 unreachable, 4 refused): see 'tessera ctl --help'.";

using Flags = std::shared_ptr<GlobalFlags>;

CLI::App* addCall(CLI::App& ctl, const std::string& name, const std::string& description) {
  auto* sub = ctl.add_subcommand(name, description);
  sub->footer(kCallFooter);
  return sub;
}

// Runs `body` in a session when the call's callback fires, unless `check` (run first, with no
// server contacted) reports a usage error.
void onCall(CLI::App* sub, Context& ctx, const Flags& g, std::function<std::string()> check,
            std::function<int(Call&)> body) {
  sub->callback([&ctx, g, check = std::move(check), body = std::move(body)] {
    if (auto problem = check(); !problem.empty()) {
      ctx.exitCode = usageError(ctx, problem);
      return;
    }
    ctx.exitCode = withSession(ctx, *g, body);
  });
}

std::string noCheck() {
  return {};
}

// Repeatable list options: one value per flag, or a comma-separated list.
CLI::Option* addList(CLI::App* sub, const std::string& name, std::vector<std::string>& values,
                     const std::string& help) {
  return sub->add_option(name, values, help)->allow_extra_args(false)->delimiter(',');
}

std::string durationProblem(const std::string& flag, const std::string& text) {
  if (text.empty() || parseDuration(text)) return {};
  return flag + ": bad duration '" + text + "' (like 90s, 15m, 2h, 1h30m, 1d)";
}

void addGlobalOptions(CLI::App& ctl, GlobalFlags& g) {
  ctl.add_option("--server", g.connection.server,
                 "tesserad address, HOST:PORT or unix:/path (default 127.0.0.1:50551)")
      ->type_name("ADDRESS");
  ctl.add_option("--token", g.connection.token, "Bearer token (see tesserad's token file)")
      ->type_name("TOKEN");
  ctl.add_option("--token-file", g.connection.tokenFile, "Read the bearer token from FILE")
      ->type_name("FILE");
  ctl.add_option("--ca", g.connection.ca, "CA certificate (PEM) to verify the server; enables TLS")
      ->type_name("FILE");
  ctl.add_option("--server-name", g.connection.serverName,
                 "TLS name to expect in the server's certificate (default: the host)")
      ->type_name("NAME");
  ctl.add_option("--config", g.config,
                 "Config file (default: $TESSERA_CTL_CONFIG, else ~/.config/tessera/ctl.yaml)")
      ->type_name("FILE");
  ctl.add_option("-o,--output", g.output, "Output: table, or the API's messages as JSON")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  ctl.add_option("--timeout", g.timeout, "Seconds to wait for each answer (not for watch)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

struct SubmitArgs {
  SubmitFlags job;
  std::string file;
};

void addSubmitCall(CLI::App& ctl, Context& ctx, const Flags& g) {
  auto a = std::make_shared<SubmitArgs>();
  SubmitFlags& f = a->job;
  auto* s =
      addCall(ctl, "submit",
              "Submit one job from flags, or every job in --file as one all-or-nothing batch");
  s->add_option("--file", a->file, "YAML list of jobs with the workload file's keys (docs/ctl.md)")
      ->type_name("FILE");
  s->add_option("--name", f.name, "Job name");
  s->add_option("--team", f.team, "Team that runs it (required)");
  s->add_option("--priority", f.priority, "Priority class (default: the lowest)")
      ->type_name("CLASS");
  s->add_option("--class", f.workloadClass,
                "Workload class: training, inference, interactive, batch")
      ->type_name("CLASS");
  s->add_option("--tasks", f.tasks, "Gang size: tasks that start together (default 1)")
      ->type_name("N");
  s->add_option("--gpus", f.gpus, "Whole GPUs per task (one of --gpus/--mig/--fraction)")
      ->type_name("N");
  s->add_option("--mig", f.mig, "One MIG instance per task, like 3g.40gb")->type_name("PROFILE");
  s->add_option("--fraction", f.fraction, "Share of one time-sliced GPU per task, like 0.25")
      ->type_name("F");
  s->add_option("--vram-mib", f.vramMib, "GPU memory each task needs, MiB")->type_name("N");
  s->add_option("--cpus", f.cpus, "CPUs per task")->type_name("N");
  s->add_option("--memory-gib", f.memoryGib, "Host memory per task, GiB")->type_name("N");
  s->add_option("--min-gpu-memory-gib", f.minGpuMemoryGib, "Only GPUs with at least this memory")
      ->type_name("N");
  addList(s, "--model", f.models, "Only these GPU models (repeatable)")->type_name("MODEL");
  s->add_option("--pool", f.pool, "Node pool");
  s->add_option("--topology", f.topology,
                "Keep the gang within node, nvlink-domain, leaf, spine, any")
      ->type_name("LEVEL");
  s->add_flag("--topology-required", f.topologyRequired, "Wait rather than spread wider");
  s->add_option("--runtime", f.runtime, "Estimated runtime, like 2h (backfill uses it)")
      ->type_name("DUR");
  s->add_option("--checkpoint-interval", f.checkpointInterval, "How often it checkpoints, like 30m")
      ->type_name("DUR");
  s->add_flag("--held", f.held, "Submit held: it waits for 'release'");
  addList(s, "--pin-gpu", f.pinGpus, "Only on this GPU (repeatable)")->type_name("NODE/I");
  addList(s, "--pin-node", f.pinNodes, "Only on this node (repeatable)")->type_name("NODE");
  // The jobs are read before any connection, so a bad file never half-reaches the server.
  auto specs = std::make_shared<std::vector<v1::JobSpec>>();
  onCall(
      s, ctx, g,
      [a, specs] {
        if (!a->file.empty()) {
          if (a->job.any())
            return std::string("--file takes every job from the file; leave out the job flags");
          auto read = specsFromFile(a->file);
          if (!read) return read.error().str();
          *specs = std::move(*read);
          return std::string();
        }
        auto spec = specFromFlags(a->job);
        if (!spec) return spec.error().str();
        *specs = {std::move(*spec)};
        return std::string();
      },
      [a, specs](Call& c) {
        return a->file.empty() ? submitOne(c, specs->front()) : submitBatch(c, *specs);
      });
}

void addJobCalls(CLI::App& ctl, Context& ctx, const Flags& g) {
  addSubmitCall(ctl, ctx, g);

  auto id = std::make_shared<JobId>(0);
  auto* getCall =
      addCall(ctl, "get", "Show one job: request, state, queue position, ETA, placement");
  getCall->add_option("ID", *id, "Job id")->required();
  onCall(getCall, ctx, g, noCheck, [id](Call& c) { return getJob(c, *id); });

  auto l = std::make_shared<ListArgs>();
  auto* listCall =
      addCall(ctl, "list", "List jobs matching the filters: one page, or every page with --all");
  listCall->add_option("--team", l->team, "Only this team's jobs");
  listCall->add_option("--class", l->priorityClass, "Only this priority class")->type_name("CLASS");
  listCall->add_option("--state", l->state, "Only jobs in this state")
      ->check(CLI::IsMember(
          {"pending", "admitted", "running", "completed", "failed", "cancelled", "preempted"}));
  listCall->add_flag("--active", l->active, "Only pending and running jobs");
  listCall->add_option("--limit", l->limit, "Jobs per page (default 100, at most 1000)")
      ->check(CLI::Range(1, 1000));
  listCall->add_flag("--all", l->all, "Follow every page instead of the first");
  onCall(listCall, ctx, g, noCheck, [l](Call& c) { return listJobs(c, *l); });

  auto explainId = std::make_shared<JobId>(0);
  auto* explainCall =
      addCall(ctl, "explain", "Why a job is pending and when it will start, with counterfactuals");
  explainCall->add_option("ID", *explainId, "Job id")->required();
  onCall(explainCall, ctx, g, noCheck, [explainId](Call& c) { return explainJob(c, *explainId); });
}

// Everything an action call may take; each call registers the options it uses.
struct ActionArgs {
  JobId job = kNoJob;
  JobId before = kNoJob;
  std::string target, value, reason, team, from = "0", until;
  bool top = false, bottom = false, force = false, dryRun = false;
  std::vector<std::string> gpus, nodes;
  int guaranteed = 0, borrow = 0, lend = -1;
};
using BuildCommand = std::function<Expected<Command>(const ActionArgs&)>;

// An action call: `options` adds its arguments, `build` turns them into the one Command
// vocabulary (checked before the server is contacted), --dry-run predicts instead of applying.
void addAction(CLI::App& ctl, Context& ctx, const Flags& g, const std::string& name,
               const std::string& description,
               const std::function<void(CLI::App*, ActionArgs&)>& options, BuildCommand build) {
  auto a = std::make_shared<ActionArgs>();
  auto* sub = addCall(ctl, name, description);
  options(sub, *a);
  sub->add_flag("--dry-run", a->dryRun, "Print the predicted impact; change nothing");
  auto command = std::make_shared<std::optional<Command>>();
  onCall(
      sub, ctx, g,
      [a, build = std::move(build), command] {
        auto built = build(*a);
        if (!built) return built.error().str();
        *command = std::move(*built);
        return std::string();
      },
      [a, command](Call& c) { return act(c, **command, a->dryRun); });
}

void jobArg(CLI::App* sub, ActionArgs& a) {
  sub->add_option("ID", a.job, "Job id")->required();
}

void addJobActions(CLI::App& ctl, Context& ctx, const Flags& g) {
  addAction(ctl, ctx, g, "cancel", "Cancel a job (a running one is stopped)", jobArg,
            [](const ActionArgs& a) -> Expected<Command> { return Command{cmd::Cancel{a.job}}; });
  addAction(ctl, ctx, g, "hold", "Hold a pending job: it stays queued but does not start", jobArg,
            [](const ActionArgs& a) -> Expected<Command> { return Command{cmd::Hold{a.job}}; });
  addAction(ctl, ctx, g, "release", "Release a held job", jobArg,
            [](const ActionArgs& a) -> Expected<Command> { return Command{cmd::Release{a.job}}; });
  addAction(ctl, ctx, g, "preempt", "Preempt a running job: back to the queue", jobArg,
            [](const ActionArgs& a) -> Expected<Command> { return Command{cmd::Preempt{a.job}}; });
  addAction(
      ctl, ctx, g, "priority", "Move a job to another priority class",
      [](CLI::App* sub, ActionArgs& a) {
        jobArg(sub, a);
        sub->add_option("CLASS", a.value, "Priority class")->required();
      },
      [](const ActionArgs& a) -> Expected<Command> {
        return Command{cmd::SetPriority{a.job, a.value}};
      });
  addAction(
      ctl, ctx, g, "move", "Reorder a pending job among jobs of its priority",
      [](CLI::App* sub, ActionArgs& a) {
        jobArg(sub, a);
        sub->add_flag("--top", a.top, "To the front");
        sub->add_flag("--bottom", a.bottom, "To the back");
        sub->add_option("--before", a.before, "Just ahead of this job")->type_name("JOB");
      },
      [](const ActionArgs& a) -> Expected<Command> {
        const bool before = a.before != kNoJob;
        if (int(a.top) + int(a.bottom) + int(before) != 1)
          return Error{"give one of --top, --bottom, --before JOB", {}};
        cmd::Move m{a.job,
                    a.top      ? cmd::Move::To::Top
                    : a.bottom ? cmd::Move::To::Bottom
                               : cmd::Move::To::Before,
                    a.before};
        return Command{m};
      });
  addAction(
      ctl, ctx, g, "pin", "Restrict a pending job to GPUs and/or nodes (neither: unpin)",
      [](CLI::App* sub, ActionArgs& a) {
        jobArg(sub, a);
        addList(sub, "--gpu", a.gpus, "Allowed GPU (repeatable)")->type_name("NODE/I");
        addList(sub, "--node", a.nodes, "Allowed node (repeatable)")->type_name("NODE");
      },
      [](const ActionArgs& a) -> Expected<Command> {
        return Command{cmd::Pin{a.job, a.gpus, a.nodes}};
      });
}

void addClusterActions(CLI::App& ctl, Context& ctx, const Flags& g) {
  addAction(
      ctl, ctx, g, "repartition", "Give a GPU a new MIG layout",
      [](CLI::App* sub, ActionArgs& a) {
        sub->add_option("GPU", a.target, "The GPU, NODE/INDEX")->required();
        sub->add_option("LAYOUT", a.value, "MIG layout, like 3g.40gb,4x1g.10gb")->required();
        sub->add_flag("--force", a.force, "Preempt jobs on instances that go away");
      },
      [](const ActionArgs& a) -> Expected<Command> {
        return Command{cmd::Repartition{a.target, a.value, a.force}};
      });
  addAction(
      ctl, ctx, g, "drain", "Stop placing new work on a node",
      [](CLI::App* sub, ActionArgs& a) {
        sub->add_option("NODE", a.target, "Node name")->required();
        sub->add_option("--reason", a.reason, "Why (shown to operators)");
      },
      [](const ActionArgs& a) -> Expected<Command> {
        return Command{cmd::Drain{a.target, a.reason}};
      });
  addAction(
      ctl, ctx, g, "undrain", "Place work on a drained node again",
      [](CLI::App* sub, ActionArgs& a) {
        sub->add_option("NODE", a.target, "Node name")->required();
      },
      [](const ActionArgs& a) -> Expected<Command> { return Command{cmd::Undrain{a.target}}; });
  addAction(
      ctl, ctx, g, "quota", "Set a team's quota for a GPU model, pool:NAME or *",
      [](CLI::App* sub, ActionArgs& a) {
        sub->add_option("TEAM", a.target, "Team")->required();
        sub->add_option("KEY", a.value, "GPU model, pool:NAME or *")->required();
        sub->add_option("--guaranteed", a.guaranteed, "GPUs always available to the team")
            ->required()
            ->check(CLI::NonNegativeNumber);
        sub->add_option("--borrow", a.borrow, "GPUs it may borrow above the guarantee")
            ->check(CLI::NonNegativeNumber)
            ->capture_default_str();
        sub->add_option("--lend", a.lend, "GPUs of its guarantee others may borrow (default all)")
            ->check(CLI::NonNegativeNumber);
      },
      [](const ActionArgs& a) -> Expected<Command> {
        return Command{cmd::SetQuota{a.target, a.value, Quota{a.guaranteed, a.borrow, a.lend}}};
      });
  addAction(
      ctl, ctx, g, "reserve",
      "Reserve nodes from --from to --until after the server's now (team: held for it, else "
      "a maintenance window)",
      [](CLI::App* sub, ActionArgs& a) {
        sub->add_option("ID", a.target, "Reservation id")->required();
        addList(sub, "--node", a.nodes, "Reserved node (repeatable)")
            ->required()
            ->type_name("NODE");
        sub->add_option("--from", a.from, "Start, after the server's now (default 0 = now)")
            ->type_name("DUR");
        sub->add_option("--until", a.until, "End, after the server's now")
            ->required()
            ->type_name("DUR");
        sub->add_option("--team", a.team, "Hold the capacity for this team");
      },
      // The window stays relative here; act() adds the server's clock to it.
      [](const ActionArgs& a) -> Expected<Command> {
        TESSERA_TRY(w, reservationWindow(0, a.from, a.until));
        return Command{cmd::CreateReservation{a.target, a.nodes, w.from, w.until, a.team}};
      });
  addAction(
      ctl, ctx, g, "unreserve", "Delete a reservation",
      [](CLI::App* sub, ActionArgs& a) {
        sub->add_option("ID", a.target, "Reservation id")->required();
      },
      [](const ActionArgs& a) -> Expected<Command> {
        return Command{cmd::DeleteReservation{a.target}};
      });
}

void addClusterCalls(CLI::App& ctl, Context& ctx, const Flags& g) {
  auto nodes = std::make_shared<bool>(false);
  auto* snap =
      addCall(ctl, "snapshot", "Cluster summary: clock, mode, jobs, allocation, per-team usage");
  snap->add_flag("--nodes", *nodes, "Add a table of the nodes");
  onCall(snap, ctx, g, noCheck, [nodes](Call& c) { return showSnapshot(c, *nodes); });

  auto w = std::make_shared<WatchArgs>();
  auto* watchCall =
      addCall(ctl, "watch", "Print events as they happen, one per line; survives server restarts");
  auto* after = watchCall
                    ->add_option("--after", w->after,
                                 "Start after this event number (0 = from the first; default: "
                                 "only new events)")
                    ->type_name("SEQ");
  watchCall->add_option("--job", w->job, "Only this job's events")->type_name("ID");
  watchCall->add_option("--count", w->count, "Stop after N events (default: until interrupted)")
      ->check(CLI::PositiveNumber);
  onCall(
      watchCall, ctx, g,
      [w, after] {
        w->afterGiven = after->count() > 0;
        return std::string();
      },
      [w](Call& c) { return watchEvents(c, *w); });

  auto m = std::make_shared<MetricsArgs>();
  auto* metricsCall =
      addCall(ctl, "metrics", "A metric series as a table; without SERIES, the names");
  metricsCall->add_option("SERIES", m->series, "Series name, like cluster_allocation");
  metricsCall->add_option("--since", m->since, "Only the last DUR (default: everything kept)")
      ->type_name("DUR");
  metricsCall->add_option("--resolution", m->resolution, "auto, raw, 1m or 1h")
      ->check(CLI::IsMember({"auto", "raw", "1m", "1h"}))
      ->capture_default_str();
  metricsCall->add_option("--max-points", m->maxPoints, "At most N points (default 2000)")
      ->check(CLI::Range(1, 1'000'000));
  onCall(
      metricsCall, ctx, g, [m] { return durationProblem("--since", m->since); },
      [m](Call& c) { return queryMetrics(c, *m); });
}

void addAdminCalls(CLI::App& ctl, Context& ctx, const Flags& g) {
  onCall(addCall(ctl, "whoami", "Who the server takes you for, your role, its version and mode"),
         ctx, g, noCheck, whoAmI);
  onCall(addCall(ctl, "health", "The server's health status (exit 0 only when SERVING)"), ctx, g,
         noCheck, health);

  auto path = std::make_shared<std::string>();
  auto* bk = addCall(ctl, "backup", "Write a consistent copy of the database (admin)");
  bk->add_option("PATH", *path, "Path on the server's file system; must not exist yet")->required();
  onCall(bk, ctx, g, noCheck, [path](Call& c) { return backup(c, *path); });

  auto r = std::make_shared<ReportArgs>();
  auto* reportCall = addCall(ctl, "report", "A utilization or chargeback report, as CSV or JSON");
  reportCall->add_option("--kind", r->kind, "utilization or chargeback")
      ->check(CLI::IsMember({"utilization", "chargeback"}))
      ->capture_default_str();
  reportCall->add_option("--format", r->format, "csv or json")
      ->check(CLI::IsMember({"csv", "json"}))
      ->capture_default_str();
  reportCall->add_option("--since", r->since, "Only the last DUR (default: everything)")
      ->type_name("DUR");
  onCall(
      reportCall, ctx, g, [r] { return durationProblem("--since", r->since); },
      [r](Call& c) { return getReport(c, *r); });
}

}  // namespace

void addCtlVerbs(CLI::App& app, Context& ctx) {
  auto g = std::make_shared<GlobalFlags>();
  auto* ctl = app.add_subcommand(
      "ctl",
      "Client for a running tesserad (gRPC API): submit and inspect jobs, operator actions with "
      "--dry-run, cluster state, events, metrics, admin calls");
  ctl->require_subcommand(1);
  // Connection options are accepted after the call's name too (`ctl list -o json`).
  ctl->fallthrough();
  ctl->footer(kCtlFooter);
  addGlobalOptions(*ctl, *g);
  addJobCalls(*ctl, ctx, g);
  addJobActions(*ctl, ctx, g);
  addClusterActions(*ctl, ctx, g);
  addClusterCalls(*ctl, ctx, g);
  addAdminCalls(*ctl, ctx, g);
}

}  // namespace tessera::cli
