import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import {
  interfaceNamesInInterrupts,
  nicInterruptRows,
  parseProcInterrupts,
  takesReceive,
  type NicIdentity,
  type ProcInterrupts,
} from '../../src/parsers/proc-interrupts.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const ALL = [...realCaptures('interrupts'), 'local-vm/proc-interrupts-virtio-2cpu.txt'];

function row(parsed: ProcInterrupts, id: string) {
  const found = parsed.rows.find((entry) => entry.id === id);
  if (!found) throw new Error(`no row ${id}`);
  return found;
}

describe('parseProcInterrupts over every capture', () => {
  it('covers all 20 captures', () => {
    expect(ALL).toHaveLength(20);
  });

  it.each(ALL)('%s parses, with one count per CPU on every numbered row', (file) => {
    const text = realCapture(file);
    const parsed = parseProcInterrupts(text);
    const header = text.split('\n')[0]!.trim().split(/\s+/);
    expect(parsed.cpus).toHaveLength(header.length);
    const numbered = parsed.rows.filter((entry) => entry.irq !== null);
    expect(numbered.length).toBeGreaterThan(0);
    for (const entry of numbered) {
      expect(entry.counts).toHaveLength(parsed.cpus.length);
      expect(entry.total).toBe(entry.counts.reduce((a, b) => a + b, 0));
    }
    const err = parsed.rows.find((entry) => entry.id === 'ERR');
    if (err && parsed.cpus.length > 1) expect(err.counts).toEqual([]);
  });
});

