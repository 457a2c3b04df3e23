// SPDX-License-Identifier: Apache-2.0
// The SVG line chart of plot_svg.h: plain text output, no dependency.
#include "plot_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace sbbench {
namespace {

std::string Escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    switch (c) {
      case '&':
        r += "&amp;";
        break;
      case '<':
        r += "&lt;";
        break;
      case '>':
        r += "&gt;";
        break;
      case '"':
        r += "&quot;";
        break;
      default:
        r += c;
    }
  }
  return r;
}

std::string Bytes(double b) {
  char buf[32];
  if (b >= 1024.0 * 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%g GiB", b / (1024.0 * 1024 * 1024));
  } else if (b >= 1024.0 * 1024) {
    std::snprintf(buf, sizeof buf, "%g MiB", b / (1024.0 * 1024));
  } else if (b >= 1024.0) {
    std::snprintf(buf, sizeof buf, "%g KiB", b / 1024.0);
  } else {
    std::snprintf(buf, sizeof buf, "%g B", b);
  }
  return buf;
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

bool WriteSvgPlot(const std::string& path, const std::string& title, const std::string& subtitle,
                  const std::string& desc, const std::vector<PlotPanel>& panels,
                  const std::vector<PlotMark>& marks) {
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
  for (const PlotPanel& p : panels) {
    for (const PlotSeries& s : p.series) {
      for (const auto& [x, y] : s.xy) {
        if (!(x > 0) || !(y > 0)) continue;
        xmin = std::min(xmin, x), xmax = std::max(xmax, x);
        ymin = std::min(ymin, y), ymax = std::max(ymax, y);
      }
    }
  }
  if (panels.empty() || !(xmax > xmin) || !(ymax > 0)) return false;
  const double lx0 = std::log2(xmin), lx1 = std::log2(xmax);
  // y from the 1-2-5 step at or below the smallest value to the one at or above the largest.
  auto step = [](double v, bool up) {
    const double e = std::floor(std::log10(v));
    double best = up ? 10 * std::pow(10.0, e) : std::pow(10.0, e);
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
      const double c = m * std::pow(10.0, e);
      if (up && c >= v * (1 - 1e-12)) return c;
      if (!up && c <= v * (1 + 1e-12)) best = c;
    }
    return best;
  };
  const double ly0 = std::log10(step(ymin, false)), ly1 = std::log10(step(ymax, true));

  const double panel_w = 460, panel_h = 330, left = 70, top = 78, gap = 90;
  const double width = left + panels.size() * panel_w + (panels.size() - 1) * gap + 30;
  const double height = top + panel_h + 120;
  std::string svg;
  svg += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(width) + "\" height=\"" +
         Num(height) + "\" viewBox=\"0 0 " + Num(width) + " " + Num(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<title>" + Escape(title) + "</title>\n";
  svg += "<desc>" + Escape(desc) + "</desc>\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + Num(width / 2) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" " +
         "font-weight=\"bold\">" + Escape(title) + "</text>\n";
  svg += "<text x=\"" + Num(width / 2) + "\" y=\"44\" text-anchor=\"middle\">" + Escape(subtitle) +
         "</text>\n";

  for (size_t pi = 0; pi < panels.size(); ++pi) {
    const PlotPanel& p = panels[pi];
    const double x0 = left + pi * (panel_w + gap), y0 = top;
    auto px = [&](double x) { return x0 + (std::log2(x) - lx0) / (lx1 - lx0) * panel_w; };
    auto py = [&](double y) {
      return y0 + panel_h - (std::log10(y) - ly0) / (ly1 - ly0) * panel_h;
    };
    svg += "<g class=\"panel\">\n";
    svg += "<text x=\"" + Num(x0 + panel_w / 2) + "\" y=\"" + Num(y0 - 10) +
           "\" text-anchor=\"middle\" font-weight=\"bold\">" + Escape(p.title) + "</text>\n";
    svg += "<rect x=\"" + Num(x0) + "\" y=\"" + Num(y0) + "\" width=\"" + Num(panel_w) +
           "\" height=\"" + Num(panel_h) + "\" fill=\"none\" stroke=\"#444\"/>\n";
    // y grid and ticks: 1, 2, 5 x 10^e.
    for (double e = std::floor(ly0 + 1e-9); e <= ly1; ++e) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, e);
        if (std::log10(v) < ly0 - 1e-9) continue;
        if (std::log10(v) > ly1 + 1e-9) break;
        const double y = py(v);
        svg += "<line x1=\"" + Num(x0) + "\" x2=\"" + Num(x0 + panel_w) + "\" y1=\"" + Num(y) +
               "\" y2=\"" + Num(y) + "\" stroke=\"#ddd\"/>\n";
        char label[32];
        std::snprintf(label, sizeof label, "%g", v);
        svg += "<text x=\"" + Num(x0 - 6) + "\" y=\"" + Num(y + 4) + "\" text-anchor=\"end\">" +
               label + "</text>\n";
      }
    }
    // x ticks: every power of 4 in range.
    for (double e = std::ceil(lx0); e <= lx1 + 1e-9; ++e) {
      if (static_cast<long>(e) % 2 != 0) continue;
      const double x = px(std::exp2(e));
      svg += "<line x1=\"" + Num(x) + "\" x2=\"" + Num(x) + "\" y1=\"" + Num(y0 + panel_h) +
             "\" y2=\"" + Num(y0 + panel_h + 5) + "\" stroke=\"#444\"/>\n";
      svg += "<text x=\"" + Num(x) + "\" y=\"" + Num(y0 + panel_h + 18) +
             "\" text-anchor=\"middle\">" + Escape(Bytes(std::exp2(e))) + "</text>\n";
    }
    svg += "<text x=\"" + Num(x0 + panel_w / 2) + "\" y=\"" + Num(y0 + panel_h + 38) +
           "\" text-anchor=\"middle\">filter size (log scale)</text>\n";
    svg += "<text transform=\"translate(" + Num(x0 - 48) + "," + Num(y0 + panel_h / 2) +
           ") rotate(-90)\" text-anchor=\"middle\">ns per key (log scale)</text>\n";
    // Cache sizes.
    for (const PlotMark& m : marks) {
      if (!(m.x >= xmin && m.x <= xmax)) continue;
      const double x = px(m.x);
      svg += "<line class=\"cache\" x1=\"" + Num(x) + "\" x2=\"" + Num(x) + "\" y1=\"" + Num(y0) +
             "\" y2=\"" + Num(y0 + panel_h) + "\" stroke=\"#999\" stroke-dasharray=\"2,3\"/>\n";
      svg += "<text x=\"" + Num(x + 3) + "\" y=\"" + Num(y0 + 14) + "\" fill=\"#666\">" +
             Escape(m.label) + "</text>\n";
    }
    for (const PlotSeries& s : p.series) {
      std::string pts;
      size_t count = 0;
      for (const auto& [x, y] : s.xy) {
        if (!(x > 0) || !(y > 0)) continue;
        pts += (count++ ? " " : "") + Num(px(x)) + "," + Num(py(y));
      }
      if (count < 2) continue;
      svg += "<polyline class=\"series\" data-name=\"" + Escape(s.name) +
             "\" fill=\"none\" stroke=\"" + s.color + "\" stroke-width=\"" +
             (s.dashed ? "2.5" : "2") + "\"" + (s.dashed ? " stroke-dasharray=\"7,4\"" : "") +
             " points=\"" + pts + "\"/>\n";
    }
    svg += "</g>\n";
  }
  // Legend: the series of the first panel, four to a row (the panels share their names).
  const std::vector<PlotSeries>& legend = panels.front().series;
  const double ly = top + panel_h + 62;
  for (size_t i = 0; i < legend.size(); ++i) {
    const double x = left + (i % 4) * 250, y = ly + (i / 4) * 20;
    svg += "<line x1=\"" + Num(x) + "\" x2=\"" + Num(x + 28) + "\" y1=\"" + Num(y - 4) +
           "\" y2=\"" + Num(y - 4) + "\" stroke=\"" + legend[i].color + "\" stroke-width=\"2\"" +
           (legend[i].dashed ? " stroke-dasharray=\"7,4\"" : "") + "/>\n";
    svg += "<text x=\"" + Num(x + 34) + "\" y=\"" + Num(y) + "\">" + Escape(legend[i].name) +
           "</text>\n";
  }
  svg += "</svg>\n";

  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(svg.data(), 1, svg.size(), f) == svg.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace sbbench
