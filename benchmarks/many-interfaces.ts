/**
 * `npm run bench:interfaces`: `nicdoctor analyze` of generated snapshots with 1,000 and 10,000
 * interfaces, side by side with Debian's prometheus-node-exporter reading the same tree
 * (`--path.sysfs=<snapshot>/fs/sys --collector.disable-defaults --collector.netclass`, on a
 * loopback port, one HTTP GET of /metrics per run). The snapshot is generated: veth-like
 * virtual interfaces, each with the sysfs attributes a live host has. The two run in turn,
 * A B A B ..., so a machine whose speed drifts slows both alike; it prints the medians, their
 * ratio (target: <= 2x at 10,000), nicdoctor's peak resident memory (target: <= 300 MB) and the
 * load average. Exits non-zero only when a run fails. node_exporter comes from
 * `apt-get install prometheus-node-exporter` (scripts/install-system-deps.sh --tests); without
 * it only analyze is timed.
 *
 *   npm run bench:interfaces [-- --counts 1000,10000 --runs 3 --timeout 600]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

function counts(): number[] {
  const index = process.argv.indexOf('--counts');
  const single = process.argv.indexOf('--count');
  const text = index >= 0 ? process.argv[index + 1] : single >= 0 ? process.argv[single + 1] : '1000,10000';
  const values = (text ?? '').split(',').map(Number);
  if (!values.length || values.some((value) => !Number.isInteger(value) || value < 1 || value > 100_000))
    throw new Error('--counts must be whole numbers from 1 to 100000, comma-separated');
  return values;
}

const COUNTS = counts();
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

const NODE_EXPORTER = '/usr/bin/prometheus-node-exporter';
/** A loopback port for node_exporter, away from its default 9100 (a real one may listen there). */
const EXPORTER_PORT = 19_100 + (process.pid % 500);

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** One `nicdoctor analyze` of the snapshot: wall seconds and peak resident memory (KB). */
async function analyzeOnce(snapshot: string, output: string): Promise<{ seconds: number; peakKb: number }> {
  rmSync(output, { force: true });
  const started = performance.now();
  const child = execa(process.execPath, [CLI, 'analyze', snapshot, '--format', 'json', '-o', output], {
    reject: false,
    timeout: TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  // VmHWM is the peak resident set so far: polled, its last reading is the run's peak.
  let peakKb = 0;
  const poll = setInterval(() => {
    const status = child.pid ? readStatus(child.pid) : '';
    peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
  }, 50);
  const result = await child.finally(() => clearInterval(poll));
  const seconds = (performance.now() - started) / 1000;
  if (result.timedOut) throw new Error(`analyze did not finish within ${TIMEOUT_MS / 1000} s`);
  if (result.exitCode !== 0 && result.exitCode !== 1)
    throw new Error(`analyze exited ${result.exitCode}: ${String(result.stderr).slice(-500)}`);
  // Exit 1 is "findings"; without a report it is a crash (a rebuild under way removed dist/).
  if (!existsSync(output)) throw new Error(`analyze exited ${result.exitCode} without a report: ${String(result.stderr).slice(-500)}`);
  return { seconds, peakKb };
}

/** node_exporter serving the snapshot's sysfs on loopback; stopped by the returned function. */
async function startExporter(snapshot: string): Promise<() => void> {
  const child = spawn(
    NODE_EXPORTER,
    [
      `--path.sysfs=${path.join(snapshot, 'fs', 'sys')}`,
      '--collector.disable-defaults',
      '--collector.netclass',
      `--web.listen-address=127.0.0.1:${EXPORTER_PORT}`,
    ],
    { stdio: 'ignore', timeout: TIMEOUT_MS * RUNS * 2, killSignal: 'SIGKILL' },
  );
  const stop = () => child.kill('SIGKILL');
  // Ready when it answers on its port (it prints nothing useful to wait for).
  for (let attempt = 0; attempt < 100; attempt += 1) {
    try {
      const response = await fetch(`http://127.0.0.1:${EXPORTER_PORT}/`, { signal: AbortSignal.timeout(1000) });
      await response.text();
      return stop;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  stop();
  throw new Error(`${NODE_EXPORTER} did not answer on 127.0.0.1:${EXPORTER_PORT}`);
}

/** One scrape of /metrics: wall seconds; checks that every generated interface is in it. */
async function scrapeOnce(count: number): Promise<number> {
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${EXPORTER_PORT}/metrics`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  const body = await response.text();
  const seconds = (performance.now() - started) / 1000;
  if (!response.ok || !body.includes(`device="veth${count - 1}"`))
    throw new Error(`node_exporter's scrape (HTTP ${response.status}) does not hold the ${count} interfaces`);
  return seconds;
}

async function benchCount(dir: string, count: number): Promise<void> {
  const snapshot = path.join(dir, `snap-${count}`);
  await mkdir(snapshot);
  const built = performance.now();
  await writeManyInterfaceSnapshot(snapshot, count);
  process.stdout.write(`generated ${count} interfaces in ${((performance.now() - built) / 1000).toFixed(1)} s\n`);
  const exporter = existsSync(NODE_EXPORTER);
  const stop = exporter ? await startExporter(snapshot) : undefined;
  const analyzed: number[] = [];
  const scraped: number[] = [];
  const ratios: number[] = [];
  let peakKb = 0;
  const loadBefore = os.loadavg()[0]!.toFixed(2);
  try {
    if (exporter) await scrapeOnce(count); // warm-up: the tree into the page cache
    for (let run = 0; run < RUNS; run += 1) {
      const analysis = await analyzeOnce(snapshot, path.join(dir, 'report.json'));
      analyzed.push(analysis.seconds);
      peakKb = Math.max(peakKb, analysis.peakKb);
      const scrape = exporter ? await scrapeOnce(count) : undefined;
      if (scrape !== undefined) {
        scraped.push(scrape);
        ratios.push(analysis.seconds / scrape);
      }
      process.stdout.write(
        `  run ${run + 1}: analyze ${analysis.seconds.toFixed(2)} s${scrape === undefined ? '' : `, node_exporter scrape ${scrape.toFixed(2)} s`}\n`,
      );
    }
  } finally {
    stop?.();
    rmSync(snapshot, { recursive: true, force: true });
  }
  const load = `load average ${loadBefore} before, ${os.loadavg()[0]!.toFixed(2)} after`;
  process.stdout.write(
    `${count} interfaces, median of ${RUNS} alternate runs (${load}): analyze ${median(analyzed).toFixed(2)} s, peak RSS ${(peakKb / 1024).toFixed(0)} MB` +
      (exporter
        ? `; node_exporter netclass scrape ${median(scraped).toFixed(2)} s; ratio ${median(ratios).toFixed(2)}x (median of the pairs)\n`
        : `; node_exporter not installed (${NODE_EXPORTER}), no comparison\n`),
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-many-'));
  try {
    for (const count of COUNTS) await benchCount(dir, count);
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
