import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { parseIperf3Json, parseIperf3JsonStream } from '../../src/parsers/iperf3-json.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

describe('iperf3 -J parser', () => {
  it.each(realCaptures('iperf3', /\.json$/))('parses %s', (file) => {
    const result = parseIperf3Json(realCapture(file));
    if (result.error === null && result.receiverBitsPerSecond !== null) {
      expect(result.receiverBitsPerSecond).toBeGreaterThan(0);
      expect(result.intervals.length).toBeGreaterThan(0);
    }
  });

  it('reads a 3.12 four-stream TCP run', () => {
    const result = parseIperf3Json(realCapture('iperf3/3.12-tcp-P4-netns-1.json'));
    expect(result).toMatchObject({ version: '3.12', protocol: 'TCP', streams: 4, error: null, retransmits: 3571 });
    expect(result.senderBitsPerSecond).toBeCloseTo(16374645183.17, 0);
    expect(result.receiverBitsPerSecond).toBeCloseTo(16372010027.29, 0);
    expect(result.hostCpuPercent).toBeCloseTo(98.49, 1);
    expect(result.intervals[0]).toMatchObject({ start: 0, retransmits: 1551, omitted: false });
  });

  it('reads both directions of a --bidir run', () => {
    const result = parseIperf3Json(realCapture('iperf3/3.12-tcp-bidir-netns-1.json'));
    expect(result.reverseReceiverBitsPerSecond).toBeGreaterThan(0);
    expect(result.receiverBitsPerSecond).toBeGreaterThan(0);
  });

  it('reads UDP loss', () => {
    const result = parseIperf3Json(realCapture('iperf3/3.12-udp-500M-netns-1.json'));
    expect(result.protocol).toBe('UDP');
    expect(result.lostPercent).toBeCloseTo(5.57, 1);
  });

  it('keeps the error of a busy server and of a refused connection', () => {
    expect(parseIperf3Json(realCapture('iperf3/3.12-error-busy-netns-1.json')).error).toBe(
      'the server is busy running a test. try again later',
    );
    expect(parseIperf3Json(realCapture('iperf3/3.12-error-refused-netns-1.json')).error).toMatch(/Connection refused/);
  });

  it('reads a --json-stream error', () => {
    expect(parseIperf3JsonStream(realCapture('iperf3/3.17-json-stream-error-busy-1.txt')).error).toMatch(/busy/);
  });

  it.each([
    ['empty', ''],
    ['plain text', 'iperf3: error - unable to connect to server'],
    ['truncated', realCapture('iperf3/3.12-tcp-P1-netns-1.json').slice(0, 500)],
    ['wrong types', '{"start": {}, "intervals": "x", "end": {}}'],
  ])('refuses %s output with a ParseError', (_, text) => {
    expect(() => parseIperf3Json(text)).toThrow(ParseError);
  });
});
