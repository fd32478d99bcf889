import type { Report } from '../report/schema.js';
import { renderHtml } from './html.js';
import { renderJunit } from './junit.js';
import { renderPrometheus } from './prometheus.js';
import { renderMarkdown } from './markdown.js';
import { renderTerminal } from './terminal.js';
import { escapeStrings, inertMarkdown, visibleControls } from './escape.js';

export const FORMATS = ['terminal', 'json', 'markdown', 'html', 'junit', 'prometheus'] as const;
export type Format = (typeof FORMATS)[number];

export interface RenderOptions {
  color: boolean;
  verbose?: boolean;
  /** Terminal: the verdict and the diagnoses only. */
  short?: boolean;
}

/** Reporters are pure: report in, string out. */
export function render(report: Report, format: Format, options: RenderOptions): string {
  switch (format) {
    case 'json':
      return JSON.stringify(report, null, 2) + '\n';
    // Text from the evidence reaches a terminal, a ticket, a browser or a CI dashboard: in every
    // medium its control characters are shown, not obeyed; then each escapes for itself (escape.ts).
    case 'markdown':
      return inertMarkdown(renderMarkdown(escapeStrings(report, visibleControls)));
    case 'terminal':
      return renderTerminal(escapeStrings(report, visibleControls), options);
    case 'html':
      return renderHtml(escapeStrings(report, visibleControls));
    case 'junit':
      return renderJunit(escapeStrings(report, visibleControls), report.policy && escapeStrings(report.policy, visibleControls));
    case 'prometheus':
      return renderPrometheus(escapeStrings(report, visibleControls), report.policy && escapeStrings(report.policy, visibleControls));
  }
}
