#include "scheduler/policy.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <sstream>
#include <tuple>

#include "scheduler/plugin.h"
#include "topology/yaml_reader.h"
#include "workload/workload_spec.h"

namespace tessera {

namespace {

class PolicyReader {
 public:
  explicit PolicyReader(std::string file) : file_(std::move(file)) {}

  Expected<Policy> read(const YAML::Node& doc, const std::string& path) {
    const YamlField root(doc, path, &file_);
    if (doc.IsNull()) return root.error("the policy is empty (a policy starts with 'version: 1')");
    TESSERA_CHECK(root.expectMap());
    TESSERA_CHECK(
        root.onlyKeys({"version", "queue_order", "admission", "filter", "score", "permit",
                       "preemption", "backfill", "fair_share", "mig", "check_invariants"}));
    TESSERA_TRY(version, root.intAt("version"));
    if (version != 1)
      return root.child("version").error("unsupported policy version " + std::to_string(version));
    for (auto [key, out] : {std::pair{"queue_order", &p_.queueOrder},
                            {"admission", &p_.admission},
                            {"filter", &p_.filter},
                            {"permit", &p_.permit}})
      if (root.has(key)) TESSERA_CHECK(readNames(root.child(key), key, *out));
    if (root.has("score")) TESSERA_CHECK(readScores(root.child("score")));
    if (root.has("preemption")) TESSERA_CHECK(readPreemption(root.child("preemption")));
    if (root.has("backfill")) TESSERA_CHECK(readBackfill(root.child("backfill")));
    if (root.has("fair_share")) TESSERA_CHECK(readFairShare(root.child("fair_share")));
    if (root.has("mig")) {
      const YamlField mig = root.child("mig");
      TESSERA_CHECK(mig.onlyKeys({"create_instances"}));
      if (mig.has("create_instances")) {
        TESSERA_TRY(b, mig.child("create_instances").asBool());
        p_.mig.createInstances = b;
      }
    }
    if (root.has("check_invariants")) {
      TESSERA_TRY(b, root.child("check_invariants").asBool());
      p_.checkInvariants = b;
    }
    return p_;
  }

 private:
  std::string file_;
  Policy p_;

  static Status known(const YamlField& f, const std::string& point, const std::string& name) {
    if (PluginRegistry::builtin().has(point, name)) return okStatus();
    std::string list;
    for (const auto& n : PluginRegistry::builtin().names(point))
      list += (list.empty() ? "" : ", ") + n;
    return f.error("unknown " + point + " plugin '" + name + "' (known: " + list + ")");
  }

  static Status readNames(const YamlField& f, const std::string& point,
                          std::vector<std::string>& out) {
    TESSERA_TRY(names, f.asStringList());
    for (size_t i = 0; i < names.size(); ++i) TESSERA_CHECK(known(f.item(i), point, names[i]));
    if (point == "queue_order" && names.size() > 6) return f.error("at most 6 queue_order plugins");
    for (size_t i = 0; i < names.size(); ++i)
      for (size_t k = 0; k < i; ++k)
        if (names[i] == names[k]) return f.item(i).error(point + " names '" + names[i] + "' twice");
    // Operator commands must keep working whatever the policy: holds, pins and reservations.
    for (const auto& [required, at, what] :
         {std::tuple{"hold", "admission", "operator holds"},
          std::tuple{"reservations", "filter",
                     "maintenance windows, team and backfill reservations"},
          std::tuple{"pin", "filter", "operator pins"}})
      if (point == at && std::find(names.begin(), names.end(), required) == names.end())
        return f.error(point + " must include '" + required + "', or " + what + " are ignored");
    out = names;
    return okStatus();
  }

  Status readScores(const YamlField& f) {
    TESSERA_CHECK(f.expectSequence());
    p_.score.clear();
    for (size_t i = 0; i < f.size(); ++i) {
      const YamlField item = f.item(i);
      TESSERA_CHECK(item.onlyKeys({"name", "weight"}));
      TESSERA_TRY(name, item.stringAt("name"));
      TESSERA_CHECK(known(item.child("name"), "score", name));
      for (const auto& earlier : p_.score)
        if (earlier.name == name)
          return item.child("name").error("score names '" + name + "' twice");
      double weight = 1.0;
      if (item.has("weight")) {
        TESSERA_TRY(w, item.doubleAt("weight"));
        if (!(w >= 0) || w > 1e6)
          return item.child("weight").error("weight must be between 0 and 1000000");
        weight = w;
      }
      p_.score.push_back({name, weight});
    }
    return okStatus();
  }

  static Expected<Seconds> duration(const YamlField& f) {
    TESSERA_TRY(text, f.asString());
    auto d = parseDuration(text);
    if (!d)
      return f.error("bad duration '" + text + "' (seconds, or like 90s, 15m, 2h, 1h30m, 1d)");
    return *d;
  }

