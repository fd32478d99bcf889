import { sniffIperf2Text, sniffIperf3Text } from '../parsers/iperf3-text.js';
import { isNetstatMbufLine } from '../parsers/freebsd-netstat-m.js';

/**
 * The command outputs nicdoctor recognises in free text, each with the shape of its first line
 * (`anchor`, which starts a new output where there is no prompt), of the lines inside it (`body`,
 * which keeps it going), and the command that prints it (`command`, which names it when a prompt
 * or header says what ran).
 */
export type SegmentKind =
  | 'ethtool-settings'
  | 'ethtool-stats'
  | 'ethtool-rings'
  | 'ethtool-channels'
  | 'ethtool-features'
  | 'ethtool-coalesce'
  | 'ethtool-pause'
  | 'ethtool-driver'
  | 'ethtool-rxfh'
  | 'ethtool-module'
  | 'lspci'
  | 'proc-interrupts'
  | 'softnet'
  | 'proc-net-dev'
  | 'proc-bonding'
  | 'sysctl'
  | 'ip-link'
  | 'tc-qdisc'
  | 'numactl'
  | 'lscpu'
  | 'uname'
  | 'iperf3-text'
  | 'iperf3-json'
  | 'iperf2'
  | 'lshw-network'
  | 'freebsd-ifconfig'
  | 'pciconf'
  | 'freebsd-sysctl'
  | 'netstat-m'
  | 'vmstat-i'
  | 'freebsd-version';

/** A test on one line: a regular expression, or a function where one pattern would backtrack. */
export interface LineShape {
  test(line: string): boolean;
}

export interface Format {
  kind: SegmentKind;
  /** A line that starts this output; group 1, when present, is the interface it names. */
  anchor: RegExp;
  /** A line that belongs inside this output. */
  body: LineShape;
  /** Recognises the command line that prints it; group 1 (when present) is the interface. */
  command?: RegExp;
  /** Whole-text check for the content shape, for outputs pasted without a prompt or header. */
  sniff?: (text: string) => boolean;
  /** Whether lines cut by a mailer are rejoined; iperf3's parser reads rows across line breaks itself. */
  noUnwrap?: boolean;
  /**
   * A row too short to be whole, so that a mailer's cut is told from a row of its own where
   * the piece after the cut would fit the body too (softnet_stat's columns).
   */
  incomplete?: (row: string) => boolean;
}

/**
 * Inside an ethtool output: an indented line, a `Key: value` line, or (where a mail client
 * stripped the indentation) a continuation line of link modes or message-level names.
 * Every pattern in this file is anchored and never puts two unbounded quantifiers over the
 * same characters side by side, so a line is tested in time linear in its length.
 */
const ETHTOOL_BODY =
  /^\s+\S|^[A-Za-z][\w /()-]*:|^\d+base[A-Za-z0-9/_-]+(?:\s|$)|^(?:drv|probe|link|timer|ifdown|ifup|rx_err|tx_err|tx_queued|intr|tx_done|rx_status|pktdata|hw|wol)(?: \w+)*$/;
// An interface name never starts with '-': `ethtool --version` names no interface.
const IFACE = String.raw`([A-Za-z0-9_.:@][A-Za-z0-9_.:@-]*)`;
const ethtool = (flags: string) => new RegExp(String.raw`^(?:sudo\s+)?(?:\S*/)?ethtool\s+(?:${flags})\s+${IFACE}(?:\s|$)`);

/**
 * Lines of an iperf3 run, tested after the leading whitespace (so that no `\s*` sits before
 * an alternative that starts with whitespace or `.*`). A unit alone on its line ("MBytes") is
 * the end of a row a mailer cut: the parser reads rows across line breaks.
 */
