/**
 * `nicdoctor collect --script` round trip in the namespace lab (LAB.md): the script runs under
 * dash and under busybox sh inside a namespace whose veth has faults set (egress shaper, offloads
 * off, jumbo MTU on the far end), and `analyze` of its archive gives the check states and findings of
 * `nicdoctor scan` in that namespace. Nothing is mocked: real sysfs, ethtool, tc, lspci.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.js';
import { parseReport, runCli } from '../../lab/cli.js';
import { cleanupStale, createLab, findTool, labAvailable, type Lab } from '../../lab/lab.js';

const skipReason = labAvailable(['ip', 'ethtool', 'tc', 'dash', 'busybox']);
if (skipReason) console.warn(`collect-script lab tests skipped: ${skipReason}`);

const work = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-lab-script-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const states = (report: Report) =>
  report.checks.flatMap((check) => check.subjects.map((subject) => `${check.id} ${subject.subject} ${subject.status}`));
const findings = (report: Report) =>
  report.checks
    .flatMap((check) => check.findings.map((finding) => `${finding.check}/${finding.symptom} ${finding.subject} ${finding.severity}`))
    .sort();

describe.skipIf(skipReason)('collect --script round trip in a lab namespace', () => {
  let lab: Lab;
  let script: string;
  let live: Report;

  beforeAll(async () => {
    cleanupStale();
    lab = await createLab();
    await lab.rateCap('a', '2gbit');
    await lab.offloads('a', { tso: false, gso: false });
    await lab.mtu('b', 9000);
    const generated = await runCli(['collect', '--script']);
    expect(generated.exitCode, generated.stderr).toBe(0);
    script = path.join(work, 'collect.sh');
    writeFileSync(script, generated.stdout);
    const scan = await runCli(['scan', '--format', 'json'], { lab, ns: 'a' });
    expect([0, 1], scan.stderr).toContain(scan.exitCode);
    live = parseReport(scan.stdout);
  });
  afterAll(async () => {
    await lab?.destroy();
  });

  it('the script is POSIX sh: it parses under dash and busybox sh, and uses no bash-isms', () => {
    execFileSync(findTool('dash')!, ['-n', script]);
    execFileSync(findTool('busybox')!, ['sh', '-n', script]);
    const text = readFileSync(script, 'utf8');
    const code = text.split('\n').filter((line) => !/^\s*#/.test(line));
    const bashisms = code.filter((line) =>
      /\[\[ |\bfunction\s+\w+|\blocal\s|\$'|<<<|\bdeclare\b|\bsource\s|\$\{\w+\/\/|\bpushd\b|&>/.test(line),
    );
    expect(bashisms).toEqual([]);
    // Every command runs with a timeout when `timeout` exists.
    expect(text).toMatch(/\$TIMEOUT "\$@"/);
  });

  for (const shell of ['dash', 'busybox sh'] as const) {
    it(`under ${shell}: analyze of its archive gives the check states and findings of scan`, async () => {
      const output = path.join(work, `${shell.replace(' ', '-')}.tar.gz`);
      const argv = shell === 'dash' ? [findTool('dash')!, script, output] : [findTool('busybox')!, 'sh', script, output];
      const before = readdirSync(work).sort();
      const run = await lab.exec('a', argv, { timeoutMs: 120_000 });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/wrote .*\.tar\.gz/);
      // Read-only and tidy: only the archive was added; the temporary directory is gone.
      expect(readdirSync(work).sort()).toEqual([...before, path.basename(output)].sort());
      const analyzed = await runCli(['analyze', output, '--format', 'json']);
      expect([0, 1], analyzed.stderr).toContain(analyzed.exitCode);
      const offline = parseReport(analyzed.stdout);
      expect(offline.source).toEqual({ mode: 'snapshot', path: output });
      expect(offline.host.root).toBe(true);
      expect(offline.interfaces).toEqual(live.interfaces);
      expect(states(offline)).toEqual(states(live));
      expect(findings(offline)).toEqual(findings(live));
      // The fault set on the lab is seen through the archive too (the shaper's verdict, whatever
      // it is for a veth, is the same on both sides: the states above are equal).
      expect(findings(offline)).toContain(`offloads/offload-off ${lab.a.iface} warning`);
    });
  }

  it('without root: it still writes an archive, says what root would add, and analyze reports a non-root host', async () => {
    const shared = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-lab-script-nobody-'));
    try {
      chmodSync(shared, 0o777);
      const copy = path.join(shared, 'collect.sh');
      writeFileSync(copy, readFileSync(script));
      chmodSync(copy, 0o644);
      const output = path.join(shared, 'nobody.tar.gz');
      const setpriv = findTool('setpriv')!;
      const run = await lab.exec('a', [setpriv, '--reuid=65534', '--regid=65534', '--clear-groups', findTool('dash')!, copy, output], {
        timeoutMs: 120_000,
        env: { TMPDIR: shared },
      });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/not run as root: .*lspci.*sudo/);
      const offline = parseReport((await runCli(['analyze', output, '--format', 'json'])).stdout);
      expect(offline.host.root).toBe(false);
      expect(offline.interfaces.map((iface) => iface.name)).toEqual(live.interfaces.map((iface) => iface.name));
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  it('refuses an output that is not a .tar.gz, or that exists, without writing anything', async () => {
    const exists = path.join(work, 'dash.tar.gz');
    const again = await lab.exec('a', [findTool('dash')!, script, exists], { reject: false });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/exists/);
    const wrong = await lab.exec('a', [findTool('dash')!, script, path.join(work, 'out.zip')], { reject: false });
    expect(wrong.exitCode).toBe(2);
    expect(readdirSync(work)).not.toContain('out.zip');
  });
});
