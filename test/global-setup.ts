import { execFileSync } from 'node:child_process';

/** CLI tests run the built `dist/src/cli.js`, exactly what users run: build once per test run. */
export default function setup(): void {
  if (process.env.NICDOCTOR_SKIP_BUILD === '1') return; // parser and check tests do not need dist/
  execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
}
