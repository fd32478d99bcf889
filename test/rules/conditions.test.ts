import { describe, expect, it } from 'vitest';
import { compare, evaluate, valueAt, type EvalContext } from '../../src/rules/conditions.js';
import type { Condition, Op } from '../../src/rules/schema.js';
import type { Finding } from '../../src/report/schema.js';
import { IF, finding } from './helpers.js';

describe('comparison vocabulary', () => {
  it.each<[unknown, Op, unknown, boolean]>([
    [10, 'eq', 10, true],
    [10, 'eq', '10', true],
    ['ixgbe', 'eq', 'ixgbe', true],
    ['ixgbe', 'eq', 'i40e', false],
    [10, 'ne', 25, true],
    [10, 'ne', 10, false],
    [3.56, 'gt', 3.5, true],
    [3.5, 'gt', 3.5, false],
    [3.5, 'gte', 3.5, true],
    [3.4, 'gte', 3.5, false],
    [1, 'lt', 2, true],
    [2, 'lt', 2, false],
    [2, 'lte', 2, true],
    [3, 'lte', 2, false],
    ['abc', 'gt', 1, false],
    ['ice', 'in', ['ice', 'i40e'], true],
    [8, 'in', [4, 8], true],
    ['mlx5_core', 'in', ['ice', 'i40e'], false],
    ['3.17.1', 'matches', '^3\\.1[6-9]', true],
    ['3.9', 'matches', '^3\\.1[6-9]', false],
    [0, 'exists', undefined, true],
    [null, 'exists', undefined, false],
    [undefined, 'exists', undefined, false],
    [undefined, 'absent', undefined, true],
    [null, 'absent', undefined, true],
    [0, 'absent', undefined, false],
    [undefined, 'ne', 5, false],
    [undefined, 'lt', 5, false],
  ])('%j %s %j → %s', (actual, op, expected, result) => {
    expect(compare(actual, op, expected as never)).toBe(result);
  });

  it('reads dotted paths, including array indexes', () => {
    expect(valueAt({ link: { width: 8 } }, 'link.width')).toBe(8);
    expect(valueAt({ cpus: [{ siblings: [0, 8] }] }, 'cpus.0.siblings.1')).toBe(8);
    expect(valueAt({ link: null }, 'link.width')).toBeUndefined();
  });
});

function context(findings: Finding[], facts: Record<string, unknown> = {}, subject = IF): EvalContext {
  return {
    subject,
    findings,
    checkStatus: (check, on) => (check === 'pcie-link' && on === IF ? 'pass' : undefined),
    fact: (id) => facts[id],
    isInterfaceFact: (id) => id === 'pcie.link',
  };
}

const pcie = finding('pcie-link/pcie-bandwidth-below-port', IF, { ceilingGbps: 3.56, currentLink: 'Gen2 x1' });
const pcieOther = finding('pcie-link/pcie-bandwidth-below-port', 'eth9', { ceilingGbps: 7.1 });
const bound = finding('throughput/pcie-bound', 'host', { resultGbps: 3.2, pcieGbps: 3.56 });
const below = finding('throughput/below-link-ceiling', 'host', { resultGbps: 3.3, linkGbps: 10 });

