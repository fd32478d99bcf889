import { isFreebsdDriverLine } from '../parsers/freebsd-boot.js';
import { normalize } from './normalize.js';

/**
 * Where a kernel log line starts: `[ 12.345678]` (or `12.345678]`, its bracket lost), a syslog
 * stamp (with rsyslog's fractional seconds, "Apr  9 21:05:38.106121"), a journal stamp, `<6>`, or
 * syslog's "host kernel: " tag where the date was cut off (or taken off with the other lines' stamps, normalize.ts),
 * or a PCI device's prefix with no stamp at all (`dmesg -t`, `journalctl -o cat`: "e1000e 0000:01:00.0: eth1: ...").
 */
const KERNEL_LINE_START =
  /^(?:\[?\s{0,12}\d{1,12}\.\d{1,9}\]|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d{1,9})? |\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|<\d>|(?:[\w.-]{1,64} )?kernel: |[\w-]{1,32} [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]:? )/;
/** A command line typed after the log ("# lspci -vv", "user@host:~$ ethtool eth0"): not a wrapped piece. */
const SHELL_PROMPT = /^(?:[#$%]\s?[a-z]|[\w.-]{1,32}@[\w.-]{1,64}[:\s][^\s#$]{0,80}[#$]\s)/;
/** A mailer wraps at 72-80 columns: a kernel line at least this long may go on on the next line. */
const WRAPPED_AT_LEAST = 60;
/** The narrowest wrap width mailers use. */
const NARROWEST_WRAP = 72;
/** A shorter piece is a line of its own, whatever word follows. */
const SHORTEST_CUT = 40;

/**
 * The kernel log lines of a pasted text, read wherever they stand: quoting, CRLF and Unicode
 * spaces undone as for the outputs (normalize.ts), and a line a mailer wrapped joined back to the
 * kernel line it was cut from, so that "limited by 8.0 GT/s PCIe x8 link" survives a 72-column
 * reply.
 */
export function kernelLogOfText(text: string): string {
  return rejoinWrapped(text, (line) => KERNEL_LINE_START.test(line));
}

/**
 * FreeBSD's driver messages (`ice0: ... failed to establish link.`), which carry no timestamp,
 * as kernelLogOfText gives Linux's: normalised, and each wrapped piece joined back to its line.
 */
export function freebsdDriverLinesOfText(text: string): string {
  // A FreeBSD driver message is a sentence: one that ends with its full stop was not cut.
  return rejoinWrapped(text, isFreebsdDriverLine, (line) => !line.endsWith('.'));
}

/** The normalised lines, with each line a mailer cut from a line `isStart` accepts joined back to it. */
function rejoinWrapped(text: string, isStart: (line: string) => boolean, mayGoOn: (line: string) => boolean = () => true): string {
  const out: string[] = [];
  // Widths as the mailer saw them: with the quoting and the stamps normalize() takes off.
  const raw = text.replace(/\r\n?/g, '\n').split('\n');
  // The width of the last piece when it may go on on the next line; -1 when it may not.
  let openLength = -1;
  for (const { text: unstamped, number, stamp } of normalize(text).lines) {
    // The syslog stamp normalize() took off gives each event its time ("dropped 5 s after it came up").
    const line = stamp && isStart(stamp + unstamped) ? stamp + unstamped : unstamped;
    const width = Math.max(line.length, raw[number - 1]?.length ?? 0);
    if (isStart(line)) {
      out.push(line);
      openLength = mayGoOn(line) ? width : -1;
    } else if (wasCut(openLength, line) && !/^\s/.test(line) && !SHELL_PROMPT.test(line)) {
      // A piece as long as the wrap width was itself cut: the line may go on once more.
      out[out.length - 1] += ` ${line.trim()}`;
      openLength = mayGoOn(line) ? width : -1;
    } else {
      out.push(line);
      openLength = -1;
    }
  }
  return out.join('\n');
}

/**
 * Whether a piece of `length` characters was cut before `next`: it is as long as a wrapped line
 * is, or the next line's first word would not have fit within 72 columns after it (a mailer
 * moves a long word, "(meson8b-dwmac):", down whole and leaves a short line).
 */
function wasCut(length: number, next: string): boolean {
  if (length < 0 || next.trim() === '') return false;
  const firstWord = next.trim().split(/\s/, 1)[0]!;
  return length >= WRAPPED_AT_LEAST || (length >= SHORTEST_CUT && length + 1 + firstWord.length > NARROWEST_WRAP);
}
