#pragma once
// Colour modes and the palette: each Role gets a foreground (and for a few a background) in RGB,
// reduced to the 256-colour cube or the 8 ANSI colours; in monochrome roles become attributes
// only (bold, reverse, underline, dim), and NO_COLOR asks for that.
#include <cstdint>
#include <optional>
#include <string_view>

#include "screen.h"

namespace tessera::tui {

enum class ColorMode : uint8_t { TrueColor, Color256, Color8, Mono };
const char* colorModeName(ColorMode m);
std::optional<ColorMode> colorModeFromName(std::string_view name);  // also "auto" -> nullopt

// The mode for a terminal with `colors` colours (ncurses' COLORS), `noColor` when NO_COLOR is
// set (any value), `colorterm` = $COLORTERM ("truecolor" or "24bit" ask for direct colour when
// the terminal description allows it).
ColorMode detectColorMode(bool noColor, int colors, std::string_view colorterm);

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};
struct RoleStyle {
  std::optional<Rgb> fg;  // none: the terminal's default
  std::optional<Rgb> bg;
  bool bold = false;
  bool reverse = false;    // also in colour modes (the selection)
  bool underline = false;  // monochrome only: headers
  bool dim = false;
};
// How a role looks in `mode` (monochrome: attributes only).
RoleStyle roleStyle(Role r, ColorMode mode);
int to256(Rgb c);  // index in xterm's 6x6x6 cube or grey ramp
int to8(Rgb c);    // nearest of the 8 ANSI colours (COLOR_BLACK .. COLOR_WHITE)

}  // namespace tessera::tui
