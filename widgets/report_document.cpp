// The report document: header, summary, charts and the table sections (report_document_tables
// .cpp) as one HTML text, and its HTML and PDF files. English on purpose (report_document.h).
#include "report_document.h"

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QBuffer>
#include <QFont>
#include <QFontMetricsF>
#include <QMarginsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextDocument>

#include "report/report_time.h"
#include "report_document_p.h"

namespace tessera {
namespace {

using namespace report_detail;

// Kept to what both browsers and QTextDocument's CSS subset understand.
const char* kStyle =
    "body { font-family: 'DejaVu Sans', 'Helvetica', 'Arial', sans-serif; font-size: 9pt; }\n"
    "h1 { font-size: 16pt; }\n"
    "h2 { font-size: 12pt; margin-top: 14px; }\n"
    "table { border-collapse: collapse; border-color: #9aa4b1; }\n"
    "th, td { font-size: 8pt; padding: 2px; }\n"
    "table.data th, table.data td { border: 1px solid #9aa4b1; }\n"
    "table.facts td { font-size: 9pt; padding: 1px 12px 1px 0; }\n"
    ".note { color: #555555; }\n";

QString when(const Report& r, Seconds t) {
  return esc(formatReportTime(t, r.header.wallClock, r.header.timeZone));
}

QString factRow(const QString& name, const QString& value) {
  return "<tr><td><b>" + name + "</b></td><td>" + value + "</td></tr>\n";
}

QString headerSection(const Report& r) {
  const ReportHeader& h = r.header;
  QString out = "<h1>" + esc(h.cluster) + ": GPU utilization and chargeback</h1>\n";
  out += "<table class=\"facts\" cellspacing=\"0\" cellpadding=\"2\">\n";
  out += factRow("Cluster",
                 esc(h.cluster) + QString(" (%1 GPUs)").arg(count(unsigned(std::max(h.gpus, 0)))));
  out += factRow("Source", esc(h.source));
  out += factRow("Period", when(r, h.from) + " \u2013 " + when(r, h.to) + " (" +
                               duration(double(h.to - h.from)) + ")");
  out += factRow("Time zone", h.wallClock ? esc(h.timeZone) : QString("simulated time"));
  out += factRow("Generated", esc(h.generatedAt));
  out += factRow("Grouped by", groupNoun(h.groupBy));
  out +=
      factRow("Idle rule", "below " + percent(h.idleThreshold) + " GPU utilization for at least " +
                               duration(double(h.idleMinDuration)));
  out += factRow("Prices", h.currency.empty() ? QString("none (no price table: no cost figures)")
                                              : esc(h.currency) + " per GPU-hour price table");
  return out + "</table>\n";
}

QString share(double part, double whole) {
  return whole > 0 ? " (" + percent(part / whole) + ")" : QString();
}

QString summarySection(const Report& r) {
  const UsageFigures& t = r.total;
  double stranded = 0;
  for (const auto& s : r.stranded) stranded += s.gpuHours;
  QString out = heading("Summary", "summary");
  HtmlTable table({{"Figure", false}, {"GPU-hours"}, {"Note", false}});
  auto row = [&](const QString& name, double v, const QString& note) {
    table.addRow({name, gpuHours(v), note});
  };
  row("Capacity", r.capacityGpuHours, "GPUs on nodes that were up");
  row("Allocated", t.allocated,
      "held by jobs" + share(t.allocated, r.capacityGpuHours) + " of capacity");
  row("Busy", t.busy, "GPU utilization" + share(t.busy, t.measured) + " of measured");
  row("Effective", t.effective, "SM active" + share(t.effective, t.measured) + " of measured");
  row("Measured", t.measured, "allocated with telemetry" + share(t.measured, t.allocated));
  row("Idle", t.idle, "allocated while idle" + share(t.idle, t.allocated));
  row("Whole GPUs", t.wholeGpu, "of allocated");
  row("MIG instances", t.mig, "of allocated; " + gpuHours(t.migSliceHours) + " slice-hours");
  row("Time-sliced shares", t.fractional, "of allocated");
  row("MPS shares", t.mps, "of allocated; active-thread share of the GPU");
  row("Lost to preemption", t.gpuHoursLost,
      count(static_cast<unsigned long long>(std::max(t.preemptions, 0))) + " preemptions");
  row("Stranded", stranded,
      "free but unusable while work waited" + share(stranded, r.capacityGpuHours));
  out += table.html();
  out += "<p>" + count(t.jobs) + " jobs held GPUs in this period.";
  if (!r.header.currency.empty()) {
    const QString cur = esc(r.header.currency);
    out += " Cost: " + (t.cost ? money(*t.cost) + " " + cur : QString("\u2013"));
    out +=
        "; of it idle: " + (t.idleCost ? money(*t.idleCost) + " " + cur : QString("\u2013")) + ".";
  }
  return out + "</p>\n";
}

QString imageSource(const QImage& image, const char* name, ReportChartImages mode) {
  if (mode == ReportChartImages::Resources) return reportChartUrl(name).toString();
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "PNG");
  return "data:image/png;base64," + QString::fromLatin1(png.toBase64());
}

QString chartBlock(const QImage& image, const char* name, ReportChartImages mode,
                   const QString& alt) {
  if (image.isNull()) return {};
  const auto width = qRound(image.width() / image.devicePixelRatio());
  const auto height = qRound(image.height() / image.devicePixelRatio());
  return QString("<p align=\"center\"><img src=\"%1\" width=\"%2\" height=\"%3\" alt=\"%4\"></p>\n")
      .arg(imageSource(image, name, mode))
      .arg(width)
      .arg(height)
      .arg(alt);
}

QString chartsSection(const ReportCharts& c, ReportChartImages mode) {
  if (mode == ReportChartImages::None) return {};
  QString body = chartBlock(c.series, "series", mode, "GPUs over time") +
                 chartBlock(c.usage, "usage", mode, "GPU-hours by group") +
                 chartBlock(c.stranded, "stranded", mode, "Stranded GPU-hours by cause");
  if (body.isEmpty()) return {};
  return heading("Charts", "charts") + body;
}

Error writeError(const std::string& path, const QString& why) {
  return Error{"cannot write " + path + ": " + why.toStdString(), {}};
}

bool haveApplication() {
  return qobject_cast<QApplication*>(QCoreApplication::instance()) != nullptr;
}

Status needApplication(const std::string& path) {
  if (haveApplication()) return okStatus();
  return writeError(path, "drawing the charts needs a QApplication (see report_document.h)");
}

// QTextDocument::print() would put its own 2 cm margins inside the page's and a bare page
// number; painting the pages here keeps the page margins and adds a footer that says which
// report a loose page belongs to.
void printPages(QTextDocument& doc, QPdfWriter& pdf, const QString& footer) {
  doc.documentLayout()->setPaintDevice(&pdf);  // fonts and images at the writer's resolution
  const QRectF area = pdf.pageLayout().paintRectPixels(pdf.resolution());
  QFont font = doc.defaultFont();
  font.setPointSizeF(7);
  const QFontMetricsF metrics(font, &pdf);
  const QSizeF page(area.width(), area.height() - 2 * metrics.height());
  doc.setPageSize(page);  // paginates; table header rows repeat on each page
  const int pages = doc.pageCount();
  QPainter painter(&pdf);
  for (int i = 0; i < pages; ++i) {
    if (i > 0) pdf.newPage();
    const qreal top = i * page.height();
    painter.save();
    painter.translate(0, -top);
    doc.drawContents(&painter, QRectF(QPointF(0, top), page));
    painter.restore();
    painter.setFont(font);
    painter.setPen(QColor("#555555"));
    const QRectF line(0, area.height() - metrics.height(), area.width(), metrics.height());
    painter.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, footer);
    painter.drawText(line, Qt::AlignRight | Qt::AlignVCenter,
                     QString("Page %1 of %2").arg(i + 1).arg(pages));
  }
}