describe('parseProcInterrupts: concrete values', () => {
  it('local VM (kernel 6.18): PCI-MSIX-<BDF> chips, hwirq-trigger, virtio queue names, named rows', () => {
    const parsed = parseProcInterrupts(realCapture('local-vm/proc-interrupts-virtio-2cpu.txt'));
    expect(parsed.cpus).toEqual([0, 1]);
    expect(row(parsed, '38')).toEqual({
      id: '38',
      irq: 38,
      counts: [0, 1720],
      total: 1720,
      chip: 'PCI-MSIX-0000:00:03.0',
      hwirq: '1',
      trigger: 'edge',
      actions: ['virtio2-input.0'],
      description: null,
    });
    expect(row(parsed, '24')).toMatchObject({ chip: 'IO-APIC', hwirq: '5', trigger: 'edge', actions: ['ACPI:Ged'] });
    expect(row(parsed, 'LOC')).toMatchObject({ irq: null, counts: [755138, 767427], description: 'Local timer interrupts' });
    expect(row(parsed, 'ERR')).toMatchObject({ counts: [], total: 0, description: null });
    expect(parsed.rows.filter((entry) => entry.irq !== null)).toHaveLength(19);
  });

  it('KVM guest (procfs): "PCI-MSI 114689-edge" and virtio-blk queues', () => {
    const parsed = parseProcInterrupts(realCapture('interrupts/virtio-vm-procfs-1.txt'));
    expect(parsed.cpus).toEqual([0, 1, 2, 3]);
    expect(row(parsed, '25')).toMatchObject({
      chip: 'PCI-MSI',
      hwirq: '114689',
      trigger: 'edge',
      actions: ['virtio5-req.0'],
      counts: [1800, 0, 0, 0],
    });
    expect(row(parsed, '36')).toMatchObject({ actions: ['virtio0-input.0'], counts: [0, 335, 37, 0] });
    expect(row(parsed, 'NPI')).toMatchObject({ description: 'Nested posted-interrupt event' });
  });

  it('VMware guest: shared IO-APIC line and a single legacy NIC interrupt', () => {
    const parsed = parseProcInterrupts(realCapture('interrupts/vmware-vm-jc-1.txt'));
    expect(row(parsed, '16')).toMatchObject({
      chip: 'IO-APIC',
      hwirq: '16',
      trigger: 'fasteoi',
      actions: ['vmwgfx', 'snd_ens1371'],
      counts: [3545, 0],
    });
    expect(row(parsed, '19')).toMatchObject({ actions: ['ens33'], counts: [0, 126705] });
  });

  it('old combined chip format (CentOS 6): "IO-APIC-fasteoi" split into chip and trigger', () => {
    const parsed = parseProcInterrupts(realCapture('interrupts/kvm-e1000-guest-netutils.txt'));
    expect(row(parsed, '11')).toMatchObject({
      chip: 'IO-APIC',
      hwirq: null,
      trigger: 'fasteoi',
      actions: ['uhci_hcd:usb1', 'eth0', 'eth1'],
      counts: [976435, 47],
    });
    expect(row(parsed, '25')).toMatchObject({ chip: 'PCI-MSI', trigger: 'edge', actions: ['virtio0-virtqueues'] });
  });

  it('mlx5 with mlx5_comp<N>@pci:<BDF> names', () => {
    const parsed = parseProcInterrupts(realCapture('interrupts/mlx5-2port-4cpu-netutils.txt'));
    expect(row(parsed, '33')).toMatchObject({
      chip: 'PCI-MSI',
      trigger: 'edge',
      actions: ['mlx5_comp3@pci:0000:01:00.0'],
      counts: [122736116, 0, 0, 5465612],
    });
    expect(row(parsed, '17')).toMatchObject({ chip: 'IO-APIC', trigger: 'fasteoi', actions: ['eth1'], total: 1087624 });
  });

  it('i40e (X710) with IR-PCI-MSI and an unnamed IRQ', () => {
    const parsed = parseProcInterrupts(realCapture('interrupts/x710-e3-1271-netutils.txt'));
    expect(row(parsed, '33')).toMatchObject({
      chip: 'IR-PCI-MSI',
      trigger: 'edge',
      actions: ['i40e-eth0-TxRx-0'],
      counts: [732696843, 759655218, 309380411, 242948054],
    });
    expect(row(parsed, '32')).toMatchObject({ actions: ['i40e-0000:01:00.0:misc'] });
    expect(row(parsed, '7')).toMatchObject({ chip: 'IR-IO-APIC', trigger: 'edge', actions: [] });
  });

  it('wide hosts: 32 and 48 CPUs, qlcnic "eth0-tx-0-rx-3"', () => {
    const ixgbe = parseProcInterrupts(realCapture('interrupts/ixgbe-82599-2xE5-2640-netutils.txt'));
    expect(ixgbe.cpus).toEqual(Array.from({ length: 32 }, (_, i) => i));
    expect(row(ixgbe, '133')).toMatchObject({ actions: ['eth5-TxRx-24'], total: 31 + 5612759 });
    const qlcnic = parseProcInterrupts(realCapture('interrupts/qlcnic-2xE5-2687W-netutils.txt'));
    expect(qlcnic.cpus).toHaveLength(48);
    expect(row(qlcnic, '91')).toMatchObject({ actions: ['eth0-tx-0-rx-3'], counts: [270815411, ...Array(47).fill(0)] });
  });

  it('single queue ixgbe: eth2 with 3.49 billion interrupts, all on CPU0', () => {
    const parsed = parseProcInterrupts(realCapture('interrupts/ixgbe-singlequeue-12cpu-netutils.txt'));
    expect(parsed.cpus).toHaveLength(12);
    expect(row(parsed, '63')).toMatchObject({ actions: ['eth2'], total: 3489881715, counts: [3489881715, ...Array(11).fill(0)] });
  });

  it('keeps action names that hold spaces and reads ARM and sparse-CPU layouts', () => {
    const parsed = parseProcInterrupts(
      [
        '           CPU0       CPU2       CPU3',
        ' 11:          5          0          0     GICv3  27 Level     arch_timer',
        ' 24:          0          0          0  IR-PCI-MSI 458752-edge      PCIe PME, pciehp',
        ' 99:          1          2          3      ITS-MSI 524288 Edge      eth0-TxRx-0',
        ' 40:          0          0          0   xen-pirq    -ioapic-edge  acpi',
        'IPI0:        10         20         30       Rescheduling interrupts',
        'Err:          0',
      ].join('\n'),
    );
    expect(parsed.cpus).toEqual([0, 2, 3]);
    expect(row(parsed, '11')).toMatchObject({ chip: 'GICv3', hwirq: '27', trigger: 'Level', actions: ['arch_timer'] });
    expect(row(parsed, '24')).toMatchObject({ chip: 'IR-PCI-MSI', hwirq: '458752', trigger: 'edge', actions: ['PCIe PME', 'pciehp'] });
    expect(row(parsed, '99')).toMatchObject({
      chip: 'ITS-MSI',
      hwirq: '524288',
      trigger: 'Edge',
      actions: ['eth0-TxRx-0'],
      counts: [1, 2, 3],
    });
    expect(row(parsed, '40')).toMatchObject({ chip: 'xen-pirq', hwirq: null, trigger: 'ioapic-edge', actions: ['acpi'] });
    expect(row(parsed, 'IPI0')).toMatchObject({ counts: [10, 20, 30], description: 'Rescheduling interrupts' });
  });

  it.each([
    ['empty', ''],
    ['garbage', 'hello world\nthis is not /proc/interrupts\n'],
    ['no header', '  0:   49   0   IO-APIC 2-edge timer\n'],
    ['unreadable line', '           CPU0\n  0:   49   IO-APIC 2-edge timer\n<html>\n'],
    // Found by the text fuzzer: a header column no kernel can print (the report's CPU numbers are safe integers).
    ['impossible CPU number', '       CPU0       CPU9007199254740993\n  0:   49   0   IO-APIC 2-edge timer\n'],
    ['CPU number beyond NR_CPUS', '       CPU0       CPU70000\n  0:   49   0   IO-APIC 2-edge timer\n'],
  ])('%s → ParseError', (_, text) => {
    expect(() => parseProcInterrupts(text)).toThrow(ParseError);
  });
});

