#include "slurm/slurm_import.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "clusterspec/cluster_spec.h"
#include "clusterspec/cluster_spec_writer.h"
#include "core/strings.h"
#include "mig/mig_plan.h"

namespace tessera::slurm {

namespace {

constexpr std::string_view kReasonLabel = "slurm.reason";
constexpr std::string_view kUnswitchedLeaf = "slurm-unswitched";
constexpr std::string_view kFlatLeaf = "slurm";
// A spec node has at most 64 GPUs, a GPU at most kMaxMemorySlices instances: bounds the packing.
constexpr size_t kMaxMigInstances = 64 * kMaxMemorySlices;

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// "3g.40gb", "1g.10gb+me": <compute slices>g.<memory>gb, the way nvidia-smi names profiles.
bool isMigProfileName(std::string_view s) {
  if (s.ends_with("+me")) s.remove_suffix(3);
  const size_t g = s.find("g.");
  if (g == std::string_view::npos || !allDigits(s.substr(0, g))) return false;
  std::string_view memory = s.substr(g + 2);
  if (!memory.ends_with("gb")) return false;
  memory.remove_suffix(2);
  return allDigits(memory);
}

// "<model>_<profile>" or "<profile>": the model part and the profile, or nullopt.
std::optional<std::pair<std::string, std::string>> splitProfile(std::string_view type) {
  const size_t cut = type.rfind('_');
  const std::string_view profile = cut == std::string_view::npos ? type : type.substr(cut + 1);
  if (!isMigProfileName(profile)) return std::nullopt;
  return std::pair{cut == std::string_view::npos ? std::string() : std::string(type.substr(0, cut)),
                   std::string(profile)};
}

// "h100_g5" -> "h100" (per-device types, docs/slurm.md); anything else unchanged.
std::string_view withoutDeviceSuffix(std::string_view type) {
  const size_t cut = type.rfind("_g");
  if (cut == std::string_view::npos || !allDigits(type.substr(cut + 2))) return type;
  return type.substr(0, cut);
}

std::string gresText(const GresCount& g) {
  return g.name + (g.type.empty() ? "" : ":" + g.type) + ":" + std::to_string(g.count);
}

std::string countsText(const std::map<std::string, int>& counts) {
  if (counts.empty()) return "none";
  std::vector<std::string> parts;
  for (const auto& [profile, n] : counts) parts.push_back(profile + " x" + std::to_string(n));
  return join(parts, ", ");
}

// ---- GPUs of one Slurm node -----------------------------------------------------------------

constexpr int kMaxReplicas = 64;  // time-sliced replicas per GPU (the cluster spec's limit)

struct PendingMig {
  std::string profile;
  int start = -1;
  int count = 0;
  std::string gres;
};

struct NodeGpus {
  std::shared_ptr<const GpuModel> model;
  std::string modelFrom;  // the GRES that fixed the model, for messages
  int whole = 0;
  std::vector<MigLayout> migGpus;  // packed, placed
  std::map<std::string, int> migCounts;
  // The whole GPUs shared between jobs (gres/shard or gres/mps): time-sliced into this many
  // replicas each, or running MPS. Slurm spreads the node's count evenly over its GPUs.
  int replicasPerGpu = 0;
  bool mps = false;

