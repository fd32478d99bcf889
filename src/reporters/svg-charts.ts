import { escapeHtml } from './escape.js';
/**
 * Tiny inline-SVG chart primitives for the HTML report: strings out, no DOM, no scripts, no
 * network, so the report stays one self-contained file. Colours are attributes (not CSS classes)
 * so a chart copied out of the page still renders.
 */

/** Text and attribute values: the report's strings come from hosts and must never become markup. */
/** SVG inside the HTML report: the HTML escaping (escape.ts), controls included. */
export const escapeXml = escapeHtml;

export const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

export interface Point {
  x: number;
  y: number;
}

export interface Series {
  label: string;
  points: Point[];
  /** Index into PALETTE; defaults to the series' position. */
  color?: number;
  /** A point drawn larger: the step the bench chose as its result. */
  highlightX?: number;
}

export interface ReferenceLine {
  label: string;
  y: number;
  color: string;
  /** Stable class for tests and styling, e.g. "ref-ceiling". */
  className: string;
}

export interface ChartFrame {
  id: string;
  title: string;
  description: string;
  xLabel: string;
  yLabel: string;
  width?: number;
  height?: number;
}

export interface LineChartSpec extends ChartFrame {
  series: Series[];
  referenceLines?: ReferenceLine[];
  /** Ticks placed exactly at these x values (e.g. process counts) instead of computed ones. */
  xTicks?: number[];
  formatX?: (value: number) => string;
  formatY?: (value: number) => string;
  legend?: boolean;
}

export interface Bar {
  label: string;
  value: number;
  /** Drawn with an outline: e.g. a CPU the bench pinned a process to. */
  marked?: boolean;
}

export interface BarChartSpec extends ChartFrame {
  bars: Bar[];
  formatValue?: (value: number) => string;
  /** Legend text for marked bars. */
  markedLabel?: string;
}

const MARGIN = { top: 16, right: 24, bottom: 44, left: 60 };
const LEGEND_ROW = 18;
const LEGEND_ITEM_WIDTH = 120;

/** Round, evenly spaced ticks from the last round value ≤ min to the first ≥ max (nice numbers). */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0];
  if (max <= min) return [min];
  const raw = (max - min) / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= raw) ?? 10 * magnitude;
  const ticks: number[] = [];
  const first = Math.floor(min / step + 1e-9) * step;
  for (let index = 0; ; index++) {
    const value = Number((first + index * step).toPrecision(12));
    ticks.push(value);
    if (value >= max - step * 1e-9) break;
  }
  return ticks;
}

const fmt = (value: number) => String(Number(value.toFixed(2)));
const n = (value: number) => String(Math.round(value * 10) / 10);

function scale(domainMin: number, domainMax: number, rangeMin: number, rangeMax: number): (value: number) => number {
  const span = domainMax - domainMin || 1;
  return (value) => rangeMin + ((value - domainMin) / span) * (rangeMax - rangeMin);
}

function open(frame: ChartFrame, width: number, height: number, kind: string): string {
  const id = escapeXml(frame.id);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" id="${id}" class="chart chart-${kind}" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" aria-labelledby="${id}-title ${id}-desc">` +
    `<title id="${id}-title">${escapeXml(frame.title)}</title><desc id="${id}-desc">${escapeXml(frame.description)}</desc>` +
    `<rect class="chart-background" x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`
  );
}

function axes(
  plot: { left: number; top: number; right: number; bottom: number },
  frame: ChartFrame,
  xTicks: { at: number; label: string }[],
  yTicks: { at: number; label: string }[],
): string {
  const parts: string[] = ['<g class="axes" font-family="sans-serif" font-size="11" fill="#333">'];
  for (const tick of yTicks) {
    parts.push(`<line class="grid" x1="${n(plot.left)}" x2="${n(plot.right)}" y1="${n(tick.at)}" y2="${n(tick.at)}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${n(plot.left - 6)}" y="${n(tick.at + 4)}" text-anchor="end">${escapeXml(tick.label)}</text>`);
  }
  for (const tick of xTicks) {
    parts.push(`<line x1="${n(tick.at)}" x2="${n(tick.at)}" y1="${n(plot.bottom)}" y2="${n(plot.bottom + 4)}" stroke="#333"/>`);
    parts.push(`<text x="${n(tick.at)}" y="${n(plot.bottom + 16)}" text-anchor="middle">${escapeXml(tick.label)}</text>`);
  }
  parts.push(`<path class="axis-line" d="M${n(plot.left)} ${n(plot.top)}V${n(plot.bottom)}H${n(plot.right)}" fill="none" stroke="#333"/>`);
  parts.push(
    `<text class="axis-label" x="${n((plot.left + plot.right) / 2)}" y="${n(plot.bottom + 34)}" text-anchor="middle">${escapeXml(frame.xLabel)}</text>`,
  );
  parts.push(
    `<text class="axis-label" transform="translate(14 ${n((plot.top + plot.bottom) / 2)}) rotate(-90)" text-anchor="middle">${escapeXml(frame.yLabel)}</text>`,
  );
  parts.push('</g>');
  return parts.join('');
}

function legend(items: { label: string; color: string; dashed?: boolean }[], left: number, top: number, perRow: number): string {
  const parts = ['<g class="legend" font-family="sans-serif" font-size="11" fill="#333">'];
  items.forEach((item, index) => {
    const x = left + (index % perRow) * LEGEND_ITEM_WIDTH;
    const y = top + Math.floor(index / perRow) * LEGEND_ROW;
    parts.push(
      `<line x1="${x}" x2="${x + 18}" y1="${y}" y2="${y}" stroke="${item.color}" stroke-width="2.5"${item.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
    );
    parts.push(`<text x="${x + 24}" y="${y + 4}">${escapeXml(item.label)}</text>`);
  });
  parts.push('</g>');
  return parts.join('');
}

