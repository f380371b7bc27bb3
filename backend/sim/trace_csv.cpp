#include "sim/trace_csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/strings.h"

namespace tessera::tracefmt {

namespace {

Status checkRegularFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Error{"cannot open file: no such file", {path, 0, 0, ""}};
  // A device or a directory given by mistake must not hang the reader.
  if (!std::filesystem::is_regular_file(path, ec))
    return Error{"not a regular file", {path, 0, 0, ""}};
  return okStatus();
}

Error emptyFile(const std::string& path) {
  return Error{"the file is empty", {path, 0, 0, ""}};
}

void dropLineEnd(std::string& line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
}

void dropByteOrderMark(std::string& text) {
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
}

// A file of blank lines is as empty as a zero-byte one. Peeks, then rewinds to the start.
bool hasVisibleText(std::istream& in) {
  std::string line;
  bool visible = false;
  for (bool first = true; !visible && std::getline(in, line); first = false) {
    if (first) dropByteOrderMark(line);
    visible = !trim(line).empty();
  }
  in.clear();
  in.seekg(0);
  return visible;
}

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int> fixedDigits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size() || !allDigits(s.substr(pos, n))) return std::nullopt;
  return parseInt(s.substr(pos, n));
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t daysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int daysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

std::optional<Seconds> parseDateTime(std::string_view s) {
  // YYYY-MM-DD HH:MM:SS[.fff]
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
      s[13] != ':' || s[16] != ':')
    return std::nullopt;
  if (s.size() > 19 && (s[19] != '.' || !allDigits(s.substr(20)))) return std::nullopt;
  auto y = fixedDigits(s, 0, 4), mo = fixedDigits(s, 5, 2), d = fixedDigits(s, 8, 2);
  auto h = fixedDigits(s, 11, 2), mi = fixedDigits(s, 14, 2), sec = fixedDigits(s, 17, 2);
  if (!y || !mo || !d || !h || !mi || !sec) return std::nullopt;
  if (*mo < 1 || *mo > 12 || *d < 1 || *d > daysInMonth(*y, *mo) || *h > 23 || *mi > 59 ||
      *sec > 59)
    return std::nullopt;
  return daysFromCivil(*y, *mo, *d) * 86400 + Seconds{*h} * 3600 + Seconds{*mi} * 60 + *sec;
}

}  // namespace

Expected<LineReader> LineReader::open(const std::string& path) {
  TESSERA_CHECK(checkRegularFile(path));
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) return Error{"cannot open file", {path, 0, 0, ""}};
  if (!hasVisibleText(*in)) return emptyFile(path);
  return LineReader(std::move(in));
}

Expected<LineReader> LineReader::fromText(std::string text, const std::string& file) {
  auto in = std::make_unique<std::istringstream>(std::move(text));
  if (!hasVisibleText(*in)) return emptyFile(file);
  return LineReader(std::move(in));
}

bool LineReader::next(std::string& line) {
  if (!std::getline(*in_, line)) return false;
  ++line_;
  dropLineEnd(line);
  if (line_ == 1) dropByteOrderMark(line);
  return true;
}

