/**
 * What a ticket's own words say it observed, where no output shows it: every received packet on
 * one receive queue ("the 710 puts it all on one queue", "only one RX queue is used"), the receive
 * work on one CPU ("all NIC interrupts are routed to cpu0", "ksoftirqd/23 is 100% si"), and a link
 * that comes up below its capability ("negotiates to 10Mbps on gigabit networks"). Each pattern is
 * a short bounded token sequence and the text is capped, so the cost is linear in it.
 */

import { indexWithin, lastIndexWithin } from './text.js';

const MAX_CHARS = 200_000;

/** The prose capped and on one line: wrapped sentences read as written. */
function flatProse(prose: string): string {
  return prose.slice(0, MAX_CHARS).replace(/\s+/g, ' ');
}

const QUEUE = String.raw`(?:rx |receive |hardware |nic |rss )?queues?`;
const ONE = String.raw`(?:one|a single|the same|only one|just one|a sole)`;
const PATTERNS = [
  // "puts it all on one queue", "all traffic goes to a single queue", "everything lands in the same rx queue".
  new RegExp(
    String.raw`\b(?:all|everything|every packet|all (?:the )?(?:traffic|packets|flows))\b[^.\n]{0,30}?\b(?:on|to|into|in|onto)\s${ONE}\s${QUEUE}\b`,
    'i',
  ),
  // "only one RX queue is used", "just a single queue receives anything".
  new RegExp(
    String.raw`\b(?:only|just) (?:one|a single) ${QUEUE}\b[^.\n]{0,20}?\b(?:is |are |gets? |being )?(?:used|active|receives?|takes?|gets)\b`,
    'i',
  ),
  // "queue 0 gets all the traffic", "rx_queue_0 takes everything".
  new RegExp(
    String.raw`\b(?:rx[_ ]?)?queue[_ ]?0\b[^.\n]{0,20}?\b(?:gets?|takes?|receives?|handles?|carries|has)\b[^.\n]{0,10}?\b(?:all|everything|every packet)\b`,
    'i',
  ),
];
/** "not all on one queue", "no longer ... one queue": the poster says it is not so. */
const NEGATED = /\b(?:not|no longer|never|isn't|aren't|wasn't|instead of|rather than)\b[^.\n]{0,20}$/i;

/** The ticket says every received packet (of the traffic in question) lands on one receive queue. */
export function statedSingleQueue(prose: string): boolean {
  return statesAny(PATTERNS, prose);
}

/** Whether one of the patterns matches the prose where the poster does not deny it just before. */
function statesAny(patterns: readonly RegExp[], prose: string): boolean {
  const text = flatProse(prose);
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match && !NEGATED.test(text.slice(Math.max(0, match.index - 40), match.index))) return true;
  }
  return false;
}

const CPU = String.raw`(?:cpu|core|processor|vcpu)s?`;
const ONE_CPU = String.raw`(?:(?:a single|one|the same|only one|just one|the first)\s${CPU}|${CPU}\s?#?0\b)`;
const IRQ_PATTERNS = [
  // "All NIC interrupts are routed to cpu0", "every queue's IRQ lands on one core".
  new RegExp(
    String.raw`\b(?:all|every)\s(?:of\s)?(?:the\s)?(?:[\w'/-]+\s){0,3}(?:interrupts?|irqs?|softirqs?|hardirqs?)\b[^.\n]{0,40}?\b(?:on|to|onto|by|in)\s${ONE_CPU}`,
    'i',
  ),
  // "all RX processing on single interrupt CPU", "all the receive work on one core".
  new RegExp(
    String.raw`\b(?:all|every)\s(?:of\s)?(?:the\s)?(?:rx|receive|packet|network|softirq|napi|interrupt)\s(?:processing|work|handling|load)\b[^.\n]{0,40}?\b(?:on|to|onto|by|in)\s(?:a\s|the\s)?(?:single|one|same)\s(?:[\w-]+\s)?${CPU}\b`,
    'i',
  ),
  // "ksoftirqd/23 is 100% si", "ksoftirqd/0 at 99 %".
  /\bksoftirqd\/\d{1,4}\b[^.\n]{0,30}?\b(?:100|9\d)(?:\.\d)?\s?%/i,
  // "one core at 100% si", "a single CPU pegged at 100% in softirq".
  new RegExp(
    String.raw`\b(?:one|a single|just one|only one)\s${CPU}\b[^.\n]{0,40}?\b(?:100|9\d)(?:\.\d)?\s?%\s?(?:si|softirq|soft irq|hi|irq)\b`,
    'i',
  ),
];

