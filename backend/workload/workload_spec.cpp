#include "workload/workload_spec.h"

#include <set>

#include "core/strings.h"
#include "topology/yaml_reader.h"

namespace tessera {

const Team* Workload::team(std::string_view name) const {
  for (const auto& t : teams)
    if (t.name == name) return &t;
  return nullptr;
}

const PriorityClass* Workload::priorityClass(std::string_view name) const {
  for (const auto& p : priorityClasses)
    if (p.name == name) return &p;
  return nullptr;
}

std::optional<int64_t> parseMemoryMiB(std::string_view text) {
  text = trim(text);
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const auto n = parseInt(text.substr(0, digits));
  const std::string_view unit = text.substr(digits);
  int64_t perUnit = 0;
  if (unit == "M" || unit == "MiB")
    perUnit = 1;
  else if (unit == "G" || unit == "GiB")
    perUnit = 1024;
  constexpr int64_t kMost = int64_t{10} * 1024 * 1024;
  if (!n || perUnit == 0 || *n <= 0 || *n > kMost / perUnit) return std::nullopt;
  return int64_t{*n} * perUnit;
}

std::optional<Seconds> parseDuration(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (auto plain = parseInt(text))
    return *plain >= 0 && *plain <= Seconds{100} * 365 * 86400 ? std::optional<Seconds>(*plain)
                                                               : std::nullopt;
  Seconds total = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
    if (j == i || j == text.size()) return std::nullopt;
    auto n = parseInt(text.substr(i, j - i));
    if (!n) return std::nullopt;
    Seconds unit = 0;
    switch (text[j]) {
      case 's':
        unit = 1;
        break;
      case 'm':
        unit = 60;
        break;
      case 'h':
        unit = 3600;
        break;
      case 'd':
        unit = 86400;
        break;
      default:
        return std::nullopt;
    }
    // Bounded so that times never overflow: nothing an operator schedules is 100 years away.
    constexpr Seconds kLongest = Seconds{100} * 365 * 86400;
    if (*n < 0 || *n > kLongest / unit || total > kLongest - Seconds{*n} * unit)
      return std::nullopt;
    total += Seconds{*n} * unit;
    i = j + 1;
  }
  return total;
}

namespace {

class WorkloadReader {
 public:
  WorkloadReader(std::string file, const GpuCatalog& catalog)
      : file_(std::move(file)), catalog_(catalog) {}

  Expected<Workload> read(std::string_view text) {
    TESSERA_TRY(doc, parseYaml(text, file_));
    return read(doc, "");
  }

  Expected<Workload> read(const YAML::Node& doc, const std::string& path) {
    const YamlField root(doc, path, &file_);
    if (doc.IsNull()) return root.error("the file is empty (a workload starts with 'version: 1')");
    TESSERA_CHECK(root.onlyKeys({"version", "priority_classes", "teams", "jobs"}));
    TESSERA_TRY(version, root.intAt("version"));
    if (version != 1)
      return root.child("version").error("unsupported workload version " + std::to_string(version));
    if (root.has("priority_classes"))
      TESSERA_CHECK(readList(root.child("priority_classes"), &WorkloadReader::readClass));
    else
      w_.priorityClasses = defaultPriorityClasses();
    if (root.has("teams")) TESSERA_CHECK(readList(root.child("teams"), &WorkloadReader::readTeam));
    TESSERA_CHECK(checkTeamTree());
    if (root.has("jobs")) TESSERA_CHECK(readList(root.child("jobs"), &WorkloadReader::readJob));
    return std::move(w_);
  }

 private:
  std::string file_;
  const GpuCatalog& catalog_;
  Workload w_;
  std::set<JobId> jobIds_;
  std::map<std::string, YamlField> teamFields_;

  Status readList(const YamlField& list, Status (WorkloadReader::*fn)(const YamlField&)) {
    TESSERA_CHECK(list.expectSequence());
    for (size_t i = 0; i < list.size(); ++i) TESSERA_CHECK((this->*fn)(list.item(i)));
    return okStatus();
  }

  Status readClass(const YamlField& f) {
    TESSERA_CHECK(f.onlyKeys({"name", "value", "preemptible"}));
    PriorityClass p;
    TESSERA_TRY(name, f.stringAt("name"));
    if (w_.priorityClass(name))
      return f.child("name").error("duplicate priority class '" + name + "'");
    p.name = name;
    TESSERA_TRY(value, f.intAt("value", 0, 1'000'000));
    p.value = value;
    if (f.has("preemptible")) {
      TESSERA_TRY(b, f.child("preemptible").asBool());
      p.preemptibleByDefault = b;
    }
    w_.priorityClasses.push_back(p);
    return okStatus();
  }

