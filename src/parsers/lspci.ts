import { ParseError } from './parse-error.js';
import { parseLinkSpeed, parseLinkWidth } from './pcie-text.js';
import { lines } from './text.js';

/**
 * Parser for `lspci -vv` / `-vvv` / `-nnvv` output (one or many devices), and the shapes people
 * paste: grep fragments of LnkCap/LnkSta lines without a device header, plain `lspci`, `-mmv`.
 *
 * Formats by pciutils age:
 *  - 2.2.x: "Link: Supported Speed 2.5Gb/s, Width x16, ..." / "Link: Speed 2.5Gb/s, Width x16",
 *    "Device: Supported: MaxPayload 256 bytes" / "Device: MaxPayload 128 bytes, MaxReadReq 128 bytes";
 *  - 3.0-3.6: "LnkCap: Port #0, Speed 5GT/s, Width x8, ..." / "LnkSta: Speed 2.5GT/s, Width x4,
 *    TrErr- ..." (no verdict: compare the numbers);
 *  - 3.6+: "LnkSta: Speed 8GT/s (ok), Width x4 (downgraded)", "(strange)" for impossible widths;
 *    recent versions annotate endpoints only, ports print bare numbers.
 * Run without root, lspci prints "Capabilities: <access denied>" instead of all of this.
 */

/** lspci's own verdict printed after a LnkSta value; null when it printed none (old lspci, ports). */
export type LinkMarker = 'ok' | 'downgraded' | 'strange' | (string & {});

export interface LspciLinkCapability {
  /** GT/s; null when lspci printed "unknown". */
  speedGts: number | null;
  width: number | null;
  port: number | null;
}

export interface LspciLinkStatus {
  speedGts: number | null;
  /** 0 for a VF or a link that is down. */
  width: number | null;
  speedMarker: LinkMarker | null;
  widthMarker: LinkMarker | null;
}

export interface LspciDevice {
  /** As printed: "09:00.0", or "0000:09:00.0" with -D; null for a headerless fragment. */
  address: string | null;
  description: string | null;
  /** "Endpoint", "Root Port", "Downstream Port", "Upstream Port", "Legacy Endpoint", ... */
  expressType: string | null;
  /** An SR-IOV Virtual Function: its link registers describe no physical link. */
  virtualFunction: boolean;
  /** lspci ran without root: the capability list (and every link field) was hidden. */
  capabilitiesAccessDenied: boolean;
  linkCapability: LspciLinkCapability | null;
  linkStatus: LspciLinkStatus | null;
  /** LnkCap2 "Supported Link Speeds: 2.5-16GT/s" → 16. */
  linkCapability2MaxSpeedGts: number | null;
  /** LnkCtl2 "Target Link Speed". */
  targetSpeedGts: number | null;
  /** LnkSta2 EqualizationComplete+/-, null when not printed. */
  equalizationComplete: boolean | null;
  /** DevCap MaxPayload: the largest TLP payload the function supports. */
  maxPayloadSupportedBytes: number | null;
  /** DevCtl MaxPayload: what the function was configured to use. */
  maxPayloadBytes: number | null;
  maxReadRequestBytes: number | null;
  kernelDriver: string | null;
  /** "Kernel modules: ixgbe": the drivers that could claim it (with no driver in use: an unbound NIC). */
  kernelModules: string | null;
  /** LnkCtl "ASPM L1 Enabled" → "L1", "ASPM L0s L1 Enabled" → "L0s L1", "ASPM Disabled" → "disabled"; null when not printed. */
  aspm: string | null;
}

