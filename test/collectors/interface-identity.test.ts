import { describe, expect, it } from 'vitest';
import { driverFromCounters, identify, type IdentitySignals } from '../../src/collectors/interface-identity.js';
import { parseEthtoolSettings } from '../../src/parsers/ethtool-settings.js';
import { parseEthtoolStats } from '../../src/parsers/ethtool-stats.js';
import { nicInterruptRows, parseProcInterrupts } from '../../src/parsers/proc-interrupts.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

/** A capture without sysfs: only what the outputs hold. */
const offline = (name: string, extra: Partial<IdentitySignals>): IdentitySignals => ({
  name,
  sysfs: false,
  devtype: null,
  hasDevice: false,
  driver: null,
  ...extra,
});

describe('interface identity from every signal', () => {
  it('takes a FIBRE 10000Mb/s port with link modes for a physical NIC, with no ethtool -i and no sysfs (real ohai capture)', () => {
    const settings = parseEthtoolSettings(realCapture('ethtool/unknown-settings-10g-fibre-ohai-1.txt'));
    const identity = identify(offline('eth0', { port: settings.port, supportedLinkModes: settings.supportedLinkModes }));
    expect(identity.kind).toBe('physical');
    expect(identity.basis.join('; ')).toContain('Port: FIBRE');
  });

  it('takes hardware counters in ethtool -S for a physical NIC (real i40e capture), and virtio per-queue counters for nothing of the kind', () => {
    const i40e = parseEthtoolStats(realCapture('ethtool/i40e-S-ethq-1.txt')).counters.map((counter) => counter.name);
    expect(identify(offline('eth0', { counterNames: i40e })).kind).toBe('physical');
    const virtio = parseEthtoolStats(realCapture('ethtool/virtio_net-S-ethq-1.txt')).counters.map((counter) => counter.name);
    expect(identify(offline('eth0', { counterNames: virtio })).kind).toBe('unknown');
  });

  it('takes MSI-X queue vectors in /proc/interrupts (eth2-TxRx-N) for a physical NIC (real 82599 capture)', () => {
    const interrupts = parseProcInterrupts(realCapture('interrupts/ixgbe-82599-2xE5-2640-netutils.txt'));
    const vectors = nicInterruptRows(interrupts, { name: 'eth2', driver: null, pciAddress: null, virtioDevice: null }).map(
      ({ row, name }) => ({ name: name ?? '', chip: row.chip }),
    );
    expect(vectors.length).toBeGreaterThan(8);
    const identity = identify(offline('eth2', { vectors }));
    expect(identity.kind).toBe('physical');
    expect(identity.basis.join('; ')).toMatch(/interrupt vector\(s\) in \/proc\/interrupts \(eth2-TxRx-0/);
  });

  it('is unknown, never silently virtual, when nothing speaks; software names and kinds are software', () => {
    expect(identify(offline('eth7', {})).kind).toBe('unknown');
    expect(identify(offline('flannel.1', {}))).toMatchObject({ kind: 'virtual' });
    expect(identify(offline('docker0', {}))).toMatchObject({ kind: 'bridge' });
    expect(identify(offline('eth0.31', {}))).toMatchObject({ kind: 'vlan' });
    expect(identify(offline('cali1234', {}))).toMatchObject({ kind: 'virtual' });
    expect(identify(offline('x', { ipKind: 'vxlan' }))).toMatchObject({ kind: 'virtual', softwareType: 'vxlan' });
    expect(identify(offline('x', { ethtoolDriver: 'bridge' }))).toMatchObject({ kind: 'bridge' });
  });

  it('lets sysfs settle it on a live host: a device link is hardware, a veth is software with its ip kind', () => {
    expect(identify({ name: 'eth0', sysfs: true, devtype: null, hasDevice: true, driver: 'virtio_net' }).kind).toBe('paravirtual');
    expect(identify({ name: 'enp65s0f0', sysfs: true, devtype: null, hasDevice: true, driver: 'ixgbe' }).kind).toBe('physical');
    expect(identify({ name: 'v1', sysfs: true, devtype: null, hasDevice: false, driver: null, ipKind: 'veth' })).toMatchObject({
      kind: 'virtual',
      softwareType: 'veth',
    });
    expect(identify({ name: 'br0', sysfs: true, devtype: 'bridge', hasDevice: false, driver: null })).toMatchObject({ kind: 'bridge' });
  });

  it('calls an emulated e1000 inside a VM a paravirtual NIC: the guest does not own that wire', () => {
    expect(identify({ name: 'eth0', sysfs: true, devtype: null, hasDevice: true, driver: 'e1000', virtualized: true }).kind).toBe(
      'paravirtual',
    );
    expect(identify({ name: 'eth0', sysfs: true, devtype: null, hasDevice: true, driver: 'e1000', virtualized: false }).kind).toBe(
      'physical',
    );
  });

  it('names the driver family from counter names when ethtool -i was not captured (ice ".nic", mlx5 rx_out_of_buffer)', () => {
    expect(driverFromCounters(['rx_dropped', 'rx_dropped.nic'])).toBe('ice');
    expect(
      driverFromCounters(parseEthtoolStats(realCapture('ethtool/mlx5_core-S-ethq-1.txt')).counters.map((counter) => counter.name)),
    ).toBe('mlx5_core');
    expect(driverFromCounters(['rx_queue_0_packets', 'rx_queue_0_drops'])).toBeNull();
  });

  // Each real `ethtool -S` capture is named after its driver (fixtures/real/SOURCES.md): the counter
  // names alone must give that driver, or nothing where the names are not distinctive.
  const families = realCaptures('ethtool', /-S-/).map((file) => [file, /^ethtool\/([a-z0-9_]+)-S-/.exec(file)![1]!] as const);
  it.each(families)('%s: its counter names say %s, or nothing, never another driver', (file, driver) => {
    const names = parseEthtoolStats(realCapture(file)).counters.map((counter) => counter.name);
    const inferred = driverFromCounters(names);
    if (inferred !== null) expect(inferred).toBe(driver);
  });

  it('names the family of every distinctive real capture: ixgbe-style Intel, i40e/ice/iavf, mlx5, bnxt, bnx2x, igb, e1000e, ena, tg3, be2net, sfc, vmxnet3', () => {
    const named = families.filter(([file]) => {
      const names = parseEthtoolStats(realCapture(file)).counters.map((counter) => counter.name);
      return driverFromCounters(names) !== null;
    });
    expect(named.map(([, driver]) => driver).sort()).toEqual(
      [
        'be2net',
        'bnx2x',
        'bnxt_en',
        'e1000e',
        'ena',
        'i40e',
        'i40e',
        'iavf',
        'ice',
        'igb',
        'ixgbe',
        'mlx5_core',
        'r8169',
        'sfc',
        'tg3',
        'vmxnet3',
      ].sort(),
    );
  });

  it('ixgbe by its flow director and DMA counters; virtio_net by its virtqueue kicks (kernel driver string tables)', () => {
    expect(driverFromCounters(['rx_packets', 'fdir_match', 'fdir_miss', 'os2bmc_rx_by_bmc', 'rx_queue_0_packets'])).toBe('ixgbe');
    expect(driverFromCounters(['rx_no_dma_resources', 'rx_queue_0_packets'])).toBe('ixgbe');
    expect(driverFromCounters(['rx_queue_0_packets', 'rx_queue_0_bytes', 'rx_queue_0_kicks', 'tx_queue_0_kicks'])).toBe('virtio_net');
  });
});