/**
 * The ticket says the receive work lands on one CPU: "All NIC interrupts are routed to cpu0",
 * "ksoftirqd/23 is 100% si", "one core at 100% softirq". What it does not tell: whether the
 * interrupts were pinned there or the NIC has one queue in use (the rule says both).
 */
export function statedInterruptConcentration(prose: string): boolean {
  return statesAny(IRQ_PATTERNS, prose);
}

/**
 * The ticket says the link comes up below what it can do: "negotiates to 10Mbps ... on 1000Mbps
 * networks", "connected to a 2.5G port it shows 1G", "cannot get over 1Gbps link speed ... 5Gbps
 * connectivity verified". Two kinds of speed are read from the same sentences:
 * - **negotiated**: a speed after a link verb (negotiates, links at, comes up at, falls back to),
 *   after "shows"/"displays" with a link word shortly before, or before "link speed". "Stuck at",
 *   "capped at" and "cannot get over" are left out: they are said of throughput as often;
 * - **capable**: a speed before a port, network, switch, partner or card noun ("2.5G port",
 *   "1000Mbps and 100Mbps networks"), a Gigabit device name, or a speed the link "should" reach.
 * A downshift is the lowest negotiated speed below the highest capable one, unless something on
 * the path is said to be capable of just that speed ("a 1G switch": the link came up right). A
 * text that also says the link came up at the capable speed (before a regression or after a fix)
 * still states a downshift; a rate ("940 Mbits/sec") is never a link speed, and a sentence about
 * throughput or a copy is not about the link.
 */
export interface StatedDownshift {
  negotiatedMbps: number;
  capableMbps: number;
}

const LINK_RATES_MBPS = new Set([10, 100, 1000, 2500, 5000, 10_000, 25_000, 40_000, 50_000, 100_000, 200_000, 400_000]);
// A number and its unit; "/sec" is iperf's rate column, never a link's speed.
/** A number and its unit; "/sec" is iperf's rate column, never a link's speed. Captures: number, megabit unit, gigabit unit. */
function speedPattern(capture: boolean): string {
  const group = capture ? '(' : '(?:';
  return String.raw`(?<![\d.,])${group}\d{1,6}(?:[.,]5)?)\s?(?:${group}Mb(?:ps|its?(?:\/s)?|\/s)?|M(?:bit)?|Megabits?|base-?T\w*)|${group}Gb(?:ps|its?(?:\/s)?|\/s|E)?|G(?:ig(?:abit)?|bit|BASE-?\w{1,4})?|GigE|Gigabits?))(?!\w|\/sec|its\/sec)`;
}
const SPEED = speedPattern(true);
const SPEED_LISTED = speedPattern(false);
// Words after a link verb before its speed: "negotiates to a 10mbps", "comes up at only 100M".
const LINK_FILLER = String.raw`(?:\s(?:at|to|with|as|on|a|an|only|always|just|back|down|up|in|the|of|speed|is|was|now|still|stuck|set|currently|its|full))*\s?`;
// Verbs only a link does: "negotiates to 10Mbps", "links at 1G", "came up at 100Mb/s", "falls back to 1G".
const LINK_VERB = String.raw`(?:negotiat\w*|links?(?: up)?|linked(?: up)?|linking|connects?|connected|connecting|c[oa]mes? up|syncs?|synced|falls? back|fell back|downgrad\w*|downshift\w*|detected as|协商(?:为|到|成)?|降为|降到|识别(?:为|成)|认成|默认(?:在|为|成)|停(?:留)?在|工作在)`;
// Verbs that give a device the speed it was found at ("detected as a 1000M card"); not "links"
// or "connects", whose noun after may be the partner ("connects to a 1G switch").
const AFTER_LINK_VERB =
  /(?:(?:detected|recogni[sz]ed|identified|shows? up|showing up) as|negotiat\w* (?:to|at|as)|falls? back to|fell back to|识别(?:为|成)|认成)(?:\s(?:a|an|only|just|the))*\s?$/i;
