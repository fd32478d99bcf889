/**
 * The lab module itself (lab/lab.ts): what later bench and fault-injection tests rely on.
 * Real namespaces, veths, qdiscs, iptables rules and a short iperf3 run between the namespaces.
 */
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lab/cli.js';
import { cleanupStale, createLab, labAvailable, type Lab } from '../../lab/lab.js';

const skipReason = labAvailable();
if (skipReason) console.warn(`lab module tests skipped: ${skipReason}`);

const namespaces = () =>
  execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter(Boolean);
const BUILT_LAB = path.join(REPO_ROOT, 'dist', 'lab', 'lab.js');

/** iperf3 client → server for `seconds`; returns received bits per second. */
async function iperf(lab: Lab, seconds: number): Promise<number> {
  const run = await lab.exec('a', ['iperf3', '-c', lab.b.address, '-t', String(seconds), '-J'], { timeoutMs: (seconds + 10) * 1000 });
  const result = JSON.parse(run.stdout) as { end: { sum_received: { bits_per_second: number } } };
  return result.end.sum_received.bits_per_second;
}

describe.skipIf(skipReason)('createLab: two namespaces joined by a veth pair', () => {
  let lab: Lab;
  beforeAll(async () => {
    cleanupStale();
    lab = await createLab();
  });
  afterAll(async () => {
    await lab?.destroy();
  });

  it('names carry the run tag, fit IFNAMSIZ, and the ends are up with their addresses', async () => {
    expect(lab.namespaces).toHaveLength(2);
    expect(lab.ns.a).not.toBe(lab.ns.b);
    for (const ns of lab.namespaces) expect(ns).toContain(`-${process.pid}-`);
    for (const end of [lab.a, lab.b]) {
      expect(end.iface.startsWith(lab.tag)).toBe(true);
      expect(end.iface.length).toBeLessThanOrEqual(15);
      const { stdout } = await lab.exec(end.side, ['ip', '-o', 'addr', 'show', 'dev', end.iface]);
      expect(stdout).toContain(`inet ${end.cidr}`);
      expect((await lab.exec(end.side, ['cat', `/sys/class/net/${end.iface}/operstate`])).stdout.trim()).toBe('up');
    }
    // Nothing in the root namespace.
    expect(execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })).not.toContain(lab.tag);
    expect(lab.a.address).toMatch(/^10\.213\.\d+\.1$/);
  });

  it('exec throws with the command and its stderr, or returns them when reject is false', async () => {
    await expect(lab.exec('a', ['ip', 'link', 'show', 'dev', 'nosuchdev0'])).rejects.toThrow(/nosuchdev0.*exited 1/);
    const run = await lab.exec('a', ['ip', 'link', 'show', 'dev', 'nosuchdev0'], { reject: false });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/nosuchdev0/);
    await expect(lab.exec('a', ['sleep', '5'], { timeoutMs: 200 })).rejects.toThrow(/timed out/);
  });

  it('rateCap, dropRandom, offloads, channels and mtu change the namespaces they should', async () => {
    await lab.rateCap('a', '2gbit');
    expect((await lab.exec('a', ['tc', 'qdisc', 'show', 'dev', lab.a.iface])).stdout).toMatch(/tbf .*rate 2Gbit/);
    await lab.dropRandom('b', 5201, 0.005);
    expect((await lab.exec('b', ['iptables', '-S', 'INPUT'])).stdout).toMatch(
      new RegExp(`-i ${lab.b.iface} .*--dport 5201 .*statistic --mode random --probability 0.00\\d+ -j DROP`),
    );
    expect((await lab.exec('a', ['iptables', '-S', 'INPUT'])).stdout).not.toContain('DROP');
    await lab.offloads('a', { tso: false, gso: false });
    const features = (await lab.exec('a', ['ethtool', '-k', lab.a.iface])).stdout;
    expect(features).toMatch(/tcp-segmentation-offload: off/);
    expect(features).toMatch(/generic-segmentation-offload: off/);
    await lab.channels('a', 2);
    expect((await lab.exec('a', ['ethtool', '-l', lab.a.iface])).stdout).toMatch(/Current hardware settings:\s+RX:\s+2\s+TX:\s+2/);
    await lab.mtu('b', 9000);
    expect((await lab.exec('b', ['cat', `/sys/class/net/${lab.b.iface}/mtu`])).stdout.trim()).toBe('9000');
    await lab.clearQdisc('a');
    expect((await lab.exec('a', ['tc', 'qdisc', 'show', 'dev', lab.a.iface])).stdout).not.toContain('tbf');
    await lab.offloads('a', { tso: true, gso: true });
    await lab.mtu('b', 1500);
  });

  it('carries real TCP traffic between the namespaces, and a tbf cap lowers it', async () => {
    void lab.spawn('b', ['iperf3', '-s', '-B', lab.b.address]); // reject: false, killed by destroy()
    // The server needs a moment to listen; bounded retries.
    let free = 0;
    for (let attempt = 0; attempt < 20 && free === 0; attempt++) {
      free = await iperf(lab, 1).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return 0;
      });
    }
    expect(free).toBeGreaterThan(0);
    await lab.rateCap('a', '500mbit');
    const capped = await iperf(lab, 1);
    await lab.clearQdisc('a');
    // LAB.md: only ratios measured in the same test, with wide margins (uncapped is ~10 Gb/s).
    expect(capped / free).toBeLessThan(0.5);
  });
});

