import type { Logger } from 'pino';
import type { AnyCheck } from '../contracts/check.js';
import { ParseError } from '../contracts/facts.js';
import { scan, type ScanOutcome } from '../pipeline/scan.js';
import { TextHostIO } from './text-host.js';
import { parseIperf3Json } from '../parsers/iperf3-json.js';
import { parseIperf3Text, parseIperf3TextRuns, type Iperf3TextRun } from '../parsers/iperf3-text.js';
import { reportSchema, type Profile, type TextSegment } from '../report/schema.js';
import { usableGbps } from '../domain/pcie.js';
import { askFor } from './ask-for.js';
import { reportVerdict } from '../report/verdict.js';
import { benchFromRuns, runRate } from './bench.js';
import { statedCpuCount, statedLinkSpeedMbps, statedNicModel } from '../parsers/prose.js';
import { readSlotLimit } from '../parsers/pcie-slot.js';
import { segment, type IgnoredText, type Segment } from './segment.js';
import { UsageError } from '../util/errors.js';
import { kernelLogOfText } from './kernel-text.js';
import { readFramesCut } from '../parsers/tcpdump-truncation.js';
import { offloadRunsDiffer, type LabelledRun } from './labelled-runs.js';
import { readToolAtOneCore } from '../parsers/process-cpu.js';
import { pinnedTestShortOfLink, readPinnedTest } from '../parsers/cpu-pinning.js';
import { FREEBSD_COMMANDS } from './ask-for-freebsd.js';
import { freebsdReport, productOf } from './freebsd-report.js';
import { statedIperf3Version, statedToolRates } from '../parsers/prose-tools.js';
import {
  statedCpuFrequencyEvidence,
  statedFlowControlCure,
  statedMtuEvidence,
  statedJumboMtu,
  statedTriedWithoutEffect,
  statedOffloadEffect,
  statedRingCure,
  statedSettingCures,
} from '../parsers/prose-remedies.js';
import {
  statedInterruptConcentration,
  statedLinkDownshift,
  statedLinkFlapping,
  statedLogRepeats,
  statedSingleQueue,
} from '../parsers/prose-symptoms.js';

/** Hosts one text may name in its prompts: more is a fleet, to be split into one text per host. */
export const MAX_TEXT_HOSTS = 256;
/** Ignored ranges a host's report lists one by one; the rest are summed up in one entry. */
export const MAX_IGNORED_LISTED = 50;

/**
 * `nicdoctor analyze ticket.txt`: segment the text, give each host its own text HostIO, read the
 * pasted iperf3 runs as the bench fact, and run the same scan as on a host. One outcome per host
 * named by the prompts (one when none is).
 */

export interface TextAnalysisOptions {
  checks: readonly AnyCheck[];
  log: Logger;
  profile?: Profile;
  only?: readonly string[];
  skip?: readonly string[];
  sourcePath?: string;
  /** The link speed when the text does not say it (analyze --link-speed). */
  linkSpeedMbps?: number;
}

