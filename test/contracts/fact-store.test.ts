import { describe, expect, it } from 'vitest';
import { FactStore, defineCollector, type Collector } from '../../src/contracts/collector.js';
import { FactCollectionError, ParseError } from '../../src/contracts/facts.js';
import { HostIOError } from '../../src/hostio/types.js';
import { silentLogger } from '../../src/util/log.js';
import { fakeHost } from '../helpers/fake-host.js';

// Test-only fact ids; the store is generic over whatever collectors it is given.
const asCollector = (collector: Omit<Collector, 'id'> & { id: string }) => defineCollector(collector as Collector);

describe('FactStore', () => {
  it('collects each fact once per subject and records its sources', async () => {
    let calls = 0;
    const collector = asCollector({
      id: 'test.value',
      scope: 'interface',
      description: 'test',
      reads: { ask: null },
      async collect(ctx, subject) {
        calls += 1;
        return (await ctx.readFile(`/sys/class/net/${subject}/mtu`)) as never;
      },
    });
    const io = fakeHost({ files: { '/sys/class/net/eth0/mtu': '1500\n', '/sys/class/net/eth1/mtu': '9000\n' } });
    const store = new FactStore(io, [collector], silentLogger());
    const [a, b, c] = await Promise.all([
      store.get('test.value' as never, 'eth0'),
      store.get('test.value' as never, 'eth0'),
      store.get('test.value' as never, 'eth1'),
    ]);
    expect(calls).toBe(2);
    expect(a).toMatchObject({ ok: true, value: '1500\n', sources: [{ kind: 'file', path: '/sys/class/net/eth0/mtu' }] });
    expect(b).toBe(a);
    expect(c).toMatchObject({ ok: true, value: '9000\n' });
    expect(store.runs.map((run) => run.subject).sort()).toEqual(['eth0', 'eth1']);
  });

  it('turns a missing tool into a typed error with an install hint, and the run goes on', async () => {
    const broken = asCollector({
      id: 'test.tool',
      scope: 'host',
      description: 'test',
      reads: { ask: null },
      collect: async (ctx) => (await ctx.exec(['ethtool', '-i', 'eth0'])) as never,
    });
    const fine = asCollector({
      id: 'test.fine',
      scope: 'host',
      description: 'test',
      reads: { ask: null },
      collect: async () => 42 as never,
    });
    const io = fakeHost({ commands: () => new HostIOError('tool-missing', 'ethtool: command not found') });
    const store = new FactStore(io, [broken, fine], silentLogger());
    const failedResult = await store.get('test.tool' as never);
    expect(failedResult).toMatchObject({
      ok: false,
      error: { kind: 'tool-missing', hint: expect.stringContaining('apt-get install ethtool') },
    });
    expect(await store.get('test.fine' as never)).toMatchObject({ ok: true, value: 42 });
  });

  it('keeps parse errors and permission errors apart', async () => {
    const parse = asCollector({
      id: 'test.parse',
      scope: 'host',
      description: 'test',
      reads: { ask: null },
      collect: async () => {
        throw new ParseError('line 3: expected "RX:"');
      },
    });
    const perm = asCollector({
      id: 'test.perm',
      scope: 'host',
      description: 'test',
      reads: { ask: null },
      collect: async (ctx) => (await ctx.readFile('/proc/irq/5/smp_affinity')) as never,
    });
    const io = fakeHost({ files: { '/proc/irq/5/smp_affinity': new HostIOError('permission-denied', 'permission denied') } });
    const store = new FactStore(io, [parse, perm], silentLogger());
    expect(await store.get('test.parse' as never)).toMatchObject({
      ok: false,
      error: { kind: 'parse-failed', message: 'line 3: expected "RX:"' },
    });
    expect(await store.get('test.perm' as never)).toMatchObject({
      ok: false,
      error: { kind: 'permission-denied', hint: expect.stringContaining('root') },
    });
  });

  it('reports a failed dependency with the original message', async () => {
    const base = asCollector({
      id: 'test.base',
      scope: 'host',
      description: 'test',
      reads: { ask: null },
      collect: async () => {
        throw new FactCollectionError('unsupported', 'no rings on veth');
      },
    });
    const derived = asCollector({
      id: 'test.derived',
      scope: 'host',
      description: 'test',
      reads: { ask: null },
      collect: async (ctx) => await ctx.get('test.base' as never),
    });
    const store = new FactStore(fakeHost(), [base, derived], silentLogger());
    expect(await store.get('test.derived' as never)).toMatchObject({
      ok: false,
      error: { kind: 'dependency-failed', message: expect.stringContaining('no rings on veth') },
    });
  });

  it('stops a collector that hangs (watchdog) with a timeout error', async () => {
    const hang = asCollector({
      id: 'test.hang',
      scope: 'host',
      description: 'test',
      reads: { ask: null },
      timeoutMs: 50,
      collect: () => new Promise(() => undefined),
    });
    const store = new FactStore(fakeHost(), [hang], silentLogger());
    expect(await store.get('test.hang' as never)).toMatchObject({ ok: false, error: { kind: 'timeout' } });
  });

  it('refuses two collectors for one fact and unknown facts', () => {
    const one = asCollector({ id: 'test.dup', scope: 'host', description: 'a', reads: { ask: null }, collect: async () => 1 as never });
    expect(() => new FactStore(fakeHost(), [one, one], silentLogger())).toThrow(/two collectors/);
    const store = new FactStore(fakeHost(), [one], silentLogger());
    expect(() => store.get('nope' as never)).toThrow(/no collector/);
  });
});
