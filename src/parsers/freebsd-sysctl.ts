import { ParseError } from './parse-error.js';

/**
 * FreeBSD `sysctl` output, `name: value` per line (`sysctl dev.ix.0`, `sysctl kern.ipc.maxsockbuf
 * hw.ncpu`, `sysctl -a`). A value may continue on following lines (dev.X.N.%pnpinfo, hw.model
 * strings are one line; queue interrupt lists are not): those lines are kept with the previous value.
 */

const MAX_LINES = 1_000_000;
const LINE = /^([a-z][\w%-]{0,63}(?:\.[\w%-]{1,64}){1,12}): ?(.*)$/i;

export function isFreebsdSysctlLine(line: string): boolean {
  return LINE.test(line);
}

export function parseFreebsdSysctl(text: string): Map<string, string> {
  const lines = text.split('\n');
  if (lines.length > MAX_LINES) throw new ParseError(`sysctl output of ${lines.length} lines is longer than ${MAX_LINES}`);
  const values = new Map<string, string>();
  for (const raw of lines) {
    const match = LINE.exec(raw.replace(/\r$/, '').trim());
    if (match && !values.has(match[1]!)) values.set(match[1]!, match[2]!.trim());
  }
  if (values.size === 0) throw new ParseError('no `name: value` line in the sysctl output');
  return values;
}

/** What one driver instance's `sysctl dev.<driver>.<unit>` tree says about its queues and counters. */
export interface DriverSysctls {
  node: string;
  firmware: string | null;
  /** Queues the driver created: queueN / rxqN / txqN subtrees, or iflib's override/actual counts. */
  rxQueues: number | null;
  txQueues: number | null;
  /** Descriptors per ring (iflib override_nrxds / the driver's own rx ring size). */
  rxRing: number | null;
  txRing: number | null;
  /** Flow control as the driver reports it: 0 none, 1 rx, 2 tx, 3 full (ix, ixl, ice, igb). */
  flowControl: number | null;
  /** Adaptive interrupt moderation (ix/igb enable_aim), when the driver has it. */
  adaptiveModeration: boolean | null;
  /** Every numeric leaf under the node, by its path below the node ("mac_stats.crc_errs"). */
  counters: Map<string, number>;
}

const MAX_QUEUES = 4096;

export function driverSysctls(values: ReadonlyMap<string, string>, node: string): DriverSysctls | null {
  const prefix = `${node}.`;
  const own = [...values].filter(([key]) => key.startsWith(prefix));
  if (own.length === 0) return null;
  const counters = new Map<string, number>();
  const rx = new Set<number>();
  const tx = new Set<number>();
  for (const [key, value] of own) {
    const leaf = key.slice(prefix.length);
    if (/^-?\d{1,20}$/.test(value)) counters.set(leaf, Number(value));
    const queue = /^(?:queue|rxq|txq|rx_queue|tx_queue|rxq_|txq_)(\d{1,4})\./.exec(leaf);
    if (queue && Number(queue[1]) < MAX_QUEUES) {
      if (/^(?:queue|rx_queue)\d/.test(leaf)) {
        rx.add(Number(queue[1]));
        if (leaf.startsWith('queue')) tx.add(Number(queue[1]));
      } else if (/^rxq/.test(leaf)) rx.add(Number(queue[1]));
      else tx.add(Number(queue[1]));
    }
  }
  const number = (leaf: string) => {
    const value = counters.get(leaf);
    return value === undefined ? null : value;
  };
  const positive = (leaf: string) => {
    const value = number(leaf);
    return value !== null && value > 0 ? value : null;
  };
  return {
    node,
    firmware: values.get(`${prefix}fw_version`) ?? values.get(`${prefix}firmware_version`) ?? null,
    rxQueues: rx.size || positive('iflib.override_nrxqs') || null,
    txQueues: tx.size || positive('iflib.override_ntxqs') || null,
    rxRing: positive('iflib.override_nrxds') ?? positive('rx_ring_size') ?? positive('rxd'),
    txRing: positive('iflib.override_ntxds') ?? positive('tx_ring_size') ?? positive('txd'),
    flowControl: number('fc') ?? number('flow_control'),
    adaptiveModeration: counters.has('enable_aim') ? counters.get('enable_aim')! > 0 : null,
    counters,
  };
}
