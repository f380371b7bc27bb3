#include "topology/yaml_reader.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/strings.h"

namespace tessera {

SourceLocation YamlField::location() const {
  SourceLocation loc;
  if (file_) loc.file = *file_;
  loc.field = path_;
  if (node_.IsDefined()) {
    const YAML::Mark mark = node_.Mark();
    if (mark.line >= 0) {
      loc.line = mark.line + 1;
      loc.column = mark.column + 1;
    }
  }
  return loc;
}

YamlField YamlField::child(const std::string& key) const {
  std::string path = path_.empty() ? key : path_ + "." + key;
  if (!node_.IsMap()) return {YAML::Node(YAML::NodeType::Undefined), path, file_};
  return {node_[key], path, file_};
}

YamlField YamlField::item(size_t index) const {
  return {node_[index], path_ + "[" + std::to_string(index) + "]", file_};
}

std::vector<std::pair<std::string, YamlField>> YamlField::entries() const {
  std::vector<std::pair<std::string, YamlField>> out;
  if (!node_.IsMap()) return out;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    std::string key = it->first.Scalar();
    out.emplace_back(key, YamlField(it->second, path_.empty() ? key : path_ + "." + key, file_));
  }
  return out;
}

Expected<std::string> YamlField::asString() const {
  if (!node_.IsScalar()) return error("expected a text value");
  // Names end up in JSON output and logs; reject bytes that are not text at the source.
  if (!isValidUtf8(node_.Scalar())) return error("text is not valid UTF-8");
  return node_.Scalar();
}

Expected<int> YamlField::asInt(std::optional<int> min, std::optional<int> max) const {
  if (!node_.IsScalar()) return error("expected a whole number");
  auto v = parseInt(node_.Scalar());
  if (!v) return error("expected a whole number, got '" + node_.Scalar() + "'");
  if (min && *v < *min)
    return error("must be at least " + std::to_string(*min) + ", got " + std::to_string(*v));
  if (max && *v > *max)
    return error("must be at most " + std::to_string(*max) + ", got " + std::to_string(*v));
  return *v;
}

Expected<double> YamlField::asDouble() const {
  if (!node_.IsScalar()) return error("expected a number");
  try {
    size_t used = 0;
    const std::string& s = node_.Scalar();
    double v = std::stod(s, &used);
    if (used != s.size()) return error("expected a number, got '" + s + "'");
    return v;
  } catch (const std::exception&) {
    return error("expected a number, got '" + node_.Scalar() + "'");
  }
}

Expected<bool> YamlField::asBool() const {
  if (!node_.IsScalar()) return error("expected true or false");
  const std::string s = toLower(node_.Scalar());
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  return error("expected true or false, got '" + node_.Scalar() + "'");
}

Expected<std::vector<std::string>> YamlField::asStringList() const {
  if (!node_.IsSequence()) return error("expected a list");
  std::vector<std::string> out;
  for (size_t i = 0; i < node_.size(); ++i) {
    TESSERA_TRY(s, item(i).asString());
    out.push_back(std::move(s));
  }
  return out;
}

Expected<std::vector<int>> YamlField::asIntList(std::optional<int> min,
                                                std::optional<int> max) const {
  if (!node_.IsSequence()) return error("expected a list of whole numbers");
  std::vector<int> out;
  for (size_t i = 0; i < node_.size(); ++i) {
    TESSERA_TRY(v, item(i).asInt(min, max));
    out.push_back(v);
  }
  return out;
}

Expected<YamlField> YamlField::require(const std::string& key) const {
  if (!node_.IsMap()) return error("expected a map with key '" + key + "'");
  if (!node_[key]) return error("missing required field '" + key + "'");
  return child(key);
}

Expected<int> YamlField::intAt(const std::string& key, std::optional<int> min,
                               std::optional<int> max) const {
  TESSERA_TRY(f, require(key));
  return f.asInt(min, max);
}

Expected<std::string> YamlField::stringAt(const std::string& key) const {
  TESSERA_TRY(f, require(key));
  return f.asString();
}

Expected<double> YamlField::doubleAt(const std::string& key) const {
  TESSERA_TRY(f, require(key));
  return f.asDouble();
}

Status YamlField::onlyKeys(const std::set<std::string>& allowed) const {
  TESSERA_CHECK(expectMap());
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (allowed.count(key)) continue;
    std::vector<std::string> names(allowed.begin(), allowed.end());
    YamlField keyField(it->first, path_.empty() ? key : path_ + "." + key, file_);
    return keyField.error("unknown field '" + key + "' (allowed: " + join(names, ", ") + ")");
  }
  return okStatus();
}

// yaml-cpp keeps repeated keys and lookups return the first, so a repeat would be silently ignored.
Status YamlField::expectMap() const {
  if (!node_.IsMap()) return error("expected a map (key: value entries)");
  std::set<std::string> seen;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (!seen.insert(key).second)
      return YamlField(it->first, path_.empty() ? key : path_ + "." + key, file_)
          .error("duplicate key '" + key + "' (it appears twice in this map)");
  }
  return okStatus();
}

Status YamlField::expectSequence() const {
  if (!node_.IsSequence()) return error("expected a list");
  return okStatus();
}

Expected<YAML::Node> parseYaml(std::string_view text, const std::string& fileName) {
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    SourceLocation loc{fileName,
                       e.mark.line >= 0 ? e.mark.line + 1 : 0,
                       e.mark.column >= 0 ? e.mark.column + 1 : 0,
                       {}};
    return Error{"YAML syntax error: " + e.msg, loc};
  }
}

Expected<std::string> readTextFile(const std::string& path) {
  // Specs, catalogs and topo dumps are small; refusing devices and huge files keeps a wrong path
  // (/dev/urandom, a disk image) from hanging or exhausting memory.
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Error{"cannot open file '" + path + "': no such file", {}};
  if (!std::filesystem::is_regular_file(path, ec))
    return Error{"'" + path + "' is not a regular file", {}};
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error{"cannot read '" + path + "': " + ec.message(), {}};
  if (size > kMaxTextFileBytes)
    return Error{"'" + path + "' is " + std::to_string(size / (1024 * 1024)) +
                     " MiB; input files are limited to " +
                     std::to_string(kMaxTextFileBytes / (1024 * 1024)) + " MiB",
                 {}};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open file '" + path + "'", {}};
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error{"error while reading '" + path + "'", {}};
  return ss.str();
}

}  // namespace tessera
