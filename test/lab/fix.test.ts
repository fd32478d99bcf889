/**
 * `nicdoctor fix` against a real veth pair in a lab namespace: the script changes nothing,
 * --apply changes offloads, channels and a per-namespace sysctl (read back with the real
 * tools), --revert restores every value. net.core.* sysctls are global (read-only inside a
 * namespace): --apply must report them as failed changes, not crash.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasStackTrace, runCli } from '../../lab/cli.js';
import { useFixLab, LOW_RMEM } from './fix-lab.js';
import { labAvailable } from '../../lab/lab.js';

const skipReason = labAvailable(['ip', 'ethtool']);
if (skipReason) console.warn(`fix lab tests skipped: ${skipReason}`);

describe.skipIf(skipReason)('nicdoctor fix in a lab namespace', () => {
  const fixLab = useFixLab('nicdoctor-lab-fix-');
  const { observe } = fixLab;

  it('prints a script and changes nothing; --apply changes offloads, channels and tcp_rmem; --revert restores them', async () => {
    const before = await observe();
    expect(before).toEqual({ tso: 'off', gso: 'off', rx: '1', tx: '1', tcpRmem: LOW_RMEM });

    // The veth's 10000 Mb/s is nominal: --link-speed makes it the 10G link whose tier and queues are judged.
    const printed = await runCli(['fix', '--iface', fixLab.lab.a.iface, '--link-speed', '10000'], { lab: fixLab.lab, ns: 'a' });
    expect(printed.exitCode, printed.stderr).toBe(0);
    expect(printed.stdout).toMatch(/^#!\/usr\/bin\/env bash\n/);
    expect(printed.stdout).toContain('set -euo pipefail');
    expect(printed.stdout).toContain(`ethtool -K ${fixLab.lab.a.iface} tso on gso on`);
    expect(printed.stdout).toContain(`ethtool -L ${fixLab.lab.a.iface} rx 2 tx 2`);
    expect(printed.stdout).toMatch(/^sysctl -w 'net\.ipv4\.tcp_rmem=\d+ \d+ \d+'$/m);
    expect(printed.stdout).toContain("cat > /etc/sysctl.d/90-nicdoctor.conf <<'NICDOCTOR_EOF'");
    expect(printed.stdout).toContain(`cat > /etc/systemd/network/10-nicdoctor-${fixLab.lab.a.iface}.link`);
    expect(await observe()).toEqual(before);

    const state = path.join(fixLab.dir, 'state', 'fix-state.json');
    const refused = await runCli(['fix', '--apply', '--iface', fixLab.lab.a.iface, '--link-speed', '10000', '--state', state], {
      lab: fixLab.lab,
      ns: 'a',
    });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(await observe()).toEqual(before);

    const applied = await runCli(['fix', '--apply', '--yes', '--iface', fixLab.lab.a.iface, '--link-speed', '10000', '--state', state], {
      lab: fixLab.lab,
      ns: 'a',
    });
    expect(hasStackTrace(applied.stderr), applied.stderr).toBe(false);
    // Global net.core.* sysctls cannot change inside a namespace: those, and only those, fail.
    const failed = applied.stdout.split('\n').filter((line) => line.startsWith('FAILED'));
    for (const line of failed) expect(line).toMatch(/^FAILED\s+sysctl -w net\.core\./);
    expect(applied.exitCode, applied.stdout + applied.stderr).toBe(failed.length ? 1 : 0);
    expect(applied.stdout).toMatch(new RegExp(`^applied\\s+ethtool -K ${fixLab.lab.a.iface} tso on gso on$`, 'm'));
    expect(applied.stdout).toMatch(new RegExp(`^applied\\s+ethtool -L ${fixLab.lab.a.iface} rx 2 tx 2$`, 'm'));
    expect(existsSync(state)).toBe(true);

    const after = await observe();
    expect(after).toMatchObject({ tso: 'on', gso: 'on', rx: '2', tx: '2' });
    expect(after.tcpRmem).not.toBe(LOW_RMEM);
    expect(Number(after.tcpRmem.split(' ')[2])).toBeGreaterThan(16384);

    const again = await runCli(['fix', '--apply', '--yes', '--iface', fixLab.lab.a.iface, '--link-speed', '10000', '--state', state], {
      lab: fixLab.lab,
      ns: 'a',
    });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('--revert');

    const reverted = await runCli(['fix', '--revert', '--yes', '--state', state], { lab: fixLab.lab, ns: 'a' });
    expect(reverted.exitCode, reverted.stdout + reverted.stderr).toBe(0);
    expect(await observe()).toEqual(before);
    expect(existsSync(state)).toBe(false);

    const nothing = await runCli(['fix', '--revert', '--yes', '--state', state], { lab: fixLab.lab, ns: 'a' });
    expect(nothing.exitCode).toBe(2);
  });

  // --apply with an input to diagnose is a usage error that needs no lab: test/cli/usage.test.ts.
});
