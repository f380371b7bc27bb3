#include "clusterspec/cluster_spec_writer.h"

#include <map>
#include <sstream>

#include "core/strings.h"

namespace tessera {

namespace {

std::string quoted(std::string_view s) {
  return doubleQuoted(s);
}

// 0,1,2,3,8 -> "0-3,8"
std::string cpuRanges(const std::vector<int>& cpus) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    parts.push_back(i == j ? std::to_string(cpus[i])
                           : std::to_string(cpus[i]) + "-" + std::to_string(cpus[j]));
    i = j + 1;
  }
  return join(parts, ",");
}

std::string intList(const std::vector<int>& values) {
  std::vector<std::string> parts;
  for (int v : values) parts.push_back(std::to_string(v));
  return "[" + join(parts, ", ") + "]";
}

void writeStructuredHardware(std::ostringstream& out, const NodeHardware& hw) {
  out << "    numa:\n";
  for (const auto& z : hw.numa) {
    out << "      - {";
    if (!z.cpus.empty()) out << "cpus: " << quoted(cpuRanges(z.cpus)) << ", ";
    out << "gpus: " << intList(z.gpus) << "}\n";
  }
  if (!hw.nics.empty()) {
    out << "    nics:\n";
    for (const auto& n : hw.nics) {
      out << "      - {name: " << quoted(n.name);
      if (n.speedGbps > 0) out << ", speed_gbps: " << n.speedGbps;
      if (n.numa != kNone) out << ", numa: " << n.numa;
      out << "}\n";
    }
  }
  if (!hw.pcieSwitches.empty()) {
    out << "    pcie_switches:\n";
    for (const auto& sw : hw.pcieSwitches) {
      std::vector<std::string> nics;
      for (int k : sw.nics) nics.push_back(quoted(hw.nics[static_cast<size_t>(k)].name));
      out << "      - {gpus: " << intList(sw.gpus) << ", nics: [" << join(nics, ", ") << "]}\n";
    }
  }
  switch (hw.nvlink) {
    case NvlinkMode::NvSwitch:
      out << "    nvlink: nvswitch\n";
      break;
    case NvlinkMode::None:
      out << "    nvlink: none\n";
      break;
    case NvlinkMode::Bridged: {
      std::vector<std::string> groups;
      for (const auto& g : hw.nvlinkGroups) groups.push_back(intList(g));
      out << "    nvlink: {bridges: [" << join(groups, ", ") << "]}\n";
      break;
    }
  }
}

