/**
 * The only changes `nicdoctor fix --apply` may make: ethtool -K/-L/-G/-C/-A on a valid
 * interface name and `sysctl -w` of net.* keys. Anything else in a fix is printed for a human,
 * never run. Each change can be read back (ethtool -k/-l/-g/-c/-a, /proc/sys), which is what
 * makes it revertible.
 */
import { isValidInterfaceName } from '../util/validate.js';
import { shellJoin, splitSimpleCommand } from './shell.js';

export type EthtoolOp = 'features' | 'channels' | 'rings' | 'coalesce' | 'pause';

export interface EthtoolChange {
  tool: 'ethtool';
  op: EthtoolOp;
  iface: string;
  /** [name, value] in the order given, each name once. */
  settings: [string, string][];
}

export interface SysctlChange {
  tool: 'sysctl';
  key: string;
  value: string;
}

export type Change = EthtoolChange | SysctlChange;

export type ParsedCommand = { ok: true; changes: Change[] } | { ok: false; reason: string };

/** The set flag of each op (and its long aliases), and the read flag that shows the values. */
export const ETHTOOL_OPS: Record<EthtoolOp, { set: string; read: string; aliases: string[] }> = {
  features: { set: '-K', read: '-k', aliases: ['--features', '--offload'] },
  channels: { set: '-L', read: '-l', aliases: ['--set-channels'] },
  rings: { set: '-G', read: '-g', aliases: ['--set-ring'] },
  coalesce: { set: '-C', read: '-c', aliases: ['--coalesce'] },
  pause: { set: '-A', read: '-a', aliases: ['--pause'] },
};

const ON_OFF = /^(on|off)$/;
const COUNT = /^(0|[1-9][0-9]{0,6})$/;

const CHANNEL_NAMES = new Set(['rx', 'tx', 'other', 'combined']);
const RING_NAMES = new Set(['rx', 'rx-mini', 'rx-jumbo', 'tx']);
const PAUSE_NAMES = new Set(['autoneg', 'rx', 'tx']);
const COALESCE_FLAGS = new Set(['adaptive-rx', 'adaptive-tx']);
/** Numeric coalescing parameters that `ethtool -c` prints, so they can be read back. */
const COALESCE_NUMBERS = new Set([
  'rx-usecs', 'rx-frames', 'rx-usecs-irq', 'rx-frames-irq',
  'tx-usecs', 'tx-frames', 'tx-usecs-irq', 'tx-frames-irq',
  'stats-block-usecs', 'sample-interval', 'pkt-rate-low', 'pkt-rate-high',
  'rx-usecs-low', 'rx-frames-low', 'tx-usecs-low', 'tx-frames-low',
  'rx-usecs-high', 'rx-frames-high', 'tx-usecs-high', 'tx-frames-high',
]);

function checkSetting(op: EthtoolOp, name: string, value: string): string | undefined {
  switch (op) {
    case 'features':
      if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(name)) return `"${name}" is not an offload feature name`;
      return ON_OFF.test(value) ? undefined : `${name} must be on or off, not "${value}"`;
    case 'channels':
      if (!CHANNEL_NAMES.has(name)) return `"${name}" is not a channel type (rx, tx, other, combined)`;
      return COUNT.test(value) ? undefined : `${name} must be a count, not "${value}"`;
    case 'rings':
      if (!RING_NAMES.has(name)) return `"${name}" is not a ring (rx, rx-mini, rx-jumbo, tx)`;
      return COUNT.test(value) && value !== '0' ? undefined : `${name} must be a positive size, not "${value}"`;
    case 'coalesce':
      if (COALESCE_FLAGS.has(name)) return ON_OFF.test(value) ? undefined : `${name} must be on or off, not "${value}"`;
      if (COALESCE_NUMBERS.has(name)) return COUNT.test(value) ? undefined : `${name} must be a number, not "${value}"`;
      return `"${name}" is not a coalescing parameter nicdoctor can read back`;
    case 'pause':
      if (!PAUSE_NAMES.has(name)) return `"${name}" is not a pause parameter (autoneg, rx, tx)`;
      return ON_OFF.test(value) ? undefined : `${name} must be on or off, not "${value}"`;
  }
}

function opForFlag(flag: string): EthtoolOp | undefined {
  return (Object.keys(ETHTOOL_OPS) as EthtoolOp[]).find((op) => ETHTOOL_OPS[op].set === flag || ETHTOOL_OPS[op].aliases.includes(flag));
}

