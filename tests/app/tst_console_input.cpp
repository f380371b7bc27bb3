// The console driven by real input: the test starts its own Xvfb, opens the console on it with
// Qt's xcb platform and moves the X server's pointer and keyboard with xdotool, so each gesture
// goes through the X server, Qt's event delivery and, for a drag, a real QDrag with its nested
// event loop - what an operator's mouse does, not QTest's synthetic events. Gestures: a job
// dragged onto a GPU, a rubber band over a rack, context menus, a MIG instance dragged to a new
// place and applied, and the same without a mouse. Missing Xvfb or
// xdotool is a failure (installer/bootstrap-debian12.sh installs both), never a skip.
#include <QApplication>
#include <QDockWidget>
#include <QListWidget>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QStandardPaths>
#include <QTimer>
#include <QTreeView>
#include <QtTest>

#include <csignal>
#include <functional>
#include <optional>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "clusterspec/cluster_spec.h"
#include "console/main_window.h"
#include "heatmap_layout.h"
#include "heatmap_widget.h"
#include "job_queue_view.h"
#include "job_table_model.h"
#include "mig_editor.h"
#include "service/backend.h"
#include "workload/workload_spec.h"

using namespace tessera;

namespace {

// The demo's held job (22, "vision-held") made small enough to fit one free GPU, of a team of
// its own with room in its quota: it stays pending, held, until released, so a drop can pin it
// and a release then places it there (the demo's teams may have used up theirs).
constexpr JobId kHeldJob = 22;

console::EmbeddedOptions demoOptions() {
  console::EmbeddedOptions demo;
  demo.cluster = demoCluster();
  demo.workload = *demoWorkload();
  demo.workload.teams.push_back({"probe", "", 1.0, {{"*", Quota{8, 0, -1}}}});
  for (Job& j : demo.workload.jobs)
    if (j.id == kHeldJob) {
      j.team = "probe";
      j.tasks = 1;
      j.perTask.gpus = 1;
      j.pool.clear();
    }
  return demo;
}

// Runs xdotool with a chain of its commands ("mousemove 10 20 mousedown 1 ...") and waits for it
// while the event loop runs: a drag's nested loop (QDrag::exec) starts and ends inside.
void xdo(const QStringList& chain) {
  QProcess p;
  p.start(QStringLiteral("xdotool"), chain);
  QVERIFY2(p.waitForStarted(5000), "xdotool did not start");
  QTRY_VERIFY_WITH_TIMEOUT(p.state() == QProcess::NotRunning, 120000);
  QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
           qPrintable(QString::fromLocal8Bit(p.readAllStandardError())));
}

QStringList moveTo(QPoint global) {
  return {QStringLiteral("mousemove"), QString::number(global.x()), QString::number(global.y())};
}

// `first`, then `key` `times` times, 15 ms apart (xdotool's default pace loses presses under
// load).
QStringList keys(const QString& first, const QString& key, int times) {
  QStringList chain{"key", first};
  if (times > 0)
    chain << "key"
          << "--delay"
          << "15"
          << "--repeat" << QString::number(times) << key;
  return chain;
}

QStringList pause(double seconds) {
  return {QStringLiteral("sleep"), QString::number(seconds)};
}

// The view's row of `job`, at its first column's middle, in screen coordinates.
QPoint rowCenter(QTreeView* view, JobId job) {
  QAbstractItemModel* m = view->model();
  for (int r = 0; r < m->rowCount(); ++r) {
    const QModelIndex i = m->index(r, widgets::JobTableModel::Name);
    if (i.data(widgets::JobTableModel::JobIdRole).toULongLong() == job) {
      view->scrollTo(i);
      return view->viewport()->mapToGlobal(view->visualRect(i).center());
    }
  }
  return {};
}

// A GPU no job holds, on a dev node that is up (the training pool's free GPUs are held for the
// pending gangs by backfill reservations): "node/index" and its tile's middle on screen.
std::optional<std::pair<QString, QPoint>> freeGpu(const widgets::HeatmapWidget* heatmap,
                                                  const ClusterSnapshot& s) {
  for (const NodeView& n : s.nodes) {
    if (n.state != "up" || n.pool != "dev") continue;
    for (const GpuView& g : n.gpus) {
      if (g.allocated > 0 || g.sharing != "exclusive" || g.fault) continue;
      const QString node = QString::fromStdString(n.name);
      const int tile = heatmap->heatmapLayout().tileOf(node, g.index);
      if (tile < 0) continue;
      const QRectF r =
          heatmap->mapFromScene(heatmap->heatmapLayout().tiles()[static_cast<size_t>(tile)].rect);
      if (!heatmap->rect().contains(r.center().toPoint())) continue;
      return std::pair{node + QLatin1Char('/') + QString::number(g.index),
                       heatmap->mapToGlobal(r.center().toPoint())};
    }
  }
  return std::nullopt;
}