const IPERF3_BODY =
  /^(?:[\w.-]+:(?: *$| {2}(?:\[|Connecting to host|Reverse mode|(?:- )+-?$|iperf Done\.$))|\[ *(?:\d+|SUM|ID) *\]|Connecting to host|Lost\/Total Datagrams$|[\d/]+ *\([\d.e+-]+%\) *(?:sender|receiver)?$|Reverse mode|Server listening|Accepted connection|-{3,}|(?:- )+-?$|iperf Done\.$|iperf 3|Linux |Time: |Cookie: |TCP MSS: |Starting Test: |Test Complete|CPU Utilization: |sec\b|[\d.]+ *(?:sec|[KMGT]?Bytes|[KMGT]?bits\/sec)\b|\d+(?: +(?:sender|receiver))?$|sender$|receiver$|local\/sender|snd_tcp_congestion |rcv_tcp_congestion |\.\.\.(?: *\.\.\.)*$|[KMGT]?(?:Bytes|bits\/sec)(?: +(?:sender|receiver))? *$)/;
/** A column header line of an iperf3 run, wherever the word sits. */
const IPERF3_COLUMNS = /Bitrate|Bandwidth|Transfer/;

/**
 * FreeBSD's outputs (TrueNAS CORE, OPNsense, pfSense, OneFS). ifconfig's header is told from
 * Linux net-tools' by `metric N mtu N`; its body lines by indentation or, where a mailer removed
 * it, by their keys.
 */
const FREEBSD_IFCONFIG_HEADER = /^[A-Za-z][\w.]{0,31}: flags=[0-9a-f]{1,8}<[A-Z0-9_,]*> metric \d{1,4} mtu \d{1,6}\b/;
const FREEBSD_FORMATS: readonly Format[] = [
  {
    kind: 'freebsd-ifconfig',
    anchor: FREEBSD_IFCONFIG_HEADER,
    body: {
      test: (line) =>
        FREEBSD_IFCONFIG_HEADER.test(line) ||
        /^\s+\S/.test(line) ||
        /^(?:options|capabilities|hwassist)=[0-9a-f]{1,16}<|^(?:ether|hwaddr|inet6?|lladdr) \S|^(?:media|status|nd6 options|groups|member|laggproto|supported media|plugged|vendor|drivername|description): ?/.test(
          line,
        ),
    },
    command: /^(?:sudo\s+)?(?:\S*\/)?ifconfig\b/,
  },
  {
    kind: 'pciconf',
    anchor: /^[A-Za-z]\w{0,31}@pci\d{1,4}:\d{1,3}:\d{1,3}:\d{1,2}:\s+class=0x[0-9a-f]{6}/,
    body: /^\s+\S|^[A-Za-z]\w{0,31}@pci\d{1,4}:\d{1,3}:\d{1,3}:\d{1,2}:\s/,
    command: /^(?:sudo\s+)?(?:\S*\/)?pciconf\s+-/,
  },
  {
    kind: 'freebsd-sysctl',
    // `name: value` under FreeBSD's roots; Linux's sysctl prints `name = value`.
    anchor: /^(?:dev|hw|kern|vm|machdep|net\.inet6?|net\.link|net\.isr)\.[\w%.-]{1,200}: \S/,
    body: /^(?:dev|hw|kern|vm|machdep|net|debug|security|vfs|compat|user|p1003_1b)\.[\w%.-]{1,200}:(?: |$)/,
  },
  {
    kind: 'netstat-m',
    anchor: /^\d{1,20}\/\d{1,20}\/\d{1,20} mbufs in use\b/,
    body: {
      test: (line) =>
        isNetstatMbufLine(line) ||
        /^\(?[a-z0-9+/]{1,40}\)$/.test(line.trim()) ||
        /^\d{1,20} requests for (?:sfbufs|I\/O)|^\d{1,20} (?:calls to protocol drain|sendfile syscalls|requests for)/.test(line.trim()),
    },
    command: /^(?:sudo\s+)?netstat\s+-m\b/,
  },
  {
    kind: 'vmstat-i',
    anchor: /^interrupt\s+total\s+rate$/,
    body: /^(?:irq\d{1,6}: ?)?\S.{0,80}?\s\d{1,20}\s+\d{1,20}$/,
    command: /^(?:sudo\s+)?vmstat\s+-ia?\b/,
  },
  {
    kind: 'freebsd-version',
    anchor: /^\d{1,2}\.\d{1,2}-(?:RELEASE|STABLE|CURRENT|PRERELEASE|BETA\d{0,2}|RC\d{0,2})(?:-p\d{1,3})?$/,
    body: { test: () => false },
    command: /^(?:sudo\s+)?freebsd-version\b/,
  },
];

export const FORMATS: readonly Format[] = [
  ...FREEBSD_FORMATS,
  {
    kind: 'ethtool-settings',
    // Or, pasted without its header line, its first block: the ports and link modes.
    anchor: new RegExp(`^Settings for ${IFACE}:\\s*$|^\\s*Supported (?:ports: \\[|link modes:\\s)`),
    body: ETHTOOL_BODY,
    command: new RegExp(String.raw`^(?:sudo\s+)?(?:\S*/)?ethtool\s+${IFACE}\s*(?:\||$)`),
  },
  {
    kind: 'ethtool-stats',
    // Or (grep'd without it: `ethtool -S eth0 | grep drop`) a driver counter of its own shape.
    anchor: /^NIC statistics:\s*$|^\s*(?:[a-z0-9]+\.)?[rt]x_[\w.[\]-]*:\s*-?\d+$/,
    body: /^\s*[\w.[\]:-]+:\s*-?\d+$|^\s*\S+:\s*\d+$/,
    command: ethtool('-S|--statistics'),
  },
  {
    kind: 'ethtool-rings',
    anchor: new RegExp(`^Ring parameters for ${IFACE}:\\s*$`),
    body: ETHTOOL_BODY,
    command: ethtool('-g|--show-ring'),
  },
  {
    kind: 'ethtool-channels',
    anchor: new RegExp(`^Channel parameters for ${IFACE}:\\s*$`),
    body: ETHTOOL_BODY,
    command: ethtool('-l|--show-channels'),
  },
  {
    kind: 'ethtool-features',
    anchor: new RegExp(`^Features for ${IFACE}:\\s*$`),
    body: /^\s*[\w-]+:\s*(?:on|off)\b/,
    command: ethtool('-k|--show-features|--show-offload'),
  },
  {
    kind: 'ethtool-coalesce',
    anchor: new RegExp(`^Coalesce parameters for ${IFACE}:\\s*$`),
    body: ETHTOOL_BODY,
    command: ethtool('-c|--show-coalesce'),
  },
  {
    kind: 'ethtool-pause',
    anchor: new RegExp(`^Pause parameters for ${IFACE}:\\s*$`),
    body: ETHTOOL_BODY,
    command: ethtool('-a|--show-pause'),
  },
  {
    kind: 'ethtool-driver',
    anchor: /^driver:\s+\S+\s*$/,
    body: /^\s*(?:version|firmware-version|expansion-rom-version|bus-info|supports-[\w-]+):.*$/,
    command: ethtool('-i|--driver'),
  },
  {
    kind: 'ethtool-rxfh',
    anchor: new RegExp(`^RX flow hash indirection table for ${IFACE}`),
    body: /^\s*\d+:(?:\s+\d+)+\s*$|^RSS hash.*$|^\s*[0-9a-f]{2}(?::[0-9a-f]{2})+\s*$|^\s*\S+:\s*(?:on|off)\s*$|^Operation not supported.*$/i,
    command: ethtool('-x|--show-rxfh-indir|--show-rxfh'),
  },
  {
    kind: 'ethtool-module',
    // Its first line is the module's SFF-8024 identifier byte, "Identifier : 0x03 (SFP)".
    anchor: /^\s*Identifier\s+:\s+0x[0-9a-f]{2}\b/i,
    // "BR, Nominal  : 10300MBd", "Length (62.5um) : 30m"; a mailer's cut leaves the tail of a
    // value on its own line: a run of hex bytes, or words closing a parenthesis.
    body: /^\s*[A-Za-z][\w ,./()+-]*:|^\s+\S|^0x[0-9a-f]{2}(?: 0x[0-9a-f]{2})*\s*$|^[a-z0-9][\w -]*\)$/i,
    command: ethtool('-m|--dump-module-eeprom|--module-info'),
  },
  {
    kind: 'lspci',
    anchor: /^(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7] [A-Za-z]|^\s*(?:LnkCap|LnkSta):(?=.*Speed)/i,
    // Mail clients strip lspci's indentation (and the tab after `LnkSta:`): a block is also
    // `Key: value` lines and flag lists.
    body: /^\s+\S|^[A-Za-z][\w ./()#-]*:\s|^(?:Lnk|Dev)[A-Za-z]{3}\d?:|^(?:[A-Za-z0-9_]+[+-]\s*){2,}|^<\S/,
    command: /^(?:sudo\s+)?(?:\S*\/)?lspci\b/,
  },
  {
    kind: 'proc-interrupts',
    // The CPU header, or (grep'd without it) a row: IRQ number, counts, then the chip's name.
    anchor: /^\s*CPU0(?:\s+CPU\d+)*$|^\s*\d+:(?:\s+\d+)+\s+[A-Za-z]/,
    body: /^\s*[\w-]+:\s/,
    command: /^(?:sudo\s+)?(?:cat|grep\b.*|less|more)\s+.*\/proc\/interrupts\b/,
  },
  {
    kind: 'proc-bonding',
    // The bonding driver's banner, then "Key: value" lines and 802.3ad's one sentence.
    anchor: /^Ethernet Channel Bonding Driver: \S/,
    body: /^\s{0,8}[A-Za-z][\w ().+/-]{0,60}:(?:\s|$)|^bond \S{1,15} has no active aggregator$|^802\.3ad info$/,
    command: /\/proc\/net\/bonding\/([^\s/]{1,15})/,
  },
  {
    kind: 'proc-net-dev',
    // The two header lines, then "<if>: <16 counters>" rows (a mailer cuts a row of ~150 columns).
    anchor: /^Inter-\|\s+Receive\b/,
    body: /^\s*face\s*\||^\s*[^\s:|]{1,15}:\s*\d+(?:\s+\d+)*\s*$|^\s*\d+(?:\s+\d+)+\s*$/,
    incomplete: (row) => /:/.test(row) && (row.split(':')[1]?.trim().split(/\s+/).length ?? 0) < 16,
    command: /\/proc\/net\/dev\b/,
  },
  {
    kind: 'softnet',
    // Nine to thirteen columns; a row a mailer cut at 72 columns starts with five or more.
    anchor: /^[0-9a-f]{8}(?:\s+[0-9a-f]{8}){4,}$/,
    body: /^[0-9a-f]{8}(?:\s+[0-9a-f]{8}){4,}$/,
    incomplete: (row) => row.trim().split(/\s+/).length < 9,
    command: /\/proc\/net\/softnet_stat\b/,
  },
  {
    kind: 'sysctl',
    anchor: /^[a-z][a-z0-9_-]*(?:\.[a-z0-9_*-]+)+\s*=\s*\S/i,
    body: /^[a-z][a-z0-9_-]*(?:\.[a-z0-9_*-]+)+\s*=/i,
    command: /^(?:sudo\s+)?sysctl\b/,
  },
  {
    kind: 'ip-link',
    anchor: /^\d+: +[^:\s@]+(?:@[^:\s]+)?: +<[^>]*>/,
    body: /^\s+\S|^\d+: +[^:\s@]+(?:@[^:\s]+)?: +<[^>]*>/,
    command: /^(?:sudo\s+)?ip\s+(?:-\S+\s+)*(?:l|li|lin|link|a|ad|add|addr|address)\b/,
  },
  {
    kind: 'tc-qdisc',
    anchor: /^qdisc \S+ [0-9a-f]*:/,
    body: /^\s+\S|^qdisc \S+ /,
    command: /^(?:sudo\s+)?tc\s+(?:-\S+\s+)*qdisc\b/,
  },
  {
    kind: 'numactl',
    anchor: /^available: \d+ nodes? \(.*\)$/,
    body: /^node \d+ |^node distances:$|^\s*node(?:\s+\d+)+$|^\s*\d+:(?:\s+\d+)+$|^No NUMA/,
    command: /^(?:sudo\s+)?numactl\s+(?:-H|--hardware)\b/,
  },
  {
    kind: 'lshw-network',
    // `lshw -class network`: a "*-network" node (":1" for the second), then "key: value" lines.
    anchor: /^\s*\*-network(?::\d{1,4})?(?: +(?:DISABLED|UNCLAIMED))?\s*$/,
    body: /^\s*\*-network(?::\d{1,4})?(?: +(?:DISABLED|UNCLAIMED))?\s*$|^\s*[a-z][a-z ]{1,24}: \S/,
    command: /^(?:sudo\s+)?(?:\S*\/)?lshw\b/,
  },
  { kind: 'lscpu', anchor: /^Architecture: *\S+$/, body: /^[A-Z][\w ()\-/]*:\s|^\s/, command: /^(?:sudo\s+)?lscpu\b/ },
  {
    kind: 'uname',
    anchor: /^Linux \S+ \d+\.\d\S* #\d|^FreeBSD \S+ \d{1,2}\.\d{1,2}-[A-Z]{2,12}\S* /,
    body: { test: () => false },
    command: /^uname\b/,
  },
  {
    kind: 'iperf3-text',
    anchor:
      /^(?:[\w.-]+: {2}(?:Connecting to host|\[\s*(?:\d+|SUM|ID)).*|iperf3: error - .*|Connecting to host \S+, port \d+|Server listening on \d+.*|iperf 3\.\S+.*|\[\s*(?:\d+|SUM)\s*\](?:\[[A-Z-]+\])?\s+(?:local \S+ port|\d+\.\d\d-).*|\[ ID ?\].*)$/,
    body: { test: (line) => IPERF3_BODY.test(line.trimStart()) || IPERF3_COLUMNS.test(line) },
    command: /^(?:sudo\s+)?(?:\S*[\\/])?iperf3(?:\.exe)?\s+-/,
    sniff: sniffIperf3Text,
    noUnwrap: true,
  },
  {
    kind: 'iperf3-json',
    anchor: /^\{\s*$/,
    body: /^.*$/,
    sniff: (text) => /"start"\s*:/.test(text) && /"end"\s*:/.test(text) && /"intervals"\s*:/.test(text),
  },
  {
    kind: 'iperf2',
    anchor: /^(?:Client connecting to \S+, (?:TCP|UDP) port \d+|Server listening on (?:TCP|UDP) port \d+|iperf version 2\..*)$/,
    body: /^(?:\[\s*(?:\d+|SUM|ID)\].*|TCP window size.*|UDP buffer size.*|-{10,}|Client connecting.*|Server listening.*|Sending \d+ byte datagrams.*)$/,
    command: /^(?:sudo\s+)?(?:\S*[\\/])?iperf(?:\.exe)?\s+-/,
    sniff: sniffIperf2Text,
    noUnwrap: true,
  },
];

/**
 * Each format's content-shape test on a whole text: its own sniff() where the shape needs more
 * than one line (iperf3/iperf2, JSON), otherwise "one of its lines is its first line".
 */
export function sniff(format: Format, text: string): boolean {
  if (format.sniff) return format.sniff(text);
  return text.split(/\r?\n/).some((line) => format.anchor.test(line) || format.anchor.test(line.trimStart()));
}

/** The formats a text holds, by content shape alone (no prompt needed), in FORMATS order. */
export function sniffKinds(text: string): SegmentKind[] {
  return FORMATS.filter((format) => sniff(format, text)).map((format) => format.kind);
}

export function formatOf(kind: SegmentKind): Format {
  return FORMATS.find((format) => format.kind === kind)!;
}

/** The format a command line prints, and the interface it names. */
export function formatForCommand(command: string): { format: Format; iface: string | null } | undefined {
  const trimmed = command.trim();
  for (const format of FORMATS) {
    const match = format.command?.exec(trimmed);
    if (match) {
      if (format.kind === 'iperf3-text' && /(?:^|\s)(?:-J|--json)\b/.test(trimmed)) return { format: formatOf('iperf3-json'), iface: null };
      if (format.kind === 'ip-link' || format.kind === 'tc-qdisc') return { format, iface: /\bdev\s+(\S+)/.exec(trimmed)?.[1] ?? null };
      return { format, iface: match[1] ?? null };
    }
  }
  return undefined;
}

/** The format whose first line this is, and the interface its header names. */
export function formatForAnchor(line: string): { format: Format; iface: string | null } | undefined {
  // Mail and forum posts often indent a whole paste; the CPU header of /proc/interrupts is
  // indented by itself, so the line is tried as it is first.
  for (const candidate of [line, line.trimStart()]) {
    for (const format of FORMATS) {
      const match = format.anchor.exec(candidate);
      if (match) return { format, iface: match[1] ?? null };
    }
  }
  return undefined;
}
