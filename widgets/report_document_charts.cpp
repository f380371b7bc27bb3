// The report's charts, drawn offscreen: a QChart in a QGraphicsScene painted into a QImage, no
// window involved, so this works with QT_QPA_PLATFORM=offscreen.
#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QHorizontalBarSeries>
#include <QLineSeries>
#include <QPainter>
#include <QValueAxis>

#include <algorithm>
#include <numeric>

#include "report/report_time.h"
#include "report_document.h"
#include "report_document_p.h"

namespace tessera {
namespace {

using namespace report_detail;

// Logical size of a chart: it fills the A4 text width (about 6.7 in at 96 px per inch) and is
// drawn at kScale device pixels per logical one, sharp in print.
constexpr qreal kChartWidth = 640;
constexpr qreal kScale = 2.5;

QImage paintChart(QChart* chart, qreal height) {
  const QSizeF size(kChartWidth, height);
  QGraphicsScene scene;
  scene.addItem(chart);  // the scene owns and deletes the chart
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setGeometry(QRectF(QPointF(0, 0), size));
  // The chart lays itself out on a posted event; without a window no event loop delivers it
  // before we paint, so run the layout now.
  chart->layout()->activate();
  QImage image((size * kScale).toSize(), QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(kScale);
  image.fill(Qt::white);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  scene.render(&painter, QRectF(QPointF(0, 0), size), QRectF(QPointF(0, 0), size));
  return image;
}

QChart* newChart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  QFont font = chart->titleFont();
  font.setPointSizeF(11);
  font.setBold(true);
  chart->setTitleFont(font);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setBackgroundRoundness(0);
  chart->setMargins(QMargins(4, 4, 24, 4));  // room for the last axis label on the right
  return chart;
}

QFont smallFont() {
  QFont font;
  font.setPointSizeF(7.5);
  return font;
}

// A mean over [start, start + step) is drawn as a flat step, not as a point.
QLineSeries* stepLine(const Report& r, const QString& name, const QColor& color,
                      double ReportPoint::*member, Qt::PenStyle style = Qt::SolidLine) {
  auto* line = new QLineSeries;
  line->setName(name);
  const Seconds origin = r.series.front().start;
  for (const auto& p : r.series) {
    const double x0 = double(p.start - origin) / 3600.0;
    line->append(x0, p.*member);
    line->append(x0 + double(r.seriesStep) / 3600.0, p.*member);
  }
  QPen pen(color);
  pen.setWidthF(1.6);
  pen.setStyle(style);
  line->setPen(pen);
  return line;
}

// Time labels in the report's zone at a few evenly spaced points (QDateTimeAxis could only show
// the machine's local time).
QCategoryAxis* timeAxis(const Report& r, double hours) {
  auto* axis = new QCategoryAxis;
  axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  axis->setLabelsFont(smallFont());
  axis->setRange(0, hours);
  axis->setStartValue(-hours * 1e-6);  // so that the first label sits on 0
  const int ticks = 4;
  const Seconds origin = r.series.front().start;
  for (int i = 0; i <= ticks; ++i) {
    const double x = hours * i / ticks;
    const auto t = origin + static_cast<Seconds>(x * 3600);
    QString label =
        QString::fromStdString(formatReportTime(t, r.header.wallClock, r.header.timeZone));
    // Axis labels are HTML: the date over the time keeps five labels apart.
    if (const auto space = label.indexOf(' '); space >= 0) label.replace(space, 1, "<br>");
    if (axis->categoriesLabels().contains(label)) continue;  // labels must be unique
    axis->append(label, x);
  }
  axis->setTitleText("Time (" + esc(r.header.wallClock ? r.header.timeZone : "simulated") + ")");
  return axis;
}

QImage seriesChart(const Report& r) {
  if (r.series.empty() || r.seriesStep <= 0) return {};
  QChart* chart = newChart("GPUs over time (mean per " + duration(double(r.seriesStep)) + ")");
  std::vector<QLineSeries*> lines = {
      stepLine(r, "Capacity", QColor("#7f7f7f"), &ReportPoint::capacity, Qt::DashLine),
      stepLine(r, "Allocated", QColor("#1f77b4"), &ReportPoint::allocated),
      stepLine(r, "Busy", QColor("#2ca02c"), &ReportPoint::busy),
      stepLine(r, "Effective (SM active)", QColor("#ff7f0e"), &ReportPoint::effective)};
  double top = 0;
  for (const auto& p : r.series)
    top = std::max({top, p.capacity, p.allocated, p.busy, p.effective});
  const double hours = double(r.series.back().start - r.series.front().start + r.seriesStep) / 3600;
  QCategoryAxis* x = timeAxis(r, hours);
  auto* y = new QValueAxis;
  y->setRange(0, top > 0 ? top * 1.05 : 1);
  y->applyNiceNumbers();
  y->setLabelFormat("%.0f");
  y->setTitleText("GPUs");
  y->setLabelsFont(smallFont());
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (QLineSeries* line : lines) {
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
  }
  return paintChart(chart, 320);
}

// Category labels are HTML, must be unique (a repeated one is dropped, shifting the bars), and
// are cut to keep the plot wide.
QString categoryLabel(const std::string& key, const QStringList& taken) {
  QString label = QString::fromStdString(key);
  if (label.size() > 24) label = label.left(23) + QChar(0x2026);
  label = label.toHtmlEscaped();
  QString unique = label;
  for (int n = 2; taken.contains(unique); ++n) unique = label + QString(" (%1)").arg(n);
  return unique;
}

QBarSet* barSet(const QString& name, const QColor& color) {
  auto* set = new QBarSet(name);
  set->setColor(color);
  set->setBorderColor(color);
  return set;
}

// Horizontal bars: long group names read well on the vertical axis.
QImage horizontalBars(QChart* chart, const QStringList& categories,
                      const std::vector<QBarSet*>& sets, const QString& valueTitle) {
  auto* series = new QHorizontalBarSeries;
  for (QBarSet* s : sets) series->append(s);
  chart->addSeries(series);
  auto* y = new QBarCategoryAxis;
  y->append(categories);
  y->setLabelsFont(smallFont());
  auto* x = new QValueAxis;
  x->setTitleText(valueTitle);
  x->setLabelsFont(smallFont());
  x->setLabelFormat("%.0f");
  chart->addAxis(y, Qt::AlignLeft);
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(y);
  series->attachAxis(x);
  x->setMin(0);
  x->applyNiceNumbers();
  const qreal perCategory = sets.size() > 1 ? 26 : 20;
  return paintChart(chart, 110 + perCategory * qreal(categories.size()));
}

QImage usageChart(const Report& r) {
  if (r.usage.empty()) return {};
  std::vector<size_t> order(r.usage.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const size_t n = std::min(order.size(), kReportChartGroups);
  std::partial_sort(order.begin(), order.begin() + ptrdiff_t(n), order.end(),
                    [&](size_t a, size_t b) {
                      return r.usage[a].figures.allocated > r.usage[b].figures.allocated;
                    });
  order.resize(n);
  std::reverse(order.begin(), order.end());  // the first category is drawn at the bottom
  QStringList categories;
  QBarSet* allocated = barSet("Allocated", QColor("#1f77b4"));
  QBarSet* busy = barSet("Busy", QColor("#2ca02c"));
  QBarSet* idle = barSet("Idle", QColor("#d62728"));
  for (size_t i : order) {
    categories << categoryLabel(r.usage[i].key, categories);
    *allocated << r.usage[i].figures.allocated;
    *busy << r.usage[i].figures.busy;
    *idle << r.usage[i].figures.idle;
  }
  QString title = "GPU-hours by " + groupNoun(r.header.groupBy);
  if (r.usage.size() > n) title += QString(" (top %1 of %2)").arg(n).arg(r.usage.size());
  return horizontalBars(newChart(title), categories, {allocated, busy, idle}, "GPU-hours");
}

QImage strandedChart(const Report& r) {
  const bool any = std::any_of(r.stranded.begin(), r.stranded.end(),
                               [](const StrandedRow& s) { return s.gpuHours > 0; });
  if (!any) return {};
  QStringList categories;
  QBarSet* set = barSet("Stranded GPU-hours", QColor("#9467bd"));
  for (auto it = r.stranded.rbegin(); it != r.stranded.rend(); ++it) {
    categories << strandCauseTitle(it->cause);
    *set << it->gpuHours;
  }
  QChart* chart = newChart("Stranded GPU-hours by cause");
  chart->legend()->hide();
  return horizontalBars(chart, categories, {set}, "GPU-hours");
}

}  // namespace

ReportCharts renderReportCharts(const Report& report) {
  // Qt Charts items are QGraphicsWidgets: they need a QApplication (see the header).
  if (qobject_cast<QApplication*>(QCoreApplication::instance()) == nullptr) return {};
  return {seriesChart(report), usageChart(report), strandedChart(report)};
}

}  // namespace tessera
