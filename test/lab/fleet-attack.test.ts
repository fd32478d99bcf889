/**
 * Issue 18 item 3, re-run as an attack: root's Ansible run on a host where another local user
 * (`wtansible`) got there first. They pre-created the working directory in a sticky shared
 * directory (as /var/tmp/nicdoctor), planted `<host>.json` as a link to a 0600 root file and an
 * executable of their own; or made the working directory a link to a root directory. The play
 * must fail before it writes or runs anything there, never adopt the directory, and leave the
 * victims untouched. And an executable that does not match its .sha256 is never run.
 * Needs root, ansible-core and openssh-server (one namespace host of test/lab/fleet-hosts.ts).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lab/cli.js';
import { cleanupStale, findTool, labAvailable } from '../../lab/lab.js';
import { forbidSkipOnCi } from '../../lab/no-skip-on-ci.js';
import { createFleet, PLAYBOOK_TIMEOUT_MS, runPlaybook, type Fleet } from './fleet-hosts.js';

// Needs root; under CI=true (run as root) a missing prerequisite fails instead of skipping.
const skip = forbidSkipOnCi('the fleet attack lab test', (process.getuid?.() ?? -1) === 0 ? undefined : labAvailable(['ip']));
if (skip) console.warn(`fleet attack lab test skipped: ${skip}`);

/** This test's own namespace prefix and local user (names shared with nothing else). */
const PREFIX = 'ndwta';
const USER = 'wtansible';
const ROLES = path.join(REPO_ROOT, 'ansible', 'roles');

const asUser = (argv: string[]) =>
  execFileSync(findTool('runuser') ?? '/usr/sbin/runuser', ['-u', USER, '--', ...argv], { encoding: 'utf8' });

