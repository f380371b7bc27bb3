#include "topology/gpu_catalog.h"

#include <algorithm>
#include <array>
#include <cmath>
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

// Engine keys of a profile row and of mig.engines, in MigEngines member order.
constexpr std::array<const char*, 5> kEngineKeys{"ce", "dec", "enc", "jpeg", "ofa"};

std::array<int, 5> engineCounts(const MigEngines& e) {
  return {e.ce, e.dec, e.enc, e.jpeg, e.ofa};
}

// The values docs/gpu-catalog.md allows; a typo ("hoper") would otherwise pass silently.
constexpr std::array<std::string_view, 8> kArchitectures{
    "pascal", "volta", "turing", "ampere", "ada-lovelace", "hopper", "blackwell", "unknown"};

// ASCII only: <cctype> depends on the locale and is undefined for negative chars.
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isHexDigit(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool isAlnum(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Ids appear unquoted in node templates and on command lines (`--gpu H100-SXM5-80GB`).
bool isIdChar(char c) {
  return isAlnum(c) || c == '.' || c == '_' || c == '-';
}

// "0x233010DE": device ID then vendor ID, the form mig-parted's device-filter uses.
bool isPciDeviceId(std::string_view s) {
  return s.size() == 10 && s.substr(0, 2) == "0x" &&
         std::all_of(s.begin() + 2, s.end(), isHexDigit);
}

// Profile names are written inside MIG layouts ("2x1g.10gb@0(1c)*,-"), so they must match
// ^[0-9]+g\.[A-Za-z0-9._+-]+$: no layout separators, and never "-", "empty" or "3x1g".
bool isLayoutSafeProfileName(std::string_view name) {
  const size_t digits =
      static_cast<size_t>(std::find_if_not(name.begin(), name.end(), isDigit) - name.begin());
  if (digits == 0 || name.substr(digits, 2) != "g.") return false;
  const std::string_view rest = name.substr(digits + 2);
  return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) {
    return isAlnum(c) || c == '.' || c == '_' || c == '+' || c == '-';
  });
}

Expected<MigEngines> readEngines(const YamlField& f) {
  MigEngines e;
  const std::array<int*, 5> out{&e.ce, &e.dec, &e.enc, &e.jpeg, &e.ofa};
  for (size_t k = 0; k < kEngineKeys.size(); ++k) {
    TESSERA_TRY(v, f.intAt(kEngineKeys[k], 0, 64));
    *out[k] = v;
  }
  return e;
}

Expected<std::string> readProfileName(const YamlField& f) {
  TESSERA_TRY(name, f.stringAt("name"));
  if (!isLayoutSafeProfileName(name))
    return f.child("name").error("profile name '" + name +
                                 "' must look like <G>g.<memory>: digits, 'g.', then letters, "
                                 "digits or . _ + - (e.g. 1g.10gb, 1g.10gb+me, 7g.141gb)");
  return name;
}

// memory_gib is informational; 0 is the documented "unknown", anything below is a typo.
Expected<double> readProfileMemory(const YamlField& f) {
  TESSERA_TRY(field, f.require("memory_gib"));
  TESSERA_TRY(memory, field.asDouble());
  if (!std::isfinite(memory) || memory < 0)
    return field.error("must be a number >= 0 (0 = unknown), got '" + field.node().Scalar() + "'");
  return memory;
}

// The allowed starts as a bit mask; a repeated start is a copy/paste slip in the -lgipp table.
Expected<uint16_t> readStarts(const YamlField& f, int profileSlices, int memorySlices) {
  TESSERA_TRY(startsF, f.require("starts"));
  TESSERA_TRY(starts, startsF.asIntList(0, memorySlices - 1));
  if (starts.empty()) return startsF.error("a profile needs at least one allowed start");
  uint16_t mask = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    const int s = starts[i];
    if (s + profileSlices > memorySlices)
      return startsF.error("start " + std::to_string(s) + " + " + std::to_string(profileSlices) +
                           " memory slices runs past the GPU's " + std::to_string(memorySlices));
    if ((mask >> s) & 1u)
      return startsF.item(i).error("start " + std::to_string(s) + " is listed twice");
    mask = static_cast<uint16_t>(mask | (1u << s));
  }
  return mask;
}

