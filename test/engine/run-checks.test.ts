import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCheck } from '../../src/engine/check.js';
import { combineStatus, renderTemplate } from '../../src/pipeline/run-checks.js';
import { failed, runCheckOn } from '../helpers/check-harness.js';
import { netDevice } from '../helpers/net-device.js';

const probe = defineCheck({
  id: 'probe',
  title: 'Probe is fine',
  failureTitle: 'Probe found something',
  description: 'test check',
  scope: 'interface',
  requires: ['net.device'],
  options: z.object({ limit: z.number().default(9000) }),
  symptoms: {
    small: { severity: 'warning', message: '{subject} has MTU {mtu} below {limit}', fix: 'ip link set dev {subject} mtu {limit}' },
    note: { severity: 'info', message: 'note on {subject}' },
  },
  run({ facts, options, report, notApplicable, subject }) {
    const device = facts['net.device'];
    if (device.kind === 'virtual') return notApplicable('virtual');
    if (subject === 'crash0') throw new Error('boom');
    if (subject === 'peek0') void (facts as Record<string, unknown>)['ethtool.rings'];
    if ((device.mtu ?? 0) < options.limit) report('small', { evidence: [{ label: 'MTU', observed: device.mtu }], data: { mtu: device.mtu, limit: options.limit } });
    else report('note', { evidence: [] });
    return undefined;
  },
});

describe('running checks', () => {
  it('renders messages and fixes from templates and data', async () => {
    const result = await runCheckOn(probe, { 'net.device': netDevice('eth0', { mtu: 1500 }) });
    expect(result.status).toBe('fail');
    expect(result.title).toBe('Probe found something');
    expect(result.findings[0]).toMatchObject({ check: 'probe', symptom: 'small', message: 'eth0 has MTU 1500 below 9000', fix: 'ip link set dev eth0 mtu 9000' });
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
      { 'net.device': (subject) => (subject === 'veth0' ? netDevice('veth0', { kind: 'virtual' }) : subject === 'eth1' ? failed('permission-denied') : netDevice(subject, { mtu: 9000 })) },
      { interfaces: [{ name: 'eth0' }, { name: 'eth1' }, { name: 'veth0' }] },
    );
    expect(result.subjects).toEqual([
      { subject: 'eth0', status: 'pass' },
      { subject: 'eth1', status: 'unknown', reason: 'net.device: simulated permission-denied' },
      { subject: 'veth0', status: 'not-applicable', reason: 'virtual' },
    ]);
    expect(result.status).toBe('unknown');
    expect(result.reason).toBe('eth1: net.device: simulated permission-denied');
    expect(combineStatus([{ subject: 'a', status: 'pass' }, { subject: 'b', status: 'fail' }, { subject: 'c', status: 'error' }])).toBe('fail');
    expect(combineStatus([])).toBe('not-applicable');
  });

  it('leaves unknown placeholders visible rather than inventing values', () => {
    expect(renderTemplate('{a} and {b}', { a: 1 })).toBe('1 and {b}');
  });
});
