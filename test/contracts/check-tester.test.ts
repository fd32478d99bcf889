import { describe, expect, it } from 'vitest';
import mtu from '../../checks/mtu.js';
import type { CheckResult } from '../../src/report/schema.js';
import { unfilledPlaceholders, unproduced } from '../helpers/check-tester.js';

// The afterAll verdict of checkTester() is built from these two; every test/checks file exercises it.
describe('check tester', () => {
  it('names the declared symptoms a test file never produced', () => {
    expect(unproduced(mtu, new Set(['standard-mtu-fast-link']))).toEqual([
      'bond-member-mtu-mismatch',
      'overlay-mtu-exceeds-underlay',
      'mtu-below-standard',
    ]);
    expect(unproduced(mtu, new Set(Object.keys(mtu.symptoms)))).toEqual([]);
  });

  it('names a produced message or fix that kept a placeholder', () => {
    const result = {
      id: 'mtu',
      findings: [
        { symptom: 'mtu-below-standard', message: 'eth0 uses MTU {mtu}', fix: 'ip link set dev eth0 mtu 1500' },
        { symptom: 'bond-member-mtu-mismatch', message: 'fine', fix: 'ip link set dev {master} mtu 9000' },
      ],
    } as unknown as CheckResult;
    expect(unfilledPlaceholders(result)).toEqual([
      'mtu/mtu-below-standard message kept {mtu}: eth0 uses MTU {mtu}',
      'mtu/bond-member-mtu-mismatch fix kept {master}: ip link set dev {master} mtu 9000',
    ]);
  });
});