  [[nodiscard]] int total() const { return whole + static_cast<int>(migGpus.size()); }
};

// Instances onto as few GPUs as the placement rules allow: largest first, each onto the first
// GPU where the planner still finds a valid layout. Slurm does not say which physical GPU holds
// which instance; the spec (--spec) can.
Expected<std::vector<MigLayout>> packMig(const GpuModel& model, std::vector<MigInstance> items) {
  const MigGeometry& geo = *model.mig;
  std::stable_sort(items.begin(), items.end(), [&](const MigInstance& a, const MigInstance& b) {
    const int sa = geo.profiles[static_cast<size_t>(a.profile)].memorySlices;
    const int sb = geo.profiles[static_cast<size_t>(b.profile)].memorySlices;
    if (sa != sb) return sa > sb;
    return a.placed() && !b.placed();
  });
  std::vector<MigLayout> gpus;
  for (const MigInstance& inst : items) {
    bool done = false;
    for (MigLayout& gpu : gpus) {
      MigLayout trial = gpu;
      if (trial.add(inst) && planMigRepartition(model, MigLayout{}, trial)) {
        gpu = trial;
        done = true;
        break;
      }
    }
    if (done) continue;
    MigLayout fresh;
    fresh.add(inst);
    if (auto plan = planMigRepartition(model, MigLayout{}, fresh); !plan)
      return Error{formatMigInstance(model, inst) + ": " + plan.error().message, {}};
    gpus.push_back(fresh);
  }
  for (MigLayout& gpu : gpus) gpu = planMigRepartition(model, MigLayout{}, gpu)->target;
  return gpus;
}

// ---- the switch tree ------------------------------------------------------------------------

struct Fabric {
  bool known = false;  // Slurm has a topology/tree
  std::map<std::string, std::string> leafOf;
  std::map<std::string, std::string> spineOf;  // leaf -> spine ("" = island)
};

struct Issues {
  std::vector<ImportIssue> errors;
  std::vector<ImportIssue> warnings;
  void error(std::string subject, std::string field, std::string message) {
    errors.push_back({std::move(subject), std::move(field), std::move(message)});
  }
  void warn(std::string subject, std::string field, std::string message) {
    warnings.push_back({std::move(subject), std::move(field), std::move(message)});
  }
};

std::string nodeSubject(std::string_view name) {
  return "node " + std::string(name);
}
std::string switchSubject(std::string_view name) {
  return "switch " + std::string(name);
}

// Leafs are the switches with nodes and no switches below them; a leaf's spine is the switch
// that lists it. Tessera's fabric has two tiers: switches above the spines are reported, unused.
Fabric fabricOf(const std::vector<SlurmSwitch>& switches, const std::set<std::string>& nodes,
                Issues& issues) {
  Fabric f;
  f.known = !switches.empty();
  std::map<std::string, const SlurmSwitch*> byName;
  for (const auto& sw : switches) byName.emplace(sw.name, &sw);
  std::map<std::string, std::string> parent;
  for (const auto& sw : switches) {
    for (const auto& child : sw.switches) {
      if (!byName.count(child)) {
        issues.warn(switchSubject(sw.name), "switches", "unknown switch '" + child + "' ignored");
        continue;
      }
      if (auto [it, fresh] = parent.emplace(child, sw.name); !fresh)
        issues.warn(switchSubject(child), "switches",
                    "below both " + it->second + " and " + sw.name + ": " + it->second + " kept");
    }
  }
  std::set<std::string> spines;
  for (const auto& sw : switches) {
    if (!sw.switches.empty()) continue;
    if (sw.nodes.empty()) {
      issues.warn(switchSubject(sw.name), "nodes", "no nodes and no switches: ignored");
      continue;
    }
    const auto p = parent.find(sw.name);
    f.spineOf[sw.name] = p == parent.end() ? "" : p->second;
    if (p != parent.end()) spines.insert(p->second);
    for (const auto& node : sw.nodes) {
      if (!nodes.count(node)) {
        issues.warn(switchSubject(sw.name), "nodes", "node " + node + " is not in sinfo: ignored");
        continue;
      }
      if (auto [it, fresh] = f.leafOf.emplace(node, sw.name); !fresh)
        issues.warn(nodeSubject(node), "topology",
                    "under leafs " + it->second + " and " + sw.name + ": " + it->second + " kept");
    }
  }
  for (const auto& sw : switches)
    if (!sw.switches.empty() && !spines.count(sw.name))
      issues.warn(switchSubject(sw.name), "switches",
                  "level " + std::to_string(sw.level) +
                      " above the spines: Tessera's fabric has two tiers (leaf, spine); ignored");
  return f;
}

// ---- the spec's view of one node -------------------------------------------------------------

struct SpecGpus {
  int whole = 0;
  std::map<std::string, int> migCounts;
};

SpecGpus specGpusOf(const Cluster& c, const Node& n) {
  SpecGpus s;
  for (int i = 0; i < n.gpuCount(); ++i) {
    const Gpu& g = c.gpu(n.firstGpu + static_cast<GpuId>(i));
    if (g.sharing.mode != SharingMode::Mig) {
      ++s.whole;
      continue;
    }
    for (const MigInstance& inst : g.sharing.mig)
      ++s.migCounts[n.gpuModel().mig->profiles[static_cast<size_t>(inst.profile)].name];
  }
  return s;
}

std::string rackOf(const Cluster& c, const Node& n) {
  if (n.gpuCount() == 0) return {};
  const DomainId d = c.gpu(n.firstGpu).nvlinkDomain;
  if (d == kNone) return {};
  const NvlinkDomain& domain = c.nvlinkDomains()[static_cast<size_t>(d)];
  return domain.kind == NvlinkDomainKind::MultiNodeRack ? domain.name : std::string();
}

int listedCpus(const NodeHardware& hw) {
  int listed = 0;
  for (const auto& zone : hw.numa) listed += static_cast<int>(zone.cpus.size());
  return listed;
}

std::string stateOf(const SlurmNode& n) {
  switch (n.state) {
    case NodeState::Down:
    case NodeState::Error:
    case NodeState::Future:
    case NodeState::Other:
      return "down";
    default:
      break;
  }
  if (n.hasFlag("NOT_RESPONDING")) return "down";
  if (n.hasFlag("DRAIN") || n.hasFlag("FAIL")) return "draining";
  return "up";
}

std::string slurmStateText(const SlurmNode& n) {
  std::string text = n.stateText;
  for (const auto& flag : n.flags) text += "+" + flag;
  return text;
}

// ---- the import -------------------------------------------------------------------------------

class Importer {
 public:
  Importer(const SlurmInventory& inv, const SlurmImportOptions& options, const GpuCatalog& catalog)
      : inv_(inv), options_(options), catalog_(catalog), spec_(options.spec.get()) {
    if (spec_) specDoc_ = YAML::Load(writeClusterSpec(*spec_));
  }