void writeTemplate(std::ostringstream& out, const NodeHardware& hw) {
  out << "  " << quoted(hw.templateName) << ":\n";
  out << "    gpu_model: " << quoted(hw.gpuModel->id) << "\n    gpus: " << hw.gpuCount << "\n";
  if (hw.cpus > 0) out << "    cpus: " << hw.cpus << "\n";
  if (hw.memoryMiB > 0) out << "    memory_gib: " << hw.memoryMiB / 1024 << "\n";
  if (hw.topoText.empty()) {
    writeStructuredHardware(out, hw);
    return;
  }
  // Topo-built templates keep their source text: it carries PXB/PHB detail the structured
  // keys cannot express. |2: the text's first line may start with a TAB.
  out << "    topo: |2\n";
  for (auto line : split(hw.topoText, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out << (line.empty() ? "" : "      ") << line << "\n";
  }
}

std::string switchName(const Cluster& c, SwitchId id) {
  return c.switches()[static_cast<size_t>(id)].name;
}

void writeFabric(std::ostringstream& out, const Cluster& c) {
  std::vector<std::string> spines;
  for (const auto& sw : c.switches())
    if (sw.tier == SwitchTier::Spine) spines.push_back(quoted(sw.name));
  out << "fabric:\n  spines: [" << join(spines, ", ") << "]\n  leafs:\n";
  for (const auto& sw : c.switches()) {
    if (sw.tier != SwitchTier::Leaf) continue;
    out << "    - {name: " << quoted(sw.name);
    if (sw.parent != kNone) out << ", spine: " << quoted(switchName(c, sw.parent));
    out << "}\n";
  }
}

// node_sharing is written for a GPU running MPS itself (MIG instances' servers ignore it), and
// always: left out, tesserad under Slurm would read it as one.
std::string mpsText(const Gpu& g) {
  const MpsPolicy& p = g.sharing.mps;
  std::string out = std::string("mps: {co_location: ") + mpsCoLocationName(p.coLocation) +
                    ", thread_budget: " + std::to_string(p.threadBudget);
  if (g.sharing.mode == SharingMode::Mps)
    out += std::string(", node_sharing: ") + mpsNodeSharingName(p.nodeSharing);
  return out + "}";
}

void writeGpus(std::ostringstream& out, const Cluster& c, const Node& n) {
  std::vector<std::string> lines;
  for (int i = 0; i < n.gpuCount(); ++i) {
    const Gpu& g = c.gpu(n.firstGpu + static_cast<GpuId>(i));
    const std::string key = "      \"" + std::to_string(i) + "\": ";
    const std::string mps = g.sharing.runsMps() ? mpsText(g) : "";
    if (g.sharing.mode == SharingMode::Mig)
      lines.push_back(key + "{mig: " + quoted(formatMigLayout(c.modelOf(g.id), g.sharing.mig)) +
                      (mps.empty() ? "" : ", " + mps) + "}");
    else if (g.sharing.mode == SharingMode::TimeSliced)
      lines.push_back(key + "{timeslice: " + std::to_string(g.sharing.replicas) + "}");
    else if (g.sharing.mode == SharingMode::Mps)
      lines.push_back(key + "{" + mps + "}");
  }
  if (lines.empty()) return;
  out << "    gpus:\n";
  for (const auto& l : lines) out << l << "\n";
}

void writeNode(std::ostringstream& out, const Cluster& c, const Node& n) {
  out << "  - name: " << quoted(n.name) << "\n    template: " << quoted(n.hw->templateName)
      << "\n    leaf: " << quoted(switchName(c, n.leaf)) << "\n";
  if (!n.pool.empty()) out << "    pool: " << quoted(n.pool) << "\n";
  if (!n.labels.empty()) {
    std::vector<std::string> labels;
    for (const auto& [k, v] : n.labels) labels.push_back(quoted(k) + ": " + quoted(v));
    out << "    labels: {" << join(labels, ", ") << "}\n";
  }
  if (n.state != NodeState::Up) out << "    state: " << nodeStateName(n.state) << "\n";
  if (!n.driverVersion.empty()) out << "    driver: " << quoted(n.driverVersion) << "\n";
  const DomainId d = n.gpuCount() > 0 ? c.gpu(n.firstGpu).nvlinkDomain : kNone;
  if (d != kNone &&
      c.nvlinkDomains()[static_cast<size_t>(d)].kind == NvlinkDomainKind::MultiNodeRack)
    out << "    nvlink_rack: " << quoted(c.nvlinkDomains()[static_cast<size_t>(d)].name) << "\n";
  writeGpus(out, c, n);
}

}  // namespace

std::string writeClusterSpec(const Cluster& c) {
  std::ostringstream out;
  out << "# Explicit form of cluster " << c.name
      << " (tessera cluster export): every node listed.\n";
  out << "version: 1\nname: " << quoted(c.name) << "\nnode_templates:\n";
  std::map<std::string, const NodeHardware*> templates;
  for (const auto& n : c.nodes()) templates.emplace(n.hw->templateName, n.hw.get());
  for (const auto& [name, hw] : templates) writeTemplate(out, *hw);
  writeFabric(out, c);
  out << "nodes:\n";
  for (const auto& n : c.nodes()) writeNode(out, c, n);
  return out.str();
}

}  // namespace tessera
