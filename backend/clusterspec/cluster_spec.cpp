#include "clusterspec/cluster_spec.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>

#include "clusterspec/hostlist.h"
#include "clusterspec/node_template.h"
#include "core/strings.h"
#include "mig/mig_plan.h"
#include "mig/mig_validate.h"
#include "topology/yaml_reader.h"

namespace tessera {
namespace embedded {
std::string_view demoClusterYaml();
}

namespace {

// Limits that keep a few lines of YAML from asking for unbounded memory; far above real clusters.
constexpr size_t kMaxNodes = 100'000;
constexpr size_t kMaxGpus = 1'000'000;
constexpr size_t kMaxLabels = 64;
constexpr size_t kMaxOverrideWork = 1'000'000;  // node updates across all overrides

// Node names appear in GPU names ("node/3"), hostlists and text output: hostname characters only.
std::optional<std::string> nodeNameProblem(const std::string& name) {
  if (name.empty()) return "a node name must not be empty";
  if (name.size() > 253)
    return "node name '" + name.substr(0, 40) + "...' is longer than 253 characters";
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return "node name '" + name + "' may contain only letters, digits, '-', '_' and '.'";
  return std::nullopt;
}

// Attributes a group, a node or an override may set.
struct NodeAttributes {
  std::optional<std::string> pool;
  std::map<std::string, std::string> labels;
  std::optional<NodeState> state;
  std::optional<std::string> driver;
  std::optional<YamlField> gpus;  // per-GPU sharing, parsed against the node's GPU model
};

// Per-GPU sharing settings resolved once for a model, then stamped onto every node.
using GpuSettings = std::vector<std::pair<int, GpuSharing>>;

class SpecReader {
 public:
  SpecReader(std::string file, GpuCatalog catalog, const ClusterSpecOptions& options)
      : file_(std::move(file)),
        catalog_(std::move(catalog)),
        baseDir_(options.baseDir),
        mpsNodeSharing_(options.mpsNodeSharing),
        cluster_(std::make_shared<Cluster>()) {}

  Expected<std::shared_ptr<const Cluster>> read(std::string_view text) {
    TESSERA_TRY(doc, parseYaml(text, file_));
    return read(doc, "");
  }

  Expected<std::shared_ptr<const Cluster>> read(const YAML::Node& doc, const std::string& path) {
    const YamlField root(doc, path, &file_);
    if (doc.IsNull())
      return root.error("the file is empty (a cluster spec starts with 'version: 1')");
    TESSERA_CHECK(root.expectMap());
    TESSERA_CHECK(root.onlyKeys({"version", "name", "gpu_catalog", "node_templates", "fabric",
                                 "groups", "nodes", "overrides"}));
    TESSERA_TRY(version, root.require("version"));
    TESSERA_TRY(versionV, version.asInt());
    if (versionV != 1)
      return version.error("unsupported cluster spec version " + std::to_string(versionV) +
                           " (this build reads 1)");
    TESSERA_TRY(nameF, root.require("name"));
    TESSERA_TRY(name, nameF.asString());
    cluster_->name = name;
    if (root.has("gpu_catalog")) TESSERA_CHECK(readExtraCatalog(root.child("gpu_catalog")));
    TESSERA_TRY(templates, root.require("node_templates"));
    TESSERA_CHECK(readTemplates(templates));
    if (root.has("fabric")) TESSERA_CHECK(readFabric(root.child("fabric")));
    if (root.has("groups"))
      TESSERA_CHECK(forEachItem(root.child("groups"), &SpecReader::readGroup));
    if (root.has("nodes")) TESSERA_CHECK(forEachItem(root.child("nodes"), &SpecReader::readNode));
    TESSERA_CHECK(addNamedRacks());
    if (root.has("overrides"))
      TESSERA_CHECK(forEachItem(root.child("overrides"), &SpecReader::readOverride));
    TESSERA_CHECK(checkMpsNodeSharing());
    if (cluster_->nodes().empty())
      return root.error("the cluster has no nodes (add groups: or nodes:)");
    return std::shared_ptr<const Cluster>(cluster_);
  }

