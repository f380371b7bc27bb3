#pragma once
// Typed, located access to a YAML document: every failure names file, line, column and the
// field path, so a broken spec or catalog says exactly where it is broken.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/expected.h"

namespace tessera {

// A YAML node plus the path that led to it ("nodes[3].gpus").
class YamlField {
 public:
  YamlField(YAML::Node node, std::string path, const std::string* file)
      : node_(std::move(node)), path_(std::move(path)), file_(file) {}

  [[nodiscard]] const YAML::Node& node() const { return node_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] bool isMap() const { return node_.IsMap(); }
  [[nodiscard]] bool isSequence() const { return node_.IsSequence(); }
  [[nodiscard]] bool isScalar() const { return node_.IsScalar(); }
  [[nodiscard]] bool has(const std::string& key) const { return node_.IsMap() && node_[key]; }
  [[nodiscard]] SourceLocation location() const;
  [[nodiscard]] Error error(const std::string& message) const { return {message, location()}; }

  // Child access. `child` of a missing key yields an undefined node; check with has().
  [[nodiscard]] YamlField child(const std::string& key) const;
  [[nodiscard]] YamlField item(size_t index) const;
  [[nodiscard]] size_t size() const { return node_.size(); }
  [[nodiscard]] std::vector<std::pair<std::string, YamlField>> entries() const;

  // Scalar conversions with precise errors.
  [[nodiscard]] Expected<std::string> asString() const;
  [[nodiscard]] Expected<int> asInt(std::optional<int> min = {}, std::optional<int> max = {}) const;
  [[nodiscard]] Expected<double> asDouble() const;
  [[nodiscard]] Expected<bool> asBool() const;
  [[nodiscard]] Expected<std::vector<std::string>> asStringList() const;
  [[nodiscard]] Expected<std::vector<int>> asIntList(std::optional<int> min = {},
                                                     std::optional<int> max = {}) const;

  // Required/optional members of a map.
  [[nodiscard]] Expected<YamlField> require(const std::string& key) const;
  // Required scalar members, converted with the same errors as asInt/asString/asDouble.
  [[nodiscard]] Expected<int> intAt(const std::string& key, std::optional<int> min = {},
                                    std::optional<int> max = {}) const;
  [[nodiscard]] Expected<std::string> stringAt(const std::string& key) const;
  [[nodiscard]] Expected<double> doubleAt(const std::string& key) const;
  // Fails naming the first key not in `allowed`, so typos ("gpu_modle") are caught.
  [[nodiscard]] Status onlyKeys(const std::set<std::string>& allowed) const;
  [[nodiscard]] Status expectMap() const;
  [[nodiscard]] Status expectSequence() const;

 private:
  YAML::Node node_;
  std::string path_;
  const std::string* file_;
};

// Parses YAML text; a syntax error becomes an Error with file:line:column.
Expected<YAML::Node> parseYaml(std::string_view text, const std::string& fileName);
// Reads a whole regular file of at most kMaxTextFileBytes.
inline constexpr uintmax_t kMaxTextFileBytes = 64ull * 1024 * 1024;
Expected<std::string> readTextFile(const std::string& path);

}  // namespace tessera
