#include "mig/mig_validate.h"

#include <array>

namespace tessera {

namespace {

const MigProfile& profileOf(const MigGeometry& g, const MigInstance& i) {
  return g.profiles[static_cast<size_t>(i.profile)];
}

MigEngine firstEngineOver(const MigEngines& sum, const MigEngines& cap) {
  if (sum.ce > cap.ce) return MigEngine::CE;
  if (sum.dec > cap.dec) return MigEngine::DEC;
  if (sum.enc > cap.enc) return MigEngine::ENC;
  if (sum.jpeg > cap.jpeg) return MigEngine::JPEG;
  if (sum.ofa > cap.ofa) return MigEngine::OFA;
  return MigEngine::None;
}

int engineOf(const MigEngines& e, MigEngine which) {
  switch (which) {
    case MigEngine::CE:
      return e.ce;
    case MigEngine::DEC:
      return e.dec;
    case MigEngine::ENC:
      return e.enc;
    case MigEngine::JPEG:
      return e.jpeg;
    case MigEngine::OFA:
      return e.ofa;
    case MigEngine::None:
      break;
  }
  return 0;
}

const char* engineName(MigEngine e) {
  switch (e) {
    case MigEngine::CE:
      return "copy engines (CE)";
    case MigEngine::DEC:
      return "video decoders (NVDEC)";
    case MigEngine::ENC:
      return "video encoders (NVENC)";
    case MigEngine::JPEG:
      return "JPEG decoders (NVJPG)";
    case MigEngine::OFA:
      return "optical-flow accelerators (OFA)";
    case MigEngine::None:
      break;
  }
  return "engines";
}

// Compute instances inside one GI: sizes allowed for this GI size, counts within the rule,
// and compute slices summing to at most the GI's.
bool computeInstancesFit(const MigGeometry& g, const MigInstance& inst) {
  if (inst.ciCount == 0) return true;
  const auto& p = profileOf(g, inst);
  const ComputeInstanceRule* rule = g.ciRule(p.computeSlices);
  int total = 0;
  std::array<int, kMaxMemorySlices + 1> perSize{};
  for (int c = 0; c < inst.ciCount; ++c) {
    const int k = inst.ciSlices[static_cast<size_t>(c)];
    total += k;
    ++perSize[static_cast<size_t>(k)];
  }
  if (total > p.computeSlices) return false;
  if (!rule) return inst.ciCount == 1 && total == p.computeSlices;
  for (int k = 1; k <= kMaxMemorySlices; ++k) {
    if (perSize[static_cast<size_t>(k)] == 0) continue;
    bool allowed = false;
    for (auto [size, most] : rule->sizes)
      if (size == k && perSize[static_cast<size_t>(k)] <= most) allowed = true;
    if (!allowed) return false;
  }
  return true;
}

}  // namespace

MigVerdict validateMigLayout(const MigGeometry& g, const MigLayout& layout) {
  std::array<uint8_t, kMaxMigProfiles> counts{};
  MigEngines sum;
  uint16_t used = 0;
  int computeSlices = 0;
  const int n = layout.size();
  for (int i = 0; i < n; ++i) {
    const MigInstance& inst = layout[i];
    const MigProfile& p = profileOf(g, inst);
    const auto idx = static_cast<int8_t>(i);
    if (!inst.placed()) return {MigCheck::NotPlaced, idx};
    if (!p.canStartAt(inst.start)) return {MigCheck::StartNotAllowed, idx};
    const uint16_t mask = p.maskAt(inst.start);
    if (used & mask) {
      for (int j = 0; j < i; ++j)
        if (profileOf(g, layout[j]).maskAt(layout[j].start) & mask)
          return {MigCheck::MemoryOverlap, idx, static_cast<int8_t>(j)};
    }
    used = static_cast<uint16_t>(used | mask);
    if (++counts[static_cast<size_t>(inst.profile)] > p.maxCount)
      return {MigCheck::CountExceeded, idx};
    sum += p.engines;
    if (MigEngine e = firstEngineOver(sum, g.totals); e != MigEngine::None)
      return {MigCheck::EnginesExceeded, idx, -1, e};
    computeSlices += p.computeSlices;
    if (computeSlices > g.computeSlices) return {MigCheck::ComputeSlicesExceeded, idx};
    if (!computeInstancesFit(g, inst)) return {MigCheck::ComputeInstanceInvalid, idx};
  }
  return {};
}

const char* migCheckName(MigCheck c) {
  switch (c) {
    case MigCheck::Ok:
      return "valid";
    case MigCheck::NotPlaced:
      return "not placed";
    case MigCheck::StartNotAllowed:
      return "check 1 (allowed start)";
    case MigCheck::MemoryOverlap:
      return "check 2 (memory overlap)";
    case MigCheck::CountExceeded:
      return "check 3 (instance count)";
    case MigCheck::EnginesExceeded:
      return "check 4 (engines)";
    case MigCheck::ComputeSlicesExceeded:
      return "check 5 (compute slices)";
    case MigCheck::ComputeInstanceInvalid:
      return "compute instances";
  }
  return "unknown";
}

std::string explainMigVerdict(const GpuModel& model, const MigLayout& layout, const MigVerdict& v) {
  if (v.ok()) return "valid";
  const MigGeometry& g = *model.mig;
  const MigInstance& inst = layout[v.instance];
  const MigProfile& p = profileOf(g, inst);
  const std::string what = formatMigInstance(model, inst);
  const std::string head = std::string(migCheckName(v.check)) + " failed: ";
  switch (v.check) {
    case MigCheck::NotPlaced:
      return "instance " + what + " has no start slice (write it as " + p.name + "@START)";
    case MigCheck::StartNotAllowed:
      return head + what + " cannot start at memory slice " + std::to_string(inst.start) + "; " +
             p.name + " may start only at {" + formatStarts(g, p.startMask) + "} on " + model.id;
    case MigCheck::MemoryOverlap: {
      const MigInstance& other = layout[v.other];
      return head + what + " (" + describeSlices(g, inst) + ") overlaps " +
             formatMigInstance(model, other) + " (" + describeSlices(g, other) + ")";
    }
    case MigCheck::CountExceeded:
      return head + "more than " + std::to_string(p.maxCount) + " instance" +
             (p.maxCount == 1 ? "" : "s") + " of " + p.name + " on one " + model.id + " (" + what +
             " is instance #" + std::to_string(p.maxCount + 1) + ")";
    case MigCheck::EnginesExceeded: {
      MigEngines sum;
      for (int i = 0; i <= v.instance; ++i) sum += profileOf(g, layout[i]).engines;
      std::string msg = head + "adding " + what + " needs " +
                        std::to_string(engineOf(sum, v.engine)) + " " + engineName(v.engine) +
                        " but a " + model.id + " has " +
                        std::to_string(engineOf(g.totals, v.engine));
      if (v.engine == MigEngine::OFA || v.engine == MigEngine::JPEG)
        msg += " (at most one +me instance per GPU)";
      return msg;
    }
    case MigCheck::ComputeSlicesExceeded:
      return head + "adding " + what + " exceeds the GPU's " + std::to_string(g.computeSlices) +
             " compute slices";
    case MigCheck::ComputeInstanceInvalid:
      if (g.computeInstances.empty())
        return head + "the compute instances of " + what + " do not fit: the GPU catalog has no " +
               "compute_instances table for " + model.id +
               ", so a GPU instance holds one compute " + "instance spanning all its " +
               std::to_string(p.computeSlices) + " compute slices";
      return head + "the compute instances of " + what + " do not fit a " +
             std::to_string(p.computeSlices) +
             "-slice GPU instance (allowed CI sizes and counts: mig.compute_instances of " +
             model.id + " in the GPU catalog)";
    case MigCheck::Ok:
      break;
  }
  return "valid";
}

}  // namespace tessera
