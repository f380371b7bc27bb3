// Microsoft Philly (ATC '19; msr-fiddle/philly-traces) cluster_job_log: a JSON array of jobs with
// their scheduling attempts. Mapping: docs/trace-formats.md.
#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "sim/trace.h"
#include "sim/trace_csv.h"

namespace tessera {

namespace {

using nlohmann::json;
using tracefmt::TraceCollector;

// "[7]": where a job sits in the array. (Appending, rather than "[" + ... + "]", keeps GCC 12's
// -Wrestrict false positive quiet.)
std::string indexPath(size_t index) {
  std::string s = "[";
  s += std::to_string(index);
  s += ']';
  return s;
}

// One element of the top-level array, located but not parsed yet.
struct Element {
  size_t begin = 0;
  size_t end = 0;
  int line = 0;
};

class ArrayScanner {
 public:
  ArrayScanner(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  // Splits the top-level array into its elements by bracket depth, without parsing them, so a
  // malformed job costs that job only and every error can name the job's line.
  Expected<std::vector<Element>> elements() {
    skipBlanks();
    if (pos_ >= text_.size() || text_[pos_] != '[')
      return tracefmt::lineError(file_, line_, "",
                                 "a Philly job log is a JSON array of jobs ('[' expected)");
    ++pos_;
    std::vector<Element> out;
    for (;;) {
      skipBlanks();
      if (pos_ < text_.size() && text_[pos_] == ']' && out.empty()) break;
      Element e{pos_, pos_, line_};
      TESSERA_CHECK(skipValue());
      e.end = pos_;
      out.push_back(e);
      skipBlanks();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') break;
      return tracefmt::lineError(file_, line_, indexPath(out.size() - 1),
                                 "',' or ']' expected after a job");
    }
    ++pos_;
    skipBlanks();
    if (pos_ < text_.size())
      return tracefmt::lineError(file_, line_, "", "text after the closing ']' of the job array");
    return out;
  }

 private:
  void skipBlanks() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }

  // Up to the ',' or ']' that ends the value at depth 0; strings may hold brackets.
  Status skipValue() {
    const int startLine = line_;
    int depth = 0;
    bool inString = false;
    for (; pos_ < text_.size(); ++pos_) {
      const char ch = text_[pos_];
      if (ch == '\n') ++line_;
      if (inString) {
        if (ch == '\\')
          ++pos_;
        else if (ch == '"')
          inString = false;
      } else if (ch == '"') {
        inString = true;
      } else if (ch == '{' || ch == '[') {
        ++depth;
      } else if (ch == '}' || ch == ']') {
        if (depth == 0) return okStatus();  // the array's own ']'
        --depth;
      } else if (ch == ',' && depth == 0) {
        return okStatus();
      }
    }
    return tracefmt::lineError(file_, startLine, "",
                               "the job starting here is not closed before the end of the file");
  }

  std::string_view text_;
  const std::string& file_;
  size_t pos_ = 0;
  int line_ = 1;
};

// Field access on one job with errors located at the job's line and its index path.
class JobView {
 public:
  JobView(const std::string& file, int line, size_t index)
      : file_(file), line_(line), path_(indexPath(index)) {}

  [[nodiscard]] Error error(const std::string& field, const std::string& message) const {
    return tracefmt::lineError(file_, line_, field.empty() ? path_ : path_ + "." + field, message);
  }
  [[nodiscard]] int line() const { return line_; }

  // A string member, or a number written as a string (ids); nullopt for absent, null or "None".
  [[nodiscard]] Expected<std::optional<std::string>> text(const json& obj, const std::string& key,
                                                          const std::string& field) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::optional<std::string>();
    if (it->is_number_integer()) return std::optional<std::string>(it->dump());
    if (!it->is_string()) return error(field, "expected a string");
    const auto& s = it->get_ref<const std::string&>();
    if (tracefmt::isMissing(s)) return std::optional<std::string>();
    return std::optional<std::string>(s);
  }
  [[nodiscard]] Expected<std::string> requiredText(const json& obj, const std::string& key) const {
    TESSERA_TRY(v, text(obj, key, key));
    if (!v) return error(key, "missing");
    return *v;
  }
  [[nodiscard]] Expected<std::optional<Seconds>> time(const json& obj, const std::string& key,
                                                      const std::string& field) const {
    TESSERA_TRY(v, text(obj, key, field));
    if (!v) return std::optional<Seconds>();
    auto t = tracefmt::parseTimestamp(*v);
    if (!t) return error(field, "expected 'YYYY-MM-DD HH:MM:SS', got '" + *v + "'");
    return std::optional<Seconds>(*t);
  }

