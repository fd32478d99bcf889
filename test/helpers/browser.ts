import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { reportSchema, type Report } from '../../src/report/schema.js';
import { forbidSkipOnCi } from '../../lab/no-skip-on-ci.js';

/**
 * A real headless browser for the HTML report tests: Debian's chromium driven by playwright-core.
 * Never `npx playwright install`: the tests use the distribution's browser, which CI installs
 * with `apt-get install chromium` (scripts/install-system-deps.sh).
 */
export const CHROMIUM_PATH = process.env.NICDOCTOR_CHROMIUM ?? '/usr/bin/chromium';

export const chromiumAvailable = (): boolean =>
  existsSync(CHROMIUM_PATH) || !forbidSkipOnCi('the headless-browser test', `no chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Same pixels everywhere: no font hinting differences from LCD subpixel AA, fixed colour profile.
  '--font-render-hinting=none',
  '--force-color-profile=srgb',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A browser with a fresh profile directory (playwright passes it as --user-data-dir). */
export async function launchChromium(): Promise<Browser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'nicdoctor-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1200, height: 900 },
    deviceScaleFactor: 1,
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

export interface LoadedPage {
  page: Page;
  consoleErrors: string[];
  pageErrors: string[];
  /** Every request the page made, file: ones included. */
  requests: string[];
  /** Requests that were not for a local file: each one is a failure of self-containment. */
  networkRequests: string[];
}

/** Opens the HTML from a file:// URL, as a user opening an attachment would, watching every request. */
export async function openHtmlFile(context: BrowserContext, html: string, dir: string): Promise<LoadedPage> {
  const path = join(dir, 'report.html');
  await writeFile(path, html);
  const page = await context.newPage();
  const loaded: LoadedPage = { page, consoleErrors: [], pageErrors: [], requests: [], networkRequests: [] };
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') loaded.consoleErrors.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => loaded.pageErrors.push(error.message));
  page.on('request', (request) => loaded.requests.push(request.url()));
  await page.route('**', async (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    loaded.networkRequests.push(url);
    return route.abort('blockedbyclient');
  });
  await page.goto(pathToFileURL(path).href, { waitUntil: 'load' });
  return loaded;
}

export interface PngComparison {
  sameSize: boolean;
  width: number;
  height: number;
  differentPixels: number;
  /** Share of pixels whose largest channel difference exceeds the threshold. */
  ratio: number;
}

/** The browser APIs used inside page.evaluate (this project's tsconfig has no DOM lib). */
interface CanvasGlobals {
  createImageBitmap(blob: Blob): Promise<{ width: number; height: number }>;
  OffscreenCanvas: new (
    width: number,
    height: number,
  ) => {
    getContext(kind: '2d'): {
      drawImage(image: unknown, x: number, y: number): void;
      getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray; width: number; height: number };
    } | null;
  };
}

/**
 * Pixel comparison of two PNGs, decoded by the browser itself (no PNG library needed).
 * A pixel differs when any RGBA channel differs by more than `threshold` (0-255), which absorbs
 * anti-aliasing noise while a moved line or a missing bar still counts.
 */
export async function comparePngs(context: BrowserContext, actual: Buffer, baseline: Buffer, threshold = 40): Promise<PngComparison> {
  const page = await context.newPage();
  try {
    return await page.evaluate(
      async ({ a, b, threshold: limit }) => {
        const dom = globalThis as unknown as CanvasGlobals;
        const decode = async (base64: string) => {
          const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
          const bitmap = await dom.createImageBitmap(new Blob([bytes], { type: 'image/png' }));
          const canvas = new dom.OffscreenCanvas(bitmap.width, bitmap.height);
          const ctx = canvas.getContext('2d')!;
          ctx.drawImage(bitmap, 0, 0);
          return ctx.getImageData(0, 0, bitmap.width, bitmap.height);
        };
        const [left, right] = await Promise.all([decode(a), decode(b)]);
        const width = Math.max(left.width, right.width);
        const height = Math.max(left.height, right.height);
        if (left.width !== right.width || left.height !== right.height) {
          return { sameSize: false, width, height, differentPixels: width * height, ratio: 1 };
        }
        let different = 0;
        for (let index = 0; index < left.data.length; index += 4) {
          for (let channel = 0; channel < 4; channel++) {
            if (Math.abs(left.data[index + channel]! - right.data[index + channel]!) > limit) {
              different++;
              break;
            }
          }
        }
        return { sameSize: true, width, height, differentPixels: different, ratio: different / (width * height) };
      },
      { a: actual.toString('base64'), b: baseline.toString('base64'), threshold },
    );
  } finally {
    await page.close();
  }
}

/** PNG signature and IHDR size: enough to tell a real image from an empty buffer. */
export function pngSize(png: Buffer): { width: number; height: number } | null {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (png.length < 24 || !png.subarray(0, 8).equals(signature) || png.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

const GBIT = 1e9;

function benchProcess(label: string, port: number, cpu: number, rates: number[]) {
  return {
    label,
    port,
    cpu,
    pid: 4000 + port - 5200,
    bitsPerSecond: (rates.reduce((a, b) => a + b, 0) / rates.length) * GBIT,
    senderBitsPerSecond: (rates.reduce((a, b) => a + b, 0) / rates.length) * GBIT * 1.01,
    retransmits: 12,
    hostCpuPercent: 88,
    remoteCpuPercent: 40,
    measuredCpuPercent: 91,
    cpuQuotaPercent: null,
    throttledPeriods: null,
    serverVersion: '3.16',
    error: null,
    intervals: rates.map((rate, index) => ({ start: index + 1, end: index + 2, bitsPerSecond: rate * GBIT })),
  };
}

/**
 * A report for the HTML reporter tests (pure and browser): every check state, findings whose text
 * tries to inject markup, and a bench with a two-step ramp, two processes with intervals, both
 * ceilings and per-CPU interrupt counts. `withBench: false` drops the bench.
 */
export function sampleHtmlReport(options: { withBench?: boolean } = {}): Report {
  const step1 = [benchProcess('p1', 5201, 2, [5.8, 6.1, 6.2, 6.0, 6.1])];
  const step2 = [benchProcess('p1', 5201, 2, [3.7, 3.9, 3.8, 3.6, 3.9]), benchProcess('p2', 5202, 3, [3.6, 3.5, 3.9, 3.8, 3.7])];
  const sum = (ps: typeof step2) => ps.reduce((total, p) => total + p.bitsPerSecond, 0);
  const bench = {
    mode: 'peer',
    peer: '10.0.0.2',
    direction: 'forward',
    protocol: 'tcp',
    iperf3: { client: '3.16', server: '3.16' },
    interface: 'enp65s0f0',
    linkSpeedMbps: 10000,
    mtu: 1500,
    ceilingBitsPerSecond: 9.41 * GBIT,
    pcieBitsPerSecond: 7.88 * GBIT,
    ports: [5201, 5202],
    cpus: [2, 3],
    steps: [
      {
        processes: 1,
        streamsPerProcess: 1,
        durationSeconds: 6,
        bitsPerSecond: sum(step1),
        senderBitsPerSecond: sum(step1) * 1.01,
        retransmits: 12,
        perProcess: step1,
      },
      {
        processes: 2,
        streamsPerProcess: 1,
        durationSeconds: 6,
        bitsPerSecond: sum(step2),
        senderBitsPerSecond: sum(step2) * 1.01,
        retransmits: 24,
        perProcess: step2,
      },
    ],
    stopReason: 'throughput rose by less than 5% from 1 to 2 processes',
    result: {
      bitsPerSecond: sum(step2),
      senderBitsPerSecond: sum(step2) * 1.01,
      reverseBitsPerSecond: null,
      retransmits: 24,
      durationSeconds: 6,
      processes: 2,
      streamsPerProcess: 1,
      intervals: [1, 2, 3, 4, 5].map((second, index) => ({
        start: second,
        end: second + 1,
        bitsPerSecond: step2[0]!.intervals[index]!.bitsPerSecond + step2[1]!.intervals[index]!.bitsPerSecond,
      })),
      perProcess: step2,
    },
    counters: {
      softnetDropped: 0,
      softnetTimeSqueeze: 31,
      nicDrops: { rx_missed_errors: 12 },
      interruptsPerCpu: [120500, 12, 98210, 0, 4, 0, 61000, 3],
    },
    findings: [
      {
        check: 'bench',
        symptom: 'below-pcie-budget',
        subject: 'enp65s0f0',
        severity: 'warning',
        message: 'Bench reached 7.50 Gb/s: the PCIe budget (7.88 Gb/s) caps this port',
        evidence: [{ label: 'bench result', observed: 7.5, expected: 9.41, unit: 'Gb/s' }],
        data: {},
      },
    ],
    complete: true,
    error: null,
    cpuSeconds: { nicdoctor: 0.4, iperf3: 10.9 },
    durationMs: 14000,
  };
  return reportSchema.parse({
    schemaVersion: '1.0',
    tool: { name: 'nicdoctor', version: '0.1.0' },
    generatedAt: '2026-11-29T12:00:00.000Z',
    source: { mode: 'live' },
    profile: 'throughput',
    host: {
      hostname: 'db-7 <b>&"x"</b>',
      kernel: '6.1.0-22-amd64',
      os: 'Debian GNU/Linux 12',
      arch: 'x64',
      cpuModel: 'Intel Xeon Silver 4108',
      logicalCpus: 8,
      physicalCores: 4,
      virtualization: null,
      root: true,
    },
    interfaces: [
      {
        name: 'enp65s0f0',
        kind: 'physical',
        driver: 'ixgbe',
        pciAddress: '0000:41:00.0',
        speedMbps: 10000,
        duplex: 'full',
        mtu: 1500,
        operstate: 'up',
        numaNode: 1,
        master: null,
      },
      {
        name: 'veth0',
        kind: 'virtual',
        driver: null,
        pciAddress: null,
        speedMbps: null,
        duplex: null,
        mtu: 1500,
        operstate: 'down',
        numaNode: null,
        master: null,
      },
    ],
    checks: [
      {
        id: 'pcie-link',
        title: 'PCIe link carries line rate',
        status: 'fail',
        durationMs: 1.5,
        subjects: [{ subject: 'enp65s0f0', status: 'fail' }],
        findings: [
          {
            check: 'pcie-link',
            symptom: 'pcie-bandwidth-below-port',
            subject: 'enp65s0f0',
            severity: 'critical',
            message: '10G port on PCIe Gen2 x2 <script>alert("pwned")</script>',
            fix: 'Move the card at 0000:41:00.0 to an electrically x8 slot && reboot',
            evidence: [
              {
                label: 'current link <img src=x onerror=alert(1)>',
                observed: '5 GT/s x2',
                expected: '5 GT/s x8',
                source: { kind: 'file', path: '/sys/bus/pci/devices/0000:41:00.0/current_link_width' },
              },
              {
                label: 'usable PCIe bandwidth',
                observed: 7.88,
                expected: 10,
                unit: 'Gb/s',
                source: { kind: 'command', argv: ['lspci', '-vv', '-s', '0000:41:00.0'] },
              },
            ],
            data: { usableGbps: 7.88 },
          },
        ],
      },
      {
        id: 'rx-rings',
        title: 'RX rings at maximum',
        status: 'fail',
        durationMs: 0.4,
        subjects: [{ subject: 'enp65s0f0', status: 'fail' }],
        findings: [
          {
            check: 'rx-rings',
            symptom: 'rings-below-max',
            subject: 'enp65s0f0',
            severity: 'warning',
            message: 'RX ring 512 of 4096',
            fix: 'ethtool -G enp65s0f0 rx 4096 tx 4096',
            evidence: [
              { label: 'RX ring', observed: 512, expected: 4096, source: { kind: 'command', argv: ['ethtool', '-g', 'enp65s0f0'] } },
            ],
            data: {},
          },
        ],
      },
      {
        id: 'mtu',
        title: 'MTU suits the link',
        status: 'pass',
        durationMs: 0.2,
        subjects: [{ subject: 'enp65s0f0', status: 'pass' }],
        findings: [],
      },
      {
        id: 'irq-affinity',
        title: 'IRQ affinity',
        status: 'unknown',
        reason: 'cannot read /proc/irq',
        hint: 'run as root',
        durationMs: 0.1,
        subjects: [],
        findings: [],
      },
      {
        id: 'numa-locality',
        title: 'NUMA',
        status: 'not-applicable',
        reason: 'single NUMA node',
        durationMs: 0.1,
        subjects: [],
        findings: [],
      },
      {
        id: 'broken',
        title: 'Broken check',
        status: 'error',
        reason: 'the check broke: boom',
        durationMs: 0.1,
        subjects: [],
        findings: [],
        error: { message: 'boom' },
      },
    ],
    summary: { pass: 1, fail: 2, notApplicable: 1, unknown: 1, error: 1, critical: 1, warning: 1, info: 0 },
    collectors: [{ fact: 'net.device', subject: 'enp65s0f0', ok: true, durationMs: 0.5 }],
    ...(options.withBench === false ? {} : { bench }),
    durationMs: 14100,
  });
}