// Verbs a throughput takes too ("iperf shows 1 Gbps"): a link's only when a link word comes shortly before.
const SHOW_VERB = String.raw`(?:shows?(?: up)?(?: as)?|showing|displays?|reports?|runs?|running|ran|stuck|capped|limited|locked|is|was|(?:only )?(?:gets?|getting|got|have|has|having)|显示|变成|只有)`;
// Those verbs name a link's speed only in a sentence about the link, not about the throughput.
const LINK_WORDS =
  /\b(?:link|speed|ethtool|port|interface|NIC|adapter|card|switch|negotiat\w*|duplex|gigabit|connection)\b|网卡|端口|网口|连接/i;
const RATE_WORDS =
  /\b(?:throughput|bandwidth|iperf3?|transfers?|copy|copies|copying|download\w*|upload\w*|goodput|Mbits\/sec|Gbits\/sec|MB\/s|file|files|speedtest|ISP|provider|internet|broadband|subscription|WAN)\b/i;
/** A speed in a sentence that is about the link (and not the rate of a test or a copy). */
function aboutTheLink(sentence: string): boolean {
  return LINK_WORDS.test(sentence) && !RATE_WORDS.test(sentence);
}
const NEGOTIATED_AFTER = [
  // "a 1G link on a 2.5G port", "a 100 Mbps connection" (not "the 1GbE link was the bottleneck": no article or verb of getting).
  String.raw`\s?(?:link|connection)\b(?! (?:was|is) the (?:bottleneck|limit))`,
  // "1Gbps link speed", "100M full duplex" (not "the 1GbE link was the bottleneck": that names a link, not what it negotiated).
  String.raw`\s?(?:link speed|full[ -]duplex|half[ -]duplex)\b`,
];
const CAPABLE_NOUN = String.raw`(?:[\s-](?:capable\s)?(?:port|ports|network|networks|switch|switches|partner|card|cards|NIC|NICs|adapter|adapters|connectivity|uplink|router|modem|interface|interfaces|capable|ready)\b|的?(?:端口|网口|网卡|交换机|接口))`;
// "supports 2.5G", "should link at 10G", "rated for 5Gbps", "is a 10G port" (noun above).
const CAPABLE_BEFORE = String.raw`(?:supports?|supported|should(?: be| have| link| negotiate| connect| run| come up| sync)*(?: at| to| as)?|expected(?: to \w+)?(?: at)?|capable of|rated (?:for|at)|up to|instead of|rather than|not|never|(?:port|switch|NIC|card|network|partner|other end|both ends|router|adapter)(?: port)? (?:is|are|supports?|can do|does|runs at)(?: a| an)?)\s?`;
// "a gigabit switch", "both ends are gigabit": gigabit with no number before it is 1000 Mb/s.
const GIGABIT_WORD = /(?<![\d.,]\s?-?)\b(?:gigabit|GigE|GbE)\b(?!\s?(?:\/s|per))/gi;
const DEVICE_GIGABIT = /\b(?:(\d{1,3})[- ]?)?Gigabit (?:Network|Ethernet|Server|Adapter|Controller|Connection)/gi;
const NEGATION = /\b(?:not|never|no longer|won't|doesn't|didn't|isn't|wasn't|can't|cannot|should|would|could)\s(?:\w+\s){0,2}$/i;
const CEILING_BEFORE = /\b(?:over|above|beyond|past|more than|faster than|higher than)\s$/i;
/** "maybe the link gets downgraded to 100Mb", "if it falls back to 1G": a guess, not an observation. */
const HEDGE = /\b(?:maybe|perhaps|possibl[ey]|might|may|suspect\w*|suspicious|if|whether|wonder\w*|in case|could it)\b[^.!?]{0,40}$/i;

