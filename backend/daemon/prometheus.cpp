// The metrics registry and its rendering in the Prometheus text exposition format 0.0.4.
#include "daemon/prometheus.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/strings.h"

namespace tessera {

namespace {

constexpr const char* kRejectedFamily = "tessera_metrics_rejected_total";

bool isNameStart(char c, bool colonAllowed) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colonAllowed && c == ':');
}

bool isNameChar(char c, bool colonAllowed) {
  return isNameStart(c, colonAllowed) || (c >= '0' && c <= '9');
}

bool isValidName(const std::string& name, bool colonAllowed) {
  if (name.empty() || !isNameStart(name.front(), colonAllowed)) return false;
  return std::all_of(name.begin(), name.end(),
                     [colonAllowed](char c) { return isNameChar(c, colonAllowed); });
}

bool isValidMetricName(const std::string& name) {
  return isValidName(name, true);
}

// "__" names are reserved for Prometheus itself; "le" is how histogram buckets are labelled.
bool isValidLabelName(const std::string& name, bool histogram) {
  return isValidName(name, false) && !name.starts_with("__") && !(histogram && name == "le");
}

// Sorts the labels by name so that one label set has one spelling; false when a name is invalid
// or repeated, or a value is not UTF-8 (the format is UTF-8 text).
bool canonicalLabels(Labels& labels, bool histogram) {
  std::sort(labels.begin(), labels.end());
  for (size_t i = 0; i < labels.size(); ++i) {
    if (!isValidLabelName(labels[i].first, histogram)) return false;
    if (!isValidUtf8(labels[i].second)) return false;
    if (i > 0 && labels[i].first == labels[i - 1].first) return false;
  }
  return true;
}

// Prometheus' own spellings for the special values; integers without an exponent so that counts
// read naturally; otherwise the shortest text that reads back as the same double.
std::string formatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, result.ptr);
}

