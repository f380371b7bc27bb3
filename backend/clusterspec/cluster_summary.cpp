#include "clusterspec/cluster_summary.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

namespace tessera {

namespace {

void countModels(const Cluster& c, ClusterSummary& s) {
  std::map<std::string, ClusterSummary::ModelCount> byModel;
  for (const auto& n : c.nodes()) {
    auto& m = byModel[n.gpuModel().id];
    m.model = n.gpuModel().id;
    m.productName = n.gpuModel().productName;
    m.gpus += n.gpuCount();
    ++m.nodes;
  }
  for (auto& [k, v] : byModel) s.models.push_back(v);
  std::stable_sort(s.models.begin(), s.models.end(),
                   [](const auto& a, const auto& b) { return a.gpus > b.gpus; });
}

void countFabric(const Cluster& c, ClusterSummary& s) {
  for (const auto& sw : c.switches()) {
    if (sw.tier == SwitchTier::Spine) {
      ++s.spines;
      continue;
    }
    ClusterSummary::LeafInfo leaf{
        sw.name, sw.parent == kNone ? "" : c.switches()[static_cast<size_t>(sw.parent)].name,
        static_cast<int>(sw.nodes.size()), 0};
    for (NodeId n : sw.nodes) leaf.gpus += c.node(n).gpuCount();
    s.leafs.push_back(leaf);
  }
}

void countDomains(const Cluster& c, ClusterSummary& s) {
  std::map<std::pair<std::string, int>, int> kinds;
  for (const auto& d : c.nvlinkDomains())
    ++kinds[{nvlinkDomainKindName(d.kind), static_cast<int>(d.gpus.size())}];
  for (auto& [key, count] : kinds) s.nvlinkDomains.push_back({key.first, count, key.second});
}

void countSharing(const Cluster& c, ClusterSummary& s) {
  std::map<std::pair<std::string, std::string>, int> layouts;
  for (const auto& g : c.gpus()) {
    switch (g.sharing.mode) {
      case SharingMode::Exclusive:
        ++s.exclusiveGpus;
        break;
      case SharingMode::Mig: {
        ++s.migGpus;
        s.migInstances += g.sharing.mig.size();
        const GpuModel& m = c.modelOf(g.id);
        ++layouts[{m.id, formatMigLayout(m, g.sharing.mig)}];
        break;
      }
      case SharingMode::TimeSliced:
        ++s.timeSlicedGpus;
        s.timeSliceReplicas += g.sharing.replicas;
        break;
      case SharingMode::Mps:
        break;
    }
    if (g.sharing.runsMps()) ++s.mpsGpus;
  }
  for (auto& [key, n] : layouts) s.migLayouts.push_back({key.first, key.second, n});
  std::stable_sort(s.migLayouts.begin(), s.migLayouts.end(),
                   [](const auto& a, const auto& b) { return a.gpus > b.gpus; });
}

}  // namespace

ClusterSummary summarize(const Cluster& c) {
  ClusterSummary s;
  s.name = c.name;
  s.nodes = static_cast<int>(c.nodes().size());
  s.gpus = static_cast<int>(c.gpus().size());
  for (const auto& n : c.nodes()) {
    if (n.state == NodeState::Up) ++s.nodesUp;
    if (n.state == NodeState::Draining) ++s.nodesDraining;
    if (n.state == NodeState::Down) ++s.nodesDown;
  }
  s.pools = c.pools();
  countModels(c, s);
  countFabric(c, s);
  countDomains(c, s);
  countSharing(c, s);
  return s;
}

std::string formatSummary(const ClusterSummary& s) {
  std::ostringstream out;
  out << "Cluster " << s.name << "\n";
  out << "  Nodes: " << s.nodes << " (" << s.nodesUp << " up, " << s.nodesDraining << " draining, "
      << s.nodesDown << " down)\n";
  out << "  Pools: ";
  for (size_t i = 0; i < s.pools.size(); ++i) out << (i ? ", " : "") << s.pools[i];
  out << (s.pools.empty() ? "(none)\n" : "\n");
  out << "  GPUs: " << s.gpus << "\n";
  for (const auto& m : s.models)
    out << "    " << m.gpus << " x " << m.model << " (" << m.productName << ") on " << m.nodes
        << " node" << (m.nodes == 1 ? "" : "s") << "\n";
  out << "  Fabric: " << s.spines << " spine" << (s.spines == 1 ? "" : "s") << ", "
      << s.leafs.size() << " leaf switches\n";
  for (const auto& l : s.leafs)
    out << "    " << l.name << (l.spine.empty() ? "" : " <- " + l.spine) << ": " << l.nodes
        << " nodes, " << l.gpus << " GPUs\n";
  int domains = 0;
  for (const auto& d : s.nvlinkDomains) domains += d.domains;
  out << "  NVLink domains: " << domains << "\n";
  for (const auto& d : s.nvlinkDomains)
    out << "    " << d.domains << " x " << d.kind << " of " << d.gpusEach << " GPUs\n";
  out << "  Sharing: " << s.exclusiveGpus << " exclusive, " << s.migGpus << " MIG ("
      << s.migInstances << " GPU instances), " << s.timeSlicedGpus << " time-sliced ("
      << s.timeSliceReplicas << " replicas)";
  // Only where MPS runs, so summaries of clusters without it read as before.
  if (s.mpsGpus > 0) out << ", " << s.mpsGpus << " MPS";
  out << "\n";
  if (!s.migLayouts.empty()) {
    out << "  MIG layouts:\n";
    for (const auto& l : s.migLayouts)
      out << "    " << l.gpus << " x " << l.model << " " << l.layout << "\n";
  }
  return out.str();
}

std::string summaryJson(const ClusterSummary& s) {
  nlohmann::json j;
  j["name"] = s.name;
  j["nodes"] = {
      {"total", s.nodes}, {"up", s.nodesUp}, {"draining", s.nodesDraining}, {"down", s.nodesDown}};
  j["pools"] = s.pools;
  j["gpus"] = s.gpus;
  for (const auto& m : s.models)
    j["models"].push_back({{"model", m.model},
                           {"product_name", m.productName},
                           {"gpus", m.gpus},
                           {"nodes", m.nodes}});
  j["spines"] = s.spines;
  for (const auto& l : s.leafs)
    j["leafs"].push_back(
        {{"name", l.name}, {"spine", l.spine}, {"nodes", l.nodes}, {"gpus", l.gpus}});
  for (const auto& d : s.nvlinkDomains)
    j["nvlink_domains"].push_back(
        {{"kind", d.kind}, {"count", d.domains}, {"gpus_each", d.gpusEach}});
  j["sharing"] = {{"exclusive_gpus", s.exclusiveGpus},
                  {"mig_gpus", s.migGpus},
                  {"mig_instances", s.migInstances},
                  {"time_sliced_gpus", s.timeSlicedGpus},
                  {"time_slice_replicas", s.timeSliceReplicas},
                  {"mps_gpus", s.mpsGpus}};
  for (const auto& l : s.migLayouts)
    j["mig_layouts"].push_back({{"model", l.model}, {"layout", l.layout}, {"gpus", l.gpus}});
  return j.dump(2) + "\n";
}

}  // namespace tessera