  Expected<SlurmImportResult> run() {
    std::set<std::string> names;
    std::vector<const SlurmNode*> nodes;
    for (const auto& n : inv_.nodes) {
      if (names.insert(n.name).second)
        nodes.push_back(&n);
      else
        issues_.warn(nodeSubject(n.name), "name", "listed twice by sinfo: the first kept");
    }
    fabric_ = fabricOf(inv_.switches, names, issues_);
    if (!fabric_.known)
      issues_.warn("cluster", "topology",
                   "Slurm has no switch tree (topology/tree not configured): nodes take the "
                   "spec's leaf, else one leaf '" +
                       std::string(kFlatLeaf) + "'");
    for (const SlurmNode* n : nodes) importNode(*n);
    if (spec_) {
      for (const auto& n : spec_->nodes())
        if (!names.count(n.name)) result_.onlyInSpec.push_back(n.name);
    }
    if (!issues_.errors.empty()) return failure();
    if (nodeList_.size() == 0)
      return Error{"cannot import the Slurm cluster: no node with GPUs to import", {}};
    return finish();
  }

 private:
  const SlurmInventory& inv_;
  const SlurmImportOptions& options_;
  const GpuCatalog& catalog_;
  const Cluster* spec_;
  YAML::Node specDoc_;
  Issues issues_;
  Fabric fabric_;
  SlurmImportResult result_;
  std::map<std::string, YAML::Node> templates_;
  YAML::Node nodeList_{YAML::NodeType::Sequence};
  std::map<std::string, std::string> usedLeafs_;  // leaf -> spine ("" = island)

  Error failure() const {
    std::vector<std::string> lines;
    for (const auto& e : issues_.errors) lines.push_back("  " + e.str());
    return Error{"cannot import the Slurm cluster (" + std::to_string(lines.size()) +
                     (lines.size() == 1 ? " problem" : " problems") + "):\n" + join(lines, "\n"),
                 {}};
  }

  void conflict(const std::string& node, std::string field, std::string slurm, std::string spec,
                std::string kept = "Slurm's") {
    result_.conflicts.push_back(
        {node, std::move(field), std::move(slurm), std::move(spec), std::move(kept)});
  }

  std::shared_ptr<const GpuModel> modelOfType(const SlurmNode& n, const GresCount& g,
                                              std::string_view type) {
    auto model = options_.mapping.resolve(type, catalog_);
    if (!model) {
      if (type.empty() && parseMigGresType(g.type))
        issues_.error(nodeSubject(n.name), "gres " + gresText(g),
                      "a MIG profile without a GPU model, and no other GPUs on the node: name "
                      "the model with --gpu-model MODEL or type it <model>_<profile>");
      else if (type.empty())
        issues_.error(nodeSubject(n.name), "gres " + gresText(g),
                      "untyped GPUs: name their model with --gpu-model MODEL (catalog id or "
                      "alias) or give the GPUs a type in slurm.conf");
      else
        issues_.error(nodeSubject(n.name), "gres " + gresText(g),
                      "unknown GPU type '" + std::string(type) + "': map it with --gpu-model " +
                          std::string(type) + "=MODEL (known models: " + catalog_.knownIds() + ")");
    }
    return model;
  }

  // Every GPU of the node has one model: the first GRES fixes it.
  bool sameModel(const SlurmNode& n, NodeGpus& out, std::shared_ptr<const GpuModel> model,
                 const GresCount& g) {
    if (!out.model) {
      out.model = std::move(model);
      out.modelFrom = gresText(g);
      return true;
    }
    if (out.model->id == model->id) return true;
    issues_.error(nodeSubject(n.name), "gres " + gresText(g),
                  "GPUs of two models (" + out.model->id + " from " + out.modelFrom + ", " +
                      model->id + "): a Tessera node has one GPU model");
    return false;
  }

