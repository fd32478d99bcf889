/**
 * The majority rule of `fleet` on real host reports (fixtures/hosts scanned offline): an odd one
 * out needs a strict majority of at least three, per NIC model and driver.
 */
import { describe, expect, it } from 'vitest';
import { buildFleet } from '../../src/fleet/fleet.js';
import type { LoadedInput } from '../../src/fleet/inputs.js';
import { settingsFromStore } from '../../src/fleet/settings.js';
import { scanScenario } from '../helpers/scenario-reports.js';

async function host(key: string, scenario: string, change?: (input: LoadedInput) => void): Promise<LoadedInput> {
  const { report, store } = await scanScenario(scenario);
  const { settings, facts } = await settingsFromStore(store, report);
  const input: LoadedInput = { file: `${key}.tar.gz`, key, kind: 'bundle', report, settings, facts };
  change?.(input);
  return input;
}

const mtu = (value: number) => (input: LoadedInput) => {
  input.settings.interfaces[0]!.values.MTU = value;
};

describe('fleet outliers', () => {
  it('reads the settings the checks read from a real host', async () => {
    const input = await host('a', 'i40e-small-rings-drops');
    expect(input.settings.interfaces[0]).toMatchObject({
      name: 'eth0',
      driver: 'i40e',
      values: { 'rx ring': 2048, 'tx ring': 512, MTU: 1500 },
    });
  });

  it('names the one of three that differs, and only it', async () => {
    const fleet = buildFleet(
      [
        await host('a', 'i40e-small-rings-drops'),
        await host('b', 'i40e-small-rings-drops'),
        await host('c', 'i40e-small-rings-drops', mtu(9000)),
      ],
      'critical',
    );
    expect(fleet.outliers.map((outlier) => [outlier.setting, outlier.outliers.map((member) => member.host)])).toEqual([['MTU', ['c']]]);
  });

  it('two hosts that differ have no majority, and neither has a three-way tie', async () => {
    const two = buildFleet([await host('a', 'i40e-small-rings-drops'), await host('b', 'i40e-small-rings-drops', mtu(9000))], 'critical');
    expect(two.outliers).toEqual([]);
    const tie = buildFleet(
      [
        await host('a', 'i40e-small-rings-drops'),
        await host('b', 'i40e-small-rings-drops', mtu(9000)),
        await host('c', 'i40e-small-rings-drops', mtu(4000)),
      ],
      'critical',
    );
    expect(tie.outliers).toEqual([]);
  });

  it('compares interfaces only with the same NIC model and driver', async () => {
    const fleet = buildFleet(
      [await host('a', 'i40e-small-rings-drops'), await host('b', 'i40e-small-rings-drops'), await host('c', 'ixgbe-10g-pcie-degraded')],
      'critical',
    );
    expect(fleet.outliers.filter((outlier) => outlier.scope === 'interface')).toEqual([]);
    expect(fleet.hosts.find((entry) => entry.host === 'c')).toMatchObject({
      failed: true,
      topDiagnosis: { ruleId: 'pcie-bandwidth-below-port' },
    });
  });
});
