#include "topology/gpu_catalog.h"

#include <algorithm>
#include <map>

#include "core/strings.h"
#include "topology/yaml_reader.h"

namespace tessera {
namespace embedded {
std::string_view gpuCatalogYaml();
}

int MigGeometry::profileIndex(std::string_view name) const {
  for (size_t i = 0; i < profiles.size(); ++i)
    if (profiles[i].name == name) return static_cast<int>(i);
  return -1;
}

int MigGeometry::profileIndexById(int id) const {
  for (size_t i = 0; i < profiles.size(); ++i)
    if (profiles[i].id == id) return static_cast<int>(i);
  return -1;
}

const ComputeInstanceRule* MigGeometry::ciRule(int giComputeSlices) const {
  for (const auto& r : computeInstances)
    if (r.giComputeSlices == giComputeSlices) return &r;
  return nullptr;
}

namespace {

Expected<MigEngines> readEngines(const YamlField& f) {
  MigEngines e;
  for (auto [key, out] : {std::pair{"ce", &e.ce},
                          {"dec", &e.dec},
                          {"enc", &e.enc},
                          {"jpeg", &e.jpeg},
                          {"ofa", &e.ofa}}) {
    TESSERA_TRY(v, f.intAt(key, 0, 64));
    *out = v;
  }
  return e;
}

Expected<MigProfile> readProfile(const YamlField& f, int memorySlices) {
  TESSERA_CHECK(
      f.onlyKeys({"name", "id", "max", "sm", "ce", "dec", "enc", "jpeg", "ofa", "memory_gib",
                  "memory_slices", "compute_slices", "starts", "unconfirmed"}));
  MigProfile p;
  TESSERA_TRY(name, f.stringAt("name"));
  p.name = name;
  p.mediaExtensions = name.find("+me") != std::string::npos;
  TESSERA_TRY(id, f.intAt("id", 0, 1000));
  p.id = id;
  TESSERA_TRY(maxCount, f.intAt("max", 1, kMaxMemorySlices));
  p.maxCount = maxCount;
  if (f.has("sm")) {
    TESSERA_TRY(sm, f.intAt("sm", 0, 100000));
    p.sm = sm;
  }
  TESSERA_TRY(engines, readEngines(f));
  p.engines = engines;
  TESSERA_TRY(memory, f.doubleAt("memory_gib"));
  p.memoryGiB = memory;
  TESSERA_TRY(memorySize, f.intAt("memory_slices", 1, memorySlices));
  p.memorySlices = memorySize;
  TESSERA_TRY(computeSize, f.intAt("compute_slices", 1, kMaxMemorySlices));
  p.computeSlices = computeSize;
  TESSERA_TRY(startsF, f.require("starts"));
  TESSERA_TRY(starts, startsF.asIntList(0, memorySlices - 1));
  if (starts.empty()) return startsF.error("a profile needs at least one allowed start");
  for (int s : starts) {
    if (s + p.memorySlices > memorySlices)
      return startsF.error("start " + std::to_string(s) + " + " + std::to_string(p.memorySlices) +
                           " memory slices runs past the GPU's " + std::to_string(memorySlices));
    p.startMask = static_cast<uint16_t>(p.startMask | (1u << s));
  }
  if (f.has("unconfirmed")) {
    TESSERA_TRY(u, f.child("unconfirmed").asStringList());
    p.unconfirmed = u;
  }
  return p;
}

Expected<std::vector<ComputeInstanceRule>> readCiRules(const YamlField& f, int computeSlices) {
  TESSERA_CHECK(f.expectMap());
  std::vector<ComputeInstanceRule> rules;
  for (auto& [key, sizes] : f.entries()) {
    auto gi = parseInt(key);
    if (!gi || *gi < 1 || *gi > computeSlices)
      return sizes.error("GI size '" + key + "' must be 1.." + std::to_string(computeSlices));
    TESSERA_CHECK(sizes.expectMap());
    ComputeInstanceRule rule{*gi, {}};
    for (auto& [ciKey, count] : sizes.entries()) {
      auto ci = parseInt(ciKey);
      if (!ci || *ci < 1 || *ci > *gi)
        return count.error("CI size '" + ciKey + "' must be 1.." + std::to_string(*gi));
      TESSERA_TRY(n, count.asInt(1, *gi));
      rule.sizes.emplace_back(*ci, n);
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

Expected<MigGeometry> readMig(const YamlField& f) {
  TESSERA_CHECK(
      f.onlyKeys({"memory_slices", "compute_slices", "engines", "compute_instances", "profiles"}));
  MigGeometry g;
  TESSERA_TRY(memorySlices, f.intAt("memory_slices", 1, kMaxMemorySlices));
  g.memorySlices = memorySlices;
  TESSERA_TRY(computeSlices, f.intAt("compute_slices", 1, kMaxMemorySlices));
  g.computeSlices = computeSlices;
  TESSERA_TRY(eng, f.require("engines"));
  TESSERA_CHECK(eng.onlyKeys({"ce", "dec", "enc", "jpeg", "ofa"}));
  TESSERA_TRY(totals, readEngines(eng));
  g.totals = totals;
  if (f.has("compute_instances")) {
    TESSERA_TRY(rules, readCiRules(f.child("compute_instances"), g.computeSlices));
    g.computeInstances = std::move(rules);
  }
  TESSERA_TRY(profiles, f.require("profiles"));
  TESSERA_CHECK(profiles.expectSequence());
  if (profiles.size() > static_cast<size_t>(kMaxMigProfiles))
    return profiles.error("at most " + std::to_string(kMaxMigProfiles) + " profiles per model");
  for (size_t i = 0; i < profiles.size(); ++i) {
    TESSERA_TRY(p, readProfile(profiles.item(i), g.memorySlices));
    if (g.profileIndex(p.name) >= 0)
      return profiles.item(i).error("duplicate profile name '" + p.name + "'");
    if (g.profileIndexById(p.id) >= 0)
      return profiles.item(i).error("duplicate profile id " + std::to_string(p.id));
    g.profiles.push_back(std::move(p));
  }
  return g;
}

Expected<NvlinkSpec> readNvlink(const YamlField& f) {
  TESSERA_CHECK(f.onlyKeys({"generation", "links", "bandwidth_gbps"}));
  NvlinkSpec n;
  TESSERA_TRY(generation, f.intAt("generation", 1, 10));
  n.generation = generation;
  TESSERA_TRY(links, f.intAt("links", 1, 64));
  n.links = links;
  TESSERA_TRY(bandwidth, f.intAt("bandwidth_gbps", 1, 100000));
  n.bandwidthGBps = bandwidth;
  return n;
}

Expected<GpuModel> readModel(const YamlField& f) {
  TESSERA_CHECK(f.onlyKeys({"id", "product_name", "aliases", "architecture", "memory_mib",
                            "sm_count", "nvlink", "nvswitch_baseboard", "pcie_generation",
                            "pci_device_ids", "unconfirmed", "notes", "mig"}));
  GpuModel m;
  TESSERA_TRY(id, f.stringAt("id"));
  if (id.empty()) return f.child("id").error("model id must not be empty");
  m.id = id;
  TESSERA_TRY(productName, f.stringAt("product_name"));
  m.productName = productName;
  TESSERA_TRY(architecture, f.stringAt("architecture"));
  m.architecture = architecture;
  if (f.has("aliases")) {
    TESSERA_TRY(a, f.child("aliases").asStringList());
    m.aliases = a;
  }
  if (f.has("memory_mib")) {
    TESSERA_TRY(v, f.child("memory_mib").asInt(1));
    m.memoryMiB = v;
  }
  if (f.has("sm_count")) {
    TESSERA_TRY(v, f.child("sm_count").asInt(1));
    m.smCount = v;
  }
  if (f.has("nvlink")) {
    TESSERA_TRY(n, readNvlink(f.child("nvlink")));
    m.nvlink = n;
  }
  if (f.has("nvswitch_baseboard")) {
    TESSERA_TRY(v, f.child("nvswitch_baseboard").asBool());
    if (v && m.nvlink.generation == 0)
      return f.child("nvswitch_baseboard").error("an NVSwitch baseboard needs an nvlink: entry");
    m.nvswitchBaseboard = v;
  }
  if (f.has("pcie_generation")) {
    TESSERA_TRY(v, f.child("pcie_generation").asInt(0, 8));  // 0 = unknown
    m.pcieGeneration = v;
  }
  if (f.has("pci_device_ids")) {
    TESSERA_TRY(v, f.child("pci_device_ids").asStringList());
    m.pciDeviceIds = v;
  }
  if (f.has("unconfirmed")) {
    TESSERA_TRY(v, f.child("unconfirmed").asStringList());
    m.unconfirmed = v;
  }
  if (f.has("notes")) {
    TESSERA_TRY(v, f.child("notes").asString());
    m.notes = v;
  }
  if (f.has("mig")) {
    TESSERA_TRY(g, readMig(f.child("mig")));
    m.mig = std::move(g);
  }
  return m;
}

// All the names a model answers to, lower-cased.
std::vector<std::string> namesOf(const GpuModel& m) {
  std::vector<std::string> names{toLower(m.id)};
  if (!m.productName.empty()) names.push_back(toLower(m.productName));
  for (const auto& a : m.aliases) names.push_back(toLower(a));
  return names;
}

}  // namespace

Expected<GpuCatalog> GpuCatalog::fromYaml(std::string_view text, const std::string& fileName) {
  TESSERA_TRY(doc, parseYaml(text, fileName));
  YamlField root(doc, "", &fileName);
  if (doc.IsNull()) return root.error("the file is empty (a GPU catalog starts with 'version: 1')");
  TESSERA_CHECK(root.onlyKeys({"version", "models"}));
  TESSERA_TRY(version, root.require("version"));
  TESSERA_TRY(versionV, version.asInt());
  if (versionV != 1)
    return version.error("unsupported catalog version " + std::to_string(versionV) +
                         " (this build reads version 1)");
  TESSERA_TRY(models, root.require("models"));
  TESSERA_CHECK(models.expectSequence());
  GpuCatalog catalog;
  std::map<std::string, std::string> owner;  // lower-cased name -> model id
  for (size_t i = 0; i < models.size(); ++i) {
    TESSERA_TRY(m, readModel(models.item(i)));
    for (const auto& n : namesOf(m)) {
      auto [it, inserted] = owner.emplace(n, m.id);
      if (!inserted && it->second != m.id)
        return models.item(i).error("name '" + n + "' of model '" + m.id +
                                    "' is already used by model '" + it->second + "'");
    }
    catalog.models_.push_back(std::make_shared<const GpuModel>(std::move(m)));
  }
  return catalog;
}

Expected<GpuCatalog> GpuCatalog::fromFile(const std::string& path) {
  TESSERA_TRY(text, readTextFile(path));
  return fromYaml(text, path);
}

const GpuCatalog& GpuCatalog::builtin() {
  static const GpuCatalog catalog = [] {
    auto parsed = fromYaml(embedded::gpuCatalogYaml(), "resources/gpu-catalog.yaml");
    // The built-in catalog is validated by the test suite; failing here is a build defect.
    if (!parsed.ok()) throw std::runtime_error("built-in GPU catalog: " + parsed.error().str());
    return std::move(parsed).value();
  }();
  return catalog;
}

Status GpuCatalog::merge(const GpuCatalog& other) {
  std::map<std::string, std::string> owner;  // lower-cased name -> id, for models that stay
  for (const auto& mine : models_) {
    const bool replaced = std::any_of(other.models_.begin(), other.models_.end(),
                                      [&](const auto& m) { return m->id == mine->id; });
    if (!replaced)
      for (const auto& n : namesOf(*mine)) owner.emplace(n, mine->id);
  }
  for (const auto& m : other.models_)
    for (const auto& n : namesOf(*m))
      if (auto it = owner.find(n); it != owner.end())
        return Error{"model '" + m->id + "' uses the name '" + n +
                         "', which already belongs to model '" + it->second +
                         "' (give it another name, or reuse id '" + it->second + "' to replace it)",
                     {}};
  for (const auto& m : other.models_) {
    auto same = std::find_if(models_.begin(), models_.end(),
                             [&](const auto& mine) { return mine->id == m->id; });
    if (same != models_.end())
      *same = m;
    else
      models_.push_back(m);
  }
  return okStatus();
}

std::shared_ptr<const GpuModel> GpuCatalog::findShared(std::string_view name) const {
  const std::string key = toLower(trim(name));
  for (const auto& m : models_)
    for (const auto& n : namesOf(*m))
      if (n == key) return m;
  return nullptr;
}

const GpuModel* GpuCatalog::find(std::string_view name) const {
  return findShared(name).get();
}

std::string GpuCatalog::knownIds() const {
  std::vector<std::string> ids;
  for (const auto& m : models_) ids.push_back(m->id);
  return join(ids, ", ");
}

}  // namespace tessera