/** Lines over a numeric x axis, with optional horizontal reference lines (ceilings). */
export function lineChart(spec: LineChartSpec): string {
  const width = spec.width ?? 640;
  const formatX = spec.formatX ?? fmt;
  const formatY = spec.formatY ?? fmt;
  const refs = spec.referenceLines ?? [];
  const perRow = Math.max(1, Math.floor((width - MARGIN.left - MARGIN.right) / LEGEND_ITEM_WIDTH));
  const legendItems =
    spec.legend === false
      ? []
      : spec.series.map((series, index) => ({ label: series.label, color: PALETTE[(series.color ?? index) % PALETTE.length]! }));
  const legendRows = Math.ceil(legendItems.length / perRow);
  const height = (spec.height ?? 300) + legendRows * LEGEND_ROW;
  const plot = {
    left: MARGIN.left,
    top: MARGIN.top,
    right: width - MARGIN.right,
    bottom: height - MARGIN.bottom - legendRows * LEGEND_ROW,
  };

  const xs = spec.series.flatMap((series) => series.points.map((point) => point.x)).concat(spec.xTicks ?? []);
  const ys = spec.series.flatMap((series) => series.points.map((point) => point.y)).concat(refs.map((ref) => ref.y));
  let xMin = xs.length ? Math.min(...xs) : 0;
  let xMax = xs.length ? Math.max(...xs) : 1;
  if (xMin === xMax) [xMin, xMax] = [xMin - 1, xMax + 1];
  const yTickValues = niceTicks(0, Math.max(...ys, 0) * 1.08 || 1);
  const yMax = yTickValues[yTickValues.length - 1]!;
  const x = scale(xMin, xMax, plot.left + 8, plot.right - 8);
  const y = scale(0, yMax || 1, plot.bottom, plot.top);

  // The x axis spans the data exactly, so computed ticks outside it are dropped.
  const xTickValues = spec.xTicks ?? niceTicks(xMin, xMax, 6).filter((value) => value >= xMin - 1e-9 && value <= xMax + 1e-9);
  const parts: string[] = [open(spec, width, height, 'line')];
  parts.push(
    axes(
      plot,
      spec,
      xTickValues.map((value) => ({ at: x(value), label: formatX(value) })),
      yTickValues.map((value) => ({ at: y(value), label: formatY(value) })),
    ),
  );

  // Reference lines first so the data draws over them; labels alternate sides when lines are close.
  parts.push('<g class="reference-lines" font-family="sans-serif" font-size="11">');
  let previousY = Number.NaN;
  for (const ref of [...refs].sort((a, b) => b.y - a.y)) {
    const at = y(ref.y);
    const below = Math.abs(at - previousY) < 14;
    previousY = at;
    parts.push(
      `<g class="reference-line ${escapeXml(ref.className)}"><line x1="${n(plot.left)}" x2="${n(plot.right)}" y1="${n(at)}" y2="${n(at)}" stroke="${ref.color}" stroke-width="1.5" stroke-dasharray="6 4"/>`,
    );
    parts.push(
      `<text x="${n(plot.right - 4)}" y="${n(below ? at + 13 : at - 4)}" text-anchor="end" fill="${ref.color}">${escapeXml(ref.label)}</text></g>`,
    );
  }
  parts.push('</g>');

  parts.push('<g class="series-group">');
  spec.series.forEach((series, index) => {
    const color = PALETTE[(series.color ?? index) % PALETTE.length]!;
    const points = [...series.points].sort((a, b) => a.x - b.x);
    parts.push(`<g class="series series-${index}" data-label="${escapeXml(series.label)}"><title>${escapeXml(series.label)}</title>`);
    if (points.length) {
      const d = points.map((point, at) => `${at === 0 ? 'M' : 'L'}${n(x(point.x))} ${n(y(point.y))}`).join('');
      parts.push(`<path class="series-line" d="${d}" fill="none" stroke="${color}" stroke-width="2" stroke-linejoin="round"/>`);
    }
    const radius = points.length > 40 ? 1.5 : 3;
    for (const point of points) {
      const big = series.highlightX === point.x;
      parts.push(
        `<circle class="point${big ? ' point-highlight' : ''}" cx="${n(x(point.x))}" cy="${n(y(point.y))}" r="${big ? 6 : radius}" fill="${big ? '#ffffff' : color}" stroke="${color}" stroke-width="2"><title>${escapeXml(`${series.label}: ${formatX(point.x)} → ${formatY(point.y)}`)}</title></circle>`,
      );
    }
    parts.push('</g>');
  });
  parts.push('</g>');
  if (legendItems.length) parts.push(legend(legendItems, plot.left, height - legendRows * LEGEND_ROW - 4, perRow));
  parts.push('</svg>');
  return parts.join('');
}