describe('nicInterruptRows', () => {
  const nic = (name: string, extra: Partial<NicIdentity> = {}): NicIdentity => ({
    name,
    driver: null,
    pciAddress: null,
    virtioDevice: null,
    ...extra,
  });
  const pick = (file: string, identity: NicIdentity, msi: number[] = []) =>
    nicInterruptRows(parseProcInterrupts(realCapture(file)), identity, msi).map((entry) => [entry.row.irq, entry.name, entry.role]);

  it.each([
    [
      'mlx5: comp vectors are queues, the EQ vectors are not; the other port is left out',
      'interrupts/mlx5-2port-4cpu-netutils.txt',
      nic('enp1s0f0', { driver: 'mlx5_core', pciAddress: '0000:01:00.0' }),
      [],
      [
        [27, 'mlx5_pages_eq@pci:0000:01:00.0', 'other'],
        [28, 'mlx5_cmd_eq@pci:0000:01:00.0', 'other'],
        [29, 'mlx5_async_eq@pci:0000:01:00.0', 'other'],
        [30, 'mlx5_comp0@pci:0000:01:00.0', 'queue'],
        [31, 'mlx5_comp1@pci:0000:01:00.0', 'queue'],
        [32, 'mlx5_comp2@pci:0000:01:00.0', 'queue'],
        [33, 'mlx5_comp3@pci:0000:01:00.0', 'queue'],
      ],
    ],
    [
      'i40e: <driver>-<if>-TxRx-N queues, misc and flow-director vectors by BDF',
      'interrupts/x710-e3-1271-netutils.txt',
      nic('eth0', { driver: 'i40e', pciAddress: '0000:01:00.0' }),
      [],
      [
        [32, 'i40e-0000:01:00.0:misc', 'other'],
        [33, 'i40e-eth0-TxRx-0', 'queue'],
        [34, 'i40e-eth0-TxRx-1', 'queue'],
        [35, 'i40e-eth0-TxRx-2', 'queue'],
        [36, 'i40e-eth0-TxRx-3', 'queue'],
        [37, 'i40e-0000:01:00.0:fdir-TxRx-0', 'other'],
      ],
    ],
    [
      'single-vector ixgbe: the bare name carries the traffic',
      'interrupts/ixgbe-singlequeue-12cpu-netutils.txt',
      nic('eth2', { driver: 'ixgbe' }),
      [],
      [[63, 'eth2', 'queue']],
    ],
    ['legacy IO-APIC line', 'interrupts/singlequeue-ioapic-8cpu-netutils-1.txt', nic('eth0'), [], [[17, 'eth0', 'queue']]],
    ['shared legacy line', 'interrupts/kvm-e1000-guest-netutils.txt', nic('eth1'), [], [[11, 'eth1', 'queue']]],
    [
      'virtio-net: queues named after the virtio device; config vector is not a queue',
      'local-vm/proc-interrupts-virtio-2cpu.txt',
      nic('eth0', { driver: 'virtio_net', pciAddress: '0000:00:03.0', virtioDevice: 'virtio2' }),
      [37, 38, 39],
      [
        [37, 'virtio2-config', 'other'],
        [38, 'virtio2-input.0', 'queue'],
        [39, 'virtio2-output.0', 'queue'],
      ],
    ],
    [
      'mlx4 per-netdev "<if>-N" vectors',
      'interrupts/mlx4-cx3pro-2xX5650-netutils.txt',
      nic('eth2'),
      [],
      Array.from({ length: 8 }, (_, i) => [64 + i, `eth2-${i}`, 'queue']),
    ],
    [
      'renamed interface: vectors found through msi_irqs',
      'interrupts/mlx5-2port-4cpu-netutils.txt',
      nic('ens9'),
      [41],
      [[41, null, 'queue']],
    ],
  ])('%s', (_, file, identity, msi, expected) => {
    expect(pick(file, identity, msi)).toEqual(expected);
  });

  it('igb split rx/tx vectors are all queues, the bare-name vector is the link vector', () => {
    const rows = pick('interrupts/igb-2xI350-4cpu-netutils.txt', nic('eth0', { driver: 'igb' }));
    expect(rows[0]).toEqual([127, 'eth0', 'other']);
    expect(rows.slice(1).map((entry) => entry[1])).toEqual([
      'eth0-rx-0',
      'eth0-rx-1',
      'eth0-rx-2',
      'eth0-rx-3',
      'eth0-tx-0',
      'eth0-tx-1',
      'eth0-tx-2',
      'eth0-tx-3',
    ]);
    expect(rows.slice(1).every((entry) => entry[2] === 'queue')).toBe(true);
  });

  it('ixgbe-TxRx on a 32-CPU host: eth5 has its own 32 queues and nothing of eth4', () => {
    const rows = pick('interrupts/ixgbe-82599-2xE5-2640-netutils.txt', nic('eth5', { driver: 'ixgbe' }));
    expect(rows.filter((entry) => entry[2] === 'queue')).toHaveLength(32);
    expect(rows.every((entry) => String(entry[1]).startsWith('eth5'))).toBe(true);
  });
});

