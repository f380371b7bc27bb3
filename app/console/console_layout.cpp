// The console's layout presets (see console_layout.h).
#include "console/console_layout.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QHeaderView>
#include <QLayout>
#include <QMainWindow>
#include <QStringList>

#include <algorithm>
#include <vector>

#include "job_queue_view.h"
#include "job_table_model.h"

namespace tessera::console {
namespace {

// Docks tabbed together, the first one raised; `percent`: its share of the area's length.
struct Stack {
  QStringList docks;
  int percent;
};

// Where each dock goes: stacks side by side in the bottom area and one above the other in the
// right one, the area's thickness as a share of the window.
struct Plan {
  std::vector<Stack> bottom;
  std::vector<Stack> right;
  double bottomShare;
  double rightShare;
};

// The bottom area's least height: a chart's plot (kMinPlotHeight) plus what surrounds it - the
// dock title, the tab bar, the scope selector, the chart's title, legend and time axis - as
// measured with the default font at every supported size (tst_console_layout checks the plots).
constexpr int kChartChrome = 180;
constexpr int kMinBottom = kMinPlotHeight + kChartChrome;
constexpr int kMinRight = 280;
constexpr int kMaxRight = 560;
// A bottom area narrower than this tabs its stacks together: side by side, neither the queue's
// key columns nor two charts would fit.
constexpr int kMinSplitBottom = 1200;
// A window lower than this gives the bottom area its full width (the right area stops above it)
// and tabs the right area's stacks together: it has no height to split.
constexpr int kTallWindow = 900;
// The pending reason's least width beside the queue's other columns.
constexpr int kReasonWidth = 160;

const QString kPending = QStringLiteral("pending");
const QString kRunning = QStringLiteral("running");
const QString kIdle = QStringLiteral("idle");
const QString kTimeline = QStringLiteral("timeline");
const QString kUtilization = QStringLiteral("utilization");
const QString kInspector = QStringLiteral("inspector");
const QString kMig = QStringLiteral("mig");
const QString kRepartition = QStringLiteral("repartition");
const QString kHardware = QStringLiteral("hardware");
const QString kActivity = QStringLiteral("activity");
const QString kOverview = QStringLiteral("overview");
const QString kAdmission = QStringLiteral("admission");

// Why pending and Repartition are never raised by a preset: they are empty until a selection,
// which raises them (MainWindow::selectJob, the heatmap's MIG GPU selection).
Plan planFor(LayoutPreset preset) {
  switch (preset) {
    case LayoutPreset::Operations:
      break;
    case LayoutPreset::Capacity:
      return {{{{kUtilization}, 60}, {{kIdle, kPending, kRunning, kTimeline}, 40}},
              {{{kMig, kRepartition}, 60},
               {{kOverview, kActivity, kInspector, kHardware, kAdmission}, 40}},
              0.42,
              0.24};
    case LayoutPreset::Mig:
      return {{{{kPending, kRunning, kTimeline}, 60}, {{kUtilization, kIdle}, 40}},
              {{{kMig}, 60},
               {{kOverview, kActivity, kRepartition, kInspector, kHardware, kAdmission}, 40}},
              0.34,
              0.30};
  }
  return {
      {{{kPending, kRunning, kIdle, kTimeline}, 60}, {{kUtilization}, 40}},
      {{{kOverview, kActivity, kInspector, kHardware, kAdmission}, 50}, {{kMig, kRepartition}, 50}},
      0.34,
      0.24};
}

// One stack of all of `stacks`' docks, the first stack's raised.
std::vector<Stack> tabbedTogether(const std::vector<Stack>& stacks) {
  Stack all{{}, 100};
  for (const Stack& s : stacks) all.docks += s.docks;
  return {all};
}

// Puts `stacks` into `area` (split along `along`), each stack's docks tabbed with the first
// raised; returns the first dock of each stack. Split first, tabify after: a dock split off one
// that is already tabbed would join its tabs instead (QMainWindow::splitDockWidget).
QList<QDockWidget*> placeStacks(QMainWindow& window, Qt::DockWidgetArea area,
                                const std::vector<Stack>& stacks, Qt::Orientation along) {
  std::vector<QList<QDockWidget*>> tabs;
  for (const Stack& stack : stacks) {
    QList<QDockWidget*> docks;
    for (const QString& name : stack.docks)
      if (auto* d = window.findChild<QDockWidget*>(name)) docks << d;
    if (!docks.isEmpty()) tabs.push_back(docks);
  }
  QList<QDockWidget*> firsts;
  for (const auto& docks : tabs) {
    if (firsts.isEmpty())
      window.addDockWidget(area, docks[0], along);
    else
      window.splitDockWidget(firsts.back(), docks[0], along);
    docks[0]->show();
    firsts << docks[0];
  }
  for (const auto& docks : tabs) {
    for (QDockWidget* d : docks.mid(1)) {
      window.tabifyDockWidget(docks[0], d);
      d->show();
    }
    docks[0]->raise();
  }
  return firsts;
}

// `total` split by the stacks' percentages.
QList<int> lengths(const std::vector<Stack>& stacks, int total) {
  QList<int> out;
  for (const Stack& s : stacks) out << total * s.percent / 100;
  return out;
}

// The queues' secondary columns are shown where all columns up to the reason fit `width`.
void fitQueueColumns(QMainWindow& window, int width) {
  using M = widgets::JobTableModel;
  for (auto* view : window.findChildren<widgets::JobQueueView*>()) {
    QHeaderView* header = view->header();
    const bool compact = M::Reason * header->defaultSectionSize() + kReasonWidth > width;
    for (int c : {M::PriorityClass, M::Workload, M::Gang, M::QueuePosition, M::Eta})
      header->setSectionHidden(c, compact);
    // The reason gets the room the other columns leave (the last column stretches over the rest).
    const int last = header->logicalIndex(header->count() - 1);
    int others = 0;
    for (int c = 0; c < M::ColumnCount; ++c)
      if (c != M::Reason && !header->isSectionHidden(c))
        others += c == last ? header->defaultSectionSize() : header->sectionSize(c);
    header->resizeSection(M::Reason, std::max(kReasonWidth, width - others - 24));
  }
}

// The width of the bottom stack that holds the pending queue (its first dock is on screen).
int queueStackWidth(const std::vector<Stack>& stacks, const QList<QDockWidget*>& firsts) {
  for (size_t i = 0; i < stacks.size() && i < static_cast<size_t>(firsts.size()); ++i)
    if (stacks[i].docks.contains(kPending)) return firsts[static_cast<qsizetype>(i)]->width();
  return 0;
}

}  // namespace

QString layoutPresetName(LayoutPreset preset) {
  switch (preset) {
    case LayoutPreset::Operations:
      break;
    case LayoutPreset::Capacity:
      return QCoreApplication::translate("tessera::console::Layout", "Capacity");
    case LayoutPreset::Mig:
      return QCoreApplication::translate("tessera::console::Layout", "MIG");
  }
  return QCoreApplication::translate("tessera::console::Layout", "Operations");
}

QString layoutPresetKey(LayoutPreset preset) {
  switch (preset) {
    case LayoutPreset::Operations:
      break;
    case LayoutPreset::Capacity:
      return QStringLiteral("capacity");
    case LayoutPreset::Mig:
      return QStringLiteral("mig");
  }
  return QStringLiteral("operations");
}

std::optional<LayoutPreset> layoutPresetFromKey(const QString& key) {
  for (LayoutPreset p : kLayoutPresets)
    if (layoutPresetKey(p) == key) return p;
  return std::nullopt;
}

void applyLayoutPreset(QMainWindow& window, LayoutPreset preset) {
  Plan plan = planFor(preset);
  const QSize size = window.size();
  const int bottomHeight = std::max(kMinBottom, static_cast<int>(size.height() * plan.bottomShare));
  const int rightWidth =
      std::clamp(static_cast<int>(size.width() * plan.rightShare), kMinRight, kMaxRight);
  const bool tall = size.height() >= kTallWindow;
  setLayoutCorners(window);
  if ((tall ? size.width() - rightWidth : size.width()) < kMinSplitBottom)
    plan.bottom = tabbedTogether(plan.bottom);
  if (!tall) plan.right = tabbedTogether(plan.right);
  for (auto* d : window.findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
    d->setFloating(false);
    window.removeDockWidget(d);
  }
  const QList<QDockWidget*> bottom =
      placeStacks(window, Qt::BottomDockWidgetArea, plan.bottom, Qt::Horizontal);
  const QList<QDockWidget*> right =
      placeStacks(window, Qt::RightDockWidgetArea, plan.right, Qt::Vertical);
  // Laid out once with the new docks: their sizes now tell each area's length.
  window.layout()->activate();
  if (!bottom.isEmpty()) {
    window.resizeDocks({bottom[0]}, {bottomHeight}, Qt::Vertical);
    int bottomWidth = 0;
    for (QDockWidget* d : bottom) bottomWidth += d->width();
    window.resizeDocks(bottom, lengths(plan.bottom, bottomWidth), Qt::Horizontal);
  }
  if (!right.isEmpty()) {
    int rightHeight = 0;
    for (QDockWidget* d : right) rightHeight += d->height();
    window.resizeDocks({right[0]}, {rightWidth}, Qt::Horizontal);
    window.resizeDocks(right, lengths(plan.right, rightHeight), Qt::Vertical);
  }
  window.layout()->activate();
  fitQueueColumns(window, queueStackWidth(plan.bottom, bottom));
}

void setLayoutCorners(QMainWindow& window) {
  const bool tall = window.height() >= kTallWindow;
  window.setCorner(Qt::BottomRightCorner,
                   tall ? Qt::RightDockWidgetArea : Qt::BottomDockWidgetArea);
}

QList<int> keyJobColumns() {
  using M = widgets::JobTableModel;
  return {M::Id, M::Name, M::Team, M::Request, M::State, M::Wait, M::Reason};
}

QString screenLayoutGroup(QSize available) {
  return QStringLiteral("layout/%1x%2").arg(available.width()).arg(available.height());
}

QRect initialWindowGeometry(const QRect& available) {
  // The heatmap is worth every pixel: the default layouts are sized for the whole screen.
  return available;
}

}  // namespace tessera::console