QString footerText(const Report& r) {
  return "GPU report " + QString::fromStdString(r.header.cluster) + ", " +
         QString::fromStdString(
             formatReportTime(r.header.from, r.header.wallClock, r.header.timeZone)) +
         " \u2013 " +
         QString::fromStdString(
             formatReportTime(r.header.to, r.header.wallClock, r.header.timeZone));
}

Status commit(QSaveFile& file, const std::string& path) {
  if (!file.commit()) return writeError(path, file.errorString());
  return okStatus();
}

}  // namespace

QUrl reportChartUrl(const char* chart) {
  return QUrl(QString("tessera-report:%1.png").arg(QLatin1String(chart)));
}

QString reportHtml(const Report& report, ReportChartImages images) {
  ReportCharts charts;
  if (images != ReportChartImages::None) charts = renderReportCharts(report);
  return reportHtml(report, charts, images);
}

QString reportHtml(const Report& report, const ReportCharts& charts, ReportChartImages images) {
  QString html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>GPU report: " +
                 esc(report.header.cluster) + "</title>\n<style>\n" + kStyle +
                 "</style></head>\n<body>\n";
  html += headerSection(report);
  html += summarySection(report);
  html += chartsSection(charts, images);
  html += usageSection(report) + migSection(report) + idleJobsSection(report);
  html += strandedSection(report) + waitsSection(report) + chargebackSection(report);
  html += fairShareSection(report) + notesSection(report);
  html +=
      "<p class=\"note\"><i>Generated by Tessera. Definitions of every figure: "
      "docs/reports.md; the CSV and JSON files carry the full tables.</i></p>\n";
  return html + "</body></html>\n";
}

