#include "text.h"

#include <cmath>

#include "engine_text.h"

namespace tessera::tui {

std::string engineText(const Text& t) {
  return displayText(t).toStdString();
}

std::string shortDuration(Seconds s) {
  if (s < 0) s = 0;
  const auto two = [](int64_t v) { return (v < 10 ? "0" : "") + std::to_string(v); };
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m" + two(s % 60) + "s";
  if (s < 86400) return std::to_string(s / 3600) + "h" + two(s % 3600 / 60) + "m";
  return std::to_string(s / 86400) + "d" + std::to_string(s % 86400 / 3600) + "h";
}

std::string percent(std::optional<double> fraction) {
  if (!fraction) return "-";
  return std::to_string(static_cast<int>(std::lround(*fraction * 100))) + "%";
}

}  // namespace tessera::tui
