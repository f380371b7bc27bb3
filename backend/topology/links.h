#pragma once
// GPU-to-GPU (and GPU-to-NIC) path classes as `nvidia-smi topo -m` prints them, and the
// topology levels a group of GPUs can span across the cluster.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera {

// Ranked best to worst; the enum order is the rank.
enum class LinkKind : uint8_t { Self, NVLink, PIX, PXB, PHB, NODE, SYS };

struct GpuLink {
  LinkKind kind = LinkKind::SYS;
  uint8_t nvlinks = 0;  // bonded NVLinks when kind == NVLink ("NV18")

  [[nodiscard]] std::string str() const;  // " X ", "NV18", "PIX", ...
  friend bool operator==(const GpuLink&, const GpuLink&) = default;
};

// Parses one matrix cell: "X"/" X ", "NV#", "PIX", "PXB", "PHB", "NODE", "SYS".
std::optional<GpuLink> parseGpuLink(std::string_view cell);

// True when `a` is a better (faster) path than `b`; more NVLinks beat fewer.
bool betterLink(const GpuLink& a, const GpuLink& b);

// The tightest boundary a set of GPUs stays within, from best to worst.
enum class TopologyLevel : uint8_t { Gpu, Node, NvlinkDomain, Leaf, Spine, Cluster };
const char* topologyLevelName(TopologyLevel l);

}  // namespace tessera