std::unique_ptr<QTextDocument> reportTextDocument(const Report& report) {
  auto doc = std::make_unique<QTextDocument>();
  QFont font("DejaVu Sans");
  font.setPointSizeF(9);
  doc->setDefaultFont(font);
  const ReportCharts charts = renderReportCharts(report);
  const std::pair<const char*, const QImage*> images[] = {
      {"series", &charts.series}, {"usage", &charts.usage}, {"stranded", &charts.stranded}};
  for (const auto& [name, image] : images) {
    if (!image->isNull())
      doc->addResource(QTextDocument::ImageResource, reportChartUrl(name), *image);
  }
  doc->setHtml(reportHtml(report, charts, ReportChartImages::Resources));
  return doc;
}

Status writeReportHtml(const Report& report, const std::string& path) {
  TESSERA_CHECK(needApplication(path));
  const QByteArray html = reportHtml(report, ReportChartImages::DataUri).toUtf8();
  QSaveFile file(QString::fromStdString(path));
  if (!file.open(QIODevice::WriteOnly)) return writeError(path, file.errorString());
  if (file.write(html) != html.size()) return writeError(path, file.errorString());
  return commit(file, path);
}

Status writeReportPdf(const Report& report, const std::string& path) {
  TESSERA_CHECK(needApplication(path));
  std::unique_ptr<QTextDocument> doc = reportTextDocument(report);
  QSaveFile file(QString::fromStdString(path));
  if (!file.open(QIODevice::WriteOnly)) return writeError(path, file.errorString());
  {
    QPdfWriter pdf(&file);
    pdf.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                                  QMarginsF(15, 15, 15, 12), QPageLayout::Millimeter));
    pdf.setResolution(300);
    pdf.setTitle("GPU utilization and chargeback report: " +
                 QString::fromStdString(report.header.cluster));
    pdf.setCreator("Tessera");
    printPages(*doc, pdf, footerText(report));
  }  // the writer finishes the file when it goes
  return commit(file, path);
}

}  // namespace tessera
