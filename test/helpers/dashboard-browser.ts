// Debian's Chromium driven by playwright-core for the dashboard's browser test (test/tools/dashboard.test.ts):
// launching it, and the audit every page gets — axe-core with no serious or critical violation, no layout shift,
// and a full-page screenshot kept in the test's output folder.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

let axeSource: string | undefined;

async function axe(): Promise<string> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** The page's axe-core violations of impact serious or critical (WCAG 2.x A and AA rules and best practices). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: await axe() });
  const violations = await page.evaluate(async () => {
    const run = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe.run;
    return (await run()).violations as AxeViolation[];
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The page's cumulative layout shift so far (the browser's own layout-shift entries, buffered, less those right
 * after input, as CLS counts them; delivered in the next task). Evaluated as text: the test's own TypeScript has no DOM types. */
export async function layoutShift(page: Page): Promise<number> {
  return Number(
    await page.evaluate(`new Promise((resolve) => {
      let total = 0;
      const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) if (!entry.hadRecentInput) total += entry.value;
      });
      observer.observe({ type: 'layout-shift', buffered: true });
      setTimeout(() => { observer.disconnect(); resolve(total); }, 0);
    })`),
  );
}

/** Audits the page as it stands and keeps its screenshot as `<dir>/<NN>-<name>.png`. */
export async function auditPage(
  page: Page,
  dir: string,
  name: string,
  counter: { n: number },
): Promise<{ violations: AxeViolation[]; shift: number; screenshot: string }> {
  await page.waitForLoadState('networkidle');
  const screenshot = path.join(dir, `${String(++counter.n).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: screenshot, fullPage: true });
  return { violations: await seriousViolations(page), shift: await layoutShift(page), screenshot };
}

/** How many CSS pixels the page is wider than its viewport: above 0, a phone would scroll sideways. */
export async function sidewaysOverflow(p: Page): Promise<number> {
  return Number(await p.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
}
