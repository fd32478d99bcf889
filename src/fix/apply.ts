/**
 * Applies whitelisted changes and reverts them. Before each change the current value is read
 * (ethtool -k/-l/-g/-c/-a, /proc/sys) and the restoring command computed from it; all of them
 * are saved before the first change runs. Commands run as argv arrays with timeouts through
 * HostIO, never through a shell.
 */
import { parseEthtoolChannels } from '../parsers/ethtool-channels.js';
import { parseEthtoolCoalesce } from '../parsers/ethtool-coalesce.js';
import { parseEthtoolFeatures } from '../parsers/ethtool-features.js';
import { parseEthtoolPause } from '../parsers/ethtool-pause.js';
import { parseEthtoolRings } from '../parsers/ethtool-rings.js';
import type { HostIO } from '../hostio/types.js';
import type { ApplyItem } from './plan.js';
import { removeState, writeState, type FixState, type StateEntry } from './state.js';
import { currentHostId } from './host-id.js';
import {
  ETHTOOL_FLAGS,
  ethtoolSettings,
  normalizeSysctlValue,
  sysctlPath,
  withEthtoolSettings,
  type EthtoolOperation,
} from './operations.js';
import { changeArgv, checkSysctl, type Change } from './vocabulary.js';

export const CHANGE_TIMEOUT_MS = 15_000;

/** The commands nicdoctor runs: exec and readFile of HostIO (LiveHostIO in the CLI). */
export type FixIO = Pick<HostIO, 'exec' | 'readFile'>;

/** ethtool -K short names → the long names `ethtool -k` prints (off_flag_def in ethtool.c). */
const FEATURE_LONG_NAMES: Record<string, string> = {
  rx: 'rx-checksumming',
  tx: 'tx-checksumming',
  sg: 'scatter-gather',
  tso: 'tcp-segmentation-offload',
  ufo: 'udp-fragmentation-offload',
  gso: 'generic-segmentation-offload',
  gro: 'generic-receive-offload',
  lro: 'large-receive-offload',
  rxvlan: 'rx-vlan-offload',
  txvlan: 'tx-vlan-offload',
  ntuple: 'ntuple-filters',
  rxhash: 'receive-hashing',
};

const RING_FIELDS = { rx: 'rx', 'rx-mini': 'rxMini', 'rx-jumbo': 'rxJumbo', tx: 'tx' } as const;
const PAUSE_FIELDS = { autoneg: 'autonegotiate', rx: 'rx', tx: 'tx' } as const;

const onOff = (value: boolean | null | undefined) => (value === true ? 'on' : value === false ? 'off' : null);

async function run(io: FixIO, argv: string[]): Promise<string> {
  const result = await io.exec(argv, { timeoutMs: CHANGE_TIMEOUT_MS });
  if (result.exitCode !== 0) {
    const stderr = result.stderr.trim().split('\n').slice(-2).join(' | ');
    throw new Error(`\`${argv.join(' ')}\` exited ${result.exitCode}${stderr ? `: ${stderr}` : ''}`);
  }
  return result.stdout;
}

/** Current values of the settings an ethtool change touches, by setting name. */
async function readEthtool(io: FixIO, change: EthtoolOperation): Promise<Record<string, string>> {
  const text = await run(io, ['ethtool', ETHTOOL_FLAGS[change.kind].read, change.iface]);
  const values: Record<string, string | null> = {};
  for (const [name] of ethtoolSettings(change)) {
    switch (change.kind) {
      case 'ethtool-features': {
        const features = parseEthtoolFeatures(text).features;
        values[name] = onOff(features[FEATURE_LONG_NAMES[name] ?? name]?.active);
        break;
      }
      case 'ethtool-channels': {
        const current = parseEthtoolChannels(text).current;
        const count = current[name as keyof typeof current];
        values[name] = count === null || count === undefined ? null : String(count);
        break;
      }
      case 'ethtool-rings': {
        const current = parseEthtoolRings(text).current;
        const size = current[RING_FIELDS[name as keyof typeof RING_FIELDS]];
        values[name] = size === null || size === undefined ? null : String(size);
        break;
      }
      case 'ethtool-coalesce': {
        const coalesce = parseEthtoolCoalesce(text);
        if (name === 'adaptive-rx') values[name] = onOff(coalesce.adaptiveRx);
        else if (name === 'adaptive-tx') values[name] = onOff(coalesce.adaptiveTx);
        else {
          const number = coalesce.values[name];
          values[name] = number === null || number === undefined ? null : String(number);
        }
        break;
      }
      case 'ethtool-pause': {
        const pause = parseEthtoolPause(text);
        values[name] = onOff(pause[PAUSE_FIELDS[name as keyof typeof PAUSE_FIELDS]]);
        break;
      }
    }
  }
  const missing = Object.entries(values)
    .filter(([, value]) => value === null)
    .map(([name]) => name);
  if (missing.length)
    throw new Error(
      `\`ethtool ${ETHTOOL_FLAGS[change.kind].read} ${change.iface}\` does not report ${missing.join(', ')}: the change could not be reverted, so it is not made`,
    );
  return values as Record<string, string>;
}

