#include "draw.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tessera::tui {

Fitted fitColumns(const std::vector<Column>& columns, int width) {
  std::vector<size_t> shown(columns.size());
  std::iota(shown.begin(), shown.end(), size_t{0});
  const auto need = [&] {
    int sum = 0;
    for (size_t i : shown) sum += columns[i].width + 1;
    return sum - 1;
  };
  // Drop the least important column until the rest fit; the first column always stays.
  while (shown.size() > 1 && need() > width) {
    auto victim = std::min_element(shown.begin() + 1, shown.end(), [&](size_t a, size_t b) {
      return columns[a].keep < columns[b].keep;
    });
    shown.erase(victim);
  }
  Fitted f{shown, {}};
  for (size_t i : shown) f.widths.push_back(columns[i].width);
  const int spare = width - need();
  for (size_t k = 0; k < shown.size(); ++k)
    if (columns[shown[k]].flex && spare > 0) f.widths[k] += spare;
  if (need() > width && !f.widths.empty()) f.widths[0] = std::max(1, width);
  return f;
}

int scrollTop(int selected, int count, int height) {
  if (height <= 0 || count <= height) return 0;
  const int top = std::clamp(selected - height / 2, 0, count - height);
  return top;
}

namespace {

void drawCell(Screen& scr, const TableCell& c, const Column& col, int x, int y, int w) {
  if (c.paint) return c.paint(scr, x, y, w);
  const int tw = textWidth(c.text);
  const int pad = col.right && tw < w ? w - tw : 0;
  scr.put(x + pad, y, c.text, c.role, w - pad);
}

}  // namespace

void drawTable(Screen& scr, const TableView& t, int x, int y, int w, int h) {
  if (h <= 0) return;
  const Fitted f = fitColumns(t.columns, w);
  int cx = x;
  for (size_t k = 0; k < f.shown.size(); ++k) {
    drawCell(scr, {t.columns[f.shown[k]].title, Role::Header}, t.columns[f.shown[k]], cx, y,
             f.widths[k]);
    cx += f.widths[k] + 1;
  }
  scr.paintRow(y, Role::Header, x, w);
  // Lines: group titles and rows interleaved.
  struct Line {
    int row;  // -1 for a group title
    const std::string* group;
  };
  std::vector<Line> lines;
  int selectedLine = 0;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (r < t.groups.size() && !t.groups[r].empty()) lines.push_back({-1, &t.groups[r]});
    if (static_cast<int>(r) == t.selected) selectedLine = static_cast<int>(lines.size());
    lines.push_back({static_cast<int>(r), nullptr});
  }
  const int rowsH = h - 1;
  const int top = scrollTop(selectedLine, static_cast<int>(lines.size()), rowsH);
  for (int i = 0; i < rowsH && top + i < static_cast<int>(lines.size()); ++i) {
    const Line& line = lines[static_cast<size_t>(top + i)];
    const int ly = y + 1 + i;
    if (line.row < 0) {
      scr.put(x, ly, *line.group, Role::Accent, w);
      continue;
    }
    const TableRow& row = t.rows[static_cast<size_t>(line.row)];
    cx = x;
    for (size_t k = 0; k < f.shown.size(); ++k) {
      const size_t c = f.shown[k];
      if (c < row.size()) drawCell(scr, row[c], t.columns[c], cx, ly, f.widths[k]);
      cx += f.widths[k] + 1;
    }
    if (line.row == t.selected) scr.paintRow(ly, Role::Selected, x, w);
  }
}

void drawBar(Screen& scr, const Glyphs& g, int x, int y, int width, double fraction, Role role) {
  const int eighths = static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * width * 8));
  for (int i = 0; i < width; ++i) {
    const int e = std::clamp(eighths - i * 8, 0, 8);
    if (e == 0)
      scr.putChar(x + i, y, g.unicode ? U' ' : U'.', Role::Dim);
    else
      scr.putChar(x + i, y, g.eighths[static_cast<size_t>(e)], role);
  }
}

void drawSparkline(Screen& scr, const Glyphs& g, int x, int y, int width,
                   const std::vector<double>& values, Role role) {
  const size_t n = std::min(values.size(), static_cast<size_t>(std::max(0, width)));
  const size_t first = values.size() - n;
  for (size_t i = 0; i < n; ++i) {
    const int level = static_cast<int>(std::lround(std::clamp(values[first + i], 0.0, 1.0) * 7));
    scr.putChar(x + static_cast<int>(i), y, g.spark[static_cast<size_t>(level)], role);
  }
}

std::vector<std::string> wrap(const std::string& text, int width) {
  std::vector<std::string> lines;
  if (width <= 0) return lines;
  // Leading spaces are an indent, kept on the first line.
  size_t i = text.find_first_not_of(' ');
  if (i == std::string::npos) i = text.size();
  std::string line(i, ' ');
  int lineW = static_cast<int>(i);
  while (i <= text.size()) {
    size_t end = text.find(' ', i);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(i, end - i);
    int ww = textWidth(word);
    if (lineW > 0 && lineW + 1 + ww > width) {
      lines.push_back(line);
      line.clear();
      lineW = 0;
    }
    if (lineW > 0 && !line.ends_with(' ')) line += ' ', ++lineW;
    line += word;
    lineW += ww;
    i = end + 1;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;  // a word wider than `width` stays whole: put() clips it
}

Role loadRole(double fraction) {
  if (fraction < 0.34) return Role::Ok;
  if (fraction < 0.67) return Role::Warn;
  return Role::Bad;
}

}  // namespace tessera::tui
