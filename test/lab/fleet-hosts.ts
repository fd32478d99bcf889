/**
 * A small fleet for the Ansible test: N "hosts", each a network namespace with one veth to a
 * bridge in a "switch" namespace, each with its own sshd on its own address (key-only auth with
 * a throwaway key). Ansible reaches them from the root namespace through an SSH ProxyCommand
 * that enters the host's namespace, so nothing is added to the root namespace. Names follow
 * lab.ts (`ndf<tag>-<pid>-n`), so cleanupStale('ndf') removes a crashed run's leftovers.
 * Imports no test framework.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { toolPath } from '../../lab/cli.js';
import { findTool } from '../../lab/lab.js';

export const FLEET_PREFIX = 'ndf';

export interface FleetHost {
  name: string;
  ns: string;
  iface: string;
  address: string;
}

export interface Fleet {
  hosts: FleetHost[];
  /** Throwaway files: the keys, sshd configs, inventory, fetched reports. */
  dir: string;
  privateKey: string;
  /** ssh options that make `ssh root@<address>` reach a host from the root namespace. */
  sshArgs(host: FleetHost): string;
  /** Runs argv inside a host's namespace, synchronously (faults, checks). */
  exec(host: FleetHost, argv: string[]): string;
  destroy(): void;
}

const ip = () => findTool('ip') ?? 'ip';