Expected<std::string> readWholeFile(const std::string& path) {
  TESSERA_CHECK(checkRegularFile(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open file", {path, 0, 0, ""}};
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error{"error while reading the trace", {path, 0, 0, ""}};
  std::string text = std::move(ss).str();
  dropByteOrderMark(text);
  if (trim(text).empty()) return emptyFile(path);
  return text;
}

bool isMissing(std::string_view text) {
  const std::string t = toLower(trim(text));
  return t.empty() || t == "none" || t == "nan" || t == "na" || t == "null";
}

std::optional<int64_t> parseWholeNumber(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc{} && ptr == text.data() + text.size()) return v;
  // "8.0": a whole number written as a float. Anything else (8.5, 1e400) is not one.
  double d = 0;
  auto [dptr, dec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (dec != std::errc{} || dptr != text.data() + text.size() || !std::isfinite(d) ||
      d != std::floor(d) || std::fabs(d) > 9.0e15)
    return std::nullopt;
  return static_cast<int64_t>(d);
}

std::optional<Seconds> parseTimestamp(std::string_view text) {
  text = trim(text);
  if (auto n = parseWholeNumber(text)) return *n;
  return parseDateTime(text);
}

Expected<std::vector<CsvField>> splitCsvLine(std::string_view line) {
  std::vector<CsvField> out;
  size_t i = 0;
  for (;;) {
    CsvField f;
    f.column = static_cast<int>(i) + 1;
    // Leading blanks before an opening quote are tolerated, as spreadsheets write them.
    size_t j = i;
    while (j < line.size() && line[j] == ' ') ++j;
    if (j < line.size() && line[j] == '"') {
      std::string text;
      size_t k = j + 1;
      for (;; ++k) {
        if (k >= line.size()) return Error{"unterminated double quote", {"", 0, f.column, ""}};
        if (line[k] == '"') {
          if (k + 1 < line.size() && line[k + 1] == '"') {
            text += '"';
            ++k;
            continue;
          }
          break;
        }
        text += line[k];
      }
      size_t end = line.find(',', k + 1);
      if (!trim(line.substr(k + 1, end == std::string_view::npos ? end : end - k - 1)).empty())
        return Error{"text after the closing double quote", {"", 0, f.column, ""}};
      f.text = text;
      out.push_back(std::move(f));
      if (end == std::string_view::npos) return out;
      i = end + 1;
      continue;
    }
    const size_t end = line.find(',', i);
    f.text = std::string(trim(line.substr(i, end == std::string_view::npos ? end : end - i)));
    out.push_back(std::move(f));
    if (end == std::string_view::npos) return out;
    i = end + 1;
  }
}

Expected<CsvHeader> CsvHeader::parse(std::string_view line, const std::string& file, int lineNo,
                                     const std::vector<std::string>& required) {
  auto fields = splitCsvLine(line);
  if (!fields)
    return Error{"header: " + fields.error().message,
                 {file, lineNo, fields.error().where.column, ""}};
  CsvHeader h;
  for (auto& f : *fields) h.names_.push_back(f.text);
  std::vector<std::string> missing;
  for (const auto& r : required)
    if (!h.has(r)) missing.push_back(r);
  if (!missing.empty())
    return lineError(file, lineNo, "",
                     "the header lacks column" + std::string(missing.size() > 1 ? "s " : " ") +
                         join(missing, ", ") + " (it has: " + join(h.names_, ", ") + ")");
  return h;
}

int CsvHeader::index(std::string_view column) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == column) return static_cast<int>(i);
  return -1;
}

Expected<CsvRow> CsvRow::parse(std::string_view line, const std::string& file, int lineNo,
                               const CsvHeader& header) {
  auto fields = splitCsvLine(line);
  if (!fields)
    return Error{fields.error().message, {file, lineNo, fields.error().where.column, ""}};
  if (fields->size() != header.size()) {
    // Located where the first extra field starts, or just past the end of a short row.
    const int column = fields->size() > header.size() ? (*fields)[header.size()].column
                                                      : static_cast<int>(line.size()) + 1;
    return Error{"expected " + std::to_string(header.size()) + " fields, found " +
                     std::to_string(fields->size()),
                 {file, lineNo, column, ""}};
  }
  return CsvRow(&file, lineNo, &header, std::move(*fields));
}

const CsvField* CsvRow::field(std::string_view column) const {
  const int i = header_->index(column);
  return i < 0 ? nullptr : &fields_[static_cast<size_t>(i)];
}

bool CsvRow::has(std::string_view column) const {
  const CsvField* f = field(column);
  return f && !isMissing(f->text);
}

std::string_view CsvRow::text(std::string_view column) const {
  const CsvField* f = field(column);
  return f ? std::string_view(f->text) : std::string_view();
}

Expected<std::string> CsvRow::required(std::string_view column) const {
  if (!has(column)) return missing(column);
  return std::string(text(column));
}

Expected<int64_t> CsvRow::integer(std::string_view column, int64_t min, int64_t max) const {
  TESSERA_TRY(t, required(column));
  auto v = parseWholeNumber(t);
  if (!v) return error(column, "expected a whole number, got '" + t + "'");
  TESSERA_CHECK(inRange(column, *v, min, max));
  return *v;
}

Error CsvRow::missing(std::string_view column) const {
  return error(column, "missing value");
}

Status CsvRow::inRange(std::string_view column, int64_t value, int64_t min, int64_t max) const {
  if (value >= min && value <= max) return okStatus();
  // The value as written ("8.0" stays "8.0"), so the message matches the file.
  return error(column, std::string(text(column)) + " is out of range [" + std::to_string(min) +
                           ", " + std::to_string(max) + "]");
}

Expected<Seconds> CsvRow::time(std::string_view column) const {
  TESSERA_TRY(t, required(column));
  auto v = parseTimestamp(t);
  if (!v) return error(column, "expected seconds or 'YYYY-MM-DD HH:MM:SS', got '" + t + "'");
  return *v;
}

