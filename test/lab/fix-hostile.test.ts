/**
 * `nicdoctor fix` against hostile and crashing conditions in a lab namespace (issue 13):
 * - kill -9 of `fix --apply` at many moments after its state file appears: the state file is
 *   always valid and `--revert` (taking over the dead process's lock) restores every value;
 * - a live veth whose name is a shell command: the script quotes it and nothing runs.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState } from '../../src/fix/state.js';
import { CLI, runCli, toolPath } from '../../lab/cli.js';
import { useFixLab, LOW_RMEM } from './fix-lab.js';
import { labAvailable } from '../../lab/lab.js';

const skipReason = labAvailable(['ip', 'ethtool']);
if (skipReason) console.warn(`fix hostile lab tests skipped: ${skipReason}`);

const HOSTILE = '$(touch${IFS}P)';
/** Milliseconds after the state file appears at which apply is killed. */
const KILL_AFTER_MS = [0, 3, 8, 15, 30, 50, 80, 120, 200, 350];

describe.skipIf(skipReason)('nicdoctor fix: crashes and hostile names', () => {
  const fixLab = useFixLab('nicdoctor-lab-fix-hostile-');
  const { observe } = fixLab;

  it('kill -9 at every moment of --apply: the state file stays valid and --revert restores everything', async () => {
    const before = await observe();
    expect(before).toEqual({ tso: 'off', gso: 'off', rx: '1', tx: '1', tcpRmem: LOW_RMEM });
    let statesSeen = 0;
    for (const [index, delay] of KILL_AFTER_MS.entries()) {
      const state = path.join(fixLab.dir, `state-${index}`, 'fix-state.json');
      const apply = fixLab.lab.spawn(
        'a',
        [process.execPath, CLI, 'fix', '--apply', '--yes', '--iface', fixLab.lab.a.iface, '--link-speed', '10000', '--state', state],
        { env: { PATH: toolPath() } },
      );
      let exited = false;
      void apply.finally(() => (exited = true));
      while (!exited && !existsSync(state)) await new Promise((resolve) => setTimeout(resolve, 1));
      await new Promise((resolve) => setTimeout(resolve, delay));
      apply.kill('SIGKILL');
      await apply.catch(() => undefined);
      // Valid, or absent when the kill came before anything was saved.
      if (existsSync(state)) {
        statesSeen += 1;
        expect(await readState(state), `after ${delay} ms`).not.toBeNull();
      }
      const reverted = await runCli(['fix', '--revert', '--yes', '--state', state], { lab: fixLab.lab, ns: 'a' });
      expect([0, 2], `${delay} ms: ${reverted.stdout}${reverted.stderr}`).toContain(reverted.exitCode);
      if (reverted.exitCode === 2) expect(reverted.stderr).toMatch(/nothing to revert/);
      expect(await observe(), `after a kill ${delay} ms in, then --revert`).toEqual(before);
      expect(existsSync(state)).toBe(false);
    }
    // The kills landed while changes were saved or being made, not only before or after.
    expect(statesSeen).toBeGreaterThan(0);
  });

  it('a live veth named like a shell command is quoted in the script, and nothing runs', async () => {
    await fixLab.lab.exec('a', ['ip', 'link', 'add', HOSTILE, 'type', 'veth', 'peer', 'name', 'nd-peer0']);
    const cwd = mkdtempSync(path.join(fixLab.dir, 'cwd-'));
    const printed = await runCli(['fix', '--iface', HOSTILE], { lab: fixLab.lab, ns: 'a', cwd });
    expect(printed.exitCode, printed.stderr).toBe(0);
    for (const line of printed.stdout.split('\n').filter((candidate) => !candidate.startsWith('#') && candidate.includes(HOSTILE))) {
      expect(line.split(`'${HOSTILE}'`).join('')).not.toContain(HOSTILE);
    }
    const scanned = await runCli(['scan', '--iface', HOSTILE, '--format', 'json'], { lab: fixLab.lab, ns: 'a', cwd });
    expect([0, 1]).toContain(scanned.exitCode);
    expect(JSON.parse(scanned.stdout).interfaces.map((iface: { name: string }) => iface.name)).toEqual([HOSTILE]);
    expect(readdirSync(cwd)).toEqual([]);
  });
});
