import { ParseError } from './parse-error.js';

/**
 * FreeBSD `pciconf -lv`, `-lvc`, `-lbcv`:
 *
 *   ix0@pci0:3:0:0:	class=0x020000 rev=0x11 hdr=0x00 vendor=0x8086 device=0x15c4 subvendor=0x8086 subdevice=0x0000
 *       vendor     = 'Intel Corporation'
 *       device     = 'Ethernet Connection X553 10 GbE SFP+'
 *       class      = network
 *       cap 10[a0] = PCI-Express 2 endpoint max data 256(512) FLR RO NS
 *                    max read 512
 *                    link x4(x8) speed 5.0(8.0) ASPM disabled(L0s/L1)
 *
 * In the PCI-Express capability, `link xW(xW)` and `speed S(S)` are the link status (what was
 * trained) and, in parentheses, the link capability; `max data N(M)` is MaxPayload set(supported).
 */

export interface PciconfDevice {
  /** The attached driver and unit ("ix0"), or "none3" when no driver attached. */
  name: string;
  /** 0000:03:00.0 (domain:bus:slot.function, as Linux writes it). */
  address: string;
  classCode: string | null;
  vendorId: string | null;
  deviceId: string | null;
  vendor: string | null;
  device: string | null;
  className: string | null;
  subclass: string | null;
  pcie: PciconfExpress | null;
  /** Whether capabilities were listed at all (pciconf -c): without them, no PCI-Express capability says nothing. */
  capabilitiesListed: boolean;
}

export interface PciconfExpress {
  width: number | null;
  maxWidth: number | null;
  /** GT/s */
  speedGts: number | null;
  maxSpeedGts: number | null;
  payloadBytes: number | null;
  maxPayloadBytes: number | null;
  maxReadBytes: number | null;
}

const MAX_LINES = 500_000;
const HEADER = /^([A-Za-z][\w]{0,31})@pci(\d{1,4}):(\d{1,3}):(\d{1,3}):(\d{1,2}):\s+(\S.*)$/;

export function isPciconfHeader(line: string): boolean {
  return HEADER.test(line);
}

function chipPart(chip: string | null, start: number): string | null {
  return chip && chip.length === 10 ? `0x${chip.slice(start, start + 4)}` : null;
}

const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');

export function parsePciconf(text: string): PciconfDevice[] {
  const lines = text.split('\n');
  if (lines.length > MAX_LINES) throw new ParseError(`pciconf output of ${lines.length} lines is longer than ${MAX_LINES}`);
  const devices: PciconfDevice[] = [];
  let current: PciconfDevice | undefined;
  let inExpress = false;
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '');
    const header = HEADER.exec(line.trimStart());
    if (header) {
      const [domain, bus, slot, fn] = [header[2], header[3], header[4], header[5]].map(Number) as [number, number, number, number];
      const fields = header[6]!;
      const field = (key: string) => new RegExp(`\\b${key}=(0x[0-9a-f]+)`, 'i').exec(fields)?.[1]?.toLowerCase() ?? null;
      current = {
        name: header[1]!,
        address: `${hex(domain, 4)}:${hex(bus, 2)}:${hex(slot, 2)}.${fn}`,
        classCode: field('class'),
        // Before FreeBSD 11 the ids were one field: chip=0x<device><vendor>.
        vendorId: field('vendor') ?? chipPart(field('chip'), 6),
        deviceId: field('device') ?? chipPart(field('chip'), 2),
        vendor: null,
        device: null,
        className: null,
        subclass: null,
        pcie: null,
        capabilitiesListed: false,
      };
      devices.push(current);
      inExpress = false;
      continue;
    }
    if (!current || !/^\s/.test(line)) {
      if (line.trim()) current = undefined;
      continue;
    }
    const body = line.trim();
    const named = /^(vendor|device|class|subclass)\s+= (.*)$/.exec(body);
    if (named) {
      const value = named[2]!.trim().replace(/^'(.*)'$/, '$1');
      if (named[1] === 'class') current.className = value;
      else current[named[1] as 'vendor' | 'device' | 'subclass'] = value;
      inExpress = false;
      continue;
    }
    const cap = /^(?:cap|ecap) [0-9a-f]{2,4}\[[0-9a-f]{1,4}\] = (.*)$/.exec(body);
    if (cap) {
      current.capabilitiesListed = true;
      inExpress = /^PCI-Express\b/.test(cap[1]!);
      if (inExpress) {
        current.pcie = {
          width: null,
          maxWidth: null,
          speedGts: null,
          maxSpeedGts: null,
          payloadBytes: null,
          maxPayloadBytes: null,
          maxReadBytes: null,
        };
        readExpress(current.pcie, cap[1]!);
      }
      continue;
    }
    if (inExpress && current.pcie) readExpress(current.pcie, body);
  }
  if (devices.length === 0) throw new ParseError('no device line (`ix0@pci0:3:0:0: class=...`) in the pciconf output');
  return devices;
}

function readExpress(target: PciconfExpress, text: string): void {
  const link = /\blink x(\d{1,2})\(x(\d{1,2})\)/.exec(text);
  if (link) {
    target.width = Number(link[1]);
    target.maxWidth = Number(link[2]);
  }
  const speed = /\bspeed (\d{1,2}(?:\.\d)?)\((\d{1,2}(?:\.\d)?)\)/.exec(text);
  if (speed) {
    // A link that is down shows speed 0.0: no trained speed.
    target.speedGts = Number(speed[1]) || null;
    target.maxSpeedGts = Number(speed[2]) || null;
  }
  const payload = /\bmax data (\d{3,4})\((\d{3,4})\)/.exec(text);
  if (payload) {
    target.payloadBytes = Number(payload[1]);
    target.maxPayloadBytes = Number(payload[2]);
  }
  const read = /\bmax read (\d{3,4})\b/.exec(text);
  if (read) target.maxReadBytes = Number(read[1]);
}
