import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/reporters/html.js';
import { sampleVerification } from '../helpers/sample-verification.js';
import {
  CHROMIUM_PATH,
  chromiumAvailable,
  comparePngs,
  launchChromium,
  openHtmlFile,
  pngSize,
  sampleHtmlReport,
  type Browser,
  type LoadedPage,
} from '../helpers/browser.js';

/**
 * The HTML report in a real headless browser (Debian's chromium): it loads offline without
 * errors, fetches nothing, draws the three charts, and the charts match a committed baseline.
 * Refresh the baseline after an intended visual change with NICDOCTOR_UPDATE_SCREENSHOTS=1.
 */
const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '__screenshots__');
const BASELINE = join(SCREENSHOTS, 'html-bench-charts.png');
const VERIFICATION_BASELINE = join(SCREENSHOTS, 'html-verification-chart.png');
/**
 * Share of pixels (≈250 of 1100x1130) allowed to differ beyond anti-aliasing noise: the same
 * chromium and fonts give identical pixels, so this only absorbs rendering jitter.
 */
const MAX_DIFF_RATIO = 0.0002;

const available = chromiumAvailable();
if (!available) {
  console.warn(
    `html-browser tests SKIPPED: no chromium at ${CHROMIUM_PATH}. Install it with \`apt-get install chromium\` (or set NICDOCTOR_CHROMIUM).`,
  );
}

