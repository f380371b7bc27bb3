#include "cli/chart.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace tessera::cli {
namespace {

constexpr double kWidth = 800, kHeight = 480;
constexpr double kLeft = 70, kRight = 190, kTop = 40, kBottom = 60;
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

struct Range {
  double lo = 0, hi = 1;
  void widen() {
    if (hi - lo < 1e-9) hi = lo + 1;
  }
};

// A "nice" tick step (1, 2 or 5 x 10^k) giving about five ticks.
double tickStep(const Range& r) {
  const double raw = (r.hi - r.lo) / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

std::string number(double v) {
  std::ostringstream o;
  o << (std::abs(v) >= 100 || v == std::floor(v) ? std::fixed : std::defaultfloat);
  o.precision(std::abs(v) >= 100 || v == std::floor(v) ? 0 : 3);
  o << v;
  return o.str();
}

// The document's opening: white background and the title centred on top.
void svgHead(std::ostringstream& o, double width, const std::string& title) {
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << kHeight
    << "\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << width / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">"
    << escape(title) << "</text>\n";
}

}  // namespace

std::string chartSvg(const Chart& chart) {
  Range x{1e300, -1e300}, y{1e300, -1e300};
  for (const auto& s : chart.series)
    for (auto [px, py] : s.points) {
      if (!std::isfinite(px) || !std::isfinite(py)) continue;
      x.lo = std::min(x.lo, px), x.hi = std::max(x.hi, px);
      y.lo = std::min(y.lo, py), y.hi = std::max(y.hi, py);
    }
  if (x.lo > x.hi) x = {0, 1}, y = {0, 1};
  x.widen();
  const double pad = (y.hi - y.lo) * 0.05;
  y = {y.lo - pad, y.hi + pad};
  y.widen();
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  auto sx = [&](double v) { return kLeft + (v - x.lo) / (x.hi - x.lo) * pw; };
  auto sy = [&](double v) { return kTop + ph - (v - y.lo) / (y.hi - y.lo) * ph; };
  std::ostringstream o;
  svgHead(o, kWidth, chart.title);
  for (int axis = 0; axis < 2; ++axis) {
    const Range& r = axis == 0 ? x : y;
    const double step = tickStep(r);
    for (double t = std::ceil(r.lo / step) * step; t <= r.hi + 1e-9; t += step) {
      if (axis == 0)
        o << "<line x1=\"" << sx(t) << "\" y1=\"" << kTop << "\" x2=\"" << sx(t) << "\" y2=\""
          << kTop + ph << "\" stroke=\"#e5e5e5\"/><text x=\"" << sx(t) << "\" y=\""
          << kTop + ph + 18 << "\" text-anchor=\"middle\">" << number(t) << "</text>\n";
      else
        o << "<line x1=\"" << kLeft << "\" y1=\"" << sy(t) << "\" x2=\"" << kLeft + pw << "\" y2=\""
          << sy(t) << "\" stroke=\"#e5e5e5\"/><text x=\"" << kLeft - 8 << "\" y=\"" << sy(t) + 4
          << "\" text-anchor=\"end\">" << number(t) << "</text>\n";
    }
  }
  o << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"none\" stroke=\"#333\"/>\n"
    << "<text x=\"" << kLeft + pw / 2 << "\" y=\"" << kHeight - 16 << "\" text-anchor=\"middle\">"
    << escape(chart.xLabel) << "</text>\n"
    << "<text transform=\"translate(18," << kTop + ph / 2
    << ") rotate(-90)\" text-anchor=\"middle\">" << escape(chart.yLabel) << "</text>\n";
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const auto& s = chart.series[i];
    const char* color = kColors[i % std::size(kColors)];
    o << "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" << color << "\" points=\"";
    for (auto [px, py] : s.points)
      if (std::isfinite(px) && std::isfinite(py)) o << sx(px) << ',' << sy(py) << ' ';
    o << "\"/>\n";
    if (s.points.size() == 1)  // a lone point draws no line: mark it
      o << "<circle r=\"4\" fill=\"" << color << "\" cx=\"" << sx(s.points[0].first) << "\" cy=\""
        << sy(s.points[0].second) << "\"/>\n";
    const double ly = kTop + 10 + double(i) * 20;
    o << "<line x1=\"" << kLeft + pw + 14 << "\" y1=\"" << ly << "\" x2=\"" << kLeft + pw + 38
      << "\" y2=\"" << ly << "\" stroke-width=\"3\" stroke=\"" << color << "\"/><text x=\""
      << kLeft + pw + 44 << "\" y=\"" << ly + 4 << "\">" << escape(s.name) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

namespace {

Status writeSvg(const std::string& svg, double width, double height, const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".svg") {
    std::ofstream f(path);
    f << svg;
    if (!f) return Error{"cannot write " + path, {}};
    return okStatus();
  }
  if (ext != ".png") return Error{"chart file must end in .svg or .png: " + path, {}};
  // Text needs a GUI application (fonts); the command line has none, so make an offscreen one.
  std::unique_ptr<QGuiApplication> app;
  if (!QGuiApplication::instance()) {
    static int argc = 3;
    static char arg0[] = "tessera", arg1[] = "-platform", arg2[] = "offscreen";
    static char* argv[] = {arg0, arg1, arg2, nullptr};
    app = std::make_unique<QGuiApplication>(argc, argv);
  }
  QSvgRenderer renderer(QByteArray::fromStdString(svg));
  QImage image(static_cast<int>(width), static_cast<int>(height), QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  renderer.render(&painter);
  painter.end();
  if (!image.save(QString::fromStdString(path))) return Error{"cannot write " + path, {}};
  return okStatus();
}

constexpr double kBar = 16, kGroupGap = 24, kPanelGap = 60;

double groupWidth(const BarChart& c) {
  return kBar * double(std::max<size_t>(1, c.series.size())) + kGroupGap;
}

// Wide enough for its title at 13 px (about 7.5 px a character) as well as its bars.
double panelWidth(const BarChart& c, const BarPanel& p) {
  return std::max(groupWidth(c) * double(std::max<size_t>(1, p.groups.size())),
                  7.5 * double(p.title.size()));
}

double barChartWidth(const BarChart& c) {
  double w = kLeft + kRight;
  for (const auto& p : c.panels) w += panelWidth(c, p) + kPanelGap;
  return std::max(w - kPanelGap, 400.0);
}

// One panel's axis, ticks and bars, its left edge at x0; the scale starts at zero.
void barPanelSvg(std::ostringstream& o, const BarChart& c, const BarPanel& p, double x0) {
  const double pw = panelWidth(c, p), ph = kHeight - kTop - kBottom - 30;
  Range y{0, 0};
  for (const auto& row : p.values)
    for (double v : row)
      if (std::isfinite(v)) y.hi = std::max(y.hi, v * 1.05);
  y.widen();
  auto sy = [&](double v) { return kTop + 20 + ph - (v - y.lo) / (y.hi - y.lo) * ph; };
  o << "<text x=\"" << x0 + pw / 2 << "\" y=\"" << kTop + 10
    << "\" text-anchor=\"middle\" font-size=\"13\">" << escape(p.title) << "</text>\n";
  const double step = tickStep(y);
  for (double t = 0; t <= y.hi + 1e-9; t += step)
    o << "<line x1=\"" << x0 << "\" y1=\"" << sy(t) << "\" x2=\"" << x0 + pw << "\" y2=\"" << sy(t)
      << "\" stroke=\"#e5e5e5\"/><text x=\"" << x0 - 6 << "\" y=\"" << sy(t) + 4
      << "\" text-anchor=\"end\">" << number(t) << "</text>\n";
  for (size_t g = 0; g < p.groups.size(); ++g) {
    const double slot = pw / double(p.groups.size());
    const double gx = x0 + slot * double(g) + (slot - kBar * double(c.series.size())) / 2;
    for (size_t s = 0; s < p.values.size() && s < c.series.size(); ++s) {
      const double v = g < p.values[s].size() ? p.values[s][g] : NAN;
      if (!std::isfinite(v)) continue;
      o << "<rect x=\"" << gx + kBar * double(s) << "\" y=\"" << sy(v) << "\" width=\"" << kBar - 2
        << "\" height=\"" << sy(0) - sy(v) << "\" fill=\"" << kColors[s % std::size(kColors)]
        << "\"><title>" << escape(c.series[s]) << ": " << number(v) << "</title></rect>\n";
    }
    const double cx = gx + kBar * double(c.series.size()) / 2;
    o << "<text transform=\"translate(" << cx << "," << sy(0) + 14
      << ") rotate(-25)\" text-anchor=\"end\" font-size=\"11\">" << escape(p.groups[g])
      << "</text>\n";
  }
  o << "<rect x=\"" << x0 << "\" y=\"" << sy(y.hi) << "\" width=\"" << pw << "\" height=\""
    << sy(0) - sy(y.hi) << "\" fill=\"none\" stroke=\"#333\"/>\n";
}

}  // namespace

std::string barChartSvg(const BarChart& chart) {
  const double width = barChartWidth(chart);
  std::ostringstream o;
  svgHead(o, width, chart.title);
  double x = kLeft;
  for (const auto& p : chart.panels) {
    barPanelSvg(o, chart, p, x);
    x += panelWidth(chart, p) + kPanelGap;
  }
  const double legendX = width - kRight + 20;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const double ly = kTop + 30 + double(i) * 20;
    o << "<rect x=\"" << legendX << "\" y=\"" << ly - 6 << "\" width=\"20\" height=\"12\" fill=\""
      << kColors[i % std::size(kColors)] << "\"/><text x=\"" << legendX + 26 << "\" y=\"" << ly + 4
      << "\">" << escape(chart.series[i]) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

Status writeChart(const Chart& chart, const std::string& path) {
  return writeSvg(chartSvg(chart), kWidth, kHeight, path);
}

Status writeChart(const BarChart& chart, const std::string& path) {
  return writeSvg(barChartSvg(chart), barChartWidth(chart), kHeight, path);
}

}  // namespace tessera::cli
