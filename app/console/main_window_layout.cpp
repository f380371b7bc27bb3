// The main window's layouts: the View menu (presets, Reset layout, each panel's toggle), the
// layout of each screen size kept in the settings, and selections raising the panel that shows
// them (a tab switch: no dock changes size).
#include <QActionGroup>
#include <QChildEvent>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QTabBar>

#include "console/main_window.h"
#include "heatmap_widget.h"

namespace tessera::console {

void MainWindow::buildViewMenu() {
  QMenu* menu = menuBar()->addMenu(tr("&View"));
  menu->setObjectName(QStringLiteral("viewMenu"));
  auto* group = new QActionGroup(this);
  // Ctrl+Shift+1, 2, 3.
  const std::array<Qt::Key, kLayoutPresets.size()> keys{Qt::Key_1, Qt::Key_2, Qt::Key_3};
  for (LayoutPreset preset : kLayoutPresets) {
    QAction* a = menu->addAction(tr("%1 layout").arg(layoutPresetName(preset)));
    a->setObjectName(QStringLiteral("layout-") + layoutPresetKey(preset));
    a->setCheckable(true);
    a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | keys.at(static_cast<size_t>(preset))));
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, preset] { applyLayout(preset); });
    layoutActions_.at(static_cast<size_t>(preset)) = a;
  }
  layoutAction(preset_)->setChecked(true);
  menu->addSeparator();
  resetLayout_ = menu->addAction(tr("Reset layout"), this, &MainWindow::resetLayout);
  resetLayout_->setObjectName(QStringLiteral("resetLayout"));
  menu->addSeparator();
  addFocusActions(menu);
  menu->addSeparator();
  for (auto* d : findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly))
    menu->addAction(d->toggleViewAction());
}

// Without a mouse: F6 goes to the heatmap (arrows move its GPU cursor), Shift+F6 to the Pending
// queue (arrows pick a job, G pins it to the GPUs selected on the heatmap, the Menu key opens
// its context menu).
void MainWindow::addFocusActions(QMenu* menu) {
  QAction* heatmap = menu->addAction(tr("Go to heatmap"), this, [this] { heatmap_->setFocus(); });
  heatmap->setShortcut(QKeySequence(Qt::Key_F6));
  QAction* pending = menu->addAction(tr("Go to pending queue"), this, [this] {
    raisePanel(QStringLiteral("pending"));
    if (auto* d = findChild<QDockWidget*>(QStringLiteral("pending"))) d->widget()->setFocus();
  });
  pending->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F6));
}

QAction* MainWindow::layoutAction(LayoutPreset preset) const {
  return layoutActions_.at(static_cast<size_t>(preset));
}

void MainWindow::applyLayout(LayoutPreset preset) {
  preset_ = preset;
  layoutPending_ = false;
  applyLayoutPreset(*this, preset);
  layoutAction(preset)->setChecked(true);
}

// Forgets what was kept for this screen size and opens as on a first start.
void MainWindow::resetLayout() {
  QSettings().remove(layoutGroup());
  setGeometry(initialWindowGeometry(screen()->availableGeometry()));
  applyLayout(LayoutPreset::Operations);
}

QString MainWindow::layoutGroup() const {
  return screenLayoutGroup(screen()->availableGeometry().size());
}

// True when this screen size has a kept layout (then applied as it was left).
bool MainWindow::restoreLayout() {
  QSettings s;
  s.beginGroup(layoutGroup());
  const auto preset = layoutPresetFromKey(s.value(QStringLiteral("preset")).toString());
  if (!preset) return false;
  preset_ = *preset;
  layoutAction(preset_)->setChecked(true);
  restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray());
  setLayoutCorners(*this);
  return restoreState(s.value(QStringLiteral("state")).toByteArray());
}

void MainWindow::saveLayout() {
  QSettings s;
  s.beginGroup(layoutGroup());
  s.setValue(QStringLiteral("preset"), layoutPresetKey(preset_));
  s.setValue(QStringLiteral("geometry"), saveGeometry());
  s.setValue(QStringLiteral("state"), saveState());
}

// The preset's sizes come from the window's: they are set once it has its size.
void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (layoutPending_) applyLayout(preset_);
}

// QMainWindow makes the tab bars of tabbed docks itself, eliding their titles: five panels in a
// 330 px right area read "O…, Ac…, W…, H…, N…". A title is shown whole, and tabs that do not fit
// scroll behind arrows. Set when each bar is polished, so bars made later (an operator tabbing
// docks by hand) get it too.
bool MainWindow::event(QEvent* event) {
  if (event->type() == QEvent::ChildPolished)
    if (auto* bar = qobject_cast<QTabBar*>(static_cast<QChildEvent*>(event)->child())) {
      bar->setElideMode(Qt::ElideNone);
      bar->setUsesScrollButtons(true);
    }
  return QMainWindow::event(event);
}

// A panel the operator closed stays closed (its toggle is unchecked even while tabbed away).
void MainWindow::raisePanel(const QString& dockName) {
  if (auto* dock = findChild<QDockWidget*>(dockName); dock && dock->toggleViewAction()->isChecked())
    dock->raise();
}

}  // namespace tessera::console
