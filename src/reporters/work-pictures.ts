import type { InterfaceSettingsEntry, Report } from '../report/schema.js';
import { barChart, escapeXml } from './svg-charts.js';

/**
 * Pictures of where the work lands, without a bench: queue interrupts per CPU (marked by NUMA
 * node and NIC-local CPUs) and per queue from /proc/interrupts, packets per RX queue from
 * `ethtool -S`, and the PCIe path to the root port with the narrowest hop marked. One data model
 * for both media: bars in the terminal (block characters on a TTY, plain text when piped) and
 * SVG charts in HTML.
 */

export interface PictureBar {
  label: string;
  value: number;
  /** NIC-local CPU, or the narrowest PCIe hop. */
  marked: boolean;
  /** "node 1": said next to the bar. */
  note?: string;
}

export interface Picture {
  id: string;
  interface: string;
  kind: 'irq-cpus' | 'irq-queues' | 'rx-queues';
  title: string;
  unit: string;
  bars: PictureBar[];
  markedLabel?: string;
  caption: string;
}

export interface PciePathPicture {
  interface: string;
  hops: NonNullable<InterfaceSettingsEntry['distribution']>['pciePath'];
}

/** Bars shown in the terminal before the rest are summed into one line. */
const TERMINAL_BARS = 16;
const BAR_WIDTH = 30;

const share = (part: number, total: number) => (total > 0 ? Math.round((part / total) * 100) : 0);
const safeId = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_');

function busiest(bars: readonly PictureBar[]): PictureBar | undefined {
  return bars.reduce<PictureBar | undefined>((best, bar) => (!best || bar.value > best.value ? bar : best), undefined);
}

function cpuPicture(iface: string, distribution: NonNullable<InterfaceSettingsEntry['distribution']>): Picture | null {
  const perCpu = distribution.interruptsPerCpu;
  const total = perCpu.reduce((sum, entry) => sum + entry.count, 0);
  if (!perCpu.length || total === 0) return null;
  const local = new Set(distribution.localCpus ?? []);
  const multiNode = new Set(perCpu.map((entry) => entry.node)).size > 1;
  const bars = perCpu.map((entry) => ({
    label: `CPU ${entry.cpu}`,
    value: entry.count,
    marked: local.has(entry.cpu),
    ...(multiNode && entry.node !== null ? { note: `node ${entry.node}` } : {}),
  }));
  const top = busiest(bars)!;
  return {
    id: `chart-irq-cpus-${safeId(iface)}`,
    interface: iface,
    kind: 'irq-cpus',
    title: `Queue interrupts of ${iface} per CPU since boot`,
    unit: 'interrupts',
    bars,
    ...(local.size ? { markedLabel: 'NIC-local CPU' } : {}),
    caption: `${top.label} took ${share(top.value, total)}% of ${total} queue interrupts${local.size ? `; NIC-local CPUs: ${[...local].join(',')}` : ''}.`,
  };
}

/** Queue vector names without what they all share ("mlx5_comp0@pci:0000:01:00.0" … → "0" …), for labels that fit. */
export function shortQueueLabels(names: readonly string[]): { labels: string[]; prefix: string } {
  const bases = names.map((name) => name.split('@')[0]!);
  let prefix = bases[0] ?? '';
  for (const base of bases) while (prefix && !base.startsWith(prefix)) prefix = prefix.slice(0, -1);
  if (bases.length < 2 || bases.some((base) => base.length === prefix.length)) return { labels: bases, prefix: '' };
  return { labels: bases.map((base) => base.slice(prefix.length)), prefix };
}

function queuePicture(iface: string, distribution: NonNullable<InterfaceSettingsEntry['distribution']>): Picture | null {
  const total = distribution.interruptsPerQueue.reduce((sum, entry) => sum + entry.count, 0);
  if (distribution.interruptsPerQueue.length < 2 || total === 0) return null;
  const { labels, prefix } = shortQueueLabels(distribution.interruptsPerQueue.map((entry) => entry.name));
  const bars = distribution.interruptsPerQueue.map((entry, index) => ({ label: labels[index]!, value: entry.count, marked: false }));
  const top = busiest(bars)!;
  return {
    id: `chart-irq-queues-${safeId(iface)}`,
    interface: iface,
    kind: 'irq-queues',
    title: `Interrupts of ${iface} per queue${prefix ? ` (${prefix}N)` : ''} since boot`,
    unit: 'interrupts',
    bars,
    caption: `Queue ${top.label} took ${share(top.value, total)}% of the interrupts of ${bars.length} queues.`,
  };
}

function rxPicture(iface: string, distribution: NonNullable<InterfaceSettingsEntry['distribution']>): Picture | null {
  const total = distribution.rxQueuePackets.reduce((sum, entry) => sum + entry.packets, 0);
  if (distribution.rxQueuePackets.length < 2 || total === 0) return null;
  const bars = distribution.rxQueuePackets.map((entry) => ({ label: `rx ${entry.queue}`, value: entry.packets, marked: false }));
  const top = busiest(bars)!;
  return {
    id: `chart-rx-queues-${safeId(iface)}`,
    interface: iface,
    kind: 'rx-queues',
    title: `Packets received by ${iface} per RX queue`,
    unit: 'packets',
    bars,
    caption: `Queue ${top.label.slice(3)} received ${share(top.value, total)}% of ${total} packets over ${bars.length} queues.`,
  };
}

