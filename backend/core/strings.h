#pragma once
// Small string helpers shared by the parsers.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

std::string_view trim(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char sep);
std::string toLower(std::string_view s);
std::optional<int> parseInt(std::string_view s);
std::string join(const std::vector<std::string>& parts, std::string_view sep);

// Expands a cpulist such as "0-55,112-167" into CPU ids; nullopt if malformed.
std::optional<std::vector<int>> parseCpuList(std::string_view s);

}  // namespace tessera
