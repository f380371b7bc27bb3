#pragma once
// Applying a MIG layout on a node (issue 24): from one GPU's instances as NVML reports them to
// the layout the engine planned, as the `nvidia-smi mig` commands that make the difference.
// Instances already where the plan wants them (the busy ones always) are kept; every other GPU
// instance is destroyed (its compute instances first, -dci, then -dgi) and the missing ones are
// created at their planned placement (-cgi PROFILE:START, with -C for the default compute
// instance, else -cci for the planned ones), largest first. Placements are explicit, so the
// driver's own placement order (reference gpu-hardware.md 1.5) cannot put an instance elsewhere.
// The agent runs the commands while tesserad holds the node (docs/agent.md, "MIG apply").
#include <functional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "inventory/node_inventory.h"
#include "inventory/nvsmi_probe.h"
#include "topology/mig_layout.h"

namespace tessera {

// One `nvidia-smi` invocation. A -cci after a -cgi without -C needs the id of the GPU instance
// that -cgi made, which only its output tells: `giFromPrevious` marks that, and "-gi" is followed
// by the placeholder "<new>" until the run fills it in.
struct MigCommand {
  std::vector<std::string> args;  // without the tool: {"mig", "-i", "0", "-gi", "2", "-dci"}
  bool giFromPrevious = false;
};

struct MigApplyPlan {
  int gpu = 0;                      // the GPU's index on the node
  std::vector<MigCommand> commands;  // empty: the GPU has the layout already
  int kept = 0;                     // GPU instances left as they are
};

// The commands that turn `gpu` (NVML's view) into `target` (profiles of `model`, every instance
// placed; `*` marks the busy ones). Refused, naming the GPU and instance: MIG mode off on the GPU
// (changing it needs a GPU reset, which the agent does not do), a target instance not placed, a
// profile the catalog and the GPU number differently, or a busy instance that is not on the GPU
// exactly as planned (work runs there: nothing may be destroyed or created under it).
Expected<MigApplyPlan> planMigApply(const GpuInventory& gpu, const GpuModel& model,
                                    const MigLayout& target);

// "nvidia-smi mig -i 0 -gi 2 -dci" per line, as a shell would take them (`tool` first).
std::string formatMigCommands(const std::string& tool, const MigApplyPlan& plan);

// Runs the plan's commands in order with `smi` and stops at the first that fails (its exit
// status and output in the error). `onStep` gets each command line and its output.
Status runMigApply(const SmiSource& smi, const std::string& tool, const MigApplyPlan& plan,
                   const std::function<void(const std::string& line, const std::string& output)>&
                       onStep);

// The GPU-instance id in nvidia-smi's "Successfully created GPU instance ID  2 on GPU  0 ...";
// -1 when the text has none.
int createdGpuInstanceId(const std::string& output);

}  // namespace tessera
