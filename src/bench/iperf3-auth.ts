/**
 * iperf3's own authentication on the bench client (iperf3 3.7+ built with OpenSSL, Debian 12's
 * 3.12 included): `--username U --rsa-public-key-path P`, with the password in IPERF3_PASSWORD,
 * which iperf3 reads itself. They come from the environment, as NICDOCTOR_SERVE_TOKEN does, so
 * that no secret is on a command line other users can read in /proc. Set all three or none.
 */
export interface Iperf3ClientAuth {
  username: string;
  publicKey: string;
  password: string;
}

export const AUTH_ENV = {
  username: 'NICDOCTOR_IPERF3_USERNAME',
  publicKey: 'NICDOCTOR_IPERF3_PUBLIC_KEY',
  password: 'IPERF3_PASSWORD',
} as const;

/** iperf3 cuts user names at the comma of its authorized-users file: a plain word only. */
const USERNAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The client's credentials from the environment, null when none is set, or why they are incomplete. */
export function clientAuthFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): { ok: true; auth: Iperf3ClientAuth | null } | { ok: false; reason: string } {
  const values = { username: env[AUTH_ENV.username], publicKey: env[AUTH_ENV.publicKey], password: env[AUTH_ENV.password] };
  const given = Object.entries(values).filter(([, value]) => value);
  if (given.length === 0) return { ok: true, auth: null };
  if (given.length < 3)
    return {
      ok: false,
      reason: `iperf3 authentication needs ${Object.values(AUTH_ENV).join(', ')} together; missing ${Object.entries(values)
        .filter(([, value]) => !value)
        .map(([key]) => AUTH_ENV[key as keyof typeof AUTH_ENV])
        .join(', ')}`,
    };
  if (!USERNAME.test(values.username!))
    return { ok: false, reason: `${AUTH_ENV.username}: not a plain user name (letters, digits, _ . -)` };
  if (!values.publicKey!.startsWith('/'))
    return { ok: false, reason: `${AUTH_ENV.publicKey}: give an absolute path to the PEM public key` };
  return { ok: true, auth: { username: values.username!, publicKey: values.publicKey!, password: values.password! } };
}

/** The client arguments for iperf3 and the environment that carries the password. */
export function clientAuthArgs(auth: Iperf3ClientAuth | null): { args: string[]; env: Record<string, string> } {
  if (!auth) return { args: [], env: {} };
  return { args: ['--username', auth.username, '--rsa-public-key-path', auth.publicKey], env: { [AUTH_ENV.password]: auth.password } };
}
