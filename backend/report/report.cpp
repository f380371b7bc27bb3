#include "report/report.h"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cmath>

#include "topology/yaml_reader.h"

namespace tessera {
namespace {

constexpr std::array<std::pair<ReportGroup, const char*>, 7> kGroups{{
    {ReportGroup::Team, "team"},
    {ReportGroup::Department, "department"},
    {ReportGroup::Queue, "queue"},
    {ReportGroup::Pool, "pool"},
    {ReportGroup::GpuModel, "model"},
    {ReportGroup::Node, "node"},
    {ReportGroup::Job, "job"},
}};

Error at(const std::string& file, const YAML::Node& n, const std::string& field,
         const std::string& message) {
  return Error{message, {file, n.Mark().line + 1, n.Mark().column + 1, field}};
}

// A price: a finite number >= 0.
Expected<double> priceAt(const std::string& file, const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) return at(file, n, field, "a price must be a number");
  try {
    const double v = n.as<double>();
    if (!std::isfinite(v) || v < 0) return at(file, n, field, "a price must be 0 or more");
    return v;
  } catch (const YAML::Exception&) {
    return at(file, n, field, "a price must be a number, not '" + n.Scalar() + "'");
  }
}

Status parseMigPrices(const std::string& file, const YAML::Node& mig, PriceTable& t) {
  if (!mig.IsMap()) return at(file, mig, "mig_instance_hour", "must map GPU models to profiles");
  for (const auto& model : mig) {
    const std::string name = model.first.as<std::string>();
    const std::string field = "mig_instance_hour." + name;
    if (!model.second.IsMap())
      return at(file, model.second, field, "must map MIG profiles to prices");
    for (const auto& profile : model.second) {
      const std::string pname = profile.first.as<std::string>();
      TESSERA_TRY(price, priceAt(file, profile.second, field + "." + pname));
      t.migInstanceHour[name][pname] = price;
    }
  }
  return okStatus();
}

}  // namespace

const char* reportGroupName(ReportGroup g) {
  for (const auto& [group, name] : kGroups)
    if (group == g) return name;
  return "team";
}

std::optional<ReportGroup> parseReportGroup(std::string_view text) {
  for (const auto& [group, name] : kGroups)
    if (text == name) return group;
  if (text == "gpu-model" || text == "gpu_model") return ReportGroup::GpuModel;
  return std::nullopt;
}

Expected<PriceTable> parsePriceTable(std::string_view yaml, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::ParserException& e) {
    return Error{e.msg, {file, e.mark.line + 1, e.mark.column + 1, ""}};
  }
  if (!root.IsMap()) return Error{"a price table is a YAML mapping", {file, 1, 1, ""}};
  PriceTable t;
  t.file = file;
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    if (key == "currency") {
      if (!v.IsScalar() || v.Scalar().empty())
        return at(file, v, key, "currency must be a name like USD or EUR");
      t.currency = v.Scalar();
    } else if (key == "default_gpu_hour") {
      TESSERA_TRY(price, priceAt(file, v, key));
      t.defaultGpuHour = price;
    } else if (key == "gpu_hour") {
      if (!v.IsMap()) return at(file, v, key, "must map GPU models to prices per GPU-hour");
      for (const auto& m : v) {
        const std::string model = m.first.as<std::string>();
        TESSERA_TRY(price, priceAt(file, m.second, key + "." + model));
        t.gpuHour[model] = price;
      }
    } else if (key == "mig_instance_hour") {
      TESSERA_CHECK(parseMigPrices(file, v, t));
    } else {
      return at(file, kv.first, key,
                "unknown key '" + key +
                    "' (expected currency, gpu_hour, mig_instance_hour, default_gpu_hour)");
    }
  }
  if (t.gpuHour.empty() && !t.defaultGpuHour)
    return Error{"the price table has no prices: give gpu_hour or default_gpu_hour",
                 {file, 1, 1, ""}};
  return t;
}

Expected<PriceTable> loadPriceTableFile(const std::string& path) {
  TESSERA_TRY(text, readTextFile(path));
  return parsePriceTable(text, path);
}

}  // namespace tessera
