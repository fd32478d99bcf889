import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import {
  SYSCTL_NET_KEYS,
  parseProcSysValue,
  parseSysctlAll,
  parseTcpMem,
  procSysPath,
  sysctlNetFrom,
  type SysctlNet,
} from '../../src/parsers/sysctl.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

function netFromCapture(file: string): SysctlNet {
  const values = parseSysctlAll(realCapture(file));
  return sysctlNetFrom((key) => values.get(key));
}

describe('parseSysctlAll over real sysctl -a captures', () => {
  const files = realCaptures('sysctl', /sysctl-a/);

  it('finds both captures', () => {
    expect(files).toEqual(['sysctl/centos77-sysctl-a-jc.txt', 'sysctl/ubuntu1804-sysctl-a-jc.txt']);
  });

  it.each(files)('%s parses every line, and has every network key nicdoctor reads but netdev_budget_usecs', (file) => {
    const values = parseSysctlAll(realCapture(file));
    expect(values.size).toBeGreaterThan(700);
    for (const key of SYSCTL_NET_KEYS) if (key !== 'net.core.netdev_budget_usecs') expect(values.has(key), key).toBe(true);
  });

  const expected: Array<[string, Partial<SysctlNet>]> = [
    [
      'sysctl/centos77-sysctl-a-jc.txt',
      {
        rmemMax: 212992,
        wmemMax: 212992,
        rmemDefault: 212992,
        wmemDefault: 212992,
        netdevMaxBacklog: 1000,
        netdevBudget: 300,
        // Kernel 3.10 predates netdev_budget_usecs (4.12).
        netdevBudgetUsecs: null,
        defaultQdisc: 'pfifo_fast',
        tcpRmem: { min: 4096, default: 87380, max: 6291456 },
        tcpWmem: { min: 4096, default: 16384, max: 4194304 },
        tcpCongestionControl: 'cubic',
        tcpAvailableCongestionControl: ['cubic', 'reno'],
        tcpMtuProbing: 0,
        tcpTimestamps: 1,
        tcpSack: 1,
        tcpWindowScaling: 1,
      },
    ],
    [
      'sysctl/ubuntu1804-sysctl-a-jc.txt',
      {
        rmemMax: 212992,
        wmemMax: 212992,
        netdevBudgetUsecs: 2000,
        defaultQdisc: 'fq_codel',
        tcpRmem: { min: 4096, default: 131072, max: 6291456 },
        tcpWmem: { min: 4096, default: 16384, max: 4194304 },
        tcpCongestionControl: 'cubic',
        tcpAvailableCongestionControl: ['reno', 'cubic'],
        tcpMtuProbing: 0,
      },
    ],
  ];
  it.each(expected)('%s gives the network sysctls', (file, values) => {
    expect(netFromCapture(file)).toMatchObject(values);
  });

  it('keeps the tabs of multi-field values and every line of a repeated key', () => {
    const values = parseSysctlAll(realCapture('sysctl/ubuntu1804-sysctl-a-jc.txt'));
    expect(values.get('net.ipv4.tcp_rmem')).toBe('4096\t131072\t6291456');
    expect(values.get('kernel.osrelease')).toBe('4.15.0-101-generic');
    expect(values.get('kernel.hotplug')).toBe('');
    const cdrom = values.get('dev.cdrom.info')!.split('\n');
    expect(cdrom[0]).toBe('CD-ROM information, Id: cdrom.c 3.20 2003/12/17');
    expect(cdrom).toContain('drive name:\t\tsr1\tsr0');
  });
});

describe('parseSysctlAll edge cases', () => {
  it('skips the permission errors sysctl prints for unreadable keys', () => {
    const values = parseSysctlAll("net.core.rmem_max = 212992\nsysctl: permission denied on key 'fs.protected_hardlinks'\n");
    expect([...values]).toEqual([['net.core.rmem_max', '212992']]);
  });

  it.each([
    ['garbage', 'hello world\n'],
    ['empty', ''],
    ['truncated mid-key', 'net.core.rmem_max = 212992\nnet.core.wmem_m'],
    ['JSON', '{"net.core.rmem_max": 212992}'],
  ])('rejects %s input with ParseError', (_, text) => {
    expect(() => parseSysctlAll(text)).toThrow(ParseError);
  });
});

describe('single /proc/sys values', () => {
  it.each([
    ['212992\n', '212992'],
    ['4096\t131072\t6291456\n', '4096\t131072\t6291456'],
    ['cubic\n', 'cubic'],
    ['reno cubic bbr\n', 'reno cubic bbr'],
    ['\n', ''],
  ])('%j reads as %j', (text, value) => {
    expect(parseProcSysValue(text)).toBe(value);
  });

  it('maps dotted keys to /proc/sys paths', () => {
    expect(procSysPath('net.ipv4.tcp_rmem')).toBe('/proc/sys/net/ipv4/tcp_rmem');
  });

  it('reads tcp_rmem from a /proc/sys file the same way as from sysctl -a', () => {
    expect(parseTcpMem('net.ipv4.tcp_rmem', parseProcSysValue('4096\t131072\t6291456\n'))).toEqual({
      min: 4096,
      default: 131072,
      max: 6291456,
    });
  });

  it('turns keys the kernel does not have into null, not errors', () => {
    const net = sysctlNetFrom((key) => (key === 'net.core.rmem_max' ? '425984' : undefined));
    expect(net.rmemMax).toBe(425984);
    expect(net.tcpRmem).toBeNull();
    expect(net.tcpAvailableCongestionControl).toBeNull();
    expect(net.defaultQdisc).toBeNull();
  });

  it.each([
    ['net.ipv4.tcp_rmem', '4096 87380'],
    ['net.ipv4.tcp_rmem', '4096 lots 6291456'],
    ['net.core.rmem_max', 'big'],
  ])('rejects %s = %j with ParseError', (key, value) => {
    expect(() => sysctlNetFrom((asked) => (asked === key ? value : undefined))).toThrow(ParseError);
  });
});