  std::optional<NodeGpus> gpusOf(const SlurmNode& n) {
    NodeGpus out;
    std::vector<PendingMig> pending;
    const size_t errorsBefore = issues_.errors.size();
    std::vector<GresCount> shared;
    for (const GresCount& g : n.gres) {
      if (g.name == "shard" || g.name == "mps") {
        if (g.count > 0) shared.push_back(g);
        continue;
      }
      if (g.name != "gpu") {
        issues_.warn(nodeSubject(n.name), "gres " + gresText(g),
                     "not a GPU GRES: ignored (Tessera imports gpu, shard and mps GRES)");
        continue;
      }
      if (g.count <= 0) continue;
      if (auto mig = parseMigGresType(g.type)) {
        if (!mig->model.empty()) {
          auto model = modelOfType(n, g, mig->model);
          if (!model || !sameModel(n, out, model, g)) continue;
        }
        pending.push_back({mig->profile, mig->start, g.count, gresText(g)});
        continue;
      }
      auto model = modelOfType(n, g, g.type);
      if (model && sameModel(n, out, model, g)) out.whole += g.count;
    }
    if (issues_.errors.size() != errorsBefore) return std::nullopt;
    if (!pending.empty() && !out.model) {
      // Bare profile types ("3g.40gb"): the model of untyped GPUs, if one is given.
      const GresCount bare{"gpu", pending.front().profile, pending.front().count};
      auto model = modelOfType(n, bare, "");
      if (!model) return std::nullopt;
      out.model = model;
    }
    if (!out.model) {
      issues_.warn(nodeSubject(n.name), "gres",
                   "no GPUs: left out (a Tessera cluster spec describes GPU nodes)");
      return std::nullopt;
    }
    if (!resolveMig(n, pending, out) || !resolveShared(n, shared, out)) return std::nullopt;
    if (out.total() > 64) {
      issues_.error(nodeSubject(n.name), "gres",
                    std::to_string(out.total()) + " GPUs: a cluster spec allows at most 64");
      return std::nullopt;
    }
    return out;
  }

  // gres/shard as time-sliced replicas, gres/mps as MPS, on the node's whole GPUs (Slurm's
  // per-GPU count is the node's spread evenly over them).
  bool resolveShared(const SlurmNode& n, const std::vector<GresCount>& shared, NodeGpus& out) {
    if (shared.empty()) return true;
    const std::string subject = "gres " + gresText(shared.front());
    if (shared.size() > 1) {
      issues_.error(nodeSubject(n.name), subject + "," + gresText(shared.back()),
                    "shard and mps on one node: a GPU is time-sliced or runs MPS, not both "
                    "(and Slurm 22.05 supports one of them per node)");
      return false;
    }
    const GresCount& g = shared.front();
    if (out.whole == 0) {
      issues_.warn(nodeSubject(n.name), subject, "no whole GPUs to share: ignored");
      return true;
    }
    const int64_t perGpu = g.count / out.whole;
    if (g.count % out.whole != 0)
      issues_.warn(nodeSubject(n.name), subject,
                   "not a multiple of the node's " + std::to_string(out.whole) +
                       " whole GPUs: " + std::to_string(perGpu) + " per GPU");
    if (g.name == "mps") {
      out.mps = true;
      if (perGpu != 100)
        issues_.warn(nodeSubject(n.name), subject,
                     std::to_string(perGpu) + " per GPU: set tesserad's slurm.mps_per_gpu: " +
                         std::to_string(perGpu) + " (the default is Slurm's 100)");
      return true;
    }
    if (perGpu < 1) {
      issues_.warn(nodeSubject(n.name), subject, "less than one shard per GPU: ignored");
      return true;
    }
    out.replicasPerGpu = static_cast<int>(std::min<int64_t>(perGpu, kMaxReplicas));
    if (perGpu > kMaxReplicas)
      issues_.warn(nodeSubject(n.name), subject,
                   std::to_string(perGpu) + " shards per GPU: a Tessera GPU has at most " +
                       std::to_string(kMaxReplicas) + " replicas, so at most that many shares");
    return true;
  }

