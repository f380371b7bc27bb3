#pragma once
// Cluster spec files (YAML, format in docs/cluster-spec.md): node templates, fabric, compact
// node groups ("32 x DGX H100 under 4 leaf switches", "an NVL72 rack"), individual nodes and
// per-node overrides. Every error names file, line and field.
#include <memory>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "core/expected.h"
#include "topology/cluster.h"
#include "topology/gpu_catalog.h"

namespace tessera {

struct ClusterSpecOptions {
  const GpuCatalog* catalog = nullptr;  // nullptr = built-in catalog (+ the spec's gpu_catalog:)
  std::string baseDir = ".";            // resolves relative paths inside the spec
  // MPS GPUs whose spec leaves `node_sharing` out: tesserad with `executor: slurm` reads them as
  // Slurm 22.05 runs gres/mps by default (one), everything else as CUDA has it (all).
  MpsNodeSharing mpsNodeSharing = MpsNodeSharing::All;
};

Expected<std::shared_ptr<const Cluster>> loadClusterSpec(std::string_view text,
                                                         const std::string& fileName,
                                                         const ClusterSpecOptions& options = {});
// The same from an already parsed YAML node inside a larger document (a scenario file's
// `cluster:`); errors name `fileName`, the node's own lines and fields under `fieldPath`.
Expected<std::shared_ptr<const Cluster>> loadClusterSpecNode(
    const YAML::Node& doc, const std::string& fileName, const std::string& fieldPath,
    const ClusterSpecOptions& options = {});
Expected<std::shared_ptr<const Cluster>> loadClusterSpecFile(
    const std::string& path, const GpuCatalog* catalog = nullptr,
    MpsNodeSharing mpsNodeSharing = MpsNodeSharing::All);

// The built-in GPU catalog with the models of `extraPath` (YAML) merged over it; an empty path
// gives the built-in catalog alone. The verbs, the console and tesserad read --catalog alike.
Expected<GpuCatalog> loadCatalog(const std::string& extraPath);

// The cluster spec at `path` read with `catalog`, or the built-in demo cluster when `path` is
// empty.
Expected<std::shared_ptr<const Cluster>> loadClusterOrDemo(
    const std::string& path, const GpuCatalog& catalog,
    MpsNodeSharing mpsNodeSharing = MpsNodeSharing::All);

// The demo cluster shipped in resources/demo-cluster.yaml (compiled in).
std::string_view demoClusterYaml();
std::shared_ptr<const Cluster> demoCluster();

}  // namespace tessera