 private:
  std::string file_;
  GpuCatalog catalog_;
  std::string baseDir_;
  MpsNodeSharing mpsNodeSharing_;  // MPS GPUs whose spec does not say
  std::shared_ptr<Cluster> cluster_;
  std::map<std::string, std::shared_ptr<const NodeHardware>> templates_;
  std::map<std::string, SourceLocation> nodeDefinedAt_;
  struct NamedRack {
    std::string name;
    SourceLocation where;
    std::vector<NodeId> nodes;
  };
  std::vector<NamedRack> namedRacks_;
  size_t overrideWork_ = 0;

  Status forEachItem(const YamlField& list, Status (SpecReader::*fn)(const YamlField&)) {
    TESSERA_CHECK(list.expectSequence());
    for (size_t i = 0; i < list.size(); ++i) TESSERA_CHECK((this->*fn)(list.item(i)));
    return okStatus();
  }

  std::string resolve(const std::string& path) const {
    return std::filesystem::path(path).is_absolute() ? path : baseDir_ + "/" + path;
  }

  Status readExtraCatalog(const YamlField& f) {
    TESSERA_TRY(path, f.asString());
    auto extra = GpuCatalog::fromFile(resolve(path));
    if (!extra) return f.error("GPU catalog: " + extra.error().str());
    if (auto merged = catalog_.merge(*extra); !merged)
      return f.error("GPU catalog: " + merged.error().message);
    return okStatus();
  }

  Status readTemplates(const YamlField& f) {
    TESSERA_CHECK(f.expectMap());
    for (auto& [name, t] : f.entries()) {
      TESSERA_TRY(hw, readNodeTemplate(t, name, catalog_, baseDir_));
      templates_[name] = hw;
    }
    return okStatus();
  }

  Status readFabric(const YamlField& f) {
    TESSERA_CHECK(f.onlyKeys({"spines", "leafs"}));
    if (f.has("spines")) {
      TESSERA_TRY(spines, f.child("spines").asStringList());
      for (const auto& s : spines) {
        if (cluster_->findSwitch(s))
          return f.child("spines").error("duplicate switch name '" + s + "'");
        cluster_->addSwitch(s, SwitchTier::Spine, kNone);
      }
    }
    if (f.has("leafs")) TESSERA_CHECK(forEachItem(f.child("leafs"), &SpecReader::readLeaf));
    return okStatus();
  }

  Status readLeaf(const YamlField& f) {
    TESSERA_CHECK(f.onlyKeys({"name", "spine"}));
    TESSERA_TRY(nameF, f.require("name"));
    TESSERA_TRY(name, nameF.asString());
    if (cluster_->findSwitch(name)) return nameF.error("duplicate switch name '" + name + "'");
    SwitchId spine = kNone;
    if (f.has("spine")) {
      TESSERA_TRY(s, spineNamed(f.child("spine")));
      spine = s;
    }
    cluster_->addSwitch(name, SwitchTier::Leaf, spine);
    return okStatus();
  }

  Expected<SwitchId> spineNamed(const YamlField& f) {
    TESSERA_TRY(name, f.asString());
    const FabricSwitch* s = cluster_->findSwitch(name);
    if (!s || s->tier != SwitchTier::Spine)
      return f.error("unknown spine switch '" + name + "' (declare it under fabric.spines)");
    return s->id;
  }

  Expected<SwitchId> leafNamed(const YamlField& f) {
    TESSERA_TRY(name, f.asString());
    const FabricSwitch* s = cluster_->findSwitch(name);
    if (!s || s->tier != SwitchTier::Leaf)
      return f.error("unknown leaf switch '" + name + "' (declare it under fabric.leafs)");
    return s->id;
  }