// A MIG GPU whose tile is on screen and whose layout has two idle instances of one shape: the
// first (`from`) is to move to the second's start (`to`) once that one is deleted. Found by
// loading each MIG GPU into the editor (test setup; the gestures then load it for real).
struct MigMove {
  QString gpu;
  QPoint tile;  // global
  int from = -1, to = -1;
};

std::optional<MigMove> idleMigMove(const widgets::HeatmapWidget* heatmap, const ClusterSnapshot& s,
                                   widgets::MigEditor& editor) {
  std::optional<MigMove> found;
  std::optional<std::pair<GpuView, QString>> other;  // left in the editor: the click must load
  for (const NodeView& n : s.nodes)
    for (const GpuView& g : n.gpus) {
      if (g.sharing != "mig") continue;
      const QString node = QString::fromStdString(n.name);
      const int tile = heatmap->heatmapLayout().tileOf(node, g.index);
      if (tile < 0) continue;
      const QRectF r =
          heatmap->mapFromScene(heatmap->heatmapLayout().tiles()[static_cast<size_t>(tile)].rect);
      if (!heatmap->rect().contains(r.center().toPoint())) continue;
      const QString name = node + QLatin1Char('/') + QString::number(g.index);
      if (!editor.setGpu(g, name)) continue;
      if (found) {
        other = {g, name};
        break;
      }
      const MigLayout& l = editor.layout();
      for (int i = 0; i < l.size() && !found; ++i)
        for (int j = i + 1; j < l.size() && !found; ++j)
          if (!l[i].busy && !l[j].busy && l[i].sameShape(l[j]) && l[i].placed() && l[j].placed())
            found =
                MigMove{name, heatmap->mapToGlobal(r.center().toPoint()), l[i].start, l[j].start};
    }
  if (!found || !other) return std::nullopt;
  editor.setGpu(other->first, other->second);
  return found;
}

}  // namespace