  bool resolveMig(const SlurmNode& n, const std::vector<PendingMig>& pending, NodeGpus& out) {
    if (pending.empty()) return true;
    const GpuModel& model = *out.model;
    if (!model.migCapable()) {
      issues_.error(nodeSubject(n.name), "gres " + pending.front().gres,
                    "a MIG type, but " + model.id + " is not MIG capable");
      return false;
    }
    std::vector<MigInstance> items;
    bool ok = true;
    for (const PendingMig& p : pending) {
      const int profile = model.mig->profileIndex(p.profile);
      if (profile < 0) {
        std::vector<std::string> known;
        for (const auto& pr : model.mig->profiles) known.push_back(pr.name);
        issues_.error(nodeSubject(n.name), "gres " + p.gres,
                      "'" + p.profile + "' is not a MIG profile of " + model.id +
                          " (its profiles: " + join(known, ", ") +
                          "); map the type to another model with --gpu-model");
        ok = false;
        continue;
      }
      const MigProfile& pr = model.mig->profiles[static_cast<size_t>(profile)];
      if (p.start >= 0 && (p.start >= kMaxMemorySlices || !pr.canStartAt(p.start))) {
        issues_.error(nodeSubject(n.name), "gres " + p.gres,
                      p.profile + " cannot start at memory slice " + std::to_string(p.start) +
                          " (starts: " + formatStarts(*model.mig, pr.startMask) + ")");
        ok = false;
        continue;
      }
      out.migCounts[p.profile] += p.count;
      if (items.size() + static_cast<size_t>(p.count) > kMaxMigInstances) {
        issues_.error(nodeSubject(n.name), "gres " + p.gres,
                      "more MIG instances than 64 GPUs can hold");
        return false;
      }
      for (int i = 0; i < p.count; ++i) {
        MigInstance inst;
        inst.profile = static_cast<int8_t>(profile);
        inst.start = static_cast<int8_t>(p.start);
        items.push_back(inst);
      }
    }
    if (!ok) return false;
    auto packed = packMig(model, std::move(items));
    if (!packed) {
      issues_.error(nodeSubject(n.name), "gres",
                    "MIG instances do not fit " + model.id + " GPUs: " + packed.error().message);
      return false;
    }
    out.migGpus = std::move(packed).value();
    return true;
  }

  // ---- templates ----

  std::string slurmTemplate(const GpuModel& model, int gpus, int cpus, int64_t memoryGiB) {
    std::string name = "slurm-" + toLower(model.id) + "-x" + std::to_string(gpus);
    if (cpus > 0) name += "-" + std::to_string(cpus) + "c";
    if (memoryGiB > 0) name += "-" + std::to_string(memoryGiB) + "g";
    if (!templates_.count(name)) {
      YAML::Node t;
      t["gpu_model"] = model.id;
      t["gpus"] = gpus;
      if (cpus > 0) t["cpus"] = cpus;
      if (memoryGiB > 0) t["memory_gib"] = memoryGiB;
      templates_[name] = t;
    }
    return name;
  }

  // The spec's template with Slurm's CPU and memory counts, or nullopt when its topo text lists
  // more CPUs than Slurm has (the structured form can drop its CPU lists, topo text cannot).
  std::optional<std::string> specTemplate(const std::string& node, const NodeHardware& hw, int cpus,
                                          int64_t memoryGiB) {
    YAML::Node t = YAML::Clone(specDoc_["node_templates"][hw.templateName]);
    bool adjusted = false;
    if (cpus > 0 && cpus != hw.cpus) {
      if (listedCpus(hw) > cpus) {
        if (!hw.topoText.empty()) return std::nullopt;
        for (YAML::Node zone : t["numa"]) zone.remove("cpus");
        issues_.warn(nodeSubject(node), "cpus",
                     "the spec's NUMA zones list " + std::to_string(listedCpus(hw)) +
                         " CPUs, Slurm has " + std::to_string(cpus) + ": CPU lists dropped");
      }
      t["cpus"] = cpus;
      adjusted = true;
    }
    if (memoryGiB > 0 && memoryGiB * 1024 != hw.memoryMiB) {
      t["memory_gib"] = memoryGiB;
      adjusted = true;
    }
    std::string name = hw.templateName;
    if (adjusted) name += "-slurm-" + std::to_string(cpus) + "c-" + std::to_string(memoryGiB) + "g";
    templates_.emplace(name, t);
    return name;
  }

  // ---- nodes ----

  static YAML::Node migSharing(const GpuModel& model, const MigLayout& layout) {
    YAML::Node s;
    s["mig"] = formatMigLayout(model, layout);
    return s;
  }

  // A whole GPU's sharing: Slurm's shard or mps GRES when the node has one (Slurm enforces
  // it), else the spec's time-slicing. gres/mps's one_sharing or all_sharing is a gres.conf flag
  // no Slurm command shows: the spec's node_sharing where it runs MPS there (the --spec is read
  // with one for a GPU that does not say), else Slurm 22.05's default, one.
  static void wholeSharing(YAML::Node& map, int index, const NodeGpus& gpus, const Gpu* spec) {
    const std::string key = std::to_string(index);
    if (gpus.mps)
      map[key]["mps"]["node_sharing"] = mpsNodeSharingName(
          spec && spec->sharing.mode == SharingMode::Mps ? spec->sharing.mps.nodeSharing
                                                         : MpsNodeSharing::One);
    else if (gpus.replicasPerGpu > 0)
      map[key]["timeslice"] = gpus.replicasPerGpu;
    else if (spec && spec->sharing.mode == SharingMode::TimeSliced)
      map[key]["timeslice"] = spec->sharing.replicas;
  }

