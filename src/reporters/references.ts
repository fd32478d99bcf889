import { CAUSE_TITLES } from '../domain/causes.js';
import { parseReference } from '../domain/references.js';

/**
 * A diagnosis reference as a report shows it. A URL (http/https only: the report may come from
 * another host, so nothing else becomes a link) is followed as it is; a cause of the catalogue
 * is named with the command that prints its page, since a report is read away from docs/.
 */
export interface ShownReference {
  text: string;
  url: string | null;
}

export function shownReferences(references: readonly string[]): ShownReference[] {
  return references.slice(0, 50).map((reference) => {
    const parsed = parseReference(reference);
    if (parsed.kind === 'url') return { text: parsed.url, url: parsed.url };
    if (parsed.kind === 'cause')
      return { text: `cause ${parsed.cause}, ${CAUSE_TITLES[parsed.cause]} (nicdoctor explain cause ${parsed.cause})`, url: null };
    return { text: reference, url: null };
  });
}
