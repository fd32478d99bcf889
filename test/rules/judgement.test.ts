import { describe, expect, it } from 'vitest';
import { run } from './helpers.js';
import * as x from './fixtures.js';

/** Rule outcomes an experienced NIC engineer would give (issue 17, judgement items). */
describe('judgement: rules fire only on a real fault', () => {
  it('raises pcie-bandwidth-below-port from a "limited by" line only when its ceiling is below the port', () => {
    const ids = (carries: 'no' | 'yes' | 'unknown', port: number | null) =>
      run({ findings: [x.kernelPcieLimited(carries, port)] }).map((diagnosis) => diagnosis.ruleId);
    expect(ids('no', 100)).toContain('pcie-bandwidth-below-port');
    // 56 Gb/s of traffic carries a 25G port: the check's own numbers say so.
    expect(ids('yes', 25)).not.toContain('pcie-bandwidth-below-port');
    // No port speed from any source: the check's note asks for it; no cause at high confidence.
    expect(ids('unknown', null)).not.toContain('pcie-bandwidth-below-port');
  });
});