describe.skipIf(skipReason)('createLab: many pairs in one namespace, and teardown', () => {
  it('puts 8 pairs in one namespace, and destroy removes it and what runs in it, twice safely', async () => {
    const lab = await createLab({ pairs: 8, namespaces: 1 });
    try {
      expect(lab.namespaces).toHaveLength(1);
      expect(lab.pairs).toHaveLength(8);
      const names = (await lab.exec('a', ['ls', '/sys/class/net'])).stdout.split(/\s+/).filter(Boolean).sort();
      expect(names).toEqual(['lo', ...lab.pairs.flatMap((pair) => [pair.a.iface, pair.b.iface])].sort());
      expect(new Set(lab.pairs.flatMap((pair) => [pair.a.address, pair.b.address])).size).toBe(16);
      const sleeper = lab.spawn('a', ['sleep', '60']);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await lab.destroy();
      await lab.destroy();
      expect(namespaces()).not.toContain(lab.ns.a);
      const ended = await sleeper;
      expect(ended.exitCode === 0).toBe(false);
    } finally {
      await lab.destroy();
    }
  });

  it('a process that exits or is interrupted without destroy() leaves no namespace behind', async () => {
    for (const how of ['exit', 'SIGINT', 'SIGTERM'] as const) {
      const script = `const { createLab } = await import(${JSON.stringify(BUILT_LAB)}); const lab = await createLab(); console.log(lab.namespaces.join(' ')); ${
        how === 'exit' ? 'process.exit(0);' : 'setTimeout(() => {}, 60000);'
      }`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const created = await new Promise<string[]>((resolve, reject) => {
        child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim().split(' ')));
        child.once('exit', (code) => reject(new Error(`child exited ${code} before creating its lab`)));
      });
      expect(created).toHaveLength(2);
      if (how !== 'exit') child.kill(how);
      await new Promise((resolve) =>
        child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve),
      );
      for (const ns of created) expect(namespaces(), `${how}: ${ns}`).not.toContain(ns);
    }
  });

  it('cleanupStale removes namespaces of dead runs only', async () => {
    const dead = spawn('true');
    await new Promise((resolve) => dead.once('exit', resolve));
    const staleName = `ndzzzz0-${dead.pid}-a`;
    const liveName = `ndzzzz1-${process.pid}-a`;
    execFileSync('ip', ['netns', 'add', staleName]);
    execFileSync('ip', ['netns', 'add', liveName]);
    try {
      const removed = cleanupStale();
      expect(removed).toContain(staleName);
      expect(removed).not.toContain(liveName);
      expect(namespaces()).not.toContain(staleName);
      expect(namespaces()).toContain(liveName);
    } finally {
      for (const ns of namespaces().filter((name) => name === staleName || name === liveName)) execFileSync('ip', ['netns', 'delete', ns]);
    }
  });
});