export async function analyzeText(text: string, options: TextAnalysisOptions): Promise<ScanOutcome[]> {
  const segmentation = segment(text);
  if (segmentation.hosts.length > MAX_TEXT_HOSTS)
    throw new UsageError(
      `the text names ${segmentation.hosts.length} hosts in its prompts, more than the ${MAX_TEXT_HOSTS} one text may hold: split it into one text per host (or use \`nicdoctor fleet\` on their reports)`,
    );
  const groups = groupByHost(segmentation.segments, segmentation.hosts);
  const ignoredOf = ignoredByHost(segmentation.ignored, [...groups.keys()]);
  // Prose: ignored text and the sentences that quoted a fragment inline ("pese a tener 10GbE ... LnkSta: ..."),
  // normalized as the outputs are (a speed written with an NBSP, in a quoted reply).
  const stated = options.linkSpeedMbps ?? statedLinkSpeedMbps(segmentation.prose);
  const toolRates = statedToolRates(segmentation.prose);
  const flowControlCured = statedFlowControlCure(segmentation.prose);
  const mtuEvidence = statedMtuEvidence(segmentation.prose);
  const framesCut = readFramesCut(text);
  const statedMtu = statedJumboMtu(segmentation.prose);
  const toolAtOneCore = readToolAtOneCore(text);
  const pinnedTest = readPinnedTest(text);
  const slotLimit = readSlotLimit(text, stated || null);
  const triedWithoutEffect = statedTriedWithoutEffect(segmentation.prose);
  const cpuFrequencyEvidence = statedCpuFrequencyEvidence(segmentation.prose);
  const singleQueueReported = statedSingleQueue(segmentation.prose);
  const interruptsOnOneCpuReported = statedInterruptConcentration(segmentation.prose);
  const offloadEffectReported = statedOffloadEffect(segmentation.prose);
  // Device names ("82566MM Gigabit Network Connection") say what the port can do wherever they are pasted.
  const linkDownshift = statedLinkDownshift(segmentation.prose, deviceNameLines(text));
  const linkFlapping = statedLinkFlapping(segmentation.prose);
  const statedNic = statedNicModel(segmentation.prose);
  const ringCure = statedRingCure(segmentation.prose, text);
  const logRepeatsReported = statedLogRepeats(segmentation.prose);
  const settingCures = statedSettingCures(segmentation.prose);
  const outcomes: ScanOutcome[] = [];
  const singleHost = groups.size === 1;
  for (const [host, segments] of groups) {
    // Kernel log lines are read wherever they are in the text; with several hosts, whose they are is unknown.
    const io = new TextHostIO(segments, {
      hostname: host,
      statedSpeedMbps: stated,
      statedNic,
      statedCpus: statedCpuCount(segmentation.prose),
      statedIperf3Version: statedIperf3Version(segmentation.prose),
      ...(singleHost ? { kernelLog: kernelLogOfText(text), wholeText: text } : {}),
    });
    const notes: string[] = [...segmentation.repairs.map((repair) => `repaired: ${repair}`), ...io.inferences];
    const segmentNotes = new Map<Segment, string>();
    // One group per segment: the runs of one segment with -T titles ran at the same time.
    const groups: Iperf3TextRun[][] = [];
    const labelled: LabelledRun[] = [];
    for (const part of segments) {
      const group = readRuns(part, segmentNotes);
      if (part.kind === 'iperf3-text')
        labelled.push({ firstLine: part.firstLine, bitsPerSecond: group.reduce((sum, run) => sum + (runRate(run) ?? 0), 0) });
      if (group.length > 1) groups.push(group);
      else groups.push(...group.map((run) => [run]));
    }
    const runs = groups.flat();
    // Runs pasted under labels that name an offload ("TSO off:", "开启 TSO 后："): the poster's own test.
    const offloadEffect = offloadEffectReported || offloadRunsDiffer(text, labelled);
    const flat = flatStreams(groups);
    if (flat) notes.push(flat);
    const outcome = await scan({
      io,
      checks: options.checks,
      log: options.log,
      ...(options.profile ? { profile: options.profile } : {}),
      ...(options.only ? { only: options.only } : {}),
      ...(options.skip ? { skip: options.skip } : {}),
      ...(options.sourcePath ? { sourcePath: options.sourcePath } : {}),
      beforeChecks: async (store) => {
        const names = io.interfaceNames;
        const iface = names.length === 1 ? names[0]! : null;
        const device = iface ? await store.get('net.device', iface) : null;
        let pcieBitsPerSecond: number | null = null;
        if (iface) {
          const pcie = await store.get('pcie.link', iface);
          if (pcie.ok && pcie.value.present && pcie.value.link?.speedGts && pcie.value.link.width)
            pcieBitsPerSecond = (usableGbps(pcie.value.link.speedGts, pcie.value.link.width) ?? 0) * 1e9 || null;
        }
        const speed = device?.ok ? device.value.speedMbps : null;
        // The speed an output shows (ethtool's Speed:, a link-up line) against what the words or the
        // named model say the port can do: a downshift the words alone did not state.
        // An interface of unknown kind (a grep'd `ethtool <if> | grep Speed`) shows its speed as nominal.
        const shownSpeed = device?.ok ? (speed ?? (device.value.kind === 'unknown' ? device.value.nominalSpeedMbps : null)) : null;
        const shownDownshift =
          linkDownshift ??
          (iface && shownSpeed && device?.ok && device.value.speedSource !== 'prose'
            ? statedLinkDownshift(segmentation.prose, deviceNameLines(text), { negotiatedMbps: shownSpeed })
            : null);
        const mtu = device?.ok ? device.value.mtu : null;
        // A group of -T processes ran at once: together they are one test's rate.
        const runBest = Math.max(0, ...groups.map((group) => group.reduce((sum, run) => sum + (runRate(run) ?? 0), 0) / 1e6));
        const iperf3BestMbps = Math.max(runBest, toolRates.iperf3BestMbps ?? 0) || null;
        store.provide('ticket.reports', {
          ...toolRates,
          iperf3BestMbps,
          benchOverIperf3:
            toolRates.benchBestMbps !== null && iperf3BestMbps !== null
              ? Number((toolRates.benchBestMbps / iperf3BestMbps).toPrecision(3))
              : null,
          statedLinkMbps: stated || null,
          flowControlCured,
          mtuEvidence,
          framesCut,
          toolAtOneCore,
          // A mailer may have moved the command's interface argument to the next line: then the text's only interface.
          slotBelowPort: slotLimit && { ...slotLimit, interface: iface },
          testPinnedToOneCpu: pinnedTestShortOfLink(
            pinnedTest && { ...pinnedTest, interface: pinnedTest.interface ?? iface },
            stated || shownSpeed,
            [iperf3BestMbps, toolRates.iperf2BestMbps, toolRates.benchBestMbps],
          ),
          triedWithoutEffect,
          cpuFrequencyEvidence,
          singleQueueReported,
          interruptsOnOneCpuReported,
          interruptsOnOneCpuInterface: interruptsOnOneCpuReported ? iface : null,
          offloadEffectReported: offloadEffect,
          offloadEffectInterface: offloadEffect ? iface : null,
          // The words are about the link: on a text that shows one interface, that interface's.
          linkDownshift: shownDownshift ? { ...shownDownshift, interface: iface } : null,
          linkFlapping: linkFlapping ? { interface: iface } : null,
          logRepeatsReported,
          settingCures,
          ringCure: ringCure ? { interfaces: ringCure.interfaces.filter((name) => names.includes(name)) } : null,
        });
        const benchMtu = mtu ?? statedMtu;
        const bench = benchFromRuns(groups, {
          interface: iface,
          linkSpeedMbps: speed ?? (stated || null),
          mtu: benchMtu,
          pcieBitsPerSecond,
        });
        if (bench && benchMtu === null) notes.push('MTU not in the text: the goodput ceiling assumes 1500');
        else if (bench && mtu === null) notes.push(`MTU ${benchMtu} as the text states it (no \`ip link\` output)`);
        if (bench) {
          store.provide('bench.result', bench);
          if (!speed && stated)
            notes.push(`iperf3 judged against the link speed stated in the text or by --link-speed: ${stated / 1000} Gb/s`);
        }
      },
    });
    const report = outcome.report;
    const described: TextSegment[] = segments.map((part) => ({
      kind: part.kind,
      recognised: part.kind !== 'iperf2' && !segmentNotes.get(part)?.startsWith('not read'),
      firstLine: part.firstLine,
      lastLine: part.lastLine,
      host: part.host,
      interface: part.iface,
      command: part.command,
      filtered: part.filtered,
      ...(segmentNotes.has(part) ? { note: segmentNotes.get(part)! } : {}),
    }));
    // Each host's report lists the text ignored among its own outputs (issue 19: listing every
    // range in every host's report made 265 KB of text a 293 MB report), at most
    // MAX_IGNORED_LISTED of them one by one.
    const ignored = ignoredOf.get(host) ?? [];
    for (const range of ignored.slice(0, MAX_IGNORED_LISTED))
      described.push({ kind: 'ignored', recognised: false, firstLine: range.firstLine, lastLine: range.lastLine, note: range.preview });
    if (ignored.length > MAX_IGNORED_LISTED) {
      const rest = ignored.slice(MAX_IGNORED_LISTED);
      described.push({
        kind: 'ignored',
        recognised: false,
        firstLine: rest[0]!.firstLine,
        lastLine: rest.at(-1)!.lastLine,
        note: `${rest.length} more ranges of ignored text (not listed one by one)`,
      });
    }
    described.sort((a, b) => a.firstLine - b.firstLine);
    report.source = { mode: 'text', ...(options.sourcePath ? { path: options.sourcePath } : {}), segments: described, notes };
    if (io.freebsd) freebsdReport(report, productOf(text));
    report.askFor = askFor(
      report,
      options.checks,
      io.interfaceNames,
      runs.length > 0,
      segments.some((part) => part.windows),
      io.freebsd ? FREEBSD_COMMANDS : undefined,
    );
    // The engine's hint for a missing input speaks of snapshots; here the input is the customer.
    for (const check of report.checks) {
      if (!check.hint || !/snapshot/.test(check.hint)) continue;
      const ask = report.askFor.find((entry) => entry.checks.includes(check.id));
      if (ask) check.hint = `ask the customer for: ${ask.command}`;
      else delete check.hint;
    }
    // The verdict lists the missing outputs by the command to ask for, known only now.
    report.verdict = reportVerdict(report);
    outcomes.push({ report: reportSchema.parse(report), store: outcome.store });
  }
  return outcomes;
}

