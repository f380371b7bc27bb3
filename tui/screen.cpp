#include "screen.h"

#include <algorithm>
#include <cwchar>

namespace tessera::tui {

char roleLetter(Role r) {
  static constexpr char kLetters[kRoleCount + 1] = ".dThSkgyra01234";
  return kLetters[static_cast<int>(r)];
}

int charWidth(char32_t c) {
  if (c < 0x20 || c == 0x7f) return -1;
  if (c < 0x7f) return 1;
  // glibc's tables, which need a UTF-8 locale (the program and the tests set one).
  return ::wcwidth(static_cast<wchar_t>(c));
}

void appendUtf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

namespace {

// Length of the UTF-8 sequence led by `b`; 0 for a byte that cannot lead one.
int sequenceLength(unsigned char b) {
  if (b < 0x80) return 1;
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 3;
  if ((b & 0xF8) == 0xF0) return 4;
  return 0;
}

}  // namespace

std::u32string decodeUtf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const int n = sequenceLength(b);
    if (n == 0 || i + static_cast<size_t>(n) > s.size()) {
      out += U'\uFFFD';
      ++i;
      continue;
    }
    char32_t c = n == 1 ? b : (b & (0x7F >> n));
    bool ok = true;
    for (int k = 1; k < n; ++k) {
      const auto t = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
      ok = ok && (t & 0xC0) == 0x80;
      c = (c << 6) | (t & 0x3F);
    }
    out += ok ? c : U'\uFFFD';
    i += ok ? static_cast<size_t>(n) : 1;
  }
  return out;
}

int textWidth(std::string_view utf8) {
  int w = 0;
  for (char32_t c : decodeUtf8(utf8)) w += std::max(0, charWidth(c));
  return w;
}

Screen::Screen(int width, int height, bool ascii)
    : width_(std::max(0, width)),
      height_(std::max(0, height)),
      ascii_(ascii),
      cells_(static_cast<size_t>(width_ * height_)) {}

const Cell& Screen::at(int x, int y) const {
  return cells_[static_cast<size_t>(y * width_ + x)];
}

int Screen::putChar(int x, int y, char32_t c, Role role) {
  if (ascii_ && c >= 0x80) c = U'?';
  int w = charWidth(c);
  if (w == 0) return 0;  // a combining mark: dropped rather than mis-counted
  if (w < 0) c = U'?', w = 1;
  if (!inside(x, y)) return w;
  if (w == 2 && x + 1 >= width_) {
    cell(x, y) = Cell{U' ', role, 1};  // half a wide character would garble the line
    return 1;
  }
  // Overwriting half of an earlier wide character blanks its other half.
  if (cell(x, y).width == 0 && x > 0) cell(x - 1, y) = Cell{U' ', cell(x - 1, y).role, 1};
  if (cell(x, y).width == 2 && x + 1 < width_) cell(x + 1, y) = Cell{U' ', role, 1};
  cell(x, y) = Cell{c, role, static_cast<uint8_t>(w)};
  if (w == 2) cell(x + 1, y) = Cell{U' ', role, 0};
  return w;
}

int Screen::put(int x, int y, std::string_view utf8, Role role, int maxWidth) {
  int used = 0;
  for (char32_t c : decodeUtf8(utf8)) {
    const int w = std::max(0, charWidth(ascii_ && c >= 0x80 ? U'?' : c));
    if (used + w > maxWidth || x + used >= width_) {
      if (used < maxWidth && w == 2) used += putChar(x + used, y, U' ', role);
      break;
    }
    used += putChar(x + used, y, c, role);
  }
  return used;
}

void Screen::fill(int x, int y, int w, int h, char32_t c, Role role) {
  for (int r = y; r < y + h; ++r)
    for (int col = x; col < x + w; col += std::max(1, charWidth(c))) putChar(col, r, c, role);
}

void Screen::paintRow(int y, Role role, int x, int w) {
  if (y < 0 || y >= height_) return;
  for (int col = std::max(0, x); col < std::min(width_, x + w); ++col) cell(col, y).role = role;
}

std::string Screen::rowText(int y) const {
  std::string line;
  for (int x = 0; x < width_; ++x)
    if (at(x, y).width > 0) appendUtf8(line, at(x, y).ch);
  return line;
}

std::string Screen::dump(bool roles) const {
  std::string out;
  for (int y = 0; y < height_; ++y) out += rowText(y) + "\n";
  if (!roles) return out;
  out += "--- roles\n";
  for (int y = 0; y < height_; ++y) {
    for (int x = 0; x < width_; ++x) out += roleLetter(at(x, y).role);
    out += "\n";
  }
  return out;
}

}  // namespace tessera::tui
