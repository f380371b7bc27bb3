#pragma once
// The characters views draw with, Unicode or ASCII. ASCII is for terminals that cannot show
// more (LANG=C, TERM=vt100 or linux): every glyph there is 7-bit, and levels still differ by
// character so that a monochrome ASCII terminal shows the same information.
#include <array>
#include <string_view>

namespace tessera::tui {

struct Glyphs {
  bool unicode = true;
  // A heat level 0..4 as one cell (heatmap): empty to full.
  std::array<char32_t, 5> heat{};
  // Eighths of a cell for bars, 0..8 (nvitop-style GPU bars).
  std::array<char32_t, 9> eighths{};
  // Sparkline levels, 0..7.
  std::array<char32_t, 8> spark{};
  char32_t vertical = U'|';    // between columns and groups
  char32_t horizontal = U'-';  // rules
  char32_t down = U'x';        // a GPU or node out of service
  char32_t migFree = U'.';     // a free MIG memory slice
  char32_t ellipsis = U'~';    // a cut value
};

const Glyphs& unicodeGlyphs();
const Glyphs& asciiGlyphs();

// Unicode when the locale's character set is UTF-8 and the terminal is not one known to lack
// it (vt100, vt220, linux console without a UTF-8 font is treated as ASCII). `codeset` is
// nl_langinfo(CODESET); `term` is $TERM.
bool wantUnicode(std::string_view codeset, std::string_view term);

}  // namespace tessera::tui
