#pragma once
// The state of every memory slice of a MIG GPU under a demand: inside a busy or an idle instance,
// free, or free but stranded (no demanded profile can be placed over it next to the instances
// already there). The desktop's MIG map and both consoles' fragmentation layers read it.
#include <cstdint>
#include <string>
#include <vector>

#include "topology/gpu_model.h"
#include "topology/mig_layout.h"

namespace tessera {

// Profile indexes of `g` named in `names`; names the model does not have are dropped (profile
// names are per model, so a fleet-wide demand names profiles of several models). An empty
// `names` means "no demand known": every profile without media extensions, as the engine's
// fragmentation measure assumes (MigDemand::uniform).
std::vector<int> migDemandProfiles(const MigGeometry& g, const std::vector<std::string>& names);

enum class MigSliceState : uint8_t {
  Free,      // no instance, and some demanded profile can still be placed over it
  Stranded,  // no instance, and no demanded profile can be placed over it next to the others
  Idle,      // inside an instance without work
  Busy,      // inside an instance with work
};

// The state of every memory slice. A free slice is usable when some demanded profile fits (all
// five checks, via migWhatFits) at a start whose range covers it; otherwise it is stranded.
std::vector<MigSliceState> migSliceStates(const MigGeometry& g, const MigLayout& layout,
                                          const std::vector<int>& demand);

}  // namespace tessera
