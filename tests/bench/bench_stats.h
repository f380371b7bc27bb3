// Summary statistics and machine-readable results for the benchmarks: one definition of a
// percentile for all of them, so that "p99" means the same thing in every figure, and one
// format for the lines installer/run-benchmarks.sh reads.
//
// Percentiles are nearest rank: the smallest sample with at least q of the samples at or below
// it (the definition sim/metrics.cpp uses for the simulator's own summaries). With n samples a
// p99 is the second-largest of 100, the largest of fewer than 100: it only means something when
// n >= 100. `hasPercentile` says when a percentile is more than "one of the largest few
// samples", and the benchmarks print the sample count next to every percentile.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tessera::bench {

// The CPU model as /proc/cpuinfo names it (benchmark figures are stated with it).
inline std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("model name")) return line.substr(line.find(':') + 2);
  return "unknown";
}

// Nearest-rank percentile of `samples` (0 < q <= 1); 0 for no samples.
inline double percentile(std::vector<double> samples, double q) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(samples.size())));
  return samples[std::clamp<size_t>(rank, 1, samples.size()) - 1];
}

// Whether n samples hold a percentile q that is not simply one of the few largest: at least
// 1 / (1 - q) samples (100 for p99, 20 for p95, 10 for p90).
inline bool hasPercentile(double q, size_t n) {
  return q < 1 && static_cast<double>(n) >= std::round(1 / (1 - q));
}

// The same definition over weighted samples (value, weight): the smallest value with at least
// q of the total weight at or below it.
inline double weightedPercentile(std::vector<std::pair<double, uint64_t>> samples, double q) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  uint64_t total = 0;
  for (const auto& s : samples) total += s.second;
  const double wanted = std::ceil(q * static_cast<double>(total));
  uint64_t seen = 0;
  for (const auto& s : samples) {
    seen += s.second;
    if (static_cast<double>(seen) >= wanted) return s.first;
  }
  return samples.back().first;
}

struct Summary {
  size_t n = 0;
  double min = 0, median = 0, p90 = 0, p95 = 0, p99 = 0, max = 0, mean = 0;
};

inline Summary summarize(const std::vector<double>& samples) {
  Summary s;
  s.n = samples.size();
  if (samples.empty()) return s;
  s.min = *std::min_element(samples.begin(), samples.end());
  s.max = *std::max_element(samples.begin(), samples.end());
  s.median = percentile(samples, 0.5);
  s.p90 = percentile(samples, 0.90);
  s.p95 = percentile(samples, 0.95);
  s.p99 = percentile(samples, 0.99);
  double sum = 0;
  for (double x : samples) sum += x;
  s.mean = sum / static_cast<double>(samples.size());
  return s;
}

// One headline figure for installer/run-benchmarks.sh, on stdout:
//   RESULT <name> <value> <unit> n=<samples>
// `n` is how many samples the statistic in `name` (".median", ".p99", ".max" ...) was taken
// over; 1 for a single measurement.
inline void printResult(const std::string& name, double value, const char* unit, size_t n) {
  std::printf("RESULT %s %.6g %s n=%zu\n", name.c_str(), value, unit, n);
}

// RESULT lines for a summary: median and max always; p90 / p99 only where there are enough
// samples (hasPercentile), so that a "p99" in a result is never just the largest sample.
inline void printSummary(const std::string& name, const Summary& s, const char* unit) {
  printResult(name + ".median", s.median, unit, s.n);
  if (hasPercentile(0.90, s.n)) printResult(name + ".p90", s.p90, unit, s.n);
  if (hasPercentile(0.99, s.n)) printResult(name + ".p99", s.p99, unit, s.n);
  printResult(name + ".max", s.max, unit, s.n);
}

// Milliseconds of each of `runs` calls of f.
inline Summary measure(int runs, const std::function<void()>& f) {
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return summarize(ms);
}

}  // namespace tessera::bench