  Expected<std::shared_ptr<const NodeHardware>> templateNamed(const YamlField& f) {
    TESSERA_TRY(name, f.asString());
    auto it = templates_.find(name);
    if (it == templates_.end()) {
      std::vector<std::string> known;
      for (const auto& [k, v] : templates_) known.push_back(k);
      return f.error("unknown node template '" + name + "' (known: " + join(known, ", ") + ")");
    }
    return it->second;
  }

  Expected<NodeAttributes> readAttributes(const YamlField& f) {
    NodeAttributes a;
    if (f.has("pool")) {
      TESSERA_TRY(v, f.child("pool").asString());
      a.pool = v;
    }
    if (f.has("labels")) {
      const YamlField labels = f.child("labels");
      TESSERA_CHECK(labels.expectMap());
      if (labels.size() > kMaxLabels)
        return labels.error("at most " + std::to_string(kMaxLabels) + " labels per node");
      for (auto& [k, v] : labels.entries()) {
        if (k.empty()) return v.error("a label key must not be empty");
        TESSERA_TRY(text, v.asString());
        a.labels[k] = text;
      }
    }
    if (f.has("state")) {
      TESSERA_TRY(v, f.child("state").asString());
      if (v == "up")
        a.state = NodeState::Up;
      else if (v == "draining")
        a.state = NodeState::Draining;
      else if (v == "down")
        a.state = NodeState::Down;
      else
        return f.child("state").error("state must be up, draining or down, got '" + v + "'");
    }
    if (f.has("driver")) {
      TESSERA_TRY(v, f.child("driver").asString());
      a.driver = v;
    }
    if (f.has("gpus")) a.gpus = f.child("gpus");
    return a;
  }

  Expected<GpuSharing> readSharing(const YamlField& f, const GpuModel& model) {
    TESSERA_CHECK(f.onlyKeys({"mig", "timeslice", "exclusive", "mps"}));
    // MPS may run alone or inside MIG instances (one server per instance), nowhere else.
    const bool migAndMps = f.size() == 2 && f.has("mig") && f.has("mps");
    if (f.size() != 1 && !migAndMps)
      return f.error(
          "give exactly one of mig: LAYOUT, timeslice: N, mps: {...}, exclusive: true "
          "(or mig: with mps: for MPS inside the MIG instances)");
    GpuSharing s;
    if (f.has("mps")) {
      TESSERA_TRY(mps, readMps(f.child("mps"), model));
      s.mps = mps;
      if (!migAndMps) {
        s.mode = SharingMode::Mps;
        return s;
      }
    }
    if (f.has("timeslice")) {
      TESSERA_TRY(n, f.child("timeslice").asInt(1, 64));
      s.mode = SharingMode::TimeSliced;
      s.replicas = n;
      return s;
    }
    if (f.has("exclusive")) {
      TESSERA_TRY(b, f.child("exclusive").asBool());
      if (!b)
        return f.child("exclusive").error("exclusive: false means nothing; use mig: or timeslice:");
      return s;
    }
    const YamlField migF = f.child("mig");
    if (!model.migCapable()) return migF.error("GPU model " + model.id + " is not MIG capable");
    TESSERA_TRY(text, migF.asString());
    auto layout = parseMigLayout(model, text);
    if (!layout) return migF.error(layout.error().message);
    for (const auto& inst : *layout)
      if (inst.busy) return migF.error("'*' (busy) has no meaning in a cluster spec");
    TESSERA_TRY(placed, placeLayout(migF, model, *layout));
    s.mode = SharingMode::Mig;
    s.mig = placed;
    return s;
  }

