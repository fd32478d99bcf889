import type { NetDevice } from '../../src/collectors/net-device.js';

export function netDevice(name: string, extra: Partial<NetDevice> = {}): NetDevice {
  return {
    name,
    kind: 'physical',
    softwareType: null,
    identity: ['sysfs device link'],
    driver: 'ixgbe',
    pciAddress: '0000:01:00.0',
    pciPath: '/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0',
    netPath: `/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/net/${name}`,
    speedMbps: 10000,
    nominalSpeedMbps: null,
    duplex: 'full',
    mtu: 1500,
    operstate: 'up',
    adminUp: true,
    carrier: true,
    carrierChanges: 2,
    numaNode: 0,
    localCpuList: '0-7',
    master: null,
    bondSlaves: [],
    linkType: 1,
    ...extra,
  };
}
