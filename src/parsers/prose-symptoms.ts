/**
 * What a ticket's own words say it observed, where no output shows it: every received packet on
 * one receive queue ("the 710 puts it all on one queue", "all traffic lands on rx queue 0", "only
 * one RX queue is used"). Each pattern is a short bounded token sequence and the text is capped, so
 * the cost is linear in it.
 */

const MAX_CHARS = 200_000;

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
  const text = prose.slice(0, MAX_CHARS).replace(/\s+/g, ' ');
  for (const pattern of PATTERNS) {
    const match = pattern.exec(text);
    if (match && !NEGATED.test(text.slice(Math.max(0, match.index - 40), match.index))) return true;
  }
  return false;
}
