import { readFileSync } from 'node:fs';

/** /proc and cgroup files are made in memory by the kernel: a synchronous read is the cheapest. */
async function readFile(path: string, encoding: 'utf8'): Promise<string> {
  return readFileSync(path, encoding);
}

/** Clock ticks per second of /proc/<pid>/stat times: USER_HZ is 100 on every Linux ABI. */
const USER_HZ = 100;

export interface CpuSample {
  /** utime + stime, seconds. */
  cpuSeconds: number;
  /** cgroup CPU quota as % of one core, null when unlimited or unreadable. */
  quotaPercent: number | null;
  throttledPeriods: number | null;
}

async function readCpuSeconds(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!stat) return null;
  // The command name may contain spaces and parentheses: fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / USER_HZ : null;
}

/**
 * Where the process's cgroup directory is, as the process itself sees it: its cgroup path
 * (/proc/<pid>/cgroup) under the mount of that hierarchy in its own mount namespace
 * (/proc/<pid>/mountinfo, reached through /proc/<pid>/root). This finds the quota of a process
 * in a container or under `ip netns exec` (which remounts /sys) as well as on the host.
 */
async function cgroupDirectories(pid: number): Promise<Array<{ dir: string; version: 1 | 2 }>> {
  const [cgroups, mountinfo] = await Promise.all([
    readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => null),
    readFile(`/proc/${pid}/mountinfo`, 'utf8').catch(() => ''),
  ]);
  if (!cgroups) return [];
  const mounts = mountinfo.split('\n').map((line) => {
    const [left, right] = line.split(' - ');
    const fields = (left ?? '').split(' ');
    const [fstype, , superOptions] = (right ?? '').split(' ');
    return { root: fields[3] ?? '', mountPoint: fields[4] ?? '', fstype, options: (superOptions ?? '').split(',') };
  });
  const found: Array<{ dir: string; version: 1 | 2 }> = [];
  for (const line of cgroups.split('\n')) {
    const [, controllers, cgroupPath] = line.split(':');
    if (controllers === undefined || cgroupPath === undefined) continue;
    const version = controllers.split(',').includes('cpu') ? 1 : line.startsWith('0::') ? 2 : null;
    if (!version) continue;
    const mount = mounts.find((m) => (version === 1 ? m.fstype === 'cgroup' && m.options.includes('cpu') : m.fstype === 'cgroup2'));
    if (mount && cgroupPath.startsWith(mount.root)) {
      const relative = mount.root === '/' ? cgroupPath : cgroupPath.slice(mount.root.length);
      found.push({ dir: `/proc/${pid}/root${mount.mountPoint}${relative}`, version });
    }
    found.push({ dir: version === 1 ? `/sys/fs/cgroup/cpu${cgroupPath}` : `/sys/fs/cgroup${cgroupPath}`, version });
  }
  return found;
}

/** The CPU quota of the process's cgroup (v1 cpu controller or v2 cpu.max) and its throttling count. */
async function readCgroupCpu(
  candidates: Array<{ dir: string; version: 1 | 2 }>,
): Promise<{ quotaPercent: number | null; throttledPeriods: number | null }> {
  for (const { dir, version } of candidates) {
    let quota: number | null = null;
    if (version === 1) {
      const [q, p] = await Promise.all([
        readFile(`${dir}/cpu.cfs_quota_us`, 'utf8').catch(() => null),
        readFile(`${dir}/cpu.cfs_period_us`, 'utf8').catch(() => null),
      ]);
      if (q === null || p === null) continue;
      if (Number(q) > 0 && Number(p) > 0) quota = (100 * Number(q)) / Number(p);
    } else {
      const max = await readFile(`${dir}/cpu.max`, 'utf8').catch(() => null);
      if (max === null) continue;
      const [q, p] = max.trim().split(/\s+/);
      if (q && p && q !== 'max') quota = (100 * Number(q)) / Number(p);
    }
    const stat = await readFile(`${dir}/cpu.stat`, 'utf8').catch(() => null);
    const throttled = stat ? /^nr_throttled (\d+)/m.exec(stat)?.[1] : undefined;
    return { quotaPercent: quota, throttledPeriods: throttled === undefined ? null : Number(throttled) };
  }
  return { quotaPercent: null, throttledPeriods: null };
}

/**
 * Samples a running process's CPU time (and its cgroup's quota and throttling) until stopped;
 * the last sample before the process exits is what is kept. One small read a second: the
 * sampler's own CPU cost stays far below the processes it watches.
 */
export class ProcessSampler {
  private timer: NodeJS.Timeout | undefined;
  private last: CpuSample | null = null;
  private readonly started = performance.now();
  private lastAt = this.started;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 1000,
  ) {
    // An early sample catches the cgroup before a short-lived process is gone.
    setTimeout(() => void this.sample(), Math.min(200, intervalMs)).unref();
    this.timer = setInterval(() => void this.sample(), intervalMs);
    this.timer.unref();
  }

  /** Where the cgroup is, found once: a process does not change cgroup while iperf3 runs. */
  private cgroupCandidates: Promise<Array<{ dir: string; version: 1 | 2 }>> | undefined;
  private samples = 0;

  private async sample(): Promise<void> {
    const candidates = await (this.cgroupCandidates ??= cgroupDirectories(this.pid));
    const [cpuSeconds, cgroup] = await Promise.all([readCpuSeconds(this.pid), readCgroupCpu(candidates)]);
    // The first samples may come before a wrapper has moved the process into its own cgroup:
    // look for the cgroup again until a quota shows up or three samples have passed.
    if (cgroup.quotaPercent === null && this.samples < 3) this.cgroupCandidates = undefined;
    this.samples += 1;
    if (cpuSeconds === null) return;
    this.last = { cpuSeconds, ...cgroup };
    this.lastAt = performance.now();
  }

  /** Stops sampling; returns average CPU % of one core over the sampled life, and the cgroup facts. */
  stop(): { cpuPercent: number | null; cpuSeconds: number; quotaPercent: number | null; throttledPeriods: number | null } {
    clearInterval(this.timer);
    if (!this.last) return { cpuPercent: null, cpuSeconds: 0, quotaPercent: null, throttledPeriods: null };
    const wallSeconds = (this.lastAt - this.started) / 1000;
    return {
      cpuPercent: wallSeconds > 0.5 ? (100 * this.last.cpuSeconds) / wallSeconds : null,
      cpuSeconds: this.last.cpuSeconds,
      quotaPercent: this.last.quotaPercent,
      throttledPeriods: this.last.throttledPeriods,
    };
  }
}