  Status readPreemption(const YamlField& f) {
    TESSERA_CHECK(
        f.onlyKeys({"plugin", "reclaim_borrowed", "within_guarantee", "max_attempts_per_cycle"}));
    PreemptionPolicy& p = p_.preemption;
    if (f.has("plugin")) {
      TESSERA_TRY(name, f.stringAt("plugin"));
      if (name != "none") TESSERA_CHECK(known(f.child("plugin"), "preemption", name));
      p.plugin = name;
    }
    for (auto [key, out] : {std::pair{"reclaim_borrowed", &p.reclaimBorrowed},
                            {"within_guarantee", &p.withinGuarantee}}) {
      if (!f.has(key)) continue;
      TESSERA_TRY(b, f.child(key).asBool());
      *out = b;
    }
    if (f.has("max_attempts_per_cycle")) {
      TESSERA_TRY(n, f.intAt("max_attempts_per_cycle", 0, 100'000));
      p.maxAttemptsPerCycle = n;
    }
    return okStatus();
  }

  Status readBackfill(const YamlField& f) {
    TESSERA_CHECK(
        f.onlyKeys({"plugin", "window", "resolution", "depth", "time_budget_ms", "interval"}));
    BackfillPolicy& b = p_.backfill;
    if (f.has("plugin")) {
      TESSERA_TRY(name, f.stringAt("plugin"));
      if (name != "none") TESSERA_CHECK(known(f.child("plugin"), "backfill", name));
      b.plugin = name;
    }
    if (f.has("window")) {
      TESSERA_TRY(w, duration(f.child("window")));
      if (w <= 0) return f.child("window").error("window must be positive");
      b.window = w;
    }
    if (f.has("resolution")) {
      TESSERA_TRY(r, duration(f.child("resolution")));
      if (r <= 0) return f.child("resolution").error("resolution must be positive");
      b.resolution = r;
    }
    if (f.has("depth")) {
      TESSERA_TRY(d, f.intAt("depth", 0, 1'000'000));
      b.depth = d;
    }
    if (f.has("time_budget_ms")) {
      TESSERA_TRY(t, f.doubleAt("time_budget_ms"));
      if (!(t > 0) || t > 3.6e6)
        return f.child("time_budget_ms").error("time_budget_ms must be > 0");
      b.timeBudgetMs = t;
    }
    if (f.has("interval")) {
      TESSERA_TRY(i, duration(f.child("interval")));
      if (i < 0) return f.child("interval").error("interval must not be negative");
      b.interval = i;
    }
    return okStatus();
  }

  Status readFairShare(const YamlField& f) {
    TESSERA_CHECK(f.onlyKeys({"half_life"}));
    if (f.has("half_life")) {
      TESSERA_TRY(h, duration(f.child("half_life")));
      if (h <= 0) return f.child("half_life").error("half_life must be positive");
      p_.fairShare.halfLife = h;
    }
    return okStatus();
  }
};

// Shortest text that reads back as the same double.
std::string num(double v) {
  std::array<char, 32> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), r.ptr);
}

std::string list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "]";
}

}  // namespace

Expected<Policy> loadPolicyNode(const YAML::Node& doc, const std::string& fileName,
                                const std::string& fieldPath) {
  return PolicyReader(fileName).read(doc, fieldPath);
}

Expected<Policy> loadPolicy(std::string_view text, const std::string& fileName) {
  TESSERA_TRY(doc, parseYaml(text, fileName));
  return loadPolicyNode(doc, fileName, "");
}

Expected<Policy> loadPolicyFile(const std::string& path) {
  TESSERA_TRY(text, readTextFile(path));
  return loadPolicy(text, path);
}

std::string writePolicy(const Policy& p) {
  std::ostringstream out;
  out << "version: 1\n"
      << "queue_order: " << list(p.queueOrder) << "\n"
      << "admission: " << list(p.admission) << "\n"
      << "filter: " << list(p.filter) << "\n"
      << "score:\n";
  for (const auto& s : p.score)
    out << "  - {name: " << s.name << ", weight: " << num(s.weight) << "}\n";
  if (p.score.empty()) out << "  []\n";
  out << "permit: " << list(p.permit) << "\n"
      << "preemption: {plugin: " << p.preemption.plugin
      << ", reclaim_borrowed: " << (p.preemption.reclaimBorrowed ? "true" : "false")
      << ", within_guarantee: " << (p.preemption.withinGuarantee ? "true" : "false")
      << ", max_attempts_per_cycle: " << p.preemption.maxAttemptsPerCycle << "}\n"
      << "backfill: {plugin: " << p.backfill.plugin << ", window: " << p.backfill.window
      << ", resolution: " << p.backfill.resolution << ", depth: " << p.backfill.depth
      << ", time_budget_ms: " << num(p.backfill.timeBudgetMs)
      << ", interval: " << p.backfill.interval << "}\n"
      << "fair_share: {half_life: " << p.fairShare.halfLife << "}\n"
      << "mig: {create_instances: " << (p.mig.createInstances ? "true" : "false") << "}\n"
      << "check_invariants: " << (p.checkInvariants ? "true" : "false") << "\n";
  return out.str();
}

}  // namespace tessera
