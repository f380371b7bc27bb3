#include "sim/dcgm_metrics.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <tuple>
#include <utility>

#include "core/strings.h"
#include "sim/trace_csv.h"

namespace tessera {

namespace {

// One series line: `name{label="value",...} value [timestamp]`.
struct Sample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;
  std::optional<int64_t> stampMs;  // the optional timestamp (ms since the epoch)
  int line = 0;

  [[nodiscard]] const std::string* label(std::string_view key) const {
    for (const auto& [k, v] : labels)
      if (k == key) return &v;
    return nullptr;
  }
  // The first of several spellings (dcgm-exporter renamed some keys between releases).
  [[nodiscard]] std::string labelOr(std::initializer_list<std::string_view> keys) const {
    for (auto key : keys)
      if (const std::string* v = label(key)) return *v;
    return {};
  }
};

bool isBlank(char c) {
  return c == ' ' || c == '\t';
}
bool isNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isNameChar(char c) {
  return isNameStart(c) || (c >= '0' && c <= '9');
}

// Go's strconv.ParseFloat, which the Prometheus parser uses, takes a leading '+' ("+Inf");
// std::from_chars does not.
std::optional<double> parseFloat(std::string_view t) {
  if (t.size() > 1 && t[0] == '+' && t[1] != '+' && t[1] != '-') t.remove_prefix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc{} || ptr != t.data() + t.size()) return std::nullopt;
  return v;
}

// A cursor over one line; errors name source:line:column.
class LineParser {
 public:
  LineParser(std::string_view line, const std::string& source, int lineNo)
      : s_(line), source_(source), line_(lineNo) {}

  // True for a line with nothing but blanks.
  bool blank() {
    skipBlanks();
    return atEnd();
  }
  [[nodiscard]] bool atComment() const { return !atEnd() && s_[pos_] == '#'; }

  // `# HELP name text` and `# TYPE name type` must name a metric (and a known type); any other
  // comment is free text.
  Status comment() {
    ++pos_;
    skipBlanks();
    const std::string_view keyword = token();
    if (keyword != "HELP" && keyword != "TYPE") return okStatus();
    skipBlanks();
    const size_t at = pos_;
    const std::string_view metric = name(true);
    if (metric.empty() || (!atEnd() && !isBlank(s_[pos_])))
      return errorAt(at, "# " + std::string(keyword) + " needs a valid metric name");
    if (keyword == "HELP") return okStatus();
    skipBlanks();
    const size_t typeAt = pos_;
    const std::string_view type = token();
    static constexpr std::string_view kTypes[] = {"counter", "gauge", "histogram", "summary",
                                                  "untyped"};
    if (std::find(std::begin(kTypes), std::end(kTypes), type) == std::end(kTypes))
      return errorAt(typeAt, "# TYPE " + std::string(metric) +
                                 ": expected counter, gauge, histogram, summary or untyped");
    skipBlanks();
    if (!atEnd())
      return error("# TYPE " + std::string(metric) + ": unexpected text after the type");
    return okStatus();
  }

  Expected<Sample> sample() {
    Sample out;
    out.line = line_;
    out.name = std::string(name(true));
    if (out.name.empty()) return error("expected a metric name");
    field_ = out.name;
    skipBlanks();
    if (!atEnd() && s_[pos_] == '{') TESSERA_CHECK(labels(out));
    skipBlanks();
    if (atEnd()) return error("missing value after the metric name and labels");
    const size_t valueAt = pos_;
    const std::string_view value = token();
    const auto v = parseFloat(value);
    if (!v) return errorAt(valueAt, "bad value '" + std::string(value) + "': not a number");
    out.value = *v;
    skipBlanks();
    if (atEnd()) return out;
    const size_t stampAt = pos_;
    const std::string_view stamp = token();
    int64_t ms = 0;
    auto [ptr, ec] = std::from_chars(stamp.data(), stamp.data() + stamp.size(), ms);
    if (ec != std::errc{} || ptr != stamp.data() + stamp.size())
      return errorAt(stampAt, "bad timestamp '" + std::string(stamp) +
                                  "': expected whole milliseconds since the epoch");
    skipBlanks();
    if (!atEnd()) return error("unexpected text after the timestamp");
    out.stampMs = ms;
    return out;
  }

