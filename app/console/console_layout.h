#pragma once
// The console's dock layouts. A preset places every panel (tabbed stacks in the bottom and right
// dock areas around the heatmap) and sets each stack's size from the window's size, so that the
// heatmap stays the largest view, the utilization charts keep at least kMinPlotHeight of plot
// and the queues their key columns. Panels that show a selection (Why pending, Repartition) sit
// behind other tabs until there is one: a selection raises a tab, it never resizes a dock.
// Sizes change only when the operator drags a splitter or picks a layout.
#include <QList>
#include <QRect>
#include <QSize>
#include <QString>

#include <array>
#include <optional>

class QMainWindow;

namespace tessera::console {

enum class LayoutPreset : quint8 { Operations, Capacity, Mig };
inline constexpr std::array kLayoutPresets{LayoutPreset::Operations, LayoutPreset::Capacity,
                                           LayoutPreset::Mig};

// The least plot height a visible chart gets in every preset, at every supported window size.
inline constexpr int kMinPlotHeight = 160;

// "Operations", "Capacity", "MIG" (translated), for the View menu.
[[nodiscard]] QString layoutPresetName(LayoutPreset preset);
// "operations", "capacity", "mig": how the preset is kept in the settings.
[[nodiscard]] QString layoutPresetKey(LayoutPreset preset);
[[nodiscard]] std::optional<LayoutPreset> layoutPresetFromKey(const QString& key);

// Places the window's docks (found by object name) for `preset` at the window's current size.
void applyLayoutPreset(QMainWindow& window, LayoutPreset preset);

// Which area owns the bottom-right corner: the right one runs the full height of a tall window,
// the bottom one the full width of a low window. restoreState keeps no corners: set them first.
void setLayoutCorners(QMainWindow& window);

// The queue columns an operator needs at any size (job, name, team, request, state, wait and the
// pending reason or placement); the others (priority class, workload, tasks, queue position,
// ETA) are hidden where all would not fit, and stay in the header's column menu.
[[nodiscard]] QList<int> keyJobColumns();

// The settings group the layout of a screen of `available` size is kept under ("layout/1920x1080").
[[nodiscard]] QString screenLayoutGroup(QSize available);
// Where the window first opens on a screen: all of its available area.
[[nodiscard]] QRect initialWindowGeometry(const QRect& available);

}  // namespace tessera::console
