/**
 * `npm run bench:interfaces`: `nicdoctor analyze` of a snapshot with 10,000 interfaces (issue 13
 * measured 52 s and 1.4 GB before). The snapshot is generated: veth-like virtual interfaces,
 * each with the sysfs attributes a live host has. Prints the median wall time of the runs and
 * the peak resident memory; exits non-zero only when a run fails.
 *
 *   npm run bench:interfaces [-- --count 10000 --runs 3]
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

const COUNT = flag('--count', 10_000);
const RUNS = flag('--runs', 3);
const CLI = path.join(import.meta.dirname, '..', 'src', 'cli.js');

/** A snapshot directory with `count` virtual interfaces (veth0..), in the layout `collect` writes. */
export async function writeManyInterfaceSnapshot(root: string, count: number): Promise<void> {
  await writeFile(
    path.join(root, 'snapshot.json'),
    JSON.stringify({
      format: 'nicdoctor-snapshot',
      version: 1,
      description: `generated: ${count} virtual interfaces`,
      inventory: { hostname: 'many', kernel: '6.1.0', os: 'Debian GNU/Linux 12', arch: 'x64', cpuModel: 'generated', logicalCpus: 2, physicalCores: 2, virtualization: 'kvm', uid: 0 },
    }),
  );
  const net = path.join(root, 'fs', 'sys', 'class', 'net');
  await mkdir(net, { recursive: true });
  const names = Array.from({ length: count }, (_, index) => `veth${index}`);
  await writeFile(path.join(net, '.nicdoctor-listing'), JSON.stringify(names));
  for (let start = 0; start < count; start += 200) {
    await Promise.all(
      names.slice(start, start + 200).map(async (name) => {
        const dir = path.join(net, name);
        await mkdir(path.join(dir, 'statistics'), { recursive: true });
        const attributes: Record<string, string> = { mtu: '1500', operstate: 'up', carrier: '1', speed: '10000', duplex: 'full', type: '1', uevent: `INTERFACE=${name}\nIFINDEX=${start + 2}\n` };
        for (const counter of ['rx_packets', 'tx_packets', 'rx_dropped', 'rx_errors', 'rx_missed_errors', 'rx_fifo_errors']) attributes[`statistics/${counter}`] = '0';
        await Promise.all(Object.entries(attributes).map(([file, value]) => writeFile(path.join(dir, file), `${value}\n`)));
      }),
    );
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-many-'));
  try {
    const snapshot = path.join(dir, 'snap');
    await mkdir(snapshot);
    const built = performance.now();
    await writeManyInterfaceSnapshot(snapshot, COUNT);
    process.stdout.write(`generated ${COUNT} interfaces in ${((performance.now() - built) / 1000).toFixed(1)} s\n`);
    const times: number[] = [];
    let peakKb = 0;
    for (let run = 0; run < RUNS; run += 1) {
      const started = performance.now();
      // GNU time's %M: the peak resident set of the analysis, in KB.
      const argv = [process.execPath, CLI, 'analyze', snapshot, '--format', 'json', '-o', path.join(dir, 'report.json')];
      const result = existsSync('/usr/bin/time') ? await execa('/usr/bin/time', ['-f', '%M', ...argv], { reject: false, timeout: 600_000 }) : await execa(argv[0]!, argv.slice(1), { reject: false, timeout: 600_000 });
      const ms = performance.now() - started;
      if (result.exitCode !== 0 && result.exitCode !== 1) throw new Error(`analyze exited ${result.exitCode}: ${String(result.stderr).slice(-500)}`);
      peakKb = Math.max(peakKb, Number(String(result.stderr).trim().split('\n').at(-1)) || 0);
      times.push(ms);
      process.stdout.write(`run ${run + 1}: ${(ms / 1000).toFixed(2)} s\n`);
    }
    times.sort((a, b) => a - b);
    process.stdout.write(`analyze of ${COUNT} interfaces: median ${(times[Math.floor(times.length / 2)]! / 1000).toFixed(2)} s over ${RUNS} runs, peak RSS ${peakKb ? `${(peakKb / 1024).toFixed(0)} MB` : 'not measured (no /usr/bin/time)'}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench:interfaces: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}
