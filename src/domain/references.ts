import { CAUSE_IDS } from './causes.js';
import { causeAnchor, CAUSES_PAGE } from './cause-catalogue.js';

/**
 * What a rule's or known issue's `references:` entry may be: a web address (http/https) or a
 * cause of the project's own catalogue, written `docs/causes.md#cause-<n>`. Anything else is
 * rejected, so that every reference a report shows can be followed.
 */
export type Reference = { kind: 'url'; url: string } | { kind: 'cause'; cause: number; path: string; anchor: string };

const CAUSE_REFERENCE = /^docs\/causes\.md#cause-(\d{1,3})$/;

export function parseReference(text: string): Reference | { kind: 'invalid'; reason: string } {
  const cause = CAUSE_REFERENCE.exec(text);
  if (cause) {
    const id = Number(cause[1]);
    if (!CAUSE_IDS.includes(id)) return { kind: 'invalid', reason: `there is no cause ${id} (causes are 1-${CAUSE_IDS.length})` };
    return { kind: 'cause', cause: id, path: CAUSES_PAGE, anchor: causeAnchor(id) };
  }
  if (/^https?:\/\//.test(text)) {
    try {
      const url = new URL(text);
      if (url.hostname.includes('.') && !/\s/.test(text)) return { kind: 'url', url: url.href };
    } catch {
      // falls through to the message below
    }
    return { kind: 'invalid', reason: 'not a valid web address' };
  }
  return { kind: 'invalid', reason: `a reference is a URL (https://…) or a cause anchor (${CAUSES_PAGE}#cause-<n>)` };
}

export function causeReference(id: number): string {
  return `${CAUSES_PAGE}#${causeAnchor(id)}`;
}
