/**
 * What a ticket's own words state about the host: the link speed ("a 25G NIC", "10GbE", "100G
 * ports", "25 Gb/s link"), the NIC model ("Intel X710", "ConnectX-5", "E810", "BCM57414") and
 * the CPU count ("a 32-core server", "2x Xeon Gold 6130 (16 cores each)", "48 vCPU", "with 8
 * CPUs"). Prose is the least trusted source: these fill in only what no output shows. Each
 * pattern is a short, bounded token sequence, so the cost is linear in the text.
 */

const SPEEDS = [1, 2.5, 5, 10, 25, 40, 50, 100, 200, 400];
const NUMBER = String.raw`(?<![\d.])(\d{1,3}(?:\.5)?)`;
const NOUNS = String.raw`(?:link|port|NIC|card|interface|adapter|Ethernet|network|uplink|connection|fib(?:er|re)|SFP\+?|QSFP\w{0,3}|hosts?|host's|servers?|сеть|хосте|интерфейс)s?`;
const SPEED_PATTERNS = [
  new RegExp(String.raw`${NUMBER}\s?(?:GbE|GigE|GBASE-?\w{0,8}|Gb Ethernet|Gigabit Ethernet)\b`, 'gi'),
  new RegExp(String.raw`${NUMBER}\s?(?:G|Gb|Gbit|Gig|Gigabit|Gbps|Gb\/s|Gbit\/s|Гбит\/с)[ -]${NOUNS}(?![\w-])`, 'gi'),
  // "a 40 Gbit", "dual 25G": an article or a port count before the speed makes it the NIC's.
  new RegExp(
    String.raw`\b(?:a|an|the|our|my|their|dual|quad|single|two|four)[ -](?:port )?${NUMBER}\s?(?:G|Gb|Gbit|Gig|Gigabit)\b(?!\/s|bps|\s?bytes)`,
    'gi',
  ),
];

/** The link speed the prose states, when it states exactly one; rates ("6 Gb/s") are not link speeds. */
export function statedLinkSpeedMbps(prose: string): number | null {
  const found = new Set<number>();
  for (const pattern of SPEED_PATTERNS) for (const match of prose.matchAll(pattern)) found.add(Number(match[1]));
  const speeds = [...found].filter((speed) => SPEEDS.includes(speed));
  return speeds.length === 1 ? speeds[0]! * 1000 : null;
}

export interface StatedNic {
  /** As written ("X710", "ConnectX-5"). */
  model: string;
  /** The Linux driver of that model. */
  driver: string;
}

/** NIC model families and their drivers (the drivers' own PCI id tables group them so). */
const MODELS: ReadonlyArray<[RegExp, string]> = [
  [/\b(?:Intel\s)?(E810(?:-\w{1,5})?|E823|E830)\b/i, 'ice'],
  [/\b(?:Intel\s)?(XXV710|XL710|X710|X722)\b/i, 'i40e'],
  [/\b(?:Intel\s)?(X520|X540|X550|X552|X553|82599(?:ES|EB)?)\b/i, 'ixgbe'],
  [/\b(?:Intel\s)?(I350|I354|I210|I211|82576|82580|82575)\b/i, 'igb'],
  [/\b(?:Intel\s)?(I225|I226)(?:-\w{1,3})?\b/i, 'igc'],
  [/\b(?:Mellanox\s|NVIDIA\s)?(ConnectX-?[4-8](?:\s?(?:Lx|Dx|EN|VPI))?|BlueField-?[1-3]?)\b/i, 'mlx5_core'],
  [/\b(?:Mellanox\s)?(ConnectX-?3(?:\s?Pro)?)\b/i, 'mlx4_en'],
  [/\b(BCM57[45]\d{2}|BCM5750[48]|P[12]\d{2}[pP]|N[12]\d{2}[pP])\b/, 'bnxt_en'],
  [/\b(BCM578[0-4]\d|BCM57711|BCM57712)\b/, 'bnx2x'],
  [/\b(BCM57[0-9]{2}|BCM5719|BCM5720)\b/, 'tg3'],
];

/** The one NIC model the prose names (several different ones: none, the ticket compares NICs). */
export function statedNicModel(prose: string): StatedNic | null {
  const found = new Map<string, StatedNic>();
  for (const [pattern, driver] of MODELS) {
    const match = pattern.exec(prose);
    if (match) found.set(driver, { model: match[1]!, driver });
  }
  return found.size === 1 ? [...found.values()][0]! : null;
}

export interface StatedCpus {
  /** Logical CPUs (vCPUs, "8 CPUs", threads). */
  logical: number | null;
  /** Physical cores ("32-core", "2x ... (16 cores each)"). */
  cores: number | null;
}

const COUNT = String.raw`(\d{1,4})`;

/** The CPU count the prose states; null fields where it says nothing. */
export function statedCpuCount(prose: string): StatedCpus {
  const sockets = new RegExp(String.raw`\b(\d)\s?[x×*]\s?[^\n()]{0,60}?\(\s?${COUNT}[ -]cores?\s(?:each|per socket|per CPU)`, 'i').exec(
    prose,
  );
  const perSocket = new RegExp(String.raw`\b(\d)\s?[x×*]\s?${COUNT}[ -]cores?\b`, 'i').exec(prose);
  const cores = new RegExp(String.raw`(?<![\d.])${COUNT}[ -](?:physical )?cores?\b`, 'i').exec(prose);
  const logical = new RegExp(
    String.raw`(?<![\d.])${COUNT}\s?(?:v?CPUs?|vCores?|hardware threads|threads|logical (?:CPUs|cores|processors))\b`,
    'i',
  ).exec(prose);
  const coreCount = sockets
    ? Number(sockets[1]) * Number(sockets[2])
    : perSocket
      ? Number(perSocket[1]) * Number(perSocket[2])
      : cores
        ? Number(cores[1])
        : null;
  const sane = (value: number | null) => (value !== null && value >= 1 && value <= 4096 ? value : null);
  return { logical: sane(logical ? Number(logical[1]) : null), cores: sane(coreCount) };
}