function speedMbps(match: RegExpMatchArray): number | null {
  const value = Number(match[1]!.replace(',', '.'));
  const mbps = match[3] !== undefined ? value * 1000 : value;
  return LINK_RATES_MBPS.has(mbps) ? mbps : null;
}

/**
 * Chinese names a link speed by its order of magnitude: 百兆 (100M), 千兆 (gigabit), 万兆 (10G), and
 * "2500兆". They are written as the speeds the patterns read ("被默认在千兆状态" is "defaulted to 1000M").
 */
function withArabicSpeeds(text: string): string {
  return text
    .replace(/百兆/g, '100M')
    .replace(/千兆/g, '1000M')
    .replace(/万兆/g, '10G')
    .replace(/(\d)\s?兆/g, '$1M');
}

/** Speeds the text's outputs show, added to what its words state (the Speed: ethtool printed, a NIC model's only speed). */
export interface ObservedSpeeds {
  negotiatedMbps?: number | null;
  capableMbps?: number | null;
}

/**
 * The downshift the prose (and device names in the text) states, or null. `observed` adds what the
 * outputs show: "Speed: 100Mb/s" pasted under "the I350 is a gigabit card" is the same downshift
 * as the words "it links at 100M" would be.
 */
export function statedLinkDownshift(prose: string, deviceText = '', observed: ObservedSpeeds = {}): StatedDownshift | null {
  const text = withArabicSpeeds(flatProse(prose));
  const negotiated: number[] = [];
  const capable: number[] = [];
  const scan = (pattern: string, into: number[], negatable = false, context?: (text: string, at: number) => boolean) => {
    for (const match of text.matchAll(new RegExp(pattern, 'gi'))) {
      const speed = speedMbps(match);
      if (speed === null) continue;
      if (context && !context(text, match.index)) continue;
      const before = text.slice(Math.max(0, match.index - 30), match.index);
      // "should link at 10G", "doesn't negotiate 10G": the speed it does not reach is what it can do.
      if (negatable && HEDGE.test(text.slice(Math.max(0, match.index - 60), match.index))) continue;
      // ... but "cannot get over a 1Gbps link speed" names the speed it stays at.
      if (negatable && NEGATION.test(before) && !CEILING_BEFORE.test(before)) capable.push(speed);
      else into.push(speed);
    }
  };
  scan(String.raw`(?<!\w)${LINK_VERB}${LINK_FILLER}${SPEED}`, negotiated, true);
  scan(String.raw`(?<!\w)${SHOW_VERB}${LINK_FILLER}${SPEED}`, negotiated, true, (all, at) => aboutTheLink(sentenceAt(all, at)));
  // "speed is 100Mb/s", "link speed: 1000Mb/s" (not "max speed", "supported speed").
  scan(
    String.raw`(?<!(?:max|maximum|supported|rated|advertised|expected|top|full|partner)\s)\bspeed\s?(?:is|was|of|=|:|shows?|reads?)?\s?(?:only\s|just\s|now\s|still\s)?${SPEED}`,
    negotiated,
    true,
    (all, at) => aboutTheLink(sentenceAt(all, at)),
  );
  // "getting a 1G link", "a 100 Mbps connection": an article or verb of getting before, and a link sentence.
  for (const after of NEGOTIATED_AFTER)
    scan(
      String.raw`${SPEED}${after}`,
      negotiated,
      true,
      (all, at) =>
        aboutTheLink(sentenceAt(all, at)) &&
        (/\b(?:a|an|only|gets?|getting|got|have|has|with)\s$/i.test(all.slice(Math.max(0, at - 10), at)) ||
          /link speed|duplex/i.test(all.slice(at, at + 40))),
    );
  // "1000Mbps and 100Mbps networks": the first of a list before the noun (the highest counts).
  // ... but not the speed a link verb gave ("detected as a 1000M card", "识别为1000M网卡"): that is what it negotiated.
  const notNegotiated = (all: string, at: number) => !AFTER_LINK_VERB.test(all.slice(Math.max(0, at - 40), at));
  scan(String.raw`${SPEED}(?:\s?(?:and|or|\/|,)\s?${SPEED_LISTED})*${CAPABLE_NOUN}`, capable, false, notNegotiated);
  scan(String.raw`(?:and|or|\/|,)\s?${SPEED}${CAPABLE_NOUN}`, capable);
  scan(String.raw`(?<!\w)${CAPABLE_BEFORE}${SPEED}`, capable);
  for (const match of text.matchAll(GIGABIT_WORD)) if (aboutTheLink(sentenceAt(text, match.index))) capable.push(1000);
  for (const match of `${text} ${deviceText.slice(0, MAX_CHARS)}`.matchAll(DEVICE_GIGABIT))
    capable.push((match[1] ? Number(match[1]) : 1) * 1000);
  if (observed.negotiatedMbps) negotiated.push(observed.negotiatedMbps);
  if (observed.capableMbps) capable.push(observed.capableMbps);
  if (negotiated.length === 0 || capable.length === 0) return null;
  const negotiatedMbps = Math.min(...negotiated);
  const capableMbps = Math.max(...capable.filter((speed) => LINK_RATES_MBPS.has(speed)));
  // "connects at 1G to a 1G switch": a device on the path can do no more, so the link came up right.
  if (capable.includes(negotiatedMbps)) return null;
  return capableMbps > negotiatedMbps ? { negotiatedMbps, capableMbps } : null;
}

