import { describe, expect, it } from 'vitest';
import { conntrackCollector } from '../../src/collectors/conntrack.js';
import { mbufsCollector } from '../../src/collectors/mbufs.js';
import { ethtoolModuleCollector } from '../../src/collectors/ethtool-module.js';
import { socketMemoryCollector } from '../../src/collectors/socket-memory.js';
import { sysctlOnDiskCollector } from '../../src/collectors/sysctl-on-disk.js';
import { uptimeCollector } from '../../src/collectors/uptime.js';
import { FactStore } from '../../src/contracts/collector.js';
import { silentLogger } from '../../src/util/log.js';
import { fakeHost, type FakeHostSpec } from '../helpers/fake-host.js';
import { realCapture } from '../helpers/fixtures.js';

const collectors = [
  conntrackCollector,
  mbufsCollector,
  ethtoolModuleCollector,
  socketMemoryCollector,
  sysctlOnDiskCollector,
  uptimeCollector,
];
const store = (spec: FakeHostSpec) => new FactStore(fakeHost(spec), collectors, silentLogger());

describe('the rest-of-the-stack collectors', () => {
  it('reads socket memory with its limits (real sockstat and tcp_mem/udp_mem of a Kubernetes VM sosreport)', async () => {
    const result = await store({
      files: {
        '/proc/net/sockstat': realCapture('procnet/sockstat-hotsos-k8s-vm-1.txt'),
        '/proc/sys/net/ipv4/tcp_mem': '45588\t60787\t91176\n',
        '/proc/sys/net/ipv4/udp_mem': '91179\t121574\t182358\n',
      },
    }).get('net.socket-memory');
    expect(result).toMatchObject({
      ok: true,
      value: {
        tcp: { pages: 7, limits: { low: 45588, pressure: 60787, high: 91176 } },
        udp: { pages: 1, limits: { low: 91179, pressure: 121574, high: 182358 } },
      },
    });
  });

  it('makes a malformed tcp_mem a parse failure, not a crash', async () => {
    const result = await store({
      files: { '/proc/net/sockstat': realCapture('local-vm/proc-net-sockstat-vm.txt'), '/proc/sys/net/ipv4/tcp_mem': 'lots\n' },
    }).get('net.socket-memory');
    expect(result).toMatchObject({ ok: false, error: { kind: 'parse-failed' } });
  });

  it('reads the conntrack table, and says nf_conntrack is not loaded when its files are absent', async () => {
    const loaded = await store({
      files: { '/proc/sys/net/netfilter/nf_conntrack_count': '0\n', '/proc/sys/net/netfilter/nf_conntrack_max': '262144\n' },
    }).get('net.conntrack');
    expect(loaded).toMatchObject({ ok: true, value: { count: 0, max: 262144 } });
    const absent = await store({}).get('net.conntrack');
    expect(absent).toMatchObject({ ok: false, error: { kind: 'unsupported', message: expect.stringMatching(/not loaded/) } });
  });

  it('reads netstat -m on FreeBSD only: Linux has no mbuf pools and its netstat -m means something else', async () => {
    const inventory = {
      hostname: 'h',
      kernel: '6.1-PRERELEASE',
      arch: 'amd64',
      cpuModel: '',
      logicalCpus: 2,
      physicalCores: 2,
      virtualization: null,
      uid: 0,
    };
    const commands = { 'netstat -m': { stdout: realCapture('freebsd/netstat-m-mbufs-denied.txt') } };
    const freebsd = await store({ commands, inventory: { ...inventory, os: 'FreeBSD 6.1-PRERELEASE' } }).get('net.mbufs');
    expect(freebsd).toMatchObject({ ok: true, value: { mbufsDenied: 16064849, clustersMax: 65536 } });
    const linux = fakeHost({ commands, inventory: { ...inventory, os: 'Debian GNU/Linux 12' } });
    expect(await new FactStore(linux, collectors, silentLogger()).get('net.mbufs')).toMatchObject({
      ok: false,
      error: { kind: 'unsupported' },
    });
    expect(linux.commandsRun).toEqual([]);
  });

  it('reads the uptime, and refuses text that is not /proc/uptime', async () => {
    expect(await store({ files: { '/proc/uptime': realCapture('local-vm/proc-uptime-vm.txt') } }).get('host.uptime')).toMatchObject({
      ok: true,
    });
    expect(await store({ files: { '/proc/uptime': 'up 3 days\n' } }).get('host.uptime')).toMatchObject({
      ok: false,
      error: { kind: 'parse-failed' },
    });
  });

  it('applies sysctl files in boot order (an /etc file masks the same name in /usr/lib; sysctl.conf last) with the running values', async () => {
    const result = await store({
      files: {
        '/usr/lib/sysctl.d/50-default.conf': realCapture('sysctl/systemd-50-default-conf.txt'),
        '/usr/lib/sysctl.d/50-pid-max.conf': realCapture('local-vm/usr-lib-sysctl.d-50-pid-max.conf'),
        '/etc/sysctl.d/99-tuning.conf': 'net.core.rmem_max = 67108864\n',
        // An empty file of the same name masks the packaged one.
        '/etc/sysctl.d/50-pid-max.conf': '',
        '/etc/sysctl.conf': 'net.core.rmem_max=33554432\n',
        // The running values of the project's own KVM guest.
        '/proc/sys/net/core/default_qdisc': 'pfifo_fast\n',
        '/proc/sys/net/core/rmem_max': '33554432\n',
        '/proc/sys/net/ipv4/ping_group_range': '1\t0\n',
      },
    }).get('sysctl.on-disk');
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.files).toEqual([
      '/usr/lib/sysctl.d/50-default.conf',
      '/etc/sysctl.d/50-pid-max.conf',
      '/etc/sysctl.d/99-tuning.conf',
      '/etc/sysctl.conf',
    ]);
    const byKey = Object.fromEntries(result.value.entries.map((entry) => [entry.key, entry]));
    // kernel.* and fs.* are not this tool's to judge.
    expect(Object.keys(byKey).every((key) => key.startsWith('net.'))).toBe(true);
    expect(byKey['net.core.rmem_max']).toEqual({
      key: 'net.core.rmem_max',
      onDisk: '33554432',
      file: '/etc/sysctl.conf',
      running: '33554432',
    });
    expect(byKey['net.core.default_qdisc']).toMatchObject({ onDisk: 'fq_codel', running: 'pfifo_fast' });
    expect(byKey['net.ipv4.ping_group_range']).toMatchObject({ onDisk: '0 2147483647', running: '1 0' });
    // A key this kernel does not have reads as null, not as a difference.
    expect(byKey['net.ipv4.conf.all.promote_secondaries']).toMatchObject({ running: null });
  });

  it('reads ethtool -m through runTool: a refusal is "unsupported"', async () => {
    const result = await store({
      commands: { 'ethtool -m eth0': { exitCode: 1, stderr: realCapture('local-vm/ethtool_-m-virtio_net-eth0.txt') } },
    }).get('ethtool.module', 'eth0');
    expect(result).toMatchObject({ ok: false, error: { kind: 'unsupported' } });
  });
});
