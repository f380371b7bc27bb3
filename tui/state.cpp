#include "state.h"

#include <array>
#include <utility>

#include "service/gpu_fragmentation.h"

namespace tessera::tui {

namespace {

constexpr std::array<std::pair<View, const char*>, 8> kCommands{{{View::Jobs, "jobs"},
                                                                 {View::Pending, "pending"},
                                                                 {View::Running, "running"},
                                                                 {View::Nodes, "nodes"},
                                                                 {View::Gpus, "gpus"},
                                                                 {View::Mig, "mig"},
                                                                 {View::Events, "events"},
                                                                 {View::Teams, "teams"}}};

}  // namespace

const char* viewCommand(View v) {
  for (const auto& [view, name] : kCommands)
    if (view == v) return name;
  return "";
}

std::optional<View> viewFromCommand(std::string_view name) {
  for (const auto& [view, command] : kCommands)
    if (name == command) return view;
  // k9s accepts singulars and short forms: `:job`, `:node`, `:gpu`, `:ev`.
  for (const auto& [view, command] : kCommands)
    if (name.size() >= 2 && std::string_view(command).starts_with(name)) return view;
  return std::nullopt;
}

void deriveGpus(Data& d, const GpuCatalog& catalog) {
  const FragmentationDemand demand = FragmentationDemand::of(d.jobs);
  const auto fragmentation = gpuFragmentation(d.snapshot, demand, catalog);
  d.derived.assign(d.snapshot.nodes.size(), {});
  for (size_t n = 0; n < d.snapshot.nodes.size(); ++n)
    for (size_t g = 0; g < d.snapshot.nodes[n].gpus.size(); ++g)
      d.derived[n].push_back({fragmentation[n][g], gpuMigSliceStates(d.snapshot.nodes[n].gpus[g],
                                                                     catalog, demand.migProfiles)});
}

}  // namespace tessera::tui
