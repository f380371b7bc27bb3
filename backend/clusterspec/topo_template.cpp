#include "clusterspec/topo_template.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "core/strings.h"

namespace tessera {

namespace {

// Union-find over GPUs (0..g-1) and NICs (g..g+m-1) joined by PIX/PXB paths: one set per switch.
struct Groups {
  std::vector<int> parent;
  explicit Groups(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    return parent[static_cast<size_t>(x)] == x
               ? x
               : parent[static_cast<size_t>(x)] = find(parent[static_cast<size_t>(x)]);
  }
  void join(int a, int b) { parent[static_cast<size_t>(find(a))] = find(b); }
};

bool sharesSwitch(const GpuLink& l) {
  return l.kind == LinkKind::PIX || l.kind == LinkKind::PXB;
}

void numaFromTopo(const TopoMatrix& topo, NodeHardware& hw) {
  std::vector<int> ids;
  for (int v : topo.numaAffinity) ids.push_back(v < 0 ? 0 : v);
  std::vector<int> distinct = ids;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (int id : distinct) {
    NumaZone z;
    z.id = id;
    for (int g = 0; g < hw.gpuCount; ++g)
      if (ids[static_cast<size_t>(g)] == id) {
        z.gpus.push_back(g);
        if (z.cpus.empty())
          if (auto cpus = parseCpuList(topo.cpuAffinity[static_cast<size_t>(g)])) z.cpus = *cpus;
      }
    hw.numa.push_back(std::move(z));
  }
  hw.gpuNuma = ids;
}

void switchesFromTopo(const TopoMatrix& topo, NodeHardware& hw) {
  const int g = hw.gpuCount;
  const int m = static_cast<int>(topo.nics.size());
  Groups groups(static_cast<size_t>(g + m));
  for (int a = 0; a < g; ++a) {
    for (int b = 0; b < g; ++b)
      if (a != b && sharesSwitch(topo.gpuGpu[static_cast<size_t>(a)][static_cast<size_t>(b)]))
        groups.join(a, b);
    for (int k = 0; k < m; ++k)
      if (sharesSwitch(topo.gpuNic[static_cast<size_t>(a)][static_cast<size_t>(k)]))
        groups.join(a, g + k);
  }
  for (int k = 0; k < m; ++k)
    for (int j = 0; j < m; ++j)
      if (k != j && sharesSwitch(topo.nicNic[static_cast<size_t>(k)][static_cast<size_t>(j)]))
        groups.join(g + k, g + j);
  hw.gpuPcieSwitch.assign(static_cast<size_t>(g), kNone);
  for (int k = 0; k < m; ++k)
    hw.nics.push_back({topo.nics[static_cast<size_t>(k)], 0, kNone, kNone});
  std::vector<int> switchOfRoot(static_cast<size_t>(g + m), kNone);
  auto switchFor = [&](int member) {
    int& s = switchOfRoot[static_cast<size_t>(groups.find(member))];
    if (s == kNone) {
      s = static_cast<int>(hw.pcieSwitches.size());
      hw.pcieSwitches.push_back({s, kNone, {}, {}});
    }
    return s;
  };
  for (int a = 0; a < g; ++a) {
    bool alone = true;
    for (int x = 0; x < g + m; ++x)
      if (x != a && groups.find(x) == groups.find(a)) alone = false;
    if (alone) continue;  // a GPU sharing its switch with nothing tells us nothing about switches
    const int s = switchFor(a);
    hw.gpuPcieSwitch[static_cast<size_t>(a)] = s;
    hw.pcieSwitches[static_cast<size_t>(s)].gpus.push_back(a);
    hw.pcieSwitches[static_cast<size_t>(s)].numa = hw.gpuNuma[static_cast<size_t>(a)];
  }
  for (int k = 0; k < m; ++k) {
    Nic& nic = hw.nics[static_cast<size_t>(k)];
    for (int a = 0; a < g; ++a) {
      const LinkKind l = topo.gpuNic[static_cast<size_t>(a)][static_cast<size_t>(k)].kind;
      if (l != LinkKind::SYS && nic.numa == kNone) nic.numa = hw.gpuNuma[static_cast<size_t>(a)];
    }
    bool alone = true;
    for (int x = 0; x < g + m; ++x)
      if (x != g + k && groups.find(x) == groups.find(g + k)) alone = false;
    if (alone) continue;
    const int s = switchFor(g + k);
    nic.pcieSwitch = s;
    hw.pcieSwitches[static_cast<size_t>(s)].nics.push_back(k);
    if (hw.pcieSwitches[static_cast<size_t>(s)].numa == kNone)
      hw.pcieSwitches[static_cast<size_t>(s)].numa = nic.numa;
  }
}

// All pairs NV# on a model sold on NVSwitch baseboards is an NVSwitch board; otherwise NVLinks are
// bridges (e.g. an H100 NVL pair shows NV12 between its two cards), grouped by connectivity.
Status nvlinkFromTopo(const TopoMatrix& topo, NodeHardware& hw) {
  const int g = hw.gpuCount;
  Groups groups(static_cast<size_t>(g));
  bool all = g > 1, any = false;
  for (int a = 0; a < g; ++a)
    for (int b = 0; b < g; ++b) {
      if (a == b) continue;
      const bool nv =
          topo.gpuGpu[static_cast<size_t>(a)][static_cast<size_t>(b)].kind == LinkKind::NVLink;
      all = all && nv;
      any = any || nv;
      if (nv) groups.join(a, b);
    }
  if (!any) return okStatus();
  if (hw.gpuModel->nvlink.generation == 0)
    return Error{
        "the topo output shows NVLink (NV#) but GPU model " + hw.gpuModel->id + " has none", {}};
  if (all && hw.gpuModel->nvswitchBaseboard) {
    hw.nvlink = NvlinkMode::NvSwitch;
    return okStatus();
  }
  hw.nvlink = NvlinkMode::Bridged;
  std::vector<std::vector<int>> byRoot(static_cast<size_t>(g));
  for (int a = 0; a < g; ++a) byRoot[static_cast<size_t>(groups.find(a))].push_back(a);
  for (auto& grp : byRoot)
    if (grp.size() > 1) hw.nvlinkGroups.push_back(grp);
  return okStatus();
}

}  // namespace

Expected<std::shared_ptr<NodeHardware>> hardwareFromTopo(const TopoMatrix& topo,
                                                         std::shared_ptr<const GpuModel> model,
                                                         const std::string& name) {
  if (topo.gpus.empty()) return Error{"the topo output lists no GPUs", {}};
  auto hw = std::make_shared<NodeHardware>();
  hw->templateName = name;
  hw->gpuModel = std::move(model);
  hw->gpuCount = static_cast<int>(topo.gpus.size());
  numaFromTopo(topo, *hw);
  switchesFromTopo(topo, *hw);
  TESSERA_CHECK(nvlinkFromTopo(topo, *hw));
  for (const auto& row : topo.gpuGpu) hw->links.insert(hw->links.end(), row.begin(), row.end());
  for (const auto& row : topo.gpuNic)
    hw->nicLinks.insert(hw->nicLinks.end(), row.begin(), row.end());
  return hw;
}

namespace {

// Terminal colour codes (ESC [ ... letter) are not allowed in YAML text; the parser ignores them.
std::string withoutAnsiEscapes(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      i += 2;
      while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
      continue;
    }
    out += text[i];
  }
  return out;
}

}  // namespace

std::string nodeTemplateYaml(const NodeHardware& hw, const std::string& topoText) {
  // A literal block with an explicit indentation indicator (|2): the topo text's first line may
  // begin with spaces or a TAB, which would otherwise confuse the block's indentation.
  std::string out = doubleQuoted(hw.templateName) + ":\n  gpu_model: " + hw.gpuModel->id +
                    "\n  gpus: " + std::to_string(hw.gpuCount) + "\n";
  int cpus = 0;
  for (const auto& z : hw.numa) cpus += static_cast<int>(z.cpus.size());
  if (cpus > 0) out += "  cpus: " + std::to_string(cpus) + "\n";
  out += "  topo: |2\n";
  const std::string clean = withoutAnsiEscapes(topoText);
  for (auto line : split(clean, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out += line.empty() ? "\n" : "    " + std::string(line) + "\n";
  }
  return out;
}

}  // namespace tessera
