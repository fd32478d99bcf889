/**
 * The Ansible collection end to end (issue 11): three namespace "hosts", each with its own sshd
 * on its own address and key-only auth, reached from the root namespace by Debian's
 * ansible-playbook. The scan playbook ships the single executable to all three, scans them
 * against a policy with redacted bundles and fetches the results; the bench playbook benches
 * the pairs h1→h2, h2→h3, h3→h1 with real serve/bench between namespaces. One host has its
 * egress shaped with tbf; `nicdoctor fleet` over what came back must name it as the outlier.
 * Needs root, `npm run package` (the executable), ansible-core and openssh-server.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetReport } from '../../src/fleet/fleet.js';
import { reportSchema } from '../../src/report/schema.js';
import { nodeFreePath, removeNodeFreePath } from '../../lab/executable.js';
import { REPO_ROOT } from '../../lab/cli.js';
import { cleanupStale, findTool, labAvailable } from '../../lab/lab.js';
import { createFleet, FLEET_PREFIX, PLAYBOOK_TIMEOUT_MS, runPlaybook, type Fleet } from './fleet-hosts.js';

const skip = (process.getuid?.() ?? -1) === 0 ? undefined : labAvailable(['ip']);
if (skip) console.warn(`fleet lab test skipped: ${skip}`);

const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const EXECUTABLE = path.join(REPO_ROOT, 'dist', 'package', `nicdoctor-${VERSION}-linux-x64`);
const PLAYBOOKS = path.join(REPO_ROOT, 'ansible', 'playbooks');
const SHAPED_RATE = '1gbit';

function inventory(fleet: Fleet): string {
  const hosts = Object.fromEntries(
    fleet.hosts.map((host) => [
      host.name,
      {
        ansible_host: host.address,
        ansible_ssh_common_args: fleet.sshArgs(host),
        nicdoctor_bench_address: host.address,
        // The hosts share this machine's filesystem: each gets its own working directory (made
        // by the install role in the root-only lab directory).
        nicdoctor_remote_dir: path.join(fleet.dir, `remote-${host.name}`),
      },
    ]),
  );
  const clients = Object.fromEntries(
    fleet.hosts.map((host, index) => [host.name, { nicdoctor_bench_peer: fleet.hosts[(index + 1) % fleet.hosts.length]!.name }]),
  );
  return JSON.stringify({
    all: {
      vars: {
        ansible_user: 'root',
        ansible_ssh_private_key_file: fleet.privateKey,
        ansible_python_interpreter: findTool('python3') ?? '/usr/bin/python3',
        // The roles become root only where they must; su as root asks for no password.
        ansible_become_method: 'su',
        nicdoctor_install: 'executable',
        nicdoctor_executable: EXECUTABLE,
        nicdoctor_policy: '10g',
        nicdoctor_fetch_dir: path.join(fleet.dir, 'reports'),
        nicdoctor_bench_ports: '5101-5102',
        nicdoctor_serve_idle_timeout: 8,
        nicdoctor_bench_args: ['--duration', '2', '--step-duration', '1', '--omit', '0', '--max-procs', '2'],
      },
      hosts,
      children: { nicdoctor_bench_clients: { hosts: clients } },
    },
  });
}

async function playbook(fleet: Fleet, name: string): Promise<void> {
  const result = await runPlaybook(fleet, path.join(PLAYBOOKS, name), path.join(fleet.dir, 'inventory.json'));
  if (result.exitCode !== 0) throw new Error(`ansible-playbook ${name} exited ${result.exitCode}:\n${result.output}`);
}

/** nicdoctor or iperf3 processes still running in a host's namespace (serve must have stopped). */
function leftovers(fleet: Fleet): string[] {
  const ip = findTool('ip') ?? 'ip';
  return fleet.hosts.flatMap((host) =>
    execFileSync(ip, ['netns', 'pids', host.ns], { encoding: 'utf8' })
      .split(/\s+/)
      .filter(Boolean)
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
        } catch {
          return ''; // exited meanwhile
        }
      })
      // sshd and the SSH ProxyCommand (kept by ssh's ControlPersist) are the lab's, not nicdoctor's.
      .filter((command) => /nicdoctor|iperf3/.test(command) && !command.includes('proxy.cjs') && !command.startsWith('sshd'))
      .map((command) => `${host.name}: ${command}`),
  );
}

/**
 * What is still running after waiting up to `limitMs` for it to end: a process that exits a moment
 * after the play returned (a watchdog between two polls) is not a leftover, one that stays is.
 */
async function leftoversAfter(fleet: Fleet, limitMs: number): Promise<string[]> {
  const deadline = performance.now() + limitMs;
  let found = leftovers(fleet);
  while (found.length > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    found = leftovers(fleet);
  }
  return found;
}

