#include "store/job_codec.h"

#include <array>

namespace tessera {
namespace {

using nlohmann::json;

template <typename E, size_t N>
std::optional<E> byName(std::string_view name, const std::array<E, N>& all,
                        const char* (*nameOf)(E)) {
  for (E e : all)
    if (name == nameOf(e)) return e;
  return std::nullopt;
}

constexpr std::array kClasses{WorkloadClass::Training, WorkloadClass::Inference,
                              WorkloadClass::Interactive, WorkloadClass::Batch};
constexpr std::array kLevels{TopologyLevel::Gpu,  TopologyLevel::Node,  TopologyLevel::NvlinkDomain,
                             TopologyLevel::Leaf, TopologyLevel::Spine, TopologyLevel::Cluster};
constexpr std::array kStates{JobState::Pending,   JobState::Admitted, JobState::Running,
                             JobState::Completed, JobState::Failed,   JobState::Cancelled,
                             JobState::Preempted};

const char* requestKindName(GpuRequest::Kind k) {
  switch (k) {
    case GpuRequest::Kind::None:
      return "none";
    case GpuRequest::Kind::Whole:
      return "whole";
    case GpuRequest::Kind::Mig:
      return "mig";
    case GpuRequest::Kind::Fraction:
      return "fraction";
    case GpuRequest::Kind::Mps:
      return "mps";
  }
  return "?";
}
constexpr std::array kKinds{GpuRequest::Kind::None, GpuRequest::Kind::Whole, GpuRequest::Kind::Mig,
                            GpuRequest::Kind::Fraction, GpuRequest::Kind::Mps};

void putOptional(json& out, const char* key, const std::optional<Seconds>& v) {
  if (v) out[key] = *v;
}

// Reads one field with a message naming it; `T` is what the field must hold.
template <typename T>
Status read(const json& j, const char* key, T& out, bool required = true) {
  const auto it = j.find(key);
  if (it == j.end()) {
    if (!required) return okStatus();
    return Error{std::string("stored job: field '") + key + "' is missing", {}};
  }
  try {
    out = it->get<T>();
  } catch (const json::exception&) {
    return Error{std::string("stored job: field '") + key + "' has the wrong type", {}};
  }
  return okStatus();
}

template <typename E, size_t N>
Status readEnum(const json& j, const char* key, E& out, const std::array<E, N>& all,
                const char* (*nameOf)(E)) {
  std::string name;
  TESSERA_CHECK(read(j, key, name));
  const auto e = byName(name, all, nameOf);
  if (!e) return Error{std::string("stored job: field '") + key + "' is '" + name + "'", {}};
  out = *e;
  return okStatus();
}

Status readOptional(const json& j, const char* key, std::optional<Seconds>& out) {
  if (!j.contains(key)) return okStatus();
  Seconds v = 0;
  TESSERA_CHECK(read(j, key, v));
  out = v;
  return okStatus();
}

}  // namespace

JobState jobStateFromName(std::string_view name, bool* ok) {
  const auto s = byName(name, kStates, jobStateName);
  if (ok) *ok = s.has_value();
  return s.value_or(JobState::Pending);
}

namespace {

json launchToJson(const JobLaunch& l) {
  json j = json::object();
  const auto put = [&j](const char* key, const std::string& v) {
    if (!v.empty()) j[key] = v;
  };
  put("command", l.command);
  put("script", l.script);
  put("work_dir", l.workDir);
  put("output", l.output);
  put("error", l.error);
  put("account", l.account);
  put("partition", l.partition);
  if (l.timeLimitMinutes) j["time_limit"] = l.timeLimitMinutes;
  return j;
}

Status launchFromJson(const json& j, JobLaunch& l) {
  if (!j.is_object()) return Error{"stored job: launch is not a JSON object", {}};
  TESSERA_CHECK(read(j, "command", l.command, false));
  TESSERA_CHECK(read(j, "script", l.script, false));
  TESSERA_CHECK(read(j, "work_dir", l.workDir, false));
  TESSERA_CHECK(read(j, "output", l.output, false));
  TESSERA_CHECK(read(j, "error", l.error, false));
  TESSERA_CHECK(read(j, "account", l.account, false));
  TESSERA_CHECK(read(j, "partition", l.partition, false));
  return read(j, "time_limit", l.timeLimitMinutes, false);
}

}  // namespace

json jobToJson(const Job& job) {
  json j;
  j["id"] = job.id;
  j["name"] = job.name;
  j["team"] = job.team;
  if (!job.user.empty()) j["user"] = job.user;
  j["class"] = job.priorityClass;
  j["preemptible"] = job.preemptible;
  j["kind"] = workloadClassName(job.workloadClass);
  j["tasks"] = job.tasks;
  j["request"] = requestKindName(job.perTask.kind);
  if (job.perTask.gpus) j["gpus"] = job.perTask.gpus;
  if (!job.perTask.migProfile.empty()) j["mig"] = job.perTask.migProfile;
  if (job.perTask.milli) j["milli"] = job.perTask.milli;
  if (job.perTask.vramMiB) j["vram"] = job.perTask.vramMiB;
  if (job.perTask.mpsThreads) j["mps_threads"] = job.perTask.mpsThreads;
  if (job.cpusPerTask) j["cpus"] = job.cpusPerTask;
  if (job.memoryMiBPerTask) j["memory"] = job.memoryMiBPerTask;
  if (!job.model.models.empty()) j["models"] = job.model.models;
  if (job.model.minMemoryMiB) j["min_memory"] = job.model.minMemoryMiB;
  if (!job.pool.empty()) j["pool"] = job.pool;
  j["topology"] = topologyLevelName(job.topology.level);
  if (job.topology.required) j["topology_required"] = true;
  j["submit"] = job.submitTime;
  putOptional(j, "runtime", job.estimatedRuntime);
  putOptional(j, "checkpoint_every", job.checkpointInterval);
  putOptional(j, "last_checkpoint", job.lastCheckpoint);
  if (job.held) j["held"] = true;
  if (job.queueRank) j["rank"] = job.queueRank;
  if (!job.pinGpus.empty()) j["pin_gpus"] = job.pinGpus;
  if (!job.pinNodes.empty()) j["pin_nodes"] = job.pinNodes;
  if (job.launch != JobLaunch{}) j["launch"] = launchToJson(job.launch);
  return j;
}

Expected<Job> jobFromJson(const json& j) {
  if (!j.is_object()) return Error{"stored job: not a JSON object", {}};
  Job job;
  TESSERA_CHECK(read(j, "id", job.id));
  TESSERA_CHECK(read(j, "name", job.name));
  TESSERA_CHECK(read(j, "team", job.team));
  TESSERA_CHECK(read(j, "user", job.user, false));
  TESSERA_CHECK(read(j, "class", job.priorityClass));
  TESSERA_CHECK(read(j, "preemptible", job.preemptible));
  TESSERA_CHECK(readEnum(j, "kind", job.workloadClass, kClasses, workloadClassName));
  TESSERA_CHECK(read(j, "tasks", job.tasks));
  TESSERA_CHECK(readEnum(j, "request", job.perTask.kind, kKinds, requestKindName));
  TESSERA_CHECK(read(j, "gpus", job.perTask.gpus, false));
  TESSERA_CHECK(read(j, "mig", job.perTask.migProfile, false));
  TESSERA_CHECK(read(j, "milli", job.perTask.milli, false));
  TESSERA_CHECK(read(j, "vram", job.perTask.vramMiB, false));
  TESSERA_CHECK(read(j, "mps_threads", job.perTask.mpsThreads, false));
  TESSERA_CHECK(read(j, "cpus", job.cpusPerTask, false));
  TESSERA_CHECK(read(j, "memory", job.memoryMiBPerTask, false));
  TESSERA_CHECK(read(j, "models", job.model.models, false));
  TESSERA_CHECK(read(j, "min_memory", job.model.minMemoryMiB, false));
  TESSERA_CHECK(read(j, "pool", job.pool, false));
  TESSERA_CHECK(readEnum(j, "topology", job.topology.level, kLevels, topologyLevelName));
  TESSERA_CHECK(read(j, "topology_required", job.topology.required, false));
  TESSERA_CHECK(read(j, "submit", job.submitTime));
  TESSERA_CHECK(readOptional(j, "runtime", job.estimatedRuntime));
  TESSERA_CHECK(readOptional(j, "checkpoint_every", job.checkpointInterval));
  TESSERA_CHECK(readOptional(j, "last_checkpoint", job.lastCheckpoint));
  TESSERA_CHECK(read(j, "held", job.held, false));
  TESSERA_CHECK(read(j, "rank", job.queueRank, false));
  TESSERA_CHECK(read(j, "pin_gpus", job.pinGpus, false));
  TESSERA_CHECK(read(j, "pin_nodes", job.pinNodes, false));
  if (j.contains("launch")) TESSERA_CHECK(launchFromJson(j["launch"], job.launch));
  return job;
}

json runToJson(const Cluster& cluster, const JobRecord& record) {
  json tasks = json::array();
  for (const auto& t : record.placement->tasks) {
    json task;
    task["node"] = cluster.node(t.node).name;
    json gpus = json::array();
    for (GpuId g : t.gpus) gpus.push_back(cluster.gpu(g).index);
    task["gpus"] = std::move(gpus);
    if (t.migStart >= 0) task["mig_start"] = t.migStart;
    tasks.push_back(std::move(task));
  }
  return json{
      {"tasks", std::move(tasks)}, {"started", record.startTime}, {"kept", record.workKept}};
}

Expected<StoredRun> runFromJson(const Cluster& cluster, const json& j) {
  if (!j.is_object()) return Error{"stored run: not a JSON object", {}};
  StoredRun run;
  TESSERA_CHECK(read(j, "started", run.started));
  TESSERA_CHECK(read(j, "kept", run.workKept));
  const auto tasks = j.find("tasks");
  if (tasks == j.end() || !tasks->is_array())
    return Error{"stored run: field 'tasks' is missing", {}};
  for (const json& t : *tasks) {
    std::string nodeName;
    std::vector<int> gpus;
    TESSERA_CHECK(read(t, "node", nodeName));
    TESSERA_CHECK(read(t, "gpus", gpus));
    Engine::RestoredTask task;
    TESSERA_CHECK(read(t, "mig_start", task.migStart, false));
    const Node* n = cluster.findNode(nodeName);
    if (!n) return Error{"stored run: unknown node '" + nodeName + "'", {}};
    task.node = n->id;
    for (int i : gpus) {
      if (i < 0 || i >= n->gpuCount())
        return Error{"stored run: node " + nodeName + " has no GPU " + std::to_string(i), {}};
      task.gpus.push_back(n->firstGpu + static_cast<GpuId>(i));
    }
    run.tasks.push_back(std::move(task));
  }
  return run;
}

json textToJson(const Text& t) {
  if (t.isLiteral()) return std::string(t.patternText());
  json args = json::array();
  for (const Text& a : t.args()) args.push_back(textToJson(a));
  return json{{"t", std::string(t.patternText())}, {"a", std::move(args)}};
}

namespace {
// Deep enough for any sentence the engine builds (lists nest log2(n) deep); a row nested deeper
// was not written by us.
constexpr int kMaxStoredTextDepth = 32;

Expected<Text> textFromJson(const json& j, const std::string& path, int depth) {
  if (j.is_string()) return literal(j.get<std::string>());
  if (depth >= kMaxStoredTextDepth) return Error{path + ": nested too deep", {}};
  if (!j.is_object() || !j.contains("t") || !j["t"].is_string())
    return Error{path + ": expected a string or {\"t\": template, \"a\": [...]}", {}};
  std::vector<Text> args;
  if (j.contains("a")) {
    if (!j["a"].is_array()) return Error{path + ".a: expected an array", {}};
    for (size_t i = 0; i < j["a"].size(); ++i) {
      TESSERA_TRY(arg, textFromJson(j["a"][i], path + ".a[" + std::to_string(i) + "]", depth + 1));
      args.push_back(std::move(arg));
    }
  }
  return Text::pattern(j["t"].get<std::string>(), std::move(args));
}
}  // namespace

Expected<Text> textFromJson(const json& j) {
  return textFromJson(j, "reason_text", 0);
}

Text storedReason(const Statement& row, int english, int sentence) {
  if (!row.isNull(sentence))
    if (auto text = parseReasonText(row.textAt(sentence))) return std::move(*text);
  return literal(row.textAt(english));
}

Expected<Text> parseReasonText(const std::string& stored) {
  json j = json::parse(stored, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Error{"reason_text: not valid JSON", {}};
  return textFromJson(j);
}

}  // namespace tessera
