import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createLab, type Lab } from '../../lab/lab.js';

/** The tcp_rmem the fix lab starts with: far below any tier, so fix raises it. */
export const LOW_RMEM = '4096 8192 16384';

export interface FixLab {
  readonly lab: Lab;
  /** A temporary directory of the test's own, removed afterwards. */
  readonly dir: string;
  /** What fix changes on side a, read back with the real tools (a closure: safe to destructure). */
  observe: () => Promise<{ tso?: string; gso?: string; rx?: string; tx?: string; tcpRmem: string }>;
}

/**
 * A lab whose side a has the faults `nicdoctor fix` repairs (TSO/GSO off, one channel, a small
 * tcp_rmem). Registers its own beforeAll/afterAll in the calling describe block.
 */
export function useFixLab(tempPrefix: string): FixLab {
  let lab: Lab | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), tempPrefix));
    lab = await createLab();
    await lab.offloads('a', { tso: false, gso: false });
    await lab.channels('a', 1);
    await lab.exec('a', ['sysctl', '-w', `net.ipv4.tcp_rmem=${LOW_RMEM}`]);
  });
  afterAll(async () => {
    await lab?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get lab() {
      return lab!;
    },
    get dir() {
      return dir!;
    },
    async observe() {
      const features = (await lab!.exec('a', ['ethtool', '-k', lab!.a.iface])).stdout;
      const channels = (await lab!.exec('a', ['ethtool', '-l', lab!.a.iface])).stdout;
      const current = channels.slice(channels.indexOf('Current hardware settings'));
      return {
        tso: /^tcp-segmentation-offload: (on|off)/m.exec(features)?.[1],
        gso: /^generic-segmentation-offload: (on|off)/m.exec(features)?.[1],
        rx: /^RX:\s+(\S+)/m.exec(current)?.[1],
        tx: /^TX:\s+(\S+)/m.exec(current)?.[1],
        tcpRmem: (await lab!.exec('a', ['cat', '/proc/sys/net/ipv4/tcp_rmem'])).stdout.trim().split(/\s+/).join(' '),
      };
    },
  };
}