describe('conditions', () => {
  it.each<[string, Condition, boolean]>([
    ['a symptom on the subject', { symptom: 'pcie-link/pcie-bandwidth-below-port' }, true],
    ['a host-level symptom applies to every interface', { symptom: 'throughput/pcie-bound' }, true],
    ['a symptom nobody reported', { symptom: 'mtu/standard-mtu-fast-link' }, false],
    ['finding data below a value', { symptom: 'throughput/below-link-ceiling', data: 'resultGbps', op: 'lt', value: 9 }, true],
    ['finding data above a value', { symptom: 'throughput/below-link-ceiling', data: 'resultGbps', op: 'gt', value: 9 }, false],
    ['all: both hold', { all: [{ symptom: 'throughput/pcie-bound' }, { symptom: 'pcie-link/pcie-bandwidth-below-port' }] }, true],
    ['all: one fails', { all: [{ symptom: 'throughput/pcie-bound' }, { symptom: 'mtu/standard-mtu-fast-link' }] }, false],
    ['any: one holds', { any: [{ symptom: 'mtu/standard-mtu-fast-link' }, { symptom: 'throughput/pcie-bound' }] }, true],
    ['any: none holds', { any: [{ symptom: 'mtu/standard-mtu-fast-link' }, { symptom: 'offloads/offload-off' }] }, false],
    ['not', { not: { symptom: 'mtu/standard-mtu-fast-link' } }, true],
    ['a fact path', { fact: 'pcie.link', path: 'link.width', op: 'eq', value: 1 }, true],
    ['a fact path that differs', { fact: 'pcie.link', path: 'link.width', op: 'gte', value: 8 }, false],
    ['a missing fact is absent', { fact: 'iperf3.version', path: 'version', op: 'absent' }, true],
    ['a check verdict', { check: 'pcie-link', status: 'pass' }, true],
    ['a check verdict in a list', { check: 'pcie-link', status: ['fail', 'unknown'] }, false],
    ['a built-in var', { var: 'subject', op: 'eq', value: IF }, true],
    [
      'a ref to a value bound earlier in an all, scaled',
      {
        all: [
          { symptom: 'pcie-link/pcie-bandwidth-below-port' },
          { symptom: 'throughput/below-link-ceiling', data: 'resultGbps', op: 'lte', value: { ref: 'ceilingGbps', times: 1.1 } },
        ],
      },
      true,
    ],
    [
      'a ref with no value does not hold',
      { symptom: 'throughput/below-link-ceiling', data: 'resultGbps', op: 'lte', value: { ref: 'nothing' } },
      false,
    ],
  ])('%s', (_, condition, holds) => {
    const match = evaluate(condition, context([pcie, pcieOther, bound, below], { 'pcie.link': { link: { width: 1 } } }), { subject: IF });
    expect(match !== null).toBe(holds);
  });

  it("binds a subject: another interface's finding does not match, unless subject: any", () => {
    const ctx = context([pcieOther]);
    expect(evaluate({ symptom: 'pcie-link/pcie-bandwidth-below-port' }, ctx, {})).toBeNull();
    expect(evaluate({ symptom: 'pcie-link/pcie-bandwidth-below-port', subject: 'any' }, ctx, {})).not.toBeNull();
    // On the host, only host-level findings match.
    expect(evaluate({ symptom: 'pcie-link/pcie-bandwidth-below-port' }, context([pcie], {}, 'host'), {})).toBeNull();
  });

  it('an interface fact has no value for the host', () => {
    expect(
      evaluate({ fact: 'pcie.link', path: 'link.width', op: 'exists' }, context([], { 'pcie.link': { link: { width: 8 } } }, 'host'), {}),
    ).toBeNull();
  });

  it('a host fact about one interface holds for that interface, not for the host or another; about nobody, for the host', () => {
    const condition = { fact: 'ticket.reports', path: 'said.mbps', op: 'exists', about: 'said.interface' } as const;
    const about = (iface: string | null) => ({ 'ticket.reports': { said: { mbps: 1000, interface: iface } } });
    const onIface = evaluate(condition, context([], about(IF), IF), {});
    expect(onIface?.interfaceSpecific).toBe(true);
    expect(evaluate(condition, context([], about(IF), 'host'), {})).toBeNull();
    expect(evaluate(condition, context([], about(IF), 'eth9'), {})).toBeNull();
    expect(evaluate(condition, context([], about(null), 'host'), {})?.interfaceSpecific).toBe(false);
    expect(evaluate(condition, context([], about(null), IF), {})).toBeNull();
  });

  it('a host fact about several interfaces holds for each of them', () => {
    const condition = { fact: 'ticket.reports', path: 'cure.interfaces', op: 'exists', about: 'cure.interfaces' } as const;
    const facts = { 'ticket.reports': { cure: { interfaces: [IF, 'eth9'] } } };
    expect(evaluate(condition, context([], facts, IF), {})?.interfaceSpecific).toBe(true);
    expect(evaluate(condition, context([], facts, 'eth9'), {})).not.toBeNull();
    expect(evaluate(condition, context([], facts, 'host'), {})).toBeNull();
    const none = { 'ticket.reports': { cure: { interfaces: [] } } };
    expect(evaluate(condition, context([], none, 'host'), {})?.interfaceSpecific).toBe(false);
  });

  it('collects evidence and bindings from every branch that holds, plain and qualified', () => {
    const match = evaluate(
      {
        any: [
          { symptom: 'pcie-link/pcie-bandwidth-below-port' },
          { symptom: 'throughput/pcie-bound' },
          { fact: 'pcie.link', path: 'link.width', op: 'exists', as: 'width' },
        ],
      },
      context([pcie, bound], { 'pcie.link': { link: { width: 1 } } }),
      {},
    )!;
    expect(match.evidence).toEqual([
      { check: 'pcie-link', symptom: 'pcie-bandwidth-below-port', subject: IF },
      { check: 'throughput', symptom: 'pcie-bound', subject: 'host' },
      { fact: 'pcie.link', path: 'link.width', value: 1 },
    ]);
    expect(match.interfaceSpecific).toBe(true);
    expect(match.bindings).toMatchObject({
      ceilingGbps: 3.56,
      'pcie-link/pcie-bandwidth-below-port.ceilingGbps': 3.56,
      resultGbps: 3.2,
      width: 1,
    });
  });
});