  // `mps: {co_location: team | user | any, thread_budget: N, node_sharing: one | all}`;
  // `mps: true` takes the defaults.
  Expected<MpsPolicy> readMps(const YamlField& f, const GpuModel& model) const {
    if (model.mpsMaxClients <= 0)
      return f.error("GPU model " + model.id + " has no MPS client limit in the catalog (" +
                     model.architecture + " architecture); give the model mps_max_clients");
    MpsPolicy p;
    p.enabled = true;
    p.nodeSharing = mpsNodeSharing_;
    if (f.isScalar()) {
      TESSERA_TRY(on, f.asBool());
      if (!on) return f.error("mps: false means nothing; leave mps: out");
      return p;
    }
    TESSERA_CHECK(f.onlyKeys({"co_location", "thread_budget", "node_sharing"}));
    if (f.has("co_location")) {
      TESSERA_TRY(v, f.stringAt("co_location"));
      if (v == "team")
        p.coLocation = MpsCoLocation::Team;
      else if (v == "user")
        p.coLocation = MpsCoLocation::User;
      else if (v == "any")
        p.coLocation = MpsCoLocation::Any;
      else
        return f.child("co_location")
            .error("co_location must be team, user or any, got '" + v + "'");
    }
    if (f.has("thread_budget")) {
      // Above 100 the clients' active-thread percentages oversubscribe the SMs, as MPS allows;
      // more than 100 % per client the server could never hand out.
      TESSERA_TRY(n, f.intAt("thread_budget", 100, 100 * model.mpsMaxClients));
      p.threadBudget = n;
    }
    if (f.has("node_sharing")) {
      TESSERA_TRY(v, f.stringAt("node_sharing"));
      if (v != "one" && v != "all")
        return f.child("node_sharing").error("node_sharing must be one or all, got '" + v + "'");
      p.nodeSharing = v == "one" ? MpsNodeSharing::One : MpsNodeSharing::All;
    }
    return p;
  }

  // Instances written without "@start" are placed by the planner, like nvidia-smi would.
  Expected<MigLayout> placeLayout(const YamlField& f, const GpuModel& model,
                                  const MigLayout& layout) {
    if (layout.allPlaced()) {
      const MigVerdict v = validateMigLayout(*model.mig, layout);
      if (!v.ok()) return f.error("invalid MIG layout: " + explainMigVerdict(model, layout, v));
      MigLayout sorted = layout;
      sorted.sortByStart();
      return sorted;
    }
    auto plan = planMigRepartition(model, MigLayout{}, layout);
    if (!plan) return f.error("invalid MIG layout: " + plan.error().message);
    return plan->target;
  }

  Expected<GpuSettings> readGpuSettings(const YamlField& f, const NodeHardware& hw) {
    TESSERA_CHECK(f.expectMap());
    GpuSettings out;
    std::map<int, std::string> setBy;
    for (auto& [key, value] : f.entries()) {
      auto indices = expandIndexList(key, hw.gpuCount);
      if (!indices) return value.error("GPU index list '" + key + "': " + indices.error().message);
      TESSERA_TRY(sharing, readSharing(value, *hw.gpuModel));
      for (int i : *indices) {
        if (auto [it, fresh] = setBy.emplace(i, key); !fresh)
          return value.error("GPU " + std::to_string(i) + " is set twice (by '" + it->second +
                             "' and '" + key + "')");
        out.emplace_back(i, sharing);
      }
    }
    return out;
  }

  static void applyAttributes(Node& n, const NodeAttributes& a) {
    if (a.pool) n.pool = *a.pool;
    for (const auto& [k, v] : a.labels) n.labels[k] = v;
    if (a.state) n.state = *a.state;
    if (a.driver) n.driverVersion = *a.driver;
  }

  void applyGpuSettings(NodeId id, const GpuSettings& settings) {
    const Node& n = cluster_->node(id);
    for (const auto& [index, sharing] : settings)
      cluster_->mutableGpu(n.firstGpu + static_cast<GpuId>(index)).sharing = sharing;
  }

