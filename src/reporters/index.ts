import type { Report } from '../report/schema.js';
import { renderMarkdown } from './markdown.js';
import { renderTerminal } from './terminal.js';

export const FORMATS = ['terminal', 'json', 'markdown'] as const;
export type Format = (typeof FORMATS)[number];

export interface RenderOptions {
  color: boolean;
  verbose?: boolean;
}

/** Reporters are pure: report in, string out. */
export function render(report: Report, format: Format, options: RenderOptions): string {
  switch (format) {
    case 'json':
      return JSON.stringify(report, null, 2) + '\n';
    case 'markdown':
      return renderMarkdown(report);
    case 'terminal':
      return renderTerminal(report, options);
  }
}
