import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { PolicyLoadError, loadPolicy, parsePolicy } from '../../src/policy/schema.js';
import { tcpGoodputMbps } from '../../src/domain/goodput.js';
import { FIXTURES } from '../helpers/fixtures.js';

const POLICIES = path.join(FIXTURES, '..', 'policies');
const checkIds = checks.map((check) => check.id);
const SPEED_MBPS: Record<string, number> = { '10g': 10_000, '25g': 25_000, '40g': 40_000, '100g': 100_000 };

function loadError(text: string, known?: string[]): PolicyLoadError {
  try {
    parsePolicy(text, 'site.yaml', known);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyLoadError);
    return error as PolicyLoadError;
  }
  throw new Error('expected a PolicyLoadError');
}

describe('example policies', () => {
  const files = readdirSync(POLICIES)
    .filter((name) => name.endsWith('.yaml'))
    .sort();

  it('ships one per link speed', () => {
    expect(files).toEqual(['100g.yaml', '10g.yaml', '25g.yaml', '40g.yaml']);
  });

  it.each(files)('%s is valid, names only real checks, and explains its values with CAUSES.md numbers', async (file) => {
    const policy = await loadPolicy(path.join(POLICIES, file), checkIds);
    const speed = SPEED_MBPS[policy.name]!;
    expect(speed, 'name is the link speed').toBeDefined();
    expect(policy).toMatchObject({
      ringsAtMax: true,
      noPcieDowngrade: true,
      minIperf3: '3.16',
      governor: 'performance',
      onUnknown: 'fail',
    });
    expect(policy.checksMustPass).toContain('pcie-link');
    // The bench minimum must be reachable: below the goodput ceiling at the MTU the policy allows.
    const mtu = typeof policy.mtu === 'number' ? policy.mtu : policy.mtu && 'exact' in policy.mtu ? policy.mtu.exact : policy.mtu!.min;
    const ceilingGbps = tcpGoodputMbps(speed, mtu) / 1000;
    expect(policy.minBenchGbps!).toBeLessThan(ceilingGbps);
    expect(policy.minBenchGbps!).toBeGreaterThan(ceilingGbps * 0.85);
    // The socket-buffer tier follows CAUSES.md: below 40G, 40G and up, 100G and up.
    expect(policy.socketBufferTier).toBe(speed >= 100_000 ? '100g' : speed >= 40_000 ? '40g' : '10g');
    const text = readFileSync(path.join(POLICIES, file), 'utf8');
    expect(text).toMatch(/cause 1\b/);
    expect(text).toMatch(/cause 7\b/);
    // The comments quote CAUSES.md's goodput ceilings for the speed at MTU 1500 and 9000.
    const ceilings: Record<number, [string, string]> = {
      10_000: ['9.41', '9.90'],
      25_000: ['23.5', '24.75'],
      40_000: ['37.7', '39.6'],
      100_000: ['94.1', '99.0'],
    };
    expect(text).toContain(`${ceilings[speed]![0]} Gb/s at MTU 1500`);
    expect(text).toContain(`${ceilings[speed]![1]} Gb/s at MTU 9000`);
  });
});

describe('parsePolicy', () => {
  it('accepts the three MTU forms and defaults onUnknown to fail', () => {
    expect(parsePolicy('name: a\nmtu: 9000\n', 'a.yaml')).toEqual({ name: 'a', mtu: 9000, onUnknown: 'fail' });
    expect(parsePolicy('name: a\nmtu: { min: 9000 }\n', 'a.yaml').mtu).toEqual({ min: 9000 });
    expect(parsePolicy('name: a\nmtu: { exact: 1500 }\nonUnknown: ignore\n', 'a.yaml')).toMatchObject({
      mtu: { exact: 1500 },
      onUnknown: 'ignore',
    });
  });

  it.each([
    ['a misspelt field', 'name: a\nminBenchGbs: 9\n', 'site.yaml: minBenchGbs: unknown field'],
    ['an MTU that is not a number', 'name: a\nmtu: jumbo\n', 'site.yaml: mtu:'],
    ['an MTU bound that is not a number', 'name: a\nmtu: { min: big }\n', 'site.yaml: mtu.min:'],
    ['an unquoted iperf3 version (YAML reads 3.10 as the number 3.1)', 'name: a\nminIperf3: 3.16\n', 'site.yaml: minIperf3:'],
    ['a tier nicdoctor does not know', 'name: a\nsocketBufferTier: 25g\n', 'site.yaml: socketBufferTier:'],
    ['an interface pattern with a slash', 'name: a\ninterfaces: [eth0, "../x"]\n', 'site.yaml: interfaces[1]:'],
    ['a missing name', 'mtu: 9000\n', 'site.yaml: name:'],
    ['a negative bench minimum', 'name: a\nminBenchGbps: -1\n', 'site.yaml: minBenchGbps:'],
    ['ringsAtMax as a string', 'name: a\nringsAtMax: "yes"\n', 'site.yaml: ringsAtMax:'],
  ])('rejects %s, naming the file and the field', (_what, text, start) => {
    expect(loadError(text).message.startsWith(start)).toBe(true);
  });

  it('rejects a check id that no check has, when it knows the checks', () => {
    const error = loadError('name: a\nchecksMustPass: [mtu, pcie-lnk]\n', checkIds);
    expect(error.message).toBe('site.yaml: checksMustPass[1]: no check "pcie-lnk" (see `nicdoctor checks`)');
    expect(error.field).toBe('checksMustPass[1]');
  });

  it('rejects text that is not YAML or not a mapping', () => {
    expect(loadError('name: [unclosed\n').message).toMatch(/^site\.yaml: not valid YAML/);
    expect(loadError('- name: a\n').message).toMatch(/^site\.yaml: a policy is a YAML mapping/);
    expect(loadError('').message).toMatch(/^site\.yaml: a policy is a YAML mapping/);
  });

  it('says when the file cannot be read', async () => {
    await expect(loadPolicy('/nonexistent/policy.yaml')).rejects.toThrow('/nonexistent/policy.yaml: cannot read: ENOENT');
  });
});
