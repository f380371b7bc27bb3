#include "mig/mig_validate.h"

#include <array>

#include "core/engine_text.h"

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
      return text::kMigCopyEngines;
    case MigEngine::DEC:
      return text::kMigDecoders;
    case MigEngine::ENC:
      return text::kMigEncoders;
    case MigEngine::JPEG:
      return text::kMigJpeg;
    case MigEngine::OFA:
      return text::kMigOfa;
    case MigEngine::None:
      break;
  }
  return text::kMigEnginesAny;
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
      return text::kMigValid;
    case MigCheck::NotPlaced:
      return text::kMigNotPlaced;
    case MigCheck::StartNotAllowed:
      return text::kMigCheckStart;
    case MigCheck::MemoryOverlap:
      return text::kMigCheckOverlap;
    case MigCheck::CountExceeded:
      return text::kMigCheckCount;
    case MigCheck::EnginesExceeded:
      return text::kMigCheckEngines;
    case MigCheck::ComputeSlicesExceeded:
      return text::kMigCheckSlices;
    case MigCheck::ComputeInstanceInvalid:
      return text::kMigCheckCi;
  }
  return "unknown";
}

namespace {
Text slicesText(const MigGeometry& g, const MigInstance& inst) {
  const auto& p = g.profiles[static_cast<size_t>(inst.profile)];
  if (p.memorySlices == 1) return phrase(text::kMigSlice, inst.start);
  return phrase(text::kMigSlices, inst.start, inst.start + p.memorySlices - 1);
}

Text failure(const Text& detail, const MigVerdict& v) {
  return phrase(text::kMigFailed, phrase(migCheckName(v.check)), detail);
}
}  // namespace

Text migVerdictText(const GpuModel& model, const MigLayout& layout, const MigVerdict& v) {
  if (v.ok()) return phrase(text::kMigValid);
  const MigGeometry& g = *model.mig;
  const MigInstance& inst = layout[v.instance];
  const MigProfile& p = profileOf(g, inst);
  const std::string what = formatMigInstance(model, inst);
  switch (v.check) {
    case MigCheck::NotPlaced:
      return phrase(text::kMigNoStart, what, p.name);
    case MigCheck::StartNotAllowed:
      return failure(phrase(text::kMigBadStart, what, inst.start, p.name,
                            formatStarts(g, p.startMask), model.id),
                     v);
    case MigCheck::MemoryOverlap: {
      const MigInstance& other = layout[v.other];
      return failure(phrase(text::kMigOverlap, what, slicesText(g, inst),
                            formatMigInstance(model, other), slicesText(g, other)),
                     v);
    }
    case MigCheck::CountExceeded:
      return failure(p.maxCount == 1 ? phrase(text::kMigCountOne, p.name, model.id, what)
                                     : phrase(text::kMigCountMany, p.maxCount, p.name, model.id,
                                              what, p.maxCount + 1),
                     v);
    case MigCheck::EnginesExceeded: {
      MigEngines sum;
      for (int i = 0; i <= v.instance; ++i) sum += profileOf(g, layout[i]).engines;
      Text msg = phrase(text::kMigEngines, what, engineOf(sum, v.engine),
                        phrase(engineName(v.engine)), model.id, engineOf(g.totals, v.engine));
      if (v.engine == MigEngine::OFA || v.engine == MigEngine::JPEG)
        msg = phrase(text::kMigOneMe, std::move(msg));
      return failure(msg, v);
    }
    case MigCheck::ComputeSlicesExceeded:
      return failure(phrase(text::kMigComputeSlices, what, g.computeSlices), v);
    case MigCheck::ComputeInstanceInvalid:
      if (g.computeInstances.empty())
        return failure(phrase(text::kMigCiNoTable, what, model.id, p.computeSlices), v);
      return failure(phrase(text::kMigCiTable, what, p.computeSlices, model.id), v);
    case MigCheck::Ok:
      break;
  }
  return phrase(text::kMigValid);
}

std::string explainMigVerdict(const GpuModel& model, const MigLayout& layout, const MigVerdict& v) {
  return migVerdictText(model, layout, v).english();
}

}  // namespace tessera
