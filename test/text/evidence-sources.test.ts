import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import type { Report } from '../../src/report/schema.js';
import { interfaceLine } from '../../src/reporters/format-values.js';
import { analyzeText } from '../../src/text/analyze.js';
import { silentLogger } from '../../src/util/log.js';
import { realCapture } from '../helpers/fixtures.js';

/** Real outputs, pasted as a customer would (prompt lines added, outputs verbatim). */
async function analyze(text: string): Promise<Report> {
  const outcomes = await analyzeText(text, { checks, log: silentLogger() });
  expect(outcomes).toHaveLength(1);
  return outcomes[0]!.report;
}

/** A check's status for one subject (a host-scope check has no per-subject rows: its own status). */
function statusOf(report: Report, id: string, subject: string): string | undefined {
  const result = report.checks.find((candidate) => candidate.id === id);
  return result?.subjects.find((row) => row.subject === subject)?.status ?? (subject === 'host' ? result?.status : undefined);
}

describe('pasted text: every source of an interface', () => {
  it('a NIC bound to igb_uio (DPDK) in lspci -vv becomes a subject whose PCIe link is examined, not "nothing to examine"', async () => {
    const report = await analyze(`# lspci -s 0000:05:00.0 -vv\n${realCapture('lspci/huawei-hi1822-igb-uio-dpdk-1.txt')}`);
    expect(report.interfaces).toEqual([
      expect.objectContaining({ name: 'pci-05_00.0', kind: 'physical', driver: 'igb_uio', pciAddress: '0000:05:00.0' }),
    ]);
    // Gen3 x16 = its LnkCap: read and judged (pass), where before the text had no subject at all.
    expect(statusOf(report, 'pcie-link', 'pci-05_00.0')).toBe('pass');
    expect(report.source?.notes?.join('\n')).toMatch(
      /pci-05_00\.0: the lspci network device 0000:05:00\.0 has no interface \(driver igb_uio\)/,
    );
  });

  it('an igb_uio NIC beside an interface with its own outputs: each is its own subject, the DPDK one is never taken for eth0', async () => {
    const text = [
      '$ ethtool -S eth0',
      realCapture('ethtool/i40e-S-ethq-v2.3.2k-1.txt'),
      '$ lspci -vv -s 05:00.0',
      realCapture('lspci/huawei-hi1822-igb-uio-dpdk-1.txt'),
    ].join('\n');
    const report = await analyze(text);
    const names = report.interfaces.map((iface) => iface.name).sort();
    expect(names).toEqual(['eth0', 'pci-05_00.0']);
    expect(report.interfaces.find((iface) => iface.name === 'eth0')?.pciAddress).toBeNull();
  });

  it('the kernel log names the ports, their PCI functions and 25G link speed; the speed says it came from the kernel log', async () => {
    const report = await analyze(`$ dmesg | grep ice\n${realCapture('dmesg/ice-e810-rename-limited-link-1.txt')}`);
    const ens1f1 = report.interfaces.find((iface) => iface.name === 'ens1f1');
    expect(ens1f1).toMatchObject({
      kind: 'physical',
      driver: 'ice',
      pciAddress: '0000:10:00.1',
      speedMbps: 25_000,
      speedSource: 'kernel log',
    });
    expect(interfaceLine(ens1f1!)).toContain('25000 Mb/s (kernel log)');
    expect(report.interfaces.map((iface) => iface.name).sort()).toEqual(['ens1f1', 'ens1f2', 'ens1f3', 'ens2f0', 'ens2f1']);
    // The "limited by" PCIe lines are read too (the kernel-pcie check has them).
    expect(statusOf(report, 'kernel-pcie', 'host')).not.toBe('unknown');
  });

  it('a kernel log link speed fills in for an interface whose ethtool output has none; ethtool wins where it has one', async () => {
    const text = [
      '$ ethtool -S enp1s0f1',
      realCapture('ethtool/i40e-S-ethq-v2.3.2k-1.txt'),
      '$ dmesg | tail',
      realCapture('dmesg/ixgbe-x520-rename-link-1.txt'),
    ].join('\n');
    const report = await analyze(text);
    const port = report.interfaces.find((iface) => iface.name === 'enp1s0f1');
    expect(port).toMatchObject({ pciAddress: '0000:01:00.1', speedMbps: 10_000, speedSource: 'kernel log' });
  });

  it('grepped /proc/interrupts rows name the interface they serve (iavf-net1-TxRx-0)', async () => {
    const report = await analyze(realCapture('../text/iavf-proc-interrupts-grep-wrapped.txt'));
    expect(report.interfaces.map((iface) => iface.name)).toContain('net1');
  });
});