/** White → deep red: the share of the busiest bar, so hot CPUs stand out at a glance. */
export function heatColor(share: number): string {
  const t = Math.min(1, Math.max(0, share));
  const channel = (from: number, to: number) => Math.round(from + (to - from) * t);
  return `rgb(${channel(254, 165)},${channel(224, 15)},${channel(210, 21)})`;
}

/** One bar per category, coloured by its share of the largest (a heat map and a bar chart in one). */
export function barChart(spec: BarChartSpec): string {
  const width = spec.width ?? 640;
  const markedLegend = spec.markedLabel && spec.bars.some((bar) => bar.marked);
  const height = (spec.height ?? 260) + (markedLegend ? LEGEND_ROW : 0);
  const plot = {
    left: MARGIN.left,
    top: MARGIN.top,
    right: width - MARGIN.right,
    bottom: height - MARGIN.bottom - (markedLegend ? LEGEND_ROW : 0),
  };
  const format = spec.formatValue ?? fmt;
  const max = Math.max(0, ...spec.bars.map((bar) => bar.value));
  const yTickValues = niceTicks(0, max * 1.05 || 1);
  const y = scale(0, yTickValues[yTickValues.length - 1]! || 1, plot.bottom, plot.top);
  const slot = (plot.right - plot.left) / Math.max(1, spec.bars.length);
  const gap = Math.min(4, slot * 0.2);
  // Label every bar when they fit, otherwise every k-th so labels never overlap.
  const every = Math.max(1, Math.ceil(28 / slot));
  const xTicks = spec.bars.flatMap((bar, index) =>
    index % every === 0 ? [{ at: plot.left + slot * (index + 0.5), label: bar.label }] : [],
  );

  const parts: string[] = [open(spec, width, height, 'bar')];
  parts.push(
    axes(
      plot,
      spec,
      xTicks,
      yTickValues.map((value) => ({ at: y(value), label: format(value) })),
    ),
  );
  parts.push('<g class="bars">');
  spec.bars.forEach((bar, index) => {
    const top = y(bar.value);
    const h = Math.max(bar.value > 0 ? 1 : 0, plot.bottom - top);
    const fill = heatColor(max > 0 ? bar.value / max : 0);
    const outline = bar.marked ? ' stroke="#1f3a93" stroke-width="2"' : ' stroke="#b0b0b0" stroke-width="0.5"';
    const left = plot.left + slot * index + gap / 2;
    const barWidth = Math.max(1, slot - gap);
    parts.push(
      `<rect class="bar${bar.marked ? ' bar-marked' : ''}" data-label="${escapeXml(bar.label)}" data-value="${bar.value}" x="${n(left)}" y="${n(plot.bottom - h)}" width="${n(barWidth)}" height="${n(h)}" fill="${fill}"${outline}><title>${escapeXml(`${bar.label}: ${format(bar.value)}`)}</title></rect>`,
    );
    // A strip under the axis keeps a marked category visible even when its bar is empty.
    if (bar.marked)
      parts.push(`<rect class="bar-mark" x="${n(left)}" y="${n(plot.bottom + 1)}" width="${n(barWidth)}" height="3" fill="#1f3a93"/>`);
  });
  parts.push('</g>');
  if (markedLegend) {
    const top = height - LEGEND_ROW - 2;
    parts.push(
      `<g class="legend" font-family="sans-serif" font-size="11" fill="#333"><rect x="${plot.left}" y="${top - 6}" width="12" height="12" fill="#ffffff" stroke="#1f3a93" stroke-width="2"/><text x="${plot.left + 18}" y="${top + 4}">${escapeXml(spec.markedLabel!)}</text></g>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}