const HEADER = /^((?:[0-9a-f]{4,}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])\s+(.*)$/i;
const MACHINE_SLOT = /^Slot:\s+((?:[0-9a-f]{4,}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])\s*$/i;
const LINK_VALUE = /Speed\s+([^\s,(]+)\s*(?:\((\w+)\))?\s*,\s*Width\s+x(\d+)\s*(?:\((\w+)\))?/;
const EXPRESS =
  /^Capabilities:\s*\[[0-9a-f]+(?:\s+v\d+)?\]\s+Express\s+(?:\(v\d+\)\s+)?(.+?)(?:\s+\(Slot[+-]\))?(?:,\s*(?:MSI|IntMsgNum)\s+\S+|\s+IRQ\s+\d+)?\s*$/i;
const FIELD = /^(LnkCap|LnkSta|LnkCap2|LnkCtl|LnkCtl2|LnkSta2|DevCap|Link|Device|Kernel driver in use|Kernel modules)\s*:\s*(.*)$/;

/** Parses every device block; an output with no device and no link line is not lspci. */
export function parseLspci(text: string): LspciDevice[] {
  const devices: LspciDevice[] = [];
  let current: LspciDevice | undefined;
  let recognised = false;

  const start = (address: string | null, description: string | null): LspciDevice => {
    const device = emptyDevice(address, description);
    devices.push(device);
    return device;
  };

  for (const raw of lines(text)) {
    if (!raw.trim()) continue;
    // Device headers start in column 0; everything inside a block is indented (fragments may not be).
    const header = raw === raw.trimStart() ? HEADER.exec(raw) : null;
    if (header) {
      current = start(header[1]!.toLowerCase(), header[2]!.trim());
      current.virtualFunction = /Virtual Function/i.test(header[2]!);
      recognised = true;
      continue;
    }
    const line = raw.trim();
    const slot = MACHINE_SLOT.exec(line);
    if (slot) {
      current = start(slot[1]!.toLowerCase(), null);
      recognised = true;
      continue;
    }
    if (
      current?.description === null &&
      current.address !== null &&
      /^Device:\s+(?!Supported|MaxPayload|Latency|Errors|Atn|Rlxd)/.test(line)
    ) {
      // -mmv: "Device:\tI350 Gigabit Network Connection [1521]"
      current.description = line.replace(/^Device:\s+/, '');
      current.virtualFunction = /Virtual Function/i.test(current.description);
      continue;
    }
    if (/^Capabilities:\s*<access denied>/i.test(line)) {
      current ??= start(null, null);
      current.capabilitiesAccessDenied = true;
      recognised = true;
      continue;
    }
    const express = EXPRESS.exec(line);
    if (express) {
      current ??= start(null, null);
      current.expressType = express[1]!.trim();
      continue;
    }
    // DevCtl's "MaxPayload 512 bytes, MaxReadReq 512 bytes" continues on a line of its own.
    const control = /^MaxPayload\s+(\d+)\s+bytes,\s*MaxReadReq\s+(\d+)\s+bytes/.exec(line);
    if (control) {
      current ??= start(null, null);
      current.maxPayloadBytes = Number(control[1]);
      current.maxReadRequestBytes = Number(control[2]);
      continue;
    }
    const field = FIELD.exec(line);
    if (!field) continue;
    const key = field[1]!;
    const value = field[2]!;
    if (key === 'Kernel driver in use') {
      if (current) current.kernelDriver = value.trim() || null;
      continue;
    }
    if (key === 'Kernel modules') {
      if (current) current.kernelModules = value.trim() || null;
      continue;
    }
    current ??= start(null, null);
    recognised = true;
    applyField(current, key, value, line);
  }

  if (!recognised) {
    if (!text.trim()) return [];
    throw new ParseError(`not lspci output: no device header and no LnkCap/LnkSta line (starts with "${firstLine(text)}")`);
  }
  return devices;
}

function applyField(device: LspciDevice, key: string, value: string, line: string): void {
  switch (key) {
    case 'LnkCap':
      device.linkCapability = linkCapability(value, line);
      return;
    case 'LnkSta':
      device.linkStatus = linkStatus(value, line);
      return;
    case 'LnkCap2': {
      // "Supported Link Speeds: 2.5-16GT/s" (a range) or "2.5GT/s"; some devices print "RsvdP".
      const speeds = /Supported Link Speeds:\s*([\d.]+)(?:-([\d.]+))?\s*GT\/s/i.exec(value);
      device.linkCapability2MaxSpeedGts = speeds ? parseLinkSpeed(`${speeds[2] ?? speeds[1]}GT/s`) : null;
      return;
    }
    case 'LnkCtl': {
      const aspm = /ASPM\s+(Disabled|(?:L0s\s*)?(?:L1)?)\s*(?:Enabled)?/i.exec(value);
      device.aspm = aspm ? (/^Disabled$/i.test(aspm[1]!) ? 'disabled' : aspm[1]!.trim() || null) : null;
      return;
    }
    case 'LnkCtl2': {
      const target = /Target Link Speed:\s*([^\s,]+)/i.exec(value);
      device.targetSpeedGts = target ? parseLinkSpeed(target[1]) : null;
      return;
    }
    case 'LnkSta2': {
      const equalization = /EqualizationComplete([+-])/.exec(value);
      device.equalizationComplete = equalization ? equalization[1] === '+' : null;
      return;
    }
    case 'DevCap': {
      const payload = /MaxPayload\s+(\d+)\s+bytes/.exec(value);
      if (payload) device.maxPayloadSupportedBytes = Number(payload[1]);
      return;
    }
    case 'Link':
      // pciutils 2.2: "Link: Supported Speed 2.5Gb/s, Width x16, ..." then "Link: Speed 2.5Gb/s, Width x16".
      if (/^Supported\s+Speed/i.test(value)) device.linkCapability = linkCapability(value.replace(/^Supported\s+/i, ''), line);
      else if (/^Speed/i.test(value)) device.linkStatus = linkStatus(value, line);
      return;
    case 'Device': {
      // pciutils 2.2: "Device: Supported: MaxPayload 256 bytes, ..." / "Device: MaxPayload 128 bytes, MaxReadReq 512 bytes".
      const supported = /^Supported:\s*MaxPayload\s+(\d+)\s+bytes/i.exec(value);
      if (supported) device.maxPayloadSupportedBytes = Number(supported[1]);
      const control = /^MaxPayload\s+(\d+)\s+bytes,\s*MaxReadReq\s+(\d+)\s+bytes/i.exec(value);
      if (control) {
        device.maxPayloadBytes = Number(control[1]);
        device.maxReadRequestBytes = Number(control[2]);
      }
      return;
    }
    default:
      return;
  }
}

function linkCapability(value: string, line: string): LspciLinkCapability {
  const match = LINK_VALUE.exec(value);
  if (!match) throw new ParseError(`lspci link capability not understood: "${line}"`);
  const port = /Port\s+#?(\d+)/.exec(value);
  return { speedGts: parseLinkSpeed(match[1]), width: parseLinkWidth(match[3]), port: port ? Number(port[1]) : null };
}

function linkStatus(value: string, line: string): LspciLinkStatus {
  const match = LINK_VALUE.exec(value);
  if (!match) throw new ParseError(`lspci link status not understood: "${line}"`);
  return {
    speedGts: parseLinkSpeed(match[1]),
    width: parseLinkWidth(match[3]),
    speedMarker: match[2] ?? null,
    widthMarker: match[4] ?? null,
  };
}

function emptyDevice(address: string | null, description: string | null): LspciDevice {
  return {
    address,
    description,
    expressType: null,
    virtualFunction: false,
    capabilitiesAccessDenied: false,
    linkCapability: null,
    linkStatus: null,
    linkCapability2MaxSpeedGts: null,
    targetSpeedGts: null,
    equalizationComplete: null,
    maxPayloadSupportedBytes: null,
    maxPayloadBytes: null,
    maxReadRequestBytes: null,
    kernelDriver: null,
    kernelModules: null,
    aspm: null,
  };
}

function firstLine(text: string): string {
  const line = lines(text).find((candidate) => candidate.trim()) ?? '';
  return line.length > 60 ? `${line.slice(0, 60)}...` : line;
}

/** The block for one address ("09:00.0" matches "0000:09:00.0"), or the only block of a `-s` run. */
export function findLspciDevice(devices: readonly LspciDevice[], address: string): LspciDevice | undefined {
  const short = address.toLowerCase().replace(/^0000:/, '');
  const exact = devices.find((device) => device.address !== null && device.address.replace(/^0000:/, '') === short);
  if (exact) return exact;
  return devices.length === 1 && devices[0]!.address === null ? devices[0] : undefined;
}