describe.skipIf(skip)('the Ansible roles against a local user who got there first', () => {
  let fleet: Fleet;
  let createdUser = false;
  /** A sticky, world-writable directory like /var/tmp, root's. */
  let shared: string;
  let victim: string;
  let victimDir: string;
  /** An "executable" that records that it ran: a shell script, with the right .sha256 or not. */
  let executable: string;

  beforeAll(async () => {
    for (const tool of ['ansible-playbook', 'sshd', 'ssh', 'runuser', 'useradd'])
      if (!findTool(tool)) throw new Error(`the fleet attack lab test needs ${tool}: bash scripts/install-system-deps.sh --tests`);
    try {
      execFileSync('id', ['-u', USER], { stdio: 'ignore' });
    } catch {
      execFileSync(findTool('useradd')!, ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', USER]);
      createdUser = true;
    }
    cleanupStale(PREFIX);
    fleet = await createFleet(1, PREFIX);
    shared = mkdtempSync('/tmp/nicdoctor-fleet-attack-');
    chmodSync(shared, 0o1777);
    victimDir = path.join(fleet.dir, 'victim-dir');
    mkdirSync(victimDir, { mode: 0o755 });
    chmodSync(victimDir, 0o755);
    victim = path.join(victimDir, 'secret');
    writeFileSync(victim, 'root only\n', { mode: 0o600 });
    // The user must reach the victims by name for their links to point there (they never read them).
    chmodSync(fleet.dir, 0o711);
    executable = path.join(fleet.dir, 'fake-nicdoctor');
    writeFileSync(executable, `#!/bin/sh\ntouch ${path.join(fleet.dir, 'ran')}\necho nicdoctor 0.0.0-fake\n`, { mode: 0o755 });
  }, 60_000);

  afterAll(() => {
    fleet?.destroy();
    if (shared) rmSync(shared, { recursive: true, force: true });
    if (createdUser) execFileSync(findTool('userdel') ?? '/usr/sbin/userdel', [USER]);
  });

  /** Runs the install role (what every playbook does first) on the host with this working directory. */
  async function install(remoteDir: string, sha256: string): Promise<{ exitCode: number; output: string }> {
    writeFileSync(`${executable}.sha256`, `${sha256}  fake-nicdoctor\n`);
    rmSync(path.join(fleet.dir, 'ran'), { force: true });
    const host = fleet.hosts[0]!;
    const inventory = path.join(fleet.dir, 'attack-inventory.json');
    writeFileSync(
      inventory,
      JSON.stringify({
        all: {
          vars: {
            ansible_user: 'root',
            ansible_ssh_private_key_file: fleet.privateKey,
            ansible_python_interpreter: findTool('python3') ?? '/usr/bin/python3',
            ansible_become_method: 'su',
            nicdoctor_install: 'executable',
            nicdoctor_executable: executable,
            nicdoctor_remote_dir: remoteDir,
          },
          hosts: { [host.name]: { ansible_host: host.address, ansible_ssh_common_args: fleet.sshArgs(host) } },
        },
      }),
    );
    const play = path.join(fleet.dir, 'install.yml');
    writeFileSync(
      play,
      JSON.stringify([{ name: 'install', hosts: 'all', gather_facts: false, roles: [{ role: path.join(ROLES, 'install') }] }]),
    );
    return runPlaybook(fleet, play, inventory);
  }
  const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

  it(
    'refuses a working directory another user made, with their <host>.json link to a root file in it: the victim is untouched',
    async () => {
      const planted = path.join(shared, 'nicdoctor');
      asUser(['mkdir', '-m', '0777', planted]);
      asUser(['ln', '-s', victim, path.join(planted, `${fleet.hosts[0]!.name}.json`)]);
      asUser([
        'sh',
        '-c',
        `printf '#!/bin/sh\\ntouch ${path.join(shared, 'pwned')}\\n' > ${planted}/nicdoctor; chmod 755 ${planted}/nicdoctor`,
      ]);
      const result = await install(planted, sha256(executable));
      expect(result.exitCode, result.output).not.toBe(0);
      expect(result.output).toMatch(/is not a directory of root's with mode 0700 \(owner uid \d+, mode 0777\)/);
      // Not adopted: still theirs, nothing shipped into it, nothing run.
      const info = statSync(planted);
      expect(info.uid).not.toBe(0);
      expect(info.mode & 0o777).toBe(0o777);
      expect(readFileSync(path.join(planted, 'nicdoctor'), 'utf8')).toContain('pwned');
      expect(existsSync(path.join(shared, 'pwned'))).toBe(false);
      expect(existsSync(path.join(fleet.dir, 'ran'))).toBe(false);
      expect(readlinkSync(path.join(planted, `${fleet.hosts[0]!.name}.json`))).toBe(victim);
      expect(readFileSync(victim, 'utf8')).toBe('root only\n');
      expect(statSync(victim).mode & 0o777).toBe(0o600);
    },
    PLAYBOOK_TIMEOUT_MS + 30_000,
  );

  it(
    'refuses a working directory that is a link to a root directory, and leaves that directory as it was',
    async () => {
      const link = path.join(shared, 'nicdoctor-link');
      asUser(['ln', '-s', victimDir, link]);
      const result = await install(link, sha256(executable));
      expect(result.exitCode, result.output).not.toBe(0);
      expect(result.output).toContain("is not a directory of root's with mode 0700 (a symbolic link)");
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(statSync(victimDir).mode & 0o777).toBe(0o755);
      expect(existsSync(path.join(victimDir, 'nicdoctor'))).toBe(false);
    },
    PLAYBOOK_TIMEOUT_MS + 30_000,
  );

  it(
    'makes its own 0700 directory in the sticky shared directory, and never runs an executable that does not match its .sha256',
    async () => {
      const fresh = path.join(shared, 'nicdoctor-fresh');
      const mismatch = await install(fresh, '0'.repeat(64));
      expect(mismatch.exitCode, mismatch.output).not.toBe(0);
      expect(mismatch.output).toMatch(/does not match the \.sha256 \(sha256 [0-9a-f]{64}, expected 0{64}\): not run/);
      expect(existsSync(path.join(fleet.dir, 'ran'))).toBe(false);
      const info = statSync(fresh);
      expect([info.uid, info.mode & 0o7777]).toEqual([0, 0o700]);
      // The right checksum: it runs (the directory, root's from the first run, is used again).
      const matching = await install(fresh, sha256(executable));
      expect(matching.exitCode, matching.output).toBe(0);
      expect(existsSync(path.join(fleet.dir, 'ran'))).toBe(true);
    },
    2 * PLAYBOOK_TIMEOUT_MS + 30_000,
  );
});
