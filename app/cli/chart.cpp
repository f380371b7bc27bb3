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
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
    << "\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << kWidth / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">"
    << escape(chart.title) << "</text>\n";
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

Status writeChart(const Chart& chart, const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  const std::string svg = chartSvg(chart);
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
  QImage image(static_cast<int>(kWidth), static_cast<int>(kHeight), QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  renderer.render(&painter);
  painter.end();
  if (!image.save(QString::fromStdString(path))) return Error{"cannot write " + path, {}};
  return okStatus();
}

}  // namespace tessera::cli
