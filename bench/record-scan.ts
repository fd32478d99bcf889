/**
 * Records into a snapshot directory exactly what one `nicdoctor scan` reads (no more: `collect`
 * also records facts that no check uses yet, which would give the serial baseline extra work).
 * Run by the scan bench inside the lab namespace: node dist/bench/record-scan.js <empty dir>.
 */
import { checks } from '../checks/index.js';
import { scan } from '../src/pipeline/scan.js';
import { RecordingHostIO } from '../src/hostio/recording.js';
import { silentLogger } from '../src/util/log.js';
import { VERSION } from '../src/util/version.js';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: record-scan.js <empty directory>\n');
  process.exit(2);
}
const io = new RecordingHostIO(dir);
const { report } = await scan({ io, checks, log: silentLogger() });
await io.writeManifest(await io.inventory(), { name: 'nicdoctor', version: VERSION }, 'what one scan reads (bench/record-scan.ts)');
process.stdout.write(
  `${JSON.stringify({ interfaces: report.interfaces.length, checks: report.checks.length, facts: report.collectors.length })}\n`,
);
