#include "inventory/mig_apply.h"

#include <algorithm>
#include <map>
#include <regex>

namespace tessera {

namespace {

// CI profile ids by compute slices, as -cci takes them (reference gpu-hardware.md 1.6: the NVML
// COMPUTE_INSTANCE_PROFILE_* values).
int ciProfileOfSlices(int slices) {
  static const std::map<int, int> ids = {{1, 0}, {2, 1}, {3, 2}, {4, 3}, {7, 4}, {8, 5}, {6, 6}};
  const auto it = ids.find(slices);
  return it == ids.end() ? -1 : it->second;
}

std::string gpuName(const GpuInventory& gpu) {
  return "GPU " + std::to_string(gpu.index);
}

// The compute slices of each compute instance the target wants in `inst`, in placement order.
std::vector<int> wantedCis(const MigProfile& p, const MigInstance& inst) {
  if (inst.ciCount == 0) return {p.computeSlices};
  std::vector<int> out;
  for (int c = 0; c < inst.ciCount; ++c) out.push_back(inst.ciSlices[static_cast<size_t>(c)]);
  return out;
}

std::vector<int> presentCis(const GpuInstanceInfo& gi) {
  auto cis = gi.computeInstances;
  sortByPlacement(cis);
  std::vector<int> out;
  for (const auto& ci : cis) out.push_back(ci.placement.size);
  return out;
}

// The target instance that `gi` already is (same profile, start and compute instances), or -1.
int matchOf(const GpuInstanceInfo& gi, const GpuModel& model, const MigLayout& target,
            const std::vector<bool>& taken) {
  for (int i = 0; i < target.size(); ++i) {
    const MigProfile& p = model.mig->profiles[static_cast<size_t>(target[i].profile)];
    if (!taken[static_cast<size_t>(i)] && p.id == gi.profileId &&
        target[i].start == gi.placement.start && wantedCis(p, target[i]) == presentCis(gi))
      return i;
  }
  return -1;
}

std::vector<std::string> gpuArgs(const GpuInventory& gpu, std::vector<std::string> rest) {
  std::vector<std::string> args = {"mig", "-i", std::to_string(gpu.index)};
  args.insert(args.end(), rest.begin(), rest.end());
  return args;
}

Status checkProfiles(const GpuInventory& gpu, const GpuModel& model, const MigLayout& target) {
  for (const MigInstance& inst : target) {
    const MigProfile& p = model.mig->profiles[static_cast<size_t>(inst.profile)];
    if (!inst.placed())
      return Error::of(literal(gpuName(gpu) + ": " + p.name + " has no placement (@START)"));
    // The catalog's profile id is what -cgi is given: a GPU that numbers the profile otherwise
    // (another driver, a catalog error) would get another instance than planned.
    const bool known = gpu.profiles.empty() ||
                       std::any_of(gpu.profiles.begin(), gpu.profiles.end(), [&](const auto& q) {
                         return q.id == p.id && q.computeSlices == p.computeSlices;
                       });
    if (!known)
      return Error::of(literal(gpuName(gpu) + ": the GPU has no profile " + std::to_string(p.id) +
                               " with " + std::to_string(p.computeSlices) +
                               " compute slices, which the catalog calls " + p.name));
    for (int slices : wantedCis(p, inst))
      if (ciProfileOfSlices(slices) < 0)
        return Error::of(literal(gpuName(gpu) + ": no compute-instance profile of " +
                                 std::to_string(slices) + " slices"));
  }
  return okStatus();
}

void addCreate(const GpuInventory& gpu, const MigProfile& p, const MigInstance& inst,
               MigApplyPlan& plan) {
  const std::string where = std::to_string(p.id) + ":" + std::to_string(inst.start);
  if (inst.ciCount == 0) {
    plan.commands.push_back({gpuArgs(gpu, {"-cgi", where, "-C"}), false});
    return;
  }
  plan.commands.push_back({gpuArgs(gpu, {"-cgi", where}), false});
  std::string cis;
  for (int slices : wantedCis(p, inst))
    cis += (cis.empty() ? "" : ",") + std::to_string(ciProfileOfSlices(slices));
  plan.commands.push_back({gpuArgs(gpu, {"-gi", "<new>", "-cci", cis}), true});
}

}  // namespace

Expected<MigApplyPlan> planMigApply(const GpuInventory& gpu, const GpuModel& model,
                                    const MigLayout& target) {
  if (!model.mig) return Error::of(literal(model.id + " has no MIG"));
  if (!gpu.fault.empty()) return Error::of(literal(gpuName(gpu) + ": " + gpu.fault));
  if (!gpu.mig.current)
    return Error::of(literal(gpuName(gpu) + ": MIG mode is off (turning it on needs a GPU reset: " +
                             "nvidia-smi -i " + std::to_string(gpu.index) +
                             " -mig 1; the agent does not do that)"));
  TESSERA_CHECK(checkProfiles(gpu, model, target));
  MigApplyPlan plan;
  plan.gpu = gpu.index;
  std::vector<bool> kept(static_cast<size_t>(target.size()), false);
  std::vector<const GpuInstanceInfo*> doomed;
  auto present = gpu.gpuInstances;
  sortByPlacement(present);
  for (const auto& gi : present) {
    const int match = matchOf(gi, model, target, kept);
    if (match >= 0) {
      kept[static_cast<size_t>(match)] = true;
      ++plan.kept;
    } else {
      doomed.push_back(&gi);
    }
  }
  for (int i = 0; i < target.size(); ++i)
    if (target[i].busy && !kept[static_cast<size_t>(i)])
      return Error::wrongState(
          literal(gpuName(gpu) + ": the busy instance " + formatMigInstance(model, target[i]) +
                  " is not on the GPU as planned; work runs there, so nothing is changed"));
  for (const GpuInstanceInfo* gi : doomed) {
    const std::string id = std::to_string(gi->id);
    // -dci with no compute instance fails ("No compute instances found"): only when there are.
    if (!gi->computeInstances.empty())
      plan.commands.push_back({gpuArgs(gpu, {"-gi", id, "-dci"}), false});
    plan.commands.push_back({gpuArgs(gpu, {"-gi", id, "-dgi"}), false});
  }
  std::vector<int> create;
  for (int i = 0; i < target.size(); ++i)
    if (!kept[static_cast<size_t>(i)]) create.push_back(i);
  // Largest first, then by start: the order NVIDIA's guide creates in (placements are explicit,
  // so it is for a reader comparing with the guide, not for the driver).
  std::stable_sort(create.begin(), create.end(), [&](int a, int b) {
    const auto& pa = model.mig->profiles[static_cast<size_t>(target[a].profile)];
    const auto& pb = model.mig->profiles[static_cast<size_t>(target[b].profile)];
    if (pa.memorySlices != pb.memorySlices) return pa.memorySlices > pb.memorySlices;
    return target[a].start < target[b].start;
  });
  for (int i : create)
    addCreate(gpu, model.mig->profiles[static_cast<size_t>(target[i].profile)], target[i], plan);
  return plan;
}

std::string formatMigCommands(const std::string& tool, const MigApplyPlan& plan) {
  std::string out;
  for (const auto& c : plan.commands) {
    out += tool;
    for (const auto& a : c.args) out += " " + a;
    out += "\n";
  }
  return out;
}

int createdGpuInstanceId(const std::string& output) {
  static const std::regex created(R"(Successfully created GPU instance ID\s+(\d+))");
  std::smatch m;
  return std::regex_search(output, m, created) ? std::stoi(m[1].str()) : -1;
}

Status runMigApply(const SmiSource& smi, const std::string& tool, const MigApplyPlan& plan,
                   const std::function<void(const std::string&, const std::string&)>& onStep) {
  int lastGi = -1;
  for (size_t k = 0; k < plan.commands.size(); ++k) {
    std::vector<std::string> args = plan.commands[k].args;
    if (plan.commands[k].giFromPrevious) {
      if (lastGi < 0)
        return Error::of(literal("step " + std::to_string(k + 1) +
                                 ": the GPU instance made by the step before has no id in its "
                                 "output"));
      std::replace(args.begin(), args.end(), std::string("<new>"), std::to_string(lastGi));
    }
    std::string line = tool;
    for (const auto& a : args) line += " " + a;
    TESSERA_TRY(out, smi(args));
    if (onStep) onStep(line, out.text);
    if (out.exitCode != 0)
      return Error::of(literal("step " + std::to_string(k + 1) + " of " +
                               std::to_string(plan.commands.size()) + " failed (exit " +
                               std::to_string(out.exitCode) + "): " + line + ": " + out.text));
    if (const int gi = createdGpuInstanceId(out.text); gi >= 0) lastGi = gi;
  }
  return okStatus();
}

}  // namespace tessera
