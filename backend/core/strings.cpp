#include "core/strings.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>

namespace tessera {

std::string_view trim(std::string_view s) {
  auto isSpace = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string toLower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::optional<int> parseInt(std::string_view s) {
  s = trim(s);
  int value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return value;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string doubleQuoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool isValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int extra = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0)
      extra = 1, cp = c & 0x1Fu;
    else if ((c & 0xF0) == 0xE0)
      extra = 2, cp = c & 0x0Fu;
    else if ((c & 0xF8) == 0xF0)
      extra = 3, cp = c & 0x07u;
    else
      return false;
    if (i + static_cast<size_t>(extra) >= s.size()) return false;  // truncated sequence
    for (int k = 1; k <= extra; ++k) {
      const auto b = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3Fu);
    }
    const uint32_t minimum[] = {0, 0x80, 0x800, 0x10000};
    if (cp < minimum[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += static_cast<size_t>(extra) + 1;
  }
  return true;
}

std::optional<std::vector<int>> parseCpuList(std::string_view s, size_t maxCpus) {
  std::vector<int> cpus;
  s = trim(s);
  if (s.empty()) return cpus;
  for (auto part : split(s, ',')) {
    auto dash = part.find('-');
    if (dash == std::string_view::npos) {
      auto v = parseInt(part);
      if (!v || *v < 0 || cpus.size() >= maxCpus) return std::nullopt;
      cpus.push_back(*v);
      continue;
    }
    auto lo = parseInt(part.substr(0, dash));
    auto hi = parseInt(part.substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo) return std::nullopt;
    if (static_cast<size_t>(*hi - *lo) + 1 > maxCpus - cpus.size()) return std::nullopt;
    for (int c = *lo; c <= *hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

}  // namespace tessera
