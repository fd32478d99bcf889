import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * CLI tests run the built `dist/src/cli.js`, exactly what users run: it must be the build of the
 * current sources. The build costs 25-55 s on a 2-core machine, so it runs only when
 * scripts/dist-fresh.mjs finds dist/ older than a source (the fast CI stage's `npm run build`
 * has just made it). NICDOCTOR_SKIP_BUILD=1 skips even that check: parser and check tests do
 * not need dist/.
 */
export default function setup(): void {
  if (process.env.NICDOCTOR_SKIP_BUILD === '1') return;
  const fresh = spawnSync(process.execPath, [path.join(root, 'scripts', 'dist-fresh.mjs')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (fresh.status === 0) return;
  process.stderr.write(`global setup: npm run build (${fresh.stdout.trim() || fresh.stderr.trim() || 'freshness unknown'})\n`);
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit', timeout: 600_000 });
}
