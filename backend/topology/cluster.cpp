#include "topology/cluster.h"

#include <algorithm>
#include <set>

#include "core/strings.h"

namespace tessera {

const char* nodeStateName(NodeState s) {
  switch (s) {
    case NodeState::Up:
      return "up";
    case NodeState::Draining:
      return "draining";
    case NodeState::Down:
      return "down";
  }
  return "?";
}

const char* sharingModeName(SharingMode m) {
  switch (m) {
    case SharingMode::Exclusive:
      return "exclusive";
    case SharingMode::Mig:
      return "mig";
    case SharingMode::TimeSliced:
      return "time-sliced";
    case SharingMode::Mps:
      return "mps";
  }
  return "?";
}

const char* mpsCoLocationName(MpsCoLocation c) {
  switch (c) {
    case MpsCoLocation::Team:
      return "team";
    case MpsCoLocation::User:
      return "user";
    case MpsCoLocation::Any:
      return "any";
  }
  return "?";
}

const char* mpsNodeSharingName(MpsNodeSharing s) {
  return s == MpsNodeSharing::One ? "one" : "all";
}

const char* nvlinkDomainKindName(NvlinkDomainKind k) {
  switch (k) {
    case NvlinkDomainKind::NvSwitchBoard:
      return "nvswitch";
    case NvlinkDomainKind::Bridge:
      return "bridge";
    case NvlinkDomainKind::MultiNodeRack:
      return "multi-node";
  }
  return "?";
}

std::vector<std::string> Cluster::pools() const {
  std::set<std::string> names;
  for (const auto& n : nodes_)
    if (!n.pool.empty()) names.insert(n.pool);
  return {names.begin(), names.end()};
}

const Node* Cluster::findNode(std::string_view nodeName) const {
  auto it = nodeByName_.find(std::string(nodeName));
  return it == nodeByName_.end() ? nullptr : &nodes_[it->second];
}

const FabricSwitch* Cluster::findSwitch(std::string_view switchName) const {
  auto it = switchByName_.find(std::string(switchName));
  return it == switchByName_.end() ? nullptr : &switches_[static_cast<size_t>(it->second)];
}

const Gpu* Cluster::findGpu(std::string_view nodeAndIndex) const {
  const auto slash = nodeAndIndex.rfind('/');
  if (slash == std::string_view::npos) return nullptr;
  const Node* n = findNode(nodeAndIndex.substr(0, slash));
  auto index = parseInt(nodeAndIndex.substr(slash + 1));
  if (!n || !index || *index < 0 || *index >= n->gpuCount()) return nullptr;
  return &gpus_[n->firstGpu + static_cast<GpuId>(*index)];
}

SwitchId Cluster::spineOf(NodeId n) const {
  const SwitchId leaf = nodes_[n].leaf;
  return leaf == kNone ? kNone : switches_[static_cast<size_t>(leaf)].parent;
}

std::optional<GpuLink> Cluster::linkBetween(GpuId a, GpuId b) const {
  const Gpu& ga = gpus_[a];
  const Gpu& gb = gpus_[b];
  if (ga.node == gb.node) return nodes_[ga.node].hw->link(ga.index, gb.index);
  if (ga.nvlinkDomain != kNone && ga.nvlinkDomain == gb.nvlinkDomain &&
      domains_[static_cast<size_t>(ga.nvlinkDomain)].kind == NvlinkDomainKind::MultiNodeRack) {
    const int links = modelOf(a).nvlink.links;
    return GpuLink{LinkKind::NVLink, static_cast<uint8_t>(links > 0 ? links : 1)};
  }
  return std::nullopt;
}

TopologyLevel Cluster::commonLevel(GpuId a, GpuId b) const {
  if (a == b) return TopologyLevel::Gpu;
  const Gpu& ga = gpus_[a];
  const Gpu& gb = gpus_[b];
  if (ga.node == gb.node) return TopologyLevel::Node;
  if (ga.nvlinkDomain != kNone && ga.nvlinkDomain == gb.nvlinkDomain)
    return TopologyLevel::NvlinkDomain;
  const SwitchId la = nodes_[ga.node].leaf;
  const SwitchId lb = nodes_[gb.node].leaf;
  if (la != kNone && la == lb) return TopologyLevel::Leaf;
  const SwitchId sa = spineOf(ga.node);
  if (sa != kNone && sa == spineOf(gb.node)) return TopologyLevel::Spine;
  return TopologyLevel::Cluster;
}

TopologyLevel Cluster::spanOf(const std::vector<GpuId>& gpus) const {
  // Checked level by level over the whole set: an NVLink rack may cross leaf switches, so the
  // pairwise levels relative to one GPU do not compose.
  if (gpus.empty()) return TopologyLevel::Gpu;
  auto all = [&](auto key) {
    return std::all_of(gpus.begin(), gpus.end(), [&](GpuId g) { return key(g) == key(gpus[0]); });
  };
  if (all([](GpuId g) { return g; })) return TopologyLevel::Gpu;
  if (all([&](GpuId g) { return gpus_[g].node; })) return TopologyLevel::Node;
  if (gpus_[gpus[0]].nvlinkDomain != kNone && all([&](GpuId g) { return gpus_[g].nvlinkDomain; }))
    return TopologyLevel::NvlinkDomain;
  if (leafOf(gpus_[gpus[0]].node) != kNone && all([&](GpuId g) { return leafOf(gpus_[g].node); }))
    return TopologyLevel::Leaf;
  if (spineOf(gpus_[gpus[0]].node) != kNone && all([&](GpuId g) { return spineOf(gpus_[g].node); }))
    return TopologyLevel::Spine;
  return TopologyLevel::Cluster;
}

SwitchId Cluster::addSwitch(std::string switchName, SwitchTier tier, SwitchId parent) {
  const auto id = static_cast<SwitchId>(switches_.size());
  switchByName_.emplace(switchName, id);
  switches_.push_back({id, std::move(switchName), tier, parent, {}, {}});
  if (parent != kNone) switches_[static_cast<size_t>(parent)].children.push_back(id);
  return id;
}

NodeId Cluster::addNode(Node node) {
  const auto id = static_cast<NodeId>(nodes_.size());
  node.id = id;
  node.firstGpu = static_cast<GpuId>(gpus_.size());
  for (int i = 0; i < node.gpuCount(); ++i) {
    Gpu g;
    g.id = static_cast<GpuId>(gpus_.size());
    g.node = id;
    g.index = i;
    gpus_.push_back(std::move(g));
  }
  if (node.leaf != kNone) switches_[static_cast<size_t>(node.leaf)].nodes.push_back(id);
  nodeByName_.emplace(node.name, id);
  nodes_.push_back(std::move(node));
  return id;
}

DomainId Cluster::addNvlinkDomain(std::string domainName, NvlinkDomainKind kind,
                                  const std::vector<GpuId>& gpus) {
  const auto id = static_cast<DomainId>(domains_.size());
  NvlinkDomain d{id, std::move(domainName), kind, gpus, {}};
  for (GpuId g : gpus) {
    gpus_[g].nvlinkDomain = id;
    if (d.nodes.empty() || d.nodes.back() != gpus_[g].node) d.nodes.push_back(gpus_[g].node);
  }
  domains_.push_back(std::move(d));
  return id;
}

}  // namespace tessera