describe('pasted fragments: cut rows, multi-word chips, interface names', () => {
  const cut = [
    '           CPU0       CPU1       CPU2       CPU3',
    ' 70:   51000000          0          0          0   PCI-MSI 5767168-edge      lan3-rxtx-0',
    ' 71:   47000000          0          0',
  ].join('\n');

  it('keeps a last row the paste cut short, with the counts it has', () => {
    const parsed = parseProcInterrupts(cut);
    expect(parsed.rows.at(-1)).toMatchObject({ irq: 71, counts: [47000000, 0, 0], truncated: true, actions: [] });
  });

  it('keeps a row cut inside the text (a ticket that joins two excerpts of the file), and reads the rows after it', () => {
    // The first 20 lines of a real capture, a row cut after one count, then a whole row.
    const head = realCapture('interrupts/mlx5-2port-4cpu-netutils.txt').split('\n').slice(0, 20).join('\n');
    const parsed = parseProcInterrupts(`${head}\n 42:    1234\n 43:  1  2  3  4  PCI-MSI 1-edge  x`);
    expect(parsed.rows.find((entry) => entry.irq === 42)).toMatchObject({ counts: [1234], truncated: true, actions: [] });
    expect(parsed.rows.at(-1)).toMatchObject({ irq: 43, counts: [1, 2, 3, 4], actions: ['x'] });
  });

  it('gives the cut row to the NIC whose queue vector precedes it by one IRQ number, and only then', () => {
    const nic = { name: 'lan3', driver: null, pciAddress: null, virtioDevice: null };
    expect(nicInterruptRows(parseProcInterrupts(cut), nic).map((entry) => entry.row.irq)).toEqual([70, 71]);
    const gap = cut.replace(' 71:', ' 75:');
    expect(nicInterruptRows(parseProcInterrupts(gap), nic).map((entry) => entry.row.irq)).toEqual([70]);
  });

  it('reads a chip name of several words before its hwirq and trigger', () => {
    const parsed = parseProcInterrupts(['           CPU0       CPU1', ' 26:   1000   0  Acme Intc 131 Edge      wan1'].join('\n'));
    expect(parsed.rows[0]).toMatchObject({ chip: 'Acme Intc', hwirq: '131', trigger: 'Edge', actions: ['wan1'] });
  });

  it('names interfaces from bare-index vectors, vmxnet3-style rxtx vectors and legacy lines', () => {
    const text = [
      '           CPU0       CPU1',
      ' 17:   5000000          0   IR-IO-APIC-fasteoi   eth4',
      ' 30:   9000000          0   PCI-MSI 262144-edge      eth7-0',
      ' 31:         0          0   PCI-MSI 262145-edge      eth7-1',
      ' 40:       300          0   PCI-MSI 1-edge      ens224-rxtx-0',
      ' 41:        30          0   PCI-MSI 2-edge      nvme0q1',
      ' 42:        30          0   PCI-MSI 3-edge      xhci_hcd-3',
    ].join('\n');
    expect([...interfaceNamesInInterrupts(text)].sort()).toEqual(['ens224', 'eth4', 'eth7']);
  });

  it('tells transmit-only vectors from receive ones', () => {
    expect(['eth0-tx-0', 'eth0-rx-0', 'eth0-TxRx-1', 'eth0-0', null].map(takesReceive)).toEqual([false, true, true, true, true]);
  });
});
