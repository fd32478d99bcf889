import { describe, expect, it } from 'vitest';
import flowControl from '../../checks/flow-control.js';
import { ethtoolPauseCollector } from '../../src/collectors/ethtool-pause.js';
import { FactStore } from '../../src/contracts/collector.js';
import { parseEthtoolPause } from '../../src/parsers/ethtool-pause.js';
import { silentLogger } from '../../src/util/log.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { fakeHost } from '../helpers/fake-host.js';
import { realCapture } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';
import { ticketReports } from '../helpers/ticket-reports.js';

// ethtool's netlink format (netlink/pause.c); no real capture of a physical port is stored.
const pause = (rx: string, tx: string, negotiated?: [string, string]) =>
  parseEthtoolPause(
    `Pause parameters for eth0:\nAutonegotiate:\ton\nRX:\t\t${rx}\nTX:\t\t${tx}\n${negotiated ? `RX negotiated: ${negotiated[0]}\nTX negotiated: ${negotiated[1]}\n` : ''}`,
  );

/** The fact error the real collector makes of a captured ethtool -a answer. */
async function collectedError(stderr: string) {
  const io = fakeHost({ commands: () => ({ exitCode: 1, stderr }) });
  const result = await new FactStore(io, [ethtoolPauseCollector], silentLogger()).get('ethtool.pause', 'eth0');
  if (result.ok) throw new Error('expected the collector to fail');
  return failed(result.error.kind, result.error.message, result.error.hint);
}

const tester = checkTester(flowControl);

describe('flow-control check', () => {
  it('passes pause frames on in both directions on a 25G ice port', async () => {
    const device = netDevice('eth0', { driver: 'ice', speedMbps: 25_000 });
    const result = await tester.run({ 'net.device': device, 'ethtool.pause': pause('on', 'on', ['on', 'on']) });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('notes flow control off on ice, whose default is off: a setting, a cause only with drops (rule flow-control-off)', async () => {
    const device = netDevice('eth0', { driver: 'ice', speedMbps: 100_000 });
    const result = await tester.run({ 'net.device': device, 'ethtool.pause': pause('off', 'off', ['off', 'off']) });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'pause-off',
        severity: 'info',
        fix: expect.stringMatching(/^ethtool -A eth0 rx on tx on, and turn flow control on at the switch port/),
      }),
    ]);
    expect(result.findings[0]!.message).toContain('flow control RX off, TX off (configured off)');
    expect(result.findings[0]!.message).toContain('the ice driver turns it off by default');
    expect(result.findings[0]!.evidence.map((item) => [item.label, item.observed, item.expected])).toEqual([
      ['pause RX', 'off', 'on'],
      ['pause TX', 'off', 'on'],
      ['pause autonegotiate', 'on', undefined],
    ]);
  });

  it('notes flow control off on another 10G driver (info, the check passes)', async () => {
    const device = netDevice('eth0', { driver: 'ixgbe', speedMbps: 10_000 });
    const result = await tester.run({ 'net.device': device, 'ethtool.pause': pause('on', 'off') });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'pause-off', severity: 'info', data: expect.objectContaining({ rx: 'on', tx: 'off' }) }),
    ]);
  });

  it('blames the link partner when pause is configured on but negotiated off', async () => {
    const device = netDevice('eth0', { driver: 'i40e', speedMbps: 40_000 });
    const result = await tester.run({ 'net.device': device, 'ethtool.pause': pause('on', 'on', ['off', 'off']) });
    expect(result.findings[0]!.message).toContain('the switch port has flow control off');
  });

  it("warns when the ticket's poster says turning flow control on cured the problem", async () => {
    const device = netDevice('eth0', { driver: null, speedMbps: null });
    const reports = ticketReports({ flowControlCured: true });
    const result = await tester.run({
      'net.device': device,
      'ethtool.pause': pause('on', 'on', ['off', 'off']),
      'ticket.reports': reports,
    });
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'pause-off', severity: 'warning', data: expect.objectContaining({ curedByPoster: true }) }),
    ]);
    expect(result.findings[0]!.message).toContain('turning flow control on cured the problem');
  });

  it('says nothing below 10G', async () => {
    const device = netDevice('eth0', { driver: 'igb', speedMbps: 1000 });
    const result = await tester.run({ 'net.device': device, 'ethtool.pause': pause('off', 'off') });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('follows the options: a lower speed floor and another off-by-default driver', async () => {
    const device = netDevice('eth0', { driver: 'igb', speedMbps: 1000 });
    const result = await tester.run(
      { 'net.device': device, 'ethtool.pause': pause('off', 'off') },
      { options: { minSpeedMbps: 1000, offByDefaultDrivers: ['igb'] } },
    );
    expect(result.findings).toEqual([expect.objectContaining({ symptom: 'pause-off', severity: 'info' })]);
    expect(result.findings[0]!.message).toContain('the igb driver turns it off by default');
  });

  it('is not applicable on a virtual NIC (real virtio_net answer: Operation not supported)', async () => {
    const device = netDevice('eth0', { kind: 'paravirtual', driver: 'virtio_net' });
    const error = await collectedError(realCapture('local-vm/ethtool_-a-virtio_net-eth0.txt'));
    expect(error.failure).toBe('unsupported');
    const result = await tester.run({ 'net.device': device, 'ethtool.pause': error });
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('paravirtual interface');
  });

  it('is not applicable on a physical port whose driver has no pause control (real answer)', async () => {
    const error = await collectedError(realCapture('local-vm/ethtool_-a-virtio_net-eth0.txt'));
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.pause': error });
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('does not support flow control');
  });

  it('is unknown, with the hint, when ethtool -a is not permitted', async () => {
    const error = await collectedError('netlink error: Operation not permitted\n');
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.pause': error });
    expect(result.status).toBe('unknown');
    expect(result.hint).toContain('root');
  });

  it('is unknown when ethtool -a reports only one direction', async () => {
    const partial = { ...pause('off', 'off'), tx: null };
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.pause': partial });
    expect(result.status).toBe('unknown');
  });
});