 private:
  Status labels(Sample& out) {
    ++pos_;  // '{'
    for (;;) {
      skipBlanks();
      if (!atEnd() && s_[pos_] == '}') break;  // `{}`, or a trailing comma
      const size_t at = pos_;
      const std::string key(name(false));
      if (key.empty()) return error("expected a label name or '}'");
      if (out.label(key)) return errorAt(at, "label '" + key + "' given twice");
      skipBlanks();
      if (atEnd() || s_[pos_] != '=') return error("expected '=' after label '" + key + "'");
      ++pos_;
      skipBlanks();
      if (atEnd() || s_[pos_] != '"') return error("expected '\"' to open label '" + key + "'");
      TESSERA_TRY(value, quoted(key));
      out.labels.emplace_back(key, std::move(value));
      skipBlanks();
      if (!atEnd() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (atEnd() || s_[pos_] != '}') return error("expected ',' or '}' after label '" + key + "'");
      break;
    }
    ++pos_;  // '}'
    return okStatus();
  }

  // A double-quoted label value; the format knows only the escapes \\, \" and \n.
  Expected<std::string> quoted(const std::string& key) {
    const size_t open = pos_++;
    std::string out;
    while (!atEnd() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\') {
        if (atEnd()) break;
        const char e = s_[pos_++];
        if (e == 'n')
          c = '\n';
        else if (e == '\\' || e == '"')
          c = e;
        else
          return errorAt(pos_ - 2, "label '" + key + "': unknown escape '\\" + e +
                                       "' (only \\\\, \\\" and \\n are allowed)");
      }
      out += c;
    }
    if (atEnd()) return errorAt(open, "unterminated value of label '" + key + "'");
    ++pos_;
    if (!isValidUtf8(out)) return errorAt(open, "label '" + key + "': value is not UTF-8");
    return out;
  }

