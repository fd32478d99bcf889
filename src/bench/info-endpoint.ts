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

export function startInfoEndpoint(host: string | null, port: number, info: () => ServerInfo, onRequest: () => void): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    onRequest();
    if (request.method !== 'GET' || request.url !== INFO_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(info()));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host ?? undefined, () => resolve(server));
  });
}

/** Asks a peer's `nicdoctor serve` for its plan; null when there is none (plain iperf3 servers). */
export async function fetchServerInfo(host: string, port: number, timeoutMs = 3000): Promise<ServerInfo | null> {
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${INFO_PATH}`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return null;
    const parsed = serverInfoSchema.safeParse(await response.json());
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