function run(argv: string[], input?: string): string {
  return execFileSync(argv[0]!, argv.slice(1), {
    encoding: 'utf8',
    timeout: 30_000,
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
}

function removeNamespace(ns: string): void {
  try {
    for (const pid of run([ip(), 'netns', 'pids', ns]).split(/\s+/).filter(Boolean).map(Number)) {
      if (pid > 1 && pid !== process.pid) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    }
  } catch {
    // no such namespace
  }
  try {
    run([ip(), 'netns', 'delete', ns]);
  } catch {
    // already gone
  }
}

/** Waits until something accepts TCP on address:port inside the namespace (sshd is up). */
async function waitListening(ns: string, address: string, port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const listening = run([ip(), 'netns', 'exec', ns, 'ss', '-Hltn', `src ${address}:${port}`]);
    if (listening.trim()) return;
    if (Date.now() > deadline) throw new Error(`sshd in ${ns} did not listen on ${address}:${port} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `prefix` names the namespaces and links (a test of its own passes its own, for cleanupStale). */
export async function createFleet(count: number, prefix = FLEET_PREFIX): Promise<Fleet> {
  const sshd = findTool('sshd');
  const keygen = findTool('ssh-keygen');
  if (!sshd || !keygen) throw new Error('the fleet lab needs sshd and ssh-keygen: apt-get install openssh-server');
  const tag = `${prefix}${Math.random().toString(36).slice(2, 6)}`;
  const nsName = (slot: string) => `${tag}${slot}-${process.pid}-n`;
  const third = (process.pid % 250) + 1;
  const hosts: FleetHost[] = Array.from({ length: count }, (_, index) => ({
    name: `h${index + 1}`,
    ns: nsName(`h${index + 1}`),
    iface: `${tag}h${index + 1}`,
    address: `10.214.${third}.${index + 1}`,
  }));
  const switchNs = nsName('sw');
  const namespaces = [switchNs, ...hosts.map((host) => host.ns)];
  const dir = mkdtempSync(path.join(tmpdir(), 'nicdoctor-fleet-lab-'));
  chmodSync(dir, 0o700);
  const daemons: ChildProcess[] = [];
  let destroyed = false;
  const destroy = () => {
    if (destroyed) return;
    destroyed = true;
    for (const daemon of daemons) daemon.kill('SIGKILL');
    for (const ns of namespaces) removeNamespace(ns);
    rmSync(dir, { recursive: true, force: true });
    process.removeListener('exit', destroy);
  };
  process.on('exit', destroy);
  try {
    for (const ns of namespaces) run([ip(), 'netns', 'add', ns]);
    const bridge = `${tag}br`;
    run(
      [ip(), '-n', switchNs, '-batch', '-'],
      [`link add ${bridge} type bridge`, `link set ${bridge} up`, 'link set lo up'].join('\n') + '\n',
    );
    for (const [index, host] of hosts.entries()) {
      const port = `${tag}s${index + 1}`;
      // Born in their namespaces: the root namespace never holds either end.
      run([ip(), '-n', switchNs, 'link', 'add', port, 'type', 'veth', 'peer', 'name', host.iface, 'netns', host.ns]);
      run([ip(), '-n', switchNs, '-batch', '-'], `link set ${port} master ${bridge}\nlink set ${port} up\n`);
      run(
        [ip(), '-n', host.ns, '-batch', '-'],
        `link set lo up\naddr add ${host.address}/24 dev ${host.iface}\nlink set ${host.iface} up\n`,
      );
    }
    const privateKey = path.join(dir, 'id_ed25519');
    run([keygen, '-q', '-t', 'ed25519', '-N', '', '-C', 'nicdoctor-fleet-lab', '-f', privateKey]);
    run([keygen, '-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'host_key')]);
    writeFileSync(path.join(dir, 'authorized_keys'), run(['cat', `${privateKey}.pub`]), { mode: 0o600 });
    // sshd wants its privilege-separation directory; Debian creates it at boot, a container may not have.
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    for (const host of hosts) {
      const config = path.join(dir, `sshd_${host.name}`);
      writeFileSync(
        config,
        [
          `ListenAddress ${host.address}:22`,
          `HostKey ${path.join(dir, 'host_key')}`,
          `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
          `PidFile ${path.join(dir, `sshd_${host.name}.pid`)}`,
          'PermitRootLogin prohibit-password',
          'PubkeyAuthentication yes',
          'PasswordAuthentication no',
          'KbdInteractiveAuthentication no',
          'UsePAM no',
          'StrictModes no',
          'Subsystem sftp internal-sftp',
          '',
        ].join('\n'),
      );
      const daemon = spawn(ip(), ['netns', 'exec', host.ns, sshd, '-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      daemon.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      daemons.push(daemon);
      await waitListening(host.ns, host.address, 22).catch((error: Error) => {
        throw new Error(`${error.message}: ${stderr.trim()}`);
      });
    }
    // ProxyCommand: carry the SSH connection into the host's namespace (node is the test runner itself).
    const proxy = path.join(dir, 'proxy.cjs');
    writeFileSync(
      proxy,
      `const s=require('net').connect(Number(process.argv[3]),process.argv[2]);process.stdin.pipe(s).pipe(process.stdout);s.on('error',(e)=>{process.stderr.write(String(e)+'\\n');process.exit(1)});s.on('close',()=>process.exit(0));\n`,
    );
    return {
      hosts,
      dir,
      privateKey,
      sshArgs: (host) =>
        [
          `-o ProxyCommand="${ip()} netns exec ${host.ns} ${process.execPath} ${proxy} %h %p"`,
          '-o StrictHostKeyChecking=no',
          '-o UserKnownHostsFile=/dev/null',
          '-o IdentitiesOnly=yes',
          '-o BatchMode=yes',
          '-o LogLevel=ERROR',
        ].join(' '),
      exec: (host, argv) => run([ip(), 'netns', 'exec', host.ns, ...argv]),
      destroy,
    };
  } catch (error) {
    destroy();
    throw error;
  }
}

/**
 * How long one play may take. The roles check and checksum before anything runs and set up
 * serve's secrets per pair: on a loaded 2-core machine (load 20) scan.yml and bench.yml each took
 * longer than 300 s, while every task succeeded.
 */
export const PLAYBOOK_TIMEOUT_MS = 600_000;

/**
 * Runs ansible-playbook from the root namespace with nothing of this machine's Ansible set-up
 * (its own HOME, config, temp and control-socket directories in the fleet's directory).
 * Resolves with the exit code and the end of the output; never throws on a failed play.
 */
export async function runPlaybook(
  fleet: Fleet,
  playbookPath: string,
  inventoryPath: string,
): Promise<{ exitCode: number; output: string }> {
  const started = performance.now();
  writeFileSync(path.join(fleet.dir, 'no-ansible.cfg'), '[defaults]\n');
  const result = await execa(findTool('ansible-playbook') ?? 'ansible-playbook', ['-i', inventoryPath, playbookPath], {
    reject: false,
    timeout: PLAYBOOK_TIMEOUT_MS,
    forceKillAfterDelay: 2_000,
    stdin: 'ignore',
    extendEnv: false,
    env: {
      PATH: toolPath(),
      HOME: fleet.dir,
      LANG: 'C.UTF-8',
      ANSIBLE_HOME: path.join(fleet.dir, 'ansible'),
      ANSIBLE_LOCAL_TEMP: path.join(fleet.dir, 'ansible', 'tmp'),
      ANSIBLE_REMOTE_TEMP: path.join(fleet.dir, 'ansible', 'remote-tmp'),
      ANSIBLE_SSH_CONTROL_PATH_DIR: path.join(fleet.dir, 'ansible', 'cp'),
      ANSIBLE_HOST_KEY_CHECKING: 'False',
      ANSIBLE_RETRY_FILES_ENABLED: 'False',
      ANSIBLE_NOCOLOR: '1',
      ANSIBLE_CONFIG: path.join(fleet.dir, 'no-ansible.cfg'),
    },
  });
  console.log(
    `ansible-playbook ${path.basename(playbookPath)}: exit ${result.exitCode}, ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return {
    exitCode: result.exitCode ?? -1,
    output: `${String(result.stdout).split('\n').slice(-60).join('\n')}\n${String(result.stderr)}`,
  };
}
