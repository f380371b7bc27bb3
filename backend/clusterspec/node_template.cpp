#include "clusterspec/node_template.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <numeric>
#include <set>

#include "clusterspec/hostlist.h"
#include "core/strings.h"

namespace tessera {

namespace {

int nvlinkCount(const NodeHardware& hw) {
  return hw.gpuModel->nvlink.links > 0 ? hw.gpuModel->nvlink.links : 1;
}

bool sameBridgeGroup(const NodeHardware& hw, int a, int b) {
  for (const auto& group : hw.nvlinkGroups)
    if (std::count(group.begin(), group.end(), a) && std::count(group.begin(), group.end(), b))
      return true;
  return false;
}

Status checkGpuIndices(const YamlField& f, const std::vector<int>& gpus, int gpuCount) {
  for (int g : gpus)
    if (g < 0 || g >= gpuCount)
      return f.error("GPU index " + std::to_string(g) + " out of range (template has " +
                     std::to_string(gpuCount) + " GPUs)");
  return okStatus();
}

Status readNuma(const YamlField& f, NodeHardware& hw) {
  TESSERA_CHECK(f.expectSequence());
  std::vector<int> owner(static_cast<size_t>(hw.gpuCount), kNone);
  std::set<int> cpuOwner;
  for (size_t i = 0; i < f.size(); ++i) {
    const YamlField zone = f.item(i);
    TESSERA_CHECK(zone.onlyKeys({"cpus", "gpus"}));
    NumaZone z;
    z.id = static_cast<int>(i);
    if (zone.has("cpus")) {
      TESSERA_TRY(text, zone.child("cpus").asString());
      auto cpus = parseCpuList(text);
      if (!cpus)
        return zone.child("cpus").error("bad CPU list '" + text + "' (expected e.g. 0-55,112-167)");
      for (int cpu : *cpus)
        if (!cpuOwner.insert(cpu).second)
          return zone.child("cpus").error("CPU " + std::to_string(cpu) +
                                          " is listed in two NUMA zones");
      z.cpus = *cpus;
    }
    if (zone.has("gpus")) {
      TESSERA_TRY(gpus, zone.child("gpus").asIntList());
      TESSERA_CHECK(checkGpuIndices(zone.child("gpus"), gpus, hw.gpuCount));
      for (int g : gpus) {
        if (owner[static_cast<size_t>(g)] != kNone)
          return zone.child("gpus").error("GPU " + std::to_string(g) + " is already in NUMA zone " +
                                          std::to_string(owner[static_cast<size_t>(g)]));
        owner[static_cast<size_t>(g)] = z.id;
      }
      z.gpus = gpus;
    }
    hw.numa.push_back(std::move(z));
  }
  for (int g = 0; g < hw.gpuCount; ++g)
    if (owner[static_cast<size_t>(g)] == kNone)
      return f.error("GPU " + std::to_string(g) + " is in no NUMA zone");
  hw.gpuNuma = owner;
  return okStatus();
}

Expected<int> nicIndex(const NodeHardware& hw, const YamlField& f, const std::string& name) {
  for (size_t i = 0; i < hw.nics.size(); ++i)
    if (hw.nics[i].name == name) return static_cast<int>(i);
  return f.error("unknown NIC '" + name + "' (declare it under nics:)");
}

Status readNics(const YamlField& f, NodeHardware& hw) {
  TESSERA_CHECK(f.expectSequence());
  for (size_t i = 0; i < f.size(); ++i) {
    const YamlField nic = f.item(i);
    TESSERA_CHECK(nic.onlyKeys({"name", "speed_gbps", "numa"}));
    Nic n;
    TESSERA_TRY(nameF, nic.require("name"));
    TESSERA_TRY(name, nameF.asString());
    if (name.empty()) return nameF.error("a NIC name must not be empty");
    for (const auto& other : hw.nics)
      if (other.name == name) return nameF.error("duplicate NIC name '" + name + "'");
    n.name = name;
    if (nic.has("speed_gbps")) {
      TESSERA_TRY(v, nic.child("speed_gbps").asInt(1, 100000));
      n.speedGbps = v;
    }
    if (nic.has("numa")) {
      TESSERA_TRY(v, nic.child("numa").asInt(0, static_cast<int>(hw.numa.size()) - 1));
      n.numa = v;
    }
    hw.nics.push_back(std::move(n));
  }
  return okStatus();
}

Status readPcieSwitches(const YamlField& f, NodeHardware& hw) {
  TESSERA_CHECK(f.expectSequence());
  hw.gpuPcieSwitch.assign(static_cast<size_t>(hw.gpuCount), kNone);
  for (size_t i = 0; i < f.size(); ++i) {
    const YamlField sw = f.item(i);
    TESSERA_CHECK(sw.onlyKeys({"gpus", "nics"}));
    PcieSwitch s;
    s.id = static_cast<int>(i);
    if (sw.has("gpus")) {
      TESSERA_TRY(gpus, sw.child("gpus").asIntList());
      TESSERA_CHECK(checkGpuIndices(sw.child("gpus"), gpus, hw.gpuCount));
      for (int g : gpus) {
        if (hw.gpuPcieSwitch[static_cast<size_t>(g)] != kNone)
          return sw.child("gpus").error("GPU " + std::to_string(g) + " is already on PCIe switch " +
                                        std::to_string(hw.gpuPcieSwitch[static_cast<size_t>(g)]));
        hw.gpuPcieSwitch[static_cast<size_t>(g)] = s.id;
      }
      s.gpus = gpus;
      if (!gpus.empty()) s.numa = hw.gpuNuma[static_cast<size_t>(gpus.front())];
    }
    if (sw.has("nics")) {
      TESSERA_TRY(names, sw.child("nics").asStringList());
      for (const auto& n : names) {
        TESSERA_TRY(idx, nicIndex(hw, sw.child("nics"), n));
        hw.nics[static_cast<size_t>(idx)].pcieSwitch = s.id;
        s.nics.push_back(idx);
      }
    }
    hw.pcieSwitches.push_back(std::move(s));
  }
  return okStatus();
}

Status readNvlink(const YamlField& f, NodeHardware& hw) {
  if (f.isScalar()) {
    TESSERA_TRY(mode, f.asString());
    if (mode == "nvswitch")
      hw.nvlink = NvlinkMode::NvSwitch;
    else if (mode == "none")
      hw.nvlink = NvlinkMode::None;
    else
      return f.error("nvlink must be 'nvswitch', 'none' or {bridges: [[0,1],...]}, got '" + mode +
                     "'");
  } else {
    TESSERA_CHECK(f.onlyKeys({"bridges"}));
    TESSERA_TRY(bridges, f.require("bridges"));
    TESSERA_CHECK(bridges.expectSequence());
    std::set<int> seen;
    for (size_t i = 0; i < bridges.size(); ++i) {
      TESSERA_TRY(group, bridges.item(i).asIntList());
      TESSERA_CHECK(checkGpuIndices(bridges.item(i), group, hw.gpuCount));
      if (group.size() < 2) return bridges.item(i).error("an NVLink bridge joins at least 2 GPUs");
      std::set<int> inThisBridge;
      for (int g : group) {
        if (!inThisBridge.insert(g).second)
          return bridges.item(i).error("GPU " + std::to_string(g) +
                                       " is listed twice in this bridge");
        if (!seen.insert(g).second)
          return bridges.item(i).error("GPU " + std::to_string(g) + " is in two NVLink bridges");
      }
      hw.nvlinkGroups.push_back(group);
    }
    hw.nvlink = NvlinkMode::Bridged;
  }
  if (hw.nvlink != NvlinkMode::None && hw.gpuModel->nvlink.generation == 0)
    return f.error("GPU model " + hw.gpuModel->id + " has no NVLink");
  return okStatus();
}

void defaultNuma(NodeHardware& hw) {
  NumaZone z;
  z.gpus.resize(static_cast<size_t>(hw.gpuCount));
  std::iota(z.gpus.begin(), z.gpus.end(), 0);
  hw.numa.push_back(std::move(z));
  hw.gpuNuma.assign(static_cast<size_t>(hw.gpuCount), 0);
}

// Builds a template from topo text. `where` is the topo/topo_file field; for inline text
// (`inlineBlock`) a parse error is reported at its line in the spec file, since the block's
// content starts on the line after the `topo: |` key.
Expected<std::shared_ptr<NodeHardware>> templateFromTopoText(
    const YamlField& where, const std::string& text, const std::string& source, bool inlineBlock,
    std::shared_ptr<const GpuModel> model, const std::string& name, int gpus) {
  auto topo = parseNvidiaSmiTopo(text, source);
  if (!topo) {
    const Error& e = topo.error();
    if (inlineBlock && e.where.line > 0) {
      SourceLocation at = where.location();
      at.line += e.where.line;
      at.column = 0;
      return Error{"nvidia-smi topo text: " + (e.where.field.empty() ? "" : e.where.field + ": ") +
                       e.message,
                   at};
    }
    return where.error("nvidia-smi topo text: " + e.str());
  }
  if (static_cast<int>(topo->gpus.size()) != gpus)
    return where.error("topo lists " + std::to_string(topo->gpus.size()) +
                       " GPUs but the template says gpus: " + std::to_string(gpus));
  auto hw = hardwareFromTopo(*topo, std::move(model), name);
  if (!hw) return where.error(hw.error().message);
  return hw;
}

}  // namespace

Expected<std::shared_ptr<const NodeHardware>> readNodeTemplate(const YamlField& f,
                                                               const std::string& name,
                                                               const GpuCatalog& catalog,
                                                               const std::string& baseDir) {
  TESSERA_CHECK(f.onlyKeys({"gpu_model", "gpus", "cpus", "memory_gib", "numa", "pcie_switches",
                            "nics", "nvlink", "topo", "topo_file"}));
  TESSERA_TRY(modelF, f.require("gpu_model"));
  TESSERA_TRY(modelName, modelF.asString());
  std::shared_ptr<const GpuModel> modelRef = catalog.findShared(modelName);
  if (!modelRef)
    return modelF.error("unknown GPU model '" + modelName + "' (known: " + catalog.knownIds() +
                        ")");
  const GpuModel* model = modelRef.get();
  TESSERA_TRY(gpusF, f.require("gpus"));
  TESSERA_TRY(gpus, gpusF.asInt(0, 64));

  std::shared_ptr<NodeHardware> hw;
  const bool hasTopo = f.has("topo") || f.has("topo_file");
  if (hasTopo) {
    for (const char* key : {"numa", "pcie_switches", "nics", "nvlink"})
      if (f.has(key))
        return f.child(key).error(
            std::string("'") + key +
            "' cannot be combined with topo/topo_file (the topo output defines it)");
    std::string text, source = "topo of template " + name;
    const YamlField where = f.has("topo") ? f.child("topo") : f.child("topo_file");
    if (f.has("topo")) {
      TESSERA_TRY(t, where.asString());
      text = t;
    } else {
      TESSERA_TRY(path, f.child("topo_file").asString());
      const std::string full =
          std::filesystem::path(path).is_absolute() ? path : baseDir + "/" + path;
      auto t = readTextFile(full);
      if (!t) return f.child("topo_file").error(t.error().message);
      text = *t;
      source = full;
    }
    TESSERA_TRY(built,
                templateFromTopoText(where, text, source, f.has("topo"), modelRef, name, gpus));
    hw = built;
    hw->topoText = text;
  } else {
    hw = std::make_shared<NodeHardware>();
    hw->templateName = name;
    hw->gpuModel = modelRef;
    hw->gpuCount = gpus;
    if (f.has("numa"))
      TESSERA_CHECK(readNuma(f.child("numa"), *hw));
    else
      defaultNuma(*hw);
    if (f.has("nics")) TESSERA_CHECK(readNics(f.child("nics"), *hw));
    if (f.has("pcie_switches"))
      TESSERA_CHECK(readPcieSwitches(f.child("pcie_switches"), *hw));
    else
      hw->gpuPcieSwitch.assign(static_cast<size_t>(gpus), kNone);
    if (f.has("nvlink"))
      TESSERA_CHECK(readNvlink(f.child("nvlink"), *hw));
    else if (model->nvswitchBaseboard && gpus > 1)
      hw->nvlink = NvlinkMode::NvSwitch;
    deriveLinkMatrix(*hw);
    deriveNicLinks(*hw);
  }
  if (f.has("cpus")) {
    TESSERA_TRY(v, f.child("cpus").asInt(1, 1 << 20));
    int listed = 0;
    for (const auto& zone : hw->numa) listed += static_cast<int>(zone.cpus.size());
    if (v < listed)
      return f.child("cpus").error("cpus: " + std::to_string(v) + " is fewer than the " +
                                   std::to_string(listed) + " CPUs the NUMA zones list");
    hw->cpus = v;
  } else {
    for (const auto& zone : hw->numa) hw->cpus += static_cast<int>(zone.cpus.size());
  }
  if (f.has("memory_gib")) {
    TESSERA_TRY(v, f.child("memory_gib").asInt(1, 1 << 24));
    hw->memoryMiB = int64_t{v} * 1024;
  }
  return std::shared_ptr<const NodeHardware>(hw);
}

void deriveNicLinks(NodeHardware& hw) {
  hw.nicLinks.clear();
  for (int g = 0; g < hw.gpuCount; ++g) {
    for (const Nic& nic : hw.nics) {
      const int sw = hw.gpuPcieSwitch[static_cast<size_t>(g)];
      if (sw != kNone && sw == nic.pcieSwitch)
        hw.nicLinks.push_back({LinkKind::PIX, 0});
      else if (nic.numa != kNone && nic.numa == hw.gpuNuma[static_cast<size_t>(g)])
        hw.nicLinks.push_back({LinkKind::NODE, 0});
      else
        hw.nicLinks.push_back({LinkKind::SYS, 0});
    }
  }
}

void deriveLinkMatrix(NodeHardware& hw) {
  const int n = hw.gpuCount;
  hw.links.assign(static_cast<size_t>(n * n), GpuLink{});
  const auto nv = GpuLink{LinkKind::NVLink, static_cast<uint8_t>(nvlinkCount(hw))};
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      GpuLink& l = hw.links[static_cast<size_t>(a * n + b)];
      const auto ua = static_cast<size_t>(a), ub = static_cast<size_t>(b);
      if (a == b)
        l = {LinkKind::Self, 0};
      else if (hw.nvlink == NvlinkMode::NvSwitch ||
               (hw.nvlink == NvlinkMode::Bridged && sameBridgeGroup(hw, a, b)))
        l = nv;
      else if (hw.gpuPcieSwitch[ua] != kNone && hw.gpuPcieSwitch[ua] == hw.gpuPcieSwitch[ub])
        l = {LinkKind::PIX, 0};
      else if (hw.gpuNuma[ua] == hw.gpuNuma[ub])
        l = {LinkKind::NODE, 0};
      else
        l = {LinkKind::SYS, 0};
    }
  }
}

}  // namespace tessera
