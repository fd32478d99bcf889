import { isFreebsdDriverLine } from '../parsers/freebsd-boot.js';
import { normalize } from './normalize.js';

/**
 * Where a kernel log line starts: `[ 12.345678]` (or `12.345678]`, its bracket lost), a syslog
 * stamp (with rsyslog's fractional seconds, "Apr  9 21:05:38.106121"), a journal stamp, `<6>`, or
 * syslog's "kernel: " tag where the date was cut off.
 */
const KERNEL_LINE_START =
  /^(?:\[?\s{0,12}\d{1,12}\.\d{1,9}\]|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d{1,9})? |\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|<\d>|kernel: )/;
/** A command line typed after the log ("# lspci -vv", "user@host:~$ ethtool eth0"): not a wrapped piece. */
const SHELL_PROMPT = /^(?:[#$%]\s?[a-z]|[\w.-]{1,32}@[\w.-]{1,64}[:\s][^\s#$]{0,80}[#$]\s)/;
/** A mailer wraps at 72-80 columns: a kernel line at least this long may go on on the next line. */
const WRAPPED_AT_LEAST = 60;

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
  let open = false;
  for (const { text: line } of normalize(text).lines) {
    if (isStart(line)) {
      out.push(line);
      open = line.length >= WRAPPED_AT_LEAST && mayGoOn(line);
    } else if (open && line.trim() !== '' && !/^\s/.test(line) && !SHELL_PROMPT.test(line)) {
      // A piece as long as the wrap width was itself cut: the line may go on once more.
      out[out.length - 1] += ` ${line.trim()}`;
      open = line.length >= WRAPPED_AT_LEAST && mayGoOn(line);
    } else {
      out.push(line);
      open = false;
    }
  }
  return out.join('\n');
}
