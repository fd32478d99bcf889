import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/reporters/html.js';
import {
  CHROMIUM_PATH,
  chromiumAvailable,
  comparePngs,
  launchChromium,
  openHtmlFile,
  pngSize,
  type Browser,
  type LoadedPage,
} from '../helpers/browser.js';
import { scanScenario } from '../helpers/scenario-reports.js';

/**
 * Pictures without a bench, in a real headless chromium at 1,280 px: the HTML report of a real
 * capture whose queue interrupts all land on CPU 0 (mlx5, /proc/interrupts) draws the per-CPU and
 * per-queue interrupt charts, readable at that width, and they match a committed baseline.
 * Refresh the baseline after an intended visual change with NICDOCTOR_UPDATE_SCREENSHOTS=1.
 */
const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '__screenshots__');
const BASELINE = join(SCREENSHOTS, 'html-work-charts.png');
const MAX_DIFF_RATIO = 0.0002;
const WIDTH = 1280;

const available = chromiumAvailable();
if (!available)
  console.warn(`work-pictures browser test: no chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set NICDOCTOR_CHROMIUM).`);

describe.skipIf(!available && process.env.CI !== 'true')('HTML pictures of where the work lands, in headless chromium at 1,280 px', () => {
  let browser: Browser;
  let dir: string;
  let loaded: LoadedPage;

  beforeAll(async () => {
    if (!available) throw new Error(`no chromium at ${CHROMIUM_PATH}: install it (apt-get install chromium) or set NICDOCTOR_CHROMIUM`);
    const { report } = await scanScenario('mlx5-irq-concentration');
    dir = await mkdtemp(join(tmpdir(), 'nicdoctor-work-html-'));
    browser = await launchChromium();
    loaded = await openHtmlFile(browser.context, renderHtml(report), dir);
    await loaded.page.setViewportSize({ width: WIDTH, height: 900 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('draws the IRQ-per-CPU and per-queue charts with the busiest CPU tallest, inside the page width', async () => {
    const page = loaded.page;
    expect(loaded.consoleErrors).toEqual([]);
    expect(loaded.networkRequests).toEqual([]);
    const cpus = page.locator('svg#chart-irq-cpus-p3p1');
    const queues = page.locator('svg#chart-irq-queues-p3p1');
    for (const chart of [cpus, queues]) {
      expect(await chart.count()).toBe(1);
      const box = await chart.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.width).toBeGreaterThan(300);
      expect(box!.height).toBeGreaterThan(150);
      expect(box!.x + box!.width).toBeLessThanOrEqual(WIDTH);
      expect(await chart.getAttribute('role')).toBe('img');
    }
    expect(await cpus.locator('rect.bar').count()).toBe(4);
    const heights = await cpus.locator('rect.bar').evaluateAll((bars) => bars.map((bar) => bar.getBoundingClientRect().height));
    expect(heights.indexOf(Math.max(...heights))).toBe(0);
    expect(await page.locator('#figure-chart-irq-cpus-p3p1 figcaption').textContent()).toMatch(/CPU 0 took 97% of/);
    // Nothing is wider than the window: no horizontal scrolling at 1,280 px.
    expect(await page.locator('html').evaluate((root) => root.scrollWidth)).toBeLessThanOrEqual(WIDTH);
  });

  it('the charts match the committed screenshot baseline', async () => {
    const png = await loaded.page.locator('#work-charts').screenshot({ animations: 'disabled' });
    const size = pngSize(png);
    expect(size!.width).toBeGreaterThan(600);
    expect(png.length).toBeGreaterThan(10_000);
    if (!existsSync(BASELINE) || process.env.NICDOCTOR_UPDATE_SCREENSHOTS === '1') {
      mkdirSync(SCREENSHOTS, { recursive: true });
      writeFileSync(BASELINE, png);
      console.warn(`wrote screenshot baseline ${BASELINE}: review and commit it`);
      return;
    }
    const comparison = await comparePngs(browser.context, png, readFileSync(BASELINE));
    if (!comparison.sameSize || comparison.ratio > MAX_DIFF_RATIO) writeFileSync(BASELINE.replace(/\.png$/, '.actual.png'), png);
    expect(comparison.sameSize).toBe(true);
    expect(comparison.ratio).toBeLessThanOrEqual(MAX_DIFF_RATIO);
  });
});
