import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineCheck, symptom } from '../../src/contracts/check.js';
import { combineStatus } from '../../src/pipeline/run-checks.js';
import { failed, runCheckOn } from '../helpers/check-harness.js';
import { netDevice } from '../helpers/net-device.js';

const probe = defineCheck({
  id: 'probe',
  title: 'Probe values',
  description: 'test check',
  scope: 'interface',
  requires: ['net.device'],
  options: z.object({ limit: z.number().default(9000) }),
  symptoms: {
    small: symptom({
      severity: 'warning',
      data: z.object({ mtu: z.number().int().nullable(), limit: z.number().int() }),
      phrases: { gap: (d) => (d.mtu === null ? 'an unknown MTU' : `${d.limit - d.mtu} bytes short`) },
      message: '{subject} has MTU {mtu} below {limit} ({gap})',
      fix: 'ip link set dev {subject} mtu {limit}',
    }),
    note: symptom({ severity: 'info', data: z.object({}), message: 'note on {subject}' }),
  },
  run({ facts, options, report, notApplicable, subject }) {
    const device = facts['net.device'];
    if (device.kind === 'virtual') return notApplicable('virtual');
    if (subject === 'crash0') throw new Error('boom');
    if (subject === 'peek0') void (facts as Record<string, unknown>)['ethtool.rings'];
    // A check bug on purpose: data that breaks the schema (the cast gets it past the compiler).
    if (subject === 'bad0') report('small', { evidence: [], data: { mtu: 'big', limit: options.limit } as never });
    if ((device.mtu ?? 0) < options.limit)
      report('small', { evidence: [{ label: 'MTU', observed: device.mtu }], data: { mtu: device.mtu, limit: options.limit } });
    else report('note', { evidence: [] });
    return undefined;
  },
});

