// Screenshots with history in the charts (see MainWindow::whenChartsFilled).
#include <QComboBox>
#include <QElapsedTimer>
#include <QTimer>
#include <QtCharts/QLineSeries>

#include <memory>

#include "console/main_window.h"
#include "utilization_chart.h"

namespace tessera::console {
namespace {

// The speed box's entries: paused, 1×, 60×, 600×, 3600× (MainWindow::buildToolbar).
constexpr int kUsualSpeed = 2;
constexpr int kWarmUpSpeed = 3;
// A sample a minute of engine time: half an hour of it reads as a chart, not a dot.
constexpr int kPoints = 30;
constexpr int kMaxWaitMs = 30000;
// The refetch after the warm-up, and its answer painted.
constexpr int kSettleMs = 1500;

}  // namespace

void MainWindow::whenChartsFilled(std::function<void()> ready) {
  speed_->setCurrentIndex(kWarmUpSpeed);
  auto* poll = new QTimer(this);
  auto clock = std::make_shared<QElapsedTimer>();
  clock->start();
  connect(poll, &QTimer::timeout, this, [this, poll, clock, ready = std::move(ready)] {
    fetchMetrics();
    const auto* allocated = chart_->line(widgets::UtilizationChart::Line::Allocated);
    if (allocated->count() < kPoints && clock->elapsed() < kMaxWaitMs) return;
    poll->deleteLater();
    speed_->setCurrentIndex(kUsualSpeed);
    fetchMetrics();
    QTimer::singleShot(kSettleMs, this, ready);
  });
  poll->start(500);
}

}  // namespace tessera::console