function parseEthtool(args: string[]): ParsedCommand {
  const [flag, iface, ...rest] = args;
  const op = flag === undefined ? undefined : opForFlag(flag);
  if (!op) return { ok: false, reason: `ethtool ${flag ?? ''} is not one of the settings nicdoctor applies (-K, -L, -G, -C, -A)`.replace(/ +is/, ' is') };
  // A name starting with "-" would be read by ethtool as an option.
  if (iface === undefined || !isValidInterfaceName(iface) || iface.startsWith('-')) return { ok: false, reason: `${JSON.stringify(iface ?? '')} is not a valid interface name` };
  if (rest.length === 0 || rest.length % 2 !== 0) return { ok: false, reason: `ethtool ${flag} ${iface}: settings must come as name/value pairs` };
  const settings: [string, string][] = [];
  for (let index = 0; index < rest.length; index += 2) {
    const name = rest[index]!;
    const value = rest[index + 1]!;
    const problem = checkSetting(op, name, value);
    if (problem) return { ok: false, reason: `ethtool ${flag} ${iface}: ${problem}` };
    if (settings.some(([seen]) => seen === name)) return { ok: false, reason: `ethtool ${flag} ${iface}: ${name} is given twice` };
    settings.push([name, value]);
  }
  return { ok: true, changes: [{ tool: 'ethtool', op, iface, settings }] };
}

/** net.* keys in dotted form: no "/" (a path), no "..", no empty component. */
const SYSCTL_KEY = /^net(\.[A-Za-z0-9_+-]{1,64}){1,8}$/;
const SYSCTL_VALUE = /^[A-Za-z0-9_.,:+-]+( [A-Za-z0-9_.,:+-]+)*$/;

/** "4096\t87380  6291456" → "4096 87380 6291456": /proc/sys prints tabs, sysctl.d uses spaces. */
export function normalizeSysctlValue(value: string): string {
  return value.trim().split(/\s+/).join(' ');
}

export function checkSysctl(key: string, rawValue: string): { ok: true; change: SysctlChange } | { ok: false; reason: string } {
  if (!SYSCTL_KEY.test(key)) return { ok: false, reason: `sysctl ${key}: only net.* keys are applied` };
  const value = normalizeSysctlValue(rawValue);
  if (value.length === 0 || value.length > 256 || !SYSCTL_VALUE.test(value)) return { ok: false, reason: `sysctl ${key}: "${rawValue}" is not a plain value` };
  return { ok: true, change: { tool: 'sysctl', key, value } };
}

function parseSysctl(args: string[]): ParsedCommand {
  const [flag, ...assignments] = args;
  if (flag !== '-w' && flag !== '--write') return { ok: false, reason: `sysctl ${flag ?? ''}: only sysctl -w key=value is applied`.replace(' :', ':') };
  if (assignments.length === 0) return { ok: false, reason: 'sysctl -w: no key=value' };
  const changes: Change[] = [];
  for (const assignment of assignments) {
    const equals = assignment.indexOf('=');
    if (equals <= 0) return { ok: false, reason: `sysctl -w ${assignment}: not key=value` };
    const checked = checkSysctl(assignment.slice(0, equals), assignment.slice(equals + 1));
    if (!checked.ok) return checked;
    changes.push(checked.change);
  }
  return { ok: true, changes };
}

/** Parses a fix command (shell text or argv) into whitelisted changes, or says why not. */
export function parseCommand(command: string | readonly string[]): ParsedCommand {
  const argv = typeof command === 'string' ? splitSimpleCommand(command.trim()) : [...command];
  if (!argv || argv.length === 0) return { ok: false, reason: 'not a simple command (shell operators, expansions or quoting nicdoctor does not run)' };
  const [tool, ...args] = argv;
  if (tool === 'ethtool') return parseEthtool(args);
  if (tool === 'sysctl') return parseSysctl(args);
  return { ok: false, reason: `${tool} is not in the vocabulary nicdoctor applies (ethtool -K/-L/-G/-C/-A, sysctl -w net.*)` };
}

/** The argv that makes a change (never a shell string). */
export function changeArgv(change: Change): string[] {
  if (change.tool === 'sysctl') return ['sysctl', '-w', `${change.key}=${change.value}`];
  return ['ethtool', ETHTOOL_OPS[change.op].set, change.iface, ...change.settings.flat()];
}

export function changeText(change: Change): string {
  return shellJoin(changeArgv(change));
}

/** /proc/sys path of a dotted net.* key. */
export function sysctlPath(key: string): string {
  return `/proc/sys/${key.split('.').join('/')}`;
}
