import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';

function fakeStream(isTTY: boolean) {
  const written: string[] = [];
  return { stream: { isTTY, write: (text: string) => written.push(text) > 0 } as unknown as NodeJS.WriteStream, written };
}

describe('progress on stderr', () => {
  it('prints plain lines when piped', () => {
    const { stream, written } = fakeStream(false);
    const progress = createProgress('bench', stream);
    progress.step('ramp step 1/3');
    progress.step('ramp step 2/3');
    progress.done();
    expect(written).toEqual(['bench: ramp step 1/3\n', 'bench: ramp step 2/3\n']);
  });

  it('updates one line in place on a terminal, and ticks finished steps', () => {
    const { stream, written } = fakeStream(true);
    const progress = createProgress('bench', stream);
    progress.step('ramp step 1/3');
    progress.step('ramp step 2/3');
    progress.done();
    const text = written.join('');
    expect(text).toContain('\r\u001b[K');
    expect(text).toContain('✓ bench: ramp step 1/3\n');
    expect(text).toContain('✓ bench: ramp step 2/3\n');
    expect(text).toMatch(/ bench: ramp step 2\/3 \(0 s\)/);
  });
});