/**
 * One process with more streams that did not raise the sum ("streams summing to a flat total"):
 * the limit is per process (one core: iperf3 before 3.16 runs every stream on one thread) or the
 * path, not each stream's window.
 */
function flatStreams(groups: ReadonlyArray<readonly Iperf3TextRun[]>): string | undefined {
  const single = groups.filter((group) => group.length === 1).map((group) => group[0]!);
  const one = single.filter((run) => run.streams === 1 && runRate(run) !== null);
  const many = single.filter((run) => run.streams > 1 && runRate(run) !== null);
  if (!one.length || !many.length) return undefined;
  const best = (list: Iperf3TextRun[]) => list.reduce((a, b) => (runRate(b)! > runRate(a)! ? b : a));
  const base = best(one);
  const wide = best(many);
  if (runRate(wide)! > 1.15 * runRate(base)!) return undefined;
  return `streams sum to a flat total: 1 stream ${formatRate(runRate(base)!)}, ${wide.streams} streams ${formatRate(runRate(wide)!)} in one process: the limit is per process (one core; iperf3 before 3.16 runs all streams on one thread${wide.version ? `, this is ${wide.version}` : ''}) or the path, not each stream's TCP window. Run one process per core on separate ports (-T s1 -p 5101 &, -T s2 -p 5102 &) to tell them apart`;
}

