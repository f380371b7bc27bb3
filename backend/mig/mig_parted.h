#pragma once
// Export of MIG layouts as a mig-parted config file (NVIDIA/mig-parted, api/spec/v1).
#include <string>
#include <vector>

#include "topology/mig_layout.h"

namespace tessera {

struct MigPartedEntry {
  const GpuModel* model = nullptr;
  std::vector<int> devices;  // GPU indices; empty = "all"
  bool migEnabled = true;
  MigLayout layout;            // GPU instances to create (mig-parted takes counts per profile)
  bool filterByDevice = true;  // add the model's PCI device IDs as device-filter
};

struct MigPartedConfig {
  std::string name;
  std::vector<MigPartedEntry> entries;
};

// A `version: v1` file with one mig-configs entry per config. mig-parted takes profile counts,
// not placements, and finds an order that fits on its own; the intended placement is written as
// a comment above each entry so an operator can check it with `nvidia-smi mig -lgi`.
std::string toMigPartedYaml(const std::vector<MigPartedConfig>& configs);

}  // namespace tessera
