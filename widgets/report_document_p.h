#pragma once
// Internals of the report document (report_document.h), shared by its source files: number
// formats, an HTML table builder, and the table sections.
#include <QString>
#include <QStringList>

#include <cstddef>
#include <string>
#include <vector>

#include "report/report.h"

namespace tessera::report_detail {

// Figures as the document shows them: English digits with thousands separators whatever the
// system locale, because the document is English too.
QString gpuHours(double v);        // "12,345.6"
QString money(double v);           // "12,345.67"
QString percent(double fraction);  // 0.123 -> "12.3%"
QString decimal(double v, int decimals);
QString count(unsigned long long v);  // "12,345"
QString duration(double seconds);     // "45s", "3m 20s", "1h 05m", "2d 04h"
QString esc(const std::string& text);
QString groupTitle(ReportGroup g);                   // "Team", "GPU model": a column title
QString groupNoun(ReportGroup g);                    // "team", "GPU model": inside a sentence
QString strandCauseTitle(const std::string& cause);  // "mig_layout" -> "MIG layout"

// An HTML table with a header row in <thead>, which QTextDocument turns into a header row that
// repeats on every page of a PDF.
class HtmlTable {
 public:
  struct Col {
    QString title;
    bool numeric = true;  // right aligned
  };
  explicit HtmlTable(std::vector<Col> cols) : cols_(std::move(cols)) {}
  void addRow(const QStringList& cells, bool bold = false);
  [[nodiscard]] QString html() const;
  [[nodiscard]] size_t rows() const { return static_cast<size_t>(rows_.size()); }

 private:
  std::vector<Col> cols_;
  QStringList rows_;
};

// "<h2>title</h2>" plus an anchor a browser can link to.
QString heading(const QString& title, const char* anchor);
// "Showing the first N of M rows; the CSV has all." when a table was cut, else empty.
QString capNote(size_t shown, size_t total);

// The table sections after the charts, in document order.
QString usageSection(const Report& r);
QString migSection(const Report& r);
QString idleJobsSection(const Report& r);
QString strandedSection(const Report& r);
QString waitsSection(const Report& r);
QString chargebackSection(const Report& r);
QString fairShareSection(const Report& r);
QString notesSection(const Report& r);

}  // namespace tessera::report_detail
