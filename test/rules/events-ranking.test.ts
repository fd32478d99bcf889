import { describe, expect, it } from 'vitest';
import { partitionDiagnoses } from '../../src/rules/engine.js';
import { IF, run } from './helpers.js';
import * as x from './fixtures.js';
import * as e from './event-fixtures.js';

describe('event faults rank ahead of the settings they make irrelevant', () => {
  it('a rejected transceiver on a port with no carrier: the module is the diagnosis, not cables and CRC errors', () => {
    const noCarrier = x.physicalErrors;
    const diagnoses = run({ findings: [e.moduleRejected, noCarrier, x.perPacket] });
    expect(diagnoses[0]).toMatchObject({ ruleId: 'module-rejected', cause: 23, subject: IF, severity: 'critical' });
    expect(diagnoses.map((diagnosis) => diagnosis.ruleId)).not.toContain('link-physical-errors');
    expect(diagnoses.findIndex((diagnosis) => diagnosis.ruleId === 'coalescing-per-packet')).toBeGreaterThan(0);
    // A module rejected once and replaced since does not silence the physical-layer rule.
    expect(run({ findings: [e.moduleReplaced, noCarrier] }).map((diagnosis) => diagnosis.ruleId)).toContain('link-physical-errors');
  });

  it('repeated TX timeouts outrank ring and coalescing settings on the same port', () => {
    const diagnoses = run({ findings: [x.rxRingBelow, x.perPacket, e.txTimeouts] });
    expect(diagnoses[0]).toMatchObject({ ruleId: 'tx-timeouts-resets', cause: 21 });
  });

  it('a note-level event (a layer2 hash, an old module rejection) stays among the notes', () => {
    const { diagnoses, notes } = partitionDiagnoses(run({ findings: [e.layer2Hash, e.moduleReplaced] }));
    expect(diagnoses).toEqual([]);
    expect(notes.map((note) => note.ruleId).sort()).toEqual(['bond-layer2-hash', 'module-rejected']);
    expect(notes.find((note) => note.ruleId === 'bond-layer2-hash')!.references.some((reference) => reference.startsWith('https://'))).toBe(
      true,
    );
  });
});