class TstConsoleInput : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("xdotool")).isEmpty(),
             "xdotool is missing: installer/bootstrap-debian12.sh installs it");
    QCOMPARE(QGuiApplication::platformName(), QStringLiteral("xcb"));
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  // A pending job dragged from the queue onto a free GPU: a real QDrag whose preview (the
  // engine's dry run) shows while the cursor rests on the GPU, then the drop pins the job there;
  // released from the row's context menu, the job starts on exactly that GPU.
  void dragAPendingJobOntoAGpuThenReleaseIt() {
    console::MainWindow window(demoOptions());
    openFullScreen(window);
    auto* queue = pendingQueue(window);
    QTRY_VERIFY_WITH_TIMEOUT(!rowCenter(queue, kHeldJob).isNull(), 20000);
    window.embeddedBackend()->setSpeed(0);  // nothing else starts or ends meanwhile
    QTest::qWait(300);
    const auto target = freeGpu(window.heatmap(), window.lastSnapshot());
    QVERIFY(target);

    // What the heatmap shows while the job hovers: sampled inside the drag's own event loop.
    std::optional<widgets::HeatmapDropPreview> preview;
    QTimer sampler;
    connect(&sampler, &QTimer::timeout, this, [&] {
      if (auto p = window.heatmap()->dropPreview(); p && !preview) preview = p;
    });
    sampler.start(20);
    std::optional<std::pair<JobId, QString>> dropped;
    connect(window.heatmap(), &widgets::HeatmapWidget::jobDropped, this,
            [&](JobId job, const QString& node, int gpu) {
              dropped = {job, node + QLatin1Char('/') + QString::number(gpu)};
            });
    const QPoint from = rowCenter(queue, kHeldJob);
    xdo(moveTo(from) + QStringList{"mousedown", "1"} + moveTo(from + QPoint(12, 0)) +
        moveTo(from + QPoint(30, -10)) + pause(0.2) + moveTo(target->second) + pause(3) +
        QStringList{"mouseup", "1"});
    sampler.stop();
    // The engine's answer, not the pending orange: the job is held, so it says it would wait.
    QVERIFY2(preview, "no preview while the job rested on the GPU");
    QVERIFY(!preview->text.isEmpty());
    QVERIFY(dropped);
    QCOMPARE(dropped->first, kHeldJob);
    QCOMPARE(dropped->second, target->first);
    // The pin is in force: the job stays held until released.
    QTRY_VERIFY_WITH_TIMEOUT(activityHas(window, QStringLiteral("pin")), 5000);

    releaseFromContextMenu(queue);
    checkPlacedOn(window, target->first);
  }

  // A rubber band drawn with the pointer over a rack selects exactly the GPUs under it.
  void rubberBandSelectsARack() {
    console::MainWindow window(demoOptions());
    openStill(window);
    widgets::HeatmapWidget* heatmap = window.heatmap();
    // The first leaf's frame: the rack.
    const QRectF rack = heatmap->mapFromScene(heatmap->heatmapLayout().leaves().front().rect);
    QStringList inside;
    for (const auto& node : heatmap->heatmapLayout().nodes())
      if (rack.contains(heatmap->mapFromScene(node.rect))) inside << node.name;
    QVERIFY(!inside.isEmpty());
    const QPoint from = heatmap->mapToGlobal(rack.topLeft().toPoint() + QPoint(1, 1));
    const QPoint to = heatmap->mapToGlobal(rack.bottomRight().toPoint() - QPoint(1, 1));
    QStringList selected;
    connect(heatmap, &widgets::HeatmapWidget::gpusSelected, this,
            [&](const QStringList& gpus) { selected = gpus; });
    xdo(moveTo(from) + QStringList{"mousedown", "1"} + moveTo(from + QPoint(20, 20)) +
        moveTo((from + to) / 2) + moveTo(to) + pause(0.1) + QStringList{"mouseup", "1"});
    QTRY_VERIFY(!selected.isEmpty());
    for (const QString& gpu : selected)
      QVERIFY2(inside.contains(gpu.section(QLatin1Char('/'), 0, 0)), qPrintable(gpu));
    // Every GPU of the rack, none missing.
    int rackGpus = 0;
    for (const NodeView& n : window.lastSnapshot().nodes)
      if (inside.contains(QString::fromStdString(n.name)))
        rackGpus += static_cast<int>(n.gpus.size());
    QCOMPARE(selected.size(), rackGpus);
  }

  // Repartitioning by dragging an instance: a MIG GPU clicked on the heatmap opens the editor;
  // an idle instance is clicked and deleted to free its place, another idle instance of the same
  // profile is dragged there with the real mouse (a QDrag carrying its start slice), and Apply
  // gives the engine that layout.
  void dragAMigInstanceThenApply() {
    console::MainWindow window(demoOptions());
    openStill(window);
    widgets::HeatmapWidget* heatmap = window.heatmap();
    auto* editor = window.findChild<widgets::MigEditor*>();
    QVERIFY(editor);
    const auto move = idleMigMove(heatmap, window.lastSnapshot(), *editor);
    QVERIFY2(move, "no MIG GPU on screen with two idle instances of one profile");

    xdo(moveTo(move->tile) + QStringList{"click", "1"});
    QTRY_COMPARE(editor->gpuName(), move->gpu);
    QTRY_VERIFY(editor->slotArea()->isVisible());
    const auto slotCenter = [&](int slice) {
      return editor->slotArea()->mapToGlobal(editor->slotRect(slice).center());
    };
    // Click the second instance, Delete: its place is free.
    xdo(moveTo(slotCenter(move->to)) + QStringList{"click", "1"} + pause(0.1) +
        QStringList{"key", "Delete"});
    QTRY_VERIFY(!editor->instanceAt(move->to));
    // Drag the first onto it.
    const QPoint from = slotCenter(move->from);
    xdo(moveTo(from) + QStringList{"mousedown", "1"} + moveTo(from + QPoint(12, 0)) +
        moveTo(from + QPoint(20, 4)) + pause(0.2) + moveTo(slotCenter(move->to)) + pause(0.5) +
        QStringList{"mouseup", "1"});
    QTRY_VERIFY(editor->instanceAt(move->to) && editor->instanceAt(move->to)->start == move->to);
    QVERIFY(!editor->instanceAt(move->from));
    QVERIFY2(editor->refusal().isEmpty(), qPrintable(editor->refusal()));
    const QString composed = editor->layoutText();

    // Apply is in view as it is: the editor scrolls its body, never its buttons.
    QPushButton* apply = editor->applyButton();
    QTRY_VERIFY(apply->isEnabled());
    QCOMPARE(apply->visibleRegion().boundingRect(), apply->rect());
    xdo(moveTo(apply->mapToGlobal(apply->visibleRegion().boundingRect().center())) +
        QStringList{"click", "1"});
    const auto engineLayout = [&] {
      for (const NodeView& n : window.lastSnapshot().nodes)
        for (const GpuView& g : n.gpus)
          if (QString::fromStdString(n.name) + QLatin1Char('/') + QString::number(g.index) ==
              move->gpu)
            return QString::fromStdString(g.migLayout).remove(QLatin1Char('*'));
      return QString();
    };
    const bool applied = QTest::qWaitFor([&] { return engineLayout() == composed; }, 15000);
    QStringList log;
    for (int i = 0; i < window.activity()->count(); ++i) log << window.activity()->item(i)->text();
    QVERIFY2(applied, qPrintable(QString("%1 has %2, not %3; activity:\n%4")
                                     .arg(move->gpu, engineLayout(), composed, log.join('\n'))));
  }

  // The same without a mouse: F6 to the heatmap, arrows to a free GPU, Enter selects it;
  // Shift+F6 to the queue, arrows to the held job, G pins it to the selection; the Menu key opens
  // the row's context menu; R releases the job, which starts on that GPU. Shift+Enter on the
  // heatmap selects the cursor's rack, as a rubber band would.
  void keyboardAlone() {
    console::MainWindow window(demoOptions());
    openFullScreen(window);
    auto* queue = pendingQueue(window);
    QTRY_VERIFY_WITH_TIMEOUT(!rowCenter(queue, kHeldJob).isNull(), 20000);
    window.embeddedBackend()->setSpeed(0);
    QTest::qWait(300);
    widgets::HeatmapWidget* heatmap = window.heatmap();
    const auto target = freeGpu(heatmap, window.lastSnapshot());
    QVERIFY(target);
    const int tile = heatmap->heatmapLayout().tileOf(target->first.section('/', 0, 0),
                                                     target->first.section('/', 1).toInt());
    // The pointer out of the way: no hover may move the cursor.
    xdo(moveTo({1919, 1079}) + QStringList{"key", "F6"});
    QTRY_VERIFY(heatmap->hasFocus());
    // The first Right puts the cursor on the first GPU; each further one steps to the next.
    xdo(keys("Right", "Right", tile) + QStringList{"key", "Return"});
    QTRY_COMPARE(heatmap->selectedGpus(), QStringList{target->first});

    xdo({"key", "shift+F6"});
    QTRY_VERIFY(queue->hasFocus());
    const int row = queueRow(queue, kHeldJob);
    QVERIFY(row >= 0);
    xdo(keys("Home", "Down", row));
    QTRY_COMPARE(queue->currentIndex().data(widgets::JobTableModel::JobIdRole).toULongLong(),
                 kHeldJob);
    xdo({"key", "g"});
    QTRY_VERIFY_WITH_TIMEOUT(activityHas(window, QStringLiteral("pin")), 5000);
    bool opened = false;
    whenMenuOpens([&](QMenu* menu) {
      opened = !menu->actions().isEmpty();
      xdoDetached({"key", "Escape"});
    });
    xdo({"key", "Menu"});
    QTRY_VERIFY(opened);
    QTRY_VERIFY(!QApplication::activePopupWidget());
    xdo({"key", "r"});
    checkPlacedOn(window, target->first);

    // Shift+Enter: the cursor's rack.
    xdo({"key", "F6", "key", "shift+Return"});
    const int leaf = heatmap->heatmapLayout()
                         .nodes()[static_cast<size_t>(
                             heatmap->heatmapLayout().tiles()[static_cast<size_t>(tile)].node)]
                         .leaf;
    int rackGpus = 0;
    for (const auto& t : heatmap->heatmapLayout().tiles())
      rackGpus += heatmap->heatmapLayout().nodes()[static_cast<size_t>(t.node)].leaf == leaf;
    QTRY_COMPARE(heatmap->selectedGpus().size(), rackGpus);
  }

 private:
  // The job starts on `gpu`; else the Activity panel says what the engine answered.
  static void checkPlacedOn(console::MainWindow& window, const QString& gpu) {
    const bool placed =
        QTest::qWaitFor([&] { return placementOf(window, kHeldJob) == gpu; }, 15000);
    QStringList log;
    for (int i = 0; i < window.activity()->count(); ++i) log << window.activity()->item(i)->text();
    QVERIFY2(placed, qPrintable(QString("job %1 on \"%2\", not %3; activity:\n%4")
                                    .arg(kHeldJob)
                                    .arg(placementOf(window, kHeldJob), gpu, log.join('\n'))));
  }

  static int queueRow(QTreeView* view, JobId job) {
    for (int r = 0; r < view->model()->rowCount(); ++r)
      if (view->model()->index(r, 0).data(widgets::JobTableModel::JobIdRole).toULongLong() == job)
        return r;
    return -1;
  }

  static void openFullScreen(console::MainWindow& window) {
    window.move(0, 0);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_VERIFY_WITH_TIMEOUT(window.jobs()->rowCount() > 0, 20000);
  }

  // Open, the heatmap laid out, and the demo's clock stopped: nothing starts or ends meanwhile.
  static void openStill(console::MainWindow& window) {
    openFullScreen(window);
    QTRY_VERIFY_WITH_TIMEOUT(!window.heatmap()->heatmapLayout().nodes().empty(), 20000);
    window.embeddedBackend()->setSpeed(0);
    QTest::qWait(300);
  }

  static QTreeView* pendingQueue(console::MainWindow& window) {
    auto* dock = window.findChild<QDockWidget*>(QStringLiteral("pending"));
    dock->raise();
    return qobject_cast<QTreeView*>(dock->widget());
  }

  static bool activityHas(console::MainWindow& window, const QString& word) {
    for (int i = 0; i < window.activity()->count(); ++i)
      if (window.activity()->item(i)->text().contains(word, Qt::CaseInsensitive)) return true;
    return false;
  }

  // "node/index" of the job's first GPU, or "" while it holds none.
  static QString placementOf(console::MainWindow& window, JobId job) {
    for (const NodeView& n : window.lastSnapshot().nodes)
      for (const GpuView& g : n.gpus)
        for (const auto& o : g.occupants)
          if (o.job == job)
            return QString::fromStdString(n.name) + QLatin1Char('/') + QString::number(g.index);
    return {};
  }

  // Right-click the job's row, then click "Release" in the menu that opens.
  void releaseFromContextMenu(QTreeView* queue) {
    bool released = false;
    whenMenuOpens([&](QMenu* menu) {
      for (QAction* a : menu->actions())
        if (a->text().remove(QLatin1Char('&')) == QStringLiteral("Release") && a->isEnabled()) {
          xdoDetached(moveTo(menu->mapToGlobal(menu->actionGeometry(a).center())) +
                      QStringList{"click", "1"});
          released = true;
        }
      if (!released) xdoDetached({"key", "Escape"});
    });
    xdo(moveTo(rowCenter(queue, kHeldJob)) + QStringList{"click", "3"});
    QTRY_VERIFY(!QApplication::activePopupWidget());
    QVERIFY2(released, "no enabled Release in the row's context menu");
  }

  // A context menu runs its own event loop (QMenu::exec) until it closes, so what acts in it
  // starts from a timer that fires inside that loop: `act` once, on the menu that opened.
  void whenMenuOpens(std::function<void(QMenu*)> act) {
    auto* timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, [timer, act = std::move(act)] {
      auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
      if (!menu || !menu->isVisible()) return;
      timer->stop();
      timer->deleteLater();
      act(menu);
    });
    timer->start(50);
  }

  // xdotool without waiting: from inside a nested event loop.
  static void xdoDetached(const QStringList& chain) {
    QProcess::startDetached(QStringLiteral("xdotool"), chain);
  }
};

