/**
 * sysctl.conf(5) / sysctl.d(5) files: "key = value" lines; '#' and ';' start comments; a leading
 * '-' means "ignore a failure to set it"; '/' may separate the key's words instead of '.'.
 * Keys with globs (systemd's "net.ipv4.conf.*.rp_filter") are left out: they name no one file.
 */
export interface SysctlSetting {
  key: string;
  value: string;
}

const MAX_LINES = 5000;

export function parseSysctlConf(text: string): SysctlSetting[] {
  const settings: SysctlSetting[] = [];
  for (const raw of text.split('\n').slice(0, MAX_LINES)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const equals = line.indexOf('=');
    if (equals <= 0) continue;
    const key = line.slice(0, equals).trim().replace(/^-/, '').trim().replace(/\//g, '.');
    if (!/^[A-Za-z0-9_][\w.:@-]*$/.test(key)) continue;
    settings.push({ key, value: normalizeSysctlValue(line.slice(equals + 1)) });
  }
  return settings;
}

/** Values compare by their words: /proc/sys prints tabs ("4096\t87380\t6291456") where files have spaces. */
export function normalizeSysctlValue(value: string): string {
  return value.trim().split(/\s+/).join(' ');
}
