import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { z } from 'zod';

/** What `nicdoctor serve` tells a client so it can plan the ramp. Read-only. */
export const serverInfoSchema = z.object({
  nicdoctor: z.string(),
  iperf3: z.string().nullable(),
  cores: z.number().int(),
  nicLocalCpus: z.array(z.number().int()),
  ports: z.array(z.number().int()),
  bind: z.string().nullable(),
});
export type ServerInfo = z.infer<typeof serverInfoSchema>;

export const INFO_PATH = '/nicdoctor/info';

/**
 * The read-only info endpoint. onRequest is called only for a served info request (a bench
 * client), never for a 404 or a refused token, so scanners cannot keep an idle serve alive.
 * With a token, a request must carry `Authorization: Bearer <token>`.
 */
export function startInfoEndpoint(
  host: string | null,
  port: number,
  info: () => ServerInfo,
  onRequest: () => void,
  token?: string,
): Promise<http.Server> {
  const server = http.createServer({ requestTimeout: 10_000, headersTimeout: 5_000, maxHeaderSize: 8192 }, (request, response) => {
    if (request.method !== 'GET' || request.url !== INFO_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (token !== undefined && !tokenMatches(request.headers.authorization, token)) {
      response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('a token is required\n');
      return;
    }
    onRequest();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(info()));
  });
  server.keepAliveTimeout = 2000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host ?? undefined, () => resolve(server));
  });
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Constant time whatever the lengths: both sides are hashed first, so the comparison is always
 * of 32 bytes and a wrong guess's length tells nothing (a length check before timingSafeEqual
 * returns early, and so leaks the token's length).
 */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const given = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

/** Closes the endpoint now: open keep-alive or slow connections do not delay shutdown. */
export function closeInfoEndpoint(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Asks a peer's `nicdoctor serve` for its plan; null when there is none (plain iperf3 servers),
 * and `onMissing` hears why (a refused token, no endpoint, a reply of another shape).
 * NICDOCTOR_SERVE_TOKEN is sent when set (serve --token-file on the far end).
 */
export async function fetchServerInfo(
  host: string,
  port: number,
  timeoutMs = 3000,
  onMissing: (why: string) => void = () => {},
): Promise<ServerInfo | null> {
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${INFO_PATH}`;
  const token = process.env.NICDOCTOR_SERVE_TOKEN;
  try {
    const response = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    });
    if (!response.ok) {
      onMissing(`HTTP ${response.status}${response.status === 401 ? ' (the token was refused or not sent: NICDOCTOR_SERVE_TOKEN)' : ''}`);
      return null;
    }
    const parsed = serverInfoSchema.safeParse(await response.json());
    if (!parsed.success) onMissing('the reply is not a nicdoctor serve plan');
    return parsed.success ? parsed.data : null;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    onMissing(cause ?? (error instanceof Error ? error.message : String(error)));
    return null;
  }
}
