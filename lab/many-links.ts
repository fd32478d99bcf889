/**
 * One network namespace holding many software interfaces (veth pairs, both ends inside), for
 * the scan bench and the batching lab test: a host with 64 to 1,024 interfaces, as a
 * Kubernetes node or an OVS hypervisor has. The namespace is named `<prefix><pid>-<count>`;
 * everything lives inside it, so deleting it removes every link. Imports no test framework.
 */
import { execFileSync } from 'node:child_process';
import { findTool } from './lab.js';

export interface ManyLinks {
  ns: string;
  /** Interfaces made (veth ends and dummies, loopback not counted). */
  count: number;
  destroy(): void;
}

const MAX_LINKS = 4096;
const live = new Set<string>();
let hooked = false;

function ip(): string {
  const found = findTool('ip');
  if (!found) throw new Error('many-links: ip (iproute2) is not installed');
  return found;
}

function remove(ns: string): void {
  try {
    execFileSync(ip(), ['netns', 'delete', ns], { stdio: 'ignore', timeout: 30_000 });
  } catch {
    // already gone
  }
  live.delete(ns);
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => [...live].forEach(remove));
}

/** Removes namespaces of this prefix whose owner process is gone (a crashed earlier run). */
export function removeStaleManyLinks(prefix: string): string[] {
  const names = execFileSync(ip(), ['netns', 'list'], { encoding: 'utf8', timeout: 10_000 })
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '');
  const removed: string[] = [];
  for (const ns of names) {
    const owner = Number(new RegExp(`^${prefix}(\\d{1,10})-\\d{1,5}$`).exec(ns)?.[1]);
    if (!owner) continue;
    try {
      process.kill(owner, 0);
      continue; // its owner still runs
    } catch {
      remove(ns);
      removed.push(ns);
    }
  }
  return removed;
}

/** `count` interfaces, all up: count/2 veth pairs. */
export function createManyLinks(count: number, prefix: string): ManyLinks {
  if (!Number.isInteger(count) || count < 4 || count > MAX_LINKS || count % 2 !== 0)
    throw new Error(`many-links: count must be an even number in 4..${MAX_LINKS}, got ${count}`);
  if (!/^[a-z]{2,6}$/.test(prefix)) throw new Error(`many-links: prefix must be 2-6 lowercase letters, got "${prefix}"`);
  const ns = `${prefix}${process.pid}-${count}`;
  hookExit();
  execFileSync(ip(), ['netns', 'add', ns], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
  live.add(ns);
  try {
    const lines = ['link set lo up'];
    // veth rather than dummy: every kernel with namespaces has it (dummy is a module some lack).
    for (let index = 0; index < count / 2; index++) {
      lines.push(`link add v${index}a type veth peer name v${index}b`, `link set v${index}a up`, `link set v${index}b up`);
    }
    execFileSync(ip(), ['-n', ns, '-batch', '-'], { input: lines.join('\n') + '\n', stdio: ['pipe', 'ignore', 'pipe'], timeout: 120_000 });
  } catch (error) {
    remove(ns);
    throw error;
  }
  return { ns, count, destroy: () => remove(ns) };
}
