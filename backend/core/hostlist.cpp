#include "core/hostlist.h"

#include <algorithm>

#include "core/strings.h"

namespace tessera {

namespace {

Error hostlistError(std::string_view expr, const std::string& why) {
  return Error{"hostlist '" + std::string(expr) + "': " + why, {}};
}

std::string padded(int value, size_t width) {
  std::string s = std::to_string(value);
  if (s.size() < width) s.insert(0, width - s.size(), '0');
  return s;
}

// Splits at commas that are not inside brackets.
std::vector<std::string_view> topLevelItems(std::string_view expr) {
  std::vector<std::string_view> items;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < expr.size(); ++i) {
    if (expr[i] == '[') ++depth;
    if (expr[i] == ']') --depth;
    if (expr[i] == ',' && depth == 0) {
      items.push_back(expr.substr(start, i - start));
      start = i + 1;
    }
  }
  items.push_back(expr.substr(start));
  return items;
}

Status expandOne(std::string_view expr, std::string_view item, size_t limit,
                 std::vector<std::string>& out) {
  const size_t open = item.find('[');
  if (open == std::string_view::npos) {
    if (item.find(']') != std::string_view::npos) return hostlistError(expr, "']' without '['");
    out.emplace_back(item);
    return okStatus();
  }
  const size_t close = item.find(']', open);
  if (close == std::string_view::npos) return hostlistError(expr, "missing ']'");
  const std::string_view prefix = item.substr(0, open);
  const std::string_view suffix = item.substr(close + 1);
  if (suffix.find('[') != std::string_view::npos)
    return hostlistError(expr, "only one [...] range per name is supported");
  if (prefix.find(']') != std::string_view::npos || suffix.find(']') != std::string_view::npos)
    return hostlistError(expr, "']' without '['");
  for (auto range : split(item.substr(open + 1, close - open - 1), ',')) {
    range = trim(range);
    const size_t dash = range.find('-');
    const std::string_view loText = dash == std::string_view::npos ? range : range.substr(0, dash);
    const std::string_view hiText = dash == std::string_view::npos ? range : range.substr(dash + 1);
    auto lo = parseInt(loText);
    auto hi = parseInt(hiText);
    if (!lo || !hi || *lo < 0 || *hi < *lo)
      return hostlistError(expr, "bad range '" + std::string(range) + "'");
    for (int v = *lo; v <= *hi; ++v) {
      if (out.size() >= limit)
        return hostlistError(expr, "expands to more than " + std::to_string(limit) + " names");
      out.push_back(std::string(prefix) + padded(v, trim(loText).size()) + std::string(suffix));
    }
  }
  return okStatus();
}

}  // namespace

Expected<std::vector<std::string>> expandHostlist(std::string_view expr, size_t limit) {
  expr = trim(expr);
  if (expr.empty()) return hostlistError(expr, "empty");
  std::vector<std::string> names;
  for (auto item : topLevelItems(expr)) {
    item = trim(item);
    if (item.empty()) return hostlistError(expr, "empty name");
    TESSERA_CHECK(expandOne(expr, item, limit, names));
  }
  return names;
}

Expected<std::vector<int>> expandIndexList(std::string_view expr, int max) {
  std::vector<int> out;
  for (auto part : split(trim(expr), ',')) {
    part = trim(part);
    const size_t dash = part.find('-');
    auto lo = parseInt(dash == std::string_view::npos ? part : part.substr(0, dash));
    auto hi = parseInt(dash == std::string_view::npos ? part : part.substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo)
      return Error{"bad index range '" + std::string(part) + "'", {}};
    if (*hi >= max)
      return Error{"index " + std::to_string(*hi) + " out of range (the node has " +
                       std::to_string(max) + " GPUs: 0-" + std::to_string(max - 1) + ")",
                   {}};
    for (int v = *lo; v <= *hi; ++v) {
      if (std::find(out.begin(), out.end(), v) != out.end())
        return Error{
            "index " + std::to_string(v) + " is listed twice in '" + std::string(expr) + "'", {}};
      out.push_back(v);
    }
  }
  return out;
}

}  // namespace tessera