Expected<MigProfile> readProfile(const YamlField& f, int memorySlices) {
  TESSERA_CHECK(
      f.onlyKeys({"name", "id", "max", "sm", "ce", "dec", "enc", "jpeg", "ofa", "memory_gib",
                  "memory_slices", "compute_slices", "starts", "unconfirmed"}));
  MigProfile p;
  TESSERA_TRY(name, readProfileName(f));
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
  TESSERA_TRY(memory, readProfileMemory(f));
  p.memoryGiB = memory;
  TESSERA_TRY(memorySize, f.intAt("memory_slices", 1, memorySlices));
  p.memorySlices = memorySize;
  TESSERA_TRY(computeSize, f.intAt("compute_slices", 1, kMaxMemorySlices));
  p.computeSlices = computeSize;
  TESSERA_TRY(startMask, readStarts(f, p.memorySlices, memorySlices));
  p.startMask = startMask;
  if (f.has("unconfirmed")) {
    TESSERA_TRY(u, f.child("unconfirmed").asStringList());
    p.unconfirmed = u;
  }
  return p;
}

// A profile whose engines exceed the GPU's could never be placed; the row or the totals are wrong.
Status checkEnginesWithinTotals(const YamlField& f, const MigProfile& p, const MigEngines& totals) {
  const auto need = engineCounts(p.engines);
  const auto have = engineCounts(totals);
  for (size_t k = 0; k < kEngineKeys.size(); ++k)
    if (need[k] > have[k])
      return f.child(kEngineKeys[k])
          .error("profile '" + p.name + "' needs " + std::to_string(need[k]) + " " +
                 kEngineKeys[k] + " engines, more than the GPU's total of " +
                 std::to_string(have[k]) + " (mig.engines." + kEngineKeys[k] + ")");
  return okStatus();
}

