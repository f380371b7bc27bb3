#include "service/gpu_fragmentation.h"

#include <algorithm>
#include <set>

#include "mig/mig_slices.h"
#include "topology/mig_layout.h"

namespace tessera {
namespace {

int minPositive(int current, int value) {
  return value <= 0 ? current : current == 0 ? value : std::min(current, value);
}

double migStranded(const GpuView& gpu, const GpuCatalog& catalog,
                   const std::vector<std::string>& profiles) {
  const auto states = gpuMigSliceStates(gpu, catalog, profiles);
  if (states.empty()) return 0;
  const auto stranded = std::count(states.begin(), states.end(), MigSliceState::Stranded);
  return double(stranded) / double(states.size());
}

double sharedStranded(const GpuView& gpu, int minMilli) {
  int used = 0;
  for (const auto& o : gpu.occupants) used += o.milli;
  const int free = std::max(0, 1000 - used);
  return minMilli > 0 && free > 0 && free < minMilli ? free / 1000.0 : 0;
}

std::vector<double> nodeFragmentation(const NodeView& node, const FragmentationDemand& demand,
                                      const GpuCatalog& catalog) {
  std::vector<double> out(node.gpus.size(), 0.0);
  if (node.state != "up") return out;
  int freeWhole = 0, usedWhole = 0;
  for (const GpuView& g : node.gpus)
    if (g.sharing == "exclusive") (g.occupants.empty() ? freeWhole : usedWhole) += 1;
  const bool wholeStranded =
      demand.minWholeGpus > 0 && usedWhole > 0 && freeWhole < demand.minWholeGpus;
  for (size_t i = 0; i < node.gpus.size(); ++i) {
    const GpuView& g = node.gpus[i];
    if (g.sharing == "mig")
      out[i] = migStranded(g, catalog, demand.migProfiles);
    else if (g.sharing == "shared")
      out[i] = sharedStranded(g, demand.minMilli);
    else if (g.sharing == "exclusive" && wholeStranded && g.occupants.empty())
      out[i] = 1.0;
  }
  return out;
}

}  // namespace

std::vector<MigSliceState> gpuMigSliceStates(const GpuView& gpu, const GpuCatalog& catalog,
                                             const std::vector<std::string>& profiles) {
  const GpuModel* model = gpu.sharing == "mig" ? catalog.find(gpu.model) : nullptr;
  if (!model || !model->mig) return {};
  auto layout = parseMigLayout(*model, gpu.migLayout);
  if (!layout) return {};  // unreadable: the MIG map says so; nothing to count here
  layout->sortByStart();
  return migSliceStates(*model->mig, *layout, migDemandProfiles(*model->mig, profiles));
}

FragmentationDemand FragmentationDemand::of(const std::vector<JobInfo>& jobs) {
  FragmentationDemand d;
  std::set<std::string> profiles;
  for (const JobInfo& j : jobs) {
    if (j.row.state != JobState::Pending) continue;
    const GpuRequest& r = j.row.job.perTask;
    if (r.kind == GpuRequest::Kind::Mig) profiles.insert(r.migProfile);
    if (r.kind == GpuRequest::Kind::Whole) d.minWholeGpus = minPositive(d.minWholeGpus, r.gpus);
    if (r.kind == GpuRequest::Kind::Fraction) d.minMilli = minPositive(d.minMilli, r.milli);
  }
  d.migProfiles.assign(profiles.begin(), profiles.end());
  return d;
}

std::vector<std::vector<double>> gpuFragmentation(const ClusterSnapshot& snapshot,
                                                  const FragmentationDemand& demand,
                                                  const GpuCatalog& catalog) {
  std::vector<std::vector<double>> out;
  out.reserve(snapshot.nodes.size());
  for (const NodeView& node : snapshot.nodes)
    out.push_back(nodeFragmentation(node, demand, catalog));
  return out;
}

}  // namespace tessera
