import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { readRegularFile } from '../hostio/contained.js';
import { formatForCommand } from './formats.js';

/**
 * A directory of command outputs, one file per command, named by the command: what someone
 * saves from a host nicdoctor cannot run on (`ifconfig_-v`, `pciconf -lvc.txt`, `sysctl_dev.ix.0`),
 * or the cmd/ directory of a `collect --script --os freebsd` archive (each output beside a
 * `<key>.json` that holds its argv). Read as the text of those outputs, each under a
 * `=== <command> ===` header, so that the text analysis recognises every one by its command.
 *
 * Only regular files directly in the directory are read (no link is followed, no subdirectory),
 * at most MAX_FILES of them and MAX_BYTES in all.
 */

const MAX_FILES = 2_000;
const MAX_BYTES = 16 * 1024 * 1024;
/** Commands whose output is read from the whole text (boot messages) or that name the host. */
const OTHER_COMMANDS = /^(?:dmesg|uname|freebsd-version|hostname)(?:\s|$)/;

/** `pciconf_-lvc.txt` → `pciconf -lvc`; null when the name is no command nicdoctor reads. */
export function commandOfFileName(name: string): string | null {
  const base = name.replace(/\.(?:txt|out|log)$/i, '');
  if (!base || base.startsWith('.') || base.endsWith('.json')) return null;
  const command = base
    .replace(/_/g, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();
  // `sysctl dev.ix.0` keeps its dots; a key's `_` inside a sysctl name was a space only between words.
  const restored = /^sysctl /.test(command) ? `sysctl ${base.slice('sysctl_'.length).split('_').filter(Boolean).join(' ')}` : command;
  return formatForCommand(restored) || OTHER_COMMANDS.test(restored) ? restored : null;
}

interface Entry {
  command: string;
  file: string;
}

async function entriesOf(dir: string): Promise<Entry[]> {
  const names = (await readdir(dir)).sort().slice(0, MAX_FILES * 2);
  const metaArgv = new Map<string, string>();
  for (const name of names.filter((entry) => entry.endsWith('.json'))) {
    // collect.sh's <key>.json: {"argv":[...],...}; only its argv is used, to name the output.
    const file = path.join(dir, name);
    const info = await lstat(file);
    if (!info.isFile() || info.size > 64 * 1024) continue;
    try {
      const meta = JSON.parse(await readRegularFile(file, 64 * 1024)) as { argv?: unknown };
      if (Array.isArray(meta.argv) && meta.argv.every((part) => typeof part === 'string'))
        metaArgv.set(name.slice(0, -'.json'.length), meta.argv.join(' '));
    } catch {
      // Not collect.sh's metadata: the output is named by its file name instead.
    }
  }
  const entries: Entry[] = [];
  for (const name of names) {
    if (name.endsWith('.json')) continue;
    const file = path.join(dir, name);
    const info = await lstat(file);
    if (!info.isFile()) continue;
    const command = metaArgv.get(name) ?? commandOfFileName(name);
    if (command) entries.push({ command, file });
    if (entries.length >= MAX_FILES) break;
  }
  return entries;
}

/** Whether `dir` holds at least one output named by a command nicdoctor reads. */
export async function isCommandDirectory(dir: string): Promise<boolean> {
  const info = await lstat(dir).catch(() => null);
  if (!info?.isDirectory()) return false;
  return (await entriesOf(dir).catch(() => [])).length > 0;
}

/** The outputs as one text, each under its command's header. */
export async function commandDirectoryText(dir: string): Promise<string> {
  const parts: string[] = [];
  let total = 0;
  for (const entry of await entriesOf(dir)) {
    const text = await readRegularFile(entry.file, MAX_BYTES - total, path.basename(entry.file));
    total += text.length;
    parts.push(`=== ${entry.command} ===\n${text.endsWith('\n') ? text : `${text}\n`}`);
    if (total >= MAX_BYTES) break;
  }
  return parts.join('\n');
}