// With a compute_instances table, a GI size without a key would silently refuse every CI split
// of that profile; without a table that refusal is the documented meaning, so only check then.
Status checkCiRuleExists(const YamlField& f, const MigProfile& p, const MigGeometry& g) {
  if (g.ciRule(p.computeSlices)) return okStatus();
  const std::string size = std::to_string(p.computeSlices);
  return f.child("compute_slices")
      .error("profile '" + p.name + "' has compute_slices " + size +
             ", but mig.compute_instances has no key " + size + " (add a rule '" + size +
             ": {...}' for GPU instances of that size)");
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

// Reads mig.profiles into `g`, whose slices, totals and CI rules are already read.
Status readProfiles(const YamlField& profiles, bool hasCiTable, MigGeometry& g) {
  TESSERA_CHECK(profiles.expectSequence());
  if (profiles.size() > static_cast<size_t>(kMaxMigProfiles))
    return profiles.error("at most " + std::to_string(kMaxMigProfiles) + " profiles per model");
  for (size_t i = 0; i < profiles.size(); ++i) {
    const YamlField item = profiles.item(i);
    TESSERA_TRY(p, readProfile(item, g.memorySlices));
    if (g.profileIndex(p.name) >= 0) return item.error("duplicate profile name '" + p.name + "'");
    if (g.profileIndexById(p.id) >= 0)
      return item.error("duplicate profile id " + std::to_string(p.id));
    TESSERA_CHECK(checkEnginesWithinTotals(item, p, g.totals));
    if (hasCiTable) TESSERA_CHECK(checkCiRuleExists(item, p, g));
    g.profiles.push_back(std::move(p));
  }
  return okStatus();
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
  const bool hasCiTable = f.has("compute_instances");
  if (hasCiTable) {
    TESSERA_TRY(rules, readCiRules(f.child("compute_instances"), g.computeSlices));
    g.computeInstances = std::move(rules);
  }
  TESSERA_TRY(profiles, f.require("profiles"));
  TESSERA_CHECK(readProfiles(profiles, hasCiTable, g));
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

Expected<std::string> readArchitecture(const YamlField& f) {
  TESSERA_TRY(architecture, f.stringAt("architecture"));
  if (std::find(kArchitectures.begin(), kArchitectures.end(), architecture) != kArchitectures.end())
    return architecture;
  std::vector<std::string> allowed(kArchitectures.begin(), kArchitectures.end());
  return f.child("architecture")
      .error("unknown architecture '" + architecture + "' (expected one of " + join(allowed, ", ") +
             ")");
}

// What alias `i` of `m` repeats among the model's own names, or "" when it is new. Lookups try
// all names alike, so a repeat is at best dead weight and at worst a copy/paste slip.
std::string aliasRepeat(const GpuModel& m, size_t i) {
  const std::string alias = toLower(m.aliases[i]);
  if (alias == toLower(m.id)) return "the model's own id '" + m.id + "'";
  if (alias == toLower(m.productName))
    return "the model's own product_name '" + m.productName + "'";
  for (size_t j = 0; j < i; ++j)
    if (toLower(m.aliases[j]) == alias) return "alias '" + m.aliases[j] + "' of the same model";
  return {};
}

// id, product_name and aliases, each checked against the model's other names.
Status readNames(const YamlField& f, GpuModel& m) {
  TESSERA_TRY(id, f.stringAt("id"));
  if (id.empty()) return f.child("id").error("model id must not be empty");
  if (!std::all_of(id.begin(), id.end(), isIdChar))
    return f.child("id").error("model id '" + id +
                               "' may only contain letters, digits, '.', '_' and '-'");
  m.id = id;
  TESSERA_TRY(productName, f.stringAt("product_name"));
  m.productName = productName;
  if (!f.has("aliases")) return okStatus();
  TESSERA_TRY(aliases, f.child("aliases").asStringList());
  m.aliases = aliases;
  for (size_t i = 0; i < m.aliases.size(); ++i)
    if (auto repeat = aliasRepeat(m, i); !repeat.empty())
      return f.child("aliases").item(i).error("alias '" + m.aliases[i] + "' repeats " + repeat +
                                              " (names compare case-insensitively)");
  return okStatus();
}

Expected<std::vector<std::string>> readPciDeviceIds(const YamlField& f) {
  TESSERA_TRY(ids, f.asStringList());
  for (size_t i = 0; i < ids.size(); ++i)
    if (!isPciDeviceId(ids[i]))
      return f.item(i).error("PCI device ID '" + ids[i] +
                             "' must be 0x followed by 8 hex digits, device then vendor "
                             "(e.g. 0x233010DE)");
  return ids;
}

// Hardware facts other than names, NVLink and MIG; all optional.
Status readHardware(const YamlField& f, GpuModel& m) {
  if (f.has("memory_mib")) {
    TESSERA_TRY(v, f.child("memory_mib").asInt(1));
    m.memoryMiB = v;
  }
  if (f.has("sm_count")) {
    TESSERA_TRY(v, f.child("sm_count").asInt(1));
    m.smCount = v;
  }
  if (f.has("pcie_generation")) {
    TESSERA_TRY(v, f.child("pcie_generation").asInt(0, 8));  // 0 = unknown
    m.pcieGeneration = v;
  }
  if (f.has("pci_device_ids")) {
    TESSERA_TRY(v, readPciDeviceIds(f.child("pci_device_ids")));
    m.pciDeviceIds = v;
  }
  return okStatus();
}

Status readInterconnect(const YamlField& f, GpuModel& m) {
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
  return okStatus();
}

Expected<GpuModel> readModel(const YamlField& f) {
  TESSERA_CHECK(f.onlyKeys({"id", "product_name", "aliases", "architecture", "memory_mib",
                            "sm_count", "nvlink", "nvswitch_baseboard", "pcie_generation",
                            "pci_device_ids", "unconfirmed", "notes", "mig", "mps_max_clients"}));
  GpuModel m;
  TESSERA_CHECK(readNames(f, m));
  TESSERA_TRY(architecture, readArchitecture(f));
  m.architecture = architecture;
  TESSERA_CHECK(readHardware(f, m));
  TESSERA_CHECK(readInterconnect(f, m));
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
  if (f.has("mps_max_clients")) {
    TESSERA_TRY(n, f.intAt("mps_max_clients", 1, 1024));
    m.mpsMaxClients = n;
  }
  return m;
}

// `mps_client_limits: {source: TEXT, by_architecture: {ARCH: N}}`: the MPS server's client limit
// per architecture, kept as data because NVIDIA raises it between driver generations.
Expected<std::map<std::string, int>> readMpsLimits(const YamlField& f) {
  TESSERA_CHECK(f.onlyKeys({"source", "by_architecture"}));
  TESSERA_TRY(source, f.stringAt("source"));
  if (source.empty()) return f.child("source").error("say where the client limits come from");
  TESSERA_TRY(table, f.require("by_architecture"));
  TESSERA_CHECK(table.expectMap());
  std::map<std::string, int> limits;
  for (auto& [arch, value] : table.entries()) {
    if (std::find(kArchitectures.begin(), kArchitectures.end(), arch) == kArchitectures.end())
      return value.error("unknown architecture '" + arch + "'");
    TESSERA_TRY(n, value.asInt(1, 1024));
    limits[arch] = n;
  }
  return limits;
}

// A model without its own `mps_max_clients` takes its architecture's limit.
std::shared_ptr<const GpuModel> withMpsLimit(std::shared_ptr<const GpuModel> m,
                                             const std::map<std::string, int>& limits) {
  const auto it = limits.find(m->architecture);
  if (m->mpsMaxClients > 0 || it == limits.end()) return m;
  auto copy = std::make_shared<GpuModel>(*m);
  copy->mpsMaxClients = it->second;
  return copy;
}

// All the names a model answers to, as written (error messages quote them this way).
std::vector<std::string> spelledNamesOf(const GpuModel& m) {
  std::vector<std::string> names{m.id};
  if (!m.productName.empty()) names.push_back(m.productName);
  names.insert(names.end(), m.aliases.begin(), m.aliases.end());
  return names;
}

// The same names lower-cased, as lookups compare them.
std::vector<std::string> namesOf(const GpuModel& m) {
  auto names = spelledNamesOf(m);
  for (auto& n : names) n = toLower(n);
  return names;
}

// Records the names of `m` in `owner` (lower-cased name -> model id). Every name must lead to
// one model: a repeated id would leave the earlier entry unreachable by lookups.
Status claimNames(const YamlField& f, const GpuModel& m,
                  std::map<std::string, std::string>& owner) {
  if (auto it = owner.find(toLower(m.id));
      it != owner.end() && toLower(it->second) == toLower(m.id))
    return f.child("id").error("duplicate model id '" + m.id +
                               "' (ids compare case-insensitively)");
  for (const auto& n : spelledNamesOf(m)) {
    auto [it, inserted] = owner.emplace(toLower(n), m.id);
    if (!inserted && it->second != m.id)
      return f.error("name '" + n + "' of model '" + m.id + "' is already used by model '" +
                     it->second + "' (names compare case-insensitively)");
  }
  return okStatus();
}

}  // namespace

Expected<GpuCatalog> GpuCatalog::fromYaml(std::string_view text, const std::string& fileName) {
  TESSERA_TRY(doc, parseYaml(text, fileName));
  YamlField root(doc, "", &fileName);
  if (doc.IsNull()) return root.error("the file is empty (a GPU catalog starts with 'version: 1')");
  TESSERA_CHECK(root.onlyKeys({"version", "models", "mps_client_limits"}));
  TESSERA_TRY(version, root.require("version"));
  TESSERA_TRY(versionV, version.asInt());
  if (versionV != 1)
    return version.error("unsupported catalog version " + std::to_string(versionV) +
                         " (this build reads version 1)");
  TESSERA_TRY(models, root.require("models"));
  TESSERA_CHECK(models.expectSequence());
  GpuCatalog catalog;
  if (root.has("mps_client_limits")) {
    TESSERA_TRY(limits, readMpsLimits(root.child("mps_client_limits")));
    catalog.mpsLimits_ = std::move(limits);
  }
  std::map<std::string, std::string> owner;  // lower-cased name -> model id
  for (size_t i = 0; i < models.size(); ++i) {
    TESSERA_TRY(m, readModel(models.item(i)));
    TESSERA_CHECK(claimNames(models.item(i), m, owner));
    catalog.models_.push_back(
        withMpsLimit(std::make_shared<const GpuModel>(std::move(m)), catalog.mpsLimits_));
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
    for (const auto& n : spelledNamesOf(*m))
      if (auto it = owner.find(toLower(n)); it != owner.end())
        return Error{
            "model '" + m->id + "' uses the name '" + n + "', which already belongs to model '" +
                it->second +
                "' (names compare case-insensitively; give it another name, or reuse id '" +
                it->second + "' to replace it)",
            {}};
  // A user catalog without its own table takes the MPS client limits of the one it joins.
  for (const auto& [arch, n] : other.mpsLimits_) mpsLimits_[arch] = n;
  for (const auto& theirs : other.models_) {
    const auto m = withMpsLimit(theirs, mpsLimits_);
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
