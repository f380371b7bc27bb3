#pragma once
// Workload files (YAML, format in docs/workload-spec.md): priority classes, the team tree with
// quotas, and jobs. The scheduler scenarios and the simulator's job lists use this format.
// Every error names file, line, column and field.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/expected.h"
#include "topology/gpu_catalog.h"
#include "workload/job.h"

namespace tessera {

struct Workload {
  std::vector<PriorityClass> priorityClasses;
  std::vector<Team> teams;
  std::vector<Job> jobs;
  // Where each job was read (file:line:column and its field path), so that a job the engine
  // refuses at submit is named by its place in the file.
  std::map<JobId, SourceLocation> jobSources;

  [[nodiscard]] const Team* team(std::string_view name) const;
  [[nodiscard]] const PriorityClass* priorityClass(std::string_view name) const;
  // `refusal` placed at job `id`'s entry in the file it was read from (as it is otherwise).
  [[nodiscard]] Error atJobSource(JobId id, Error refusal) const;
};

// `catalog` resolves GPU model names (nullptr = built-in catalog).
Expected<Workload> loadWorkload(std::string_view text, const std::string& fileName,
                                const GpuCatalog* catalog = nullptr);
// The same from a parsed node inside a larger document (a scenario's `workload:`).
Expected<Workload> loadWorkloadNode(const YAML::Node& doc, const std::string& fileName,
                                    const std::string& fieldPath,
                                    const GpuCatalog* catalog = nullptr);
Expected<Workload> loadWorkloadFile(const std::string& path, const GpuCatalog* catalog = nullptr);

// The demo workload shipped in resources/demo-workload.yaml (compiled in), written for the
// built-in demo cluster.
std::string_view demoWorkloadYaml();
Expected<Workload> demoWorkload(const GpuCatalog* catalog = nullptr);

// "90", "90s", "15m", "2h", "1h30m", "1d" -> seconds; nullopt if malformed, negative or longer
// than 100 years (so that every time computed from it stays far from overflow).
std::optional<Seconds> parseDuration(std::string_view text);

// "512MiB", "512M", "8GiB", "8G" (as CUDA_MPS_PINNED_DEVICE_MEM_LIMIT writes sizes) -> MiB;
// nullopt when malformed, without a unit, 0, or above 10 TiB.
std::optional<int64_t> parseMemoryMiB(std::string_view text);

}  // namespace tessera
