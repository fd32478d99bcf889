import type { AnyCheck } from '../../src/contracts/check.js';
import { summarize, type NetDevice } from '../../src/collectors/net-device.js';
import { FactCollectionError, type FactErrorKind, type FactId, type FactTypes } from '../../src/contracts/facts.js';
import { FactStore, type Collector } from '../../src/contracts/collector.js';
import { runChecks } from '../../src/pipeline/run-checks.js';
import type { HostIO } from '../../src/hostio/types.js';
import type { CheckResult, InterfaceSummary, Profile } from '../../src/report/schema.js';
import { silentLogger } from '../../src/util/log.js';

/** A fact that could not be had, for unknown-state tests. */
export interface FactFailure {
  failure: FactErrorKind;
  message?: string;
  hint?: string;
}

export function failed(kind: FactErrorKind, message = `simulated ${kind}`, hint?: string): FactFailure {
  return { failure: kind, message, ...(hint ? { hint } : {}) };
}

export type FactInput = { [K in FactId]?: FactTypes[K] | FactFailure | ((subject: string) => FactTypes[K] | FactFailure) };

export interface HarnessOptions {
  interfaces?: Partial<InterfaceSummary>[];
  profile?: Profile;
  options?: unknown;
}

const nullIO: HostIO = {
  mode: 'snapshot',
  exec: () => Promise.reject(new Error('checks must not run commands')),
  readFile: () => Promise.reject(new Error('checks must not read files')),
  readDir: () => Promise.reject(new Error('checks must not read directories')),
  readLink: () => Promise.reject(new Error('checks must not read links')),
  inventory: () => Promise.reject(new Error('not needed')),
};

export function iface(name: string, extra: Partial<InterfaceSummary> = {}): InterfaceSummary {
  return {
    name,
    kind: 'physical',
    driver: null,
    pciAddress: null,
    speedMbps: 10000,
    duplex: 'full',
    mtu: 1500,
    operstate: 'up',
    numaNode: null,
    master: null,
    ...extra,
  };
}

/**
 * Runs one check through the real engine on hand-built facts: the same path (fact gating,
 * declared-fact proxy, templating, status) as a scan, without a host.
 */
export async function runCheckOn(check: AnyCheck, facts: FactInput, harness: HarnessOptions = {}): Promise<CheckResult> {
  const ids = new Set<string>([...(check.requires as string[]), ...((check.optionalFacts as string[] | undefined) ?? [])]);
  const collectors: Collector[] = [...ids].map((id) => ({
    id: id as FactId,
    scope: check.scope === 'host' ? 'host' : 'interface',
    description: 'test fact',
    reads: { ask: null },
    async collect(_ctx, subject) {
      const given = (facts as Record<string, unknown>)[id];
      if (given === undefined) throw new FactCollectionError('not-captured', `test did not provide ${id}`);
      const value = typeof given === 'function' ? (given as (s: string) => unknown)(subject) : given;
      if (value && typeof value === 'object' && 'failure' in value) {
        const failure = value as FactFailure;
        throw new FactCollectionError(failure.failure, failure.message ?? failure.failure, failure.hint);
      }
      return value as never;
    },
  }));
  const store = new FactStore(nullIO, collectors, silentLogger());
  // As in a scan, an interface's summary comes from its net.device fact when the test gives one.
  const interfaces = (harness.interfaces ?? [{ name: 'eth0' }]).map((partial) => {
    const name = partial.name ?? 'eth0';
    const given = (facts as Record<string, unknown>)['net.device'];
    const device = typeof given === 'function' ? (given as (s: string) => unknown)(name) : given;
    const base = device && typeof device === 'object' && !('failure' in device) ? summarize(device as NetDevice) : iface(name);
    return { ...base, ...partial, name };
  });
  const [result] = await runChecks({
    store,
    checks: [check],
    interfaces,
    profile: harness.profile ?? 'throughput',
    log: silentLogger(),
    ...(harness.options !== undefined ? { checkOptions: { [check.id]: harness.options } } : {}),
  });
  return result!;
}
