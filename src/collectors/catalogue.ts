import type { Collector, FactReads } from '../contracts/collector.js';
import { collectors } from './index.js';

/**
 * The fact catalogue: every fact with its scope, what it reads and how each input holds it, built
 * from the collectors' own declarations (`reads`), so the page (docs/facts.md), the commands a
 * report asks for and the conformance test (test/collectors/fact-catalogue.test.ts) cannot drift
 * from the code that reads the host.
 */

/** The input modes, in the order a reader meets them. */
export const INPUT_MODES = ['live', 'collect', 'script', 'sosreport', 'text'] as const;
export type InputMode = (typeof INPUT_MODES)[number];

export const INPUT_MODE_TITLES: Record<InputMode, string> = {
  live: '`nicdoctor scan` (live host)',
  collect: '`nicdoctor collect` (snapshot)',
  script: '`nicdoctor collect --script` (POSIX sh)',
  sosreport: 'sosreport',
  text: 'pasted text',
};

export interface CatalogueEntry {
  id: string;
  scope: Collector['scope'];
  description: string;
  reads: FactReads;
  /** How each input mode holds the fact, in words. */
  modes: Record<InputMode, string>;
}

const quoted = (items: readonly string[]) => items.map((item) => `\`${item}\``).join(', ');

function liveWords(reads: FactReads): string {
  const parts: string[] = [];
  if (reads.commands?.length) parts.push(`runs ${quoted(reads.commands)}`);
  if (reads.files?.length) parts.push(`reads ${quoted(reads.files)}`);
  return parts.join('; ') || 'reads nothing from the host';
}

function modeWords(reads: FactReads, mode: InputMode): string {
  const never = mode === 'live' || mode === 'collect' ? undefined : reads.never?.[mode];
  if (never) return `never: ${never}`;
  switch (mode) {
    case 'live':
      return liveWords(reads);
    case 'collect':
      return 'the same reads, recorded into the snapshot and replayed by `analyze`';
    case 'script':
      return 'the same commands and files, recorded by the script into the snapshot layout';
    case 'sosreport':
      return "sos's copies of the same commands and files; a value sos keeps in another output is derived from it, anything else is not captured";
    case 'text':
      return reads.ask ? `the pasted output of \`${reads.ask}\`` : 'nothing a person pastes carries it';
  }
}

export function catalogueEntry(collector: Collector): CatalogueEntry {
  const modes = Object.fromEntries(INPUT_MODES.map((mode) => [mode, modeWords(collector.reads, mode)])) as Record<InputMode, string>;
  return { id: collector.id, scope: collector.scope, description: collector.description, reads: collector.reads, modes };
}

export function factCatalogue(list: readonly Collector[] = collectors): CatalogueEntry[] {
  return list.map(catalogueEntry).sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * The commands to ask a customer to paste, by fact: only facts whose output pasted text can
 * carry (no `never.text`), per interface (`<if>` filled in) or per host.
 */
export function pastedTextAsks(list: readonly Collector[] = collectors): {
  perInterface: Record<string, (iface: string) => string>;
  perHost: Record<string, string>;
} {
  const perInterface: Record<string, (iface: string) => string> = {};
  const perHost: Record<string, string> = {};
  for (const collector of list) {
    const { ask, never } = collector.reads;
    if (!ask || never?.text) continue;
    if (collector.scope === 'interface') perInterface[collector.id] = (iface) => ask.replaceAll('<if>', iface);
    else perHost[collector.id] = ask;
  }
  return { perInterface, perHost };
}

/** Characters of a template that stand for themselves in the pattern. */
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A declared read as a pattern matching the source the store records (`ethtool -g eth0`,
 * `/sys/class/net/eth0/mtu`), with `<if>` standing for the subject.
 */
export function readPattern(template: string, subject: string): RegExp {
  const parts = template.split(/(<if>|<pci>|<n>|\*\*|\*)/);
  const body = parts
    .map((part) => {
      switch (part) {
        case '<if>':
          return escapeRegex(subject);
        case '<pci>':
          return '[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]';
        case '<n>':
          return '\\d+';
        case '**':
          return '.+';
        case '*':
          return '[^/ ]+';
        default:
          return escapeRegex(part);
      }
    })
    .join('');
  return new RegExp(`^${body}$`);
}
