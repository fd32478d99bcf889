import { execFile } from 'node:child_process';
import { parseIperf3Json, parseIperf3JsonStream, type Iperf3Result } from '../parsers/iperf3-json.js';
import { toolSearchPath } from '../hostio/tool-path.js';
import { shutdownSignal } from '../util/shutdown.js';
import type { ClientOutcome } from './aggregate.js';
import { ProcessSampler } from './proc-sampler.js';
import { clientAuthArgs, clientAuthFromEnv } from './iperf3-auth.js';

/** Checked at the start of a bench (bench-commands.ts): incomplete credentials are exit 2 there. */
const auth = () => {
  const checked = clientAuthFromEnv();
  return clientAuthArgs(checked.ok ? checked.auth : null);
};

export type Direction = 'forward' | 'reverse' | 'bidir';

export interface ClientSpec {
  host: string;
  port: number;
  /** CPU to pin the process to with taskset; null leaves placement to the scheduler. */
  cpu: number | null;
  durationSeconds: number;
  /** Seconds of slow start to leave out (-O). */
  omitSeconds: number;
  streams: number;
  direction: Direction;
  udpRate?: string;
  label: string;
  /** iperf3 3.17+ can stream JSON events; older versions print one document at the end. */
  jsonStream: boolean;
  /** Extra margin over the test length before the client is killed. */
  graceSeconds?: number;
}

export function clientArgv(spec: ClientSpec): string[] {
  const iperf = [
    'iperf3',
    '-c',
    spec.host,
    '-p',
    String(spec.port),
    '-t',
    String(spec.durationSeconds),
    '-O',
    String(spec.omitSeconds),
    '-P',
    String(spec.streams),
    '-T',
    spec.label,
    '--get-server-output',
  ];
  iperf.push(spec.jsonStream ? '--json-stream' : '-J');
  if (spec.direction === 'reverse') iperf.push('-R');
  if (spec.direction === 'bidir') iperf.push('--bidir');
  if (spec.udpRate) iperf.push('-u', '-b', spec.udpRate);
  iperf.push(...auth().args);
  // taskset, never -A: on 3.16+ -A pins every stream thread to one CPU (CAUSES.md).
  return spec.cpu === null ? iperf : ['taskset', '-c', String(spec.cpu), ...iperf];
}

function serverVersionOf(stdout: string): string | null {
  // --get-server-output embeds the server's own JSON, whose start.version names its iperf3.
  const match = /"server_output_json"[\s\S]*?"version"\s*:\s*"iperf ([^"]+)"/.exec(stdout);
  return match?.[1] ?? null;
}

/** Runs one iperf3 client to completion (or timeout, or Ctrl-C) and reads its JSON. */
export async function runClient(spec: ClientSpec): Promise<ClientOutcome> {
  const argv = clientArgv(spec);
  const timeout = (spec.durationSeconds + spec.omitSeconds + (spec.graceSeconds ?? 15)) * 1000;
  // child_process rather than execa: a ramp starts dozens of clients and nicdoctor's own CPU must
  // stay a small fraction of theirs (bench:throughput measures it).
  const started = { timedOut: false };
  let settle: (value: { stdout: string; stderr: string; code: number | string | null; canceled: boolean }) => void = () => undefined;
  const finished = new Promise<{ stdout: string; stderr: string; code: number | string | null; canceled: boolean }>(
    (resolve) => (settle = resolve),
  );
  const child = execFile(
    argv[0]!,
    argv.slice(1),
    {
      timeout,
      killSignal: 'SIGKILL',
      signal: shutdownSignal,
      maxBuffer: 64 * 1024 * 1024,
      encoding: 'utf8',
      env: { PATH: toolSearchPath(), LC_ALL: 'C', ...auth().env },
    },
    (failure, stdout, stderr) => {
      const error = failure as (NodeJS.ErrnoException & { code?: number | string; killed?: boolean; signal?: string }) | null;
      if (error?.killed && error.signal === 'SIGKILL' && error.name !== 'AbortError') started.timedOut = true;
      settle({
        stdout: String(stdout ?? ''),
        stderr: String(stderr ?? ''),
        code: error ? (error.code ?? null) : 0,
        canceled: error?.name === 'AbortError',
      });
    },
  );
  child.stdin?.end();
  const sampler = child.pid ? new ProcessSampler(child.pid) : null;
  const done = await finished;
  const cpu = sampler?.stop() ?? { cpuPercent: null, cpuSeconds: 0, quotaPercent: null, throttledPeriods: null };
  let result: Iperf3Result | null = null;
  let error: string | null = null;
  const stdout = done.stdout;
  try {
    result = spec.jsonStream ? parseIperf3JsonStream(stdout) : parseIperf3Json(stdout);
    error = result.error;
  } catch (parseError) {
    const stderr = done.stderr.trim().split('\n')[0];
    if (started.timedOut) error = `iperf3 did not finish within ${timeout / 1000} s and was killed`;
    else if (done.canceled) error = 'interrupted';
    else if (done.code === 'ENOENT') error = `${argv[0]}: command not found`;
    else error = stderr || (parseError as Error).message;
  }
  if (started.timedOut && !error) error = `iperf3 did not finish within ${timeout / 1000} s and was killed`;
  return {
    label: spec.label,
    port: spec.port,
    cpu: spec.cpu,
    pid: child.pid ?? null,
    result,
    error,
    measuredCpuPercent: cpu.cpuPercent,
    cpuQuotaPercent: cpu.quotaPercent,
    throttledPeriods: cpu.throttledPeriods,
    serverVersion: serverVersionOf(stdout),
    cpuSeconds: cpu.cpuSeconds,
  };
}
