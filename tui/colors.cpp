#include "colors.h"

#include <array>
#include <cmath>
#include <cstdlib>

namespace tessera::tui {

const char* colorModeName(ColorMode m) {
  static const char* const kNames[] = {"truecolor", "256", "8", "mono"};
  return kNames[static_cast<int>(m)];
}

std::optional<ColorMode> colorModeFromName(std::string_view name) {
  for (int i = 0; i < 4; ++i)
    if (name == colorModeName(static_cast<ColorMode>(i))) return static_cast<ColorMode>(i);
  return std::nullopt;
}

ColorMode detectColorMode(bool noColor, int colors, std::string_view colorterm) {
  if (noColor || colors < 8) return ColorMode::Mono;
  // Direct colour needs a terminal description that has it (xterm-direct: COLORS = 2^24);
  // COLORTERM alone cannot make ncurses send 24-bit sequences.
  if (colors >= (1 << 24) && (colorterm.empty() || colorterm == "truecolor" || colorterm == "24bit"))
    return ColorMode::TrueColor;
  if (colors >= 256) return ColorMode::Color256;
  return ColorMode::Color8;
}

namespace {

// The palette: a dark-terminal scheme; heat goes from a dim blue through teal and amber to red.
RoleStyle baseStyle(Role r) {
  switch (r) {
    case Role::Normal: return {};
    case Role::Dim: return {Rgb{128, 128, 128}, {}, false, false, false, true};
    case Role::Title: return {Rgb{255, 255, 255}, Rgb{30, 60, 110}, true};
    case Role::Header: return {Rgb{120, 200, 255}, {}, true};
    case Role::Selected: return {{}, {}, false, true};
    case Role::Key: return {Rgb{120, 200, 255}, {}};
    case Role::Ok: return {Rgb{80, 200, 120}, {}};
    case Role::Warn: return {Rgb{230, 180, 60}, {}};
    case Role::Bad: return {Rgb{240, 80, 80}, {}, true};
    case Role::Accent: return {Rgb{200, 140, 255}, {}};
    case Role::Heat0: return {Rgb{70, 90, 130}, {}};
    case Role::Heat1: return {Rgb{60, 160, 200}, {}};
    case Role::Heat2: return {Rgb{70, 200, 140}, {}};
    case Role::Heat3: return {Rgb{230, 190, 60}, {}};
    case Role::Heat4: return {Rgb{240, 90, 60}, {}, true};
  }
  return {};
}

}  // namespace

RoleStyle roleStyle(Role r, ColorMode mode) {
  RoleStyle s = baseStyle(r);
  if (mode != ColorMode::Mono) return s;
  // Without colour the meaning must survive in attributes (and the views' glyphs).
  RoleStyle m;
  m.bold = s.bold || r == Role::Key || r == Role::Header || r == Role::Heat4 || r == Role::Bad;
  m.reverse = r == Role::Selected || r == Role::Title;
  m.underline = r == Role::Header || r == Role::Bad;
  m.dim = r == Role::Dim || r == Role::Heat0;
  return m;
}

int to256(Rgb c) {
  const auto level = [](uint8_t v) { return v < 48 ? 0 : v < 115 ? 1 : (v - 35) / 40; };
  const int r = level(c.r), g = level(c.g), b = level(c.b);
  return 16 + 36 * r + 6 * g + b;
}

int to8(Rgb c) {
  // The ANSI order: black, red, green, yellow, blue, magenta, cyan, white.
  static constexpr std::array<Rgb, 8> kAnsi{{{0, 0, 0},
                                             {205, 0, 0},
                                             {0, 205, 0},
                                             {205, 205, 0},
                                             {0, 0, 238},
                                             {205, 0, 205},
                                             {0, 205, 205},
                                             {229, 229, 229}}};
  int best = 0;
  long bestDist = 1L << 40;
  for (int i = 0; i < 8; ++i) {
    const long dr = c.r - kAnsi[static_cast<size_t>(i)].r, dg = c.g - kAnsi[static_cast<size_t>(i)].g,
               db = c.b - kAnsi[static_cast<size_t>(i)].b;
    const long d = dr * dr + dg * dg + db * db;
    if (d < bestDist) best = i, bestDist = d;
  }
  return best;
}

}  // namespace tessera::tui
