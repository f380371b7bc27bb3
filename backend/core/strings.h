#pragma once
// Small string helpers shared by the parsers.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

// trim and split return views into their argument: a temporary std::string would leave them
// dangling, so those overloads are deleted and such calls fail to compile.
std::string_view trim(std::string_view s);
std::string_view trim(std::string&& s) = delete;
std::vector<std::string_view> split(std::string_view s, char sep);
std::vector<std::string_view> split(std::string&& s, char sep) = delete;
inline std::string_view trim(const char* s) {
  return trim(std::string_view(s));
}
inline std::vector<std::string_view> split(const char* s, char sep) {
  return split(std::string_view(s), sep);
}
std::string toLower(std::string_view s);
inline bool contains(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}
std::optional<int> parseInt(std::string_view s);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// A YAML/JSON double-quoted scalar: "a \"b\"" (backslashes and quotes escaped).
std::string doubleQuoted(std::string_view s);
// Well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF).
bool isValidUtf8(std::string_view s);

// Expands a cpulist such as "0-55,112-167" into CPU ids; nullopt if malformed or if it lists
// more than `maxCpus` CPUs (ranges expand eagerly: "0-2000000000" must not allocate gigabytes).
inline constexpr size_t kMaxCpuListEntries = 1 << 16;
std::optional<std::vector<int>> parseCpuList(std::string_view s,
                                             size_t maxCpus = kMaxCpuListEntries);

}  // namespace tessera