  Expected<std::vector<std::string>> nodeNames(const YamlField& f, const std::string& prefix) {
    if (f.has("count") == f.has("nodes"))
      return f.error("give either count: N (names " + prefix +
                     "-01, ...) or nodes: HOSTLIST, not both or neither");
    if (f.has("nodes")) {
      TESSERA_TRY(expr, f.child("nodes").asString());
      auto names = expandHostlist(expr, kMaxNodes);
      if (!names) return f.child("nodes").error(names.error().message);
      return *names;
    }
    TESSERA_TRY(count, f.child("count").asInt(1, static_cast<int>(kMaxNodes)));
    const size_t width = std::max<size_t>(2, std::to_string(count).size());
    std::vector<std::string> names;
    for (int i = 1; i <= count; ++i) {
      std::string num = std::to_string(i);
      names.push_back(prefix + "-" + std::string(width - num.size(), '0') + num);
    }
    return names;
  }

  // Leaf for the i-th of n nodes: one named leaf, or `leafs: {count, spine}` created here and
  // filled in equal contiguous blocks.
  Expected<std::vector<SwitchId>> leafsFor(const YamlField& f, const std::string& group, size_t n) {
    if (f.has("leaf") == f.has("leafs"))
      return f.error(
          "every node must hang off a leaf switch: give leaf: NAME or leafs: {count: N, spine: "
          "NAME}");
    if (f.has("leaf")) {
      TESSERA_TRY(leaf, leafNamed(f.child("leaf")));
      return std::vector<SwitchId>(n, leaf);
    }
    const YamlField leafs = f.child("leafs");
    TESSERA_CHECK(leafs.onlyKeys({"count", "spine"}));
    TESSERA_TRY(countF, leafs.require("count"));
    TESSERA_TRY(count, countF.asInt(1, static_cast<int>(n)));
    SwitchId spine = kNone;
    if (leafs.has("spine")) {
      TESSERA_TRY(s, spineNamed(leafs.child("spine")));
      spine = s;
    }
    std::vector<SwitchId> created;
    for (int i = 1; i <= count; ++i) {
      const std::string name = group + "-leaf-" + std::to_string(i);
      if (cluster_->findSwitch(name))
        return leafs.error("leaf switch '" + name + "' already exists");
      created.push_back(cluster_->addSwitch(name, SwitchTier::Leaf, spine));
    }
    // Contiguous blocks whose sizes differ by at most one, so no created leaf stays empty.
    std::vector<SwitchId> out;
    for (size_t i = 0; i < n; ++i) out.push_back(created[i * static_cast<size_t>(count) / n]);
    return out;
  }

  Expected<NodeId> createNode(const YamlField& where, const std::string& name,
                              const std::shared_ptr<const NodeHardware>& hw, SwitchId leaf,
                              const NodeAttributes& attrs, const GpuSettings& gpus) {
    if (auto bad = nodeNameProblem(name)) return where.error(*bad);
    if (auto it = nodeDefinedAt_.find(name); it != nodeDefinedAt_.end())
      return where.error("duplicate node name '" + name + "' (first defined at " +
                         it->second.str() + ")");
    if (cluster_->nodes().size() >= kMaxNodes)
      return where.error("more than " + std::to_string(kMaxNodes) + " nodes in one cluster");
    if (cluster_->gpus().size() + static_cast<size_t>(hw->gpuCount) > kMaxGpus)
      return where.error("more than " + std::to_string(kMaxGpus) + " GPUs in one cluster");
    nodeDefinedAt_.emplace(name, where.location());
    Node n;
    n.name = name;
    n.hw = hw;
    n.leaf = leaf;
    applyAttributes(n, attrs);
    const NodeId id = cluster_->addNode(std::move(n));
    applyGpuSettings(id, gpus);
    return id;
  }

