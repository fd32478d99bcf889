import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { analyzeText } from '../../src/text/analyze.js';
import { formatForCommand, sniffKinds } from '../../src/text/formats.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES } from '../helpers/fixtures.js';

// A netdev mail (Jan 2020): `ethtool -i` and two `ethtool -m` of ixgbe ports, as published (wrapped by the mailer).
const MAIL = readFileSync(path.join(FIXTURES, 'text', 'netdev-ixgbe-sfp-rx-no-light-ethtool-m.txt'), 'utf8');

describe('ethtool -m in pasted text', () => {
  it('names the output and the interface from its command line, in every spelling', () => {
    expect(formatForCommand('sudo ethtool -m enp3s0f0')).toMatchObject({ format: { kind: 'ethtool-module' }, iface: 'enp3s0f0' });
    expect(formatForCommand('ethtool --module-info eth2')).toMatchObject({ format: { kind: 'ethtool-module' }, iface: 'eth2' });
    expect(formatForCommand('ethtool --dump-module-eeprom eth2')).toMatchObject({ format: { kind: 'ethtool-module' }, iface: 'eth2' });
  });

  it('recognises the module outputs in a mail, wrapped lines included', () => {
    expect(sniffKinds(MAIL)).toContain('ethtool-module');
  });

  it('reads both modules: no light on one port (critical), no diagnostics on the other (unknown)', async () => {
    const [outcome] = await analyzeText(MAIL, { checks, log: silentLogger() });
    const check = outcome!.report.checks.find((candidate) => candidate.id === 'optical-module')!;
    expect(outcome!.report.interfaces.map((iface) => [iface.name, iface.kind])).toEqual([
      ['enp3s0f0', 'physical'],
      ['enp3s0f1', 'physical'],
    ]);
    expect(check.subjects).toEqual([
      { subject: 'enp3s0f0', status: 'fail' },
      { subject: 'enp3s0f1', status: 'unknown', reason: expect.stringMatching(/no digital diagnostics/) },
    ]);
    expect(check.findings).toEqual([
      expect.objectContaining({
        subject: 'enp3s0f0',
        symptom: 'module-out-of-range',
        severity: 'critical',
        data: expect.objectContaining({ quantity: 'rxPower', side: 'low', partNumber: 'TN-SFP-10G-LR' }),
      }),
    ]);
  });
});
