/**
 * Two small SVG charts for the benchmark report: a line chart on log–log
 * axes (latency against catalog size) and grouped horizontal bars on a log
 * axis (tokens per task). Plain SVG 1.1 with inline styles, so GitHub and any
 * browser show them as images; no dependency, deterministic output.
 */

export interface LineSeries {
  name: string;
  color: string;
  dashed?: boolean;
  points: readonly (readonly [number, number])[];
}

export interface BarSeries {
  name: string;
  color: string;
  values: readonly number[];
}

const FONT = `font-family="-apple-system, Segoe UI, Helvetica, Arial, sans-serif"`;

/** Latency-style chart: both axes logarithmic, a marker and a value label on each point. */
export function lineChart(options: { title: string; xLabel: string; yLabel: string; series: readonly LineSeries[]; format?: (v: number) => string }): string {
  const width = 680;
  const height = 380;
  const plot = { left: 70, right: width - 30, top: 70, bottom: height - 56 };
  // Log axes: zero or negative values cannot be placed; they are left out of the scale and drawn on its floor.
  const xs = options.series.flatMap((s) => s.points.map((p) => p[0])).filter((v) => v > 0);
  const ys = options.series.flatMap((s) => s.points.map((p) => p[1])).filter((v) => v > 0);
  if (!xs.length || !ys.length) return emptyChart(options.title);
  // Points sit inside the frame, clear of the axes and the right edge.
  const xAxis = pointScale(Math.min(...xs), Math.max(...xs), plot.left + 40, plot.right - 60);
  const yAxis = logAxis(Math.min(...ys), Math.max(...ys), plot.bottom, plot.top);
  const format = options.format ?? compact;
  const parts = [header(width, height, options.title)];
  for (const t of yAxis.ticks) {
    const y = yAxis.at(t);
    parts.push(`<line x1="${plot.left}" y1="${y}" x2="${plot.right}" y2="${y}" stroke="#e5e7eb"/>`, text(plot.left - 8, y + 4, compact(t), "end"));
  }
  for (const x of xs.filter((v, i) => xs.indexOf(v) === i)) {
    parts.push(
      `<line x1="${xAxis.at(x)}" y1="${plot.top}" x2="${xAxis.at(x)}" y2="${plot.bottom}" stroke="#f3f4f6"/>`,
      text(xAxis.at(x), plot.bottom + 18, compact(x), "middle"),
    );
  }
  parts.push(
    axes(plot),
    text((plot.left + plot.right) / 2, height - 14, options.xLabel, "middle"),
    text(16, (plot.top + plot.bottom) / 2, options.yLabel, "middle", "rotate(-90 16 " + (plot.top + plot.bottom) / 2 + ")"),
  );
  options.series.forEach((s, i) => {
    const path = s.points.map((p, j) => `${j ? "L" : "M"}${xAxis.at(p[0])},${yAxis.at(p[1])}`).join(" ");
    parts.push(`<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2.5"${s.dashed ? ` stroke-dasharray="6 4"` : ""}/>`);
    for (const [x, y] of s.points) {
      parts.push(`<circle cx="${xAxis.at(x)}" cy="${yAxis.at(y)}" r="${s.dashed ? 3 : 4}" fill="${s.color}"/>`);
      // Values on the solid lines only: dashed companions (p99) would collide with them.
      if (!s.dashed) parts.push(text(xAxis.at(x) + 7, yAxis.at(y) - 8, format(y), "start", undefined, s.color));
    }
    legend(parts, plot.left + i * 140, 50, s.color, s.name, s.dashed, 2.5);
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

/** One group of bars per category (a catalog), one bar per series, on a logarithmic value axis. */
export function barChart(options: {
  title: string;
  xLabel: string;
  categories: readonly string[];
  series: readonly BarSeries[];
  format?: (v: number) => string;
}): string {
  const width = 760;
  const bar = 18;
  const group = options.series.length * bar + 18;
  const longest = Math.max(...options.categories.map((c) => Math.min(c.length, 44)));
  const plot = { left: Math.min(320, 24 + longest * 6.8), right: width - 90, top: 70, bottom: 70 + options.categories.length * group };
  const height = plot.bottom + 50;
  const values = options.series.flatMap((s) => s.values).filter((v) => v > 0);
  if (!values.length || !options.categories.length) return emptyChart(options.title);
  const axis = logAxis(Math.min(...values) / 2, Math.max(...values), plot.left, plot.right);
  const format = options.format ?? compact;
  const parts = [header(width, height, options.title)];
  options.series.forEach((s, i) => legend(parts, plot.left + i * 180, 50, s.color, s.name));
  for (const t of axis.ticks) {
    parts.push(
      `<line x1="${axis.at(t)}" y1="${plot.top}" x2="${axis.at(t)}" y2="${plot.bottom}" stroke="#e5e7eb"/>`,
      text(axis.at(t), plot.bottom + 18, compact(t), "middle"),
    );
  }
  options.categories.forEach((category, c) => {
    const top = plot.top + c * group + 9;
    parts.push(text(plot.left - 10, top + (options.series.length * bar) / 2 + 4, category.length > 44 ? `${category.slice(0, 43)}…` : category, "end"));
    options.series.forEach((s, i) => {
      const v = s.values[c] ?? 0;
      const end = v > 0 ? axis.at(v) : plot.left;
      parts.push(
        `<rect x="${plot.left}" y="${top + i * bar}" width="${Math.max(1, end - plot.left)}" height="${bar - 4}" fill="${s.color}"/>`,
        text(end + 5, top + i * bar + bar - 8, format(v), "start"),
      );
    });
  });
  parts.push(
    `<line x1="${plot.left}" y1="${plot.top}" x2="${plot.left}" y2="${plot.bottom}" stroke="#374151"/>`,
    text((plot.left + plot.right) / 2, height - 14, options.xLabel, "middle"),
    "</svg>",
  );
  return `${parts.join("\n")}\n`;
}

/** A log10 scale for x values that are the points themselves (catalog sizes): no widening to decades. */
function pointScale(min: number, max: number, from: number, to: number): { at: (v: number) => number } {
  const lo = Math.log10(min);
  const span = Math.log10(max) - lo || 1;
  return { at: (v: number) => round(from + ((Math.min(lo + span, Math.max(lo, Math.log10(Math.max(v, 1e-12)))) - lo) / span) * (to - from)) };
}

/** A log10 scale from `min` to `max` onto pixels `from`..`to`, widened to whole decades, with a tick per decade. */
function logAxis(min: number, max: number, from: number, to: number): { at: (v: number) => number; ticks: number[] } {
  const lo = Math.floor(Math.log10(Math.max(min, 1e-6)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(max, 1e-6))));
  const at = (v: number) => round(from + ((Math.min(hi, Math.max(lo, Math.log10(Math.max(v, 1e-12)))) - lo) / (hi - lo)) * (to - from));
  return { at, ticks: Array.from({ length: hi - lo + 1 }, (_, i) => 10 ** (lo + i)) };
}

/** 0.001, 0.25, 3.1, 42, 1.2k, 2.5M: short labels for ticks and points. */
export function compact(v: number): string {
  if (v >= 1e6) return `${trim(v / 1e6)}M`;
  if (v >= 1e3) return `${trim(v / 1e3)}k`;
  if (v > 0 && v < 0.01) return String(Number(v.toPrecision(2)));
  return trim(v);
}

function emptyChart(title: string): string {
  return `${header(400, 80, title)}\n<text x="200" y="55" text-anchor="middle" fill="#6b7280">no data</text>\n</svg>\n`;
}

function trim(v: number): string {
  const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return String(Number(v.toFixed(digits)));
}

function header(width: number, height: number, title: string): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="15" font-weight="600" fill="#111827">${escape(title)}</text>`,
  ].join("\n");
}

function axes(plot: { left: number; right: number; top: number; bottom: number }): string {
  return `<path d="M${plot.left},${plot.top} L${plot.left},${plot.bottom} L${plot.right},${plot.bottom}" fill="none" stroke="#374151"/>`;
}

function legend(parts: string[], x: number, y: number, color: string, name: string, dashed = false, thickness = 8): void {
  parts.push(
    `<line x1="${x}" y1="${y}" x2="${x + 22}" y2="${y}" stroke="${color}" stroke-width="${thickness}"${dashed ? ` stroke-dasharray="6 4"` : ""}/>`,
    text(x + 28, y + 4, name, "start"),
  );
}

function text(x: number, y: number, content: string, anchor: "start" | "middle" | "end", transform?: string, color = "#374151"): string {
  return `<text x="${round(x)}" y="${round(y)}" text-anchor="${anchor}" fill="${color}"${transform ? ` transform="${transform}"` : ""}>${escape(content)}</text>`;
}

function round(v: number): number {
  return Math.round(v * 10) / 10;
}

function escape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