describe.skipIf(skip)('Ansible collection against three namespace hosts over SSH', () => {
  let fleet: Fleet;
  const started = performance.now();

  beforeAll(async () => {
    for (const tool of ['ansible-playbook', 'sshd', 'ssh', 'tc', 'iperf3'])
      if (!findTool(tool)) throw new Error(`the fleet lab test needs ${tool}: bash scripts/install-system-deps.sh --tests`);
    if (!existsSync(EXECUTABLE)) throw new Error(`${EXECUTABLE} is missing: run \`npm run package\` first`);
    cleanupStale(FLEET_PREFIX);
    fleet = await createFleet(3);
    // The fault: h3's egress shaped, as a forgotten traffic-shaping experiment leaves a host.
    const shaped = fleet.hosts[2]!;
    fleet.exec(shaped, [
      findTool('tc') ?? 'tc',
      'qdisc',
      'add',
      'dev',
      shaped.iface,
      'root',
      'tbf',
      'rate',
      SHAPED_RATE,
      'burst',
      '256kb',
      'latency',
      '50ms',
    ]);
    writeFileSync(path.join(fleet.dir, 'inventory.json'), inventory(fleet));
  }, 60_000);

  afterAll(() => {
    fleet?.destroy();
    removeNodeFreePath();
    console.log(`fleet lab test: ${((performance.now() - started) / 1000).toFixed(1)} s in all`);
  });

  it(
    'scans all three with the executable and fetches redacted reports and bundles',
    async () => {
      await playbook(fleet, 'scan.yml');
      const reports = path.join(fleet.dir, 'reports');
      // Private on the controller (issue 18.3): the directory 0700, every fetched file 0600.
      expect(statSync(reports).mode & 0o777).toBe(0o700);
      for (const file of readdirSync(reports)) expect(statSync(path.join(reports, file)).mode & 0o777, file).toBe(0o600);
      for (const host of fleet.hosts) {
        const remote = statSync(path.join(fleet.dir, `remote-${host.name}`));
        expect([remote.uid, remote.mode & 0o7777]).toEqual([0, 0o700]);
        expect(existsSync(path.join(reports, `${host.name}.tar.gz`))).toBe(true);
        const report = reportSchema.parse(JSON.parse(readFileSync(path.join(reports, `${host.name}.json`), 'utf8')));
        expect(report.policy?.name).toBe('10g');
        expect(report.redacted).toBeDefined();
        expect(report.interfaces.map((iface) => iface.name)).toContain(host.iface);
        expect(JSON.stringify(report)).not.toContain(host.address);
      }
    },
    PLAYBOOK_TIMEOUT_MS + 30_000,
  );

  it(
    'benches the pairs one at a time with serve started and stopped on the peer',
    async () => {
      await playbook(fleet, 'bench.yml');
      for (const host of fleet.hosts) {
        const report = reportSchema.parse(JSON.parse(readFileSync(path.join(fleet.dir, 'reports', `${host.name}.bench.json`), 'utf8')));
        expect(report.bench?.complete).toBe(true);
        expect(report.bench?.mode).toBe('peer');
      }
      expect(await leftoversAfter(fleet, 15_000)).toEqual([]);
      // serve ran with this run's token and iperf3 RSA key (the benches above authenticated); none is left.
      for (const host of fleet.hosts)
        expect(readdirSync(path.join(fleet.dir, `remote-${host.name}`)).filter((name) => /token|iperf3/.test(name))).toEqual([]);
      expect(statSync(path.join(fleet.dir, 'reports', 'h1.bench.json')).mode & 0o777).toBe(0o600);
    },
    PLAYBOOK_TIMEOUT_MS + 30_000,
  );

  it('nicdoctor fleet over what came back names the shaped host as the outlier', async () => {
    const reports = path.join(fleet.dir, 'reports');
    expect(readdirSync(reports).sort()).toEqual([
      'h1.bench.json',
      'h1.json',
      'h1.tar.gz',
      'h2.bench.json',
      'h2.json',
      'h2.tar.gz',
      'h3.bench.json',
      'h3.json',
      'h3.tar.gz',
    ]);
    const result = await execa(EXECUTABLE, ['fleet', reports, '--format', 'json'], {
      reject: false,
      extendEnv: false,
      env: { PATH: nodeFreePath(), LANG: 'C' },
      timeout: 120_000,
    });
    expect(result.stderr).toBe('');
    expect([0, 1]).toContain(result.exitCode);
    const report = JSON.parse(String(result.stdout)) as FleetReport;
    expect(report.hosts.map((host) => host.host)).toEqual(['h1', 'h2', 'h3']);
    for (const host of report.hosts) {
      expect(host.policy?.name).toBe('10g');
      expect(host.benchGbps).toBeGreaterThan(0);
    }
    // tbf caps the shaped host's sending: its bench cannot exceed the configured rate.
    expect(report.hosts[2]!.benchGbps).toBeLessThanOrEqual(1.0);
    const qdisc = report.outliers.find((outlier) => outlier.setting === 'egress qdisc');
    expect(qdisc, JSON.stringify(report.outliers)).toBeDefined();
    expect(qdisc!.outliers).toEqual([{ host: 'h3', interface: fleet.hosts[2]!.iface, value: expect.stringMatching(/^tbf 1 Gb\/s$/) }]);
    expect(qdisc!.majorityCount).toBe(2);
    expect(qdisc!.majority).toBe('noqueue');
    // Nothing else singles out a healthy host.
    expect(report.outliers.flatMap((outlier) => outlier.outliers.map((member) => member.host)).filter((host) => host !== 'h3')).toEqual([]);
    const table = await execa(EXECUTABLE, ['fleet', reports], {
      reject: false,
      extendEnv: false,
      env: { PATH: nodeFreePath(), LANG: 'C' },
    });
    console.log(String(table.stdout));
    expect(String(table.stdout)).toMatch(
      new RegExp(`h3 \\(${fleet.hosts[2]!.iface}\\): egress qdisc tbf 1 Gb/s where 2 of 3 veth interfaces have noqueue`),
    );
  }, 120_000);
});
