package dev.weir.benchmarks.overload;

import java.util.List;
import java.util.Locale;

/** A line chart as SVG text, written here without any external tool: axes, ticks, a legend. */
final class Svg {

  /** One line: a name, a colour, and a value per second (NaN or negative for none). */
  record Line(String name, String colour, double[] values, boolean dashed) {
  }

  private static final int WIDTH = 1000;
  private static final int HEIGHT = 420;
  private static final int LEFT = 70;
  private static final int RIGHT = 230;
  private static final int TOP = 40;
  private static final int BOTTOM = 50;

  private Svg() {
  }

  static String chart(String title, String yLabel, List<Line> lines, double yMax, List<double[]> marks) {
    int plotW = WIDTH - LEFT - RIGHT;
    int plotH = HEIGHT - TOP - BOTTOM;
    int seconds = lines.get(0).values().length;
    StringBuilder svg = new StringBuilder();
    svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
        + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"13\">%n", WIDTH, HEIGHT, WIDTH, HEIGHT));
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">%s</text>%n",
        LEFT, escape(title)));
    // marks: vertical lines at times (seconds) with a label
    for (double[] mark : marks) {
      double x = LEFT + plotW * mark[0] / seconds;
      svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#bbb\" "
          + "stroke-dasharray=\"4 4\"/>%n", x, TOP, x, TOP + plotH));
    }
    // y axis and grid
    double step = niceStep(yMax / 5);
    for (double y = 0; y <= yMax + 1e-9; y += step) {
      double py = TOP + plotH - plotH * y / yMax;
      svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>%n",
          LEFT, py, LEFT + plotW, py));
      svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT - 6,
          py + 4, format(y)));
    }
    // x axis: seconds
    double xStep = niceStep(seconds / 8.0);
    for (double s = 0; s <= seconds; s += xStep) {
      double px = LEFT + plotW * s / seconds;
      svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>%n",
          px, TOP + plotH, px, TOP + plotH + 5));
      svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", px,
          TOP + plotH + 20, format(s)));
    }
    svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (s, driven)</text>%n",
        LEFT + plotW / 2, HEIGHT - 8));
    svg.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" "
        + "text-anchor=\"middle\">%s</text>%n", TOP + plotH / 2, TOP + plotH / 2, escape(yLabel)));
    svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
        + "stroke=\"#333\"/>%n", LEFT, TOP, plotW, plotH));
    int legendY = TOP + 10;
    for (Line line : lines) {
      StringBuilder points = new StringBuilder();
      double[] values = line.values();
      for (int i = 0; i < values.length; i++) {
        double v = values[i];
        if (Double.isNaN(v) || v < 0) {
          if (points.length() > 0) {
            polyline(svg, points, line);
            points.setLength(0);
          }
          continue;
        }
        double px = LEFT + plotW * (i + 0.5) / seconds;
        double py = TOP + plotH - plotH * Math.min(v, yMax) / yMax;
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
      }
      if (points.length() > 0) {
        polyline(svg, points, line);
      }
      svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
          + "stroke-width=\"2\"%s/>%n", LEFT + plotW + 12, legendY, LEFT + plotW + 36, legendY, line.colour(),
          line.dashed() ? " stroke-dasharray=\"6 4\"" : ""));
      svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", LEFT + plotW + 42, legendY + 4,
          escape(line.name())));
      legendY += 20;
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  private static void polyline(StringBuilder svg, StringBuilder points, Line line) {
    svg.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s points=\"%s\"/>%n",
        line.colour(), line.dashed() ? " stroke-dasharray=\"6 4\"" : "", points.toString().trim()));
  }

  private static double niceStep(double raw) {
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    double n = raw / magnitude;
    return (n < 1.5 ? 1 : n < 3 ? 2 : n < 7 ? 5 : 10) * magnitude;
  }

  private static String format(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
