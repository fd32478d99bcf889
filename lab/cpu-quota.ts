/**
 * Slow cores for the lab (LAB.md): a directory with an `iperf3` wrapper that moves itself into
 * a fresh cgroup-v1 cpu cgroup with a quota, then execs the real iperf3. Put the directory first
 * on PATH and every iperf3 started by name (by nicdoctor, by a script) runs on a slow core, the
 * same situation as a host whose single core is too slow for the link.
 */
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { forbidSkipOnCi } from './no-skip-on-ci.js';
import { findTool } from './lab.js';

export const CGROUP_CPU = '/sys/fs/cgroup/cpu';

export interface CpuQuota {
  /** Holds the iperf3 wrapper: for PATH of a plain iperf3 run. */
  readonly binDir: string;
  /** For nicdoctor, which never runs tools from PATH: `--tool-path binDir`, before the command. */
  readonly toolArgs: readonly string[];
  /** Prefix of the cgroups the wrapper creates (removed by destroy()). */
  readonly prefix: string;
  destroy(): void;
}

export function cpuQuotaAvailable(): string | undefined {
  return forbidSkipOnCi('the CPU-quota lab', cpuQuotaProblem());
}

function cpuQuotaProblem(): string | undefined {
  try {
    readdirSync(CGROUP_CPU);
  } catch {
    return `the CPU-quota lab needs the cgroup v1 cpu hierarchy at ${CGROUP_CPU}`;
  }
  return findTool('iperf3') ? undefined : 'the CPU-quota lab needs iperf3';
}

/** `fraction` of one core per iperf3 process, e.g. 0.2. */
export function createCpuQuota(fraction: number, tag: string): CpuQuota {
  const real = findTool('iperf3');
  if (!real) throw new Error('iperf3 not found');
  const binDir = mkdtempSync(path.join(tmpdir(), `${tag}-bin-`));
  const prefix = `${tag}-cg`;
  const period = 100_000;
  const quota = Math.round(period * fraction);
  // Inside `ip netns exec` /sys is remounted and /sys/fs/cgroup is gone: mount the same v1 cpu
  // hierarchy privately in that mount namespace (it disappears with the process).
  const script = `#!/bin/sh
set -e
base=${CGROUP_CPU}
if [ ! -w "$base/cgroup.procs" ]; then
  base=$(mktemp -d /tmp/${tag}-mnt.XXXXXX)
  mount -t cgroup -o cpu none "$base"
fi
cg="$base/${prefix}-$$"
mkdir "$cg"
echo ${period} > "$cg/cpu.cfs_period_us"
echo ${quota} > "$cg/cpu.cfs_quota_us"
echo $$ > "$cg/cgroup.procs"
exec ${real} "$@"
`;
  const wrapper = path.join(binDir, 'iperf3');
  writeFileSync(wrapper, script);
  chmodSync(binDir, 0o755);
  chmodSync(wrapper, 0o755);
  return {
    binDir,
    toolArgs: ['--tool-path', binDir],
    prefix,
    destroy() {
      // A cgroup can be removed only once it is empty: kill what is still in it (this runs before
      // the lab's namespaces go), then remove it, waiting briefly for the kernel to reap.
      for (const name of readdirSync(CGROUP_CPU)) {
        if (!name.startsWith(`${prefix}-`)) continue;
        const dir = path.join(CGROUP_CPU, name);
        for (let attempt = 0; attempt < 50; attempt += 1) {
          try {
            for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
              try {
                process.kill(Number(pid), 'SIGKILL');
              } catch {
                // already gone
              }
            }
            rmdirSync(dir);
            break;
          } catch {
            Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
          }
        }
      }
      for (const name of readdirSync(tmpdir()))
        if (name.startsWith(`${tag}-mnt.`)) rmSync(path.join(tmpdir(), name), { recursive: true, force: true });
      rmSync(binDir, { recursive: true, force: true });
    },
  };
}
