import type { Report } from '../report/schema.js';
import { renderHtml } from './html.js';
import { renderJunit } from './junit.js';
import { renderPrometheus } from './prometheus.js';
import { renderMarkdown } from './markdown.js';
import { renderTerminal } from './terminal.js';

export const FORMATS = ['terminal', 'json', 'markdown', 'html', 'junit', 'prometheus'] as const;
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
    case 'html':
      return renderHtml(report);
    case 'junit':
      return renderJunit(report, report.policy);
    case 'prometheus':
      return renderPrometheus(report, report.policy);
  }
}
