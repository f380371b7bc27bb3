#pragma once
// The GPU catalog: every GPU model the cluster model, the MIG engine and the scheduler know.
// Loaded from YAML (format: docs/gpu-catalog.md); the default catalog is compiled in from
// resources/gpu-catalog.yaml and a user file can extend or override it.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "topology/gpu_model.h"

namespace tessera {

class GpuCatalog {
 public:
  // Parses catalog YAML text; `fileName` is only used in error locations.
  static Expected<GpuCatalog> fromYaml(std::string_view text, const std::string& fileName);
  static Expected<GpuCatalog> fromFile(const std::string& path);
  // The catalog shipped with Tessera (resources/gpu-catalog.yaml, compiled in).
  static const GpuCatalog& builtin();

  // Adds the models of `other`; a model with an existing id replaces the old entry. Fails, and
  // changes nothing, when a name of `other` (id, product name, alias) would shadow a name of a
  // model it does not replace: lookups by that name would silently keep finding the old model.
  [[nodiscard]] Status merge(const GpuCatalog& other);

  // Finds a model by id, product name or alias (case-insensitive); nullptr if unknown.
  [[nodiscard]] const GpuModel* find(std::string_view name) const;
  // The same, as the shared handle a Cluster keeps so models outlive the catalog.
  [[nodiscard]] std::shared_ptr<const GpuModel> findShared(std::string_view name) const;
  [[nodiscard]] const std::vector<std::shared_ptr<const GpuModel>>& models() const {
    return models_;
  }
  // Model ids joined for "did you mean" style error messages.
  [[nodiscard]] std::string knownIds() const;
  // MPS clients per server by architecture (`mps_client_limits` in the catalog file).
  [[nodiscard]] const std::map<std::string, int>& mpsClientLimits() const { return mpsLimits_; }

 private:
  std::vector<std::shared_ptr<const GpuModel>> models_;
  std::map<std::string, int> mpsLimits_;
};

}  // namespace tessera
