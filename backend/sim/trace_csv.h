#pragma once
// Plumbing shared by the trace readers: reading trace files (no size limit: real traces are
// hundreds of MB), CSV headers and fields with errors that name file:line:column and the column,
// trace time stamps, and TraceCollector, the one place that decides what a malformed row does
// (stop with its error, or record it and go on) and that finishes a Trace (time origin, order,
// teams). Internal to the simulator library.
#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "sim/trace.h"

namespace tessera::tracefmt {

// A regular trace file read line by line; "\r\n" endings and a UTF-8 byte order mark are dropped.
class LineReader {
 public:
  // Fails for a missing or unreadable path, a non-regular file, or a file with no visible text.
  static Expected<LineReader> open(const std::string& path);
  // Text already in memory, read the same way (tests, and callers that hold the file already);
  // `file` names it in the error for text with nothing visible.
  static Expected<LineReader> fromText(std::string text, const std::string& file);
  // The next line (blank lines included); false at the end of the file.
  bool next(std::string& line);
  [[nodiscard]] int lineNumber() const { return line_; }

 private:
  explicit LineReader(std::unique_ptr<std::istream> in) : in_(std::move(in)) {}
  std::unique_ptr<std::istream> in_;
  int line_ = 0;
};

// The whole file, with the same checks as LineReader::open (for JSON and YAML documents).
Expected<std::string> readWholeFile(const std::string& path);

// "" and the spellings exporters use for a missing value: None, NaN, NA, null (any case).
bool isMissing(std::string_view text);
// A whole number; "8.0" is accepted because pandas writes integer columns with gaps as floats.
std::optional<int64_t> parseWholeNumber(std::string_view text);
// Seconds: a whole number, or a "YYYY-MM-DD HH:MM:SS" date and time (also with 'T', and with
// fractional seconds, which are dropped), read as UTC.
std::optional<Seconds> parseTimestamp(std::string_view text);

struct CsvField {
  std::string text;  // unquoted, trimmed
  int column = 0;    // 1-based character position of the field in its line
};
// Splits one CSV line; double-quoted fields may hold commas and doubled quotes. Fails on an
// unterminated quote or text after a closing one, with the field's column in the error's location
// (the caller adds the file and line).
Expected<std::vector<CsvField>> splitCsvLine(std::string_view line);

class CsvHeader {
 public:
  // Fails naming every column of `required` the header lacks (and the columns it has).
  static Expected<CsvHeader> parse(std::string_view line, const std::string& file, int lineNo,
                                   const std::vector<std::string>& required);
  [[nodiscard]] int index(std::string_view column) const;  // -1 when absent
  [[nodiscard]] bool has(std::string_view column) const { return index(column) >= 0; }
  [[nodiscard]] size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
};

// One data row: fields by column name, and errors located at the field.
class CsvRow {
 public:
  // Fails when the row's field count differs from the header's.
  static Expected<CsvRow> parse(std::string_view line, const std::string& file, int lineNo,
                                const CsvHeader& header);

  [[nodiscard]] int line() const { return line_; }
  [[nodiscard]] bool hasColumn(std::string_view column) const { return header_->has(column); }
  // The column exists and its field is not missing (see isMissing).
  [[nodiscard]] bool has(std::string_view column) const;
  [[nodiscard]] std::string_view text(std::string_view column) const;  // "" when absent
  [[nodiscard]] Expected<std::string> required(std::string_view column) const;
  [[nodiscard]] Expected<int64_t> integer(std::string_view column, int64_t min, int64_t max) const;
  // The errors required() and integer() give, for readers that check a value already parsed
  // (a narrower range than the format's, a value that must be there only in some files).
  [[nodiscard]] Error missing(std::string_view column) const;
  [[nodiscard]] Status inRange(std::string_view column, int64_t value, int64_t min,
                               int64_t max) const;
  [[nodiscard]] Expected<Seconds> time(std::string_view column) const;
  [[nodiscard]] Error error(std::string_view column, const std::string& message) const;
  [[nodiscard]] Error error(const std::string& message) const;  // the whole row

 private:
  CsvRow(const std::string* file, int line, const CsvHeader* header, std::vector<CsvField> fields)
      : file_(file), line_(line), header_(header), fields_(std::move(fields)) {}
  [[nodiscard]] const CsvField* field(std::string_view column) const;

  const std::string* file_;
  int line_;
  const CsvHeader* header_;
  std::vector<CsvField> fields_;
};

// An error at file:line (column 0 = unknown), for readers that are not CSV.
Error lineError(const std::string& file, int line, const std::string& field,
                const std::string& message);

// Collects what a reader makes of its rows.
class TraceCollector {
 public:
  TraceCollector(std::string file, const TraceReadOptions& opts);

  // The outcome of one row: an error is returned when opts.stopOnError (the reader stops with it),
  // otherwise recorded as a TraceProblem so the reader goes on with the next row.
  [[nodiscard]] Status row(Status outcome);
  // A well-formed row that describes nothing the simulator can run (a job still running at the
  // snapshot, one that never got resources). Recorded in both modes: it is not an error.
  void skip(int line, const std::string& why);
  // Job ids are 1..N in file order unless the reader sets them.
  void add(TraceJob job);
  // Readers that keep rows rather than jobs (the openb node and pod lists) count each row kept
  // here, so that opts.limit stops them where it would stop a trace.
  void countRow() { ++rows_; }
  [[nodiscard]] bool full() const {
    return opts_.limit > 0 && trace_.jobs.size() + rows_ >= opts_.limit;
  }
  [[nodiscard]] const std::string& file() const { return trace_.source; }
  [[nodiscard]] const TraceReadOptions& options() const { return opts_; }
  Trace& trace() { return trace_; }

  // Applies the time origin, orders jobs by submit time then id, and lists the teams the jobs
  // name when the reader did not set Trace::teams itself.
  Trace finish() &&;

 private:
  TraceReadOptions opts_;
  Trace trace_;
  JobId nextId_ = 1;
  size_t rows_ = 0;
};

// Reads a CSV trace: the first non-blank line is the header and must have the `required`
// columns; each later non-blank line goes to `readRow` (which adds a job or records a skip) until
// the collector is full. A row that does not split, or that `readRow` rejects, goes through
// TraceCollector::row.
Status readCsvRows(const std::string& path, const std::vector<std::string>& required,
                   TraceCollector& c, const std::function<Status(const CsvRow&)>& readRow);
// The same from lines already opened (LineReader::fromText for text in memory); `file` names
// them in errors.
Status readCsvRows(LineReader& lines, const std::string& file,
                   const std::vector<std::string>& required, TraceCollector& c,
                   const std::function<Status(const CsvRow&)>& readRow);

// Sets the job's class, priority and preemptibility from the default priority class `name`.
void setDefaultPriorityClass(Job& j, std::string_view name);

// Whole GPUs spread over a gang of at most `perTask` GPUs per task: the fewest tasks, each with
// the same count (the total rounds up when it does not divide evenly). `gpus` >= 1.
struct GangShape {
  int tasks = 1;
  int gpusPerTask = 0;
};
GangShape packGpus(int64_t gpus, int perTask);
// ceil(a / b) for a >= 0, b > 0.
int64_t ceilDiv(int64_t a, int64_t b);

}  // namespace tessera::tracefmt
