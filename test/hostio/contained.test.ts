import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ContainedReader } from '../../src/hostio/contained.js';

// The contained reader takes a file's type from its directory's listing (no lstat per file); the
// checks an lstat made must hold all the same: links that escape, FIFOs, directories, size caps.
describe('ContainedReader on an input built to trap it', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'contained-'));
  const outside = mkdtempSync(path.join(os.tmpdir(), 'outside-'));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });
  const dir = path.join(root, 'fs', 'sys', 'class', 'net', 'eth0');
  mkdirSync(path.join(dir, 'statistics'), { recursive: true });
  writeFileSync(path.join(dir, 'mtu'), '9000\n');
  writeFileSync(path.join(outside, 'secret'), 'outside\n');
  symlinkSync('mtu', path.join(dir, 'mtu-link'));
  symlinkSync(path.join(outside, 'secret'), path.join(dir, 'speed'));
  symlinkSync(outside, path.join(dir, 'device'));
  execFileSync('mkfifo', [path.join(dir, 'operstate')]);
  writeFileSync(path.join(dir, 'big'), 'x'.repeat(1024 * 1024 + 1));
  const warnings: string[] = [];
  const open = () => ContainedReader.open(root, (message) => warnings.push(message));
  const at = (name: string) => path.join('fs/sys/class/net/eth0', name);

  it('reads a listed file and a link that stays inside; a missing file is undefined', async () => {
    const reader = await open();
    expect(await reader.readTextIfExists(at('mtu'))).toBe('9000\n');
    expect(await reader.readTextIfExists(at('mtu-link'))).toBe('9000\n');
    expect(await reader.readTextIfExists(at('carrier'))).toBeUndefined();
    expect(await reader.readTextIfExists(at('statistics/rx_packets'))).toBeUndefined();
  });

  it('never opens a link that leads outside, directly or through a linked directory', async () => {
    const reader = await open();
    await expect(reader.readTextIfExists(at('speed'))).rejects.toThrow(/links outside itself/);
    await expect(reader.readTextIfExists(at('device/secret'))).rejects.toThrow(/links outside itself/);
    expect(warnings.some((warning) => warning.includes('leads outside'))).toBe(true);
  });

  it('refuses a FIFO, a directory and a file over its cap without blocking', async () => {
    const reader = await open();
    await expect(reader.readTextIfExists(at('operstate'))).rejects.toThrow(/not a regular file \(a FIFO\)/);
    await expect(reader.readTextIfExists(at('statistics'))).rejects.toThrow(/not a regular file \(a directory\)/);
    await expect(reader.readTextIfExists(at('big'), 'metadata')).rejects.toThrow(/more than the 1048576-byte limit/);
    await expect(reader.readTextIfExists(at('big'), 'capture')).resolves.toHaveLength(1024 * 1024 + 1);
  });
});
