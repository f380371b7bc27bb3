// The heatmap by keyboard alone: a GPU cursor that the arrow keys move (drawn as the hover
// outline, with the hover's tooltip data), Enter to select the GPU under it (Ctrl+Enter to add
// or remove it), Shift+Enter to select its whole rack (leaf) as a rubber band over it would.
// With the queue's "Pin to selected GPUs" (G) this is the keyboard's drag of a job onto GPUs.
#include <QKeyEvent>

#include <algorithm>
#include <cmath>
#include <limits>

#include "heatmap_widget.h"

namespace tessera::widgets {

// The tile nearest the cursor's tile in direction (dx, dy): the next or previous tile in layout
// order across, the closest tile whose center lies above or below otherwise.
int HeatmapWidget::tileToward(int from, int dx, int dy) const {
  const int n = static_cast<int>(layout_.tiles().size());
  if (n == 0) return -1;
  if (from < 0) return 0;
  if (dx != 0) return std::clamp(from + dx, 0, n - 1);
  const QPointF c = layout_.tiles()[static_cast<size_t>(from)].rect.center();
  int best = from;
  double bestCost = std::numeric_limits<double>::max();
  for (int k = 0; k < n; ++k) {
    const QPointF o = layout_.tiles()[static_cast<size_t>(k)].rect.center();
    const double ahead = (o.y() - c.y()) * dy;
    if (ahead <= 0.5) continue;
    // Rows first: a tile straight below beats one far to the side on the same row.
    const double cost = ahead * 4 + std::abs(o.x() - c.x());
    if (cost < bestCost) {
      bestCost = cost;
      best = k;
    }
  }
  return best;
}

bool HeatmapWidget::cursorKey(QKeyEvent* e) {
  int dx = 0, dy = 0;
  switch (e->key()) {
    case Qt::Key_Left:
      dx = -1;
      break;
    case Qt::Key_Right:
      dx = 1;
      break;
    case Qt::Key_Up:
      dy = -1;
      break;
    case Qt::Key_Down:
      dy = 1;
      break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
      selectAtCursor(e->modifiers());
      return true;
    default:
      return false;
  }
  setHover(tileToward(hoverTile_, dx, dy), -1);
  return true;
}

void HeatmapWidget::selectAtCursor(Qt::KeyboardModifiers mods) {
  if (hoverTile_ < 0) return;
  const HeatmapTile& t = layout_.tiles()[static_cast<size_t>(hoverTile_)];
  const QString key = keyOf(hoverTile_);
  if (mods & Qt::ShiftModifier) {
    // The rack: every GPU of the nodes under the cursor's leaf.
    const int leaf = layout_.nodes()[static_cast<size_t>(t.node)].leaf;
    selected_.clear();
    for (size_t k = 0; k < layout_.tiles().size(); ++k)
      if (layout_.nodes()[static_cast<size_t>(layout_.tiles()[k].node)].leaf == leaf)
        selected_.insert(keyOf(static_cast<int>(k)));
  } else if (mods & Qt::ControlModifier) {
    if (!selected_.remove(key)) selected_.insert(key);
  } else {
    selected_ = {key};
  }
  refreshFlags();
  update();
  emit gpusSelected(selectedGpus());
  if (!(mods & (Qt::ShiftModifier | Qt::ControlModifier)))
    emit gpuSelected(layout_.nodes()[static_cast<size_t>(t.node)].name, t.gpu);
}

}  // namespace tessera::widgets
