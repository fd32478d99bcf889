import { isIPv4, isIPv6 } from 'node:net';

/**
 * Consistent redaction of what identifies a host: hostnames, IP and hardware addresses, serial
 * numbers. The same original always gets the same token, in every text it is applied to, and a
 * token keeps the shape parsers expect (a MAC token is a MAC, an IP token an IP).
 *
 * Two phases, so that no token can equal an original seen anywhere: `collect` every text first,
 * then `apply` to each.
 */

export interface RedactionCounts {
  hostnames: number;
  ips: number;
  macs: number;
  serials: number;
}

type Category = keyof RedactionCounts;

/**
 * A hardware address: 6 (Ethernet), 8 (EUI-64) or 20 (InfiniBand) colon-separated bytes, not
 * part of a longer run (an RSS hash key in `ethtool -x` is 40+ bytes and must stay intact).
 */
const HW_ADDRESS = /(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{2}:){5,19}[0-9A-Fa-f]{2}(?![0-9A-Fa-f:])/g;
const HW_LENGTHS = new Set([6, 8, 20]);
const IPV4 = /(?<![0-9.])(?:\d{1,3}\.){3}\d{1,3}(?![0-9]|\.\d)/g;
/** A candidate only; node:net decides. The lookarounds keep it off MACs and longer hex runs. */
const IPV6 = /(?<![0-9A-Fa-f:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![0-9A-Fa-f:.])/g;
/** lspci: `Device Serial Number ec-0d-9a-03-00-f2-ac-00`; VPD: `[SN] Serial number: XYZ`; ethtool -m: `Vendor SN : XYZ`. */
const SERIAL_LINES = [/Device Serial Number\s+(\S+)/g, /\[SN\]\s*Serial number:\s*(\S(?:.*\S)?)/g, /Vendor SN\s*:\s*(\S(?:.*\S)?)/g];
/** Version fields hold dotted quads that are not addresses ("firmware-version: 11.1.183.62"). */
const VERSION_LINE = /^[ \t]*(?:firmware-version|version|expansion-rom-version|driver-version)[ \t]*:.*$/gim;

/** Addresses that identify nothing and that checks may compare against. */
const KEEP_IPV4 = (ip: string) => ip === '0.0.0.0' || ip.startsWith('127.') || ip.startsWith('255.');
const KEEP_IPV6 = (ip: string) => ip === '::' || ip === '::1';
const KEEP_HW = (mac: string) => /^(?:00:)+00$/.test(mac) || /^(?:ff:)+ff$/.test(mac);

export class Redactor {
  private readonly originals = new Map<Category, Set<string>>([
    ['hostnames', new Set()],
    ['ips', new Set()],
    ['macs', new Set()],
    ['serials', new Set()],
  ]);
  private readonly tokens = new Map<string, string>();
  private readonly used = new Set<string>();
  private readonly counters: RedactionCounts = { hostnames: 0, ips: 0, macs: 0, serials: 0 };
  private frozen = false;

  /** Hostnames are known rather than found: the inventory's, and its short form. */
  addHostname(name: string): void {
    const trimmed = name.trim();
    // A one-letter "hostname" would match every such word; "localhost" identifies nothing.
    if (trimmed.length < 2 || trimmed === 'localhost') return;
    this.add('hostnames', trimmed.toLowerCase());
    const short = trimmed.split('.')[0]!;
    if (short !== trimmed && short.length >= 2) this.add('hostnames', short.toLowerCase());
  }

  /** Phase one: remembers every value the text holds. */
  collect(text: string): void {
    this.scan(text, (category, value) => {
      this.add(category, value);
      return value;
    });
  }

  /** VPD keyword "SN" in binary sysfs `vpd` (latin1 text): two letters, a length byte, the value. */
  collectVpd(binary: string): void {
    // The length byte is binary: a control character in the pattern is the point.
    // eslint-disable-next-line no-control-regex
    for (const match of binary.matchAll(/SN([\x01-\x3f])/g)) {
      const length = match[1]!.charCodeAt(0);
      const value = binary.slice(match.index + 3, match.index + 3 + length);
      if (value.length === length && /^[\x20-\x7e]+$/.test(value) && value.trim()) this.add('serials', value.trim());
    }
  }

  /** Phase two: the text with every collected value replaced by its token. */
  apply(text: string): string {
    this.frozen = true;
    // Known values first, wherever they occur (a serial in a file name, a hostname in argv).
    let result = text;
    for (const category of ['serials', 'hostnames'] as const) {
      const values = [...this.originals.get(category)!].sort((a, b) => b.length - a.length);
      for (const value of values) result = replaceWord(result, value, () => this.tokenFor(category, value), category === 'hostnames');
    }
    return this.scan(result, (category, value) => (this.originals.get(category)!.has(value) ? this.tokenFor(category, value) : value));
  }

  counts(): RedactionCounts {
    const size = (category: Category) => this.originals.get(category)!.size;
    return { hostnames: size('hostnames'), ips: size('ips'), macs: size('macs'), serials: size('serials') };
  }

  /** Every original value, for tests and for a self-check after redaction. */
  values(): ReadonlyMap<Category, ReadonlySet<string>> {
    return this.originals;
  }

  private add(category: Category, value: string): void {
    if (this.frozen) throw new Error('Redactor: collect every text before applying');
    this.originals.get(category)!.add(value);
  }

  /** Runs the pattern detectors, letting `replace` decide each match's replacement. */
  private scan(text: string, replace: (category: Category, value: string) => string): string {
    let result = text;
    for (const pattern of SERIAL_LINES) {
      result = result.replace(pattern, (line: string, value: string) => {
        if (/^\.+$/.test(value)) return line; // "Device Serial Number ..." : already elided by the publisher
        return line.slice(0, line.length - value.length) + replace('serials', value);
      });
    }
    result = result.replace(HW_ADDRESS, (match) => {
      const mac = match.toLowerCase();
      if (!HW_LENGTHS.has(mac.split(':').length) || KEEP_HW(mac)) return match;
      return replace('macs', mac);
    });
    result = result.replace(IPV6, (match) =>
      isIPv6(match) && !KEEP_IPV6(match) && match.includes(':') ? replace('ips', match.toLowerCase()) : match,
    );
    // Dotted quads in version fields are versions; everything else that parses as IPv4 is an address.
    const versionSpans = [...result.matchAll(VERSION_LINE)].map((match) => [match.index, match.index + match[0].length] as const);
    result = result.replace(IPV4, (match, offset: number) => {
      if (!isIPv4(match) || KEEP_IPV4(match)) return match;
      if (versionSpans.some(([start, end]) => offset >= start && offset < end)) return match;
      return replace('ips', match);
    });
    return result;
  }

  private tokenFor(category: Category, value: string): string {
    const key = `${category}\0${value}`;
    let token = this.tokens.get(key);
    if (!token) {
      do {
        this.counters[category] += 1;
        token = makeToken(category, this.counters[category], value);
      } while (this.used.has(token) || this.isOriginal(token));
      this.used.add(token);
      this.tokens.set(key, token);
    }
    return token;
  }

  private isOriginal(token: string): boolean {
    for (const set of this.originals.values()) if (set.has(token.toLowerCase())) return true;
    return false;
  }
}

function makeToken(category: Category, n: number, original: string): string {
  switch (category) {
    case 'hostnames':
      return `host-${n}`;
    case 'serials':
      return `serial-${n}`;
    case 'macs': {
      // Locally administered (02:...), same byte count as the original.
      const bytes = original.split(':').length;
      const tail = Array.from({ length: bytes - 1 }, (_, index) =>
        (Math.floor(n / 256 ** index) % 256).toString(16).padStart(2, '0'),
      ).reverse();
      return ['02', ...tail].join(':');
    }
    case 'ips':
      if (original.includes(':')) return `fd00:0:0:ffff::${n.toString(16)}`;
      return `10.255.${Math.floor(n / 256) % 256}.${n % 256}`;
  }
}

/** Replaces `value` where it stands alone (hostnames: not inside a longer name like "kvm" for "vm"). */
function replaceWord(text: string, value: string, token: () => string, caseInsensitive: boolean): string {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // "_" is a boundary: command keys join argv with it (`ping_-c_1_web01`).
  const pattern = new RegExp(`(?<![A-Za-z0-9-])${escaped}(?![A-Za-z0-9-])`, caseInsensitive ? 'gi' : 'g');
  return text.replace(pattern, () => token());
}
