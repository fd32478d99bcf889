import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { inRange, parseVersion, parseVersionRange } from '../../src/domain/versions.js';
import { references } from '../../src/rules/conditions.js';
import { knownIssueJsonSchemaText } from '../../src/rules/json-schema.js';
import { defaultKnownIssuesDir, loadKnownIssues, matchKnownIssues, parseKnownIssueDocument } from '../../src/rules/known-issues.js';
import { partitionDiagnoses } from '../../src/rules/engine.js';
import { RuleLoadError } from '../../src/rules/loader.js';
import type { EthtoolDriver } from '../../src/parsers/ethtool-driver.js';
import { moduleRejected, txTimeouts } from './event-fixtures.js';
import { flapping } from './fixtures.js';
import { IF, finding, nic, report } from './helpers.js';

const issues = loadKnownIssues();

function driver(name: string, version: string | null, firmwareVersion: string | null): EthtoolDriver {
  return {
    driver: name,
    version,
    firmwareVersion,
    expansionRomVersion: null,
    busInfo: '0000:41:00.0',
    supportsStatistics: true,
    supportsTest: true,
    supportsEepromAccess: true,
    supportsRegisterDump: true,
    supportsPrivFlags: true,
  };
}

describe('version strings as drivers and kernels print them', () => {
  it.each([
    ['i40e NVM', '6.01 0x800035d8 1.1747.0', [6, 1]],
    ['i40e NVM 5.x', '5.04 0x80002530 0.0.0', [5, 4]],
    ['ice NVM', '4.51 0x8001e501 23.0.8', [4, 51]],
    ['ice NVM 2.x', '2.28 0x80010193 1.3200.0', [2, 28]],
    ['mlx5', '16.28.2006 (MT_0000000008)', [16, 28, 2006]],
    ['mlx5 ConnectX-4 Lx', '14.23.1020', [14, 23, 1020]],
    ['bnxt_en', '218.0.219.0/pkg 218.0.219.0', [218, 0, 219, 0]],
    ['bnx2x boot code', 'bc 5.2.7 phy baa0.105', [5, 2, 7]],
    ['ixgbe NVM and eetrack', '1.61, 0x8000090e', [1, 61]],
    ['ixgbe eetrack only', '0x800000cb', [0x800000cb]],
    ['kernel release', '5.15.0-91-generic', [5, 15, 0]],
    ['in-tree driver version', '6.15.9-201.fc42.x86_64', [6, 15, 9]],
  ])('%s: %s', (_kind, text, expected) => {
    expect(parseVersion(text)).toEqual(expected);
  });

  it('has no version for N/A, empty or missing strings', () => {
    expect(parseVersion('N/A')).toBeNull();
    expect(parseVersion('')).toBeNull();
    expect(parseVersion(null)).toBeNull();
  });

  it('compares ranges numerically, not as text', () => {
    const before601 = parseVersionRange('<6.01');
    expect(inRange(before601, parseVersion('5.04 0x80002530 0.0.0'))).toBe(true);
    expect(inRange(before601, parseVersion('6.01 0x800035d8 1.1747.0'))).toBe(false);
    expect(inRange(before601, parseVersion('10.0 0x8000aaaa 1.0.0'))).toBe(false);
    const cx6 = parseVersionRange('>=22 <22.40.1000');
    expect(inRange(cx6, parseVersion('22.31.2006'))).toBe(true);
    expect(inRange(cx6, parseVersion('22.40.1000'))).toBe(false);
    expect(inRange(cx6, parseVersion('16.28.2006'))).toBe(false);
    expect(inRange(parseVersionRange('=5.10.55'), parseVersion('5.10.55+'))).toBe(true);
    expect(inRange(parseVersionRange('=5.10'), parseVersion('5.10.200-1-lts'))).toBe(true);
    expect(inRange(parseVersionRange('<4.6 || >=6.9'), parseVersion('6.12.1'))).toBe(true);
    expect(inRange(parseVersionRange('<0x80000877'), parseVersion('0x800000cb'))).toBe(true);
    expect(inRange(before601, null)).toBe(false);
  });

  it('rejects a malformed range with its reason', () => {
    expect(() => parseVersionRange('about 6')).toThrow(/not a comparator/);
    expect(() => parseVersionRange('')).toThrow(/comparators/);
  });
});