  // One NVLink domain per node for NVSwitch boards, one per bridge group.
  void addLocalNvlinkDomains(NodeId id) {
    const Node& n = cluster_->node(id);
    const NodeHardware& hw = *n.hw;
    auto gpuIds = [&](const std::vector<int>& local) {
      std::vector<GpuId> ids;
      for (int i : local) ids.push_back(n.firstGpu + static_cast<GpuId>(i));
      return ids;
    };
    if (hw.nvlink == NvlinkMode::NvSwitch && hw.gpuCount > 1) {
      std::vector<int> all(static_cast<size_t>(hw.gpuCount));
      for (int i = 0; i < hw.gpuCount; ++i) all[static_cast<size_t>(i)] = i;
      cluster_->addNvlinkDomain(n.name + "/nvswitch", NvlinkDomainKind::NvSwitchBoard, gpuIds(all));
    } else if (hw.nvlink == NvlinkMode::Bridged) {
      int k = 0;
      for (const auto& group : hw.nvlinkGroups)
        cluster_->addNvlinkDomain(n.name + "/bridge" + std::to_string(k++),
                                  NvlinkDomainKind::Bridge, gpuIds(group));
    }
  }

  Status addRackDomains(const YamlField& f, const std::string& group,
                        const std::vector<NodeId>& ids, const NodeHardware& hw) {
    TESSERA_TRY(perRack, f.asInt(2, 1024));
    if (hw.gpuModel->nvlink.generation == 0)
      return f.error("GPU model " + hw.gpuModel->id +
                     " has no NVLink; it cannot form an NVLink rack");
    if (ids.size() % static_cast<size_t>(perRack) != 0)
      return f.error(std::to_string(ids.size()) + " nodes do not split into racks of " +
                     std::to_string(perRack));
    for (size_t r = 0; r * static_cast<size_t>(perRack) < ids.size(); ++r) {
      std::vector<GpuId> gpus;
      for (size_t k = 0; k < static_cast<size_t>(perRack); ++k) {
        const Node& n = cluster_->node(ids[r * static_cast<size_t>(perRack) + k]);
        for (int i = 0; i < n.gpuCount(); ++i) gpus.push_back(n.firstGpu + static_cast<GpuId>(i));
      }
      cluster_->addNvlinkDomain(group + "-nvl-" + std::to_string(r + 1),
                                NvlinkDomainKind::MultiNodeRack, gpus);
    }
    return okStatus();
  }

  Status readGroup(const YamlField& f) {
    TESSERA_CHECK(f.onlyKeys({"name", "template", "count", "nodes", "leaf", "leafs", "pool",
                              "labels", "state", "driver", "gpus", "nvlink_rack"}));
    TESSERA_TRY(nameF, f.require("name"));
    TESSERA_TRY(group, nameF.asString());
    TESSERA_TRY(templateF, f.require("template"));
    TESSERA_TRY(hw, templateNamed(templateF));
    TESSERA_TRY(names, nodeNames(f, group));
    TESSERA_TRY(leafs, leafsFor(f, group, names.size()));
    TESSERA_TRY(attrs, readAttributes(f));
    GpuSettings gpus;
    if (attrs.gpus) {
      TESSERA_TRY(g, readGpuSettings(*attrs.gpus, *hw));
      gpus = std::move(g);
    }
    std::vector<NodeId> ids;
    for (size_t i = 0; i < names.size(); ++i) {
      TESSERA_TRY(id, createNode(f, names[i], hw, leafs[i], attrs, gpus));
      ids.push_back(id);
    }
    if (f.has("nvlink_rack")) {
      TESSERA_CHECK(addRackDomains(f.child("nvlink_rack"), group, ids, *hw));
    } else {
      for (NodeId id : ids) addLocalNvlinkDomains(id);
    }
    return okStatus();
  }

