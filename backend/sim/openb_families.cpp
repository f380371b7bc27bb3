#include "sim/openb_families.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "core/strings.h"

namespace tessera {

namespace {

using Rng = std::mt19937_64;

struct FamilyName {
  OpenbFamily family;
  const char* name;
};
constexpr FamilyName kNames[] = {{OpenbFamily::CpuOnly, "cpu-only"},
                                 {OpenbFamily::GpuShare, "gpushare"},
                                 {OpenbFamily::MultiGpu, "multigpu"},
                                 {OpenbFamily::GpuSpec, "gpuspec"}};

// Uniform in [0, n) by rejection: the same draws on every standard library.
uint64_t below(Rng& rng, uint64_t n) {
  if (n <= 1) return 0;
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x = rng();
  while (x >= limit) x = rng();
  return x % n;
}

// The experiment's reading of a row (openb_experiment.cpp): milli clipped to 1000, a GPU count
// without milli is a CPU-only task.
bool isGpuTask(const OpenbPodRow& r) {
  return r.numGpu > 0 && r.gpuMilli > 0;
}
bool isSharing(const OpenbPodRow& r) {
  return isGpuTask(r) && r.numGpu == 1 && r.gpuMilli < 1000;
}
bool isMulti(const OpenbPodRow& r) {
  return isGpuTask(r) && r.numGpu >= 2;
}
double demandOf(const OpenbPodRow& r) {
  return isGpuTask(r) ? double(r.numGpu) * std::min(r.gpuMilli, 1000) : 0.0;
}

using Pool = std::vector<const OpenbPodRow*>;

double meanDemand(const Pool& pool) {
  double sum = 0;
  for (const auto* r : pool) sum += demandOf(*r);
  return sum / double(pool.size());
}

void draw(const Pool& pool, size_t count, Rng& rng, std::vector<OpenbPodRow>& out) {
  for (size_t i = 0; i < count; ++i) out.push_back(*pool[below(rng, pool.size())]);
}

Error lacking(const char* what) {
  return Error{std::string("the base pod list has no ") + what + " to draw from", {}};
}

// CPU-only tasks resampled to `share` of all tasks; default's GPU tasks kept.
Expected<std::vector<OpenbPodRow>> cpuOnly(const std::vector<OpenbPodRow>& base, double share,
                                           Rng& rng) {
  std::vector<OpenbPodRow> out;
  Pool cpu;
  for (const auto& r : base) (isGpuTask(r) ? out.push_back(r) : cpu.push_back(&r));
  if (share >= 1) return Error{"a CPU-only share must be below 100 %", {}};
  const auto want = static_cast<size_t>(std::llround(share * double(out.size()) / (1 - share)));
  if (want > 0 && cpu.empty()) return lacking("CPU-only tasks");
  draw(cpu, want, rng, out);
  return out;
}

// As many GPU tasks as `base`, a count drawn from `a` and the rest from `b`, so that `a`'s
// expected share of the GPU demand is `share`; CPU-only tasks kept.
Expected<std::vector<OpenbPodRow>> demandShare(const std::vector<OpenbPodRow>& base, double share,
                                               bool (*inA)(const OpenbPodRow&), Rng& rng) {
  std::vector<OpenbPodRow> out;
  Pool a, b;
  for (const auto& r : base) {
    if (!isGpuTask(r))
      out.push_back(r);
    else
      (inA(r) ? a : b).push_back(&r);
  }
  const size_t gpuTasks = a.size() + b.size();
  if ((share > 0 && a.empty()) || (share < 1 && b.empty())) return lacking("tasks of one kind");
  // Share s of the demand with n_a of N tasks: n_a m_a / (n_a m_a + (N - n_a) m_b) = s.
  const double ma = a.empty() ? 1 : meanDemand(a), mb = b.empty() ? 1 : meanDemand(b);
  const double p = share * mb / (ma * (1 - share) + share * mb);
  const auto na = static_cast<size_t>(std::llround(p * double(gpuTasks)));
  draw(a, na, rng, out);
  draw(b, gpuTasks - na, rng, out);
  return out;
}

// The model lists of the published gpuspec traces and how often each occurs: counted on the first
// 220 rows of openb_pod_list_gpuspec33_cpu0.csv (hkust-adsl/kubernetes-scheduler-simulator,
// data/csv, commit 9ef93d4c8d0c50a5538a81eda39a16dc4e6b8cb8; 71 rows carry a list).
struct SpecWeight {
  std::vector<std::string> models;
  int count;
};
const std::vector<SpecWeight>& publishedSpecs() {
  static const std::vector<SpecWeight> specs = {
      {{"T4"}, 34},
      {{"V100M16", "V100M32"}, 13},
      {{"G2"}, 10},
      {{"P100"}, 5},
      {{"P100", "V100M16", "V100M32"}, 3},
      {{"G3"}, 2},
      {{"P100", "T4", "V100M16", "V100M32"}, 2},
      {{"G2", "P100", "T4", "V100M16", "V100M32"}, 2},
  };
  return specs;
}

// Whether a node of one of `models` has at least `gpus` GPUs.
bool holds(const std::vector<OpenbNode>& nodes, const std::vector<std::string>& models, int gpus) {
  return std::any_of(nodes.begin(), nodes.end(), [&](const OpenbNode& n) {
    return n.gpus >= gpus && std::find(models.begin(), models.end(), n.model) != models.end();
  });
}

// `share` of the GPU tasks (drawn without replacement) get a model list, drawn by the published
// frequencies among the lists whose models can hold the task.
Expected<std::vector<OpenbPodRow>> gpuSpec(const std::vector<OpenbPodRow>& base,
                                           const std::vector<OpenbNode>& nodes, double share,
                                           Rng& rng) {
  std::vector<OpenbPodRow> out = base;
  std::vector<size_t> gpu;
  for (size_t i = 0; i < out.size(); ++i)
    if (isGpuTask(out[i])) gpu.push_back(i);
  const auto want = static_cast<size_t>(std::llround(share * double(gpu.size())));
  for (size_t i = 0; i < want; ++i) std::swap(gpu[i], gpu[i + below(rng, gpu.size() - i)]);
  for (size_t i = 0; i < want; ++i) {
    OpenbPodRow& r = out[gpu[i]];
    std::vector<const SpecWeight*> fit;
    int total = 0;
    for (const auto& s : publishedSpecs())
      if (holds(nodes, s.models, r.numGpu)) fit.push_back(&s), total += s.count;
    if (total == 0) return Error{"no listed GPU model holds pod '" + r.name + "'", {}};
    auto k = static_cast<int>(below(rng, static_cast<uint64_t>(total)));
    for (const auto* s : fit)
      if ((k -= s->count) < 0) {
        r.spec = s->models;
        break;
      }
  }
  return out;
}

}  // namespace

Expected<OpenbFamilySpec> parseOpenbFamily(const std::string& text) {
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  OpenbFamilySpec spec;
  const auto* it = std::find_if(std::begin(kNames), std::end(kNames),
                                [&](const FamilyName& n) { return kind == n.name; });
  if (it == std::end(kNames))
    return Error{"unknown trace family '" + kind +
                     "' (known: cpu-only, gpushare, multigpu, gpuspec; as FAMILY:SHARE)",
                 {}};
  spec.family = it->family;
  std::string value = colon == std::string::npos ? "" : text.substr(colon + 1);
  const bool percent = !value.empty() && value.back() == '%';
  if (percent) value.pop_back();
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(v))
    return Error{"trace family '" + text + "': the share must be a number (0.5 or 50%)", {}};
  spec.share = percent ? v / 100 : v;
  if (spec.share < 0 || spec.share > 1)
    return Error{"trace family '" + text + "': the share must be within 0..1 (0..100%)", {}};
  return spec;
}