describe.skipIf(!available)('HTML report in headless chromium', () => {
  let browser: Browser;
  let dir: string;
  let loaded: LoadedPage;
  let plain: LoadedPage;
  let verified: LoadedPage;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nicdoctor-html-'));
    browser = await launchChromium();
    loaded = await openHtmlFile(browser.context, renderHtml(sampleHtmlReport()), dir);
    const plainDir = join(dir, 'no-bench');
    mkdirSync(plainDir);
    plain = await openHtmlFile(browser.context, renderHtml(sampleHtmlReport({ withBench: false })), plainDir);
    const verifiedDir = join(dir, 'verified');
    mkdirSync(verifiedDir);
    verified = await openHtmlFile(browser.context, renderHtml({ ...sampleHtmlReport(), verification: sampleVerification() }), verifiedDir);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('loads with no console errors, no page errors and no network requests', async () => {
    for (const page of [loaded, plain, verified]) {
      expect(page.consoleErrors).toEqual([]);
      expect(page.pageErrors).toEqual([]);
      expect(page.networkRequests).toEqual([]);
      expect(page.requests).toHaveLength(1); // the file itself, nothing else
      expect(page.requests[0]).toMatch(/^file:\/\/.*report\.html$/);
    }
    expect(await loaded.page.title()).toBe('nicdoctor report: db-7 <b>&"x"</b>');
  });

  it('shows injected markup as text and runs no script', async () => {
    const heading = loaded.page.locator('article.severity-critical h3');
    expect(await heading.textContent()).toContain('<script>alert("pwned")</script>');
    expect(await loaded.page.locator('script').count()).toBe(0);
    expect(await loaded.page.locator('main img, main b').count()).toBe(0);
  });

  it("renders the report's sections and check states", async () => {
    const page = loaded.page;
    expect(await page.locator('#interfaces tbody tr').count()).toBe(2);
    expect(await page.locator('tr.check').evaluateAll((rows) => rows.map((row) => row.className))).toEqual([
      'check status-fail',
      'check status-fail',
      'check status-pass',
      'check status-unknown',
      'check status-not-applicable',
      'check status-error',
    ]);
    expect(await page.locator('#findings article.finding').count()).toBe(2);
    expect(await page.locator('table.bench-ramp tbody tr').count()).toBe(2);
  });

  it('draws the three charts with non-zero size and drawn elements', async () => {
    const page = loaded.page;
    for (const [id, drawn, minimum] of [
      ['chart-ramp', 'path.series-line, circle.point', 3],
      ['chart-process-time', 'path.series-line', 2],
      ['chart-irq-cpus', 'rect.bar', 8],
    ] as const) {
      const chart = page.locator(`svg#${id}`);
      expect(await chart.count(), id).toBe(1);
      const box = await chart.boundingBox();
      expect(box, id).not.toBeNull();
      expect(box!.width, id).toBeGreaterThan(300);
      expect(box!.height, id).toBeGreaterThan(150);
      expect(await chart.locator(drawn).count(), id).toBeGreaterThanOrEqual(minimum);
      expect(await chart.getAttribute('role')).toBe('img');
      expect((await chart.locator('title').first().textContent())?.length, id).toBeGreaterThan(10);
    }
    // Lines really have length (the browser laid the paths out), and both ceilings are drawn.
    const lengths = await page
      .locator('svg#chart-process-time path.series-line')
      .evaluateAll((paths) => paths.map((path) => (path as unknown as { getTotalLength(): number }).getTotalLength()));
    for (const length of lengths) expect(length).toBeGreaterThan(100);
    expect(await page.locator('svg#chart-ramp .ref-ceiling line, svg#chart-ramp .ref-pcie line').count()).toBe(2);
    // The busiest CPU's bar is the tallest one on screen.
    const heights = await page
      .locator('svg#chart-irq-cpus rect.bar')
      .evaluateAll((bars) => bars.map((bar) => bar.getBoundingClientRect().height));
    expect(heights.indexOf(Math.max(...heights))).toBe(0);
  });

  it('shows a note and no charts without a bench', async () => {
    expect(await plain.page.locator('svg').count()).toBe(0);
    expect(await plain.page.locator('p.no-bench').isVisible()).toBe(true);
  });

  it('the charts match the committed screenshot baseline', async () => {
    // For a human look at the whole page: NICDOCTOR_SCREENSHOT_DIR=/tmp/shots writes it there.
    if (process.env.NICDOCTOR_SCREENSHOT_DIR) {
      mkdirSync(process.env.NICDOCTOR_SCREENSHOT_DIR, { recursive: true });
      await loaded.page.screenshot({ path: join(process.env.NICDOCTOR_SCREENSHOT_DIR, 'html-report-full.png'), fullPage: true });
    }
    const png = await loaded.page.locator('#bench-charts').screenshot({ animations: 'disabled' });
    const size = pngSize(png);
    expect(size).not.toBeNull();
    expect(size!.width).toBeGreaterThan(600);
    expect(size!.height).toBeGreaterThan(600);
    expect(png.length).toBeGreaterThan(10_000); // a real picture, not a blank frame

    if (!existsSync(BASELINE) || process.env.NICDOCTOR_UPDATE_SCREENSHOTS === '1') {
      mkdirSync(SCREENSHOTS, { recursive: true });
      writeFileSync(BASELINE, png);
      console.warn(`wrote screenshot baseline ${BASELINE}: review and commit it`);
      return;
    }
    const comparison = await comparePngs(browser.context, png, readFileSync(BASELINE));
    if (!comparison.sameSize || comparison.ratio > MAX_DIFF_RATIO) {
      const actual = BASELINE.replace(/\.png$/, '.actual.png');
      writeFileSync(actual, png);
      expect.fail(
        `charts differ from ${BASELINE}: ${comparison.sameSize ? `${comparison.differentPixels} pixels (${(comparison.ratio * 100).toFixed(2)}%)` : `size ${size!.width}x${size!.height} vs baseline`}; this run's picture is ${actual} (NICDOCTOR_UPDATE_SCREENSHOTS=1 accepts it)`,
      );
    }
    expect(comparison.ratio).toBeLessThanOrEqual(MAX_DIFF_RATIO);
  });

  it('the fix --verify before/after chart: a pair of bars per step, the kept one outlined, matching its baseline', async () => {
    const chart = verified.page.locator('svg#chart-verification');
    expect(await chart.count()).toBe(1);
    const box = await chart.boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(box!.height).toBeGreaterThan(150);
    const heights = await chart.locator('rect.bar').evaluateAll((bars) => bars.map((bar) => bar.getBoundingClientRect().height));
    expect(heights).toHaveLength(4);
    // Step 2 after (the offloads kept) is the tallest bar, and the only outlined one.
    expect(heights.indexOf(Math.max(...heights))).toBe(3);
    expect(await chart.locator('rect.bar-marked').count()).toBe(1);
    expect(await verified.page.locator('table.verification-steps tbody tr').count()).toBe(2);

    const png = await verified.page.locator('#verification-charts').screenshot({ animations: 'disabled' });
    expect(png.length).toBeGreaterThan(5_000);
    if (!existsSync(VERIFICATION_BASELINE) || process.env.NICDOCTOR_UPDATE_SCREENSHOTS === '1') {
      mkdirSync(SCREENSHOTS, { recursive: true });
      writeFileSync(VERIFICATION_BASELINE, png);
      console.warn(`wrote screenshot baseline ${VERIFICATION_BASELINE}: review and commit it`);
      return;
    }
    const comparison = await comparePngs(browser.context, png, readFileSync(VERIFICATION_BASELINE));
    if (!comparison.sameSize || comparison.ratio > MAX_DIFF_RATIO)
      writeFileSync(VERIFICATION_BASELINE.replace(/\.png$/, '.actual.png'), png);
    expect(comparison.sameSize).toBe(true);
    expect(comparison.ratio).toBeLessThanOrEqual(MAX_DIFF_RATIO);
  });

  it('the comparison notices a small change', async () => {
    // Guards the guard: hiding only the pinned-CPU strips under the IRQ chart (two 3-px bars) must fail it.
    const before = await loaded.page.locator('#bench-charts').screenshot();
    await loaded.page
      .locator('#chart-irq-cpus rect.bar-mark')
      .evaluateAll((marks) => marks.forEach((mark) => mark.setAttribute('visibility', 'hidden')));
    const after = await loaded.page.locator('#bench-charts').screenshot();
    const comparison = await comparePngs(browser.context, after, before);
    expect(comparison.sameSize).toBe(true);
    expect(comparison.differentPixels).toBeGreaterThan(0);
    expect(comparison.ratio).toBeGreaterThan(MAX_DIFF_RATIO);
    expect((await comparePngs(browser.context, before, before)).differentPixels).toBe(0);
  });
});