  Status readNode(const YamlField& f) {
    TESSERA_CHECK(f.onlyKeys(
        {"name", "template", "leaf", "pool", "labels", "state", "driver", "gpus", "nvlink_rack"}));
    TESSERA_TRY(nameF, f.require("name"));
    TESSERA_TRY(name, nameF.asString());
    TESSERA_TRY(templateF, f.require("template"));
    TESSERA_TRY(hw, templateNamed(templateF));
    TESSERA_TRY(leafF, f.require("leaf"));
    TESSERA_TRY(leaf, leafNamed(leafF));
    TESSERA_TRY(attrs, readAttributes(f));
    GpuSettings gpus;
    if (attrs.gpus) {
      TESSERA_TRY(g, readGpuSettings(*attrs.gpus, *hw));
      gpus = std::move(g);
    }
    TESSERA_TRY(id, createNode(nameF, name, hw, leaf, attrs, gpus));
    if (!f.has("nvlink_rack")) {
      addLocalNvlinkDomains(id);
      return okStatus();
    }
    const YamlField rackF = f.child("nvlink_rack");
    TESSERA_TRY(rack, rackF.asString());
    if (hw->gpuModel->nvlink.generation == 0)
      return rackF.error("GPU model " + hw->gpuModel->id +
                         " has no NVLink; it cannot join an NVLink rack");
    auto it = std::find_if(namedRacks_.begin(), namedRacks_.end(),
                           [&](const NamedRack& r) { return r.name == rack; });
    if (it == namedRacks_.end()) {
      namedRacks_.push_back({rack, rackF.location(), {}});
      it = std::prev(namedRacks_.end());
    }
    it->nodes.push_back(id);
    return okStatus();
  }

  // Racks named on individual nodes (`nvlink_rack: NAME`) become multi-node NVLink domains once
  // every node is known.
  Status addNamedRacks() {
    for (const auto& rack : namedRacks_) {
      for (const auto& d : cluster_->nvlinkDomains())
        if (d.name == rack.name)
          return Error{"NVLink domain name '" + rack.name + "' is already used", rack.where};
      std::vector<GpuId> gpus;
      for (NodeId id : rack.nodes) {
        const Node& n = cluster_->node(id);
        for (int i = 0; i < n.gpuCount(); ++i) gpus.push_back(n.firstGpu + static_cast<GpuId>(i));
      }
      cluster_->addNvlinkDomain(rack.name, NvlinkDomainKind::MultiNodeRack, gpus);
    }
    return okStatus();
  }

  // Slurm has one node_sharing per node (the flag on its gres.conf Name=mps line), and the
  // engine counts a node's MPS room exactly only then: a node whose MPS GPUs mix one and all is
  // refused rather than placed on an upper bound that Slurm may not honour.
  Status checkMpsNodeSharing() const {
    for (const Node& n : cluster_->nodes()) {
      int first = -1;
      for (int i = 0; i < n.gpuCount(); ++i) {
        const GpuSharing& g = cluster_->gpu(n.firstGpu + static_cast<GpuId>(i)).sharing;
        if (g.mode != SharingMode::Mps) continue;
        if (first < 0) {
          first = i;
          continue;
        }
        const MpsNodeSharing was =
            cluster_->gpu(n.firstGpu + static_cast<GpuId>(first)).sharing.mps.nodeSharing;
        if (g.mps.nodeSharing == was) continue;
        Error e{"node '" + n.name + "' mixes MPS node_sharing: GPU " + std::to_string(first) +
                    " says " + mpsNodeSharingName(was) + ", GPU " + std::to_string(i) + " " +
                    mpsNodeSharingName(g.mps.nodeSharing) +
                    "; a node has one value (Slurm's flag on its gres.conf Name=mps line), so "
                    "give all its MPS GPUs the same",
                {}};
        if (auto at = nodeDefinedAt_.find(n.name); at != nodeDefinedAt_.end()) e.where = at->second;
        return e;
      }
    }
    return okStatus();
  }

