import { describe, expect, it } from 'vitest';
import opticalModule from '../../checks/optical-module.js';
import { ethtoolModuleCollector } from '../../src/collectors/ethtool-module.js';
import { FactStore } from '../../src/contracts/collector.js';
import { parseEthtoolModule } from '../../src/parsers/ethtool-module.js';
import { parseEthtoolSettings } from '../../src/parsers/ethtool-settings.js';
import { silentLogger } from '../../src/util/log.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { fakeHost } from '../helpers/fake-host.js';
import { realCapture } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';

const module = (file: string) => parseEthtoolModule(realCapture(`ethtool-module/${file}`));

// A 10G SFP+ port's supported modes (ethtool's own format); the module EEPROMs are real captures.
const tenGigPort = parseEthtoolSettings(
  'Settings for eth4:\n\tSupported ports: [ FIBRE ]\n\tSupported link modes:   1000baseT/Full\n\t                        10000baseT/Full\n\tSpeed: 1000Mb/s\n\tDuplex: Full\n\tLink detected: yes\n',
);

/** The fact error the real collector makes of a real `ethtool -m` refusal. */
async function collectedError(stderr: string) {
  const io = fakeHost({ commands: () => ({ exitCode: 1, stderr }) });
  const result = await new FactStore(io, [ethtoolModuleCollector], silentLogger()).get('ethtool.module', 'eth0');
  if (result.ok) throw new Error('expected the collector to fail');
  return failed(result.error.kind, result.error.message, result.error.hint);
}

const tester = checkTester(opticalModule);

describe('optical-module check', () => {
  it('passes a 10G SR module whose readings sit inside its own thresholds', async () => {
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.module': module('sfp-10g-sr-boyang-1.txt') });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('passes a QSFP28 SR4 with four lanes inside their thresholds', async () => {
    const device = netDevice('eth0', { driver: 'mlx5_core', speedMbps: 100_000 });
    const result = await tester.run({ 'net.device': device, 'ethtool.module': module('cumulus-qsfp28-sr4-thresholds-1.txt') });
    expect(result.status).toBe('pass');
  });

  it('raises a critical finding for receive power below the low alarm threshold (no light), with the part', async () => {
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.module': module('ixgbe-sfp-10g-lr-no-light-1.txt') });
    expect(result.status).toBe('fail');
    expect(result.findings).toHaveLength(1);
    const finding = result.findings[0]!;
    expect(finding).toMatchObject({ symptom: 'module-out-of-range', severity: 'critical' });
    expect(finding.data).toMatchObject({
      quantity: 'rxPower',
      side: 'low',
      level: 'alarm',
      value: 0.0001,
      threshold: 0.049,
      partNumber: 'TN-SFP-10G-LR',
    });
    expect(finding.message).toBe(
      'eth0: receive power of the SFP Transition TN-SFP-10G-LR is 0.0001 mW (-40.00 dBm), below its low alarm threshold of 0.049 mW (-13.10 dBm)',
    );
    expect(finding.evidence[0]).toMatchObject({ label: 'module', observed: 'SFP Transition TN-SFP-10G-LR' });
  });

  it('reports a warning, not an alarm, between the warning and alarm thresholds', async () => {
    const healthy = module('sfp-10g-sr-boyang-1.txt');
    // The same module 3 °C hotter than its high warning threshold (85 °C), below its alarm (90 °C).
    const hot = { ...healthy, readings: healthy.readings.map((r) => (r.quantity === 'temperature' ? { ...r, value: 88 } : r)) };
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.module': hot });
    expect(result.findings.map((f) => [f.symptom, f.severity, f.data.quantity, f.data.side])).toEqual([
      ['module-out-of-range', 'warning', 'temperature', 'high'],
    ]);
  });

  it('notes a 1G module in a 10G port while the link runs at 1G', async () => {
    const device = netDevice('eth4', { speedMbps: 1000 });
    const result = await tester.run({
      'net.device': device,
      'ethtool.module': module('ixgbe-sfp-1g-bx-1.txt'),
      'ethtool.settings': tenGigPort,
    });
    expect(result.status).toBe('pass');
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({
      symptom: 'module-slower-than-port',
      severity: 'info',
      data: { moduleMbps: 1000, portMaxMbps: 10_000, negotiatedMbps: 1000, partNumber: 'SFP-GE-BX' },
    });
    expect(result.findings[0]!.message).toContain('is a 1 Gb/s module in a port that supports 10 Gb/s');
  });

  it('says nothing of the rate when the module matches the port', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth4', { speedMbps: 10_000 }),
      'ethtool.module': module('sfp-10g-sr-boyang-1.txt'),
      'ethtool.settings': { ...tenGigPort, speedMbps: 10_000 },
    });
    expect(result.findings).toEqual([]);
  });

  it('is unknown, not healthy, for a module without diagnostics', async () => {
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.module': module('ixgbe-sfp-10g-rj45-nodom-1.txt') });
    expect(result.status).toBe('unknown');
    expect(result.reason).toMatch(/has no digital diagnostics/);
  });

  it('is unknown for a module with readings but no thresholds or flags, and does not judge idle lanes', async () => {
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.module': module('mlx4-qsfp-plus-no-flags-1.txt') });
    expect(result.status).toBe('unknown');
    expect(result.findings).toEqual([]);
    expect(result.reason).toMatch(/no alarm or warning thresholds/);
  });

  it('is unknown when every lane has its transmitter off', async () => {
    const qsfp = module('cumulus-qsfp28-sr4-thresholds-1.txt');
    const dark = { ...qsfp, readings: qsfp.readings.filter((r) => r.channel !== null).map((r) => ({ ...r, value: 0 })) };
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.module': dark });
    expect(result.status).toBe('unknown');
    expect(result.reason).toMatch(/transmitter off/);
  });

  it('does not apply to a virtio NIC, whose driver has no module EEPROM (real ethtool 6.1 answer)', async () => {
    const refusal = realCapture('local-vm/ethtool_-m-virtio_net-eth0.txt');
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.module': await collectedError(refusal) });
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toMatch(/no module EEPROM/);
  });

  it('does not apply to virtual interfaces', async () => {
    const result = await tester.run({ 'net.device': netDevice('veth0', { kind: 'virtual' }) });
    expect(result.status).toBe('not-applicable');
  });

  it('is unknown when ethtool -m could not be run for another reason', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0'),
      'ethtool.module': failed('permission-denied', 'ethtool -m: permission denied'),
    });
    expect(result.status).toBe('unknown');
  });
});
