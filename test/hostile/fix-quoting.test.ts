import { execFileSync } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { scan } from '../../src/engine/scan.js';
import { buildPlan } from '../../src/fix/plan.js';
import { renderScript } from '../../src/fix/script.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
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
    for (const bad of ['', '.', '..', 'a/b', 'a:b', 'a b', 'a\tb', 'a\nb', 'x'.repeat(16), 'é'.repeat(8), 'a\u0000b', 'à']) expect(isValidInterfaceName(bad)).toBe(false);
    for (const good of ['eth0', 'enp65s0f0np0', 'x'.repeat(15), '...', 'br-1234abcd', 'e`id`', "a'b"]) expect(isValidInterfaceName(good)).toBe(true);
  });

  it('a snapshot with a hostile name gives a fix script in which the name is quoted, and bash runs nothing from it', async () => {
    const root = await copyWithInterfaceRenamed(path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops'), 'eth0', HOSTILE_NAME);
    temps.push(path.dirname(root));
    const io = await SnapshotHostIO.open(root);
    const { report } = await scan({ io, checks, log: silentLogger() });
    expect(report.interfaces.map((iface) => iface.name)).toEqual([HOSTILE_NAME]);
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
      const words = execFileSync('bash', ['-c', `args=( ${line.replace(/\s*(<<|[|&;]).*$/, '').replace(/[<>]/g, ' ')} ); printf '%s\\n' "\${args[@]}"`], { cwd: sandbox, env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
      expect(words.split('\n').some((word) => word.includes(HOSTILE_NAME)), line).toBe(true);
    }
    expect(await readdir(sandbox)).toEqual([]);
  });
});
