import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFramesCut } from '../../src/parsers/tcpdump-truncation.js';
import { FIXTURES } from '../helpers/fixtures.js';

// The receiver's tcpdump of a jumbo-frame iperf3 run through an FPGA board (fixtures/eval, SOURCE.md there).
const ticket = readFileSync(path.join(FIXTURES, 'eval', 'gh-netfpga-sume-p4-mtu9000-frames-cut-to-1500', 'ticket.txt'), 'utf8');
const listening = 'listening on eth1, link-type EN10MB (Ethernet), capture size 262144 bytes';
const cutLine = (missing: number, length: number) =>
  `15:38:15.845825 IP truncated-ip - ${missing} bytes missing! (tos 0x0, ttl 64, id 1, offset 0, flags [DF], proto TCP (6), length ${length})`;

describe('readFramesCut: packets tcpdump saw arrive shorter than their IP header says', () => {
  it('reads a real capture: 9000-byte packets of which 1498 bytes arrived', () => {
    expect(readFramesCut(ticket)).toEqual({ packetBytes: 9000, deliveredBytes: 1498, packets: 1, captureBytes: 262144 });
  });

  it('counts every cut packet and keeps the largest sizes', () => {
    const text = [listening, cutLine(7502, 9000), cutLine(2502, 4000), cutLine(7502, 9000)].join('\n');
    expect(readFramesCut(text)).toMatchObject({ packetBytes: 9000, deliveredBytes: 1498, packets: 3 });
  });

  it('reads a record a mailer wrapped at 72 columns', () => {
    const wrapped = ticket
      .replace('ttl 64, id 14314', 'ttl\n64, id 14314')
      .replace('proto TCP (6), length 9000)', 'proto TCP\n(6), length 9000)');
    expect(wrapped).not.toBe(ticket);
    expect(readFramesCut(wrapped)).toMatchObject({ packetBytes: 9000, deliveredBytes: 1498, packets: 1 });
  });

  it('reads IPv6: the payload length plus the 40-byte header', () => {
    const line =
      '10:00:00.000001 IP6 truncated-ip6 - 7000 bytes missing!(flowlabel 0x1, hlim 64, next-header TCP (6) payload length: 8960) ::1.5201 > ::2.40000';
    expect(readFramesCut(`${listening}\n${line}`)).toMatchObject({ packetBytes: 9000, deliveredBytes: 2000 });
  });

  it.each([
    // tcpdump's own cut: a capture size below the packet's length.
    ['a small capture size', ['listening on eth0, link-type EN10MB (Ethernet), snapshot length 1500 bytes', cutLine(7502, 9000)]],
    // An old default snapshot (68 or 96 bytes) leaves a few dozen bytes of every packet.
    ['a few bytes delivered', [cutLine(8960, 9000)]],
    ['a trailer-sized difference', [listening, cutLine(20, 1500)]],
    ['no IP length on the line', [listening, '15:38:15.845825 IP truncated-ip - 7502 bytes missing! 10.0.0.1.5201 > 10.0.0.2.4000']],
    ['no tcpdump output', ['the iperf3 run stalls after one second']],
  ])('null for %s', (_, lines) => {
    expect(readFramesCut(lines.join('\n'))).toBeNull();
  });
});
