#pragma once
// A MIG layout: the GPU instances (and their compute instances) on one GPU.
// Compact and allocation-free so validation runs in tens of nanoseconds.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.h"
#include "topology/gpu_model.h"

namespace tessera {

inline constexpr int kMaxComputeInstances = 8;

struct MigInstance {
  int8_t profile = -1;  // index into MigGeometry::profiles
  int8_t start = -1;    // first memory slice; -1 = not placed yet (the engine chooses)
  bool busy = false;    // has running work: a repartition plan must keep it where it is
  uint8_t ciCount = 0;  // 0 = one default compute instance spanning the whole GI
  std::array<uint8_t, kMaxComputeInstances> ciSlices{};  // compute slices per CI

  [[nodiscard]] bool placed() const { return start >= 0; }
  [[nodiscard]] bool sameShape(const MigInstance& o) const {
    return profile == o.profile && ciCount == o.ciCount && ciSlices == o.ciSlices;
  }
};

class MigLayout {
 public:
  [[nodiscard]] int size() const { return count_; }
  [[nodiscard]] bool empty() const { return count_ == 0; }
  [[nodiscard]] bool full() const { return count_ == kMaxMemorySlices; }
  [[nodiscard]] const MigInstance& operator[](int i) const {
    return items_[static_cast<size_t>(i)];
  }
  MigInstance& operator[](int i) { return items_[static_cast<size_t>(i)]; }
  const MigInstance* begin() const { return items_.data(); }
  const MigInstance* end() const { return items_.data() + count_; }
  MigInstance* begin() { return items_.data(); }
  MigInstance* end() { return items_.data() + count_; }

  // Returns false (and adds nothing) when the layout already holds kMaxMemorySlices instances.
  bool add(const MigInstance& inst);
  void removeAt(int i);
  void clear() { count_ = 0; }
  // Orders instances by start slice (unplaced last); the canonical order for output and equality.
  void sortByStart();
  [[nodiscard]] bool allPlaced() const;
  // Memory slices occupied by placed instances.
  [[nodiscard]] uint16_t occupiedMask(const MigGeometry& g) const;

  friend bool operator==(const MigLayout& a, const MigLayout& b);

 private:
  std::array<MigInstance, kMaxMemorySlices> items_{};
  uint8_t count_ = 0;
};

// Layout syntax (docs/mig-layout-syntax.md):
//   layout   := "" | "-" | instance ("," instance)*
//   instance := [N "x"] PROFILE ["@" START] ["(" CI ("+" CI)* ")"] ["*"]
//   CI       := K "c"          (compute slices of one compute instance)
// e.g. "3g.40gb@4,2g.20gb@0,1g.10gb@2,1g.10gb@3", "3g.40gb@0(1c+2c)*", "2x1g.20gb".
// `*` marks a busy instance; "N x" repeats an (unplaced) instance N times.
Expected<MigLayout> parseMigLayout(const GpuModel& model, std::string_view text);
std::string formatMigLayout(const GpuModel& model, const MigLayout& layout, bool withBusy = false);
std::string formatMigInstance(const GpuModel& model, const MigInstance& inst,
                              bool withBusy = false);
// Start slices of a mask as "0,2,4".
std::string formatStarts(const MigGeometry& g, uint16_t starts);
// "slices 4-7" style description of what an instance occupies.
std::string describeSlices(const MigGeometry& g, const MigInstance& inst);

}  // namespace tessera
