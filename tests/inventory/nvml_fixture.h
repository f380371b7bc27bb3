#pragma once
// Fixtures for the fake libnvidia-ml.so.1 (fake_nvml.cpp) made from the GPU catalog: a node of
// MIG-enabled GPUs whose profile table is the catalog's and whose instances are a given layout.
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "topology/gpu_model.h"
#include "topology/mig_layout.h"

namespace tessera::test {

// A fake-NVML fixture for `gpus` GPUs of catalog model `m`, MIG enabled, with `layout` on each:
// the profile table is the catalog's, the instances those of the layout.
inline std::string fixtureFromCatalog(const GpuModel& m, const MigLayout& layout, int gpus = 1) {
  static const std::map<int, int> ciProfileOfSlices = {{1, 0}, {2, 1}, {3, 2}, {4, 3},
                                                       {7, 4}, {8, 5}, {6, 6}};
  std::ostringstream f;
  char deviceId[16];
  std::snprintf(deviceId, sizeof deviceId, "%s", m.pciDeviceIds.front().substr(2).c_str());
  f << "driver 580.159.04\ncount " << gpus << "\n";
  for (int g = 0; g < gpus; ++g) {
    f << "gpu " << g << " name " << m.productName << "\n"
      << "gpu " << g << " uuid GPU-00000000-0000-4000-8000-00000000000" << g << "\n"
      << "gpu " << g << " mem_total_mib " << *m.memoryMiB << "\n"
      << "gpu " << g << " mig_mode 1 pending 1 (Success)\n"
      << "gpu " << g << " max_mig_devices 7 (Success)\n"
      << "gpu " << g << " pci 00000000:0" << g + 1 << ":00.0 " << deviceId << "\n";
    int index = 0;
    for (const auto& p : m.mig->profiles) {
      f << "profile " << index++ << " id " << p.id << " slices " << p.computeSlices << " instances "
        << p.maxCount << " sms " << p.sm << " ce " << p.engines.ce << " dec " << p.engines.dec
        << " enc " << p.engines.enc << " jpeg " << p.engines.jpeg << " ofa " << p.engines.ofa
        << " mem_mb " << std::lround(p.memoryGiB * 1024) << " placements";
      for (int s = 0; s < kMaxMemorySlices; ++s)
        if (p.canStartAt(s)) f << " " << s << ":" << p.memorySlices;
      f << "\n";
    }
    int k = 0;
    int migDevice = 0;
    for (const auto& inst : layout) {
      const MigProfile& p = m.mig->profiles[static_cast<size_t>(inst.profile)];
      const int gi = k + 1;
      f << "gi " << g << " id " << gi << " profile " << p.id << " placement "
        << static_cast<int>(inst.start) << ":" << p.memorySlices << "\n";
      std::vector<int> cis;
      for (int c = 0; c < inst.ciCount; ++c) cis.push_back(inst.ciSlices[static_cast<size_t>(c)]);
      if (cis.empty()) cis.push_back(p.computeSlices);
      int start = 0;
      for (size_t c = 0; c < cis.size(); ++c) {
        f << "ci " << g << " gi " << gi << " id " << c << " profile "
          << ciProfileOfSlices.at(cis[c]) << " placement " << start << ":" << cis[c] << "\n";
        f << "migdev " << g << " index " << migDevice++ << " uuid MIG-" << g << "-" << gi << "-"
          << c << " gi " << gi << " ci " << c << "\n";
        start += cis[c];
      }
      ++k;
    }
  }
  return f.str();
}

}  // namespace tessera::test
