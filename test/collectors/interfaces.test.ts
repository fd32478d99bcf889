import { describe, expect, it } from 'vitest';
import { collectors } from '../../src/collectors/index.js';
import { FactStore } from '../../src/contracts/collector.js';
import { HostIOError } from '../../src/hostio/types.js';
import { silentLogger } from '../../src/util/log.js';
import { fakeHost } from '../helpers/fake-host.js';

/**
 * A live host's sysfs as the kernel lays it out for a two-port NIC whose second port was bound to
 * vfio-pci for DPDK (dpdk-devbind), a VF of the first port, and an unrelated NVMe function.
 */
function dpdkHost() {
  const devices = '/sys/devices/pci0000:00/0000:00:03.0';
  return fakeHost({
    mode: 'live',
    dirs: {
      '/sys/class/net': ['eth0'],
      '/sys/bus/pci/devices': ['0000:00:03.0', '0000:03:00.0', '0000:03:00.1', '0000:03:10.0', '0000:04:00.0'],
      // The kernel resolves /sys/bus/pci/devices/<BDF> (a link into /sys/devices) for every read below it.
      '/sys/bus/pci/devices/0000:03:00.0/net': ['eth0'],
    },
    files: {
      '/sys/class/net/eth0/type': '1\n',
      '/sys/class/net/eth0/uevent': 'INTERFACE=eth0\nIFINDEX=2\n',
      '/sys/bus/pci/devices/0000:00:03.0/class': '0x060400\n',
      '/sys/bus/pci/devices/0000:03:00.0/class': '0x020000\n',
      '/sys/bus/pci/devices/0000:03:00.1/class': '0x020000\n',
      '/sys/bus/pci/devices/0000:03:10.0/class': '0x020000\n',
      '/sys/bus/pci/devices/0000:04:00.0/class': '0x010802\n',
      [`${devices}/0000:03:00.1/current_link_speed`]: '8.0 GT/s PCIe\n',
      [`${devices}/0000:03:00.1/current_link_width`]: '4\n',
      [`${devices}/0000:03:00.1/max_link_speed`]: '8.0 GT/s PCIe\n',
      [`${devices}/0000:03:00.1/max_link_width`]: '8\n',
    },
    links: {
      '/sys/class/net/eth0': `../../devices/pci0000:00/0000:00:03.0/0000:03:00.0/net/eth0`,
      [`${devices}/0000:03:00.0/net/eth0/device`]: '../../../0000:03:00.0',
      '/sys/bus/pci/devices/0000:03:00.0': '../../../devices/pci0000:00/0000:00:03.0/0000:03:00.0',
      '/sys/bus/pci/devices/0000:03:00.1': '../../../devices/pci0000:00/0000:00:03.0/0000:03:00.1',
      '/sys/bus/pci/devices/0000:03:00.1/driver': '../../../bus/pci/drivers/vfio-pci',
      [`${devices}/0000:03:00.1/driver`]: '../../../../bus/pci/drivers/vfio-pci',
      '/sys/bus/pci/devices/0000:03:10.0/physfn': '../0000:03:00.0',
    },
    commands: () => new HostIOError('not-found', 'no such tool in the fake host'),
  });
}

describe('interfaces: NICs with no network interface on a live host', () => {
  it('a NIC bound to vfio-pci is a subject named by its address; VFs and non-network functions are not', async () => {
    const store = new FactStore(dpdkHost(), collectors, silentLogger());
    const interfaces = await store.get('interfaces');
    expect(interfaces.ok).toBe(true);
    if (!interfaces.ok) return;
    expect(interfaces.value.map((device) => device.name).sort()).toEqual(['eth0', 'pci-03_00.1']);
    expect(interfaces.value.find((device) => device.name === 'pci-03_00.1')).toMatchObject({
      pciAddress: '0000:03:00.1',
      driver: 'vfio-pci',
      kind: 'physical',
    });
    // Its PCIe link is read like any NIC's: x4 of x8.
    const pcie = await store.get('pcie.link', 'pci-03_00.1');
    expect(pcie.ok && pcie.value.present && pcie.value.link).toMatchObject({ width: 4, maxWidth: 8 });
  });
});