  Expected<Quota> readQuota(const YamlField& f) {
    TESSERA_CHECK(f.onlyKeys({"guaranteed", "borrow", "lend"}));
    Quota q;
    TESSERA_TRY(g, f.intAt("guaranteed", 0, 10'000'000));
    q.guaranteed = g;
    if (f.has("borrow")) {
      TESSERA_TRY(b, f.intAt("borrow", 0, 10'000'000));
      q.borrowLimit = b;
    }
    if (f.has("lend")) {
      TESSERA_TRY(l, f.intAt("lend", 0, 10'000'000));
      if (l > q.guaranteed)
        return f.child("lend").error("cannot lend more than the guaranteed " +
                                     std::to_string(q.guaranteed));
      q.lendLimit = l;
    }
    return q;
  }

  Status readTeam(const YamlField& f) {
    TESSERA_CHECK(f.onlyKeys({"name", "parent", "weight", "quotas"}));
    Team t;
    TESSERA_TRY(name, f.stringAt("name"));
    if (name.empty()) return f.child("name").error("a team name must not be empty");
    if (w_.team(name)) return f.child("name").error("duplicate team '" + name + "'");
    t.name = name;
    if (f.has("parent")) {
      TESSERA_TRY(parent, f.stringAt("parent"));
      t.parent = parent;
    }
    if (f.has("weight")) {
      TESSERA_TRY(weight, f.doubleAt("weight"));
      if (!(weight > 0) || weight > 1e6) return f.child("weight").error("weight must be > 0");
      t.weight = weight;
    }
    if (f.has("quotas")) {
      const YamlField quotas = f.child("quotas");
      TESSERA_CHECK(quotas.expectMap());
      for (auto& [key, q] : quotas.entries()) {
        if (key != "*" && key.rfind("pool:", 0) != 0 && !catalog_.find(key))
          return q.error("quota key '" + key + "' is neither a GPU model, 'pool:NAME' nor '*'");
        TESSERA_TRY(quota, readQuota(q));
        const GpuModel* m = catalog_.find(key);
        t.quotas[m ? m->id : key] = quota;
      }
    }
    teamFields_.emplace(name, f);
    w_.teams.push_back(std::move(t));
    return okStatus();
  }

  // Parents exist and the tree has no cycle.
  Status checkTeamTree() {
    for (const auto& t : w_.teams) {
      std::set<std::string> seen{t.name};
      for (const Team* p = &t; !p->parent.empty();) {
        const YamlField& f = teamFields_.at(t.name);
        const Team* up = w_.team(p->parent);
        if (!up) return f.child("parent").error("unknown parent team '" + p->parent + "'");
        if (!seen.insert(up->name).second)
          return f.child("parent").error("team '" + t.name + "' is its own ancestor");
        p = up;
      }
    }
    return okStatus();
  }

  Status readGpuRequest(const YamlField& f, Job& j) {
    const int given =
        int(f.has("gpus")) + int(f.has("mig")) + int(f.has("fraction")) + int(f.has("mps"));
    // An MPS client runs on one GPU (or MIG instance) beside others: it cannot also hold whole
    // GPUs, an instance of its own or a time slice.
    if (given > 1) return f.error("give at most one of gpus:, mig:, fraction:, mps:");
    if (f.has("mps")) return readMps(f.child("mps"), j);
    if (f.has("gpus")) {
      TESSERA_TRY(n, f.intAt("gpus", 1, 64));
      j.perTask.kind = GpuRequest::Kind::Whole;
      j.perTask.gpus = n;
    } else if (f.has("mig")) {
      TESSERA_TRY(profile, f.stringAt("mig"));
      if (!anyModelHasProfile(profile))
        return f.child("mig").error("no GPU model in the catalog has MIG profile '" + profile +
                                    "'");
      j.perTask.kind = GpuRequest::Kind::Mig;
      j.perTask.migProfile = profile;
    } else if (f.has("fraction")) {
      const YamlField fr = f.child("fraction");
      TESSERA_CHECK(fr.onlyKeys({"milli", "vram_mib"}));
      TESSERA_TRY(milli, fr.intAt("milli", 1, 1000));
      j.perTask.kind = GpuRequest::Kind::Fraction;
      j.perTask.milli = milli;
      if (fr.has("vram_mib")) {
        TESSERA_TRY(vram, fr.intAt("vram_mib", 0, 10'000'000));
        j.perTask.vramMiB = vram;
      }
    }
    return okStatus();
  }

