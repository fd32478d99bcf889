import { mkdtemp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordingHostIO } from '../../src/hostio/recording.js';
import { SnapshotError, SnapshotHostIO } from '../../src/hostio/snapshot.js';
import { LiveHostIO } from '../../src/hostio/live.js';
import { HostIOError, commandKey } from '../../src/hostio/types.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'nicdoctor-snap-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('snapshot recording and replay', () => {
  it('replays exactly what was recorded from this host, links included', async () => {
    const dir = await tempDir();
    const recorder = new RecordingHostIO(dir);
    const live = new LiveHostIO();
    const [name] = (await live.readDir('/sys/class/net')).filter((n) => n !== 'lo');
    const iface = name ?? 'lo';
    const mtu = await recorder.readFile(`/sys/class/net/${iface}/mtu`);
    const listing = await recorder.readDir('/sys/class/net');
    const link = await recorder.readLink(`/sys/class/net/${iface}`);
    const echoed = await recorder.exec(['echo', 'hello world']);
    const failing = await recorder.exec(['sh', '-c', 'echo oops >&2; exit 3']);
    await expect(recorder.exec(['nicdoctor-no-such-tool'])).rejects.toMatchObject({ kind: 'tool-missing' });
    await recorder.writeManifest(await recorder.inventory(), { name: 'nicdoctor', version: 'test' });

    const replay = await SnapshotHostIO.open(dir);
    expect(await replay.readFile(`/sys/class/net/${iface}/mtu`)).toBe(mtu);
    expect(await replay.readDir('/sys/class/net')).toEqual(listing);
    expect(await replay.readLink(`/sys/class/net/${iface}`)).toBe(link);
    expect(await replay.exec(['echo', 'hello world'])).toMatchObject({ stdout: echoed.stdout, exitCode: 0 });
    expect(await replay.exec(['sh', '-c', 'echo oops >&2; exit 3'])).toMatchObject({ exitCode: 3, stderr: failing.stderr });
    await expect(replay.exec(['nicdoctor-no-such-tool'])).rejects.toMatchObject({ kind: 'tool-missing' });
    await expect(replay.exec(['ethtool', '-S', 'eth9'])).rejects.toMatchObject({ kind: 'not-captured' });
    await expect(replay.readFile('/proc/never-read')).rejects.toMatchObject({ kind: 'not-found' });
    expect((await replay.inventory()).hostname).toBe((await live.inventory()).hostname);
  });

  it('names command outputs the way sosreport does', () => {
    expect(commandKey(['ethtool', '-S', 'eth0'])).toBe('ethtool_-S_eth0');
    expect(commandKey(['lspci', '-vv', '-s', '0000:01:00.0'])).toBe('lspci_-vv_-s_0000:01:00.0');
    expect(commandKey(['ethtool', '--json', '-k', 'eth0'])).toBe('ethtool_--json_-k_eth0');
    expect(commandKey(['sh', '-c', 'a b/c'])).toBe('sh_-c_a_b_c');
  });

  it('refuses a missing directory, a missing or corrupt snapshot.json, with one-line errors', async () => {
    await expect(SnapshotHostIO.open('/nonexistent/nicdoctor')).rejects.toThrow(SnapshotError);
    const dir = await tempDir();
    await expect(SnapshotHostIO.open(dir)).rejects.toThrow(/not a nicdoctor snapshot/);
    await writeFile(path.join(dir, 'snapshot.json'), '{"format": "nicdoctor-snapshot", ');
    await expect(SnapshotHostIO.open(dir)).rejects.toThrow(/not valid JSON/);
    await writeFile(
      path.join(dir, 'snapshot.json'),
      JSON.stringify({ format: 'nicdoctor-snapshot', version: 1, inventory: { hostname: 'x' } }),
    );
    await expect(SnapshotHostIO.open(dir)).rejects.toThrow(/inventory\.kernel/);
  });

  it('never follows a link out of the snapshot', async () => {
    const dir = await tempDir();
    const recorder = new RecordingHostIO(dir);
    await recorder.writeManifest(await recorder.inventory(), { name: 'nicdoctor', version: 'test' });
    await mkdir(path.join(dir, 'fs', 'etc'), { recursive: true });
    await symlink('/etc/hostname', path.join(dir, 'fs', 'etc', 'escape'));
    const replay = await SnapshotHostIO.open(dir);
    const error = await replay.readFile('/etc/escape').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostIOError);
    expect((error as HostIOError).message).toMatch(/outside/);
  });

  it('rejects a corrupt command record instead of guessing', async () => {
    const dir = await tempDir();
    const recorder = new RecordingHostIO(dir);
    await recorder.exec(['echo', 'x']);
    await recorder.writeManifest(await recorder.inventory(), { name: 'nicdoctor', version: 'test' });
    await writeFile(path.join(dir, 'cmd', 'echo_x.json'), '{not json');
    const replay = await SnapshotHostIO.open(dir);
    await expect(replay.exec(['echo', 'x'])).rejects.toMatchObject({ kind: 'io' });
    expect(await readFile(path.join(dir, 'cmd', 'echo_x'), 'utf8')).toBe('x\n');
  });
});
