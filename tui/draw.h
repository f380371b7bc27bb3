#pragma once
// Drawing helpers the views share: tables with columns that drop out on narrow terminals, bars,
// sparklines and word wrapping. Internal to the tui library.
#include <functional>
#include <string>
#include <vector>

#include "screen.h"
#include "state.h"

namespace tessera::tui {

struct Column {
  std::string title;
  int width = 8;
  bool right = false;  // numbers
  int keep = 5;        // higher stays longer when the terminal is narrow
  bool flex = false;   // takes the width that is left (at most one column)
};

struct TableCell {
  std::string text;
  Role role = Role::Normal;
  // Draws the cell instead of the text (bars, MIG slices) in the box (x, y, width).
  std::function<void(Screen&, int x, int y, int width)> paint = nullptr;
};
using TableRow = std::vector<TableCell>;

// Which columns fit `width` (indexes in order) and their widths, the flex column widened.
struct Fitted {
  std::vector<size_t> shown;
  std::vector<int> widths;
};
Fitted fitColumns(const std::vector<Column>& columns, int width);

// Draws header and rows from `top` in the box (x, y, w, h), scrolled so that `selected` shows;
// `groupOf(i)`, when non-empty for a row that starts a group, draws a group line before it.
struct TableView {
  std::vector<Column> columns;
  std::vector<TableRow> rows;
  std::vector<std::string> groups;  // per row: a group title starting there, or empty
  int selected = -1;
};
void drawTable(Screen& scr, const TableView& t, int x, int y, int w, int h);

// A bar of `width` cells filled to `fraction` in eighths; the rest in Dim.
void drawBar(Screen& scr, const Glyphs& g, int x, int y, int width, double fraction, Role role);
// The last `width` values (0..1) as a sparkline.
void drawSparkline(Screen& scr, const Glyphs& g, int x, int y, int width,
                   const std::vector<double>& values, Role role);
// Splits text into lines of at most `width` columns at spaces (long words are cut).
std::vector<std::string> wrap(const std::string& text, int width);
// The role of a utilization fraction: light, moderate, heavy (nvitop's thresholds).
Role loadRole(double fraction);
// Top line index so that `selected` is inside a window of `height` lines.
int scrollTop(int selected, int count, int height);

}  // namespace tessera::tui