  // `mps: {threads: 1-100, memory: "8GiB" | memory_mib: 8192}`: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
  // and CUDA_MPS_PINNED_DEVICE_MEM_LIMIT. The limit is required, and must fit some GPU.
  Status readMps(const YamlField& f, Job& j) {
    TESSERA_CHECK(f.onlyKeys({"threads", "memory", "memory_mib"}));
    TESSERA_TRY(threads, f.intAt("threads", 1, 100));
    if (f.has("memory") == f.has("memory_mib"))
      return f.error(
          "give the pinned device memory limit as memory: \"8GiB\" or memory_mib: 8192 "
          "(exactly one): MPS does not isolate GPU memory otherwise");
    int64_t mib = 0;
    if (f.has("memory_mib")) {
      TESSERA_TRY(n, f.intAt("memory_mib", 1, 10'000'000));
      mib = n;
    } else {
      TESSERA_TRY(text, f.stringAt("memory"));
      const auto parsed = parseMemoryMiB(text);
      if (!parsed)
        return f.child("memory").error("memory '" + text +
                                       "' is not a size such as 512MiB, 8GiB or 8G");
      mib = *parsed;
    }
    if (const int64_t most = largestGpuMemoryMiB(); mib > most)
      return f.error("the MPS memory limit " + std::to_string(mib) +
                     " MiB is more than any GPU in the catalog has (" + std::to_string(most) +
                     " MiB)");
    j.perTask.kind = GpuRequest::Kind::Mps;
    j.perTask.mpsThreads = threads;
    j.perTask.vramMiB = mib;
    return okStatus();
  }

  int64_t largestGpuMemoryMiB() const {
    int64_t most = 0;
    for (const auto& m : catalog_.models())
      if (m->memoryMiB) most = std::max<int64_t>(most, *m->memoryMiB);
    return most;
  }

  bool anyModelHasProfile(const std::string& profile) const {
    for (const auto& m : catalog_.models())
      if (m->mig && m->mig->profileIndex(profile) >= 0) return true;
    return false;
  }