std::string escapeHelp(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string escapeLabelValue(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"')
      out += "\\\"";
    else if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

// {a="x",b="y"} with an optional le="..." last; nothing at all for no labels.
std::string labelText(const Labels& labels, const std::string& le = {}) {
  if (labels.empty() && le.empty()) return {};
  std::string out = "{";
  for (const auto& [name, value] : labels) {
    if (out.size() > 1) out += ',';
    out += name + "=\"" + escapeLabelValue(value) + "\"";
  }
  if (!le.empty()) out += std::string(out.size() > 1 ? "," : "") + "le=\"" + le + "\"";
  return out + "}";
}

}  // namespace

// ---- declarations --------------------------------------------------------------------------

void MetricsRegistry::declareCounter(const std::string& name, const std::string& help) {
  declare(name, help, Type::Counter, {});
}

void MetricsRegistry::declareGauge(const std::string& name, const std::string& help) {
  declare(name, help, Type::Gauge, {});
}

void MetricsRegistry::declareHistogram(const std::string& name, const std::string& help,
                                       std::vector<double> upperBounds) {
  std::erase_if(upperBounds, [](double b) { return std::isnan(b) || (std::isinf(b) && b > 0); });
  std::sort(upperBounds.begin(), upperBounds.end());
  upperBounds.erase(std::unique(upperBounds.begin(), upperBounds.end()), upperBounds.end());
  declare(name, help, Type::Histogram, std::move(upperBounds));
}

void MetricsRegistry::declare(const std::string& name, const std::string& help, Type type,
                              std::vector<double> bounds) {
  std::lock_guard lock(mutex_);
  const bool valid = isValidMetricName(name) && name != kRejectedFamily;
  if (!valid) {
    ++rejected_;
    return;
  }
  auto [it, added] = families_.try_emplace(name);
  if (added) {
    it->second.type = type;
    it->second.help = help;
    it->second.bounds = std::move(bounds);
  } else if (it->second.type != type || it->second.bounds != bounds) {
    ++rejected_;
  }
}

// ---- updates -------------------------------------------------------------------------------

MetricsRegistry::Family* MetricsRegistry::find(const std::string& name, Type type) {
  auto it = families_.find(name);
  if (it == families_.end() || it->second.type != type) {
    ++rejected_;
    return nullptr;
  }
  return &it->second;
}

MetricsRegistry::Series* MetricsRegistry::seriesFor(Family& family, const Labels& labels) {
  Labels key = labels;
  if (!canonicalLabels(key, family.type == Type::Histogram)) {
    ++rejected_;
    return nullptr;
  }
  auto it = family.series.find(key);
  if (it != family.series.end()) return &it->second;
  if (family.series.size() >= kMaxSeriesPerFamily) {
    ++rejected_;
    return nullptr;
  }
  Series s;
  if (family.type == Type::Histogram) s.buckets.assign(family.bounds.size() + 1, 0);
  return &family.series.emplace(std::move(key), std::move(s)).first->second;
}

void MetricsRegistry::add(const std::string& counter, double by, const Labels& labels) {
  std::lock_guard lock(mutex_);
  if (!(by >= 0)) {  // also refuses NaN
    ++rejected_;
    return;
  }
  Family* f = find(counter, Type::Counter);
  if (Series* s = f ? seriesFor(*f, labels) : nullptr) s->value += by;
}

void MetricsRegistry::set(const std::string& gauge, double value, const Labels& labels) {
  std::lock_guard lock(mutex_);
  Family* f = find(gauge, Type::Gauge);
  if (Series* s = f ? seriesFor(*f, labels) : nullptr) s->value = value;
}

void MetricsRegistry::observe(const std::string& histogram, double value, const Labels& labels) {
  std::lock_guard lock(mutex_);
  if (std::isnan(value)) {
    ++rejected_;
    return;
  }
  Family* f = find(histogram, Type::Histogram);
  Series* s = f ? seriesFor(*f, labels) : nullptr;
  if (!s) return;
  const auto bucket = std::lower_bound(f->bounds.begin(), f->bounds.end(), value);
  ++s->buckets[static_cast<size_t>(bucket - f->bounds.begin())];
  s->sum += value;
  ++s->count;
}

void MetricsRegistry::replaceGauge(const std::string& gauge,
                                   const std::vector<std::pair<Labels, double>>& series) {
  std::lock_guard lock(mutex_);
  Family* f = find(gauge, Type::Gauge);
  if (!f) return;
  f->series.clear();
  for (const auto& [labels, value] : series)
    if (Series* s = seriesFor(*f, labels)) s->value = value;
}

// ---- rendering -----------------------------------------------------------------------------

namespace {

void renderHeader(std::string& out, const std::string& name, const std::string& help,
                  const char* type) {
  out += "# HELP " + name + " " + escapeHelp(help) + "\n";
  out += "# TYPE " + name + " " + type + "\n";
}

}  // namespace

std::string MetricsRegistry::render() const {
  std::lock_guard lock(mutex_);
  const auto typeName = [](Type t) {
    return t == Type::Counter ? "counter" : t == Type::Gauge ? "gauge" : "histogram";
  };
  std::string out;
  for (const auto& [name, family] : families_) {
    renderHeader(out, name, family.help, typeName(family.type));
    for (const auto& [labels, s] : family.series) {
      if (family.type != Type::Histogram) {
        out += name + labelText(labels) + " " + formatValue(s.value) + "\n";
        continue;
      }
      uint64_t cumulative = 0;
      for (size_t i = 0; i < s.buckets.size(); ++i) {
        cumulative += s.buckets[i];
        const std::string le = i < family.bounds.size() ? formatValue(family.bounds[i]) : "+Inf";
        out += name + "_bucket" + labelText(labels, le) + " " + std::to_string(cumulative) + "\n";
      }
      out += name + "_sum" + labelText(labels) + " " + formatValue(s.sum) + "\n";
      out += name + "_count" + labelText(labels) + " " + std::to_string(s.count) + "\n";
    }
  }
  if (rejected_ > 0) {
    renderHeader(out, kRejectedFamily,
                 "Metric declarations and updates tesserad ignored as invalid.", "counter");
    out += std::string(kRejectedFamily) + " " + std::to_string(rejected_) + "\n";
  }
  return out;
}

uint64_t MetricsRegistry::rejected() const {
  std::lock_guard lock(mutex_);
  return rejected_;
}

}  // namespace tessera
