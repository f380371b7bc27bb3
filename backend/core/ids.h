#pragma once
// Identifiers and time shared by the engine layers.
#include <cstdint>

namespace tessera {

using JobId = uint64_t;
inline constexpr JobId kNoJob = 0;  // "nobody": never a real job's id

using Seconds = int64_t;  // simulated or wall time, seconds since an epoch the caller chooses

}  // namespace tessera
