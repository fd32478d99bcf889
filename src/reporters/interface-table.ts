import type { InterfaceSettingsEntry, Report, Scalar } from '../report/schema.js';

/**
 * One line per interface, as xsos prints it: kind, driver, speed (negotiated/best), MTU, PCIe
 * (current/capable), queues (used/max), RX ring (current/max) and drops since boot. The values
 * come from the interface summary and the settings the report carries; "?" where the capture
 * did not hold them. Shared by the terminal and Markdown reporters.
 */
export const INTERFACE_COLUMNS = ['interface', 'kind', 'driver', 'speed', 'MTU', 'PCIe', 'queues', 'rx ring', 'drops'] as const;

/** 10000 → "10G", 2500 → "2.5G", 100 → "100M". */
export function speedLabel(mbps: number | null | undefined): string {
  if (mbps === null || mbps === undefined || !Number.isFinite(mbps) || mbps <= 0) return '?';
  return mbps >= 1000 ? `${Math.round(mbps / 100) / 10}G` : `${mbps}M`;
}

const text = (value: Scalar | undefined): string => (value === undefined || value === null ? '?' : String(value));

/** "a/b", "a" when b is unknown or the same, "?" when neither is known. */
function pair(current: string, best: string): string {
  if (best === '?' || best === current) return current;
  return `${current}/${best}`;
}

function queues(entry: InterfaceSettingsEntry | undefined): string {
  if (!entry) return '?';
  for (const kind of ['combined', 'rx'] as const) {
    const used = entry.values[`${kind} channels`];
    if (used !== undefined) return pair(text(used), text(entry.limits[`${kind} channels max`]));
  }
  return '?';
}

/** "8 GT/s x8" → "Gen3 x8": the generation is what people compare. */
function pcieLabel(link: Scalar | undefined): string {
  if (typeof link !== 'string') return '?';
  const match = /^([\d.?]+) GT\/s (x[\d?]+)$/.exec(link);
  if (!match) return link;
  const generation: Record<string, string> = { '2.5': 'Gen1', '5': 'Gen2', '8': 'Gen3', '16': 'Gen4', '32': 'Gen5', '64': 'Gen6' };
  return `${generation[match[1]!] ?? `${match[1]} GT/s`} ${match[2]}`;
}

export function interfaceRow(iface: Report['interfaces'][number], entry: InterfaceSettingsEntry | undefined): string[] {
  const speed = iface.speedMbps ?? null;
  const best = entry?.limits['best speed Mb/s'];
  const derived = iface.speedSource && !['sysfs', 'ethtool'].includes(iface.speedSource) ? ` (${iface.speedSource})` : '';
  const speedText =
    speed === null && iface.nominalSpeedMbps
      ? `${speedLabel(iface.nominalSpeedMbps)} nominal`
      : pair(speedLabel(speed), speedLabel(typeof best === 'number' ? best : null)) + derived;
  const pcieCurrent = pcieLabel(entry?.values['PCIe link']);
  const pcie = pcieCurrent === '?' ? '?' : pair(pcieCurrent, pcieLabel(entry?.limits['PCIe capable']));
  return [
    iface.name + (iface.master ? ` (in ${iface.master})` : ''),
    iface.kind,
    iface.driver ?? entry?.driver ?? '?',
    speedText,
    text(iface.mtu),
    pcie,
    queues(entry),
    entry ? pair(text(entry.values['rx ring']), text(entry.limits['rx ring max'])) : '?',
    entry?.counters['drops since boot'] !== undefined ? text(entry.counters['drops since boot']) : '?',
  ];
}

export function interfaceRows(report: Report): string[][] {
  return report.interfaces.map((iface) =>
    interfaceRow(
      iface,
      report.settings?.interfaces.find((entry) => entry.name === iface.name),
    ),
  );
}

/** Columns padded to their widest cell; a column no interface has a value for is left out. */
export function alignedTable(columns: readonly string[], rows: readonly string[][]): string[] {
  const keep = columns.map((_, index) => index === 0 || rows.some((row) => row[index] !== '?'));
  const kept = (cells: readonly string[]) => cells.filter((_, index) => keep[index]);
  const header = kept(columns);
  const body = rows.map(kept);
  const widths = header.map((column, index) => Math.max(column.length, ...body.map((row) => row[index]!.length)));
  const format = (cells: readonly string[]) =>
    cells
      .map((cell, index) => cell.padEnd(widths[index]!))
      .join('  ')
      .trimEnd();
  return [format(header), ...body.map(format)];
}
