#include "executor/mig_apply.h"

#include <map>
#include <sstream>

#include "scheduler/cluster_state.h"
#include "topology/mig_layout.h"

namespace tessera {

namespace {

// Instances per profile name on one GPU, in profile order.
std::map<std::string, int> profileCounts(const GpuModel& model, const MigLayout& layout) {
  std::map<std::string, int> out;
  for (const MigInstance& inst : layout)
    if (inst.profile >= 0) ++out[model.mig->profiles[static_cast<size_t>(inst.profile)].name];
  return out;
}

}  // namespace

MigNodeConfig migNodeConfig(const ClusterState& state, NodeId id, const GresTypeOf& typeOf) {
  const Cluster& c = state.cluster();
  const Node& node = c.node(id);
  MigNodeConfig out;
  out.node = node.name;
  std::ostringstream parted, signature;
  std::map<std::string, int> gres;  // Slurm type -> count on the node
  parted << "version: v1\nmig-configs:\n  tessera-" << node.name << ":\n";
  for (int i = 0; i < node.gpuCount(); ++i) {
    const GpuId g = node.firstGpu + static_cast<GpuId>(i);
    const GpuModel& model = c.modelOf(g);
    const std::string type = typeOf(model.id);
    const bool mig = c.gpu(g).sharing.mode == SharingMode::Mig && model.mig;
    parted << "    - devices: [" << i << "]\n      mig-enabled: " << (mig ? "true" : "false")
           << "\n";
    if (!mig) {
      ++gres[type];
      continue;
    }
    const MigLayout& layout = state.gpu(g).layout;
    signature << i << ": " << formatMigLayout(model, layout) << "\n";
    parted << "      mig-devices:\n";
    for (const auto& [profile, count] : profileCounts(model, layout)) {
      parted << "        \"" << profile << "\": " << count << "\n";
      gres[type + "_" + profile] += count;
    }
  }
  out.signature = signature.str();
  if (out.signature.empty()) return out;
  out.migParted = parted.str();
  out.gresConf = "# " + node.name +
                 ": MIG instances come from NVML; the counts below must match what it finds.\n"
                 "NodeName=" +
                 node.name + " AutoDetect=nvml Name=gpu\n";
  std::string list;
  for (const auto& [type, count] : gres)
    list += (list.empty() ? "" : ",") + std::string("gpu:") + type + ":" + std::to_string(count);
  out.slurmConf = "NodeName=" + node.name + " Gres=" + list + "\n";
  return out;
}

}  // namespace tessera
