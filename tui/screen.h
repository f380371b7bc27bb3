#pragma once
// The screen model: a grid of cells, each one code point with its display width, and a colour
// role (what the cell means, not which colour it gets: the terminal writer maps roles to colours
// or, in monochrome, to attributes). Views draw into a Screen and know nothing of the terminal,
// so tests compare screens as text (golden files) and the writer compares two screens to rewrite
// only the cells that changed.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::tui {

// What a cell means. The golden dumps write each as one letter (roleLetter).
enum class Role : uint8_t {
  Normal,
  Dim,       // secondary text, empty GPUs, rules
  Title,     // the header line
  Header,    // table column titles
  Selected,  // the selected row
  Key,       // a key in the hints line
  Ok,
  Warn,
  Bad,
  Accent,  // prompt, filter, counts that matter
  Heat0,   // heat levels, low to high (heatmap layers and bars)
  Heat1,
  Heat2,
  Heat3,
  Heat4,
};
inline constexpr int kRoleCount = static_cast<int>(Role::Heat4) + 1;
char roleLetter(Role r);

struct Cell {
  char32_t ch = U' ';
  Role role = Role::Normal;
  // Columns the glyph takes: 1, or 2 for a wide (CJK) character, whose second cell has width 0
  // and is never written on its own.
  uint8_t width = 1;
  friend bool operator==(const Cell&, const Cell&) = default;
};

// Display width of one code point as the terminal counts it (wcwidth); 0 for combining marks,
// -1 for control characters.
int charWidth(char32_t c);
// Display width of UTF-8 text (what put() would take with no limit).
int textWidth(std::string_view utf8);

class Screen {
 public:
  Screen(int width, int height, bool ascii = false);
  [[nodiscard]] int width() const { return width_; }
  [[nodiscard]] int height() const { return height_; }
  // Whether only ASCII may be drawn (LANG=C, TERM=vt100): other characters become '?'.
  [[nodiscard]] bool ascii() const { return ascii_; }
  [[nodiscard]] const Cell& at(int x, int y) const;

  // Writes UTF-8 text at (x, y), clipped to `maxWidth` columns and to the screen; a wide
  // character that does not fit whole is replaced by a space. Returns the columns used.
  int put(int x, int y, std::string_view utf8, Role role, int maxWidth = 1 << 20);
  // One code point (a glyph of the Glyphs table), width counted.
  int putChar(int x, int y, char32_t c, Role role);
  void fill(int x, int y, int w, int h, char32_t c, Role role);
  // Gives every cell of the row `role`, keeping the characters (the selection bar).
  void paintRow(int y, Role role, int x = 0, int w = 1 << 20);

  // The text, one line per row (trailing spaces kept), and with `roles` a second block with one
  // letter per cell: what the golden files hold.
  [[nodiscard]] std::string dump(bool roles = true) const;
  [[nodiscard]] std::string rowText(int y) const;
  friend bool operator==(const Screen&, const Screen&) = default;

 private:
  [[nodiscard]] bool inside(int x, int y) const {
    return x >= 0 && y >= 0 && x < width_ && y < height_;
  }
  Cell& cell(int x, int y) { return cells_[static_cast<size_t>(y * width_ + x)]; }
  int width_ = 0;
  int height_ = 0;
  bool ascii_ = false;
  std::vector<Cell> cells_;
};

// UTF-8 for one code point.
void appendUtf8(std::string& out, char32_t c);
// Decodes UTF-8; malformed bytes become U+FFFD.
std::u32string decodeUtf8(std::string_view s);

}  // namespace tessera::tui
