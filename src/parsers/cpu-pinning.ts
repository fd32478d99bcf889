import { KERNEL_INTERFACE_NAME } from './kernel-log.js';

/**
 * Test commands pasted into a ticket that were pinned to a single CPU: `taskset -c 0 iperf3 ...`,
 * `taskset 0x4 ./benchmark ...`, `numactl -C 3 netperf ...`, `numactl --physcpubind=2 ...`. A
 * process confined to one CPU is one core's worth of work, whatever threads or streams it starts:
 * at 10G and above that is the ceiling of the test, not of the NIC. Lines are capped and read
 * token by token: linear in the text.
 */

const MAX_LINES = 20_000;
/** A command line longer than this is not a command someone typed. */
const MAX_LINE = 2_000;
/** Wrappers in front of the pinned command that are not the command ("sudo taskset ...", "nohup"). */
const WRAPPERS = new Set(['sudo', 'nohup', 'exec', 'time', 'env', 'nice']);
/** numactl options that take no argument, so the word after them is the command. */
const NUMACTL_FLAGS = new Set(['-l', '--localalloc', '-a', '--all', '--strict', '-s', '--show', '-H', '--hardware']);

export interface PinnedTest {
  /** The pinned command's name ("iperf3", "benchmark"). */
  tool: string;
  /** The one CPU it was confined to. */
  cpu: number;
  /** The interface its arguments name (`--tcp-device enp4s0`, `--bind-dev=eth1`), null when none. */
  interface: string | null;
}

/**
 * The test the text runs pinned to one CPU, or null: when the pinned commands of the text use
 * different CPUs, they are processes spread by hand (the right way to test), not one core's worth.
 */
export function readPinnedTest(text: string): PinnedTest | null {
  const found: PinnedTest[] = [];
  for (const line of text.split('\n', MAX_LINES)) {
    if (line.length > MAX_LINE || !(line.includes('taskset') || line.includes('numactl'))) continue;
    const pinned = pinnedCommand(line.replace(/^[>\s$#`]+/, '').split(/\s+/));
    if (pinned) found.push(pinned);
  }
  if (!found.length || new Set(found.map((pin) => pin.cpu)).size !== 1) return null;
  return found.find((pin) => pin.interface !== null) ?? found[0]!;
}

function pinnedCommand(words: string[]): PinnedTest | null {
  const start = words.findIndex((word) => word === 'taskset' || word === 'numactl');
  if (start < 0) return null;
  const parsed = words[start] === 'taskset' ? tasksetCpu(words, start + 1) : numactlCpu(words, start + 1);
  if (!parsed) return null;
  let index = parsed.next;
  while (index < words.length && WRAPPERS.has(words[index]!)) index++;
  const command = words[index];
  if (!command || command.startsWith('-')) return null;
  const tool = command.split('/').at(-1)!.replace(/[`'"]/g, '');
  if (!/^[\w.+-]{1,40}$/.test(tool)) return null;
  const iface = words.slice(index + 1).find((word) => KERNEL_INTERFACE_NAME.test(word.replace(/^.*=/, ''))) ?? null;
  return { tool, cpu: parsed.cpu, interface: iface ? iface.replace(/^.*=/, '') : null };
}

/** `taskset -c N cmd`, `taskset --cpu-list N cmd`, `taskset MASK cmd` (one bit set); not `-p` (a running process). */
function tasksetCpu(words: string[], from: number): { cpu: number; next: number } | null {
  let index = from;
  if (words[index] === '-a' || words[index] === '--all-tasks') index++;
  const option = words[index];
  if (option === '-c' || option === '--cpu-list') return singleCpu(words[index + 1], index + 2);
  if (option === '-ac' || option === '-ca') return singleCpu(words[index + 1], index + 2);
  if (option === undefined || option.startsWith('-')) return null;
  const mask = /^(?:0x)?([0-9a-f]{1,16})$/i.exec(option);
  if (!mask) return null;
  const value = BigInt(`0x${mask[1]}`);
  if (value === 0n || (value & (value - 1n)) !== 0n) return null;
  return { cpu: value.toString(2).length - 1, next: index + 1 };
}

/** `numactl -C N cmd`, `numactl --physcpubind=N cmd`, with other options (`-m 0`) before the command. */
function numactlCpu(words: string[], from: number): { cpu: number; next: number } | null {
  let cpu: number | null = null;
  let index = from;
  while (index < words.length && words[index]!.startsWith('-')) {
    const word = words[index]!;
    const joined = /^(?:--physcpubind|-C)=?(.+)$/.exec(word);
    if (word === '-C' || word === '--physcpubind') {
      const single = singleCpu(words[index + 1], index + 2);
      if (!single) return null;
      cpu = single.cpu;
      index = single.next;
      continue;
    }
    if (joined) {
      const single = singleCpu(joined[1], index + 1);
      if (!single) return null;
      cpu = single.cpu;
    } else if (!NUMACTL_FLAGS.has(word) && !word.includes('=') && index + 1 < words.length && !words[index + 1]!.startsWith('-')) index++; // "-m 0", "-N 1"
    index++;
  }
  return cpu === null ? null : { cpu, next: index };
}

/** "3" or "3-3": one CPU; a list or a range of several is not. */
function singleCpu(list: string | undefined, next: number): { cpu: number; next: number } | null {
  const match = /^(\d{1,4})(?:-(\d{1,4}))?$/.exec(list ?? '');
  if (!match || (match[2] !== undefined && match[2] !== match[1])) return null;
  return { cpu: Number(match[1]), next };
}

/** Below this share of the link, no rate shown says the pinned test filled it. */
const SHORT_OF_LINK = 0.6;
/** One core moves a 1G or 2.5G link's worth easily: pinning matters from 10G up. */
const FAST_LINK_MBPS = 10_000;

/**
 * The pinned test with the link it ran on, when that is a fast link (`linkMbps`) and none of the
 * rates the text shows (Mb/s; null for a tool it does not show) reaches 60 % of it; else null.
 */
export function pinnedTestShortOfLink(
  pinned: PinnedTest | null,
  linkMbps: number | null | undefined,
  ratesMbps: ReadonlyArray<number | null>,
): (PinnedTest & { linkMbps: number }) | null {
  if (!pinned || !linkMbps || linkMbps < FAST_LINK_MBPS) return null;
  const best = Math.max(0, ...ratesMbps.map((rate) => rate ?? 0));
  return best >= SHORT_OF_LINK * linkMbps ? null : { ...pinned, linkMbps };
}
