#include "glyphs.h"

namespace tessera::tui {

const Glyphs& unicodeGlyphs() {
  static const Glyphs g{true,
                        {U'·', U'░', U'▒', U'▓', U'█'},
                        {U' ', U'▏', U'▎', U'▍', U'▌', U'▋', U'▊', U'▉', U'█'},
                        {U'▁', U'▂', U'▃', U'▄', U'▅', U'▆', U'▇', U'█'},
                        U'│',
                        U'─',
                        U'✗',
                        U'·',
                        U'…'};
  return g;
}

const Glyphs& asciiGlyphs() {
  static const Glyphs g{false,
                        {U'.', U':', U'+', U'*', U'#'},
                        {U' ', U' ', U' ', U' ', U'|', U'|', U'|', U'|', U'#'},
                        {U'_', U'.', U'-', U'-', U'=', U'=', U'*', U'#'},
                        U'|',
                        U'-',
                        U'x',
                        U'.',
                        U'~'};
  return g;
}

bool wantUnicode(std::string_view codeset, std::string_view term) {
  const bool utf8 = codeset == "UTF-8" || codeset == "utf8" || codeset == "UTF8";
  const bool oldTerminal = term.starts_with("vt1") || term.starts_with("vt2") || term == "dumb";
  return utf8 && !oldTerminal;
}

}  // namespace tessera::tui
