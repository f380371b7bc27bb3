// The console's layouts on the live embedded demo, headless, at the supported screen sizes (and,
// run with QT_SCALE_FACTOR=2 as tst_console_layout_hidpi, a 2560×1440 screen at scale 2): in
// every preset the heatmap is the largest visible view with at least a measured share of the
// window, every visible chart has kMinPlotHeight of plot, whole axis labels and legend names,
// the pending queue shows its key columns and no dock's tab title is elided; selecting one
// pending job then another, and the refreshes meanwhile, move no dock; a MIG GPU's Repartition
// editor shows Dry run and Apply without scrolling; the layout is kept per screen size and Reset
// layout forgets it. Run with TESSERA_LANG=de or zh_CN (tst_console_layout_de, _zh_CN) it checks
// the same in that language, whose longer or wider titles and labels a layout must still hold.
#include <QDockWidget>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QTabBar>
#include <QTableView>
#include <QTranslator>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtTest>

#include <map>

#include "clusterspec/cluster_spec.h"
#include "console/console_layout.h"
#include "console/main_window.h"
#include "heatmap_widget.h"
#include "idle_gpu_panel.h"
#include "job_inspector.h"
#include "job_queue_view.h"
#include "job_table_model.h"
#include "mig_editor.h"
#include "mig_map_widget.h"
#include "node_admission_panel.h"
#include "overview_model.h"
#include "overview_panel.h"
#include "utilization_chart.h"
#include "workload/workload_spec.h"

using namespace tessera;
using console::LayoutPreset;

namespace {

console::EmbeddedOptions demoOptions() {
  console::EmbeddedOptions demo;
  demo.cluster = demoCluster();
  demo.workload = *demoWorkload();
  return demo;
}

// On screen: not closed, not behind another tab. A scroll area (a table, a chart) is covered by
// its viewport: that is what shows.
bool shown(const QWidget* w) {
  if (const auto* scroll = qobject_cast<const QAbstractScrollArea*>(w)) w = scroll->viewport();
  return w->isVisible() && !w->visibleRegion().isEmpty();
}

int area(const QWidget* w) {
  return w->width() * w->height();
}

QList<QDockWidget*> docks(const QMainWindow& window) {
  return window.findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly);
}

std::map<QString, QRect> shownDockGeometries(const QMainWindow& window) {
  std::map<QString, QRect> out;
  for (QDockWidget* d : docks(window))
    if (shown(d)) out[d->objectName()] = d->geometry();
  return out;
}

// The window as an operator's screen of `screen` physical pixels holds it at this scale.
QSize logicalSize(QSize screen) {
  const qreal dpr = qApp->devicePixelRatio();
  return {qRound(screen.width() / dpr), qRound(screen.height() / dpr)};
}

void openAt(console::MainWindow& window, QSize screen) {
  window.resize(logicalSize(screen));
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QCOMPARE(window.size(), logicalSize(screen));
}

// Each screen with the least share of the window the heatmap gets there in every preset, a
// little under the measured smallest: 1366×768 31.8 % (MIG; Operations and Capacity 34.6 %),
// 1920×1080 38.6 % (Capacity), 2560×1440 41.1 % (Capacity), 2560×1440 at scale 2, i.e.
// 1280×720 logical pixels, 29.3 % (MIG; Operations and Capacity 31.8 %).
void addScreenRows() {
  QTest::addColumn<QSize>("screen");
  QTest::addColumn<double>("minShare");
  // QT_SCALE_FACTOR=2: a HiDPI screen; the smaller ones would be 683×384 and 960×540 logical
  // pixels, too small for a console.
  if (qApp->devicePixelRatio() > 1.5) {
    QTest::newRow("2560x1440@2") << QSize(2560, 1440) << 0.29;
    return;
  }
  QTest::newRow("1366x768") << QSize(1366, 768) << 0.31;
  QTest::newRow("1920x1080") << QSize(1920, 1080) << 0.38;
  QTest::newRow("2560x1440") << QSize(2560, 1440) << 0.40;
}

// The pending queue's first `n` jobs, as its rows show them.
QList<JobId> pendingJobs(QAbstractItemView* view, int n) {
  QList<JobId> out;
  for (int r = 0; r < view->model()->rowCount() && out.size() < n; ++r)
    if (const JobId id =
            view->model()->index(r, 0).data(widgets::JobTableModel::JobIdRole).toULongLong();
        id != kNoJob)
      out << id;
  return out;
}

}  // namespace