describe('the known-issue catalogue', () => {
  it('ships at least 25 entries, each with a link and the source it was written from', () => {
    expect(issues.length).toBeGreaterThanOrEqual(25);
    for (const issue of issues) {
      expect(issue.links.length, issue.id).toBeGreaterThan(0);
      expect(issue.source, issue.id).toMatch(/^https?:\/\//);
    }
  });

  it('names only symptoms a check declares', () => {
    const declared = new Set(checks.flatMap((check) => Object.keys(check.symptoms).map((id) => `${check.id}/${id}`)));
    for (const issue of issues) {
      const refs = { symptoms: new Set<string>(), facts: new Set<string>(), checks: new Set<string>() };
      references(issue.symptom, refs);
      for (const symptom of refs.symptoms) expect(declared.has(symptom), `${issue.id}: ${symptom}`).toBe(true);
    }
  });

  it('has a JSON schema generated from the zod schema (npm run schema:generate)', () => {
    const file = path.join(defaultKnownIssuesDir(), 'known-issue.schema.json');
    expect(readFileSync(file, 'utf8')).toBe(knownIssueJsonSchemaText());
  });

  it('refuses an entry with a bad range, naming the file, the entry and the field', () => {
    const entry = { ...issues[0]!, firmware: 'around 6' } as Record<string, unknown>;
    delete entry.file;
    expect(() => parseKnownIssueDocument({ issues: [entry] }, 'bad.yaml')).toThrow(RuleLoadError);
    expect(() => parseKnownIssueDocument({ issues: [entry] }, 'bad.yaml')).toThrow(
      /bad\.yaml: rule "[a-z0-9-]+": issues\[0\]\.firmware: .*not a comparator/,
    );
  });

  it('refuses a link that is not a web address', () => {
    const entry = { ...issues[0]!, links: ['see the README'] } as Record<string, unknown>;
    delete entry.file;
    expect(() => parseKnownIssueDocument({ issues: [entry] }, 'bad.yaml')).toThrow(/links\[0\]/);
  });
});

describe('matching known issues on a host', () => {
  // The i40e LLDP entry: firmware before NVM 6.01, seen as a flapping carrier.
  const lldp = issues.find((issue) => issue.id === 'i40e-fw-lldp-agent-before-nvm-6-01')!;
  const i40e = nic(IF, { driver: 'i40e' });

  it('reports it when the versions match and the symptom is present', () => {
    const facts = (id: string) => (id === 'ethtool.driver' ? driver('i40e', '2.3.2-k', '5.04 0x80002530 0.0.0') : undefined);
    const found = matchKnownIssues(report({ interfaces: [i40e], findings: [flapping] }), facts, [lldp]);
    expect(found).toHaveLength(1);
    const { diagnoses, notes } = partitionDiagnoses(found);
    expect(diagnoses.map((item) => item.ruleId)).toEqual(['known-issue/i40e-fw-lldp-agent-before-nvm-6-01']);
    expect(notes).toEqual([]);
    expect(diagnoses[0]!.subject).toBe(IF);
    expect(diagnoses[0]!.explanation).toContain('firmware 5.04 0x80002530 0.0.0');
    expect(diagnoses[0]!.evidence).toContainEqual({ check: 'link-speed', symptom: 'carrier-flapping', subject: IF });
    expect(diagnoses[0]!.references).toEqual([...lldp.links, lldp.source]);
  });

  it('is keyed to the kernel events that show it: a rejected module or a transmit hang in the log is the symptom', () => {
    // Both entries are driver-wide caveats: with their symptom they are a note that cites it, without it silent.
    const ixgbe = nic(IF, { driver: 'ixgbe' });
    const facts = (id: string) => (id === 'ethtool.driver' ? driver('ixgbe', '5.1.0-k', '0x800003e2') : undefined);
    const keyed = (id: string) => issues.find((issue) => issue.id === id)!;
    const entries = [keyed('ixgbe-unsupported-sfp-module'), keyed('ixgbe-82599-tx-unit-hang-under-load')];
    const rejected = matchKnownIssues(report({ interfaces: [ixgbe], findings: [moduleRejected] }), facts, entries);
    expect(rejected.map((item) => item.ruleId)).toEqual(['known-issue/ixgbe-unsupported-sfp-module']);
    expect(rejected[0]!.evidence).toContainEqual({ check: 'kernel-events', symptom: 'module-rejected', subject: IF });
    const hung = matchKnownIssues(report({ interfaces: [ixgbe], findings: [txTimeouts] }), facts, entries);
    expect(hung.map((item) => item.ruleId)).toEqual(['known-issue/ixgbe-82599-tx-unit-hang-under-load']);
    expect(matchKnownIssues(report({ interfaces: [ixgbe] }), facts, entries)).toEqual([]);
  });

  it('is a note when only the versions match', () => {
    const facts = (id: string) => (id === 'ethtool.driver' ? driver('i40e', '2.3.2-k', '5.04 0x80002530 0.0.0') : undefined);
    const { diagnoses, notes } = partitionDiagnoses(matchKnownIssues(report({ interfaces: [i40e] }), facts, [lldp]));
    expect(diagnoses).toEqual([]);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.severity).toBe('info');
    expect(notes[0]!.explanation).toMatch(/^Known issue in this firmware; its symptom is not seen here\./);
  });

  it('says nothing when the firmware is outside the range or the driver differs', () => {
    const fixed = (id: string) => (id === 'ethtool.driver' ? driver('i40e', '2.3.2-k', '6.01 0x800035d8 1.1747.0') : undefined);
    expect(matchKnownIssues(report({ interfaces: [i40e], findings: [flapping] }), fixed, [lldp])).toEqual([]);
    const other = (id: string) => (id === 'ethtool.driver' ? driver('ixgbe', '5.1.0-k', '1.61, 0x8000090e') : undefined);
    expect(matchKnownIssues(report({ interfaces: [i40e], findings: [flapping] }), other, [lldp])).toEqual([]);
    const unknown = (id: string) => (id === 'ethtool.driver' ? driver('i40e', '2.3.2-k', 'N/A') : undefined);
    expect(matchKnownIssues(report({ interfaces: [i40e], findings: [flapping] }), unknown, [lldp])).toEqual([]);
    expect(matchKnownIssues(report({ interfaces: [i40e], findings: [flapping] }), () => undefined, [lldp])).toEqual([]);
  });

  it('an entry keyed by the driver alone is a note with its symptom and silent without it', () => {
    const twice = issues.find((issue) => issue.id === 'i40e-rx-errors-counted-twice')!;
    const facts = (id: string) => (id === 'ethtool.driver' ? driver('i40e', '2.3.2-k', '9.54 0x8000fb2b 24.0.5') : undefined);
    expect(matchKnownIssues(report({ interfaces: [i40e] }), facts, [twice])).toEqual([]);
    const nicErrors = finding('nic-drops/nic-errors', IF, {}, 'warning');
    const { diagnoses, notes } = partitionDiagnoses(
      matchKnownIssues(report({ interfaces: [i40e], findings: [nicErrors] }), facts, [twice]),
    );
    expect(diagnoses).toEqual([]);
    expect(notes.map((note) => note.ruleId)).toEqual(['known-issue/i40e-rx-errors-counted-twice']);
  });

  it('matches a kernel range against the host kernel', () => {
    const ethtoolA = issues.find((issue) => issue.id === 'i40e-ethtool-a-before-kernel-4-6')!;
    const facts = (id: string) => (id === 'ethtool.driver' ? driver('i40e', '2.3.2-k', '6.01 0x800035d8 1.1747.0') : undefined);
    // The scenario host runs 6.1.0: outside "<4.6".
    expect(matchKnownIssues(report({ interfaces: [i40e] }), facts, [ethtoolA])).toEqual([]);
    const old = report({ interfaces: [i40e] });
    old.host.kernel = '4.4.0-210-generic';
    expect(matchKnownIssues(old, facts, [ethtoolA])).toHaveLength(1);
  });
});
