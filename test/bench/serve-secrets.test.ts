/**
 * Issue 18 item 6: serve refuses a token file (or iperf3 key) that other users can read or
 * write, compares tokens in constant time whatever the lengths, and the bench client's iperf3
 * credentials are all-or-nothing.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';

const compared: number[][] = [];
vi.mock('node:crypto', async (original) => {
  const crypto = await original<typeof import('node:crypto')>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([a.byteLength, b.byteLength]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});

const { tokenMatches } = await import('../../src/bench/info-endpoint.js');
const { serveCommand } = await import('../../src/cli/bench-commands.js');
const { clientAuthArgs, clientAuthFromEnv } = await import('../../src/bench/iperf3-auth.js');

const dir = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-serve-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TOKEN = 'a-token-of-32-characters-exactly';

describe('the info endpoint token', () => {
  it('compares 32-byte digests for every guess, whatever its length, and accepts only the token', () => {
    compared.length = 0;
    const guesses = ['', 'x', TOKEN.slice(0, -1), `${TOKEN}x`, 'y'.repeat(5000), TOKEN];
    const results = guesses.map((guess) => tokenMatches(`Bearer ${guess}`, TOKEN));
    expect(results).toEqual([false, false, false, false, false, true]);
    // No early return on a length mismatch: every guess reached the constant-time comparison.
    expect(compared).toEqual(guesses.map(() => [32, 32]));
    expect(tokenMatches(undefined, TOKEN)).toBe(false);
    expect(tokenMatches(`Basic ${TOKEN}`, TOKEN)).toBe(false);
  });
});

describe('serve refuses secrets other users can read or write', () => {
  const log = pino({ level: 'silent' });
  const serve = (extra: Record<string, string>) =>
    serveCommand({ bind: '127.0.0.1', ports: [5101], controlPort: 5100, maxTestDuration: 60, ...extra }, log);

  it.each([
    [0o644, /--token-file: .*token-644: mode 0644: group or others may read it \(chmod 600\)/],
    [0o640, /mode 0640: group or others may read it/],
    [0o622, /mode 0622: group or others may write it/],
    [0o666, /mode 0666: group or others may write it/],
  ])('a token file with mode %o', async (mode, message) => {
    const file = path.join(dir, `token-${mode.toString(8)}`);
    writeFileSync(file, `${TOKEN}\n`);
    chmodSync(file, mode);
    await expect(serve({ tokenFile: file })).rejects.toThrow(message);
  });

  it('an iperf3 private key others can read', async () => {
    const key = path.join(dir, 'key.pem');
    const users = path.join(dir, 'users.csv');
    writeFileSync(key, 'not read by this test beyond its mode\n');
    chmodSync(key, 0o644);
    writeFileSync(users, 'u,0\n');
    await expect(serve({ rsaPrivateKey: key, authorizedUsers: users })).rejects.toThrow(
      /--rsa-private-key: .*mode 0644: group or others may read it/,
    );
  });
});

describe('the bench client iperf3 credentials', () => {
  it('come all three from the environment, or none; the password only in the environment', () => {
    expect(clientAuthFromEnv({})).toEqual({ ok: true, auth: null });
    expect(clientAuthFromEnv({ NICDOCTOR_IPERF3_USERNAME: 'bench' })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('missing NICDOCTOR_IPERF3_PUBLIC_KEY, IPERF3_PASSWORD'),
    });
    expect(
      clientAuthFromEnv({ NICDOCTOR_IPERF3_USERNAME: 'a,b', NICDOCTOR_IPERF3_PUBLIC_KEY: '/k.pem', IPERF3_PASSWORD: 'p' }),
    ).toMatchObject({ ok: false });
    const checked = clientAuthFromEnv({
      NICDOCTOR_IPERF3_USERNAME: 'bench',
      NICDOCTOR_IPERF3_PUBLIC_KEY: '/k.pem',
      IPERF3_PASSWORD: 'secret',
    });
    expect(checked.ok).toBe(true);
    const { args, env } = clientAuthArgs(checked.ok ? checked.auth : null);
    expect(args).toEqual(['--username', 'bench', '--rsa-public-key-path', '/k.pem']);
    expect(args.join(' ')).not.toContain('secret');
    expect(env).toEqual({ IPERF3_PASSWORD: 'secret' });
  });
});
