/**
 * `nicdoctor serve` under hostile or careless use (issue 13), in a lab namespace: it binds only
 * where told, idles only when nothing runs, ignores 404s for idleness, exits within 2 s on
 * SIGTERM with clients connected, leaves no iperf3 behind even after kill -9, and keeps
 * refusing abusive HTTP (traversal, oversized requests, slowloris).
 */
import { readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, toolPath } from '../../lab/cli.js';
import { createLab, labAvailable, type Lab } from '../../lab/lab.js';
import { startServe, stopServe } from './serve.js';

const skipReason = labAvailable(['ip', 'iperf3', 'setpriv']);
if (skipReason) console.warn(`serve hostile lab tests skipped: ${skipReason}`);

/** Children of a process, from /proc (ppid is field 4 of /proc/PID/stat). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return (
          Number(
            readFileSync(`/proc/${name}/stat`, 'utf8')
              .replace(/^.*\) /, '')
              .split(' ')[1],
          ) === pid
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

const alive = (pid: number) => {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .startsWith('Z');
  } catch {
    return false;
  }
};

/** Sends raw bytes to the info endpoint from namespace a and returns the status line (or ''). */
function rawRequest(lab: Lab, port: number, text: string): Promise<string> {
  return lab
    .exec(
      'a',
      ['bash', '-c', `exec 3<>/dev/tcp/${lab.b.address}/${port}; printf '%s' "$1" >&3; timeout 5 head -c 200 <&3 | head -1`, 'raw', text],
      { reject: false },
    )
    .then((result) => result.stdout.trim());
}