std::string openbFamilyName(const OpenbFamilySpec& spec) {
  for (const auto& n : kNames)
    if (n.family == spec.family)
      return std::string(n.name) + std::to_string(std::lround(spec.share * 100));
  return "?";
}

Expected<std::vector<OpenbPodRow>> generateOpenbFamily(const std::vector<OpenbPodRow>& base,
                                                       const std::vector<OpenbNode>& nodes,
                                                       const OpenbFamilySpec& spec, uint64_t seed) {
  Rng rng(seed);
  Expected<std::vector<OpenbPodRow>> out = Error{"", {}};
  switch (spec.family) {
    case OpenbFamily::CpuOnly:
      out = cpuOnly(base, spec.share, rng);
      break;
    case OpenbFamily::GpuShare:
      out = demandShare(base, spec.share, isSharing, rng);
      break;
    case OpenbFamily::MultiGpu:
      out = demandShare(base, spec.share, isMulti, rng);
      break;
    case OpenbFamily::GpuSpec:
      out = gpuSpec(base, nodes, spec.share, rng);
      break;
  }
  if (!out) return out;
  const std::string prefix = openbFamilyName(spec) + "-";
  for (size_t i = 0; i < out->size(); ++i) {
    char digits[24];
    std::snprintf(digits, sizeof digits, "%05zu", i);
    (*out)[i].name = prefix + digits;
  }
  return out;
}

double openbFamilyShare(const std::vector<OpenbPodRow>& pods, OpenbFamily family) {
  double part = 0, whole = 0;
  for (const auto& r : pods) {
    switch (family) {
      case OpenbFamily::CpuOnly:
        part += isGpuTask(r) ? 0 : 1, whole += 1;
        break;
      case OpenbFamily::GpuShare:
        part += isSharing(r) ? demandOf(r) : 0, whole += demandOf(r);
        break;
      case OpenbFamily::MultiGpu:
        part += isMulti(r) ? demandOf(r) : 0, whole += demandOf(r);
        break;
      case OpenbFamily::GpuSpec:
        part += isGpuTask(r) && !r.spec.empty() ? 1 : 0, whole += isGpuTask(r) ? 1 : 0;
        break;
    }
  }
  return whole > 0 ? part / whole : 0;
}

}  // namespace tessera