const FLAP_PATTERNS = [
  // "eth0 flaps abruptly", "the port keeps flapping", "link flap", "bouncing link".
  /\b(?:flap(?:s|ping|ped)?|flappy)\b/i,
  // "the interface went down, and came back up", "goes down and up again", "up and down all day".
  /\b(?:go(?:es)?|went|going)\s(?:down,?\s(?:and\s|then\s)?(?:(?:comes?|came)\s)?(?:back\s)?up|up\sand\sdown)\b/i,
  // "keeps dropping the link", "keeps losing carrier".
  /\bkeeps?\s(?:dropping|losing)\s(?:the\s|its\s)?(?:link|carrier|connection)\b/i,
  // "the link drops every few minutes", "link goes down randomly".
  /\blink\s(?:drops|is lost|goes down|went down|resets)\s(?:every|several times|repeatedly|randomly|intermittently|at random|from time to time)\b/i,
  // "keeps going down", "keeps dropping out".
  /\bkeeps?\s(?:going|dropping|falling)\s(?:down|out|offline)\b/i,
  // "loses link randomly", "losing carrier every few hours": lost again and again, not once.
  /\b(?:loses?|losing)\s(?:the\s|its\s)?(?:link|carrier)\b[^.!?]{0,30}?\b(?:randomly|every|repeatedly|again|several|intermittently|constantly|often|frequently|periodically|times)\b/i,
  // "drops and reconnects", "disconnects and reconnects every 30 seconds", "drops for a few seconds then comes back".
  /\b(?:drops?|disconnects?|goes down|went down)\b[^.!?]{0,30}?\b(?:and|then)\s(?:re-?connects?|comes back|came back|recovers?|returns)\b/i,
  // "the port is bouncing".
  /\b(?:link|port|interface|NIC|uplink)s?\s(?:is\s|keeps\s|are\s)?bounc(?:es|ing)\b/i,
];
// "flapping" is said of links, but also of routes and BGP sessions.
const NOT_A_LINK = /\b(?:route|routes|bgp|ospf|session|peer|neighbou?r|vrrp|carp|keepalived)\b[^.!?]{0,20}$/i;
const DENIED = /\b(?:no|not|never|without|stopped|no more|no longer|isn't|wasn't|doesn't|didn't|nor)\b[^.!?]{0,25}$/i;
// "disabling the LLDP agent with ethtool flaps the link": a reset the user's own change makes, not a fault.
const OWN_CHANGE = /\b(?:ethtool|enabl\w+|disabl\w+|toggl\w+|reconfigur\w+|restart\w*|reload\w*|ip link set|ifdown|ifup)\b[^.!?]{0,40}$/i;