function formatRate(bps: number): string {
  return bps >= 1e9 ? `${(bps / 1e9).toFixed(2)} Gb/s` : `${(bps / 1e6).toFixed(1)} Mb/s`;
}

function describeRun(run: Iperf3TextRun): string {
  const udp =
    run.protocol === 'udp' && run.lostPercent !== null ? `, ${run.lostPercent} % of datagrams lost, jitter ${run.jitterMs ?? '?'} ms` : '';
  const rate = runRate(run);
  const received = rate === null ? '' : `, ${formatRate(rate)} received`;
  const retransmits = run.retransmits !== null ? `, ${run.retransmits} retransmits` : '';
  return `${run.title ? `${run.title}: ` : ''}iperf3 ${run.version ?? ''} ${run.role ?? ''} ${run.protocol.toUpperCase()} ${run.direction}, ${run.streams} stream(s)${received}${retransmits}${udp}${run.hasSummary ? '' : ', no final summary (rate from its intervals)'}`.replace(
    /\s+/g,
    ' ',
  );
}

/** A number no iperf3 prints (a 400-digit counter, Infinity): the run cannot be judged (issue 19, item 5). */
function outOfRange(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER;
  if (Array.isArray(value)) return value.some(outOfRange);
  if (value && typeof value === 'object') return Object.values(value).some(outOfRange);
  return false;
}

function readRuns(part: Segment, notes: Map<Segment, string>): Iperf3TextRun[] {
  const runs = readRunsAsPrinted(part, notes);
  if (!runs.some(outOfRange)) return runs;
  notes.set(part, 'not read: a number in this iperf3 output is out of range');
  return [];
}