  Status readModelConstraint(const YamlField& f, Job& j) {
    if (f.has("model")) {
      TESSERA_TRY(names, f.child("model").asStringList());
      for (const auto& n : names) {
        const GpuModel* m = catalog_.find(n);
        if (!m) return f.child("model").error("unknown GPU model '" + n + "'");
        j.model.models.push_back(m->id);
      }
    }
    if (f.has("min_gpu_memory_gib")) {
      TESSERA_TRY(gib, f.intAt("min_gpu_memory_gib", 1, 100'000));
      j.model.minMemoryMiB = int64_t{gib} * 1024;
    }
    return okStatus();
  }

  Status readTopology(const YamlField& f, Job& j) {
    TESSERA_CHECK(f.onlyKeys({"level", "required"}));
    TESSERA_TRY(level, f.stringAt("level"));
    if (level == "node")
      j.topology.level = TopologyLevel::Node;
    else if (level == "nvlink-domain")
      j.topology.level = TopologyLevel::NvlinkDomain;
    else if (level == "leaf")
      j.topology.level = TopologyLevel::Leaf;
    else if (level == "spine")
      j.topology.level = TopologyLevel::Spine;
    else if (level == "any")
      j.topology.level = TopologyLevel::Cluster;
    else
      return f.child("level").error("level must be node, nvlink-domain, leaf, spine or any, got '" +
                                    level + "'");
    if (f.has("required")) {
      TESSERA_TRY(b, f.child("required").asBool());
      j.topology.required = b;
    }
    return okStatus();
  }

  Expected<Seconds> duration(const YamlField& f) {
    TESSERA_TRY(text, f.asString());
    auto d = parseDuration(text);
    if (!d)
      return f.error("bad duration '" + text + "' (seconds, or like 90s, 15m, 2h, 1h30m, 1d)");
    return *d;
  }

  Status readTimes(const YamlField& f, Job& j) {
    if (f.has("submit")) {
      TESSERA_TRY(t, duration(f.child("submit")));
      j.submitTime = t;
    }
    for (auto [key, out] : {std::pair{"runtime", &j.estimatedRuntime},
                            {"checkpoint_interval", &j.checkpointInterval},
                            {"last_checkpoint", &j.lastCheckpoint}}) {
      if (!f.has(key)) continue;
      TESSERA_TRY(t, duration(f.child(key)));
      *out = t;
    }
    return okStatus();
  }

  Status readJob(const YamlField& f) {
    TESSERA_CHECK(f.onlyKeys({"id",
                              "name",
                              "team",
                              "priority",
                              "preemptible",
                              "class",
                              "tasks",
                              "gpus",
                              "mig",
                              "fraction",
                              "mps",
                              "user",
                              "cpus",
                              "memory_gib",
                              "model",
                              "min_gpu_memory_gib",
                              "pool",
                              "topology",
                              "submit",
                              "runtime",
                              "checkpoint_interval",
                              "last_checkpoint",
                              "hold",
                              "queue_rank",
                              "pin"}));
    Job j;
    TESSERA_TRY(id, f.intAt("id", 1));
    j.id = static_cast<JobId>(id);
    if (!jobIds_.insert(j.id).second)
      return f.child("id").error("duplicate job id " + std::to_string(id));
    j.name = f.has("name") ? f.child("name").node().Scalar() : "job-" + std::to_string(id);
    TESSERA_TRY(team, f.stringAt("team"));
    if (!w_.team(team)) return f.child("team").error("unknown team '" + team + "'");
    j.team = team;
    if (f.has("user")) {
      TESSERA_TRY(user, f.stringAt("user"));
      j.user = user;
    }
    TESSERA_TRY(priority, f.stringAt("priority"));
    const PriorityClass* pc = w_.priorityClass(priority);
    if (!pc) return f.child("priority").error("unknown priority class '" + priority + "'");
    j.priorityClass = pc->name;
    j.priority = pc->value;
    j.preemptible = pc->preemptibleByDefault;
    if (f.has("preemptible")) {
      TESSERA_TRY(b, f.child("preemptible").asBool());
      j.preemptible = b;
    }
    if (f.has("class")) TESSERA_CHECK(readClassOf(f.child("class"), j));
    if (f.has("tasks")) {
      TESSERA_TRY(tasks, f.intAt("tasks", 1, 100'000));
      j.tasks = tasks;
    }
    TESSERA_CHECK(readGpuRequest(f, j));
    if (f.has("cpus")) {
      TESSERA_TRY(cpus, f.intAt("cpus", 0, 1 << 20));
      j.cpusPerTask = cpus;
    }
    if (f.has("memory_gib")) {
      TESSERA_TRY(gib, f.intAt("memory_gib", 0, 1 << 24));
      j.memoryMiBPerTask = int64_t{gib} * 1024;
    }
    TESSERA_CHECK(readModelConstraint(f, j));
    if (f.has("pool")) {
      TESSERA_TRY(pool, f.stringAt("pool"));
      j.pool = pool;
    }
    if (f.has("topology")) TESSERA_CHECK(readTopology(f.child("topology"), j));
    TESSERA_CHECK(readTimes(f, j));
    if (f.has("hold")) {
      TESSERA_TRY(b, f.child("hold").asBool());
      j.held = b;
    }
    if (f.has("queue_rank")) {
      TESSERA_TRY(rank, f.intAt("queue_rank"));
      j.queueRank = rank;
    }
    if (f.has("pin")) {
      const YamlField pin = f.child("pin");
      TESSERA_CHECK(pin.onlyKeys({"gpus", "nodes"}));
      if (pin.has("gpus")) {
        TESSERA_TRY(gpus, pin.child("gpus").asStringList());
        j.pinGpus = gpus;
      }
      if (pin.has("nodes")) {
        TESSERA_TRY(nodes, pin.child("nodes").asStringList());
        j.pinNodes = nodes;
      }
    }
    // The limits every submit path applies (core/input_limits.h), here with the file's place.
    if (auto fields = checkJobFields(j); !fields)
      return f.error(fields.error().where.field + ": " + fields.error().message);
    w_.jobSources[j.id] = f.location();
    w_.jobs.push_back(std::move(j));
    return okStatus();
  }

  Status readClassOf(const YamlField& f, Job& j) {
    TESSERA_TRY(c, f.asString());
    if (c == "training")
      j.workloadClass = WorkloadClass::Training;
    else if (c == "inference")
      j.workloadClass = WorkloadClass::Inference;
    else if (c == "interactive")
      j.workloadClass = WorkloadClass::Interactive;
    else if (c == "batch")
      j.workloadClass = WorkloadClass::Batch;
    else
      return f.error("class must be training, inference, interactive or batch, got '" + c + "'");
    return okStatus();
  }
};

}  // namespace

Error Workload::atJobSource(JobId id, Error refusal) const {
  if (const auto it = jobSources.find(id); it != jobSources.end()) refusal.where = it->second;
  return refusal;
}

Expected<Workload> loadWorkload(std::string_view text, const std::string& fileName,
                                const GpuCatalog* catalog) {
  WorkloadReader reader(fileName, catalog ? *catalog : GpuCatalog::builtin());
  return reader.read(text);
}

Expected<Workload> loadWorkloadNode(const YAML::Node& doc, const std::string& fileName,
                                    const std::string& fieldPath, const GpuCatalog* catalog) {
  WorkloadReader reader(fileName, catalog ? *catalog : GpuCatalog::builtin());
  return reader.read(doc, fieldPath);
}

namespace embedded {
std::string_view demoWorkloadYaml();
}

std::string_view demoWorkloadYaml() {
  return embedded::demoWorkloadYaml();
}

Expected<Workload> demoWorkload(const GpuCatalog* catalog) {
  return loadWorkload(demoWorkloadYaml(), "demo-workload.yaml (built in)", catalog);
}

Expected<Workload> loadWorkloadFile(const std::string& path, const GpuCatalog* catalog) {
  TESSERA_TRY(text, readTextFile(path));
  return loadWorkload(text, path, catalog);
}

}  // namespace tessera
