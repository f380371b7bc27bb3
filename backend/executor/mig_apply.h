#pragma once
// A node's MIG layout as the world outside Tessera needs it when an operator repartitions under
// Slurm: the nvidia-mig-parted config that makes the instances, and the gres.conf and slurm.conf
// lines that declare them. The Slurm driver hands these files to the site's hook command
// (docs/slurm.md, "MIG repartition"); Slurm itself cannot change a node's GRES at run time.
#include <functional>
#include <string>

#include "topology/cluster.h"

namespace tessera {

class ClusterState;

struct MigNodeConfig {
  std::string node;
  // One line per MIG-mode GPU ("2: 3g.40gb@0,3g.40gb@4"): equal signatures, equal layouts.
  std::string signature;
  std::string migParted;  // nvidia-mig-parted config (version v1), one config named tessera-<node>
  std::string gresConf;   // gres.conf lines for the node
  std::string slurmConf;  // the node's Gres= for its NodeName line in slurm.conf
  friend bool operator==(const MigNodeConfig&, const MigNodeConfig&) = default;
};

// The Slurm GRES type of a GPU model ("H100-SXM5-80GB" -> "h100").
using GresTypeOf = std::function<std::string(const std::string& model)>;

// The node's MIG configuration as the engine has it now; an empty signature when none of its
// GPUs is in MIG mode.
MigNodeConfig migNodeConfig(const ClusterState& state, NodeId node, const GresTypeOf& typeOf);

}  // namespace tessera