/** The pictures a report's data allows, per interface. */
export function workPictures(report: Report): { charts: Picture[]; paths: PciePathPicture[] } {
  const charts: Picture[] = [];
  const paths: PciePathPicture[] = [];
  for (const entry of report.settings?.interfaces ?? []) {
    const distribution = entry.distribution;
    if (!distribution) continue;
    for (const picture of [
      cpuPicture(entry.name, distribution),
      queuePicture(entry.name, distribution),
      rxPicture(entry.name, distribution),
    ])
      if (picture) charts.push(picture);
    if (distribution.pciePath.length >= 2) paths.push({ interface: entry.name, hops: distribution.pciePath });
  }
  return { charts, paths };
}

/** Checks whose failing findings make a picture part of the one-screen report. */
const PICTURE_CHECKS: Record<Picture['kind'] | 'pcie-path', readonly string[]> = {
  'irq-cpus': ['irq-affinity', 'numa-locality', 'softnet'],
  'irq-queues': ['irq-affinity', 'rss-queues'],
  'rx-queues': ['rss-indirection', 'rss-queues'],
  'pcie-path': ['pcie-link', 'kernel-pcie'],
};

/** Whether the report's question is where work lands on this interface: a check behind the picture found something. */
export function pictureMatters(report: Report, kind: keyof typeof PICTURE_CHECKS, iface: string): boolean {
  return report.checks.some(
    (check) =>
      PICTURE_CHECKS[kind].includes(check.id) &&
      check.findings.some((finding) => finding.severity !== 'info' && (finding.subject === iface || finding.subject === 'host')),
  );
}

function compact(value: number): string {
  if (value >= 1e9) return `${Number((value / 1e9).toFixed(1))}G`;
  if (value >= 1e6) return `${Number((value / 1e6).toFixed(1))}M`;
  if (value >= 1e4) return `${Math.round(value / 1e3)}k`;
  return String(Math.round(value));
}

/** Terminal bars, busiest first up to a screenful; `unicode` on a TTY, ASCII when piped. */
export function terminalBars(picture: Picture, options: { unicode: boolean }): string[] {
  const total = picture.bars.reduce((sum, bar) => sum + bar.value, 0);
  const max = Math.max(1, ...picture.bars.map((bar) => bar.value));
  const shown = [...picture.bars].sort((a, b) => b.value - a.value).slice(0, TERMINAL_BARS);
  const labelWidth = Math.max(...shown.map((bar) => bar.label.length));
  const lines = shown.map((bar) => {
    const length = Math.round((bar.value / max) * BAR_WIDTH);
    const drawn = options.unicode ? '█'.repeat(length) + (length === 0 && bar.value > 0 ? '▏' : '') : '#'.repeat(length);
    const notes = [bar.marked && picture.markedLabel ? picture.markedLabel : '', bar.note ?? ''].filter(Boolean).join(', ');
    return `  ${bar.label.padEnd(labelWidth)} ${drawn.padEnd(BAR_WIDTH)} ${compact(bar.value).padStart(6)} ${String(share(bar.value, total)).padStart(3)}%${notes ? `  ${notes}` : ''}`.trimEnd();
  });
  const rest = picture.bars.length - shown.length;
  if (rest > 0) {
    const restTotal = total - shown.reduce((sum, bar) => sum + bar.value, 0);
    lines.push(`  … ${rest} more with ${compact(restTotal)} (${share(restTotal, total)}%) between them`);
  }
  return lines;
}

/** The PCIe path as lines, NIC first, the narrowest hop marked. */
export function pciePathLines(path: PciePathPicture): string[] {
  return path.hops.map(
    (hop, index) =>
      `  ${index === 0 ? 'NIC ' : index === path.hops.length - 1 ? 'root' : 'via '} ${hop.address}  ${hop.link ?? 'link unknown'}${hop.capable && hop.capable !== hop.link ? ` (capable ${hop.capable})` : ''}${hop.narrowest ? '  ← narrowest' : ''}`,
  );
}

/** The same picture as an SVG bar chart for the HTML report. */
export function pictureSvg(picture: Picture): string {
  return barChart({
    id: picture.id,
    title: picture.title,
    description: picture.caption,
    xLabel: picture.kind === 'irq-cpus' ? 'CPU' : 'queue',
    yLabel: picture.unit,
    width: Math.min(1180, Math.max(480, picture.bars.length * 28 + 120)),
    formatValue: compact,
    bars: picture.bars.map((bar) => ({ label: bar.label.replace(/^(CPU|rx) /, ''), value: bar.value, marked: bar.marked })),
    ...(picture.markedLabel ? { markedLabel: picture.markedLabel } : {}),
  });
}

/** The PCIe path as an HTML list. */
export function pciePathHtml(path: PciePathPicture): string {
  const items = path.hops.map(
    (hop) =>
      `<li${hop.narrowest ? ' class="narrowest"' : ''}><code>${escapeXml(hop.address)}</code> ${escapeXml(hop.link ?? 'link unknown')}${hop.capable && hop.capable !== hop.link ? ` (capable ${escapeXml(hop.capable)})` : ''}${hop.narrowest ? ' <strong>narrowest</strong>' : ''}</li>`,
  );
  return `<figure class="pcie-path"><h3>PCIe path of ${escapeXml(path.interface)}, NIC to root port</h3><ol>${items.join('')}</ol></figure>`;
}
