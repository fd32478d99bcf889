import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { Redactor, openBundle, writeBundle } from '../../src/bundle/index.js';
import { walk } from '../../src/bundle/redact-tree.js';
import { scan } from '../../src/pipeline/scan.js';
import { RecordingHostIO } from '../../src/hostio/recording.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
import { commandKey } from '../../src/hostio/types.js';
import { silentLogger } from '../../src/util/log.js';
import { REAL, realCapture } from '../helpers/fixtures.js';

let work: string;
let snapshot: string;
/** Every identifying value in the snapshot, found independently of the Redactor. */
const originals = { hostnames: [] as string[], other: [] as string[] };

/**
 * A real recording of this machine (what `nicdoctor collect` does), plus the real captures
 * that hold serial numbers and MAC addresses, added as the commands and files they came from.
 */
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-redact-'));
  snapshot = path.join(work, 'snapshot');
  const io = new RecordingHostIO(snapshot);
  const { report } = await scan({ io, checks, log: silentLogger() });
  const inventory = await io.inventory();
  await io.writeManifest(inventory, { name: 'nicdoctor', version: 'test' });
  originals.hostnames.push(inventory.hostname);
  const ipOutput = (await io.exec(['ip', '-o', 'addr'])).stdout;
  for (const match of ipOutput.matchAll(/\binet6? ([0-9a-f.:]+)\//g))
    if (!['127.0.0.1', '::1'].includes(match[1]!)) originals.other.push(match[1]!);
  for (const iface of report.interfaces) {
    const mac = (await io.readFile(`/sys/class/net/${iface.name}/address`)).trim();
    if (!/^(00:)+00$/.test(mac)) originals.other.push(mac);
  }
  const addCommand = async (argv: string[], capture: string) => {
    await writeFile(path.join(snapshot, 'cmd', commandKey(argv)), realCapture(capture));
    await writeFile(
      path.join(snapshot, 'cmd', `${commandKey(argv)}.json`),
      JSON.stringify({ argv, exitCode: 0, stderr: '', durationMs: 3 }),
    );
  };
  await addCommand(['lspci', '-vv', '-s', '0000:05:00.0'], 'lspci/mellanox-cx3pro-lspci-v-1.txt');
  originals.other.push('ec-0d-9a-03-00-f2-ac-00');
  await addCommand(['ethtool', '-x', 'eth9'], 'ethtool/sfc-x-allzero-1.txt');
  const e810 = 'sysfs/intel-e810-ice-1/devices/pci0000:a2/0000:a2:00.0/net/enp162s0f0np0';
  const netDir = path.join(snapshot, 'fs', 'sys', 'class', 'net', 'enp162s0f0np0');
  await mkdir(netDir, { recursive: true });
  for (const file of ['address', 'broadcast']) await cp(path.join(REAL, e810, file), path.join(netDir, file));
  originals.other.push((await readFile(path.join(REAL, e810, 'address'), 'utf8')).trim());
  // A command whose name holds an address and a hostname, as a bench or a ping would record.
  await addCommand(
    ['ping', '-c', '1', originals.other[0] ?? '192.0.2.1', inventory.hostname],
    'ethtool/i40e-i-netutils-x710-e3-1271-eth0.txt',
  );
}, 60_000);
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('redaction', () => {
  it('found real values to redact', () => {
    expect(originals.hostnames[0]!.length).toBeGreaterThan(0);
    expect(originals.other.length).toBeGreaterThanOrEqual(3);
  });

  it('leaves no original value anywhere in the bundle, in contents or names', async () => {
    const report = (await scan({ io: await SnapshotHostIO.open(snapshot), checks, log: silentLogger() })).report;
    const output = path.join(work, 'redacted.tar.gz');
    const { redacted } = await writeBundle({ snapshotDir: snapshot, report, output, redact: true, bench: { server: originals.other[0] } });
    expect(redacted!.hostnames).toBeGreaterThanOrEqual(1);
    expect(redacted!.macs).toBeGreaterThanOrEqual(2);
    expect(redacted!.serials).toBeGreaterThanOrEqual(1);
    const opened = await openBundle(output);
    try {
      const root = path.dirname(opened.snapshotDir);
      const haystacks: Array<[string, string]> = [];
      for (const entry of await walk(root)) {
        haystacks.push([entry.relative, entry.relative]);
        if (entry.kind === 'link') haystacks.push([entry.relative, entry.target]);
        if (entry.kind === 'file') haystacks.push([entry.relative, await readFile(entry.absolute, 'latin1')]);
      }
      for (const [where, text] of haystacks) {
        for (const value of originals.other) expect(text.toLowerCase().includes(value.toLowerCase()), `${value} in ${where}`).toBe(false);
        // A hostname is a word: "vm" must go, "kvm" and "vmxnet3" are not it.
        for (const name of originals.hostnames)
          expect(new RegExp(`(?<![A-Za-z0-9-])${name.replace(/\./g, '\\.')}(?![A-Za-z0-9-])`, 'i').test(text), `${name} in ${where}`).toBe(
            false,
          );
      }
      const reportJson = JSON.parse(await readFile(path.join(root, 'report.json'), 'utf8')) as {
        redacted: unknown;
        host: { hostname: string };
      };
      expect(reportJson.redacted).toEqual(redacted);
      expect(reportJson.host.hostname).toBe('host-1');
      expect(opened.manifest.redacted).toEqual(redacted);
      // Tokens keep their shape, and the RSS key (a 40-byte colon run) is not taken for a MAC.
      const lspci = await readFile(path.join(opened.snapshotDir, 'cmd', 'lspci_-vv_-s_0000:05:00.0'), 'utf8');
      expect(lspci).toMatch(/Device Serial Number serial-\d+/);
      expect(await readFile(path.join(opened.snapshotDir, 'fs/sys/class/net/enp162s0f0np0/address'), 'utf8')).toMatch(
        /^02(:[0-9a-f]{2}){5}\n$/,
      );
      expect(await readFile(path.join(opened.snapshotDir, 'fs/sys/class/net/enp162s0f0np0/broadcast'), 'utf8')).toBe('ff:ff:ff:ff:ff:ff\n');
      expect(await readFile(path.join(opened.snapshotDir, 'cmd', 'ethtool_-x_eth9'), 'utf8')).toBe(
        realCapture('ethtool/sfc-x-allzero-1.txt'),
      );
      // The redacted snapshot still replays to the same findings.
      const replayed = (await scan({ io: await SnapshotHostIO.open(opened.snapshotDir), checks, log: silentLogger() })).report;
      const keys = (r: typeof report) => r.checks.map((check) => `${check.id}:${check.status}:${check.findings.length}`).sort();
      expect(keys(replayed)).toEqual(keys(report));
    } finally {
      await opened.cleanup();
    }
  });

  it('gives the same value the same token everywhere, in a parseable shape', () => {
    const redactor = new Redactor();
    redactor.addHostname('web01.example.com');
    const texts = [
      'web01 has 10.1.2.3 and fe80::1 on aa:bb:cc:dd:ee:ff',
      'WEB01.example.com talks to 10.1.2.3 from AA:BB:CC:DD:EE:FF',
      'firmware-version: 11.1.183.62',
      '[SN] Serial number: MT1234X56789',
    ];
    for (const text of texts) redactor.collect(text);
    const [a, b, c, d] = texts.map((text) => redactor.apply(text));
    expect(a).toBe('host-1 has 10.255.0.2 and fd00:0:0:ffff::1 on 02:00:00:00:00:01');
    expect(b).toBe('host-2 talks to 10.255.0.2 from 02:00:00:00:00:01');
    expect(c).toBe('firmware-version: 11.1.183.62');
    expect(d).toBe('[SN] Serial number: serial-1');
    expect(redactor.counts()).toEqual({ hostnames: 2, ips: 2, macs: 1, serials: 1 });
  });
});
