import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { MAX_CPUS, parseCpuList, parseCpuMask } from '../../src/parsers/cpulist.js';
import { parseEthtoolRxfh } from '../../src/parsers/ethtool-rxfh.js';
import { parseEthtoolSettings } from '../../src/parsers/ethtool-settings.js';
import { parseIperf3JsonStream } from '../../src/parsers/iperf3-json.js';
import { parseNumactlHardware } from '../../src/parsers/numactl.js';
import { excerpt } from '../../src/parsers/text.js';
import { REAL } from '../helpers/fixtures.js';

/** The cases issue 13 found by hand, kept as regressions next to the fuzzing. */
describe('parsers: numbers bounded by what the kernel allows', () => {
  it.each(['0-2000000', '9007199254740992', '9007199254740993-9007199254740995', `0-${MAX_CPUS}`, '0-65535,'.repeat(100_000)])(
    'refuses the CPU list #%# quickly',
    (list) => {
      const start = performance.now();
      expect(() => parseCpuList(list.slice(0, 2_000_000))).toThrow(ParseError);
      expect(performance.now() - start).toBeLessThan(1000);
    },
  );

  it('still reads the largest real lists and masks', () => {
    expect(parseCpuList(`0-${MAX_CPUS - 1}`)).toHaveLength(MAX_CPUS);
    expect(parseCpuMask('0000000000000000,ffffffff')).toHaveLength(32);
    expect(() => parseCpuMask('f'.repeat(MAX_CPUS))).toThrow(ParseError);
  });

  it('numactl --hardware with a huge node range is a parse error, not a hang', () => {
    const real = readFileSync(path.join(REAL, 'numactl', 'single-node-1.txt'), 'utf8');
    for (const range of ['0-9007199254740993', '0-2000000'])
      expect(() => parseNumactlHardware(real.replace('1 nodes (0)', `1 nodes (${range})`))).toThrow(ParseError);
  });

  it('a 1 MB indirection-table row or link-mode line does not overflow the stack', () => {
    const rxfh = readFileSync(path.join(REAL, 'ethtool', 'sfc-x-allzero-1.txt'), 'utf8');
    const long = `    0: ${' 1'.repeat(524_288)}`;
    expect(() => parseEthtoolRxfh(rxfh.replace(/\n(\s*0:)/, `\n${long}\n$1`))).toThrow(ParseError);
    const settings = `Settings for eth0:\n\tSupported link modes:   ${'10baseT/Half '.repeat(80_000)}\n\tSpeed: 1000Mb/s\n`;
    expect(parseEthtoolSettings(settings).speedMbps).toBe(1000);
  });

  it('a `null` line in iperf3 --json-stream is a parse error', () => {
    expect(() => parseIperf3JsonStream('{"event":"start","data":{}}\nnull\n')).toThrow(ParseError);
  });

  it('parse errors quote a short, escaped excerpt', () => {
    const secret = `root:$6$${'x'.repeat(200)}:19000:0:99999:7:::\u001b[2J`;
    const error = (() => {
      try {
        parseCpuList(secret);
      } catch (caught) {
        return caught as Error;
      }
      return null;
    })();
    expect(error?.message.length).toBeLessThan(200);
    expect(error?.message).not.toContain('\u001b');
    expect(excerpt('a\u001bb')).toBe('"a\\u001bb"');
  });
});
