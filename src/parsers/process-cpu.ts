/**
 * Process CPU tables pasted into a ticket: pidstat ("... %CPU   CPU  Command") and top/htop
 * ("PID USER ... S  %CPU  %MEM     TIME+ COMMAND"). A test or capture tool whose process runs at
 * one core's worth of CPU is single-threaded work at its ceiling: the tool, not the NIC, sets the
 * rate. Lines are capped and every pattern is anchored: linear in the text.
 */

const MAX_LINES = 20_000;
/** Rows read under one header (a top screen lists dozens of processes). */
const MAX_ROWS = 64;
/** Test and capture tools whose one process (or thread) does the work of a stream or a capture. */
const TOOLS =
  /^(?:iperf3?|netperf|netserver|nuttcp|sockperf|qperf|xdpdump|tcpdump|tshark|dumpcap|ntttcp|ib_(?:write|read|send)_bw|wrk|ab|curl|wget|scp|rsync|smbd|nfsd)$/;
/** One core's worth: a single thread pegged (pidstat can print a little above 100). */
const ONE_CORE = { min: 95, max: 110 };

export interface ToolAtOneCore {
  /** The command as the table prints it ("xdpdump", "iperf3"). */
  tool: string;
  cpuPercent: number;
}

/** The busiest test or capture tool process the text's pidstat or top tables show at one core, or null. */
export function readToolAtOneCore(text: string): ToolAtOneCore | null {
  const lines = text.split('\n', MAX_LINES);
  let best: ToolAtOneCore | null = null;
  for (const [index, line] of lines.entries()) {
    if (!/%CPU/.test(line)) continue;
    // A mailer's cut leaves the header's last columns on the next line: take them back.
    let header = words(line);
    let next = index + 1;
    if (!header.some(isCommandColumn) && next < lines.length) header = [...header, ...words(lines[next++]!)];
    const cpuColumn = header.indexOf('%CPU');
    const commandColumn = header.findIndex(isCommandColumn);
    if (cpuColumn < 0 || commandColumn < 0 || commandColumn < cpuColumn) continue;
    for (let rowsRead = 0; rowsRead < MAX_ROWS && next < lines.length; rowsRead++) {
      let row = words(lines[next++]!);
      // ... and a row's last words on the line after it.
      if (row.length < header.length && next < lines.length) row = [...row, ...words(lines[next++]!)];
      if (row.length < header.length) break;
      const cpu = Number(row[cpuColumn]!.replace(',', '.'));
      // A command may carry arguments ("iperf3 -s"): its name is the first word of the column.
      const tool = (row[commandColumn]!.split('/').at(-1) ?? '').replace(/^[[(]|[\])]$/g, '');
      if (!Number.isFinite(cpu) || !TOOLS.test(tool)) continue;
      if (cpu >= ONE_CORE.min && cpu <= ONE_CORE.max && cpu > (best?.cpuPercent ?? 0)) best = { tool, cpuPercent: cpu };
    }
  }
  return best;
}

function isCommandColumn(word: string): boolean {
  return word === 'Command' || word === 'COMMAND';
}

function words(line: string): string[] {
  const trimmed = line.trim();
  return trimmed === '' ? [] : trimmed.split(/\s+/);
}
