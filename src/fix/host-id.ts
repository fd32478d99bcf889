/**
 * Which host and network namespace this is, for the fix state: ethtool settings and net.*
 * sysctls belong to a network namespace, so a state saved on another host, or in another
 * namespace of this one, restores nothing here. The machine id names the host (a hostname may
 * be shared or change); the namespace's inode names the namespace (the initial one's is fixed).
 */
import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';

function machineId(): string | null {
  for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
    try {
      const id = readFileSync(file, 'utf8').trim();
      if (/^[0-9a-f]{32}$/.test(id)) return id;
    } catch {
      // not there: the next one, then the hostname
    }
  }
  return null;
}

function networkNamespace(): string {
  try {
    return String(statSync('/proc/self/ns/net').ino);
  } catch {
    return 'unknown';
  }
}

/** "machine-id 1234… netns 4026531840" (or "hostname web1 …" where there is no machine id). */
export function currentHostId(): string {
  const id = machineId();
  return `${id ? `machine-id ${id}` : `hostname ${hostname()}`} netns ${networkNamespace()}`;
}
