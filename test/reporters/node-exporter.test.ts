/**
 * Debian's prometheus-node-exporter reads what `--format prometheus --output` writes into its
 * textfile directory: the real exporter, on 127.0.0.1 and a free port, scrapes the file and
 * reports no textfile error. Needs prometheus-node-exporter (scripts/install-system-deps.sh --tests).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/fixtures.js';
import { cliArgv, cliPath, removeNodeFreePath } from '../../lab/executable.js';

const EXPORTER = '/usr/bin/prometheus-node-exporter';
const ROOT = path.resolve(FIXTURES, '..');
const CLI = path.join(ROOT, 'dist', 'src', 'cli.js');
const work = mkdtempSync(path.join(tmpdir(), 'nicdoctor-textfile-'));
let exporter: ChildProcess | undefined;
afterAll(() => {
  exporter?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
  removeNodeFreePath();
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function scrape(port: number): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(3_000) });
      return await response.text();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`node_exporter did not answer on 127.0.0.1:${port}: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

describe("the prometheus format through Debian's node_exporter textfile collector", () => {
  it('is scraped without a textfile error and its samples come out', async () => {
    const [file, ...args] = cliArgv(CLI, [
      'analyze',
      path.join(FIXTURES, 'hosts', 'ixgbe-10g-pcie-degraded'),
      '--format',
      'prometheus',
      '--output',
      path.join(work, 'nicdoctor.prom'),
    ]);
    const written = await promisify(execFile)(file!, args, {
      env: { ...process.env, PATH: cliPath(process.env.PATH ?? '') },
      timeout: 60_000,
    }).catch((error: { code: number }) => error);
    expect((written as { code?: number }).code ?? 0).toBe(1); // the fixture's PCIe downgrade is critical
    const port = await freePort();
    exporter = spawn(
      EXPORTER,
      [
        '--collector.disable-defaults',
        '--collector.textfile',
        `--collector.textfile.directory=${work}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    const metrics = await scrape(port);
    expect(metrics).toMatch(/^node_textfile_scrape_error 0$/m);
    expect(metrics).toContain('nicdoctor_check_status{check="pcie-link",status="fail",subject="eth2"} 1');
    expect(metrics).toMatch(/^node_textfile_mtime_seconds\{file="[^"]*nicdoctor\.prom"\} \d/m);
  });
});
