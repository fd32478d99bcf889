import { execFileSync } from 'node:child_process';
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { scan } from '../../src/pipeline/scan.js';
import { buildPlan } from '../../src/fix/plan.js';
import { renderScript } from '../../src/fix/script.js';
import { openBundle } from '../../src/bundle/open.js';
import { writeBundle } from '../../src/bundle/write.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
import { SosreportHostIO } from '../../src/hostio/sosreport.js';
import { commandKey } from '../../src/hostio/types.js';
import type { Report } from '../../src/report/schema.js';
import { silentLogger } from '../../src/util/log.js';
import { isValidInterfaceName } from '../../src/util/validate.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { HOSTILE_NAME, copyWithInterfaceRenamed, tempDir } from './helpers.js';

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('interface names from evidence never reach a shell unquoted', () => {
  it('the kernel rules: dev_valid_name', () => {
    expect(isValidInterfaceName(HOSTILE_NAME)).toBe(true);
    for (const bad of ['', '.', '..', 'a/b', 'a:b', 'a b', 'a\tb', 'a\nb', 'x'.repeat(16), 'é'.repeat(8), 'a\u0000b', 'à'])
      expect(isValidInterfaceName(bad)).toBe(false);
    for (const good of ['eth0', 'enp65s0f0np0', 'x'.repeat(15), '...', 'br-1234abcd', 'e`id`', "a'b"])
      expect(isValidInterfaceName(good)).toBe(true);
  });

  /*
   * The captures do not report a link speed (--link-speed 10000 gives one), and their 179160
   * drops in 4.4e11 packets are negligible, which leaves the rings a note. Scaled to 0.4 % of
   * the packets, the drops make the rings a cause, whose fix names the interface.
   */
  async function withHeavyDrops(file: string): Promise<void> {
    const text = await readFile(file, 'utf8');
    const heavier = text.replace(/^(\s*rx_dropped: )179160$/m, '$11791600000');
    expect(heavier).not.toBe(text);
    await writeFile(file, heavier);
  }

  /** The fix script of a report names the hostile interface only quoted: bash expands it to one literal word. */
  async function expectQuoted(report: Report): Promise<void> {
    expect(report.interfaces.map((iface) => iface.name)).toContain(HOSTILE_NAME);
    const script = renderScript(buildPlan(report));
    // Command lines, runnable or commented out (a disruptive fix is uncommented by a human).
    const commands = script
      .split('\n')
      .map((line) => line.replace(/^# /, ''))
      .filter((line) => /^(ethtool|sysctl|install|cat|echo|ip|tc|taskset|numactl) /.test(line) && line.includes(HOSTILE_NAME));
    expect(commands.length).toBeGreaterThan(0);
    // Bash expands each line's words (redirections cut off) in an empty directory: an unquoted
    // name would run `touch P` there. The name must come out as one literal word.
    const sandbox = await tempDir();
    temps.push(sandbox);
    for (const line of commands) {
      const words = execFileSync(
        'bash',
        ['-c', `args=( ${line.replace(/\s*(<<|[|&;]).*$/, '').replace(/[<>]/g, ' ')} ); printf '%s\\n' "\${args[@]}"`],
        { cwd: sandbox, env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' },
      );
      expect(
        words.split('\n').some((word) => word.includes(HOSTILE_NAME)),
        line,
      ).toBe(true);
    }
    expect(await readdir(sandbox)).toEqual([]);
  }

  it('from a snapshot', async () => {
    const root = await copyWithInterfaceRenamed(path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops'), 'eth0', HOSTILE_NAME);
    temps.push(path.dirname(root));
    await withHeavyDrops(path.join(root, 'cmd', commandKey(['ethtool', '-S', HOSTILE_NAME])));
    const { report } = await scan({ io: await SnapshotHostIO.open(root), checks, log: silentLogger(), linkSpeedMbps: 10_000 });
    await expectQuoted(report);
  });

  it('from an evidence bundle', async () => {
    const root = await copyWithInterfaceRenamed(path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops'), 'eth0', HOSTILE_NAME);
    temps.push(path.dirname(root));
    await withHeavyDrops(path.join(root, 'cmd', commandKey(['ethtool', '-S', HOSTILE_NAME])));
    const { report } = await scan({ io: await SnapshotHostIO.open(root), checks, log: silentLogger(), linkSpeedMbps: 10_000 });
    const output = path.join(path.dirname(root), 'evidence.tar.gz');
    await writeBundle({ snapshotDir: root, report, output });
    const opened = await openBundle(output);
    try {
      const replayed = await scan({
        io: await SnapshotHostIO.open(opened.snapshotDir),
        checks,
        log: silentLogger(),
        linkSpeedMbps: 10_000,
      });
      await expectQuoted(replayed.report);
    } finally {
      await opened.cleanup();
    }
  });

  it('from a sosreport (the name from `ip address`, outputs under sos-mangled file names)', async () => {
    const sos = await copyWithInterfaceRenamed(path.join(FIXTURES, 'sosreport', 'x710-e3-1271'), 'eth0', HOSTILE_NAME);
    temps.push(path.dirname(sos));
    const networking = path.join(sos, 'sos_commands', 'networking');
    const mangled = commandKey([HOSTILE_NAME]);
    for (const name of await readdir(networking))
      if (name.includes(HOSTILE_NAME))
        await rename(path.join(networking, name), path.join(networking, name.replace(HOSTILE_NAME, mangled)));
    await withHeavyDrops(path.join(networking, `ethtool_-S_${mangled}`));
    await writeFile(
      path.join(networking, 'ip_address'),
      `2: ${HOSTILE_NAME}: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000\n`,
    );
    const { report } = await scan({ io: await SosreportHostIO.open(sos), checks, log: silentLogger(), linkSpeedMbps: 10_000 });
    await expectQuoted(report);
  });
});
