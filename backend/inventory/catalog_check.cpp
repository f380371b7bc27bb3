#include "inventory/catalog_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/strings.h"

namespace tessera {

namespace {

// nvidia-smi prints GiB with two decimals; anything closer than that is the same size.
constexpr double kMemoryToleranceGiB = 0.005;

bool listsDeviceId(const GpuModel& model, uint32_t id) {
  const std::string text = toLower(pciDeviceIdText(id));
  return std::any_of(model.pciDeviceIds.begin(), model.pciDeviceIds.end(),
                     [&text](const std::string& s) { return toLower(s) == text; });
}

std::string gpuLabel(const GpuInventory& gpu) {
  return "GPU " + std::to_string(gpu.index) + " '" + gpu.name + "' (PCI device id " +
         pciDeviceIdText(gpu.pciDeviceId) + ")";
}

std::shared_ptr<const GpuModel> matchModel(const GpuInventory& gpu, const GpuCatalog& catalog,
                                           std::vector<std::string>& warnings) {
  if (auto byName = catalog.findShared(gpu.name)) {
    if (gpu.pciDeviceId != 0 && !listsDeviceId(*byName, gpu.pciDeviceId))
      warnings.push_back(gpuLabel(gpu) + " is catalog model " + byName->id +
                         " by name, but the catalog lists its PCI device ids as [" +
                         join(byName->pciDeviceIds, ", ") + "]");
    return byName;
  }
  std::vector<std::shared_ptr<const GpuModel>> byId;
  for (const auto& m : catalog.models())
    if (gpu.pciDeviceId != 0 && listsDeviceId(*m, gpu.pciDeviceId)) byId.push_back(m);
  if (byId.size() != 1) return nullptr;
  warnings.push_back(gpuLabel(gpu) + ": the catalog knows no such product name; matched model " +
                     byId.front()->id + " by PCI device id");
  return byId.front();
}

std::string gib(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

class MigComparison {
 public:
  MigComparison(const GpuModel& model, const GpuInventory& gpu, std::set<std::string>& out)
      : model_(model), gpu_(gpu), out_(out) {}

  void run() {
    if (!model_.migCapable()) {
      if (!gpu_.profiles.empty())
        warn("the driver reports " + std::to_string(gpu_.profiles.size()) +
             " MIG profiles; the catalog has no MIG table for this model");
      return;
    }
    if (!gpu_.mig.supported) {
      warn("the catalog says MIG capable, but the driver reports no MIG support");
      return;
    }
    const MigGeometry& g = *model_.mig;
    for (const auto& p : gpu_.profiles) {
      const int i = g.profileIndexById(p.id);
      if (i < 0) {
        warn("profile " + std::to_string(p.id) + nameOf(p) + " is not in the catalog");
        continue;
      }
      compare(g.profiles[static_cast<size_t>(i)], p);
    }
    for (const auto& c : g.profiles) {
      const bool reported = std::any_of(gpu_.profiles.begin(), gpu_.profiles.end(),
                                        [&c](const MigProfileInfo& p) { return p.id == c.id; });
      if (!reported)
        warn("catalog profile " + c.name + " (id " + std::to_string(c.id) +
             ") is not reported by this driver");
    }
  }

 private:
  void warn(const std::string& what) { out_.insert(model_.id + ": " + what); }

  static std::string nameOf(const MigProfileInfo& p) {
    return p.name.empty() ? std::string() : " (" + p.name + ")";
  }

  void differs(const MigProfile& c, const std::string& field, const std::string& node,
               const std::string& catalog, const std::string& why = {}) {
    warn("profile " + c.name + " (id " + std::to_string(c.id) + "): " + field + " " + node +
         " on this node, " + catalog + " in the catalog" + why);
  }

  void compareInt(const MigProfile& c, const char* field, int node, int catalog) {
    if (node != catalog) differs(c, field, std::to_string(node), std::to_string(catalog));
  }

  void compare(const MigProfile& c, const MigProfileInfo& p) {
    if (!p.name.empty() && p.name != c.name) differs(c, "name", p.name, c.name);
    compareInt(c, "compute slices", p.computeSlices, c.computeSlices);
    compareInt(c, "instances", p.instanceCount, c.maxCount);
    if (c.sm > 0) compareInt(c, "SMs", p.sm, c.sm);
    compareInt(c, "copy engines", p.engines.ce, c.engines.ce);
    compareInt(c, "decoders", p.engines.dec, c.engines.dec);
    compareInt(c, "encoders", p.engines.enc, c.engines.enc);
    compareInt(c, "JPEG engines", p.engines.jpeg, c.engines.jpeg);
    compareInt(c, "OFA engines", p.engines.ofa, c.engines.ofa);
    const double nodeGiB = p.memoryMiB / 1024.0;
    if (c.memoryGiB > 0 && std::abs(nodeGiB - c.memoryGiB) >= kMemoryToleranceGiB)
      differs(c, "memory", gib(nodeGiB) + " GiB", gib(c.memoryGiB) + " GiB",
              " (drivers differ by about 0.25 GiB here; trust the driver's figure)");
    comparePlacements(c, p);
  }

  void comparePlacements(const MigProfile& c, const MigProfileInfo& p) {
    uint16_t starts = 0;
    std::vector<std::string> text;
    for (const auto& pl : p.placements) {
      if (pl.size != c.memorySlices)
        differs(c, "placement size", std::to_string(pl.size) + " memory slices",
                std::to_string(c.memorySlices));
      if (pl.start >= 0 && pl.start < kMaxMemorySlices)
        starts = static_cast<uint16_t>(starts | (1u << pl.start));
    }
    if (starts != c.startMask)
      differs(c, "legal starts", "{" + formatStartsOf(starts) + "}",
              "{" + formatStartsOf(c.startMask) + "}");
  }

  static std::string formatStartsOf(uint16_t mask) {
    std::vector<std::string> s;
    for (int i = 0; i < kMaxMemorySlices; ++i)
      if ((mask >> i) & 1u) s.push_back(std::to_string(i));
    return join(s, ",");
  }

  const GpuModel& model_;
  const GpuInventory& gpu_;
  std::set<std::string>& out_;
};

std::string unknownMessage(const GpuInventory& gpu) {
  return gpuLabel(gpu) +
         " is not in the GPU catalog. Add a model for it (the stanza below, built from what the "
         "driver reports) to a catalog file and pass it with --catalog FILE";
}

// NVML's profile struct carries no name: "<compute slices>g.<GiB rounded>gb", as drivers name
// most profiles; a second profile with the same shape gets its id appended.
std::vector<std::string> profileNames(const GpuInventory& gpu) {
  std::vector<std::string> names;
  for (const auto& p : gpu.profiles) {
    std::string name = p.name;
    if (name.empty())
      name = std::to_string(p.computeSlices) + "g." +
             std::to_string(static_cast<int>(std::lround(p.memoryMiB / 1024.0))) + "gb";
    if (std::find(names.begin(), names.end(), name) != names.end())
      name += "-id" + std::to_string(p.id);
    names.push_back(name);
  }
  return names;
}

std::string stanzaId(const std::string& productName) {
  std::string id;
  for (char c : productName) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-';
    id += keep ? c : '-';
  }
  return id.empty() ? "UNKNOWN-GPU" : id;
}

std::string profileLine(const MigProfileInfo& p, const std::string& name) {
  std::vector<std::string> starts;
  for (const auto& pl : p.placements) starts.push_back(std::to_string(pl.start));
  const int memorySlices = p.placements.empty() ? 0 : p.placements.front().size;
  return "        - {name: " + name + ", id: " + std::to_string(p.id) +
         ", max: " + std::to_string(p.instanceCount) + ", sm: " + std::to_string(p.sm) +
         ", ce: " + std::to_string(p.engines.ce) + ", dec: " + std::to_string(p.engines.dec) +
         ", enc: " + std::to_string(p.engines.enc) + ", jpeg: " + std::to_string(p.engines.jpeg) +
         ", ofa: " + std::to_string(p.engines.ofa) + ", memory_gib: " + gib(p.memoryMiB / 1024.0) +
         ", memory_slices: " + std::to_string(memorySlices) +
         ", compute_slices: " + std::to_string(p.computeSlices) + ", starts: [" +
         join(starts, ", ") + "]}\n";
}

std::string migStanza(const GpuInventory& gpu) {
  int memorySlices = 0;
  const MigProfileInfo* full = &gpu.profiles.front();
  for (const auto& p : gpu.profiles) {
    for (const auto& pl : p.placements) memorySlices = std::max(memorySlices, pl.start + pl.size);
    if (p.computeSlices > full->computeSlices) full = &p;
  }
  const MigEngines& e = full->engines;
  std::string out = "    mig:\n      memory_slices: " + std::to_string(memorySlices) +
                    "\n      compute_slices: " + std::to_string(full->computeSlices) +
                    "\n      engines: {ce: " + std::to_string(e.ce) +
                    ", dec: " + std::to_string(e.dec) + ", enc: " + std::to_string(e.enc) +
                    ", jpeg: " + std::to_string(e.jpeg) + ", ofa: " + std::to_string(e.ofa) +
                    "}\n      profiles:\n";
  const auto names = profileNames(gpu);
  for (size_t i = 0; i < gpu.profiles.size(); ++i) out += profileLine(gpu.profiles[i], names[i]);
  return out;
}

}  // namespace

CatalogCheck checkAgainstCatalog(const NodeInventory& node, const GpuCatalog& catalog) {
  CatalogCheck check;
  std::set<std::string> migWarnings;
  std::set<std::string> unknownNames;
  for (const auto& gpu : node.gpus) {
    if (!gpu.fault.empty()) {  // nothing of a faulted GPU but its index is known
      check.models.push_back(nullptr);
      continue;
    }
    auto model = matchModel(gpu, catalog, check.warnings);
    if (model) MigComparison(*model, gpu, migWarnings).run();
    if (!model && unknownNames.insert(gpu.name).second)
      check.unknown.push_back(unknownMessage(gpu));
    check.models.push_back(std::move(model));
  }
  check.warnings.insert(check.warnings.end(), migWarnings.begin(), migWarnings.end());
  return check;
}

std::string catalogStanza(const GpuInventory& gpu) {
  // The catalog spells architectures in lower case with dashes ("ada-lovelace").
  std::string arch = toLower(gpu.architecture);
  std::replace(arch.begin(), arch.end(), ' ', '-');
  if (arch.empty()) arch = "unknown";
  std::string out =
      "  - id: " + stanzaId(gpu.name) + "\n    product_name: " + doubleQuoted(gpu.name) +
      "\n    architecture: " + arch + "\n    memory_mib: " + std::to_string(gpu.memoryMiB) + "\n";
  if (gpu.pciDeviceId != 0)
    out += "    pci_device_ids: [\"" + pciDeviceIdText(gpu.pciDeviceId) + "\"]\n";
  if (!gpu.profiles.empty()) out += migStanza(gpu);
  return out;
}

}  // namespace tessera
