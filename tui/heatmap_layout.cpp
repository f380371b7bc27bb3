#include "heatmap_layout.h"

#include <algorithm>

namespace tessera::tui {

namespace {

int nameWidth(const std::vector<const NodeView*>& nodes) {
  size_t w = 4;
  for (const NodeView* n : nodes) w = std::max(w, n->name.size());
  return static_cast<int>(std::min<size_t>(w, 12));
}

// The node's NVLink domain when it spans nodes (an NVL72 rack); empty for a node-local one
// (an HGX board's NVSwitch), which is the node itself.
std::string domainOf(const NodeView& n) {
  const std::string d = n.gpus.empty() ? std::string() : n.gpus.front().nvlinkDomain;
  return d.starts_with(n.name) ? std::string() : d;
}

bool isSliceBar(const State& s, const NodeView& node, size_t gpu) {
  return gpuCells(s, node, gpu) > 1;
}

// With `gaps`, a gap sets a slice bar apart from the GPU after it and the GPU before it, so that
// bars and whole GPUs never run together.
int gpuSpan(const State& s, const NodeView& node, size_t gpu, bool gaps) {
  const bool last = gpu + 1 >= node.gpus.size();
  const bool apart = gaps && !last && (isSliceBar(s, node, gpu) || isSliceBar(s, node, gpu + 1));
  return gpuCells(s, node, gpu) + (apart ? 1 : 0);
}

int blockWidth(const State& s, const NodeView& node, int nameW, bool gaps) {
  int w = nameW + 1;
  for (size_t g = 0; g < node.gpus.size(); ++g) w += gpuSpan(s, node, g, gaps);
  return w + 2;
}

// Gaps only when every node still fits the width with them: a node of eight slice bars must not
// run off an 80-column terminal, where its last GPUs could not be seen or selected.
bool gapsFit(const State& s, const std::vector<const NodeView*>& nodes, int nameW, int width) {
  for (const NodeView* n : nodes)
    if (blockWidth(s, *n, nameW, true) > width) return false;  // 2 cells in, 2 after: width
  return true;
}

}  // namespace

const GpuDerived* derivedOf(const State& s, const NodeView& node, size_t gpu) {
  const auto& nodes = s.data.snapshot.nodes;
  if (nodes.empty() || &node < nodes.data() || &node >= nodes.data() + nodes.size()) return nullptr;
  const auto n = static_cast<size_t>(&node - nodes.data());
  if (n >= s.data.derived.size() || gpu >= s.data.derived[n].size()) return nullptr;
  return &s.data.derived[n][gpu];
}

const GpuDerived* derivedOf(const State& s, const NodeView& node, const GpuView& gpu) {
  if (node.gpus.empty() || &gpu < node.gpus.data() || &gpu >= node.gpus.data() + node.gpus.size())
    return nullptr;
  return derivedOf(s, node, static_cast<size_t>(&gpu - node.gpus.data()));
}

int gpuCells(const State& s, const NodeView& node, size_t gpu) {
  const GpuDerived* d = derivedOf(s, node, gpu);
  return d && !d->slices.empty() ? static_cast<int>(d->slices.size()) : 1;
}

int gpuOffset(const State& s, const HeatmapLayout& l, const NodeView& node, size_t gpu) {
  int x = l.nameWidth + 1;
  for (size_t g = 0; g < gpu && g < node.gpus.size(); ++g) x += gpuSpan(s, node, g, l.gaps);
  return x;
}

HeatmapLayout layoutHeatmap(const State& s, const std::vector<const NodeView*>& nodes, int width) {
  HeatmapLayout out;
  out.nameWidth = nameWidth(nodes);
  out.gaps = gapsFit(s, nodes, out.nameWidth, width);
  auto& lines = out.lines;
  std::string spine, leaf, domain;
  int x = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeView* n = nodes[i];
    const int blockW = blockWidth(s, *n, out.nameWidth, out.gaps);
    if (lines.empty() || n->spine != spine || n->leaf != leaf) {
      spine = n->spine, leaf = n->leaf, domain = "\x01";
      lines.push_back({spine + " > " + leaf, {}});
    }
    if (domainOf(*n) != domain || x + blockW > width) {
      if (domainOf(*n) != domain && !domainOf(*n).empty())
        lines.push_back({"  nvlink " + domainOf(*n), {}});
      domain = domainOf(*n);
      lines.push_back({"", {}});
      x = 2;
    }
    lines.back().blocks.push_back({n, static_cast<int>(i), x});
    x += blockW;
  }
  return out;
}

}  // namespace tessera::tui
