/**
 * The PCIe slot a ticket says its NIC sits in, against the port's speed: "Type: x4 PCI Express 2"
 * (`dmidecode -t slot`), "the card is in a PCIe 2.0 x4 slot", "PCI-E x1 插槽 ... 2.0 版本". A slot
 * names the most lanes and the fastest generation a card in it can train to, so a slot whose
 * bandwidth is below the port's speed is the PCIe ceiling, even with no `lspci -vv` pasted.
 * Each pattern is a short, bounded token sequence over the first MAX_CHARS: linear in the text.
 */

const MAX_CHARS = 200_000;
/** GT/s per lane of each PCIe generation. */
const GEN_RATE: Readonly<Record<number, number>> = { 1: 2.5, 2: 5, 3: 8, 4: 16, 5: 32 };
const WIDTHS = new Set([1, 2, 4, 8, 16]);
/** A slot's generation unnamed in the words is taken as Gen3, the most common server slot (the charitable reading). */
const ASSUMED_GEN = 3;

export interface SlotLimit {
  /** The slot's lanes and generation as written (the generation null when unnamed: Gen3 assumed). */
  lanes: number;
  gen: number | null;
  /** Usable Gb/s of that slot after line coding. */
  slotGbps: number;
  /** The port speed it is compared with, in Mb/s. */
  portMbps: number;
  /** The words or output line that named the slot. */
  line: string;
}

interface Slot {
  lanes: number;
  gen: number | null;
  at: number;
  line: string;
}

// dmidecode: "Type: x4 PCI Express 2", "Type: x8 PCI Express 3 x16" (the first width is the slot's lanes; no number is Gen1).
const DMIDECODE = /\bType:\s{1,8}x(\d{1,2}) PCI Express(?: (\d))?\b/g;
const PCIE = String.raw`(?:PCI[- ]?E(?:xpress)?|PCIe)`;
const SLOT = String.raw`(?:slot|插槽|槽|riser|转接卡|轉接卡)`;
// "PCIe 2.0 x4 slot", "PCI-E x1 插槽", "PCIe Gen2 x8 slot", "an x4 PCIe slot", "x1 PCIe 2.0 riser".
const WORDS = [
  new RegExp(String.raw`${PCIE}\s?(?:(?:Gen\s?|v)?(\d)(?:\.\d)?\s?)?[x×](\d{1,2})\s?${SLOT}`, 'gi'),
  new RegExp(String.raw`(?<!\w)[x×](\d{1,2})\s?${PCIE}\s?(?:(?:Gen\s?|v)?(\d)(?:\.\d)?\s?)?${SLOT}`, 'gi'),
];
// A generation said near the slot: "2.0 版本", "PCIe 2.0", "Gen2".
const NEAR_GEN = new RegExp(String.raw`(?:${PCIE}\s?(\d)\.0|Gen\s?(\d)\b|(\d)\.0\s?版本)`, 'i');
// The card's speed said near the slot: "10G 網卡", "a 40G NIC", "25GbE card".
const NEAR_PORT = /(?<![\d.])(\d{1,3}(?:\.5)?)\s?(?:G|Gb|GbE|Gbps|Gbit)\s?(?:网卡|網卡|NIC|card|adapter|Ethernet)/i;
const PORT_SPEEDS_GBPS = new Set([10, 25, 40, 50, 100, 200, 400]);
/** How far either side of a slot a generation or card speed counts as said of it. */
const NEAR = 200;
/** Guesses and advice do not place a card ("if you put it in an x4 slot", "use an x8 slot"). */
const HEDGE = /\b(?:if|should|would|could|might|recommend\w*|need\w*|requires?|use an?|put it in|must)\b[^.!?\n]{0,60}$/i;

function usableGbps(lanes: number, gen: number): number {
  const rate = GEN_RATE[gen] ?? GEN_RATE[ASSUMED_GEN]!;
  const perLane = rate >= 8 ? rate * (128 / 130) : rate * 0.8;
  return Number((perLane * lanes).toFixed(2));
}

function slotsOf(text: string): Slot[] {
  const slots: Slot[] = [];
  for (const match of text.matchAll(DMIDECODE))
    slots.push({ lanes: Number(match[1]), gen: match[2] ? Number(match[2]) : 1, at: match.index, line: match[0] });
  for (const [index, pattern] of WORDS.entries())
    for (const match of text.matchAll(pattern)) {
      if (HEDGE.test(text.slice(Math.max(0, match.index - 80), match.index))) continue;
      const [lanes, gen] = index === 0 ? [match[2], match[1]] : [match[1], match[2]];
      const near = text.slice(Math.max(0, match.index - NEAR), match.index + match[0].length + NEAR);
      const said = NEAR_GEN.exec(near);
      const genSaid = gen ?? said?.[1] ?? said?.[2] ?? said?.[3];
      slots.push({ lanes: Number(lanes), gen: genSaid ? Number(genSaid) : null, at: match.index, line: match[0] });
    }
  return slots.filter((slot) => WIDTHS.has(slot.lanes) && (slot.gen === null || GEN_RATE[slot.gen] !== undefined));
}

/**
 * The slot below its card's port, or null. The port speed is the card's said beside the slot
 * ("a PCI-E x8 10G 網卡 in the x1 slot"), else `statedPortMbps` (the ticket's one stated link speed).
 * Slots of different widths named: null (the ticket compares slots, and which holds the NIC is unsaid).
 */
export function readSlotLimit(text: string, statedPortMbps: number | null): SlotLimit | null {
  const flat = text.slice(0, MAX_CHARS);
  const slots = slotsOf(flat);
  if (slots.length === 0 || new Set(slots.map((slot) => slot.lanes)).size !== 1) return null;
  // The same slot said several times, its generation in some of them: the fastest said counts.
  const gens = slots.map((slot) => slot.gen).filter((gen) => gen !== null);
  const slot = { ...slots[0]!, gen: gens.length ? Math.max(...gens) : null };
  const near = flat.slice(Math.max(0, slot.at - NEAR), slot.at + slot.line.length + NEAR);
  const saidGbps = Number(NEAR_PORT.exec(near)?.[1] ?? Number.NaN);
  const portMbps = PORT_SPEEDS_GBPS.has(saidGbps) ? saidGbps * 1000 : statedPortMbps;
  if (portMbps === null || portMbps < 10_000) return null;
  const slotGbps = usableGbps(slot.lanes, slot.gen ?? ASSUMED_GEN);
  return slotGbps * 1000 < portMbps ? { lanes: slot.lanes, gen: slot.gen, slotGbps, portMbps, line: slot.line } : null;
}
