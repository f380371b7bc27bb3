// tessera ctl submit's jobs, read before any connection: from the job flags (specFromFlags) or
// from a YAML jobs file with the workload file's keys (specsFromYaml). Both check each value
// with the same setters, so a flag and a key accept and reject the same text.
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "cli/cli_ctl_internal.h"
#include "topology/yaml_reader.h"
#include "workload/workload_spec.h"

namespace tessera::cli::ctl {

// ============================================================================ one value each

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

// `text` as a whole number from min to max, handed to `take`.
template <typename Take>
Problem wholeNumber(const std::string& text, int64_t min, int64_t max, Take take) {
  const auto n = parseInt64(text);
  if (!n || *n < min || *n > max)
    return "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
           ", got '" + text + "'";
  take(*n);
  return std::nullopt;
}

// `text` as a duration in seconds, handed to `take`.
template <typename Take>
Problem duration(const std::string& text, Take take) {
  const auto d = parseDuration(text);
  if (!d) return "bad duration '" + text + "' (seconds, or like 90s, 15m, 2h, 1h30m, 1d)";
  take(*d);
  return std::nullopt;
}

// `text` as one of the words of `values`, whose value is handed to `take`.
template <typename Enum, size_t N, typename Take>
Problem oneOf(const std::string& text, const std::pair<const char*, Enum> (&values)[N], Take take) {
  std::string expected;
  for (size_t i = 0; i < N; ++i) {
    if (text == values[i].first) {
      take(values[i].second);
      return std::nullopt;
    }
    expected += (i == 0 ? "" : i + 1 < N ? ", " : " or ") + std::string(values[i].first);
  }
  return "expected " + expected + ", got '" + text + "'";
}

const std::pair<const char*, v1::WorkloadClass> kClasses[] = {
    {"training", v1::WORKLOAD_CLASS_TRAINING},
    {"inference", v1::WORKLOAD_CLASS_INFERENCE},
    {"interactive", v1::WORKLOAD_CLASS_INTERACTIVE},
    {"batch", v1::WORKLOAD_CLASS_BATCH}};

const std::pair<const char*, v1::TopologyLevel> kLevels[] = {
    {"node", v1::TOPOLOGY_LEVEL_NODE},
    {"nvlink-domain", v1::TOPOLOGY_LEVEL_NVLINK_DOMAIN},
    {"leaf", v1::TOPOLOGY_LEVEL_LEAF},
    {"spine", v1::TOPOLOGY_LEVEL_SPINE},
    {"any", v1::TOPOLOGY_LEVEL_ANY}};

Problem setTasks(v1::JobSpec& s, const std::string& v) {
  return wholeNumber(v, 1, 4096, [&s](int64_t n) { s.set_tasks(static_cast<uint32_t>(n)); });
}

Problem setGpus(v1::JobSpec& s, const std::string& v) {
  return wholeNumber(v, 1, 64,
                     [&s](int64_t n) { s.mutable_per_task()->set_gpus(static_cast<uint32_t>(n)); });
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

Problem setMpsThreads(v1::JobSpec& s, const std::string& v) {
  return wholeNumber(v, 1, 100, [&s](int64_t n) {
    s.mutable_per_task()->set_mps_threads(static_cast<uint32_t>(n));
  });
}

// The pinned limit is the request's GPU memory (vram_mib), as the API carries it.
Problem setMpsMemory(v1::JobSpec& s, const std::string& v) {
  const auto mib = parseMemoryMiB(v);
  if (!mib) return "expected a size such as 512MiB, 8GiB or 8G, got '" + v + "'";
  s.mutable_per_task()->set_vram_mib(*mib);
  return std::nullopt;
}

Problem setVram(v1::JobSpec& s, const std::string& v) {
  return wholeNumber(v, 0, 10'000'000, [&s](int64_t n) { s.mutable_per_task()->set_vram_mib(n); });
}

Problem setCpus(v1::JobSpec& s, const std::string& v) {
  return wholeNumber(v, 0, 1 << 20,
                     [&s](int64_t n) { s.set_cpus_per_task(static_cast<uint32_t>(n)); });
}

Problem setMemoryGib(v1::JobSpec& s, const std::string& v) {
  return wholeNumber(v, 0, 1 << 24, [&s](int64_t n) { s.set_memory_mib_per_task(n * 1024); });
}

Problem setMinGpuMemoryGib(v1::JobSpec& s, const std::string& v) {
  return wholeNumber(v, 1, 100'000, [&s](int64_t n) { s.set_min_gpu_memory_mib(n * 1024); });
}

Problem setClass(v1::JobSpec& s, const std::string& v) {
  return oneOf(v, kClasses, [&s](v1::WorkloadClass c) { s.set_workload_class(c); });
}

Problem setTopology(v1::JobSpec& s, const std::string& v) {
  return oneOf(v, kLevels, [&s](v1::TopologyLevel l) { s.set_topology(l); });
}

Problem setRuntime(v1::JobSpec& s, const std::string& v) {
  return duration(v, [&s](Seconds d) { s.set_estimated_runtime_s(d); });
}

Problem setCheckpoint(v1::JobSpec& s, const std::string& v) {
  return duration(v, [&s](Seconds d) { s.set_checkpoint_interval_s(d); });
}

// The engine resolves pins by name; only the shape is checked here, so a typo fails early.
Problem addPinGpu(v1::JobSpec& s, const std::string& v) {
  const auto slash = v.rfind('/');
  if (slash == std::string::npos || slash == 0 || !parseInt(v.substr(slash + 1)))
    return "expected NODE/INDEX, like n1/0, got '" + v + "'";
  s.add_pin_gpus(v);
  return std::nullopt;
}

// How the job runs on the cluster (an executor's business: Slurm's --wrap, --chdir, ...).
Problem setCommand(v1::JobSpec& s, const std::string& v) {
  s.mutable_launch()->set_command(v);
  return std::nullopt;
}
Problem setScriptText(v1::JobSpec& s, const std::string& v) {
  s.mutable_launch()->set_script(v);
  return std::nullopt;
}
Problem setWorkDir(v1::JobSpec& s, const std::string& v) {
  s.mutable_launch()->set_work_dir(v);
  return std::nullopt;
}
Problem setOutput(v1::JobSpec& s, const std::string& v) {
  s.mutable_launch()->set_output(v);
  return std::nullopt;
}
Problem setErrorFile(v1::JobSpec& s, const std::string& v) {
  s.mutable_launch()->set_error(v);
  return std::nullopt;
}
Problem setAccount(v1::JobSpec& s, const std::string& v) {
  s.mutable_launch()->set_account(v);
  return std::nullopt;
}
Problem setPartition(v1::JobSpec& s, const std::string& v) {
  s.mutable_launch()->set_partition(v);
  return std::nullopt;
}
Problem setTimeLimit(v1::JobSpec& s, const std::string& v) {
  const auto d = parseDuration(v);
  if (!d || *d <= 0) return "expected a duration like 90m or 2h, got '" + v + "'";
  s.mutable_launch()->set_time_limit_minutes(static_cast<uint32_t>((*d + 59) / 60));
  return std::nullopt;
}

// One of the three GPU request forms, as the API's oneof demands.
std::optional<std::string> gpuKindProblem(int given, const std::string& names) {
  if (given == 1) return std::nullopt;
  return given == 0 ? "give one of " + names : "give only one of " + names;
}

}  // namespace

// ============================================================================ jobs from flags

namespace {

struct FlagSetter {
  const char* flag;
  const std::string* value;
  Setter set;
};

// The flags that go through a setter, each checked when given.
Status applyFlags(const SubmitFlags& f, v1::JobSpec& s) {
  const FlagSetter setters[] = {{"--class", &f.workloadClass, setClass},
                                {"--tasks", &f.tasks, setTasks},
                                {"--gpus", &f.gpus, setGpus},
                                {"--mig", &f.mig, setMig},
                                {"--fraction", &f.fraction, setFraction},
                                {"--mps", &f.mps, setMpsThreads},
                                {"--mps-memory", &f.mpsMemory, setMpsMemory},
                                {"--vram-mib", &f.vramMib, setVram},
                                {"--cpus", &f.cpus, setCpus},
                                {"--memory-gib", &f.memoryGib, setMemoryGib},
                                {"--min-gpu-memory-gib", &f.minGpuMemoryGib, setMinGpuMemoryGib},
                                {"--topology", &f.topology, setTopology},
                                {"--runtime", &f.runtime, setRuntime},
                                {"--checkpoint-interval", &f.checkpointInterval, setCheckpoint},
                                {"--command", &f.command, setCommand},
                                {"--workdir", &f.workDir, setWorkDir},
                                {"--output", &f.output, setOutput},
                                {"--error", &f.error, setErrorFile},
                                {"--account", &f.account, setAccount},
                                {"--partition", &f.partition, setPartition},
                                {"--time-limit", &f.timeLimit, setTimeLimit}};
  for (const FlagSetter& x : setters) {
    if (x.value->empty()) continue;
    if (auto p = x.set(s, *x.value)) return Error{std::string(x.flag) + ": " + *p, {}};
  }
  return okStatus();
}

}  // namespace

bool SubmitFlags::any() const {
  for (const std::string* s : {&name,    &team,     &priority,  &workloadClass,
                               &tasks,   &gpus,     &mig,       &fraction,
                               &vramMib, &cpus,     &memoryGib, &minGpuMemoryGib,
                               &pool,    &topology, &runtime,   &checkpointInterval,
                               &command, &script,   &workDir,   &output,
                               &error,   &account,  &partition, &timeLimit})
    if (!s->empty()) return true;
  return !mps.empty() || !mpsMemory.empty() || !user.empty() || topologyRequired || held ||
         !models.empty() || !pinGpus.empty() || !pinNodes.empty();
}

Expected<v1::JobSpec> specFromFlags(const SubmitFlags& f) {
  if (f.team.empty()) return Error{"--team is required", {}};
  const int kinds =
      int(!f.gpus.empty()) + int(!f.mig.empty()) + int(!f.fraction.empty()) + int(!f.mps.empty());
  if (auto p = gpuKindProblem(kinds, "--gpus N, --mig PROFILE, --fraction F or --mps PERCENT"))
    return Error{*p, {}};
  if (f.mps.empty() != f.mpsMemory.empty())
    return Error{f.mps.empty() ? "--mps-memory needs --mps PERCENT"
                               : "--mps needs --mps-memory SIZE: MPS does not isolate GPU memory",
                 {}};
  if (f.topologyRequired && f.topology.empty())
    return Error{"--topology-required needs --topology LEVEL", {}};
  v1::JobSpec s;
  s.set_name(f.name);
  s.set_team(f.team);
  s.set_user(f.user);
  s.set_priority_class(f.priority);
  s.set_pool(f.pool);
  TESSERA_CHECK(applyFlags(f, s));
  for (const auto& m : f.models) s.add_gpu_models(m);
  for (const auto& g : f.pinGpus)
    if (auto p = addPinGpu(s, g)) return Error{"--pin-gpu: " + *p, {}};
  for (const auto& n : f.pinNodes) s.add_pin_nodes(n);
  s.set_topology_required(f.topologyRequired);
  s.set_held(f.held);
  if (!f.script.empty()) {
    if (!f.command.empty()) return Error{"give --command or --script, not both", {}};
    std::ifstream in(f.script, std::ios::binary);
    if (!in) return Error{"--script: cannot read " + f.script, {}};
    std::ostringstream text;
    text << in.rdbuf();
    s.mutable_launch()->set_script(text.str());
  }
  return s;
}

// ============================================================================ jobs from YAML

namespace {

const std::set<std::string> kJobKeys{"name",     "team",       "priority",  "preemptible",
                                     "class",    "tasks",      "gpus",      "mig",
                                     "fraction", "vram_mib",   "mps",       "user",
                                     "cpus",     "memory_gib", "model",     "min_gpu_memory_gib",
                                     "pool",     "topology",   "runtime",   "checkpoint_interval",
                                     "held",     "hold",       "pin",       "command",
                                     "script",   "work_dir",   "output",    "error",
                                     "account",  "partition",  "time_limit"};

const std::pair<const char*, Setter> kScalarKeys[] = {{"class", setClass},
                                                      {"tasks", setTasks},
                                                      {"gpus", setGpus},
                                                      {"mig", setMig},
                                                      {"vram_mib", setVram},
                                                      {"cpus", setCpus},
                                                      {"memory_gib", setMemoryGib},
                                                      {"min_gpu_memory_gib", setMinGpuMemoryGib},
                                                      {"runtime", setRuntime},
                                                      {"checkpoint_interval", setCheckpoint},
                                                      {"command", setCommand},
                                                      {"script", setScriptText},
                                                      {"work_dir", setWorkDir},
                                                      {"output", setOutput},
                                                      {"error", setErrorFile},
                                                      {"account", setAccount},
                                                      {"partition", setPartition},
                                                      {"time_limit", setTimeLimit}};

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

// The text at `key`, handed to `take` when the key is there.
template <typename Take>
Status optionalText(const YamlField& f, const char* key, Take take) {
  if (!f.has(key)) return okStatus();
  TESSERA_TRY(value, f.stringAt(key));
  take(value);
  return okStatus();
}

// The yes/no at `key`, handed to `take` when the key is there.
template <typename Take>
Status optionalBool(const YamlField& f, const char* key, Take take) {
  if (!f.has(key)) return okStatus();
  TESSERA_TRY(value, f.child(key).asBool());
  take(value);
  return okStatus();
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

// The workload file's `mps: {threads: 25, memory: 8GiB}` (or memory_mib: 8192).
Status readMps(const YamlField& f, v1::JobSpec& s) {
  TESSERA_CHECK(f.onlyKeys({"threads", "memory", "memory_mib"}));
  TESSERA_TRY(threads, f.require("threads"));
  TESSERA_CHECK(applyScalar(threads, s, setMpsThreads));
  if (f.has("memory") == f.has("memory_mib"))
    return f.error("give the pinned device memory limit as memory: or memory_mib: (exactly one)");
  if (f.has("memory")) return applyScalar(f.child("memory"), s, setMpsMemory);
  TESSERA_TRY(mib, f.intAt("memory_mib", 1, 10'000'000));
  s.mutable_per_task()->set_vram_mib(mib);
  return okStatus();
}

// `topology: {level: nvlink-domain, required: true}`, or just the level.
Status readTopology(const YamlField& f, v1::JobSpec& s) {
  if (f.isScalar()) return applyScalar(f, s, setTopology);
  TESSERA_CHECK(f.onlyKeys({"level", "required"}));
  TESSERA_TRY(level, f.require("level"));
  TESSERA_CHECK(applyScalar(level, s, setTopology));
  return optionalBool(f, "required", [&s](bool required) { s.set_topology_required(required); });
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
  TESSERA_CHECK(optionalText(f, "name", [&s](const std::string& v) { s.set_name(v); }));
  TESSERA_CHECK(
      optionalText(f, "priority", [&s](const std::string& v) { s.set_priority_class(v); }));
  TESSERA_CHECK(optionalText(f, "user", [&s](const std::string& v) { s.set_user(v); }));
  TESSERA_CHECK(optionalText(f, "pool", [&s](const std::string& v) { s.set_pool(v); }));
  if (f.has("model")) {
    TESSERA_TRY(models, stringList(f.child("model")));
    for (const auto& m : models) s.add_gpu_models(m);
  }
  return okStatus();
}

Status readFlags(const YamlField& f, v1::JobSpec& s) {
  if (f.has("held") && f.has("hold")) return f.child("hold").error("give held: or hold:, not both");
  for (const char* key : {"held", "hold"})
    TESSERA_CHECK(optionalBool(f, key, [&s](bool held) { s.set_held(held); }));
  return optionalBool(f, "preemptible", [&s](bool preemptible) { s.set_preemptible(preemptible); });
}

Expected<v1::JobSpec> readJob(const YamlField& f) {
  TESSERA_CHECK(f.onlyKeys(kJobKeys));
  const int kinds =
      int(f.has("gpus")) + int(f.has("mig")) + int(f.has("fraction")) + int(f.has("mps"));
  if (auto p = gpuKindProblem(kinds, "gpus:, mig:, fraction: or mps:")) return f.error(*p);
  v1::JobSpec s;
  TESSERA_CHECK(readTexts(f, s));
  for (const auto& [key, set] : kScalarKeys)
    if (f.has(key)) TESSERA_CHECK(applyScalar(f.child(key), s, set));
  if (f.has("fraction")) TESSERA_CHECK(readFraction(f.child("fraction"), s));
  if (f.has("mps")) TESSERA_CHECK(readMps(f.child("mps"), s));
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

}  // namespace tessera::cli::ctl
