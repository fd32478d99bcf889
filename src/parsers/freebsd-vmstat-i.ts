import { ParseError } from './parse-error.js';

/**
 * FreeBSD `vmstat -i`: interrupts since boot per source, with their rate.
 *
 *   interrupt                          total       rate
 *   irq264: ix0:rxq0                1234567        123
 *   irq265: ix0:rxq1                     12          0
 *   cpu0:timer                      9876543        987
 *   Total                          11111111       1111
 *
 * FreeBSD binds each MSI-X vector to one CPU (`cpuset -g -x <irq>` shows which); vmstat -i gives
 * counts per vector, not per CPU.
 */

export interface VmstatInterrupt {
  irq: number | null;
  /** "ix0:rxq0", "ix0:que 0", "mlx5_core0", "cpu0:timer". */
  source: string;
  total: number;
  rate: number;
}

const ROW = /^(?:irq(\d{1,6}): ?)?(\S(?:.*\S)?)\s+(\d{1,20})\s+(\d{1,20})$/;

export function isVmstatHeader(line: string): boolean {
  return /^interrupt\s+total\s+rate$/.test(line.trim());
}

export function parseVmstatI(text: string): VmstatInterrupt[] {
  const rows: VmstatInterrupt[] = [];
  for (const raw of text.split('\n').slice(0, 100_000)) {
    const line = raw.trim();
    if (!line || isVmstatHeader(line) || /^-+$/.test(line)) continue;
    const row = ROW.exec(line);
    if (!row || /^Total$/i.test(row[2]!)) continue;
    rows.push({ irq: row[1] ? Number(row[1]) : null, source: row[2]!.trim(), total: Number(row[3]), rate: Number(row[4]) });
  }
  if (rows.length === 0) throw new ParseError('no interrupt row (`irqN: source total rate`) in the vmstat -i output');
  return rows;
}

/** The vectors of one interface: rows whose source names it ("ix0:rxq3", "ix0:que 3", "ixl0:q2"). */
export function vectorsOf(rows: readonly VmstatInterrupt[], iface: string): VmstatInterrupt[] {
  return rows.filter((row) => row.source === iface || row.source.startsWith(`${iface}:`));
}