describe.skipIf(skipReason)('nicdoctor serve, hostile use', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await createLab();
  });
  afterAll(async () => {
    await lab?.destroy();
  });

  it('refuses to start without --bind or --iface (exit 2), and listens on the interface address with --iface', async () => {
    const refused = await runCli(['serve', '--ports', '5301'], { lab, ns: 'b' });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/--bind/);
    const serve = lab.spawn('b', [process.execPath, CLI, 'serve', '--iface', lab.b.iface, '--ports', '5302', '--control-port', '5300'], {
      env: { PATH: toolPath() },
    });
    try {
      await new Promise<void>((resolve, reject) => {
        serve.stderr?.on('data', (chunk: Buffer) => (chunk.toString().includes('iperf3 servers on') ? resolve() : undefined));
        setTimeout(() => reject(new Error('serve --iface did not start')), 15_000);
      });
      const listening = await lab.exec('b', ['ss', '-ltnH']);
      expect(listening.stdout).toContain(`${lab.b.address}:5302`);
      expect(listening.stdout).not.toMatch(/(0\.0\.0\.0|\*|\[::\]):5302/);
    } finally {
      serve.kill('SIGTERM');
      await serve.catch(() => undefined);
    }
  });

  it('the idle timer ignores 404s and never ends a running test; it ends an idle serve', async () => {
    const serve = lab.spawn(
      'b',
      [process.execPath, CLI, 'serve', '--bind', lab.b.address, '--ports', '5311', '--control-port', '5310', '--idle-timeout', '2'],
      { env: { PATH: toolPath() } },
    );
    const exited = serve.then((result) => ({ code: result.exitCode, at: Date.now() }));
    await new Promise<void>((resolve) =>
      serve.stderr?.on('data', (chunk: Buffer) => (chunk.toString().includes('iperf3 servers on') ? resolve() : undefined)),
    );
    // A 5 s test, longer than the 2 s idle timeout, must finish.
    const test = await lab.exec('a', ['iperf3', '-c', lab.b.address, '-p', '5311', '-t', '5', '-J'], { reject: false });
    expect(test.exitCode).toBe(0);
    // 404s every 300 ms do not keep it alive: it stops about 2 s after the test.
    const started = Date.now();
    let stop = false;
    void (async () => {
      while (!stop) {
        await rawRequest(lab, 5310, 'GET /nope HTTP/1.0\r\n\r\n');
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    })();
    const result = await exited;
    stop = true;
    expect(result.code).toBe(0);
    expect(result.at - started).toBeLessThan(6000);
  });

  it('before its first client it waits longer than the idle timeout; after the plan is read, the idle timeout counts', async () => {
    // An Ansible play starts serve, then needs a few tasks before its bench asks for the plan.
    const serve = lab.spawn(
      'b',
      [process.execPath, CLI, 'serve', '--bind', lab.b.address, '--ports', '5331', '--control-port', '5330', '--idle-timeout', '2'],
      { env: { PATH: toolPath() } },
    );
    let exitedAt: number | undefined;
    void serve.then(() => (exitedAt = Date.now()));
    await new Promise<void>((resolve) =>
      serve.stderr?.on('data', (chunk: Buffer) => (chunk.toString().includes('iperf3 servers on') ? resolve() : undefined)),
    );
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(exitedAt, 'serve stopped before any client came').toBeUndefined();
    const asked = Date.now();
    expect(await rawRequest(lab, 5330, 'GET /nicdoctor/info HTTP/1.0\r\n\r\n')).toMatch(/ 200 /);
    const result = await serve;
    expect(result.exitCode).toBe(0);
    expect(Date.now() - asked).toBeLessThan(6000);
  });

  it('SIGTERM with clients connected exits within 2 s; kill -9 leaves no iperf3 behind', async () => {
    let serve = await startServe(lab, '5321-5322');
    // A keep-alive client and a slowloris client hold connections to the info endpoint.
    const sockets = [0, 1].map(() => net.connect({ host: lab.b.address, port: 5100 }));
    sockets.forEach((socket) => socket.on('error', () => undefined));
    await lab.exec('a', ['true']);
    sockets[1]!.write('GET /nicdoctor/info HTTP/1.1\r\nHost: x\r\n');
    const pid = serve.process.pid!;
    const started = Date.now();
    serve.process.kill('SIGTERM');
    await serve.process.catch(() => undefined);
    expect(Date.now() - started).toBeLessThan(2000);
    sockets.forEach((socket) => socket.destroy());

    serve = await startServe(lab, '5331-5332');
    const children = childrenOf(serve.process.pid!).flatMap((child) => [child, ...childrenOf(child)]);
    expect(children.length).toBeGreaterThan(0);
    serve.process.kill('SIGKILL');
    await serve.process.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(children.filter(alive)).toEqual([]);
    expect(pid).toBeGreaterThan(0);
  });

  it('keeps refusing abusive HTTP: traversal, a 1 MB URL, 10k headers; answers the info request after', async () => {
    const serve = await startServe(lab, '5341');
    try {
      expect(await rawRequest(lab, 5100, 'GET /../../etc/passwd HTTP/1.0\r\n\r\n')).toMatch(/ 404 /);
      expect(await rawRequest(lab, 5100, `GET /${'a'.repeat(1024 * 1024)} HTTP/1.0\r\n\r\n`)).toMatch(/ 431 |^$/);
      expect(await rawRequest(lab, 5100, `GET /nicdoctor/info HTTP/1.0\r\n${'X-A: b\r\n'.repeat(10_000)}\r\n`)).toMatch(/ 431 |^$/);
      expect(await rawRequest(lab, 5100, '\u0001\u0002garbage\r\n\r\n')).toMatch(/ 400 |^$/);
      expect(await rawRequest(lab, 5100, 'GET /nicdoctor/info HTTP/1.0\r\n\r\n')).toMatch(/ 200 /);
    } finally {
      await stopServe(serve);
    }
  });

  it('with --token-file the info endpoint answers only with the token', async () => {
    const token = 'abcdefghijklmnopqrstuvwxyz012345';
    const file = `/tmp/nicdoctor-serve-token-${process.pid}`;
    await lab.exec('b', ['sh', '-c', `umask 077; printf '%s\\n' "$1" > "$2"`, 'sh', token, file]);
    lab.defer(() => lab.exec('b', ['rm', '-f', file]).then(() => undefined));
    const serve = lab.spawn('b', [process.execPath, CLI, 'serve', '--bind', lab.b.address, '--ports', '5351', '--token-file', file], {
      env: { PATH: toolPath() },
    });
    try {
      await new Promise<void>((resolve) =>
        serve.stderr?.on('data', (chunk: Buffer) => (chunk.toString().includes('token required') ? resolve() : undefined)),
      );
      expect(await rawRequest(lab, 5100, 'GET /nicdoctor/info HTTP/1.0\r\n\r\n')).toMatch(/ 401 /);
      expect(await rawRequest(lab, 5100, `GET /nicdoctor/info HTTP/1.0\r\nAuthorization: Bearer ${token}\r\n\r\n`)).toMatch(/ 200 /);
    } finally {
      serve.kill('SIGTERM');
      await serve.catch(() => undefined);
    }
  });
});
