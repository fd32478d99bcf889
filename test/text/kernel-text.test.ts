import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKernelLog } from '../../src/parsers/kernel-log.js';
import { parseFreebsdBoot } from '../../src/parsers/freebsd-boot.js';
import { freebsdDriverLinesOfText, kernelLogOfText } from '../../src/text/kernel-text.js';
import { realCapture } from '../helpers/fixtures.js';
import { wrap } from './variants.js';

const MLX5 = readFileSync(path.join(import.meta.dirname, '../../fixtures/text/mlx5-cx6dx-pcie-gen3x8-upstream.txt'), 'utf8');

describe('kernel log lines in a pasted text', () => {
  it('reads the PCIe bandwidth line of a real mlx5 ticket as pasted, quoted, and wrapped at 72 and 80 columns', () => {
    const asPasted = parseKernelLog(kernelLogOfText(MLX5)).pcie;
    expect(asPasted.length).toBeGreaterThan(0);
    for (const variant of [wrap(MLX5, 72), wrap(MLX5, 80), MLX5.replace(/^/gm, '> ')])
      expect(parseKernelLog(kernelLogOfText(variant)).pcie).toEqual(asPasted);
  });

  it('rejoins wrapped lines under rsyslog fractional-second stamps and under a bare "kernel:" tag whose date was cut', () => {
    const syslog = 'Jun 12 08:14:03.512340 edge-7 INFO kernel: [20481.114251] e1000e 0000:00:19.0 eno1: NIC Link is Down';
    const tagged = 'kernel: [90210.551201] TCP: out of memory -- consider tuning tcp_mem (written for this test)';
    for (const line of [syslog, tagged]) {
      const cut = line.lastIndexOf(' ', 72);
      expect(kernelLogOfText(`${line.slice(0, cut)}\n${line.slice(cut + 1)}`)).toBe(line);
    }
  });

  it('rejoins a short piece whose next word would not have fit in 72 columns, under stamps normalize took off', () => {
    const wrapped = [
      'Dec 27 16:31:49 homeassistant kernel: ------------[ cut here ]------------',
      'Dec 27 16:31:49 homeassistant kernel: NETDEV WATCHDOG: eth0',
      '(meson8b-dwmac): transmit queue 0 timed out',
      'Dec 27 16:31:49 homeassistant kernel: WARNING: CPU: 4 PID: 0 at',
    ].join('\n');
    expect(kernelLogOfText(wrapped)).toContain('NETDEV WATCHDOG: eth0 (meson8b-dwmac): transmit queue 0 timed out');
    // A short line followed by a short word was not cut.
    expect(kernelLogOfText('[ 1.0] e1000e: eth0 NIC Link is Down\nThen it came back.')).toContain('Down\nThen');
  });

  it('keeps the syslog dates normalize takes off the other outputs: they time the events', () => {
    const log = ['Jun 14 13:37:12 kernel: eth3: Link is Up - 1Gbps/Full', 'Jun 14 13:37:17 kernel: eth3: Link is Down'].join('\n');
    expect(kernelLogOfText(log)).toBe(log);
    expect(kernelLogOfText(log.replace(/^/gm, '> '))).toBe(log);
    // A stamp that makes no kernel line start ("12:00:01 "), is still taken off.
    expect(kernelLogOfText('12:00:01 eth0 is fine\n12:00:02 eth1 too')).toBe('eth0 is fine\neth1 too');
  });

  it('does not join the next kernel line, an indented line or an empty one to a long kernel line', () => {
    const text = ['[    1.000000] ' + 'x'.repeat(70), '[    2.000000] next line', '  indented', '', 'prose'].join('\n');
    expect(kernelLogOfText(text).split('\n')).toEqual([
      '[    1.000000] ' + 'x'.repeat(70),
      '[    2.000000] next line',
      '  indented',
      '',
      'prose',
    ]);
  });

  it('reads a line whose timestamp lost its opening bracket, and does not join the command typed after it', () => {
    const line =
      'ice 0000:81:00.0: 31.504 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x4 link at 0000:80:01.0 (capable of 126.016 Gb/s with 16.0 GT/s PCIe x8 link)';
    const text = ['I see this at boot:', `  42.118734] ${line}`, '# lspci -s 81:00.0 -vv', 'root@lab2:~# ethtool eth0'].join('\n');
    const log = kernelLogOfText(text);
    expect(log.split('\n')).toContain('# lspci -s 81:00.0 -vv');
    const [report] = parseKernelLog(log).pcie;
    expect(report).toMatchObject({ driver: 'ice', address: '0000:81:00.0', availableGbps: 31.504, line });
  });

  it('joins the wrapped pieces of FreeBSD driver messages (no timestamp) back: a real ice(4) boot log reads the same wrapped, quoted or respaced', () => {
    const boot = realCapture('freebsd/dmesg-ice-e810-xxv.txt');
    const asPasted = parseFreebsdBoot(freebsdDriverLinesOfText(boot));
    expect(asPasted.get('ice0')).toMatchObject({ linkMbps: 25_000, pcieWidth: 8 });
    const respaced = boot.replace(/ /g, (space, offset: number) => (offset % 3 === 0 ? '\u202f' : space)).replace(/^/gm, '\u200b> ');
    for (const variant of [wrap(boot, 72), wrap(boot, 80), respaced])
      expect(parseFreebsdBoot(freebsdDriverLinesOfText(variant))).toEqual(asPasted);
  });

  it('reads a driver message a mailer cut at its last words ("failed to establish" / "link.")', () => {
    const text =
      'ice0: All configured link modes were attempted but failed to establish\nlink.\nice0: The device will restart the process to establish link.\nThen I tried a reboot.';
    expect(parseFreebsdBoot(freebsdDriverLinesOfText(text)).get('ice0')).toMatchObject({ linkUp: false, linkFailed: true });
    expect(freebsdDriverLinesOfText(text).split('\n')).toContain('Then I tried a reboot.');
  });
});