describe('pasted text: the driver from its counter names', () => {
  it('ixgbe counters (fdir_match, rx_no_dma_resources) make rx-usecs 1 its dynamic ITR, not "an interrupt per packet"', async () => {
    const text = [
      // Two real captures of ixgbe ports, pasted under the name the -c output's own header gives.
      '$ ethtool -S eth2',
      realCapture('ethtool/ixgbe-S-more-firstpage-1.txt'),
      '$ ethtool -c eth2',
      realCapture('ethtool/ixgbe-c-netutils-ixgbe-82599-2xE5-2640-eth2.txt'),
    ].join('\n');
    const report = await analyze(text);
    expect(report.interfaces.find((iface) => iface.name === 'eth2')?.driver).toBe('ixgbe');
    expect(report.interfaces.find((iface) => iface.name === 'eth2')?.identity?.join('\n')).toMatch(
      /driver ixgbe inferred from its ethtool -S counter names/,
    );
    const coalescing = report.checks.find((result) => result.id === 'coalescing');
    expect(coalescing?.findings.map((finding) => finding.symptom) ?? []).not.toContain('interrupt-per-packet');
  });
});

describe('pasted text: prose fills in only what no output shows', () => {
  it('"a 32-core server" gives the CPU count when no lscpu, interrupts header or softnet table does; lscpu wins when pasted', async () => {
    const ethtool = `$ ethtool -S eth2\n${realCapture('ethtool/ixgbe-S-more-firstpage-1.txt')}`;
    const prose = await analyze(`Hi, this is a 32-core server with an Intel X520.\n\n${ethtool}`);
    expect(prose.host.logicalCpus).toBe(32);
    const withLscpu = await analyze(
      `Hi, this is a 32-core server.\n\n${ethtool}\n$ lscpu\n${realCapture('lscpu/x710-e3-1271-lscpu_info-netutils.txt')}`,
    );
    expect(withLscpu.host.logicalCpus).toBe(4);
  });

  it('lshw -class network gives the interface, its driver and its speed against the BASE-T modes it lists', async () => {
    // Written for this test: a 2.5G port running at 100 Mb/s, as `sudo lshw -class network` prints it.
    const text = [
      'The NAS port is slow, here is lshw:',
      '$ sudo lshw -class network',
      '  *-network',
      '       description: Ethernet interface',
      '       product: Ethernet Controller I225-V',
      '       bus info: pci@0000:02:00.0',
      '       logical name: enp2s0',
      '       size: 100Mbit/s',
      '       capacity: 2500Mbit/s',
      '       capabilities: pm msi msix pciexpress bus_master cap_list ethernet physical tp 10bt 10bt-fd 100bt 100bt-fd 1000bt-fd 2500bt-fd autonegotiation',
      '       configuration: autonegotiation=on broadcast=yes driver=igc driverversion=6.8.0 duplex=full firmware=1082:8770 link=yes multicast=yes port=twisted pair speed=100Mbit/s',
    ].join('\n');
    const report = await analyze(text);
    expect(report.interfaces).toEqual([expect.objectContaining({ name: 'enp2s0', driver: 'igc', pciAddress: '0000:02:00.0' })]);
    const link = report.checks.find((result) => result.id === 'link-speed');
    expect(link?.findings).toEqual([
      expect.objectContaining({
        symptom: 'below-capability',
        subject: 'enp2s0',
        data: expect.objectContaining({ negotiatedMbps: 100, bestMbps: 2500 }),
      }),
    ]);
    expect(report.source?.notes?.join('\n')).toMatch(/enp2s0: link state from lshw \(100 Mb\/s of 2500 Mb\/s capacity/);
  });

  it('a headerless lspci fragment is no NIC when it is a slot port (SltCap, DLActive-) or the text is about no network device', async () => {
    const port = [
      'lspci -vv of the slot:',
      '\tLnkCap:\tPort #2, Speed 8GT/s, Width x4, ASPM L1, Exit Latency L1 <16us',
      '\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x4 (ok)',
      '\t\tTrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-',
      '\tSltCap:\tAttnBtn- PwrCtrl- MRL- AttnInd- PwrInd- HotPlug- Surprise-',
    ].join('\n');
    const gpu = [
      'My graphics card is slow on the riser:',
      '    LnkCap: Port #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <16us',
      '    LnkSta: Speed 2.5GT/s (downgraded), Width x16 (ok)',
    ].join('\n');
    for (const text of [port, gpu]) {
      const report = await analyze(text);
      const pcie = report.checks.find((result) => result.id === 'pcie-link');
      expect(pcie?.findings ?? [], text).toEqual([]);
    }
    // The same fragment in a text about a NIC is the NIC's.
    const nic = await analyze(gpu.replace('My graphics card is slow on the riser', 'Our 10GbE card only gets 3 Gb/s'));
    expect(nic.checks.find((result) => result.id === 'pcie-link')?.findings).toEqual([
      expect.objectContaining({ symptom: expect.stringMatching(/^pcie-link/) }),
    ]);
  });
});
