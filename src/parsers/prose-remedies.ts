/**
 * What a ticket's own words say cured the problem, as the poster tested it: "enabled flow control
 * on the switch and bravo, it works", "with FC on at both ends all is good again", "turning on
 * pause frames fixed it". A report of the poster's own before-and-after test, so it is evidence a
 * NIC engineer takes at its word. Each pattern is bounded and lines are capped: linear in the text.
 */

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
    const start = Math.max(0, text.lastIndexOf('.', match.index) + 1, match.index - WINDOW / 2);
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

/**
 * The ticket's words point at the frame size: the poster says changing the MTU or MSS (or allowing
 * jumbo frames on the switch) cured the problem, or says the network runs jumbo frames while the
 * largest frame that passes is far smaller.
 */
export function statedMtuEvidence(prose: string): boolean {
  const text = flat(prose);
  for (const match of text.matchAll(MTU_WORDS)) {
    const start = Math.max(0, match.index - WINDOW / 2);
    const around = text.slice(start, match.index + match[0].length + WINDOW);
    if (RESIZED.test(text.slice(start, match.index + match[0].length + 60)) && CURED.test(around)) return true;
  }
  if (!JUMBO_NETWORK.test(text)) return false;
  for (const match of text.matchAll(LARGEST_PASSING)) if (Number(match[1]) < 8000) return true;
  return false;
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