 private:
  const std::string& file_;
  int line_;
  std::string path_;
};

struct Attempts {
  int machines = 0;
  int64_t gpus = 0;
  Seconds runtime = 0;
  bool anyTimed = false;
  bool lastEnded = true;
};

// Machines and GPUs of the first attempt that records where it ran.
Status readPlacement(const JobView& v, const json& attempt, const std::string& field, Attempts& a) {
  auto it = attempt.find("detail");
  if (a.machines > 0 || it == attempt.end() || it->is_null()) return okStatus();
  if (!it->is_array()) return v.error(field + ".detail", "expected an array");
  for (size_t m = 0; m < it->size(); ++m) {
    const json& machine = (*it)[m];
    const std::string mf = field + ".detail[" + std::to_string(m) + "]";
    if (!machine.is_object()) return v.error(mf, "expected an object");
    auto g = machine.find("gpus");
    if (g == machine.end() || !g->is_array()) return v.error(mf + ".gpus", "expected an array");
    a.gpus += static_cast<int64_t>(g->size());
  }
  a.machines = static_cast<int>(it->size());
  return okStatus();
}

// The runtime is the sum of the attempts' durations: the time the job held GPUs. The gaps between
// attempts were spent waiting, which the simulator models itself.
Expected<Attempts> readAttempts(const JobView& v, const json& job) {
  auto it = job.find("attempts");
  if (it == job.end() || it->is_null()) return Attempts{};
  if (!it->is_array()) return v.error("attempts", "expected an array");
  Attempts a;
  for (size_t i = 0; i < it->size(); ++i) {
    const json& attempt = (*it)[i];
    const std::string field = "attempts[" + std::to_string(i) + "]";
    if (!attempt.is_object()) return v.error(field, "expected an object");
    TESSERA_CHECK(readPlacement(v, attempt, field, a));
    TESSERA_TRY(start, v.time(attempt, "start_time", field + ".start_time"));
    TESSERA_TRY(end, v.time(attempt, "end_time", field + ".end_time"));
    a.lastEnded = end.has_value();
    // The log says an attempt may lack a start or an end (logging errors): it adds nothing.
    if (!start || !end) continue;
    if (*end < *start) return v.error(field + ".end_time", "is before start_time");
    a.runtime += *end - *start;
    a.anyTimed = true;
  }
  return a;
}

Status readJob(const JobView& v, const json& job, TraceCollector& c) {
  if (!job.is_object()) return v.error("", "a job must be a JSON object");
  TESSERA_TRY(id, v.requiredText(job, "jobid"));
  TESSERA_TRY(vc, v.requiredText(job, "vc"));
  TESSERA_TRY(status, v.requiredText(job, "status"));
  if (status != "Pass" && status != "Killed" && status != "Failed")
    return v.error("status", "expected Pass, Killed or Failed, got '" + status + "'");
  TESSERA_TRY(submit, v.time(job, "submitted_time", "submitted_time"));
  if (!submit) return v.error("submitted_time", "missing");
  TESSERA_TRY(user, v.text(job, "user", "user"));
  TESSERA_TRY(a, readAttempts(v, job));
  if (a.gpus == 0) {
    c.skip(v.line(), "job " + id + " has no attempt that records its GPUs");
    return okStatus();
  }
  if (!a.lastEnded) {
    c.skip(v.line(), "job " + id + " was still running when the log was taken");
    return okStatus();
  }
  if (!a.anyTimed) {
    c.skip(v.line(), "job " + id + " has no attempt with both a start and an end time");
    return okStatus();
  }
  TraceJob t;
  t.job.name = user ? *user + "/" + id : id;
  t.job.team = vc;
  tracefmt::setDefaultPriorityClass(t.job, "production-training");
  t.job.workloadClass = WorkloadClass::Training;
  // One task per machine; machines with unequal GPU counts get the rounded-up mean.
  t.job.tasks = a.machines;
  t.job.perTask.kind = GpuRequest::Kind::Whole;
  t.job.perTask.gpus = static_cast<int>(tracefmt::ceilDiv(a.gpus, a.machines));
  t.job.submitTime = *submit;
  t.runtime = a.runtime;
  t.failsAtEnd = status == "Failed";
  c.add(std::move(t));
  return okStatus();
}

// Line of byte `offset` of an element starting at `e`.
int lineAt(std::string_view text, const Element& e, size_t offset) {
  const size_t stop = std::min(e.begin + offset, e.end);
  int line = e.line;
  for (size_t i = e.begin; i < stop; ++i)
    if (text[i] == '\n') ++line;
  return line;
}

Status readElement(std::string_view text, const Element& e, size_t index, TraceCollector& c) {
  json job;
  try {
    job = json::parse(text.begin() + static_cast<std::ptrdiff_t>(e.begin),
                      text.begin() + static_cast<std::ptrdiff_t>(e.end));
  } catch (const json::parse_error& err) {
    // what(): "[json.exception.parse_error.101] parse error at line 1, column 9: syntax error
    // ..."; the position inside the job is replaced by the file's line.
    std::string what = err.what();
    if (auto col = what.find("column"); col != std::string::npos)
      if (auto colon = what.find(": ", col); colon != std::string::npos) what.erase(0, colon + 2);
    return tracefmt::lineError(c.file(), lineAt(text, e, err.byte > 0 ? err.byte - 1 : 0),
                               indexPath(index), "malformed JSON: " + what);
  } catch (const json::exception& err) {  // out_of_range.406: a number beyond a double ("1E99999")
    return tracefmt::lineError(c.file(), e.line, indexPath(index),
                               std::string("malformed JSON: ") + err.what());
  }
  return readJob(JobView(c.file(), e.line, index), job, c);
}

}  // namespace

Expected<Trace> readPhillyLog(const std::string& path, const TraceReadOptions& opts) {
  TESSERA_TRY(text, tracefmt::readWholeFile(path));
  TESSERA_TRY(elements, ArrayScanner(text, path).elements());
  TraceCollector c(path, opts);
  for (size_t i = 0; i < elements.size() && !c.full(); ++i)
    TESSERA_CHECK(c.row(readElement(text, elements[i], i, c)));
  return std::move(c).finish();
}

}  // namespace tessera