  // Whole GPUs first, then the MIG GPUs (the order of gres.conf's File= and MultipleFiles=
  // lines in the test cluster).
  void slurmSharing(YAML::Node& node, const NodeGpus& gpus, const Node* specNode) {
    YAML::Node map;
    for (int i = 0; i < gpus.whole; ++i) {
      const bool inSpec = specNode && i < specNode->gpuCount();
      wholeSharing(map, i, gpus,
                   inSpec ? &spec_->gpu(specNode->firstGpu + static_cast<GpuId>(i)) : nullptr);
    }
    for (size_t k = 0; k < gpus.migGpus.size(); ++k)
      map[std::to_string(gpus.whole + static_cast<int>(k))] =
          migSharing(*gpus.model, gpus.migGpus[k]);
    if (map.size() > 0) node["gpus"] = map;
  }

  void specSharing(YAML::Node& node, const Node& n, const NodeGpus& gpus) {
    YAML::Node map;
    for (int i = 0; i < n.gpuCount(); ++i) {
      const Gpu& g = spec_->gpu(n.firstGpu + static_cast<GpuId>(i));
      if (g.sharing.mode == SharingMode::Mig)
        map[std::to_string(i)] = migSharing(n.gpuModel(), g.sharing.mig);
      else
        wholeSharing(map, i, gpus, &g);
    }
    if (map.size() > 0) node["gpus"] = map;
  }

  std::string leafFor(const SlurmNode& n, const Node* specNode) {
    if (fabric_.known) {
      if (auto it = fabric_.leafOf.find(n.name); it != fabric_.leafOf.end()) {
        usedLeafs_[it->second] = fabric_.spineOf[it->second];
        return it->second;
      }
      issues_.warn(nodeSubject(n.name), "topology",
                   "under no leaf switch: put on leaf '" + std::string(kUnswitchedLeaf) +
                       "' (an island: jobs do not span it and other leafs)");
      usedLeafs_[std::string(kUnswitchedLeaf)] = "";
      return std::string(kUnswitchedLeaf);
    }
    if (specNode) {
      const FabricSwitch& leaf = spec_->switches()[static_cast<size_t>(specNode->leaf)];
      usedLeafs_[leaf.name] =
          leaf.parent == kNone ? "" : spec_->switches()[static_cast<size_t>(leaf.parent)].name;
      return leaf.name;
    }
    usedLeafs_[std::string(kFlatLeaf)] = "";
    return std::string(kFlatLeaf);
  }

  void importNode(const SlurmNode& n) {
    auto gpus = gpusOf(n);
    if (!gpus) return;
    const Node* specNode = spec_ ? spec_->findNode(n.name) : nullptr;
    if (spec_ && !specNode) result_.onlyInSlurm.push_back(n.name);

    YAML::Node node;
    node["name"] = n.name;
    std::map<std::string, std::string> labels;
    if (specNode) labels = specNode->labels;
    for (const auto& feature : n.features) setLabel(n.name, labels, feature, "true", specNode);
    const std::string state = stateOf(n);
    labels.erase(std::string(kReasonLabel));
    if (state != "up") {
      if (!n.reason.empty())
        setLabel(n.name, labels, std::string(kReasonLabel), n.reason, specNode);
      issues_.warn(nodeSubject(n.name), "state",
                   slurmStateText(n) + ": imported as " + state +
                       (n.reason.empty() ? "" : " (reason: " + n.reason + ")"));
    }
    const int64_t memoryGiB = n.realMemoryMb / 1024;
    if (n.realMemoryMb % 1024 != 0)
      issues_.warn(nodeSubject(n.name), "real_memory",
                   std::to_string(n.realMemoryMb) +
                       " MB is not a whole number of GiB: memory_gib " + std::to_string(memoryGiB));

    const std::string leaf = leafFor(n, specNode);
    std::string pool = n.partitions.empty() ? std::string() : n.partitions.front();
    if (n.partitions.size() > 1)
      issues_.warn(
          nodeSubject(n.name), "partitions",
          "in partitions " + join(n.partitions, ", ") + ": pool '" + pool + "' (the first)");
    if (specNode) {
      mergeAttributes(n, *specNode, leaf, state, pool, node);
      mergeHardware(n, *gpus, *specNode, memoryGiB, node);
    } else {
      node["template"] = slurmTemplate(*gpus->model, gpus->total(), n.cpus, memoryGiB);
      slurmSharing(node, *gpus, nullptr);
    }
    node["leaf"] = leaf;
    if (!pool.empty()) node["pool"] = pool;
    if (!labels.empty()) {
      YAML::Node l;
      for (const auto& [k, v] : labels) l[k] = v;
      node["labels"] = l;
    }
    node["state"] = state;
    nodeList_.push_back(node);
  }

