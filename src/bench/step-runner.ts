import { RunError } from '../util/errors.js';
import type { ClientOutcome } from './aggregate.js';
import type { BenchOptions } from './bench-options.js';
import { versionAtLeast, type BenchPlan } from './bench-plan.js';
import { runClient } from './iperf3-client.js';

/** Runs one step: N iperf3 client processes at once, and adds up the CPU they used. */
export class StepRunner {
  /** CPU seconds of every iperf3 client process so far. */
  iperfCpuSeconds = 0;
  private readonly jsonStream: boolean;

  constructor(
    private readonly options: BenchOptions,
    private readonly plan: BenchPlan,
    private readonly ports: readonly number[],
  ) {
    this.jsonStream = versionAtLeast(plan.clientVersion, '3.17');
  }

  async run(processes: number, streams: number, seconds: number, label: string): Promise<ClientOutcome[]> {
    const { options, plan } = this;
    const outcomes = await Promise.all(
      Array.from({ length: processes }, (_, index) =>
        runClient({
          host: plan.host,
          port: this.ports[index]!,
          // One process per core is pinned; more processes than cores (CPU-quota'd iperf3) are
          // left to the scheduler, which balances an oversubscribed host better than fixed pins.
          cpu: plan.cpus.length && processes <= Math.max(1, plan.physicalCores) ? plan.cpus[index % plan.cpus.length]! : null,
          durationSeconds: seconds,
          omitSeconds: options.omitSeconds,
          streams,
          direction: options.direction,
          ...(options.udpRate ? { udpRate: options.udpRate } : {}),
          label: `${label}-p${index + 1}`,
          jsonStream: this.jsonStream,
        }),
      ),
    );
    this.iperfCpuSeconds += outcomes.reduce((total, outcome) => total + outcome.cpuSeconds, 0);
    return outcomes;
  }
}

/** Every client refused or unreachable: the far end is not serving, which no step can fix. */
export function failIfUnreachable(host: string, outcomes: ClientOutcome[]): void {
  const refused = outcomes.filter(
    (o) => o.error && /unable to connect|Connection refused|No route|timed out|Name or service/i.test(o.error),
  );
  if (refused.length === outcomes.length)
    throw new RunError(
      `cannot reach iperf3 on ${host} port ${outcomes.map((o) => o.port).join(', ')}: ${refused[0]!.error} (is \`nicdoctor serve\` running there?)`,
    );
}
