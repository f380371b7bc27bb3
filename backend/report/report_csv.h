#pragma once
// CSV files of a Report: one file per table, with stable snake_case column names that carry
// their unit (gpu_hours_allocated, wait_p95_seconds). Every column, table and unit is listed in
// docs/report-formats.md; a renamed column is a breaking change for whoever imports the files.
//
// Format: RFC 4180 (comma separated, CRLF line ends, fields with commas, quotes or line breaks
// quoted with doubled quotes), UTF-8 without a byte order mark, one header line. Numbers use
// "." as the decimal point whatever the locale, no thousands separators, and up to 15
// significant digits (C++ std::to_chars). An absent optional value is an empty field.
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "report/report.h"

namespace tessera {

// The tables this report has, in file order: summary, usage, mig, idle_jobs, stranded, waits,
// chargeback (only with a price table, i.e. header.currency set), fair_share, series, notes.
std::vector<std::string> reportCsvTables(const Report& report);

// The header line of `table` as column names (the usage key column is named by the group, and
// cost columns appear only with a currency). Empty for an unknown table.
std::vector<std::string> reportCsvColumns(const Report& report, std::string_view table);

// Writes one table (header line and rows) to `out`. An unknown table name is an error that
// lists the known ones; nothing is written then.
Status writeReportCsvTable(std::ostream& out, const Report& report, std::string_view table);

// Writes every table of reportCsvTables() to its own file:
//   - `path` ending in ".csv" (any case), e.g. "out/march.csv": files beside it named
//     "<stem>-<table>.csv" ("out/march-summary.csv", "out/march-usage.csv", ...);
//   - otherwise `path` is a directory, created when missing, holding "<table>.csv".
// Each file is written atomically (writeFileAtomically), so a failure never leaves half a
// file; files already written by this call stay. The error names the path that failed.
Status writeReportCsv(const Report& report, const std::string& path);

// The files writeReportCsv(report, path) writes, in order.
std::vector<std::string> reportCsvPaths(const Report& report, const std::string& path);

// Writes `path` through a temporary file in the same directory that is renamed over `path`
// only after `body` ran and everything was flushed: readers see the old file or the complete
// new one, never a part. On any failure the temporary file is removed and the error names
// `path`. Shared by the CSV and JSON writers.
Status writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& body);

// A number as the CSV (and its documentation) writes it: "." decimal point, up to 15
// significant digits, no exponent for ordinary magnitudes; non-finite values are empty.
std::string csvNumber(double value);

}  // namespace tessera