  void setLabel(const std::string& node, std::map<std::string, std::string>& labels,
                const std::string& key, const std::string& value, const Node* specNode) {
    if (specNode) {
      if (auto it = specNode->labels.find(key); it != specNode->labels.end() && it->second != value)
        conflict(node, "labels." + key, value, it->second);
    }
    labels[key] = value;
  }

  void mergeAttributes(const SlurmNode& n, const Node& s, const std::string& leaf,
                       const std::string& state, std::string& pool, YAML::Node& node) {
    if (fabric_.known) {
      const std::string& specLeaf = spec_->switches()[static_cast<size_t>(s.leaf)].name;
      if (specLeaf != leaf) conflict(n.name, "leaf", leaf, specLeaf);
    }
    if (!s.pool.empty() && pool.empty()) pool = s.pool;
    if (!s.pool.empty() && s.pool != pool) conflict(n.name, "pool", pool, s.pool);
    if (state != nodeStateName(s.state)) conflict(n.name, "state", state, nodeStateName(s.state));
    if (!s.driverVersion.empty()) node["driver"] = s.driverVersion;
  }

  void mergeHardware(const SlurmNode& n, const NodeGpus& gpus, const Node& s, int64_t memoryGiB,
                     YAML::Node& node) {
    const NodeHardware& hw = *s.hw;
    if (n.cpus > 0 && hw.cpus > 0 && n.cpus != hw.cpus)
      conflict(n.name, "cpus", std::to_string(n.cpus), std::to_string(hw.cpus));
    if (memoryGiB > 0 && hw.memoryMiB > 0 && memoryGiB != hw.memoryMiB / 1024)
      conflict(n.name, "memory_gib", std::to_string(memoryGiB),
               std::to_string(hw.memoryMiB / 1024));

    const std::string dropped = "Slurm's; the spec's NUMA, PCIe and NVLink for it dropped";
    bool keepHardware = true;
    bool keepSharing = true;
    const SpecGpus specGpus = specGpusOf(*spec_, s);
    if (hw.gpuModel->id != gpus.model->id) {
      conflict(n.name, "gpu_model", gpus.model->id, hw.gpuModel->id, dropped);
      keepHardware = false;
    } else if (specGpus.whole != gpus.whole || specGpus.migCounts != gpus.migCounts) {
      keepSharing = false;
      if (hw.gpuCount == gpus.total()) {
        conflict(n.name, "mig", countsText(gpus.migCounts), countsText(specGpus.migCounts),
                 "Slurm's instances on the spec's hardware");
      } else {
        conflict(n.name, "gpus", std::to_string(gpus.total()), std::to_string(hw.gpuCount),
                 dropped);
        keepHardware = false;
      }
    }
    std::optional<std::string> name;
    if (keepHardware) {
      name = specTemplate(n.name, hw, n.cpus, memoryGiB);
      if (!name)
        issues_.warn(nodeSubject(n.name), "cpus",
                     "the spec's topo text lists " + std::to_string(listedCpus(hw)) +
                         " CPUs, Slurm has " + std::to_string(n.cpus) +
                         ": the spec's hardware for this node dropped");
    }
    const std::string rack = rackOf(*spec_, s);
    if (!name) {
      node["template"] = slurmTemplate(*gpus.model, gpus.total(), n.cpus, memoryGiB);
      slurmSharing(node, gpus, &s);
      if (!rack.empty())
        issues_.warn(nodeSubject(n.name), "nvlink_rack",
                     "left out of the spec's NVLink rack " + rack + " (its hardware was dropped)");
      return;
    }
    node["template"] = *name;
    if (!rack.empty()) node["nvlink_rack"] = rack;
    if (keepSharing)
      specSharing(node, s, gpus);
    else
      slurmSharing(node, gpus, &s);
  }

