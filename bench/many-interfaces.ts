/**
 * `npm run bench:interfaces`: `nicdoctor analyze` of a snapshot with 10,000 interfaces (issue 13
 * measured 52 s and 1.4 GB before). The snapshot is generated: veth-like virtual interfaces,
 * each with the sysfs attributes a live host has. Prints the median wall time of the runs and
 * the peak resident memory; exits non-zero only when a run fails.
 *
 *   npm run bench:interfaces [-- --count 10000 --runs 3 --timeout 600]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
const TIMEOUT_MS = flag('--timeout', 600) * 1000;
const readStatus = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
};
const CLI = path.join(import.meta.dirname, '..', 'src', 'cli.js');

/** A snapshot directory with `count` virtual interfaces (veth0..), in the layout `collect` writes. */
export async function writeManyInterfaceSnapshot(root: string, count: number): Promise<void> {
  await writeFile(
    path.join(root, 'snapshot.json'),
    JSON.stringify({
      format: 'nicdoctor-snapshot',
      version: 1,
      description: `generated: ${count} virtual interfaces`,
      inventory: {
        hostname: 'many',
        kernel: '6.1.0',
        os: 'Debian GNU/Linux 12',
        arch: 'x64',
        cpuModel: 'generated',
        logicalCpus: 2,
        physicalCores: 2,
        virtualization: 'kvm',
        uid: 0,
      },
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
        const attributes: Record<string, string> = {
          mtu: '1500',
          operstate: 'up',
          carrier: '1',
          speed: '10000',
          duplex: 'full',
          type: '1',
          uevent: `INTERFACE=${name}\nIFINDEX=${start + 2}\n`,
        };
        for (const counter of ['rx_packets', 'tx_packets', 'rx_dropped', 'rx_errors', 'rx_missed_errors', 'rx_fifo_errors'])
          attributes[`statistics/${counter}`] = '0';
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
      const child = execa(process.execPath, [CLI, 'analyze', snapshot, '--format', 'json', '-o', path.join(dir, 'report.json')], {
        reject: false,
        timeout: TIMEOUT_MS,
        killSignal: 'SIGKILL',
      });
      // VmHWM is the peak resident set so far: polled, its last reading is the run's peak.
      let runPeakKb = 0;
      const poll = setInterval(() => {
        const status = child.pid ? readStatus(child.pid) : '';
        runPeakKb = Math.max(runPeakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
      }, 100);
      const result = await child.finally(() => clearInterval(poll));
      const ms = performance.now() - started;
      if (result.timedOut) throw new Error(`analyze of ${COUNT} interfaces did not finish within ${TIMEOUT_MS / 1000} s`);
      if (result.exitCode !== 0 && result.exitCode !== 1)
        throw new Error(`analyze exited ${result.exitCode}: ${String(result.stderr).slice(-500)}`);
      peakKb = Math.max(peakKb, runPeakKb);
      times.push(ms);
      process.stdout.write(`run ${run + 1}: ${(ms / 1000).toFixed(2)} s\n`);
    }
    times.sort((a, b) => a - b);
    process.stdout.write(
      `analyze of ${COUNT} interfaces: median ${(times[Math.floor(times.length / 2)]! / 1000).toFixed(2)} s over ${RUNS} runs, peak RSS ${(peakKb / 1024).toFixed(0)} MB\n`,
    );
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