/**
 * The ticket says the link goes down and comes back: "eth0 flaps abruptly", "the interface went
 * down, and came back up", "keeps dropping the link". A denial ("no link flaps"), a guess ("if it
 * flaps"), route or session flapping, and the reset a change of the user's own makes ("toggling
 * the LLDP agent with ethtool flaps the link") are not read.
 */
export function statedLinkFlapping(prose: string): boolean {
  const text = flatProse(prose);
  for (const pattern of FLAP_PATTERNS) {
    const global = new RegExp(pattern.source, 'gi');
    for (const match of text.matchAll(global)) {
      const before = text.slice(Math.max(0, match.index - 60), match.index);
      if (DENIED.test(before) || HEDGE.test(before) || NOT_A_LINK.test(before) || OWN_CHANGE.test(before)) continue;
      return true;
    }
  }
  return false;
}

// "huge amount of PCIe AER error spam", "dmesg is flooded with", "the message keeps coming every second".
const REPEATING =
  /\b(?:spam(?:s|med|ming|my)?|flood(?:s|ed|ing)?|(?:huge|large|massive|insane) (?:amount|number)s? of|tons of|thousands of|hundreds of|millions of|over and over|endlessly|constantly|continuously|non-?stop|keeps? (?:coming|repeating|printing|logging|appearing|showing up)|every (?:few )?(?:second|seconds|minute|minutes)|fill(?:s|ed|ing)? (?:up )?(?:the )?(?:log|logs|dmesg|journal|syslog|disk))\b/gi;
const LOG_WORDS = /\b(?:errors?|messages?|logs?|logged|dmesg|kernel|journal|syslog|AER|warnings?|lines?|entr(?:y|ies)|prints?|printed)\b/i;

/**
 * The ticket says the logged messages keep coming ("huge amount of PCIe AER error spam", "dmesg is
 * flooded with ..."): the lines pasted are an excerpt, so one pasted line stands for many. A denial
 * ("no more spam since the update") or a guess is not read.
 */
export function statedLogRepeats(prose: string): boolean {
  const text = flatProse(prose);
  for (const match of text.matchAll(REPEATING)) {
    const sentenceStart = Math.max(0, lastIndexWithin(text, '.', match.index, 120) + 1, match.index - 120);
    const sentence = text.slice(sentenceStart, Math.min(text.length, match.index + match[0].length + 80));
    const before = text.slice(Math.max(0, match.index - 60), match.index);
    if (!LOG_WORDS.test(sentence) || DENIED.test(before) || HEDGE.test(before)) continue;
    return true;
  }
  return false;
}

/** The sentence around a position of a flattened text (at most 200 characters each side). */
function sentenceAt(text: string, at: number): string {
  const start = Math.max(0, lastIndexWithin(text, '.', at, 200) + 1, at - 200);
  const stops = ['. ', '! ', '? ', '。'].map((stop) => indexWithin(text, stop, at, 200)).filter((index) => index >= 0);
  const end = Math.min(text.length, at + 200, ...stops);
  return text.slice(start, end);
}
