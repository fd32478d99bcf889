/**
 * What a ticket's own words say cured the problem, as the poster tested it: "enabled flow control
 * on the switch and bravo, it works", "with FC on at both ends all is good again", "turning on
 * pause frames fixed it". A report of the poster's own before-and-after test, so it is evidence a
 * NIC engineer takes at its word. Each pattern is bounded and lines are capped: linear in the text.
 */

import { interfacesOfEthtoolCommands } from './ethtool-command-lines.js';
import { lastIndexWithin } from './text.js';

const MAX_LINES = 2000;
/** Context read around a mention: the sentence, and the next one (where "... and it works" often stands). */
const WINDOW = 240;

const FLOW_CONTROL = /\b(?:flow[ -]control|FC|pause frames?|802\.3x)\b/gi;
const TURNED_ON =
  /\b(?:enabl(?:e|ed|es|ing)|activat(?:e|ed|es|ing)|turn(?:ed|ing|s)?(?: \w{1,12}){0,2} on|switch(?:ed|ing|es)?(?: \w{1,12}){0,2} on)\b|\b(?:flow[ -]control|FC|pause frames?) (?:is |was |set |turned )?on\b/i;
const CURED =
  /(?<!\b(?:not|n't|never|no longer) )\b(?:it works|works (?:now|again|fine)|(?:is |are |all is |everything is )?(?:good|fine|normal|ok) (?:again|now)|fix(?:ed|es) (?:it|the (?:problem|issue))|solv(?:ed|es) (?:it|the (?:problem|issue))|(?:problem|issue) (?:is )?(?:gone|disappeared|went away)|all (?:was|is) (?:A?OK|good|fine|well)|bravo|restor(?:ed|es) (?:the )?(?:speed|throughput))/i;
/** "turning it off fixed it", "disabled flow control": the opposite cure. */
const TURNED_OFF = /\b(?:disabl(?:e|ed|ing)|turn(?:ed|ing)? (?:it |them )?off|switch(?:ed|ing)? (?:it |them )?off)\b/i;

/** The poster says turning flow control on cured the problem. */
export function statedFlowControlCure(prose: string): boolean {
  const text = flat(prose);
  for (const match of text.matchAll(FLOW_CONTROL)) {
    // The sentence around the mention: from the last full stop before it to WINDOW characters on.
    const start = Math.max(0, lastIndexWithin(text, '.', match.index, WINDOW / 2) + 1, match.index - WINDOW / 2);
    const around = text.slice(start, match.index + match[0].length + WINDOW);
    const before = text.slice(start, match.index + match[0].length + 40);
    if (TURNED_ON.test(before) && !TURNED_OFF.test(before) && CURED.test(around)) return true;
  }
  return false;
}

const MTU_WORDS = /\b(?:MTU|MSS|jumbo ?frames?|jumbos?|-M (?:flag|\d{3,4})|TCP-?MSS|mss[ -]clamp\w{0,3})\b/gi;
/** Changing the frame size: lowering the MTU or MSS, or allowing jumbo frames on the path. */
const RESIZED =
  /\b(?:reduc(?:e|ed|es|ing)|lower(?:ed|ing|s)?|decreas(?:e|ed|ing)|clamp(?:ed|ing|s)?|rais(?:e|ed|ing)|increas(?:e|ed|ing)|enabl(?:e|ed|es|ing)|allow(?:ed|ing|s)?|support(?:ed|ing|s)?|reconfigur(?:e|ed|ing)|set(?:ting)?|chang(?:e|ed|ing))\b/i;
// "I run 9k jumbo frames on my network", "switch at MTU 9000".
const JUMBO_NETWORK = /\b(?:9k|9000|9216|900[0-9]|jumbo ?frames?|jumbos)\b/i;
// "the largest frame I can send is 2030 bytes", "max ping size is 1472", "largest working MSS 1414".
const LARGEST_PASSING =
  /\b(?:largest|biggest|max(?:imum)?)\b[^\n.]{0,40}?\b(?:frame|packet|ping|payload|MSS|MTU|size)\b[^\n.]{0,40}?(?<![\d.])(\d{3,4})(?![\d.])/gi;

// "set eth0 mtu 9000", "mtu 9000", "jumbo frames": a jumbo size the poster set on this end.
const JUMBO_SET = /\b(?:mtu\s(?:9\d{3}|[4-8]\d{3})|(?:9\d{3}|[4-8]\d{3})\s?(?:byte )?mtu|jumbo ?frames?|jumbos)\b/gi;
// What breaks when one end sends frames the path does not carry: data stops arriving while the
// connection itself (small packets) still opens.
const DELIVERY_FAILS =
  /\b(?:(?:can ?not|can't|cannot|unable to|fail(?:s|ed)? to|no longer|doesn't|does not|won't|don't|do not) (?:receive|get|send|transfer|pass|deliver|arrive)\b(?! (?:more|faster|above|over|beyond|past|higher|better|the (?:full|expected)|line rate)\b)|(?:large|larger|big|bigger|full[- ]size)\s(?:packets?|frames?|messages?|payloads?|segments?|transfers?|quer(?:y|ies)|requests?|responses?|replies|files?|uploads?|downloads?)\b[^.]{0,40}?\b(?:lost|dropped|never arrive|not (?:received|delivered|arriving|pass(?:ing)?)|fail|hang|stall))/i;

/**
 * The ticket's words point at the frame size: the poster says changing the MTU or MSS (or allowing
 * jumbo frames on the switch) cured the problem; or says the network runs jumbo frames while the
 * largest frame that passes is far smaller; or set a jumbo MTU on this end, after which data (large
 * packets) stopped arriving, the way a peer or switch still at 1500 drops them.
 */
export function statedMtuEvidence(prose: string): boolean {
  const text = flat(prose);
  for (const match of text.matchAll(MTU_WORDS)) {
    const start = Math.max(0, match.index - WINDOW / 2);
    const around = text.slice(start, match.index + match[0].length + WINDOW);
    if (RESIZED.test(text.slice(start, match.index + match[0].length + 60)) && CURED.test(around)) return true;
  }
  for (const match of text.matchAll(JUMBO_SET)) {
    // What happened after the change: the failure follows the jumbo setting in the text.
    if (DELIVERY_FAILS.test(text.slice(match.index, match.index + match[0].length + WINDOW))) return true;
  }
  if (!JUMBO_NETWORK.test(text)) return false;
  for (const match of text.matchAll(LARGEST_PASSING)) if (Number(match[1]) < 8000) return true;
  return false;
}

// "interface MTU set to 8000, 8192, or 9000", "an MTU size of 9000 Bytes", "mtu=9000", "9000 MTU".
const MTU_VALUE =
  /\bMTU\b(?: (?:size|value|setting))?(?:\s?(?:of|to|=|:|is|was|at|set to|configured to|changed to))?\s?(\d{4})\b|\b(\d{4})[- ]?(?:bytes? )?MTU\b/gi;
// "supports MTU up to 9216", "max MTU 9000": what a device allows, not what this host runs.
const MTU_LIMIT = /\b(?:max(?:imum)?|up to|supports?|allows?|capable|limit)\b[^.\n]{0,20}$/i;

/**
 * The jumbo MTU the poster says the hosts run (1501-9216), the largest stated; null when the
 * words state none. A device's maximum ("supports MTU up to 9216") is not a setting.
 */
export function statedJumboMtu(prose: string): number | null {
  const text = flat(prose);
  let largest: number | null = null;
  for (const match of text.matchAll(MTU_VALUE)) {
    const mtu = Number(match[1] ?? match[2]);
    if (mtu <= 1500 || mtu > 9216) continue;
    if (MTU_LIMIT.test(text.slice(Math.max(0, match.index - 30), match.index))) continue;
    largest = Math.max(largest ?? 0, mtu);
  }
  return largest;
}

/** CPU power management by name: the P-state drivers, governors, energy hints, idle states. */
const POWER_MANAGEMENT =
  /\b(?:HWP|intel_pstate|amd[-_]pstate|acpi[-_]cpufreq|cpufreq|cpupower|governor|P-?states?|C-?states?|EPP|EPB|power[ -]?sav(?:ing|e)s?|frequency scaling|powersave|ondemand|schedutil|turbo)\b/gi;
/** Loading the CPUs on purpose (stress, a busy loop): the network faster then means cores clocked down or asleep. */
const FASTER_WHEN_BUSY =
  /\b(?:stress(?:ing|ed)?(?: \w{1,12}){0,3} CPUs?|CPU stress|busy[- ]loops?|keep(?:ing)? (?:the |all )?(?:CPUs?|cores?) busy|load(?:ing)? (?:the |all )?(?:CPUs?|cores?))\b/i;
const SWITCHED =
  /\b(?:disabl(?:e|ed|es|ing)|switch(?:ed|ing)?|set(?:ting)?|us(?:e|ed|ing)|chang(?:e|ed|ing)|forc(?:e|ed|ing)|turn(?:ed|ing)? off)\b/i;

/**
 * The ticket's words point at CPU power management: the network is faster while the CPUs are kept
 * busy, and the text speaks of P-states, governors or power saving; or the poster says changing
 * the governor or P-state driver (disabling HWP, the performance governor) cured it.
 */
export function statedCpuFrequencyEvidence(prose: string): boolean {
  const text = flat(prose);
  const mentions = [...text.matchAll(POWER_MANAGEMENT)];
  if (mentions.length === 0) return false;
  if (FASTER_WHEN_BUSY.test(text)) return true;
  for (const match of mentions) {
    const start = Math.max(0, match.index - WINDOW / 2);
    const around = text.slice(start, match.index + match[0].length + WINDOW);
    if (SWITCHED.test(text.slice(start, match.index + match[0].length + 60)) && CURED.test(around)) return true;
  }
  return false;
}

/** The prose as one line of single spaces: a mailer's 72-column wrap must not split a phrase. */
function flat(prose: string): string {
  return prose.split('\n').slice(0, MAX_LINES).join(' ').replace(/\s+/g, ' ');
}

/** Offloads by the names ethtool -k and posters use for them. */
export const OFFLOAD_WORDS =
  /\b(?:scatter[- ]?gather|sg(?= o(?:n|ff)\b)|TSO|GSO|GRO|LRO|UFO|USO|tx[- ]?checksum(?:ming)?|rx[- ]?checksum(?:ming)?|checksum(?:ming)? offloads?|(?:tcp |generic )?segmentation offloads?|receive offloads?)\b/gi;
/** Turning it on or off, by hand or with ethtool -K ("w/o TSO" in a list of test runs). */
const OFFLOAD_CHANGED =
  /\b(?:enabl(?:e|ed|es|ing)|disabl(?:e|ed|es|ing)|toggl(?:e|ed|es|ing)|turn(?:ed|ing|s)?(?: \w{1,12}){0,2} (?:on|off)|switch(?:ed|ing)?(?: \w{1,12}){0,2} (?:on|off)|ethtool -K|(?:tso|gso|gro|lro|sg|tx|rx)`? (?:on|off))\b|\bw\/o?(?=\s)/i;
/** The throughput moved a lot: the poster's own before-and-after test. */
const THROUGHPUT_MOVED =
  /(?<!\b(?:not|n't|never|no|cannot) )\b(?:(?:huge|big|massive|large|great|significant|nice) (?:performance |speed |throughput )?(?:boost|improvement|increase|gain|difference)|much (?:faster|better|higher)|(?:speeds?|sped) (?:it |things )?up|doubl(?:ed|es|ing)|(?:fully |can be )?saturat(?:ed|es|e)|max(?:es)? out|line rate|collaps(?:e|es|ed|ing)|tank(?:s|ed)?|plummet(?:s|ed)?|kill(?:s|ed)? (?:the )?(?:throughput|performance|speed))\b/i;

/** "did not help", "made no difference": the change was tried and moved nothing. */
const NO_EFFECT =
  /\b(?:(?:did(?:n't| not)|does(?:n't| not)|no) (?:help|change|difference|effect|improvement)|made no difference|same (?:result|speed|throughput))\b/i;

/**
 * The ticket's words say an offload decides the throughput: turning scatter-gather, TSO/GSO or
 * checksum offload on (or a broken one off) moved it a lot ("enabling scatter gather on the vif
 * gives a huge performance boost", "with TSO and GSO disabled the uplink can be fully saturated").
 */
export function statedOffloadEffect(prose: string): boolean {
  const text = flat(prose);
  for (const match of text.matchAll(OFFLOAD_WORDS)) {
    const start = Math.max(0, match.index - WINDOW / 2);
    const around = text.slice(start, match.index + match[0].length + WINDOW);
    const near = text.slice(Math.max(0, match.index - 60), match.index + match[0].length + 60);
    if (NO_EFFECT.test(around)) continue;
    if (OFFLOAD_CHANGED.test(near) && (THROUGHPUT_MOVED.test(around) || CURED.test(around))) return true;
  }
  return false;
}

const RING_WORDS =
  /\b(?:(?:rx |tx |receive |transmit |buffer |descriptor )?rings?(?: buffers?| sizes?| parameters)?|ring ?buffers?|descriptors?|ethtool -G|--set-ring)\b/gi;
const RAISED =
  /\b(?:increas(?:e|ed|es|ing)|rais(?:e|ed|es|ing)|chang(?:e|ed|es|ing)|bump(?:ed|ing|s)?|enlarg(?:e|ed|ing)|doubl(?:e|ed|ing)|max(?:ed|ing)? (?:out|them|it)|(?:to|at) (?:the )?max(?:imum)?|ethtool -G)\b/i;
const LOWERED = /\b(?:reduc(?:e|ed|es|ing)|lower(?:ed|ing|s)?|decreas(?:e|ed|ing)|shrink|shrunk|smaller)\b/i;
const RING_CURED = new RegExp(
  String.raw`${CURED.source}|\b(?:remov(?:es|ed)|eliminat(?:es|ed)|stopp(?:ed)|cured|helped|resolv(?:es|ed))\b (?:the |this |that )?(?:issue|problem|drops|discards|pause frames|it)\b|\b(?:drops|discards|errors|pause frames?) (?:stopped|went away|disappeared|are gone|fell|dropped to (?:0|zero))`,
  'i',
);
/**
 * The poster says raising the rings cured it: "changing buffer rings (from default 512) to the
 * maximum supported by the card (4096) removes the issue", "after ethtool -G eth0 rx 4096 the drops
 * stopped". The interfaces are those its `ethtool -G` commands name (none: the host's).
 */
export function statedRingCure(prose: string, wholeText = ''): { interfaces: string[] } | null {
  const text = flat(prose);
  let cured = false;
  for (const match of text.matchAll(RING_WORDS)) {
    const start = Math.max(0, lastIndexWithin(text, '.', match.index, WINDOW / 2) + 1, match.index - WINDOW / 2);
    const around = text.slice(start, match.index + match[0].length + WINDOW);
    const before = text.slice(start, match.index + match[0].length + 60);
    if (RAISED.test(before) && !LOWERED.test(before) && RING_CURED.test(around)) {
      cured = true;
      break;
    }
  }
  if (!cured) return null;
  return { interfaces: interfacesOfEthtoolCommands(`${prose}\n${wholeText}`, ['-G', '--set-ring']) };
}

/** Settings a poster raises, by the cause a cure of theirs points at. */
export const SETTING_CURES = ['backlog', 'socketBuffers', 'queues'] as const;
export type SettingCure = (typeof SETTING_CURES)[number];
const SETTING_WORDS: Record<SettingCure, RegExp> = {
  backlog: /\b(?:net\.core\.)?netdev_max_backlog\b|\b(?:input |softnet |netdev )backlog\b/gi,
  socketBuffers:
    /\b(?:net\.core\.)?(?:rmem_max|wmem_max|rmem_default|wmem_default)\b|\b(?:net\.ipv4\.)?tcp_[rw]mem\b|\b(?:socket|receive|send|TCP) buffers?(?: sizes?)?\b|\bSO_(?:RCV|SND)BUF\b/gi,
  queues: /\b(?:(?:rx|tx|combined|receive|RSS) (?:queues|channels)|number of (?:queues|channels)|ethtool -L|--set-channels)\b/gi,
};
// "the answer has been to increase ...", "the fix was to raise ...": the cure named before the setting.
const CURE_LEAD =
  /\b(?:answer|fix|solution|cure|remedy)\b[^.]{0,30}?\b(?:was|is|has (?:actually |finally )?been|turned out to be)\b[^.]{0,12}?\bto\b/i;

/**
 * The settings the poster says raising cured it: "the answer here has been to increase
 * netdev_max_backlog" (backlog), "bumping rmem_max and tcp_rmem fixed it" (socketBuffers),
 * "after ethtool -L combined 8 the drops stopped" (queues). A setting tried to no effect ("raising
 * netdev_budget did not help") or lowered is not a cure.
 */
export function statedSettingCures(prose: string): Record<SettingCure, boolean> {
  const text = flat(prose);
  const cured = { backlog: false, socketBuffers: false, queues: false };
  for (const setting of SETTING_CURES) {
    for (const match of text.matchAll(SETTING_WORDS[setting])) {
      const start = Math.max(0, lastIndexWithin(text, '.', match.index, WINDOW / 2) + 1, match.index - WINDOW / 2);
      const before = text.slice(start, match.index + match[0].length);
      const around = text.slice(start, match.index + match[0].length + WINDOW / 2);
      const raised = RAISED.test(before) && !LOWERED.test(before);
      if (raised && !NO_EFFECT.test(around) && (RING_CURED.test(around) || CURE_LEAD.test(before))) {
        cured[setting] = true;
        break;
      }
    }
  }
  return cured;
}

/** The settings a poster may say they tried without effect. */
export const TRIED_SETTINGS = ['offloads', 'rings', 'flowControl', 'mtu'] as const;
export type TriedSetting = (typeof TRIED_SETTINGS)[number];
const TRIED_WORDS: Record<TriedSetting, RegExp> = {
  offloads: OFFLOAD_WORDS,
  rings: RING_WORDS,
  flowControl: /\b(?:flow[ -]control|pause frames?|802\.3x)\b/gi,
  mtu: /\b(?:jumbo(?: frames?| MTU)?|MTU)\b/gi,
};
/** "tried disabling TSO ...", "I also turned off GRO", "played with the ring sizes": a test of the setting. */
const TRIED =
  /\b(?:tried|tries|trying|tested|attempted|played with|experimented with|also (?:disabled|enabled|turned|set|changed|raised|increased))\b/i;
/** "... but no luck", "nothing changed", "without any effect", and the no-effect phrases of NO_EFFECT. */
const NO_LUCK =
  /\b(?:no luck|nothing changed|(?:no|without (?:any )?)(?:success|effect|change|improvement)|to no avail|same (?:results?|speed|throughput|numbers?)|no better|still (?:the same|stuck|capped|limited))\b/i;

/**
 * The settings the poster says they changed as a test that moved nothing ("Also tried disabling
 * TSO and LRO, enabling Jumbo MTU, but no luck"): such a setting is the poster's experiment, not
 * the cause, and its state in the pasted output is the experiment's, not the configuration to fix.
 */
export function statedTriedWithoutEffect(prose: string): Record<TriedSetting, boolean> {
  const text = flat(prose);
  const tried = { offloads: false, rings: false, flowControl: false, mtu: false };
  for (const setting of TRIED_SETTINGS) {
    for (const match of text.matchAll(TRIED_WORDS[setting])) {
      // The sentence of the mention: from its last full stop to the next one (or a window on).
      const start = Math.max(0, lastIndexWithin(text, '.', match.index, WINDOW / 2) + 1, match.index - WINDOW / 2);
      const stop = text.indexOf('.', match.index + match[0].length);
      const sentence = text.slice(start, stop < 0 ? match.index + WINDOW / 2 : Math.min(stop, match.index + WINDOW / 2));
      if (TRIED.test(sentence) && (NO_LUCK.test(sentence) || NO_EFFECT.test(sentence))) {
        tried[setting] = true;
        break;
      }
    }
  }
  return tried;
}
