import { ParseError } from './parse-error.js';
import { lines } from './text.js';

/**
 * One row of /proc/net/softnet_stat (net/core/net-procfs.c, softnet_seq_show). Every column is
 * a 32-bit hex counter that wraps; later kernels append columns, so those are null when absent:
 *  1 processed · 2 dropped (backlog above net.core.netdev_max_backlog) · 3 time_squeeze
 *  (net_rx_action stopped with work left: netdev_budget or netdev_budget_usecs ran out) ·
 *  4-8 always 0 · 9 cpu_collision (0 on current kernels) · 10 received_rps (2.6.35) ·
 *  11 flow_limit_count (3.11) · 12 backlog length and 13 CPU id (5.10) · 14 input and
 *  15 process queue length (6.x).
 */
export interface SoftnetCpu {
  /** Line number from 0. Only online CPUs have a line, so this is not always the CPU id. */
  row: number;
  /** The CPU id column of kernels 5.10+, else null. */
  cpu: number | null;
  processed: number;
  dropped: number;
  timeSqueeze: number;
  cpuCollision: number;
  receivedRps: number | null;
  flowLimitCount: number | null;
  backlogLength: number | null;
  inputQueueLength: number | null;
  processQueueLength: number | null;
  /** How many columns the kernel printed. */
  columns: number;
}

// Kernels since 2.6 print at least 9 columns; fewer means this is not softnet_stat.
const MIN_COLUMNS = 9;
const HEX = /^[0-9a-f]{1,16}$/i;

export function parseSoftnetStat(text: string): SoftnetCpu[] {
  const rows = lines(text).filter((line) => line.trim() !== '');
  if (rows.length === 0) throw new ParseError('/proc/net/softnet_stat is empty');
  return rows.map((line, row) => {
    const fields = line.trim().split(/\s+/);
    if (fields.length < MIN_COLUMNS || !fields.every((field) => HEX.test(field))) {
      throw new ParseError(`softnet_stat line ${row + 1} is not ${MIN_COLUMNS} or more hex columns: ${JSON.stringify(line.slice(0, 160))}`);
    }
    const column = (n: number): number | null => (fields.length >= n ? Number.parseInt(fields[n - 1]!, 16) : null);
    return {
      row,
      cpu: column(13),
      processed: column(1)!,
      dropped: column(2)!,
      timeSqueeze: column(3)!,
      cpuCollision: column(9)!,
      receivedRps: column(10),
      flowLimitCount: column(11),
      backlogLength: column(12),
      inputQueueLength: column(14),
      processQueueLength: column(15),
      columns: fields.length,
    };
  });
}
