#pragma once
// A Report (backend/report/report.h) as one document: HTML (a single self-contained file, the
// charts embedded as data: URIs) and PDF (A4, the same HTML laid out by QTextDocument, which
// paginates tables and repeats their header rows on every page). The console previews the same
// document in a QTextBrowser (reportTextDocument). Sections, charts and row caps:
// docs/report-formats.md.
//
// Reports are files for accountants and are written in English whatever the console's language:
// none of their text goes through tr(), so the translation files stay free of it.
//
// Requirements: a QApplication must exist (Qt Charts draws through QGraphicsWidget), and the
// functions run on its (GUI) thread. Headless use works with QT_QPA_PLATFORM=offscreen; the
// command line creates a QApplication for this. Without one the writers return an error and
// reportHtml() leaves the charts out.
//
// Namespace tessera (not tessera::widgets): these are writers beside the CSV and JSON ones, and
// the command line calls them the same way.
#include <QImage>
#include <QString>
#include <QUrl>

#include <cstddef>
#include <memory>
#include <string>

#include "core/expected.h"
#include "report/report.h"

class QTextDocument;

namespace tessera {

// Tables longer than this show their first rows and a note "showing the first N of M rows; the
// CSV has all" (a usage-by-job report can have 100 000 rows; the document would be thousands of
// pages). The CSV and JSON writers never cut.
inline constexpr size_t kReportTableRowCap = 500;
// The usage chart shows the groups with the most allocated GPU-hours.
inline constexpr size_t kReportChartGroups = 15;

// The charts, drawn offscreen at 2x for print. A null image: nothing to draw (no time series, no
// groups, nothing stranded) or no QApplication.
struct ReportCharts {
  QImage series;    // capacity, allocated, busy and effective GPUs over the report's time series
  QImage usage;     // allocated, busy and idle GPU-hours of the top kReportChartGroups groups
  QImage stranded;  // stranded GPU-hours by cause
};
ReportCharts renderReportCharts(const Report& report);

// How the HTML refers to the chart images.
enum class ReportChartImages {
  DataUri,    // embedded (base64 PNG): a self-contained .html file
  Resources,  // reportChartUrl() names, for a QTextDocument that has them as resources
  None,       // no charts (fast; for tests of the text)
};
// The resource names used with ReportChartImages::Resources: "tessera-report:series.png", ...
QUrl reportChartUrl(const char* chart);

// The whole document as HTML. Renders the charts unless `images` is None.
QString reportHtml(const Report& report, ReportChartImages images = ReportChartImages::DataUri);
// The same document with the charts given (rendered once, used for several outputs).
QString reportHtml(const Report& report, const ReportCharts& charts, ReportChartImages images);

// The document laid out for A4 print or a preview, with the chart images added as resources.
std::unique_ptr<QTextDocument> reportTextDocument(const Report& report);

// Both write through a temporary file renamed at the end (QSaveFile): a failure leaves no
// partial file, and the error names the path.
Status writeReportHtml(const Report& report, const std::string& path);
Status writeReportPdf(const Report& report, const std::string& path);

}  // namespace tessera
