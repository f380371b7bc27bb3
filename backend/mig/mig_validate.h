#pragma once
// Validation of a set of GPU instances on one GPU: the five checks of the hardware reference
// (section 1.5) plus compute-instance rules, answering *which* check failed and for which instance.
#include <cstdint>
#include <string>

#include "core/text.h"
#include "topology/mig_layout.h"

namespace tessera {

enum class MigCheck : uint8_t {
  Ok = 0,
  NotPlaced,        // an instance has no start slice
  StartNotAllowed,  // check 1: start not in the profile's allowed-start set
  MemoryOverlap,    // check 2: memory slice ranges overlap
  CountExceeded,    // check 3: more instances of a profile than its maximum
  EnginesExceeded,  // check 4: CE/DEC/ENC/JPEG/OFA sums exceed the GPU's totals (e.g. two +me)
  ComputeSlicesExceeded,   // check 5: more compute slices than the GPU has
  ComputeInstanceInvalid,  // the compute instances inside a GI do not fit it
};

enum class MigEngine : uint8_t { None, CE, DEC, ENC, JPEG, OFA };

struct MigVerdict {
  MigCheck check = MigCheck::Ok;
  int8_t instance = -1;  // offending instance (index into the layout)
  int8_t other = -1;     // the instance it collides with (overlap), if any
  MigEngine engine = MigEngine::None;

  [[nodiscard]] bool ok() const { return check == MigCheck::Ok; }
};

// Hot path: no allocation, no strings.
MigVerdict validateMigLayout(const MigGeometry& g, const MigLayout& layout);
// The verdict in words, naming the check number, the instances and the limits involved.
std::string explainMigVerdict(const GpuModel& model, const MigLayout& layout, const MigVerdict& v);
Text migVerdictText(const GpuModel& model, const MigLayout& layout, const MigVerdict& v);
const char* migCheckName(MigCheck c);

}  // namespace tessera