Error CsvRow::error(std::string_view column, const std::string& message) const {
  const CsvField* f = field(column);
  return Error{message, {*file_, line_, f ? f->column : 0, std::string(column)}};
}

Error CsvRow::error(const std::string& message) const {
  return lineError(*file_, line_, "", message);
}

Error lineError(const std::string& file, int line, const std::string& field,
                const std::string& message) {
  return Error{message, {file, line, 0, field}};
}

TraceCollector::TraceCollector(std::string file, const TraceReadOptions& opts) : opts_(opts) {
  trace_.source = std::move(file);
}

Status TraceCollector::row(Status outcome) {
  if (outcome.ok() || opts_.stopOnError) return outcome;
  const Error& e = outcome.error();
  const std::string& field = e.where.field;
  trace_.problems.push_back({e.where.file.empty() ? trace_.source : e.where.file, e.where.line,
                             field.empty() ? e.message : field + ": " + e.message});
  return okStatus();
}

void TraceCollector::skip(int line, const std::string& why) {
  trace_.problems.push_back({trace_.source, line, "skipped: " + why});
}

void TraceCollector::add(TraceJob job) {
  if (job.job.id == kNoJob) job.job.id = nextId_++;
  trace_.jobs.push_back(std::move(job));
}

Trace TraceCollector::finish() && {
  auto& jobs = trace_.jobs;
  Seconds origin = opts_.timeOrigin;
  if (origin < 0) {
    origin = 0;
    if (!jobs.empty())
      origin = std::min_element(jobs.begin(), jobs.end(), [](const auto& a, const auto& b) {
                 return a.job.submitTime < b.job.submitTime;
               })->job.submitTime;
  }
  // An explicit origin cuts a window out of a trace: what arrived before it is left out.
  const auto before = std::remove_if(jobs.begin(), jobs.end(),
                                     [&](const TraceJob& j) { return j.job.submitTime < origin; });
  const auto dropped = static_cast<size_t>(jobs.end() - before);
  jobs.erase(before, jobs.end());
  if (dropped > 0)
    trace_.problems.push_back({trace_.source, 0,
                               std::to_string(dropped) +
                                   " job(s) submitted before the time origin " +
                                   std::to_string(origin) + " were left out"});
  for (auto& j : jobs) {
    j.job.submitTime -= origin;
    if (j.job.lastCheckpoint)
      j.job.lastCheckpoint = std::max<Seconds>(0, *j.job.lastCheckpoint - origin);
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const TraceJob& a, const TraceJob& b) {
    if (a.job.submitTime != b.job.submitTime) return a.job.submitTime < b.job.submitTime;
    return a.job.id < b.job.id;
  });
  if (trace_.teams.empty()) {
    std::set<std::string> names;
    for (const auto& j : jobs) names.insert(j.job.team);
    for (const auto& n : names) trace_.teams.push_back(Team{n, "", 1.0, {}});
  }
  return std::move(trace_);
}

Status readCsvRows(const std::string& path, const std::vector<std::string>& required,
                   TraceCollector& c, const std::function<Status(const CsvRow&)>& readRow) {
  TESSERA_TRY(lines, LineReader::open(path));
  return readCsvRows(lines, path, required, c, readRow);
}

Status readCsvRows(LineReader& lines, const std::string& file,
                   const std::vector<std::string>& required, TraceCollector& c,
                   const std::function<Status(const CsvRow&)>& readRow) {
  std::string line;
  while (lines.next(line) && trim(line).empty()) {
  }
  // LineReader made sure there is a visible line: this is the header.
  TESSERA_TRY(header, CsvHeader::parse(line, file, lines.lineNumber(), required));
  while (!c.full() && lines.next(line)) {
    if (trim(line).empty()) continue;
    auto row = CsvRow::parse(line, file, lines.lineNumber(), header);
    TESSERA_CHECK(c.row(row ? readRow(*row) : Status(row.error())));
  }
  return okStatus();
}

void setDefaultPriorityClass(Job& j, std::string_view name) {
  for (const auto& pc : defaultPriorityClasses())
    if (pc.name == name) {
      j.priorityClass = pc.name;
      j.priority = pc.value;
      j.preemptible = pc.preemptibleByDefault;
    }
}

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

GangShape packGpus(int64_t gpus, int perTask) {
  perTask = std::max(1, perTask);
  const int64_t tasks = ceilDiv(gpus, perTask);
  return {static_cast<int>(tasks), static_cast<int>(ceilDiv(gpus, tasks))};
}

}  // namespace tessera::tracefmt