  // Metric names may contain ':' (recording rules); label names may not.
  std::string_view name(bool metric) {
    const size_t start = pos_;
    auto ok = [&](char c, bool first) {
      return (first ? isNameStart(c) : isNameChar(c)) || (metric && c == ':');
    };
    while (!atEnd() && ok(s_[pos_], pos_ == start)) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  std::string_view token() {
    const size_t start = pos_;
    while (!atEnd() && !isBlank(s_[pos_])) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  void skipBlanks() {
    while (!atEnd() && isBlank(s_[pos_])) ++pos_;
  }
  [[nodiscard]] bool atEnd() const { return pos_ >= s_.size(); }
  [[nodiscard]] Error error(const std::string& message) const { return errorAt(pos_, message); }
  [[nodiscard]] Error errorAt(size_t pos, const std::string& message) const {
    return Error{message, {source_, line_, static_cast<int>(pos) + 1, field_}};
  }

  std::string_view s_;
  size_t pos_ = 0;
  const std::string& source_;
  int line_;
  std::string field_;  // the metric, once known
};

// The gauges that map straight onto a reading, with the divisor that makes them ratios (a
// division, not a multiplication by 0.01, so that 94 % reads exactly as 0.94).
struct Gauge {
  std::string_view metric;
  std::optional<double> DcgmGpuReading::*member;
  double divisor;
};
constexpr Gauge kGauges[] = {
    {"DCGM_FI_DEV_GPU_UTIL", &DcgmGpuReading::util, 100},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", &DcgmGpuReading::grEngineActive, 1},
    {"DCGM_FI_PROF_SM_ACTIVE", &DcgmGpuReading::smActive, 1},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", &DcgmGpuReading::tensorActive, 1},
    {"DCGM_FI_PROF_DRAM_ACTIVE", &DcgmGpuReading::dramActive, 1},
    {"DCGM_FI_DEV_FB_USED", &DcgmGpuReading::fbUsedMiB, 1},
    {"DCGM_FI_DEV_FB_FREE", &DcgmGpuReading::fbFreeMiB, 1},
    {"DCGM_FI_DEV_POWER_USAGE", &DcgmGpuReading::powerWatts, 1},
    {"DCGM_FI_DEV_GPU_TEMP", &DcgmGpuReading::temperatureC, 1},
};
constexpr std::string_view kXid = "DCGM_FI_DEV_XID_ERRORS";

const Gauge* findGauge(std::string_view metric) {
  for (const Gauge& g : kGauges)
    if (g.metric == metric) return &g;
  return nullptr;
}

// "-5", "13.5", "inf": std::to_string would print "-0.000000" for a tiny negative.
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::optional<int> parseIndex(const std::string& text) {
  auto v = parseInt(text);
  if (!v || *v < 0 || text != trim(text)) return std::nullopt;
  return v;
}

// Groups samples into readings by (hostname, gpu, GPU_I_ID).
class Collector {
 public:
  explicit Collector(const std::string& source) : source_(source) {}

  void add(const Sample& s) {
    const Gauge* gauge = findGauge(s.name);
    if (!gauge && s.name != kXid) return;  // exporters emit many metrics we do not use
    Entry* e = entry(s);
    if (!e) return;
    // A repeated series replaces its timestamp with its value.
    if (s.stampMs)
      e->stampOf[s.name] = *s.stampMs;
    else
      e->stampOf.erase(s.name);
    if (auto [it, fresh] = e->seenOn.try_emplace(s.name, s.line); !fresh) {
      warn(s.line, s.name + " for " + describe(e->r) + " repeats line " +
                       std::to_string(it->second) + "; the later value wins");
      it->second = s.line;
    }
    auto usable = [&]() -> std::optional<double> {
      if (std::isnan(s.value)) return std::nullopt;  // DCGM's "no value"
      if (std::isinf(s.value) || s.value < 0) {
        warn(s.line, s.name + " for " + describe(e->r) + " is " + number(s.value) + "; ignored");
        return std::nullopt;
      }
      return s.value;
    };
    const std::optional<double> v = usable();
    if (gauge) {
      e->r.*(gauge->member) = v ? std::optional(*v / gauge->divisor) : std::nullopt;
      return;
    }
    e->r.xid.reset();
    e->r.xidMessage.clear();
    if (v && (*v != std::floor(*v) || *v > INT_MAX)) {
      warn(s.line, s.name + " for " + describe(e->r) + " is " + number(*v) +
                       ", not an Xid number; ignored");
    } else if (v) {
      e->r.xid = static_cast<int>(*v);
      e->r.xidMessage = s.labelOr({"err_msg"});
    }
  }

  DcgmScrape finish() && {
    DcgmScrape out;
    for (auto& [key, e] : byGpu_) {
      DcgmGpuReading& r = e.r;
      if (r.fbUsedMiB && r.fbFreeMiB && *r.fbUsedMiB + *r.fbFreeMiB > 0)
        r.memoryUsed = *r.fbUsedMiB / (*r.fbUsedMiB + *r.fbFreeMiB);
      for (const auto& [metric, ms] : e.stampOf)
        r.sampledMs = std::min(r.sampledMs.value_or(ms), ms);
      out.gpus.push_back(std::move(r));
    }
    if (out.gpus.empty())
      warnings_.push_back(Error{"no DCGM GPU series found", {source_, 0, 0, ""}}.str());
    out.warnings = std::move(warnings_);
    return out;
  }

 private:
  struct Entry {
    DcgmGpuReading r;
    std::map<std::string, int> seenOn;       // metric -> line, to report duplicate series
    std::map<std::string, int64_t> stampOf;  // metric -> its sample's timestamp, when it has one
  };

  // The reading a sample belongs to; nullptr (with a warning) when its labels name no device.
  Entry* entry(const Sample& s) {
    const std::string* gpuText = s.label("gpu");
    const auto gpu = gpuText ? parseIndex(*gpuText) : std::nullopt;
    if (!gpu) {
      warn(s.line, s.name +
                       (gpuText ? " has gpu label '" + *gpuText + "', not a device index"
                                : " has no gpu label") +
                       "; ignored");
      return nullptr;
    }
    int instance = -1;
    if (const std::string* gi = s.label("GPU_I_ID")) {
      const auto id = parseIndex(*gi);
      if (!id) {
        warn(s.line, s.name + " has GPU_I_ID '" + *gi + "', not an instance id; ignored");
        return nullptr;
      }
      instance = *id;
    }
    std::string host = s.labelOr({"Hostname", "hostname"});
    auto [it, fresh] = byGpu_.try_emplace({host, *gpu, instance});
    DcgmGpuReading& r = it->second.r;
    if (fresh) {
      r.hostname = std::move(host);
      r.gpu = *gpu;
      r.migInstance = instance;
    }
    fill(r.uuid, s.labelOr({"UUID", "uuid"}), "UUID", r, s.line);
    fill(r.pciBusId, s.labelOr({"pci_bus_id"}), "pci_bus_id", r, s.line);
    fill(r.modelName, s.labelOr({"modelName"}), "modelName", r, s.line);
    fill(r.migProfile, s.labelOr({"GPU_I_PROFILE"}), "GPU_I_PROFILE", r, s.line);
    // Pod labels come and go with the pod that holds the device; the last one seen is current.
    if (const std::string pod = s.labelOr({"pod", "pod_name"}); !pod.empty()) {
      r.pod = pod;
      r.podNamespace = s.labelOr({"namespace", "pod_namespace"});
      r.container = s.labelOr({"container", "container_name"});
    }
    return &it->second;
  }

  // Identity labels must agree across one device's series: two GPUs sharing an index would be
  // a broken scrape (or two nodes under one Hostname), which the operator needs to see.
  void fill(std::string& field, const std::string& value, const char* label,
            const DcgmGpuReading& r, int line) {
    if (value.empty() || value == field) return;
    if (field.empty()) {
      field = value;
      return;
    }
    warn(line, std::string(label) + " '" + value + "' differs from '" + field +
                   "' seen earlier for " + describe(r) + "; keeping the first");
  }

  static std::string describe(const DcgmGpuReading& r) {
    std::string out = "gpu " + std::to_string(r.gpu);
    if (r.isMigInstance()) out += " instance " + std::to_string(r.migInstance);
    if (!r.hostname.empty()) out += " on " + r.hostname;
    return out;
  }

  void warn(int line, const std::string& message) {
    warnings_.push_back(Error{message, {source_, line, 0, ""}}.str());
  }

  const std::string& source_;
  std::map<std::tuple<std::string, int, int>, Entry> byGpu_;
  std::vector<std::string> warnings_;
};

}  // namespace

Expected<DcgmScrape> parseDcgmMetrics(std::string_view text, const std::string& source) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  Collector collector(source);
  int lineNo = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    LineParser p(line, source, ++lineNo);
    if (p.blank()) continue;
    if (p.atComment()) {
      TESSERA_CHECK(p.comment());
      continue;
    }
    TESSERA_TRY(sample, p.sample());
    collector.add(sample);
  }
  return std::move(collector).finish();
}

Expected<DcgmScrape> readDcgmMetricsFile(const std::string& path) {
  TESSERA_TRY(text, tracefmt::readWholeFile(path));
  return parseDcgmMetrics(text, path);
}

}  // namespace tessera
