import { execa } from 'execa';
import { parseIperf3Json, parseIperf3JsonStream, type Iperf3Result } from '../parsers/iperf3-json.js';
import { shutdownSignal } from '../util/shutdown.js';
import type { ClientOutcome } from './aggregate.js';
import { ProcessSampler } from './proc-sampler.js';

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
  const iperf = ['iperf3', '-c', spec.host, '-p', String(spec.port), '-t', String(spec.durationSeconds), '-O', String(spec.omitSeconds), '-P', String(spec.streams), '-T', spec.label, '--get-server-output'];
  iperf.push(spec.jsonStream ? '--json-stream' : '-J');
  if (spec.direction === 'reverse') iperf.push('-R');
  if (spec.direction === 'bidir') iperf.push('--bidir');
  if (spec.udpRate) iperf.push('-u', '-b', spec.udpRate);
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
  const subprocess = execa(argv[0]!, argv.slice(1), {
    reject: false,
    timeout,
    cancelSignal: shutdownSignal,
    forceKillAfterDelay: 2000,
    stdin: 'ignore',
    env: { LC_ALL: 'C' },
  });
  const sampler = subprocess.pid ? new ProcessSampler(subprocess.pid) : null;
  const done = await subprocess;
  const cpu = sampler?.stop() ?? { cpuPercent: null, cpuSeconds: 0, quotaPercent: null, throttledPeriods: null };
  let result: Iperf3Result | null = null;
  let error: string | null = null;
  const stdout = String(done.stdout ?? '');
  try {
    result = spec.jsonStream ? parseIperf3JsonStream(stdout) : parseIperf3Json(stdout);
    error = result.error;
  } catch (parseError) {
    const stderr = String(done.stderr ?? '').trim().split('\n')[0];
    if (done.timedOut) error = `iperf3 did not finish within ${timeout / 1000} s and was killed`;
    else if (done.isCanceled) error = 'interrupted';
    else if (done.code === 'ENOENT') error = `${argv[0]}: command not found`;
    else error = stderr || (parseError as Error).message;
  }
  if (done.timedOut && !error) error = `iperf3 did not finish within ${timeout / 1000} s and was killed`;
  return {
    label: spec.label,
    port: spec.port,
    cpu: spec.cpu,
    pid: subprocess.pid ?? null,
    result,
    error,
    measuredCpuPercent: cpu.cpuPercent,
    cpuQuotaPercent: cpu.quotaPercent,
    throttledPeriods: cpu.throttledPeriods,
    serverVersion: serverVersionOf(stdout),
    cpuSeconds: cpu.cpuSeconds,
  };
}