namespace {

// Xvfb on a display it picks itself (-displayfd: no clash with another test's), its screen
// the size of a 1920×1080 monitor. Returns its pid and display, or nullopt when it won't start.
std::optional<std::pair<pid_t, std::string>> startXvfb() {
  int fds[2];
  if (pipe(fds) != 0) return std::nullopt;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string fd = std::to_string(fds[1]);
    execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1920x1080x24", "-nolisten",
           "tcp", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string number;
  char c = 0;
  while (read(fds[0], &c, 1) == 1 && c != '\n') number += c;
  close(fds[0]);
  if (pid < 0 || number.empty()) return std::nullopt;
  return std::pair{pid, ":" + number};
}

}  // namespace

int main(int argc, char** argv) {
  const auto xvfb = startXvfb();
  if (!xvfb) {
    std::fprintf(stderr,
                 "FAIL: Xvfb did not start (installer/bootstrap-debian12.sh installs it)\n");
    return 1;
  }
  setenv("DISPLAY", xvfb->second.c_str(), 1);
  setenv("QT_QPA_PLATFORM", "xcb", 1);
  int rc = 0;
  {
    QApplication app(argc, argv);
    TstConsoleInput test;
    rc = QTest::qExec(&test, argc, argv);
  }
  kill(xvfb->first, SIGTERM);
  waitpid(xvfb->first, nullptr, 0);
  return rc;
}

#include "tst_console_input.moc"
