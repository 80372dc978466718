/**
 * A stacked bar chart as inline SVG markup: one bar a day, one stacked segment per series. Drawn
 * on the server with no library and no external resource (the console works offline, and its
 * Content-Security-Policy allows nothing else); colours come from the page's stylesheet through
 * class names. Every text in it is escaped.
 */
import { escapeHtml } from '../../core/escape-html.ts';

/** One stacked series: its label, its CSS class, a value per day. */
export interface ChartSeries {
  label: string;
  className: string;
  values: readonly number[];
}

/** What {@link stackedBarChart} draws. */
export interface ChartInput {
  /** An accessible title, e.g. `Cost per day`. */
  title: string;
  /** `YYYY-MM-DD`, one per bar. */
  days: readonly string[];
  series: readonly ChartSeries[];
  /** How a value is written on the axis and in tooltips. */
  format: (value: number) => string;
}

const width = 640;
const height = 220;
const left = 56;
const bottom = 24;
const top = 10;

/**
 * The chart's `<svg>` element, scaling to its container's width.
 *
 * @example
 * stackedBarChart({ title: 'Cost per day', days, series: [{ label: 'turns', className: 'turn', values }], format: (v) => `$${v.toFixed(2)}` });
 */
export function stackedBarChart(input: ChartInput): string {
  const { days, series, format } = input;
  const totals = days.map((_, index) => series.reduce((sum, item) => sum + (item.values[index] ?? 0), 0));
  const max = niceCeiling(Math.max(0, ...totals));
  const plotWidth = width - left - 8;
  const plotHeight = height - top - bottom;
  const step = days.length > 0 ? plotWidth / days.length : plotWidth;
  const barWidth = Math.max(1, step * 0.7);
  const y = (value: number) => top + plotHeight - (max === 0 ? 0 : (value / max) * plotHeight);
  const parts: string[] = [];
  for (const fraction of [0, 0.5, 1]) {
    const value = max * fraction;
    parts.push(`<line class="grid" x1="${left}" x2="${width - 8}" y1="${round(y(value))}" y2="${round(y(value))}"/>`);
    parts.push(`<text class="axis" x="${left - 6}" y="${round(y(value) + 4)}" text-anchor="end">${escapeHtml(format(value))}</text>`);
  }
  days.forEach((day, index) => {
    const x = left + index * step + (step - barWidth) / 2;
    let base = 0;
    for (const item of series) {
      const value = item.values[index] ?? 0;
      if (value <= 0) continue;
      parts.push(`<rect class="${escapeHtml(item.className)}" x="${round(x)}" y="${round(y(base + value))}" width="${round(barWidth)}" height="${round(y(base) - y(base + value))}"><title>${escapeHtml(`${day} ${item.label}: ${format(value)}`)}</title></rect>`);
      base += value;
    }
    // A label under the first bar, the last, and about every seventh between.
    if (index === 0 || index === days.length - 1 || (index % 7 === 0 && days.length - 1 - index >= 4)) {
      parts.push(`<text class="axis" x="${round(x + barWidth / 2)}" y="${height - 6}" text-anchor="middle">${escapeHtml(day.slice(5))}</text>`);
    }
  });
  const legend = series.map((item) => `<span class="legend ${escapeHtml(item.className)}">${escapeHtml(item.label)}</span>`).join(' ');
  return `<figure class="chart"><svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(input.title)}"><title>${escapeHtml(input.title)}</title>${parts.join('')}</svg><figcaption>${escapeHtml(input.title)} ${legend}</figcaption></figure>`;
}

/** A round number at or above `value` for the axis (1, 2 or 5 times a power of ten). */
function niceCeiling(value: number): number {
  if (value <= 0) return 0;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const factor of [1, 2, 5, 10]) if (factor * power >= value) return factor * power;
  return 10 * power;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
