// SPDX-License-Identifier: Apache-2.0
// A small SVG line chart for simdbloom-bench's default run (demo.cc): panels side by side, a log2
// x axis (bytes), a log y axis (ns per key), one polyline per series, vertical marks at the cache
// sizes. Written by the benchmark itself, so that the demo needs no plotting package.
#ifndef SIMDBLOOM_PERF_PLOT_SVG_H_
#define SIMDBLOOM_PERF_PLOT_SVG_H_

#include <string>
#include <utility>
#include <vector>

namespace sbbench {

struct PlotSeries {
  std::string name;
  std::string color;                          // an SVG colour: "#1f77b4"
  bool dashed = false;                        // the physical reference
  std::vector<std::pair<double, double>> xy;  // (bytes, ns per key), x ascending, y > 0
};

struct PlotPanel {
  std::string title;
  std::vector<PlotSeries> series;
};

struct PlotMark {  // a vertical line at x, labelled (a cache size)
  double x;
  std::string label;
};

// Writes the chart to `path`. Returns false if the file cannot be written. The SVG is one <svg>
// element with a <title>, a <desc> (`desc`: how the figures were made), one <g class="panel"> per
// panel holding one <polyline class="series"
// data-name="..."> per series with at least two points, and the legend.
bool WriteSvgPlot(const std::string& path, const std::string& title, const std::string& subtitle,
                  const std::string& desc, const std::vector<PlotPanel>& panels,
                  const std::vector<PlotMark>& marks);

}  // namespace sbbench

#endif  // SIMDBLOOM_PERF_PLOT_SVG_H_