  Status readOverride(const YamlField& f) {
    TESSERA_CHECK(f.onlyKeys({"nodes", "pool", "labels", "state", "driver", "gpus"}));
    TESSERA_TRY(nodesF, f.require("nodes"));
    TESSERA_TRY(expr, nodesF.asString());
    auto names = expandHostlist(expr, kMaxNodes);
    if (!names) return nodesF.error(names.error().message);
    overrideWork_ += names->size();
    if (overrideWork_ > kMaxOverrideWork)
      return nodesF.error("overrides touch more than " + std::to_string(kMaxOverrideWork) +
                          " nodes in all");
    TESSERA_TRY(attrs, readAttributes(f));
    // GPU settings are parsed once per template, not once per node.
    std::map<const NodeHardware*, GpuSettings> settingsByTemplate;
    for (const auto& name : *names) {
      const Node* found = cluster_->findNode(name);
      if (!found) return nodesF.error("override names unknown node '" + name + "'");
      Node& n = cluster_->mutableNode(found->id);
      applyAttributes(n, attrs);
      if (n.labels.size() > kMaxLabels)
        return f.child("labels").error("node '" + name + "' would have more than " +
                                       std::to_string(kMaxLabels) + " labels");
      if (!attrs.gpus) continue;
      auto cached = settingsByTemplate.find(n.hw.get());
      if (cached == settingsByTemplate.end()) {
        TESSERA_TRY(gpus, readGpuSettings(*attrs.gpus, *n.hw));
        cached = settingsByTemplate.emplace(n.hw.get(), std::move(gpus)).first;
      }
      applyGpuSettings(n.id, cached->second);
    }
    return okStatus();
  }
};

}  // namespace

Expected<std::shared_ptr<const Cluster>> loadClusterSpec(std::string_view text,
                                                         const std::string& fileName,
                                                         const ClusterSpecOptions& options) {
  const GpuCatalog& catalog = options.catalog ? *options.catalog : GpuCatalog::builtin();
  SpecReader reader(fileName, catalog, options);
  return reader.read(text);
}

Expected<std::shared_ptr<const Cluster>> loadClusterSpecNode(const YAML::Node& doc,
                                                             const std::string& fileName,
                                                             const std::string& fieldPath,
                                                             const ClusterSpecOptions& options) {
  const GpuCatalog& catalog = options.catalog ? *options.catalog : GpuCatalog::builtin();
  SpecReader reader(fileName, catalog, options);
  return reader.read(doc, fieldPath);
}

Expected<std::shared_ptr<const Cluster>> loadClusterSpecFile(const std::string& path,
                                                             const GpuCatalog* catalog,
                                                             MpsNodeSharing mpsNodeSharing) {
  TESSERA_TRY(text, readTextFile(path));
  ClusterSpecOptions options;
  options.catalog = catalog;
  options.mpsNodeSharing = mpsNodeSharing;
  const auto parent = std::filesystem::path(path).parent_path();
  options.baseDir = parent.empty() ? "." : parent.string();
  return loadClusterSpec(text, path, options);
}

Expected<GpuCatalog> loadCatalog(const std::string& extraPath) {
  GpuCatalog catalog = GpuCatalog::builtin();
  if (extraPath.empty()) return catalog;
  auto extra = GpuCatalog::fromFile(extraPath);
  if (!extra) return Error{"GPU catalog " + extra.error().str(), {}};
  // A merge error has no location of its own: name the file it came from.
  if (auto merged = catalog.merge(*extra); !merged)
    return Error{"GPU catalog " + extraPath + ": " + merged.error().str(), {}};
  return catalog;
}

Expected<std::shared_ptr<const Cluster>> loadClusterOrDemo(const std::string& path,
                                                           const GpuCatalog& catalog,
                                                           MpsNodeSharing mpsNodeSharing) {
  if (!path.empty()) return loadClusterSpecFile(path, &catalog, mpsNodeSharing);
  ClusterSpecOptions options;
  options.catalog = &catalog;
  return loadClusterSpec(demoClusterYaml(), "demo-cluster.yaml (built in)", options);
}

std::string_view demoClusterYaml() {
  return embedded::demoClusterYaml();
}

std::shared_ptr<const Cluster> demoCluster() {
  auto cluster = loadClusterSpec(demoClusterYaml(), "resources/demo-cluster.yaml");
  // The demo spec is checked by the test suite; failing here is a build defect, not user input.
  if (!cluster) throw std::runtime_error("demo cluster: " + cluster.error().str());
  return *cluster;
}

}  // namespace tessera
