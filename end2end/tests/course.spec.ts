import { test, expect, LabPage } from './lab-page';
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';

// The course's own pages, used as a student uses them: a quiz question answered wrong, read,
// and answered right; a glossary term followed into the lab; the summary's seven points; each
// calculator's inputs moved, with the lesson's figures at the defaults.

async function open(page: Page, path: string, lang: 'bn' | 'en' = 'bn') {
  await page.goto(path);
  await page.locator('html[data-hydrated]').waitFor();
  if ((await page.locator('html').getAttribute('lang')) !== lang) await page.getByTestId('lang-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', lang);
}

async function noSeriousAxeFaults(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`)).toEqual([]);
}

/** Picks the option whose text is `text` and commits. */
async function answerWith(q: Locator, text: string) {
  await q.locator('.quiz-option', { hasText: text }).first().click();
  await q.getByTestId('quiz-check').click();
}

test('a course screen reached from the menu fetches its own code then, and works', async ({ page }) => {
  // The release build splits each course screen's code from the wasm every page loads: the
  // front page loads no code at all, the quiz its own file, and a click on a menu link from
  // there fetches just that screen's file, without loading a page anew.
  const split: string[] = [];
  const wasm: string[] = [];
  page.on('request', (r) => {
    const m = r.url().match(/\/pkg\/split___(\w+?)_route_view/);
    if (m) split.push(m[1]);
    if (r.url().endsWith('.wasm')) wasm.push(r.url());
  });
  await open(page, '/', 'en');
  expect(wasm).toEqual([]);
  await page.locator('nav a[href="/quiz"]').click();
  await page.waitForURL(/\/quiz$/);
  await page.locator('html[data-hydrated]').waitFor();
  // A mark on the window: it is still there afterwards only if no page was loaded anew.
  await page.evaluate(() => ((window as unknown as { sameLoad: boolean }).sameLoad = true));
  const q = page.getByTestId('quiz-question').filter({ has: page.getByTestId('quiz-option') }).first();
  await q.getByTestId('quiz-option').first().check();
  await q.getByTestId('quiz-check').click();
  await expect(q).toHaveAttribute('data-answered', 'true');
  expect(split).toEqual(['quiz']);
  await page.locator('nav a[href="/calculators"]').click();
  await page.waitForURL(/\/calculators$/);
  await expect(page.getByTestId('calc-window')).toBeVisible();
  expect(split).toEqual(['quiz', 'calculators']);
  expect(await page.evaluate(() => (window as unknown as { sameLoad?: boolean }).sameLoad)).toBe(true);
});

test('a quiz question answered wrong shows why, and answered again right, counts', async ({ page }) => {
  await open(page, '/quiz', 'en');
  const questions = page.getByTestId('quiz-question');
  expect(await questions.count()).toBeGreaterThanOrEqual(15);
  const q = questions.filter({ has: page.getByTestId('quiz-option') }).first();
  await expect(q).toHaveAttribute('data-answered', 'false');
  // Committing nothing is refused with a reason.
  await q.getByTestId('quiz-check').click();
  await expect(q.getByRole('alert')).toBeVisible();
  await expect(q.getByTestId('quiz-reveal')).toHaveCount(0);
  // Try each option until one is wrong: the reveal names the right one.
  const options = q.getByTestId('quiz-option');
  const n = await options.count();
  let wrongFound = false;
  for (let i = 0; i < n && !wrongFound; i++) {
    await options.nth(i).check();
    await q.getByTestId('quiz-check').click();
    await expect(q).toHaveAttribute('data-answered', 'true');
    if ((await q.getAttribute('data-right')) === 'false') wrongFound = true;
    else await q.getByTestId('quiz-retry').click();
  }
  expect(wrongFound).toBeTruthy();
  const reveal = q.getByTestId('quiz-reveal');
  await expect(reveal).toBeVisible();
  await expect(reveal.locator('.quiz-wrong')).not.toBeEmpty();
  await expect(page.getByTestId('quiz-score')).toHaveAttribute('data-right', '0');
  const rightText = (await reveal.locator('p').nth(2).innerText()).replace(/^The answer:\s*/, '');
  // The page keeps the answer across a reload.
  await page.reload();
  await page.locator('html[data-hydrated]').waitFor();
  await expect(q).toHaveAttribute('data-right', 'false');
  await page.getByTestId('quiz-retry-wrong').click();
  await expect(q).toHaveAttribute('data-answered', 'false');
  await answerWith(q, rightText);
  await expect(q).toHaveAttribute('data-right', 'true');
  await expect(page.getByTestId('quiz-score')).toHaveAttribute('data-right', '1');
  await noSeriousAxeFaults(page);
});

test('an order question and a number question are answered through their own controls', async ({ page }) => {
  await open(page, '/quiz');
  const order = page.getByTestId('quiz-question').filter({ has: page.getByTestId('quiz-item') }).first();
  const items = order.getByTestId('quiz-item');
  const count = await items.count();
  // Sort the items into 1..n with the arrow buttons, as a student would.
  for (let target = 0; target < count; target++) {
    for (;;) {
      const ids = await items.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-item'))));
      const at = ids.indexOf(target + 1);
      if (at === target) break;
      await items.nth(at).getByTestId('quiz-up').click();
    }
  }
  await order.getByTestId('quiz-check').click();
  await expect(order).toHaveAttribute('data-right', 'true');

  const number = page.getByTestId('quiz-question').filter({ has: page.getByTestId('quiz-number') }).first();
  await number.getByTestId('quiz-number').fill('১২x');
  await number.getByTestId('quiz-check').click();
  await expect(number.getByRole('alert')).toBeVisible();
  await expect(number).toHaveAttribute('data-answered', 'false');
  await number.getByTestId('quiz-number').fill('৳১০,০০,০০০');
  await number.getByTestId('quiz-check').click();
  await expect(number).toHaveAttribute('data-right', 'false');
  // The reveal's link opens the lab with the preset loaded and the chapter open.
  const href = await number.getByTestId('quiz-demo').getAttribute('href');
  expect(href).toMatch(/^\/lab\?fresh=1&scenario=\d+&variant=\w+&chapter=\d$/);
  await number.getByTestId('quiz-demo').click();
  await page.waitForURL(/\/lab\/[0-9a-f-]{36}\?chapter=\d$/);
  await page.locator('html[data-hydrated]').waitFor();
  await expect(page.getByTestId('timeline-event').and(page.locator('[data-kind="scenario_loaded"]'))).toHaveCount(1);
  await noSeriousAxeFaults(page);
});

test('a glossary term links to the chapter whose lab shows it', async ({ page }) => {
  await open(page, '/glossary');
  const terms = page.getByTestId('glossary-term');
  expect(await terms.count()).toBeGreaterThanOrEqual(25);
  const inbox = terms.filter({ has: page.locator('.term-english', { hasText: /^Inbox$/ }) });
  await expect(inbox).toHaveCount(1);
  const href = await inbox.getByTestId('glossary-link').getAttribute('href');
  const chapter = href!.match(/chapter=(\d)/)![1];
  await noSeriousAxeFaults(page);
  await inbox.getByTestId('glossary-link').click();
  await page.waitForURL(/\/lab\/[0-9a-f-]{36}\?chapter=\d$/);
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', chapter);
});

test('the glossary finds a term as one types, in either script, and keeps the search on a reload', async ({ page }) => {
  await open(page, '/glossary');
  const search = page.getByTestId('glossary-search');
  const shown = page.locator('[data-testid="glossary-term"]:visible');
  const all = await page.getByTestId('glossary-term').count();
  // The lesson's "stored response" has an entry of its own.
  await expect(page.locator('[data-term="stored_response"]')).toHaveCount(1);
  // Latin letters on a Bangla page: the English names.
  await search.fill('stored resp');
  await expect(shown).toHaveCount(1);
  await expect(shown.first()).toHaveAttribute('data-term', 'stored_response');
  await expect(page.getByTestId('glossary-count')).toHaveAttribute('data-count', '1');
  // Bangla letters: the Bangla names and meanings, whichever language the page is in.
  await search.fill('জমা রাখা উত্তর');
  await expect(shown.first()).toHaveAttribute('data-term', 'stored_response');
  await search.fill('qqqzz');
  await expect(shown).toHaveCount(0);
  await expect(page.getByTestId('glossary-count')).toHaveAttribute('data-count', '0');
  // The search is in the address: a reload (drawn by the server) keeps it.
  await search.fill('retry');
  await expect(page).toHaveURL(/\?q=retry$/);
  const found = await shown.count();
  expect(found).toBeGreaterThan(0);
  expect(found).toBeLessThan(all);
  await page.reload();
  await expect(search).toHaveValue('retry');
  await expect(shown).toHaveCount(found);
  await search.fill('');
  await expect(shown).toHaveCount(all);
});

test('the summary draws the path with a guard at every stop and links the seven points to the lab', async ({ page }) => {
  await open(page, '/summary', 'en');
  await expect(page.locator('.path-stop')).toHaveCount(8);
  for (const stop of await page.locator('.path-stop').all()) {
    expect(await stop.locator('.guard-chip').count()).toBeGreaterThan(0);
  }
  const points = page.getByTestId('remember-point');
  await expect(points).toHaveCount(7);
  await expect(points.first()).toContainText(/I don't know/);
  for (const p of await points.all()) {
    await expect(p.getByTestId('remember-demo')).toHaveAttribute('href', /^\/lab\?chapter=\d$/);
  }
  await noSeriousAxeFaults(page);
  await points.nth(2).getByTestId('remember-demo').click();
  await page.waitForURL(/\?chapter=3$/);
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', '3');
});

test("the calculators start at the lesson's figures and follow their inputs", async ({ page }) => {
  await open(page, '/calculators', 'en');
  const win = page.getByTestId('calc-window');
  const at = (h: number) => win.locator(`[data-testid="calc-window-at"][data-hours="${h}"]`);
  // 1 GB a day; 2 GB at 48 h; 7 GB a week; 365 GB a year.
  await expect(win.getByTestId('calc-window-per-day')).toHaveAttribute('data-value', '1000000000');
  await expect(win.getByTestId('calc-window-size')).toHaveAttribute('data-value', '2000000000');
  await expect(at(24)).toHaveAttribute('data-value', '1000000000');
  await expect(at(168)).toHaveAttribute('data-value', '7000000000');
  await expect(at(8760)).toHaveAttribute('data-value', '365000000000');
  await expect(at(8760)).toContainText('365 GB');
  await expect(win.getByTestId('calc-window-rule')).toHaveAttribute('data-safe', 'true');
  const cx = await win.getByTestId('calc-window-chosen').getAttribute('cx');
  // A 24 h window breaks the rule (24 h retries + 24 h margin); the dot moves left.
  await win.getByTestId('calc-window-hours').fill('24');
  await expect(win.getByTestId('calc-window-rule')).toHaveAttribute('data-safe', 'false');
  await expect(win.getByTestId('calc-window-size')).toHaveAttribute('data-value', '1000000000');
  expect(Number(await win.getByTestId('calc-window-chosen').getAttribute('cx'))).toBeLessThan(Number(cx));
  // Twice the traffic, twice the table.
  await win.getByTestId('calc-window-transfers').fill('4,000,000');
  await expect(at(168)).toHaveAttribute('data-value', '14000000000');
  // A bad number is refused with a message, and the last good value stays.
  await win.getByTestId('calc-window-row').fill('five hundred');
  await expect(win.locator('#calc-window-row-error')).toContainText(/Type a number/);
  await expect(at(168)).toHaveAttribute('data-value', '14000000000');

  const tickets = page.getByTestId('calc-tickets');
  await expect(tickets.getByTestId('calc-tickets-unknown')).toHaveAttribute('data-value', '10000');
  await expect(tickets.getByTestId('calc-tickets-month')).toHaveAttribute('data-value', '340');
  await expect(tickets.getByTestId('calc-tickets-after')).toHaveAttribute('data-value', '0');
  const bar = tickets.getByTestId('calc-tickets-bar');
  const lessonLine = tickets.getByTestId('calc-tickets-lesson-line');
  // At the defaults the bar reaches exactly the lesson's 340.
  expect(Number(await bar.getAttribute('y'))).toBeCloseTo(Number(await lessonLine.getAttribute('y1')), 3);
  await tickets.getByTestId('calc-tickets-timeout').fill('1');
  await expect(tickets.getByTestId('calc-tickets-unknown')).toHaveAttribute('data-value', '20000');
  await expect(tickets.getByTestId('calc-tickets-month')).toHaveAttribute('data-value', '680');
  // Twice the timeouts: the bar stands above the lesson's line.
  expect(Number(await bar.getAttribute('y'))).toBeLessThan(Number(await lessonLine.getAttribute('y1')) - 10);
  await tickets.getByTestId('calc-tickets-timeout').fill('101');
  await expect(tickets.locator('#calc-tickets-timeout-error')).toBeVisible();
  await expect(tickets.getByTestId('calc-tickets-month')).toHaveAttribute('data-value', '680');

  // Measured live on the server's SQLite: three days of 500 rows.
  const drop = page.getByTestId('calc-drop-vs-delete');
  await drop.getByTestId('calc-drop-days').fill('3');
  await drop.getByTestId('calc-drop-rows').fill('500');
  await drop.getByTestId('calc-drop-run').click();
  const points = drop.getByTestId('calc-drop-point');
  await expect(points).toHaveCount(3, { timeout: 30_000 });
  for (const p of await points.all()) {
    expect(Number(await p.getAttribute('data-delete-us'))).toBeGreaterThan(0);
  }
  await expect(drop.getByTestId('calc-drop-delete-line')).toHaveAttribute('points', /,.* .*,.* .*,/);
  await drop.getByTestId('calc-drop-days').fill('11');
  await expect(drop.locator('#calc-drop-days-error')).toBeVisible();
  await noSeriousAxeFaults(page);
});

for (const lang of ['bn', 'en'] as const) {
  test(`every course page speaks ${lang} with no serious accessibility fault`, async ({ page }) => {
    for (const path of ['/quiz', '/glossary', '/summary', '/calculators']) {
      await open(page, path, lang);
      await expect(page.locator('main h1')).toBeVisible();
      await noSeriousAxeFaults(page);
    }
  });
}

test('the end of a chapter asks its question', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open(1);
  await page.getByTestId('preset-load').click();
  await expect(page.locator('[data-testid="chapter-step"][data-step="1"]')).toHaveAttribute('data-done', 'true');
  await lab.send.click();
  await expect(page.locator('[data-testid="chapter-step"][data-step="2"]')).toHaveAttribute('data-done', 'true', { timeout: 20_000 });
  // Step 3 asks the student to look at the meter: a tap on it.
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  await lab.damage.click();
  await expect(page.locator('[data-testid="chapter-step"][data-step="3"]')).toHaveAttribute('data-done', 'true');
  await lab.setFault('response_loss_pct', 0);
  await lab.send.click();
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-finished', 'true', { timeout: 20_000 });
  const q = page.getByTestId('chapter').getByTestId('quiz-question');
  await expect(q).toHaveCount(1);
  await q.getByTestId('quiz-option').first().check();
  await q.getByTestId('quiz-check').click();
  await expect(q.getByTestId('quiz-reveal')).toBeVisible();
  lab.expectNoErrors();
});
