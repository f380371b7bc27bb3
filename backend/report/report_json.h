#pragma once
// A Report as JSON and back: the form a remote tesserad sends a report in (gRPC GetReport) and
// the input of `tessera report --input report.json`, so the reader is as strict as the writer
// is complete. Schema "tessera.report/v1", field by field in docs/report-formats.md.
//
// Round trip is exact: reportFromJson(reportToJson(r)) == r for every field (doubles are written
// with the shortest text that reads back to the same double). Absent optional values are left
// out. The reader refuses a different schema, a missing required field and a value of the wrong
// type, naming the field's path ("usage[2].figures.allocated"); fields it does not know are
// ignored, so v1 can grow by adding fields.
#include <ostream>
#include <string>
#include <string_view>

#include "core/expected.h"
#include "report/report.h"

namespace tessera {

inline constexpr const char* kReportJsonSchema = "tessera.report/v1";

// `pretty`: indented with two spaces and a final newline (files); otherwise one line (RPC).
std::string reportToJson(const Report& report, bool pretty = true);
void writeReportJson(std::ostream& out, const Report& report, bool pretty = true);
// Atomically, like writeFileAtomically (report_csv.h); the error names the path.
Status writeReportJsonFile(const Report& report, const std::string& path);

// `where` names the input in errors: a file name, or the server a report came from. Errors carry
// it as Error::where.file, the line and column of a syntax error, or the field path.
Expected<Report> reportFromJson(std::string_view text, const std::string& where);
Expected<Report> loadReportJsonFile(const std::string& path);

}  // namespace tessera