class TstConsoleLayout : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // Keep the developer's own window layout out of the test.
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    installLanguage();
  }

  void heatmapIsTheLargestLegibleView_data() { addScreenRows(); }
  void heatmapIsTheLargestLegibleView() {
    QFETCH(QSize, screen);
    QFETCH(double, minShare);
    console::MainWindow window(demoOptions());
    openAt(window, screen);
    QTRY_VERIFY_WITH_TIMEOUT(window.jobs()->rowCount() > 0, 10000);
    // The charts with their series: a legend names every line (the teams' come with data).
    auto* chart = window.findChild<widgets::UtilizationChart*>();
    QTRY_VERIFY_WITH_TIMEOUT(chart->teamView()->chart()->series().size() >= 3, 20000);
    for (LayoutPreset preset : console::kLayoutPresets) {
      const QString name = console::layoutPresetKey(preset);
      window.applyLayout(preset);
      QCoreApplication::processEvents();
      const auto* heatmap = window.heatmap();
      const double share = double(area(heatmap)) / area(&window);
      qInfo("%s %s: heatmap %dx%d, %.1f %% of the window", qPrintable(name),
            QTest::currentDataTag(), heatmap->width(), heatmap->height(), share * 100);
      QVERIFY2(share >= minShare, qPrintable(name));
      for (QDockWidget* d : docks(window))
        if (shown(d)) QVERIFY2(area(d) < area(heatmap), qPrintable(name + ": " + d->objectName()));
      checkKeyColumns(window, preset);
      checkCharts(window, preset);
      checkTabTitles(window, name);
    }
  }

  // The bug: selecting a pending job grew the Why-pending panel and pushed the queue down, so
  // the next click landed on another row.
  void selectingJobsMovesNoDock_data() { addScreenRows(); }
  void selectingJobsMovesNoDock() {
    QFETCH(QSize, screen);
    console::MainWindow window(demoOptions());
    openAt(window, screen);
    window.applyLayout(LayoutPreset::Operations);
    auto* view = window.findChild<QDockWidget*>("pending")->widget();
    auto* queue = qobject_cast<QAbstractItemView*>(view);
    QVERIFY(queue);
    QTRY_VERIFY_WITH_TIMEOUT(pendingJobs(queue, 2).size() == 2, 20000);
    // The queue holds still, so the rows selected stay the jobs asked for; the session's
    // refreshes keep arriving.
    window.embeddedBackend()->setSpeed(0);
    QTest::qWait(500);
    auto* inspector = window.findChild<widgets::JobInspector*>();
    auto* inspectorDock = window.findChild<QDockWidget*>("inspector");
    QVERIFY(!shown(inspectorDock));  // empty: behind the Activity tab
    const auto before = shownDockGeometries(window);
    const QRect heatmapBefore = window.heatmap()->geometry();

    const QList<JobId> jobs = pendingJobs(queue, 2);
    auto select = [&](JobId id) {
      QVERIFY(qobject_cast<widgets::JobQueueView*>(queue)->selectJob(id));
      QTRY_COMPARE_WITH_TIMEOUT(inspector->job(), id, 30000);
      QCoreApplication::processEvents();
    };
    select(jobs[0]);
    QVERIFY(shown(inspectorDock));  // the selection opened it
    const auto first = shownDockGeometries(window);
    select(jobs[1]);
    // A refresh (the demo's snapshots and job lists keep arriving) moves nothing either.
    QTest::qWait(1500);
    const auto second = shownDockGeometries(window);
    QCOMPARE(window.heatmap()->geometry(), heatmapBefore);
    for (const auto& [name, rect] : before)
      if (first.contains(name)) QCOMPARE(first.at(name), rect);
    QCOMPARE(second, first);
  }

  // Selecting a MIG GPU raises Repartition; its slots, the profile palette's width, Dry run and
  // Apply are on screen in every preset at every size without scrolling (the buttons sat below
  // the dock's visible part at 1920×1080, the palette right of it at 1366×768).
  void repartitionButtonsNeedNoScrolling_data() { addScreenRows(); }
  void repartitionButtonsNeedNoScrolling() {
    QFETCH(QSize, screen);
    console::MainWindow window(demoOptions());
    openAt(window, screen);
    QTRY_VERIFY_WITH_TIMEOUT(!window.lastSnapshot().nodes.empty(), 10000);
    QString node;
    int gpu = -1;
    for (const NodeView& n : window.lastSnapshot().nodes)
      for (const GpuView& g : n.gpus)
        if (gpu < 0 && !g.migLayout.empty()) node = QString::fromStdString(n.name), gpu = g.index;
    QVERIFY2(gpu >= 0, "the demo has no MIG GPU");
    auto* editor = window.findChild<widgets::MigEditor*>();
    QVERIFY(editor);
    for (LayoutPreset preset : console::kLayoutPresets) {
      const QString name = console::layoutPresetKey(preset);
      window.applyLayout(preset);
      emit window.heatmap()->gpuSelected(node, gpu);
      QTRY_COMPARE(editor->gpuName(), node + QLatin1Char('/') + QString::number(gpu));
      QTRY_VERIFY2(shown(window.findChild<QDockWidget*>("repartition")), qPrintable(name));
      // The slots and the profiles to drag onto them are in view too, without scrolling sideways.
      // (QTRY: the editor's scroll area settles its scroll bars after the dock is shown.)
      QTRY_COMPARE(editor->slotArea()->visibleRegion().boundingRect(), editor->slotArea()->rect());
      const QWidget* palette = editor->profilePalette()->viewport();
      QTRY_COMPARE(palette->visibleRegion().boundingRect().width(), palette->width());
      for (QPushButton* button : {editor->dryRunButton(), editor->applyButton()}) {
        QVERIFY2(button->isVisible(), qPrintable(name));
        QCOMPARE(button->visibleRegion().boundingRect(), button->rect());
        const QRect onWindow(button->mapTo(&window, QPoint(0, 0)), button->size());
        QVERIFY2(window.rect().contains(onWindow), qPrintable(name));
      }
    }
  }

  // The Overview is what the Operations layout shows first; a pending reason activated there
  // leaves the Pending queue with the jobs of that reason, and activated again with all of them.
  void overviewComesFirstAndFiltersTheQueue() {
    console::MainWindow window(demoOptions());
    openAt(window, {2560, 1440});
    window.applyLayout(LayoutPreset::Operations);
    widgets::OverviewPanel* overview = window.overviewPanel();
    QVERIFY(overview);
    QVERIFY(shown(window.findChild<QDockWidget*>("overview")));
    QVERIFY(!shown(window.findChild<QDockWidget*>("activity")));
    QAbstractItemModel* model = overview->model();
    const QModelIndex reasons = model->index(widgets::OverviewModel::Pending, 0);
    QTRY_VERIFY_WITH_TIMEOUT(model->rowCount(reasons) >= 2, 20000);
    window.embeddedBackend()->setSpeed(0);  // the queue holds still while it is counted
    auto* queue =
        qobject_cast<QAbstractItemView*>(window.findChild<QDockWidget*>("pending")->widget());
    QCoreApplication::processEvents();
    const int all = queue->model()->rowCount();
    const QModelIndex first = model->index(0, 0, reasons);
    const int ofFirst = model->index(0, 1, reasons).data().toInt();
    QVERIFY(ofFirst > 0 && ofFirst < all);
    emit overview->activated(first);
    QCOMPARE(queue->model()->rowCount(), ofFirst);
    emit overview->activated(model->index(0, 0, model->index(widgets::OverviewModel::Pending, 0)));
    QCOMPARE(queue->model()->rowCount(), all);
  }

  // The main widgets carry accessible names (what a screen reader announces), each its own.
  void mainWidgetsHaveAccessibleNames() {
    console::MainWindow window(demoOptions());
    const QList<QWidget*> widgets{window.heatmap(),
                                  window.findChild<QWidget*>("pendingJobs"),
                                  window.findChild<QWidget*>("runningJobs"),
                                  window.findChild<widgets::JobInspector*>(),
                                  window.migMap(),
                                  window.findChild<widgets::UtilizationChart*>(),
                                  window.idlePanel(),
                                  window.overviewPanel(),
                                  window.admissionPanel()->view(),
                                  window.activity(),
                                  window.findChild<QDockWidget*>("hardware")->widget(),
                                  window.findChild<QDockWidget*>("timeline")->widget(),
                                  window.findChild<QDockWidget*>("repartition")->widget()};
    QSet<QString> names;
    for (QWidget* w : widgets) {
      QVERIFY(w);
      QWidget* named = w;
      // The editor sits in a scroll area: the name is on the editor itself.
      if (auto* scroll = qobject_cast<QScrollArea*>(w)) named = scroll->widget();
      qInfo() << named->metaObject()->className() << named->accessibleName();
      QVERIFY2(!named->accessibleName().isEmpty(), named->metaObject()->className());
      names.insert(named->accessibleName());
    }
    QCOMPARE(names.size(), widgets.size());
  }

  // The layout is kept per screen size when the window closes; Reset layout forgets it.
  void layoutIsRememberedPerScreenAndReset() {
    QRect utilization;
    {
      console::MainWindow window(demoOptions());
      window.show();
      QVERIFY(QTest::qWaitForWindowExposed(&window));
      window.applyLayout(LayoutPreset::Capacity);
      QCoreApplication::processEvents();
      utilization = window.findChild<QDockWidget*>("utilization")->geometry();
      window.close();
    }
    console::MainWindow window(demoOptions());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.layoutPreset(), LayoutPreset::Capacity);
    QVERIFY(window.layoutAction(LayoutPreset::Capacity)->isChecked());
    QTRY_COMPARE(window.findChild<QDockWidget*>("utilization")->geometry(), utilization);
    window.resetLayoutAction()->trigger();
    QCOMPARE(window.layoutPreset(), LayoutPreset::Operations);
    QVERIFY(window.layoutAction(LayoutPreset::Operations)->isChecked());
    QVERIFY(!QSettings().childGroups().contains("layout") ||
            QSettings()
                .value(console::screenLayoutGroup(window.screen()->availableGeometry().size()) +
                       "/preset")
                .isNull());
  }

  // A first start uses the screen, not a fixed 1440×900.
  void opensOnTheWholeAvailableScreen() {
    QSettings().clear();
    console::MainWindow window(demoOptions());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QRect available = window.screen()->availableGeometry();
    QVERIFY2(window.width() >= available.width() && window.height() >= available.height(),
             qPrintable(QString("%1x%2 on %3x%4")
                            .arg(window.width())
                            .arg(window.height())
                            .arg(available.width())
                            .arg(available.height())));
  }

 private:
  QTranslator translator_;

  // The shipped catalogue of TESSERA_LANG, as the console installs it (app/main.cpp); the
  // window's titles must then be in that language, so a run cannot pass in English unnoticed.
  void installLanguage() {
    const QString lang = qEnvironmentVariable("TESSERA_LANG");
    if (lang.isEmpty()) return;
    QVERIFY2(translator_.load(QStringLiteral(TESSERA_TEST_QM_DIR "/tessera_%1.qm").arg(lang)),
             qPrintable(lang));
    QVERIFY(QCoreApplication::installTranslator(&translator_));
    QLocale::setDefault(QLocale(lang));
    console::MainWindow window(demoOptions());
    const QString overview = window.findChild<QDockWidget*>("overview")->windowTitle();
    QVERIFY2(overview != QLatin1String("Overview"), qPrintable(lang + ": " + overview));
    qInfo("language %s: the Overview dock reads \"%s\"", qPrintable(lang), qPrintable(overview));
  }

  // Every chart on screen has a readable plot and legend, and so do the charts once their tab
  // is raised. Operations and Capacity show them from the start, beside the queue, at every size.
  // Every tab of the docks' tab bars is as wide as its whole title: none elided ("O…, Ac…" in a
  // narrow right area); tabs that do not fit scroll.
  static void checkTabTitles(const console::MainWindow& window, const QString& name) {
    for (const QTabBar* bar : window.findChildren<QTabBar*>(Qt::FindDirectChildrenOnly)) {
      if (!bar->isVisible()) continue;
      for (int i = 0; i < bar->count(); ++i)
        QVERIFY2(bar->tabRect(i).width() > bar->fontMetrics().horizontalAdvance(bar->tabText(i)),
                 qPrintable(name + ": tab " + bar->tabText(i)));
    }
  }

  static void checkCharts(const console::MainWindow& window, LayoutPreset preset) {
    const QString name = console::layoutPresetKey(preset);
    auto* chart = window.findChild<widgets::UtilizationChart*>();
    if (preset != LayoutPreset::Mig) QVERIFY2(shown(chart), qPrintable(name));
    checkShownPlots(window, name);
    window.findChild<QDockWidget*>("utilization")->raise();
    QCoreApplication::processEvents();
    QVERIFY2(shown(chart), qPrintable(name));
    // Both charts at once, or one at a time behind the chart tabs where the legends need it.
    QTabBar* tabs = chart->chartTabs();
    if (!tabs->isVisible()) {
      QCOMPARE(checkShownPlots(window, name + " (raised)"), 2);
      return;
    }
    for (int t : {1, 0}) {
      tabs->setCurrentIndex(t);
      QCoreApplication::processEvents();
      QCOMPARE(checkShownPlots(window, name + QString(" (raised, tab %1)").arg(t)), 1);
    }
  }

  // Returns how many charts are on screen.
  static int checkShownPlots(const console::MainWindow& window, const QString& name) {
    int checked = 0;
    for (auto* view : window.findChildren<QChartView*>()) {
      if (!shown(view)) continue;
      const QRectF plot = view->chart()->plotArea();
      [&] {
        QTRY_VERIFY2(view->chart()->plotArea().height() >= console::kMinPlotHeight,
                     qPrintable(QString("%1: plot %2 px high").arg(name).arg(plot.height())));
      }();
      qInfo("%s %s: chart plot %.0fx%.0f", qPrintable(name), QTest::currentDataTag(), plot.width(),
            plot.height());
      checkLegend(view, name);
      checkAxisLabels(view, name);
      ++checked;
    }
    return checked;
  }

  // The legend shows every line's whole name: where it lacks the room Qt elides the labels
  // ("Allo…"), so each marker's label must be among the texts the chart's scene draws.
  static void checkLegend(QChartView* view, const QString& name) {
    const QLegend* legend = view->chart()->legend();
    QVERIFY2(legend->isVisible(), qPrintable(name));
    // Drawn whole: inside the legend's own box (a legend with too little room clips its last
    // entries at its edge) and inside the view.
    const QRectF legendBox = legend->sceneBoundingRect().adjusted(-1, -1, 1, 1);
    const QRect viewBox = view->viewport()->rect();
    QSet<QString> drawn;
    for (QGraphicsItem* item : view->scene()->items())
      if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible()) {
        const QRectF box = text->sceneBoundingRect();
        if (legend->isAncestorOf(text) &&
            (!legendBox.contains(box) || !viewBox.contains(view->mapFromScene(box).boundingRect())))
          continue;
        drawn.insert(text->toPlainText());
      }
    int labels = 0;
    for (const QLegendMarker* m : legend->markers()) {
      if (!m->isVisible()) continue;
      QVERIFY2(drawn.contains(m->label()),
               qPrintable(QString("%1: legend entry \"%2\" cut").arg(name, m->label())));
      ++labels;
    }
    qInfo("%s %s: %d legend entries whole", qPrintable(name), QTest::currentDataTag(), labels);
  }

  // Axis labels and titles are drawn whole: Qt Charts cuts one that lacks the room with "..."
  // (how the collapsed Utilization tab read).
  static void checkAxisLabels(QChartView* view, const QString& name) {
    const QLegend* legend = view->chart()->legend();
    int labels = 0;
    for (QGraphicsItem* item : view->scene()->items()) {
      auto* text = dynamic_cast<QGraphicsTextItem*>(item);
      if (!text || !text->isVisible() || legend->isAncestorOf(text)) continue;
      const QString shown = text->toPlainText();
      QVERIFY2(!shown.contains(QLatin1String("...")) && !shown.contains(QChar(0x2026)),
               qPrintable(QString("%1: \"%2\" cut").arg(name, shown)));
      ++labels;
    }
    QVERIFY2(labels > 0, qPrintable(name + ": no axis labels"));
  }

  // The pending queue, when on screen (always in Operations), shows each key column with at
  // least 60 px of it in view.
  static void checkKeyColumns(const console::MainWindow& window, LayoutPreset preset) {
    const QString name = console::layoutPresetKey(preset);
    auto* view = qobject_cast<QTreeView*>(window.findChild<QDockWidget*>("pending")->widget());
    QVERIFY(view);
    if (preset == LayoutPreset::Operations) QVERIFY2(shown(view), qPrintable(name));
    if (shown(view))
      for (int c : console::keyJobColumns()) {
        QVERIFY2(keyColumnInView(view, c),
                 qPrintable(QString("%1: column %2 at %3 of %4")
                                .arg(name)
                                .arg(c)
                                .arg(view->header()->sectionViewportPosition(c))
                                .arg(view->viewport()->width())));
      }
  }

  static bool keyColumnInView(QTreeView* view, int column) {
    const int start = view->header()->sectionViewportPosition(column);
    return !view->header()->isSectionHidden(column) && start >= 0 &&
           start + 60 <= view->viewport()->width();
  }
};

QTEST_MAIN(TstConsoleLayout)
#include "tst_console_layout.moc"
