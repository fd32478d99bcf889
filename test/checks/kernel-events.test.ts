import { describe, expect, it } from 'vitest';
import kernelEvents from '../../checks/kernel-events.js';
import { parseKernelEvents } from '../../src/parsers/kernel-events.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import { ticketReports } from '../helpers/ticket-reports.js';

const tester = checkTester(kernelEvents);
const log = (...files: string[]) => parseKernelEvents(files.map((file) => realCapture(`kernel-events/${file}`)).join('\n'));
const run = (files: string[], interfaces: Parameters<typeof tester.run>[1] = { interfaces: [] }) =>
  tester.run({ 'kernel.events': log(...files) }, interfaces);

describe('kernel-events check (fault events in the kernel log)', () => {
  it('repeated NETDEV WATCHDOG timeouts on two ports: warnings per port, on the selected interface, with counts and times in the data', async () => {
    const result = await run(['r8125-netdev-watchdog-cpu-format-1.txt'], {
      interfaces: [{ name: 'eth4', pciAddress: '0000:22:04.0' }],
    });
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'tx-timeouts',
        subject: 'eth4',
        severity: 'warning',
        data: expect.objectContaining({
          kind: 'tx-timeout',
          count: 4,
          firstAt: '1356.29693 s after boot',
          lastAt: '28094.903314 s after boot',
          ageSeconds: 1854,
          recent: true,
        }),
      }),
      expect.objectContaining({
        // Not among the interfaces examined, but its line names it: the finding is on eth1, not on the host.
        symptom: 'tx-timeouts',
        subject: 'eth1',
        data: expect.objectContaining({ address: '0000:22:01.0', count: 3 }),
      }),
    ]);
    expect(result.findings[0]!.message).toMatchInlineSnapshot(
      `"r8125 0000:22:04.0 (eth4): a transmit queue timed out 4 times from 1356.29693 s after boot to 28094.903314 s after boot, the last 31 min before the end of the log; traffic stops while the queue is reset"`,
    );
  });

  it('a single TX timeout more than a day before the end of the log is a note; the recent hangs are warnings', async () => {
    const result = await run(['e1000e-netdev-watchdog-1.txt', 'ixgbe-tx-unit-hang-1.txt']);
    const watchdog = result.findings.find((finding) => finding.data.kind === 'tx-timeout')!;
    expect(watchdog).toMatchObject({ severity: 'info', data: { recent: false, count: 1 } });
    expect(result.findings.find((finding) => finding.data.kind === 'tx-hang')).toMatchObject({ severity: 'warning' });
  });

  it('a rejected transceiver is critical: the port has no link', async () => {
    const result = await run(['ixgbe-unsupported-sfp-journal-1.txt']);
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'module-rejected',
        severity: 'critical',
        data: expect.objectContaining({ linkUpAfter: false, detail: 'unsupported' }),
      }),
    ]);
    expect(result.findings[0]!.message).toContain(
      'the driver rejected the transceiver, which is of a type the driver does not support (once): the port has no link',
    );
  });

  it('firmware health and MDD events are warnings when the log gives no time to call them old', async () => {
    const result = await run(['mlx5-health-compromised-1.txt', 'ice-mdd-vf-1.txt']);
    expect(result.findings.map((finding) => [finding.symptom, finding.severity, finding.data.kind])).toEqual([
      ['firmware-events', 'warning', 'firmware-fault'],
      ['firmware-events', 'warning', 'mdd'],
    ]);
  });

  it('AER: corrected errors on a NIC are a note below the warning count; on a port with no NIC named, a note; on other devices, nothing', async () => {
    const nic = await run(['aer-alx-badtlp-1.txt']);
    expect(nic.findings).toEqual([
      expect.objectContaining({ symptom: 'pcie-aer-errors', severity: 'info', data: expect.objectContaining({ onNic: true, count: 1 }) }),
    ]);
    const port = await run(['aer-corrected-received-syslog-1.txt']);
    expect(port.findings).toEqual([
      expect.objectContaining({ severity: 'info', data: expect.objectContaining({ onNic: false, count: 12 }) }),
    ]);
    const other = await tester.run(
      {
        'kernel.events': parseKernelEvents(
          '[ 5.0] nvme 0000:03:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n',
        ),
      },
      { interfaces: [] },
    );
    expect(other.findings).toEqual([]);
  });

  it('a ticket that says the lines keep coming makes one pasted AER line or link drop a warning, and says so', async () => {
    const repeating = { 'ticket.reports': ticketReports({ logRepeatsReported: true }) };
    const aer = await tester.run({ 'kernel.events': log('aer-alx-badtlp-1.txt'), ...repeating }, { interfaces: [] });
    expect(aer.findings).toEqual([
      expect.objectContaining({
        symptom: 'pcie-aer-errors',
        severity: 'warning',
        data: expect.objectContaining({ count: 1, repeatReported: true }),
      }),
    ]);
    expect(aer.findings[0]!.message).toContain('which the ticket says keep coming');
    const quiet = await tester.run({ 'kernel.events': log('aer-alx-badtlp-1.txt'), 'ticket.reports': ticketReports() }, { interfaces: [] });
    expect(quiet.findings[0]!.severity).toBe('info');
  });

  it('conntrack full, over-MTU drops, a network page allocation failure and a link flap each raise their own finding', async () => {
    const result = await run(['conntrack-full-wrapped-syslog-1.txt']);
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'conntrack-full', severity: 'warning', data: expect.objectContaining({ count: 5 }) }),
    ]);
    const ovs = await run(['ovs-over-mtu-tap-syslog-1.txt']);
    expect(ovs.findings).toEqual([
      expect.objectContaining({
        symptom: 'over-mtu-drops',
        severity: 'warning',
        data: expect.objectContaining({ packetBytes: 8950, mtuBytes: 1450 }),
      }),
    ]);
    const pages = await run(['page-alloc-napi-journal-1.txt']);
    expect(pages.findings).toEqual([expect.objectContaining({ symptom: 'page-allocation-failures', severity: 'info' })]);
    const flap = await run(['ixgbe-link-flap-syslog-1.txt'], { interfaces: [{ name: 'eth11', pciAddress: '0000:08:00.0' }] });
    // Up, then down for good: one drop is still a note (a cable pulled), and the message says it did not come back.
    expect(flap.findings).toEqual([expect.objectContaining({ symptom: 'link-flapping', subject: 'eth11', severity: 'info' })]);
    expect(flap.findings[0]!.message).toContain('it was still down when the log ended');
  });

  it('a lone link drop that came back is a note; TCP out of socket memory is a host warning; a named interface is the subject without other outputs', async () => {
    const cameBack = parseKernelEvents(
      [
        '[ 7200.000001] igb 0000:02:00.0 eno1: NIC Link is Down',
        '[ 7203.500000] igb 0000:02:00.0 eno1: NIC Link is Up 1000 Mbps Full Duplex',
      ].join('\n'),
    );
    const note = await tester.run({ 'kernel.events': cameBack }, { interfaces: [] });
    expect(note.findings).toEqual([expect.objectContaining({ symptom: 'link-flapping', subject: 'eno1', severity: 'info' })]);
    const oom = parseKernelEvents(
      ['[ 9000.1] TCP: out of memory -- consider tuning tcp_mem', '[ 9000.4] TCP: out of memory -- consider tuning tcp_mem'].join('\n'),
    );
    const memory = await tester.run({ 'kernel.events': oom }, { interfaces: [] });
    expect(memory.findings).toEqual([
      expect.objectContaining({ symptom: 'socket-memory-exhausted', subject: 'host', severity: 'warning' }),
    ]);
    expect(memory.findings[0]!.message).toMatch(/TCP ran out of socket memory .* 2 times/);
    const watchdog = parseKernelEvents('[  300.5] NETDEV WATCHDOG: enp3s0 (r8169): transmit queue 0 timed out');
    const timeout = await tester.run({ 'kernel.events': watchdog }, { interfaces: [] });
    expect(timeout.findings).toEqual([expect.objectContaining({ symptom: 'tx-timeouts', subject: 'enp3s0' })]);
  });

  it('is not applicable on a healthy log, and unknown when no log could be read', async () => {
    const healthy = await run(['i40e-healthy-probe-journal-1.txt', 'page-alloc-capture-module-1.txt']);
    expect(healthy.status).toBe('not-applicable');
    const unreadable = await tester.run({ 'kernel.events': failed('permission-denied') }, { interfaces: [] });
    expect(unreadable.status).toBe('unknown');
  });
});
