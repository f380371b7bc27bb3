#pragma once
// Line charts for the simulator's comparisons, written as SVG (by hand: a few dozen elements) or
// PNG (the same SVG rendered offscreen with Qt SVG). People would rather look than read.
#include <string>
#include <vector>

#include "core/expected.h"

namespace tessera::cli {

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};

struct Chart {
  std::string title;
  std::string xLabel, yLabel;
  std::vector<ChartSeries> series;
};

// Grouped bars side by side in panels of their own scale: one bar per series in every group.
struct BarPanel {
  std::string title;
  std::vector<std::string> groups;
  std::vector<std::vector<double>> values;  // [series][group]; NaN = no value (no bar)
};

struct BarChart {
  std::string title;
  std::vector<std::string> series;
  std::vector<BarPanel> panels;
};

std::string chartSvg(const Chart& chart);
std::string barChartSvg(const BarChart& chart);
// Write SVG or PNG by the file's extension (.svg, .png); other extensions are an error.
Status writeChart(const Chart& chart, const std::string& path);
Status writeChart(const BarChart& chart, const std::string& path);

}  // namespace tessera::cli