describe('running checks', () => {
  it('renders messages and fixes from templates and data', async () => {
    const result = await runCheckOn(probe, { 'net.device': netDevice('eth0', { mtu: 1500 }) });
    expect(result.status).toBe('fail');
    // The title names what is examined, whatever the status: the status says what was found.
    expect(result.title).toBe('Probe values');
    expect(result.findings[0]).toMatchObject({
      check: 'probe',
      symptom: 'small',
      message: 'eth0 has MTU 1500 below 9000 (7500 bytes short)',
      fix: 'ip link set dev eth0 mtu 9000',
    });
  });

  it('validates check options and applies overrides', async () => {
    const result = await runCheckOn(probe, { 'net.device': netDevice('eth0', { mtu: 1500 }) }, { options: { limit: 1500 } });
    expect(result.status).toBe('pass');
    expect(result.findings.map((f) => f.symptom)).toEqual(['note']);
    const bad = await runCheckOn(probe, { 'net.device': netDevice('eth0') }, { options: { limit: 'big' } });
    expect(bad.status).toBe('error');
    expect(bad.reason).toMatch(/invalid options/);
  });

  it('makes a crashing check an error result with its stack, not a dead run', async () => {
    const result = await runCheckOn(probe, { 'net.device': netDevice('crash0') }, { interfaces: [{ name: 'crash0' }] });
    expect(result.status).toBe('error');
    expect(result.error?.message).toBe('boom');
    expect(result.error?.stack).toContain('run-checks.test.ts');
  });

  it('catches a check that reads a fact it did not declare', async () => {
    const result = await runCheckOn(probe, { 'net.device': netDevice('peek0') }, { interfaces: [{ name: 'peek0' }] });
    expect(result.status).toBe('error');
    expect(result.error?.message).toMatch(/did not declare/);
  });

  it('combines subjects: fail beats unknown beats pass beats not-applicable', async () => {
    const result = await runCheckOn(
      probe,
      {
        'net.device': (subject) =>
          subject === 'veth0'
            ? netDevice('veth0', { kind: 'virtual' })
            : subject === 'eth1'
              ? failed('permission-denied')
              : netDevice(subject, { mtu: 9000 }),
      },
      { interfaces: [{ name: 'eth0' }, { name: 'eth1' }, { name: 'veth0' }] },
    );
    expect(result.subjects).toEqual([
      { subject: 'eth0', status: 'pass' },
      { subject: 'eth1', status: 'unknown', reason: 'net.device: simulated permission-denied' },
      { subject: 'veth0', status: 'not-applicable', reason: 'virtual' },
    ]);
    expect(result.status).toBe('unknown');
    expect(result.reason).toBe('eth1: net.device: simulated permission-denied');
    expect(
      combineStatus([
        { subject: 'a', status: 'pass' },
        { subject: 'b', status: 'fail' },
        { subject: 'c', status: 'error' },
      ]),
    ).toBe('fail');
    expect(combineStatus([])).toBe('not-applicable');
  });

  it('keeps only the schema fields in data: phrases are wording, computed at render time', async () => {
    const result = await runCheckOn(probe, { 'net.device': netDevice('eth0', { mtu: 1500 }) });
    expect(result.findings[0]!.data).toEqual({ mtu: 1500, limit: 9000 });
  });

  describe('data that breaks its schema', () => {
    afterEach(() => vi.unstubAllEnvs());

    it('makes the check an error under tests, with the field and zod message', async () => {
      const result = await runCheckOn(probe, { 'net.device': netDevice('bad0') }, { interfaces: [{ name: 'bad0' }] });
      expect(result.status).toBe('error');
      expect(result.error?.message).toMatch(/probe\/small reported data that does not match its schema: mtu: /);
    });

    it('is a logged warning in production, the finding kept', async () => {
      vi.stubEnv('VITEST', '');
      vi.stubEnv('NICDOCTOR_STRICT', '');
      const result = await runCheckOn(probe, { 'net.device': netDevice('bad0') }, { interfaces: [{ name: 'bad0' }] });
      expect(result.status).toBe('fail');
      expect(result.findings[0]).toMatchObject({ symptom: 'small', data: { mtu: 'big', limit: 9000 } });
    });
  });

  describe('a message placeholder with no value', () => {
    const leaky = defineCheck({
      id: 'leaky',
      title: 'Leaky',
      description: 'test check',
      scope: 'host',
      requires: [],
      symptoms: { gap: symptom({ severity: 'warning', data: z.object({ value: z.number().nullable() }), message: 'value {value}' }) },
      run({ report }) {
        report('gap', { evidence: [], data: { value: null } });
      },
    });
    afterEach(() => vi.unstubAllEnvs());

    it('throws under tests', async () => {
      const result = await runCheckOn(leaky, {});
      expect(result.status).toBe('error');
      expect(result.error?.message).toBe('leaky/gap message has no value for {value}');
    });

    it('stays visible in production rather than inventing a value', async () => {
      vi.stubEnv('VITEST', '');
      vi.stubEnv('NICDOCTOR_STRICT', '');
      const result = await runCheckOn(leaky, {});
      expect(result.findings[0]!.message).toBe('value {value}');
    });
  });
});

// Compile-time contract (checked by `tsc -p tsconfig.test.json`): report() data is typed per symptom.
export const typed = defineCheck({
  id: 'typed',
  title: 'Typed',
  description: 'type test',
  scope: 'host',
  requires: [],
  symptoms: { s: symptom({ severity: 'info', data: z.object({ n: z.number(), label: z.string().optional() }), message: '{n}' }) },
  run({ report }) {
    report('s', { evidence: [], data: { n: 1 } });
    // @ts-expect-error a missing field
    report('s', { evidence: [], data: {} });
    // @ts-expect-error a field of the wrong type
    report('s', { evidence: [], data: { n: 'one' } });
    // @ts-expect-error a field the schema does not declare
    report('s', { evidence: [], data: { n: 1, m: 2 } });
    // @ts-expect-error a symptom the check does not declare
    report('t', { evidence: [] });
  },
});