  Expected<SlurmImportResult> finish() {
    YAML::Node doc;
    doc["version"] = 1;
    doc["name"] = !inv_.clusterName.empty() ? inv_.clusterName
                  : spec_                   ? spec_->name
                                            : std::string(kFlatLeaf);
    for (const auto& [name, t] : templates_) doc["node_templates"][name] = t;
    YAML::Node spines(YAML::NodeType::Sequence);
    YAML::Node leafs(YAML::NodeType::Sequence);
    std::set<std::string> seenSpines;
    for (const auto& [leaf, spine] : usedLeafs_) {
      YAML::Node l;
      l["name"] = leaf;
      if (!spine.empty()) {
        l["spine"] = spine;
        if (seenSpines.insert(spine).second) spines.push_back(spine);
      }
      leafs.push_back(l);
    }
    doc["fabric"]["spines"] = spines;
    doc["fabric"]["leafs"] = leafs;
    doc["nodes"] = nodeList_;
    ClusterSpecOptions options;
    options.catalog = &catalog_;
    auto cluster = loadClusterSpecNode(doc, "slurm import", "", options);
    if (!cluster)
      return Error{"the imported cluster does not load as a spec: " + cluster.error().str(), {}};
    result_.cluster = *cluster;
    result_.yaml = "# Imported from Slurm by tessera cluster import-slurm (docs/slurm.md)\n" +
                   writeClusterSpec(**cluster);
    result_.warnings = issues_.warnings;
    return std::move(result_);
  }
};

}  // namespace

// ---- GpuTypeMapping ---------------------------------------------------------------------------

GpuTypeMapping GpuTypeMapping::defaults() {
  GpuTypeMapping m;
  m.set("a100", "A100-SXM4-80GB");
  m.set("h100", "H100-SXM5-80GB");
  m.set("h200", "H200-SXM-141GB");
  m.set("gh200", "GH200-96GB");
  m.set("gb200", "GB200");
  m.set("a30", "A30-24GB");
  m.set("v100", "V100-SXM2-32GB");
  return m;
}

void GpuTypeMapping::set(std::string_view type, std::string model) {
  entries_[toLower(type)] = std::move(model);
}

Status GpuTypeMapping::add(std::string_view entry, const GpuCatalog& catalog) {
  const size_t eq = entry.find('=');
  const std::string_view type =
      eq == std::string_view::npos ? std::string_view() : entry.substr(0, eq);
  const std::string model(eq == std::string_view::npos ? entry : entry.substr(eq + 1));
  const std::string what = "GPU type mapping '" + std::string(entry) + "'";
  if (eq != std::string_view::npos && trim(type).empty())
    return Error{what + ": the type before '=' is empty", {}};
  if (type.find_first_of(":, ") != std::string_view::npos)
    return Error{what + ": a Slurm GPU type has no ':', ',' or spaces", {}};
  if (!catalog.find(model))
    return Error{what + ": unknown GPU model '" + model + "' (known: " + catalog.knownIds() + ")",
                 {}};
  set(type, model);
  return okStatus();
}

std::shared_ptr<const GpuModel> GpuTypeMapping::resolve(std::string_view type,
                                                        const GpuCatalog& catalog) const {
  const std::string key = toLower(type);
  auto lookup = [&](std::string_view k) -> std::shared_ptr<const GpuModel> {
    if (auto it = entries_.find(std::string(k)); it != entries_.end())
      return catalog.findShared(it->second);
    return k.empty() ? nullptr : catalog.findShared(k);
  };
  std::string_view k = key;
  for (int pass = 0; pass < 2; ++pass) {
    if (auto m = lookup(k)) return m;
    if (auto m = lookup(withoutDeviceSuffix(k))) return m;
    if (!k.starts_with("nvidia_")) break;
    k.remove_prefix(std::string_view("nvidia_").size());
  }
  return nullptr;
}

// ---- the rest of the public API ----------------------------------------------------------------

std::string ImportIssue::str() const {
  return subject + ": " + (field.empty() ? "" : field + ": ") + message;
}

std::string ImportConflict::str() const {
  return node + ": " + field + ": Slurm " + slurm + ", spec " + spec + " (kept " + kept + ")";
}

std::optional<MigGresType> parseMigGresType(std::string_view type) {
  const std::string lower = toLower(type);
  std::string_view t = lower;
  if (const size_t cut = t.rfind("_s"); cut != std::string_view::npos) {
    const std::string_view digits = t.substr(cut + 2);
    if (allDigits(digits) && digits.size() <= 2) {
      if (auto split = splitProfile(t.substr(0, cut)))
        return MigGresType{split->first, split->second, *parseInt(digits)};
    }
  }
  if (auto split = splitProfile(t)) return MigGresType{split->first, split->second, -1};
  return std::nullopt;
}

Expected<SlurmImportResult> importSlurmCluster(const SlurmInventory& inventory,
                                               const SlurmImportOptions& options) {
  const GpuCatalog& catalog = options.catalog ? *options.catalog : GpuCatalog::builtin();
  return Importer(inventory, options, catalog).run();
}

}  // namespace tessera::slurm
