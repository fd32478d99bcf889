import { describe, expect, it } from 'vitest';
import { parseMemLimits, parseSockstat } from '../../src/parsers/sockstat.js';
import { parseSysctlConf } from '../../src/parsers/sysctl-conf.js';
import { parseProcUptime } from '../../src/parsers/proc-uptime.js';
import { ParseError } from '../../src/parsers/parse-error.js';
import { realCapture } from '../helpers/fixtures.js';

describe('stack parsers', () => {
  it('parses real /proc/net/sockstat captures', () => {
    expect(parseSockstat(realCapture('procnet/sockstat-hotsos-k8s-vm-1.txt'))).toMatchObject({
      TCP: { inuse: 91, orphan: 0, tw: 76, alloc: 151, mem: 7 },
      UDP: { inuse: 3, mem: 1 },
      FRAG: { inuse: 0, memory: 0 },
    });
    expect(parseSockstat(realCapture('local-vm/proc-net-sockstat-vm.txt')).TCP).toMatchObject({ mem: 129 });
    expect(() => parseSockstat('hello\n')).toThrow(ParseError);
  });

  it('parses tcp_mem and refuses anything but three page counts', () => {
    expect(parseMemLimits('tcp_mem', '287898\t383866\t575796\n')).toEqual({ low: 287898, pressure: 383866, high: 575796 });
    expect(() => parseMemLimits('tcp_mem', '1 2')).toThrow(ParseError);
    expect(() => parseMemLimits('tcp_mem', 'a b c')).toThrow(ParseError);
  });

  it("parses systemd's shipped sysctl.d file: comments, a '-' prefix, spaces in values", () => {
    const settings = parseSysctlConf(realCapture('sysctl/systemd-50-default-conf.txt'));
    expect(settings.map((setting) => setting.key)).toEqual([
      'kernel.sysrq',
      'kernel.core_uses_pid',
      'net.ipv4.conf.all.rp_filter',
      'net.ipv4.conf.all.accept_source_route',
      'net.ipv4.conf.all.promote_secondaries',
      'net.ipv4.ping_group_range',
      'net.core.default_qdisc',
      'fs.protected_hardlinks',
      'fs.protected_symlinks',
      'fs.protected_regular',
      'fs.protected_fifos',
    ]);
    expect(settings.find((setting) => setting.key === 'net.ipv4.ping_group_range')!.value).toBe('0 2147483647');
  });

  it("reads '/' as a key separator, skips globs and lines that are not settings", () => {
    expect(parseSysctlConf('net/core/rmem_max = 1\nnet.ipv4.conf.*.rp_filter = 2\n; comment\nnonsense\n')).toEqual([
      { key: 'net.core.rmem_max', value: '1' },
    ]);
  });

  it('parses /proc/uptime', () => {
    expect(parseProcUptime(realCapture('local-vm/proc-uptime-vm.txt'))).toBeGreaterThan(0);
    expect(() => parseProcUptime('')).toThrow(ParseError);
  });
});
