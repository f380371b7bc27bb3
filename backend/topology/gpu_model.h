#pragma once
// GPU models and their MIG profile tables, as loaded from the GPU catalog
// (resources/gpu-catalog.yaml). Everything here is data: a new GPU model is a catalog entry, never
// a code branch.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

// The largest MIG geometry we model: memory-slice masks are 16 bits wide.
inline constexpr int kMaxMemorySlices = 16;
// Profiles per model are indexed by a small integer so layouts stay compact.
inline constexpr int kMaxMigProfiles = 32;

// Engine counts (copy engines, NVDEC, NVENC, NVJPG, OFA) per instance or per GPU.
struct MigEngines {
  int ce = 0, dec = 0, enc = 0, jpeg = 0, ofa = 0;

  MigEngines& operator+=(const MigEngines& o) {
    ce += o.ce, dec += o.dec, enc += o.enc, jpeg += o.jpeg, ofa += o.ofa;
    return *this;
  }
  MigEngines& operator-=(const MigEngines& o) {
    ce -= o.ce, dec -= o.dec, enc -= o.enc, jpeg -= o.jpeg, ofa -= o.ofa;
    return *this;
  }
  // True when no engine count exceeds the matching count of `cap`.
  [[nodiscard]] bool within(const MigEngines& cap) const {
    return ce <= cap.ce && dec <= cap.dec && enc <= cap.enc && jpeg <= cap.jpeg && ofa <= cap.ofa;
  }
};

struct MigProfile {
  std::string name;      // "3g.40gb", "1g.10gb+me"
  int id = -1;           // profile ID as `nvidia-smi mig -lgip` prints it (keyed by model!)
  int maxCount = 0;      // most instances of this profile on one GPU
  int sm = 0;            // SMs per instance
  MigEngines engines;    // per instance
  double memoryGiB = 0;  // as one driver printed it; informational only
  int memorySlices = 0;  // placement size
  int computeSlices = 0;
  uint16_t startMask = 0;                // bit s set = may start at memory slice s
  bool mediaExtensions = false;          // "+me"
  std::vector<std::string> unconfirmed;  // facts about this row the reference marks unconfirmed

  [[nodiscard]] bool canStartAt(int slice) const { return (startMask >> slice) & 1u; }
  // Memory slices an instance starting at `start` occupies.
  [[nodiscard]] uint16_t maskAt(int start) const {
    return static_cast<uint16_t>(((1u << memorySlices) - 1u) << start);
  }
};

// Compute-instance sizes allowed inside a GI of a given compute-slice count (reference 1.6).
struct ComputeInstanceRule {
  int giComputeSlices = 0;
  // (CI compute slices, most CIs of that size) pairs.
  std::vector<std::pair<int, int>> sizes;
};

struct MigGeometry {
  int memorySlices = 0;
  int computeSlices = 0;
  MigEngines totals;  // the GPU's engine totals (those of the full-GPU profile)
  std::vector<MigProfile> profiles;
  std::vector<ComputeInstanceRule> computeInstances;

  // Index into `profiles`, or -1.
  [[nodiscard]] int profileIndex(std::string_view name) const;
  [[nodiscard]] int profileIndexById(int id) const;
  [[nodiscard]] uint16_t fullMask() const {
    return static_cast<uint16_t>((1u << memorySlices) - 1u);
  }
  [[nodiscard]] const ComputeInstanceRule* ciRule(int giComputeSlices) const;
};

struct NvlinkSpec {
  int generation = 0;     // 0 = no NVLink
  int links = 0;          // links per GPU (what `topo -m` prints as NV#)
  int bandwidthGBps = 0;  // bidirectional per GPU
};

struct GpuModel {
  std::string id;                    // catalog key, e.g. "H100-SXM5-80GB"
  std::string productName;           // as nvidia-smi names it, e.g. "NVIDIA H100 80GB HBM3"
  std::vector<std::string> aliases;  // other names operators and traces use ("H100", "V100M16")
  std::string architecture;          // "hopper", "ampere", ...
  std::optional<int> memoryMiB;      // unknown for undisclosed models (openb G1/G2/G3)
  std::optional<int> smCount;
  NvlinkSpec nvlink;
  // Sold on NVSwitch baseboards (SXM/HGX, NVL racks): node templates default to all-to-all NVLink.
  // PCIe cards with NVLink bridges do not; their templates name the bridged pairs.
  bool nvswitchBaseboard = false;
  int pcieGeneration = 0;
  std::vector<std::string> pciDeviceIds;  // "0x233010DE"
  std::optional<MigGeometry> mig;         // absent = not MIG capable
  // Concurrent MPS clients one MPS server accepts on this GPU (per MIG instance in MIG mode);
  // 0 = unknown, so the model cannot run MPS. From the catalog's per-architecture table.
  int mpsMaxClients = 0;
  std::vector<std::string> unconfirmed;
  std::string notes;

  [[nodiscard]] bool migCapable() const { return mig.has_value(); }
};

}  // namespace tessera
