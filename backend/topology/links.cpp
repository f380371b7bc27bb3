#include "topology/links.h"

#include "core/strings.h"

namespace tessera {

std::string GpuLink::str() const {
  switch (kind) {
    case LinkKind::Self:
      return "X";
    case LinkKind::NVLink:
      return "NV" + std::to_string(nvlinks);
    case LinkKind::PIX:
      return "PIX";
    case LinkKind::PXB:
      return "PXB";
    case LinkKind::PHB:
      return "PHB";
    case LinkKind::NODE:
      return "NODE";
    case LinkKind::SYS:
      return "SYS";
  }
  return "?";
}

std::optional<GpuLink> parseGpuLink(std::string_view cell) {
  cell = trim(cell);
  if (cell == "X") return GpuLink{LinkKind::Self, 0};
  if (cell == "PIX") return GpuLink{LinkKind::PIX, 0};
  if (cell == "PXB") return GpuLink{LinkKind::PXB, 0};
  if (cell == "PHB") return GpuLink{LinkKind::PHB, 0};
  if (cell == "NODE") return GpuLink{LinkKind::NODE, 0};
  if (cell == "SYS") return GpuLink{LinkKind::SYS, 0};
  if (cell.size() > 2 && cell.substr(0, 2) == "NV") {
    auto n = parseInt(cell.substr(2));
    if (n && *n > 0 && *n < 256) return GpuLink{LinkKind::NVLink, static_cast<uint8_t>(*n)};
  }
  return std::nullopt;
}

bool betterLink(const GpuLink& a, const GpuLink& b) {
  if (a.kind != b.kind) return a.kind < b.kind;
  return a.kind == LinkKind::NVLink && a.nvlinks > b.nvlinks;
}

const char* topologyLevelName(TopologyLevel l) {
  switch (l) {
    case TopologyLevel::Gpu:
      return "gpu";
    case TopologyLevel::Node:
      return "node";
    case TopologyLevel::NvlinkDomain:
      return "nvlink-domain";
    case TopologyLevel::Leaf:
      return "leaf";
    case TopologyLevel::Spine:
      return "spine";
    case TopologyLevel::Cluster:
      return "cluster";
  }
  return "?";
}

}  // namespace tessera
