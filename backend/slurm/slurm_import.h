#pragma once
// A Slurm cluster as a Tessera cluster spec (docs/slurm.md, "Importing a Slurm cluster"): nodes,
// GPU models and MIG instances from the typed GRES of `sinfo --json`, partitions as pools,
// features as labels, DOWN/DRAIN as node states, `scontrol show topology` switches as leafs and
// spines; optionally merged with a Tessera spec that adds what Slurm does not know (NUMA, PCIe,
// NVLink, MIG placements, labels). Slurm's value wins for what Slurm enforces; every difference
// is reported as a conflict, every problem names the Slurm node, switch or field.
//
// Library tessera_slurm_import: tessera_slurm (the command layer) + tessera_clusterspec.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "slurm/scontrol_text.h"
#include "slurm/slurm_json.h"
#include "topology/cluster.h"
#include "topology/gpu_catalog.h"

namespace tessera::slurm {

// Slurm GPU type names (the `h100` of gpu:h100:4) to GPU catalog models. Keys are lower case and
// matched case-insensitively; the empty key is the model of untyped `gpu:N` GRES. A type found
// in neither the entries nor the defaults is looked up in the catalog itself (ids, product
// names, aliases such as nvidia_h100_80gb_hbm3), then without a leading "nvidia_".
class GpuTypeMapping {
 public:
  // h100 -> H100-SXM5-80GB, a100 -> A100-SXM4-80GB (and the other short names of docs/slurm.md).
  static GpuTypeMapping defaults();

  // "TYPE=MODEL" maps one type; "MODEL" alone is the model of untyped GPUs. The model must be in
  // `catalog`; an error names the argument and the known models.
  Status add(std::string_view entry, const GpuCatalog& catalog);
  void set(std::string_view type, std::string model);

  // The catalog model of a type (without MIG profile), or nullptr.
  [[nodiscard]] std::shared_ptr<const GpuModel> resolve(std::string_view type,
                                                        const GpuCatalog& catalog) const;
  [[nodiscard]] bool hasUntyped() const { return entries_.count("") > 0; }

 private:
  std::map<std::string, std::string> entries_;
};

// What `sinfo --json` and `scontrol show topology|config` said.
struct SlurmInventory {
  std::vector<SlurmNode> nodes;
  std::vector<SlurmSwitch> switches;  // empty: no topology/tree (every node on one island leaf)
  std::string clusterName;            // ClusterName of show config; empty: the spec's or "slurm"
};

// One problem, naming what it is about: subject "node node3", field "gres".
struct ImportIssue {
  std::string subject;
  std::string field;
  std::string message;
  [[nodiscard]] std::string str() const;  // "node node3: gres: ..."
};

// Slurm and the merged spec disagree about a node: `kept` says which value the result has.
struct ImportConflict {
  std::string node;
  std::string field;  // gpu_model, gpus, mig, cpus, memory_gib, leaf, pool, state, labels.KEY
  std::string slurm;
  std::string spec;
  std::string kept;
  [[nodiscard]] std::string str() const;  // "node1: cpus: Slurm 64, spec 224 (kept Slurm's)"
};

struct SlurmImportOptions {
  const GpuCatalog* catalog = nullptr;  // nullptr: the built-in catalog
  GpuTypeMapping mapping = GpuTypeMapping::defaults();
  // The spec to merge (--spec), already loaded; nullptr: Slurm alone.
  std::shared_ptr<const Cluster> spec;
};

struct SlurmImportResult {
  std::shared_ptr<const Cluster> cluster;  // the spec below, loaded
  std::string yaml;                        // the spec in explicit form (cluster export's format)
  std::vector<ImportConflict> conflicts;
  std::vector<ImportIssue> warnings;
  std::vector<std::string> onlyInSlurm;  // with a spec: Slurm nodes it does not name
  std::vector<std::string> onlyInSpec;   // spec nodes Slurm does not have (left out)
};

// Builds the spec. Fails, listing every problem found (one per line, each naming the node,
// switch or field), when a node's GPUs cannot be mapped to a catalog model or MIG geometry.
Expected<SlurmImportResult> importSlurmCluster(const SlurmInventory& inventory,
                                               const SlurmImportOptions& options);

// A MIG-typed GRES name split: "a100_3g.40gb" -> {"a100", "3g.40gb", -1},
// "h100_3g.40gb_s4" -> {"h100", "3g.40gb", 4}, "3g.40gb" -> {"", "3g.40gb", -1}; nullopt for a
// type that names no MIG profile ("h100", "h100_g5").
struct MigGresType {
  std::string model;  // the model part, lower case; empty when the type is the bare profile
  std::string profile;
  int start = -1;  // per-slot types (_s<start>): the placement start, else -1
};
std::optional<MigGresType> parseMigGresType(std::string_view type);

}  // namespace tessera::slurm