function readRunsAsPrinted(part: Segment, notes: Map<Segment, string>): Iperf3TextRun[] {
  if (part.kind === 'iperf3-text') {
    try {
      const runs = parseIperf3TextRuns(part.text, part.command);
      if (runs.length > 1) {
        const total = runs.reduce((sum, run) => sum + (runRate(run) ?? 0), 0);
        notes.set(part, `${runs.length} iperf3 processes at once (-T), ${formatRate(total)} together: ${runs.map(describeRun).join('; ')}`);
        return runs;
      }
    } catch (error) {
      if (!(error instanceof ParseError)) throw error;
    }
  }
  const run = readRun(part, notes);
  return run ? [run] : [];
}

function readRun(part: Segment, notes: Map<Segment, string>): Iperf3TextRun | undefined {
  if (part.kind === 'iperf2') {
    notes.set(part, 'iperf2 output: recognised, not used (iperf2 and iperf3 results are not comparable; run iperf3)');
    return undefined;
  }
  try {
    if (part.kind === 'iperf3-text') {
      const run = parseIperf3Text(part.text, part.command);
      notes.set(part, describeRun(run));
      return run;
    }
    if (part.kind === 'iperf3-json') {
      const json = parseIperf3Json(part.text);
      const bidir = json.reverseReceiverBitsPerSecond !== null;
      notes.set(part, `iperf3 JSON, ${json.streams ?? 1} stream(s)`);
      return {
        tool: 'iperf3',
        role: 'client',
        protocol: json.protocol?.toLowerCase() === 'udp' ? 'udp' : 'tcp',
        direction: bidir ? 'bidir' : 'forward',
        streams: json.streams ?? 1,
        version: json.version,
        peer: null,
        port: null,
        intervals: json.intervals.map(({ start, end, bitsPerSecond, retransmits, omitted }) => ({
          start,
          end,
          bitsPerSecond,
          retransmits,
          omitted,
        })),
        perStream: [],
        senderBitsPerSecond: json.senderBitsPerSecond,
        receiverBitsPerSecond: json.receiverBitsPerSecond,
        reverseBitsPerSecond: json.reverseReceiverBitsPerSecond,
        retransmits: json.retransmits,
        durationSeconds: json.seconds,
        jitterMs: null,
        lostPercent: json.lostPercent,
        hasSummary: json.receiverBitsPerSecond !== null,
      };
    }
  } catch (error) {
    if (!(error instanceof ParseError)) throw error;
    const version = /^iperf (3\.\S+)/m.exec(part.text)?.[1];
    // `iperf3 -v` alone: no run, but the version the iperf3 check judges.
    if (version && !/iperf3: error/.test(part.text)) notes.set(part, `iperf3 ${version} version banner (read as \`iperf3 -v\`)`);
    else notes.set(part, `not read: ${error.message}`);
  }
  return undefined;
}

/** Segments per host: outputs before the first prompt with a hostname go to the first host. */
function groupByHost(segments: readonly Segment[], hosts: readonly string[]): Map<string | null, Segment[]> {
  const groups = new Map<string | null, Segment[]>();
  for (const host of hosts) groups.set(host, []);
  for (const part of segments) {
    const host = part.host ?? (hosts.length === 1 ? hosts[0]! : null);
    if (!groups.has(host)) groups.set(host, []);
    groups.get(host)!.push(part);
  }
  if (groups.size === 0) groups.set(null, []);
  // A host named only in prompts whose outputs were all unrecognised still gets a (short) report.
  return groups;
}

/**
 * The ignored ranges of each host: those after its prompts. Text before any prompt with a
 * hostname (a ticket's own words) goes to the first host, as the outputs there do.
 */
function ignoredByHost(ignored: readonly IgnoredText[], hosts: ReadonlyArray<string | null>): Map<string | null, IgnoredText[]> {
  const known = new Set(hosts);
  const result = new Map<string | null, IgnoredText[]>();
  for (const range of ignored) {
    const owner = known.has(range.host) ? range.host : (hosts[0] ?? null);
    let list = result.get(owner);
    if (!list) result.set(owner, (list = []));
    list.push(range);
  }
  return result;
}

/** The lspci lines that name a network device ("Ethernet controller: Intel ... Gigabit Network Connection"). */
function deviceNameLines(text: string): string {
  const named: string[] = [];
  for (const line of text.slice(0, 200_000).split('\n')) if (/(?:Ethernet|Network) controller:/.test(line)) named.push(line);
  return named.join('\n');
}
