import { ParseError } from './parse-error.js';

/**
 * FreeBSD `ifconfig`, `ifconfig -v`, `ifconfig -m` (also OPNsense/pfSense/TrueNAS CORE):
 *
 *   ix0: flags=8863<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500
 *   	options=4803828<VLAN_MTU,JUMBO_MTU,WOL_UCAST,WOL_MCAST,WOL_MAGIC,NOMAP>
 *   	capabilities=...<...>            (-m only: what the driver offers)
 *   	media: Ethernet autoselect (10Gbase-SR <full-duplex,rxpause,txpause>)
 *   	status: active | no carrier
 *
 * A mail or forum post may strip the indentation: the body lines are then known by their keys.
 */

export interface FreebsdInterface {
  name: string;
  flags: string[];
  mtu: number | null;
  /** Enabled capabilities (`options=`). */
  options: string[] | null;
  /** Supported capabilities (`capabilities=`, ifconfig -m). */
  capabilities: string[] | null;
  /** The whole media line after "media: ". */
  media: string | null;
  /** The active subtype: "10Gbase-SR" from "(10Gbase-SR <full-duplex>)" or "Ethernet 10Gbase-Twinax <full-duplex>". */
  mediaSubtype: string | null;
  duplex: 'full' | 'half' | null;
  /** Pause frames the link negotiated (rxpause/txpause in the media options). */
  rxPause: boolean | null;
  txPause: boolean | null;
  status: string | null;
}

const MAX_LINES = 200_000;
const HEADER = /^([A-Za-z][\w.]{0,31}): flags=[0-9a-f]{1,8}<([A-Z0-9_,]*)>(.*)$/;
/** Body keys ifconfig prints, for lines whose indentation a mailer removed. */
const BODY_KEY =
  /^(?:options|capabilities|ether|hwaddr|inet6?|nd6|media|status|supported|groups|member|laggproto|lagghash|laggport|vlan|parent|fib|tunnel|syncpeer|pfsync|carp|id|drivername|plugged|vendor|hwassist|description|ssid|regdomain|country|channel|bssid|vxlan|bridge|maxaddr|root|ifmaxaddr|uptime|netmap|lladdr|txpower|authmode|privacy|deftxkey|AES-CCM|wme|roaming|bintval)\b/;

function flagList(text: string): string[] {
  return text.split(',').filter(Boolean);
}

export function isIfconfigHeader(line: string): boolean {
  return HEADER.test(line);
}

export function parseFreebsdIfconfig(text: string): FreebsdInterface[] {
  const lines = text.split('\n');
  if (lines.length > MAX_LINES) throw new ParseError(`ifconfig output of ${lines.length} lines is longer than ${MAX_LINES}`);
  const result: FreebsdInterface[] = [];
  let current: FreebsdInterface | undefined;
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '');
    const header = HEADER.exec(line);
    if (header) {
      const rest = header[3]!;
      const mtu = /\bmtu (\d{2,6})\b/.exec(rest)?.[1];
      current = {
        name: header[1]!,
        flags: flagList(header[2]!),
        mtu: mtu ? Number(mtu) : null,
        options: null,
        capabilities: null,
        media: null,
        mediaSubtype: null,
        duplex: null,
        rxPause: null,
        txPause: null,
        status: null,
      };
      result.push(current);
      continue;
    }
    if (!current) continue;
    const body = line.trim();
    if (!body || (!/^\s/.test(line) && !BODY_KEY.test(body))) {
      if (body) current = undefined;
      continue;
    }
    const capability = /^(options|capabilities)=[0-9a-f]{1,16}<([A-Z0-9_,]*)>/.exec(body);
    if (capability) {
      current[capability[1] === 'options' ? 'options' : 'capabilities'] = flagList(capability[2]!);
      continue;
    }
    const media = /^media: (.*)$/.exec(body);
    if (media) {
      readMedia(current, media[1]!.trim());
      continue;
    }
    const status = /^status: (.*)$/.exec(body);
    if (status) current.status = status[1]!.trim();
  }
  if (result.length === 0) throw new ParseError('no interface header (`ix0: flags=...<...> mtu N`) in the ifconfig output');
  return result;
}

/**
 * "Ethernet autoselect (10Gbase-SR <full-duplex,rxpause,txpause>)": the active subtype is in the
 * parentheses; "Ethernet 10Gbase-Twinax <full-duplex>" (media set by hand) has none.
 * "Ethernet autoselect" alone: no link.
 */
function readMedia(target: FreebsdInterface, media: string): void {
  target.media = media;
  const active = /\(([^()<>\s]+)(?: <([^<>]*)>)?\)\s*$/.exec(media) ?? /^\S+ (?!autoselect\b)([^\s<>()]+)(?: <([^<>]*)>)?\s*$/.exec(media);
  if (!active) return;
  target.mediaSubtype = active[1]!;
  const mediaOptions = active[2]?.split(',').map((option) => option.trim()) ?? [];
  target.duplex = mediaOptions.includes('full-duplex') ? 'full' : mediaOptions.includes('half-duplex') ? 'half' : null;
  if (mediaOptions.length) {
    target.rxPause = mediaOptions.includes('rxpause');
    target.txPause = mediaOptions.includes('txpause');
  }
}
