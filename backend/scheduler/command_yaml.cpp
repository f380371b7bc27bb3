#include "scheduler/command_yaml.h"

#include <set>

#include "scheduler/reservation.h"
#include "topology/gpu_catalog.h"

namespace tessera {

std::string formatDuration(Seconds s) {
  if (s <= 0) return "0";
  std::string out;
  const std::pair<Seconds, char> units[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
  for (auto [size, letter] : units) {
    if (s >= size) {
      out += std::to_string(s / size) + letter;
      s %= size;
    }
  }
  return out;
}

namespace {

const char* const kCommandKeys[] = {"submit",
                                    "cancel",
                                    "hold",
                                    "release",
                                    "set_priority",
                                    "move",
                                    "pin",
                                    "preempt",
                                    "repartition",
                                    "drain",
                                    "undrain",
                                    "set_quota",
                                    "create_reservation",
                                    "delete_reservation"};

Expected<JobId> jobIdOf(const YamlField& f) {
  TESSERA_TRY(id, f.asInt(1));
  return static_cast<JobId>(id);
}

Expected<JobId> jobIdAt(const YamlField& f, const std::string& key) {
  TESSERA_TRY(child, f.require(key));
  return jobIdOf(child);
}

Expected<std::vector<std::string>> optionalList(const YamlField& f, const std::string& key) {
  if (!f.has(key)) return std::vector<std::string>{};
  return f.child(key).asStringList();
}

// A field path inside the synthetic workload document, mapped back to the command's own path.
const std::string kSyntheticRoot = "\x01";

Error relocate(Error e, const YamlField& jobField) {
  const std::string prefix = kSyntheticRoot + ".jobs[0]";
  std::string& field = e.where.field;
  if (field.rfind(prefix, 0) == 0)
    field = jobField.path() + field.substr(prefix.size());
  else if (field.rfind(kSyntheticRoot, 0) == 0)
    field = jobField.path();
  return e;
}

Expected<Command> readSubmit(const YamlField& f, const Workload* tenants) {
  Workload fallback;
  if (!tenants) {
    fallback.priorityClasses = defaultPriorityClasses();
    if (f.has("team") && f.child("team").isScalar()) {
      Team t;
      t.name = f.child("team").node().Scalar();
      if (!t.name.empty()) fallback.teams.push_back(t);
    }
    tenants = &fallback;
  }
  TESSERA_TRY(job, jobFromYaml(f, *tenants));
  return Command{cmd::Submit{std::move(job)}};
}

Expected<Command> readMove(const YamlField& f) {
  TESSERA_CHECK(f.expectMap());
  TESSERA_CHECK(f.onlyKeys({"job", "to", "before"}));
  cmd::Move m;
  TESSERA_TRY(job, jobIdAt(f, "job"));
  m.job = job;
  const std::string to = f.has("to") ? f.child("to").node().Scalar() : std::string("top");
  if (to == "top") {
    m.to = cmd::Move::To::Top;
  } else if (to == "bottom") {
    m.to = cmd::Move::To::Bottom;
  } else if (to == "before") {
    m.to = cmd::Move::To::Before;
    if (!f.has("before")) return f.error("to: before needs before: JOB");
  } else {
    return f.child("to").error("to must be top, bottom or before, got '" + to + "'");
  }
  if (f.has("before")) {
    if (m.to != cmd::Move::To::Before)
      return f.child("before").error("before: is only meaningful with to: before");
    TESSERA_TRY(before, jobIdOf(f.child("before")));
    m.before = before;
  }
  return Command{m};
}

Expected<Command> readPin(const YamlField& f) {
  TESSERA_CHECK(f.expectMap());
  TESSERA_CHECK(f.onlyKeys({"job", "gpus", "nodes"}));
  cmd::Pin p;
  TESSERA_TRY(job, jobIdAt(f, "job"));
  p.job = job;
  TESSERA_TRY(gpus, optionalList(f, "gpus"));
  TESSERA_TRY(nodes, optionalList(f, "nodes"));
  p.gpus = std::move(gpus);
  p.nodes = std::move(nodes);
  return Command{p};
}

Expected<Command> readRepartition(const YamlField& f) {
  TESSERA_CHECK(f.expectMap());
  TESSERA_CHECK(f.onlyKeys({"gpu", "layout", "force"}));
  cmd::Repartition r;
  TESSERA_TRY(gpu, f.stringAt("gpu"));
  TESSERA_TRY(layout, f.stringAt("layout"));
  r.gpu = gpu;
  r.layout = layout;
  if (f.has("force")) {
    TESSERA_TRY(force, f.child("force").asBool());
    r.force = force;
  }
  return Command{r};
}

Expected<Command> readDrain(const YamlField& f) {
  if (f.isScalar()) {
    TESSERA_TRY(node, f.asString());
    return Command{cmd::Drain{node, {}}};
  }
  TESSERA_CHECK(f.expectMap());
  TESSERA_CHECK(f.onlyKeys({"node", "reason"}));
  cmd::Drain d;
  TESSERA_TRY(node, f.stringAt("node"));
  d.node = node;
  if (f.has("reason")) {
    TESSERA_TRY(reason, f.child("reason").asString());
    d.reason = literal(reason);
  }
  return Command{d};
}

Expected<Command> readSetQuota(const YamlField& f) {
  TESSERA_CHECK(f.expectMap());
  TESSERA_CHECK(f.onlyKeys({"team", "key", "guaranteed", "borrow", "lend"}));
  cmd::SetQuota q;
  TESSERA_TRY(team, f.stringAt("team"));
  TESSERA_TRY(key, f.stringAt("key"));
  q.team = team;
  if (key == "*" || key.rfind("pool:", 0) == 0) {
    q.key = key;
  } else if (const GpuModel* m = GpuCatalog::builtin().find(key)) {
    q.key = m->id;
  } else {
    return f.child("key").error("quota key '" + key +
                                "' is neither a GPU model, 'pool:NAME' nor '*'");
  }
  TESSERA_TRY(g, f.intAt("guaranteed", 0, 10'000'000));
  q.quota.guaranteed = g;
  if (f.has("borrow")) {
    TESSERA_TRY(b, f.intAt("borrow", 0, 10'000'000));
    q.quota.borrowLimit = b;
  }
  if (f.has("lend")) {
    TESSERA_TRY(l, f.intAt("lend", 0, 10'000'000));
    if (l > g)
      return f.child("lend").error("cannot lend more than the guaranteed " + std::to_string(g));
    q.quota.lendLimit = l;
  }
  return Command{q};
}

Expected<Command> readCreateReservation(const YamlField& f) {
  TESSERA_CHECK(f.expectMap());
  TESSERA_CHECK(f.onlyKeys({"id", "nodes", "from", "until", "team"}));
  cmd::CreateReservation r;
  TESSERA_TRY(id, f.stringAt("id"));
  if (id.empty()) return f.child("id").error("a reservation id must not be empty");
  r.id = id;
  TESSERA_TRY(nodesField, f.require("nodes"));
  TESSERA_TRY(nodes, nodesField.asStringList());
  if (nodes.empty()) return nodesField.error("a reservation needs at least one node");
  r.nodes = std::move(nodes);
  if (f.has("from")) {
    TESSERA_TRY(from, durationOf(f.child("from")));
    r.from = from;
  }
  r.until = kForever;
  if (f.has("until")) {
    TESSERA_TRY(until, durationOf(f.child("until")));
    if (until <= r.from)
      return f.child("until").error("until must be after from (" + formatDuration(r.from) + ")");
    r.until = until;
  }
  if (f.has("team")) {
    TESSERA_TRY(team, f.stringAt("team"));
    r.team = team;
  }
  return Command{r};
}

Expected<Command> readSetPriority(const YamlField& f) {
  TESSERA_CHECK(f.expectMap());
  TESSERA_CHECK(f.onlyKeys({"job", "class"}));
  cmd::SetPriority p;
  TESSERA_TRY(job, jobIdAt(f, "job"));
  TESSERA_TRY(cls, f.stringAt("class"));
  p.job = job;
  p.priorityClass = cls;
  return Command{p};
}

YAML::Node flowMap() {
  YAML::Node n(YAML::NodeType::Map);
  n.SetStyle(YAML::EmitterStyle::Flow);
  return n;
}

YAML::Node flowList(const std::vector<std::string>& items) {
  YAML::Node n(YAML::NodeType::Sequence);
  n.SetStyle(YAML::EmitterStyle::Flow);
  for (const auto& s : items) n.push_back(s);
  return n;
}

}  // namespace

YAML::Node tenantsToYaml(const std::vector<PriorityClass>& classes,
                         const std::vector<Team>& teams) {
  YAML::Node doc(YAML::NodeType::Map);
  doc["version"] = 1;
  YAML::Node classList(YAML::NodeType::Sequence);
  for (const auto& pc : classes) {
    YAML::Node n = flowMap();
    n["name"] = pc.name;
    n["value"] = pc.value;
    n["preemptible"] = pc.preemptibleByDefault;
    classList.push_back(n);
  }
  doc["priority_classes"] = classList;
  YAML::Node teamList(YAML::NodeType::Sequence);
  for (const auto& t : teams) {
    YAML::Node n(YAML::NodeType::Map);
    n["name"] = t.name;
    if (!t.parent.empty()) n["parent"] = t.parent;
    n["weight"] = t.weight;
    if (!t.quotas.empty()) {
      YAML::Node qs(YAML::NodeType::Map);
      for (const auto& [key, q] : t.quotas) {
        YAML::Node qn = flowMap();
        qn["guaranteed"] = q.guaranteed;
        qn["borrow"] = q.borrowLimit;
        if (q.lendLimit >= 0) qn["lend"] = q.lendLimit;
        qs[key] = qn;
      }
      n["quotas"] = qs;
    }
    teamList.push_back(n);
  }
  doc["teams"] = teamList;
  return doc;
}

Expected<Job> jobFromYaml(const YamlField& f, const Workload& tenants) {
  TESSERA_CHECK(f.expectMap());
  YAML::Node doc = tenantsToYaml(tenants.priorityClasses, tenants.teams);
  YAML::Node jobs(YAML::NodeType::Sequence);
  jobs.push_back(f.node());
  doc["jobs"] = jobs;
  auto w = loadWorkloadNode(doc, f.location().file, kSyntheticRoot);
  if (!w) return relocate(w.error(), f);
  if (w->jobs.size() != 1) return f.error("expected one job");
  return w->jobs.front();
}

YAML::Node jobToYamlNode(const Job& j) {
  YAML::Node n(YAML::NodeType::Map);
  n["id"] = j.id;
  n["name"] = j.name;
  n["team"] = j.team;
  if (!j.user.empty()) n["user"] = j.user;
  n["priority"] = j.priorityClass;
  n["preemptible"] = j.preemptible;
  n["class"] = workloadClassName(j.workloadClass);
  n["tasks"] = j.tasks;
  switch (j.perTask.kind) {
    case GpuRequest::Kind::Whole:
      n["gpus"] = j.perTask.gpus;
      break;
    case GpuRequest::Kind::Mig:
      n["mig"] = j.perTask.migProfile;
      break;
    case GpuRequest::Kind::Fraction: {
      YAML::Node fr = flowMap();
      fr["milli"] = j.perTask.milli;
      if (j.perTask.vramMiB > 0) fr["vram_mib"] = j.perTask.vramMiB;
      n["fraction"] = fr;
      break;
    }
    case GpuRequest::Kind::Mps: {
      YAML::Node mps = flowMap();
      mps["threads"] = j.perTask.mpsThreads;
      mps["memory_mib"] = j.perTask.vramMiB;
      n["mps"] = mps;
      break;
    }
    case GpuRequest::Kind::None:
      break;
  }
  if (j.cpusPerTask > 0) n["cpus"] = j.cpusPerTask;
  if (j.memoryMiBPerTask > 0) n["memory_gib"] = (j.memoryMiBPerTask + 1023) / 1024;
  if (!j.model.models.empty()) n["model"] = flowList(j.model.models);
  if (j.model.minMemoryMiB > 0) n["min_gpu_memory_gib"] = (j.model.minMemoryMiB + 1023) / 1024;
  if (!j.pool.empty()) n["pool"] = j.pool;
  if (j.topology.level != TopologyLevel::Cluster || j.topology.required) {
    YAML::Node t = flowMap();
    t["level"] = topologyConstraintName(j.topology.level);
    t["required"] = j.topology.required;
    n["topology"] = t;
  }
  n["submit"] = formatDuration(j.submitTime);
  if (j.estimatedRuntime) n["runtime"] = formatDuration(*j.estimatedRuntime);
  if (j.checkpointInterval) n["checkpoint_interval"] = formatDuration(*j.checkpointInterval);
  if (j.lastCheckpoint) n["last_checkpoint"] = formatDuration(*j.lastCheckpoint);
  if (j.held) n["hold"] = true;
  if (j.queueRank != 0) n["queue_rank"] = j.queueRank;
  if (!j.pinGpus.empty() || !j.pinNodes.empty()) {
    YAML::Node pin = flowMap();
    if (!j.pinGpus.empty()) pin["gpus"] = flowList(j.pinGpus);
    if (!j.pinNodes.empty()) pin["nodes"] = flowList(j.pinNodes);
    n["pin"] = pin;
  }
  return n;
}

Expected<Command> commandFromYaml(const YamlField& f) {
  return commandFromYaml(f, nullptr);
}

Expected<Command> commandFromYaml(const YamlField& f, const Workload* tenants) {
  std::string known;
  for (const char* k : kCommandKeys) known += std::string(known.empty() ? "" : ", ") + k;
  if (!f.isMap() || f.size() != 1)
    return f.error("a command is a map with exactly one key, one of: " + known);
  const auto entries = f.entries();
  const auto& [name, arg] = entries.front();
  if (name == "submit") return readSubmit(arg, tenants);
  if (name == "cancel") {
    TESSERA_TRY(id, jobIdOf(arg));
    return Command{cmd::Cancel{id}};
  }
  if (name == "hold") {
    TESSERA_TRY(id, jobIdOf(arg));
    return Command{cmd::Hold{id}};
  }
  if (name == "release") {
    TESSERA_TRY(id, jobIdOf(arg));
    return Command{cmd::Release{id}};
  }
  if (name == "preempt") {
    TESSERA_TRY(id, jobIdOf(arg));
    return Command{cmd::Preempt{id}};
  }
  if (name == "set_priority") return readSetPriority(arg);
  if (name == "move") return readMove(arg);
  if (name == "pin") return readPin(arg);
  if (name == "repartition") return readRepartition(arg);
  if (name == "drain") return readDrain(arg);
  if (name == "undrain") {
    TESSERA_TRY(node, arg.asString());
    return Command{cmd::Undrain{node}};
  }
  if (name == "set_quota") return readSetQuota(arg);
  if (name == "create_reservation") return readCreateReservation(arg);
  if (name == "delete_reservation") {
    TESSERA_TRY(id, arg.asString());
    return Command{cmd::DeleteReservation{id}};
  }
  return arg.error("unknown command '" + name + "' (known: " + known + ")");
}

YAML::Node commandToYamlNode(const Command& c) {
  YAML::Node out = flowMap();
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, cmd::Submit>) {
          YAML::Node j = jobToYamlNode(v.job);
          j.SetStyle(YAML::EmitterStyle::Flow);
          out["submit"] = j;
        } else if constexpr (std::is_same_v<T, cmd::Cancel>) {
          out["cancel"] = v.job;
        } else if constexpr (std::is_same_v<T, cmd::Hold>) {
          out["hold"] = v.job;
        } else if constexpr (std::is_same_v<T, cmd::Release>) {
          out["release"] = v.job;
        } else if constexpr (std::is_same_v<T, cmd::Preempt>) {
          out["preempt"] = v.job;
        } else if constexpr (std::is_same_v<T, cmd::SetPriority>) {
          YAML::Node m = flowMap();
          m["job"] = v.job;
          m["class"] = v.priorityClass;
          out["set_priority"] = m;
        } else if constexpr (std::is_same_v<T, cmd::Move>) {
          YAML::Node m = flowMap();
          m["job"] = v.job;
          m["to"] = v.to == cmd::Move::To::Top      ? "top"
                    : v.to == cmd::Move::To::Bottom ? "bottom"
                                                    : "before";
          if (v.to == cmd::Move::To::Before) m["before"] = v.before;
          out["move"] = m;
        } else if constexpr (std::is_same_v<T, cmd::Pin>) {
          YAML::Node m = flowMap();
          m["job"] = v.job;
          m["gpus"] = flowList(v.gpus);
          m["nodes"] = flowList(v.nodes);
          out["pin"] = m;
        } else if constexpr (std::is_same_v<T, cmd::Repartition>) {
          YAML::Node m = flowMap();
          m["gpu"] = v.gpu;
          m["layout"] = v.layout;
          m["force"] = v.force;
          out["repartition"] = m;
        } else if constexpr (std::is_same_v<T, cmd::Drain>) {
          YAML::Node m = flowMap();
          m["node"] = v.node;
          if (!v.reason.empty()) m["reason"] = v.reason.english();
          out["drain"] = m;
        } else if constexpr (std::is_same_v<T, cmd::Undrain>) {
          out["undrain"] = v.node;
        } else if constexpr (std::is_same_v<T, cmd::SetQuota>) {
          YAML::Node m = flowMap();
          m["team"] = v.team;
          m["key"] = v.key;
          m["guaranteed"] = v.quota.guaranteed;
          m["borrow"] = v.quota.borrowLimit;
          if (v.quota.lendLimit >= 0) m["lend"] = v.quota.lendLimit;
          out["set_quota"] = m;
        } else if constexpr (std::is_same_v<T, cmd::CreateReservation>) {
          YAML::Node m = flowMap();
          m["id"] = v.id;
          m["nodes"] = flowList(v.nodes);
          m["from"] = formatDuration(v.from);
          if (v.until < kForever) m["until"] = formatDuration(v.until);
          if (!v.team.empty()) m["team"] = v.team;
          out["create_reservation"] = m;
        } else if constexpr (std::is_same_v<T, cmd::DeleteReservation>) {
          out["delete_reservation"] = v.id;
        }
      },
      c);
  return out;
}

std::string commandToYaml(const Command& c) {
  YAML::Emitter e;
  e << commandToYamlNode(c);
  return e.c_str();
}

Expected<Seconds> durationOf(const YamlField& f) {
  TESSERA_TRY(text, f.asString());
  const auto d = parseDuration(text);
  if (!d) return f.error("bad duration '" + text + "' (seconds, or like 90s, 15m, 2h, 1h30m, 1d)");
  return *d;
}

}  // namespace tessera
