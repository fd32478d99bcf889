import { defineCollector } from '../contracts/collector.js';
import { FactCollectionError, ParseError } from '../contracts/facts.js';
import { parseIperf3Version, type Iperf3Version } from '../parsers/iperf3-version.js';

export type { Iperf3Version } from '../parsers/iperf3-version.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    'iperf3.version': Iperf3Version;
  }
}

const ARGV = ['iperf3', '-v'];

export const iperf3VersionCollector = defineCollector({
  id: 'iperf3.version',
  scope: 'host',
  description: 'Installed iperf3 version and build features (`iperf3 -v`)',
  reads: { commands: ['iperf3 -v'], ask: 'iperf3 --version' },
  async collect(ctx) {
    const result = await ctx.exec(ARGV, { timeoutMs: 5_000 });
    if (result.exitCode === 0) return parseIperf3Version(result.stdout);
    // Some builds print the version and then exit 1 for -v: the output is what counts.
    try {
      return parseIperf3Version(result.stdout);
    } catch (error) {
      if (!(error instanceof ParseError)) throw error;
    }
    const said = `${result.stderr}\n${result.stdout}`
      .split('\n')
      .map((line) => line.trim())
      .find(Boolean);
    throw new FactCollectionError('failed', `\`${ARGV.join(' ')}\` exited with ${result.exitCode}${said ? `: ${said}` : ''}`);
  },
});
