#include "sim/trace.h"

#include <filesystem>
#include <fstream>

#include "core/strings.h"
#include "sim/trace_csv.h"

namespace tessera {

namespace {

constexpr std::pair<UsageProfile, const char*> kUsageNames[] = {
    {UsageProfile::ComputeBound, "compute-bound"},
    {UsageProfile::InputBound, "input-bound"},
    {UsageProfile::Inference, "inference"},
    {UsageProfile::IdleNotebook, "idle-notebook"},
};

constexpr std::pair<TraceFormat, const char*> kFormatNames[] = {
    {TraceFormat::Openb, "openb"}, {TraceFormat::Helios, "helios"}, {TraceFormat::Philly, "philly"},
    {TraceFormat::Swf, "swf"},     {TraceFormat::JobList, "jobs"},
};

// The first line with visible text that is not a '#' comment (a BOM and surrounding blanks
// dropped), at most a few KiB of it.
std::optional<std::string> firstLine(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::string line;
  for (int n = 0; n < 1000 && std::getline(in, line); ++n) {
    if (n == 0 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    if (line.size() > 4096) line.resize(4096);
    const std::string_view t = trim(line);
    if (!t.empty() && t.front() != '#') return std::string(t);
  }
  return std::nullopt;
}

std::optional<TraceFormat> formatOfCsvHeader(std::string_view line) {
  auto fields = tracefmt::splitCsvLine(line);
  if (!fields) return std::nullopt;
  bool numGpu = false, gpuMilli = false, vc = false, gpuNum = false;
  for (const auto& f : *fields) {
    numGpu = numGpu || f.text == "num_gpu";
    gpuMilli = gpuMilli || f.text == "gpu_milli";
    vc = vc || f.text == "vc";
    gpuNum = gpuNum || f.text == "gpu_num";
  }
  if (numGpu && gpuMilli) return TraceFormat::Openb;
  if (vc && gpuNum) return TraceFormat::Helios;
  return std::nullopt;
}

}  // namespace

const char* usageProfileName(UsageProfile p) {
  for (auto [value, name] : kUsageNames)
    if (value == p) return name;
  return "?";
}

std::optional<UsageProfile> parseUsageProfile(std::string_view name) {
  for (auto [value, n] : kUsageNames)
    if (name == n) return value;
  return std::nullopt;
}

std::string TraceProblem::str() const {
  std::string out = file;
  if (line > 0) {
    out += ':';
    out += std::to_string(line);
  }
  if (!out.empty()) out += ": ";
  out += message;
  return out;
}

const char* traceFormatName(TraceFormat f) {
  for (auto [value, name] : kFormatNames)
    if (value == f) return name;
  return "?";
}

std::optional<TraceFormat> parseTraceFormat(std::string_view name) {
  const std::string lower = toLower(name);
  for (auto [value, n] : kFormatNames)
    if (lower == n) return value;
  return std::nullopt;
}

std::optional<TraceFormat> detectTraceFormat(const std::string& path) {
  const std::string ext = toLower(std::filesystem::path(path).extension().string());
  if (ext == ".swf") return TraceFormat::Swf;
  if (ext == ".yaml" || ext == ".yml") return TraceFormat::JobList;
  auto line = firstLine(path);
  if (!line) return std::nullopt;
  // SWF files open with ';' header comments; Philly's job log is a JSON array of jobs; a job list
  // is a YAML or JSON mapping (version, teams, jobs).
  if (line->front() == ';') return TraceFormat::Swf;
  if (line->front() == '[') return TraceFormat::Philly;
  if (line->front() == '{' || *line == "---") return TraceFormat::JobList;
  for (const char* key : {"version", "priority_classes", "teams", "jobs"})
    if (line->rfind(std::string(key) + ":", 0) == 0) return TraceFormat::JobList;
  return formatOfCsvHeader(*line);
}

Expected<Trace> readTrace(const std::string& path, TraceFormat format,
                          const TraceReadOptions& opts) {
  switch (format) {
    case TraceFormat::Openb:
      return readOpenbPods(path, opts);
    case TraceFormat::Helios:
      return readHeliosLog(path, opts);
    case TraceFormat::Philly:
      return readPhillyLog(path, opts);
    case TraceFormat::Swf:
      return readSwf(path, opts);
    case TraceFormat::JobList:
      return readJobList(path, opts);
  }
  return Error{"unknown trace format", {path, 0, 0, ""}};
}

}  // namespace tessera
