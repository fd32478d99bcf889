/**
 * FreeBSD boot messages (`dmesg`, /var/run/dmesg.boot) of NIC drivers, wherever they are in a text:
 *
 *   ix0: Using 2048 TX descriptors and 2048 RX descriptors
 *   ix0: Using 4 RX queues 4 TX queues          ice0: Using 8 Tx and Rx queues
 *   ice0: PCI Express Bus: Speed 8.0GT/s Width x8
 *   ice0: Link is up, 25 Gbps Full Duplex, ...   ix0: link state changed to UP
 *   ice0: All configured link modes were attempted but failed to establish link.
 *
 * Each line names its interface first; only the last state a line gives counts.
 */

export interface FreebsdBootNic {
  name: string;
  description: string | null;
  rxQueues: number | null;
  txQueues: number | null;
  rxDescriptors: number | null;
  txDescriptors: number | null;
  pcieSpeedGts: number | null;
  pcieWidth: number | null;
  linkMbps: number | null;
  linkUp: boolean | null;
  linkFailed: boolean;
}

const LINE = /^\s*(?:<\d+>)?(?:\w{3} +\d+ [\d:]+ \S+ kernel: )?([a-z][a-z_]{0,15}\d{1,3}): (.{1,400})$/;

/** Whether a line is a FreeBSD driver message (`ice0: ...`), the start a wrapped piece belongs to. */
export function isFreebsdDriverLine(line: string): boolean {
  return LINE.test(line);
}

export function parseFreebsdBoot(text: string): Map<string, FreebsdBootNic> {
  const nics = new Map<string, FreebsdBootNic>();
  const lines = text.split('\n');
  for (let index = 0; index < lines.length && index < 2_000_000; index += 1) {
    const match = LINE.exec(lines[index]!.replace(/\r$/, ''));
    if (!match) continue;
    const [name, rest] = [match[1]!, match[2]!];
    const known = nics.get(name);
    const nic: FreebsdBootNic = known ?? {
      name,
      description: null,
      rxQueues: null,
      txQueues: null,
      rxDescriptors: null,
      txDescriptors: null,
      pcieSpeedGts: null,
      pcieWidth: null,
      linkMbps: null,
      linkUp: null,
      linkFailed: false,
    };
    if (!read(nic, rest)) continue;
    nics.set(name, nic);
  }
  return nics;
}

/** Reads one message into the NIC; false when the line says nothing this parser knows. */
function read(nic: FreebsdBootNic, rest: string): boolean {
  let match: RegExpExecArray | null;
  if ((match = /^<([^<>]{1,200})>/.exec(rest))) {
    nic.description = match[1]!;
    return true;
  }
  if ((match = /^Using (\d{1,6}) TX descriptors and (\d{1,6}) RX descriptors/.exec(rest))) {
    nic.txDescriptors = Number(match[1]);
    nic.rxDescriptors = Number(match[2]);
    return true;
  }
  if ((match = /^Using (\d{1,4}) RX queues (\d{1,4}) TX queues/.exec(rest))) {
    nic.rxQueues = Number(match[1]);
    nic.txQueues = Number(match[2]);
    return true;
  }
  if ((match = /^Using (\d{1,4}) Tx and Rx queues/.exec(rest))) {
    nic.rxQueues = nic.txQueues = Number(match[1]);
    return true;
  }
  if ((match = /^PCI Express Bus: Speed (\d{1,2}(?:\.\d{1,2})?) ?GT\/s Width x(\d{1,2})/.exec(rest))) {
    nic.pcieSpeedGts = Number(match[1]);
    nic.pcieWidth = Number(match[2]);
    return true;
  }
  if ((match = /^Link is up,? (\d{1,3}(?:\.\d)?) ([GM])bps/i.exec(rest))) {
    nic.linkMbps = Number(match[1]) * (match[2]!.toUpperCase() === 'G' ? 1000 : 1);
    nic.linkUp = true;
    nic.linkFailed = false;
    return true;
  }
  if ((match = /^link state changed to (UP|DOWN)\b/.exec(rest))) {
    nic.linkUp = match[1] === 'UP';
    return true;
  }
  if (/failed to establish link|Link is down\b/i.test(rest)) {
    nic.linkUp = false;
    nic.linkFailed = /failed to establish link/i.test(rest);
    return true;
  }
  return false;
}