export interface Snapshot {
  before: Record<string, string>;
  revert: Change;
}

/** Reads what a change will overwrite and builds the change that restores it. */
export async function snapshot(io: FixIO, change: Change): Promise<Snapshot> {
  if (change.kind === 'sysctl') {
    let raw: string;
    try {
      raw = await io.readFile(sysctlPath(change.key));
    } catch (error) {
      throw new Error(
        `${change.key}: cannot read ${sysctlPath(change.key)} (${(error as Error).message}); not set in this network namespace?`,
      );
    }
    const value = normalizeSysctlValue(raw);
    const revert = checkSysctl(change.key, value);
    if (!revert.ok) throw new Error(`${change.key}: the current value "${value}" cannot be restored by nicdoctor (${revert.reason})`);
    return { before: { [change.key]: value }, revert: revert.change };
  }
  const before = await readEthtool(io, change);
  return {
    before,
    revert: withEthtoolSettings(
      change,
      ethtoolSettings(change).map(([name]) => [name, before[name]!]),
    ),
  };
}

export interface ChangeResult {
  ruleId: string;
  command: string[];
  ok: boolean;
  /** Why it failed; for ok, unset. */
  error?: string;
  /** False when the change failed and nothing was left to revert. */
  kept: boolean;
}

/** The values a change sets, by setting name (what `after` records in the state). */
export function requested(change: Change): Record<string, string> {
  return change.kind === 'sysctl' ? { [change.key]: change.value } : Object.fromEntries(ethtoolSettings(change));
}

/**
 * Runs a change and reads the values back: procps `sysctl -w` exits 0 on "Invalid argument",
 * and a driver may keep a feature off, so the exit code alone does not prove anything changed.
 */
export async function runAndVerify(io: FixIO, change: Change): Promise<void> {
  await run(io, changeArgv(change));
  const now = (await snapshot(io, change)).before;
  const wanted = requested(change);
  const differ = Object.keys(wanted).filter((key) => now[key] !== wanted[key]);
  if (differ.length)
    throw new Error(
      `\`${changeArgv(change).join(' ')}\` ran, but ${differ.map((key) => `${key} is ${now[key]}`).join(', ')} afterwards (not what was asked)`,
    );
}

export function sameValues(a: Record<string, string>, b: Record<string, string>): boolean {
  return Object.keys(a).every((key) => a[key] === b[key]);
}

/**
 * Saves the state, then applies each change. A change whose current value cannot be read is
 * not made. A failed change stays in the state only when it changed something (a read-only
 * sysctl changes nothing). Throws only when the state file cannot be written.
 */
export async function applyChanges(
  io: FixIO,
  items: readonly ApplyItem[],
  stateFile: string,
  host: string,
  hostId = currentHostId(),
): Promise<ChangeResult[]> {
  const results: ChangeResult[] = [];
  const entries: { entry: StateEntry; change: Change }[] = [];
  for (const item of items) {
    try {
      const { before, revert } = await snapshot(io, item.change);
      entries.push({
        change: item.change,
        entry: {
          ruleId: item.ruleId,
          apply: changeArgv(item.change),
          revert: changeArgv(revert),
          revertOperation: revert,
          operation: item.change,
          before,
          after: requested(item.change),
          status: 'pending',
        },
      });
    } catch (error) {
      results.push({ ruleId: item.ruleId, command: changeArgv(item.change), ok: false, error: (error as Error).message, kept: false });
    }
  }
  if (entries.length === 0) return results;
  const state: FixState = {
    format: 'nicdoctor-fix-state/1',
    createdAt: new Date().toISOString(),
    host,
    hostId,
    entries: entries.map(({ entry }) => entry),
  };
  await writeState(stateFile, state);

  for (const { entry, change } of entries) {
    try {
      await runAndVerify(io, change);
      entry.status = 'applied';
      results.push({ ruleId: entry.ruleId, command: entry.apply, ok: true, kept: true });
    } catch (error) {
      const message = (error as Error).message;
      const after = await snapshot(io, change).catch(() => null);
      const unchanged = after !== null && sameValues(entry.before, after.before);
      entry.status = 'partial';
      entry.error = message;
      results.push({ ruleId: entry.ruleId, command: entry.apply, ok: false, error: message, kept: !unchanged });
      if (unchanged) state.entries = state.entries.filter((candidate) => candidate !== entry);
    }
  }
  if (state.entries.length) await writeState(stateFile, state);
  else await removeState(stateFile);
  return results;
}
