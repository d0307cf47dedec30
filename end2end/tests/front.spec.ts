import { test, expect } from './lab-page';
import AxeBuilder from '@axe-core/playwright';

// The front page says what idempotency is in one plain sentence before anything else, and its
// second card speaks to a student, not an engineer.

for (const [lang, what, own] of [
  ['bn', /Idempotency মানে একই কাজ/, /নিজস্ব একটি কপি/],
  ['en', /Idempotency means that doing something once or many times has the same effect/, /its own copy of PocketPay/],
] as const) {
  test(`the front page says what idempotency is, plainly (${lang})`, async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto('/');
    await page.locator('html[data-hydrated]').waitFor();
    if (lang === 'en') await page.getByTestId('lang-switch').click();
    await expect(page.locator('html')).toHaveAttribute('lang', lang);
    const first = page.locator('main p').first();
    await expect(first).toHaveAttribute('data-testid', 'home-what');
    await expect(first).toHaveText(what);
    const card = page.locator('main section').nth(1);
    await expect(card).toContainText(own);
    // No engineer's words without a gloss: no seed, no race.
    await expect(card).not.toContainText(/\bseed\b|\brace\b/i);
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(bad.map((v) => v.id)).toEqual([]);
    expect(errors).toEqual([]);
  });
}

// A page carries one language's sentences: the switch fetches the other's once, switching back
// fetches nothing, a reload and a page reached by a link come back in the chosen language, and
// a switch whose sentences cannot be fetched loads the page again in that language instead.
test('a page is sent its own language; the switch fetches the other once', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
  });
  const fetched: string[] = [];
  page.on('request', (r) => {
    const m = new URL(r.url()).pathname.match(/^\/strings\/(\w+)\./);
    if (m) fetched.push(m[1]);
  });
  await page.goto('/quiz');
  await page.locator('html[data-hydrated]').waitFor();
  expect(fetched).toEqual(['bn']);
  const title = page.locator('main h1').first();
  await expect(title).toContainText('কুইজ');
  // A mark on the window: it is still there afterwards only if no page was loaded anew.
  await page.evaluate(() => ((window as unknown as { sameLoad: boolean }).sameLoad = true));

  const lang = page.getByTestId('lang-switch');
  await lang.click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(title).toContainText('Quiz');
  await lang.click();
  await expect(title).toContainText('কুইজ');
  await lang.click();
  await expect(title).toContainText('Quiz');
  expect(fetched).toEqual(['bn', 'en']);
  expect(await page.evaluate(() => (window as unknown as { sameLoad?: boolean }).sameLoad)).toBe(true);

  await page.reload();
  await page.locator('html[data-hydrated]').waitFor();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(title).toContainText('Quiz');
  await page.locator('nav').getByRole('link', { name: 'Glossary' }).click();
  await expect(page).toHaveURL(/\/glossary$/);
  await expect(page.locator('main h1').first()).toHaveText('Glossary');
  await page.goBack();
  await expect(title).toContainText('Quiz');

  // The Bangla sentences cannot be fetched once: the page is loaded again in Bangla instead.
  await page.locator('html[data-hydrated]').waitFor();
  let refused = 0;
  await page.route(/\/strings\/bn\./, (route) => (refused++ === 0 ? route.abort() : route.continue()));
  await lang.click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'bn');
  await expect(title).toContainText('কুইজ');
  await page.locator('html[data-hydrated]').waitFor();
  expect(refused).toBeGreaterThan(1);
  await lang.click();
  await expect(title).toContainText('Quiz');
  expect(errors.filter((e) => !e.includes('did not load'))).toEqual([]);
});

// The front page, the glossary and the summary are sent whole and without code: nothing under
// /pkg but the style sheet, no sentences file. Their switch is a plain form: the page comes
// back at the same address in the other language, and stays so on a reload, a link and back.
test('a page nothing changes on comes without code, and its switch still works', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const code: string[] = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if ((path.startsWith('/pkg/') && !path.endsWith('.css')) || path.startsWith('/strings/')) code.push(path);
  });
  for (const path of ['/', '/glossary', '/summary']) {
    await page.goto(path);
    await expect(page.locator('html')).toHaveAttribute('lang', 'bn');
    await expect(page.locator('html')).toHaveAttribute('data-hydrated', '');
  }
  await page.goto('/glossary#gloss-at_least_once');
  const title = page.locator('main h1').first();
  await expect(title).toHaveText('শব্দকোষ');
  await page.getByTestId('lang-switch').click();
  await expect(page).toHaveURL(/\/glossary$/);
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(title).toHaveText('Glossary');
  await page.reload();
  await expect(title).toHaveText('Glossary');
  await page.locator('nav a[href="/summary"]').click();
  await expect(page).toHaveURL(/\/summary$/);
  await expect(title).toContainText('Summary');
  await page.goBack();
  await expect(page).toHaveURL(/\/glossary$/);
  await expect(title).toHaveText('Glossary');
  // The front page's link to the day leads to a page with code, in the same language.
  await page.locator('nav a[href="/"]').first().click();
  await expect(page.getByTestId('home-what')).toContainText('Idempotency means');
  expect(code).toEqual([]);
  await page.getByTestId('home-day').click();
  await expect(page).toHaveURL(/\/day$/);
  await page.locator('html[data-hydrated]').waitFor();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  expect(code.length).toBeGreaterThan(0);
  // And home again: the switch on a page with code, then the front page in that language.
  await page.getByTestId('lang-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'bn');
  await page.locator('header a.brand').click();
  await expect(page.getByTestId('home-what')).toContainText('Idempotency মানে');
  expect(errors).toEqual([]);
});

// A link to one of these pages that the router takes after all (one without rel="external")
// lands on the page the server sends, without code; and one with a slash after its name is
// sent so too, not loaded again and again.
test('a page without code reached by the router or with a trailing slash loads once', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  let loads = 0;
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) loads++;
  });
  await page.goto('/glossary/');
  await expect(page.locator('main h1').first()).toHaveText('শব্দকোষ');
  await page.waitForTimeout(1_500);
  expect(loads).toBe(1);
  await expect(page.locator('script[type=module]')).toHaveCount(0);

  await page.goto('/quiz');
  await page.locator('html[data-hydrated]').waitFor();
  await page.locator('nav a[href="/glossary"]').evaluate((a) => a.removeAttribute('rel'));
  await page.locator('nav a[href="/glossary"]').click();
  await page.waitForURL(/\/glossary$/);
  await expect(page.locator('main h1').first()).toHaveText('শব্দকোষ');
  await expect(page.locator('script[type=module]')).toHaveCount(0);
  await page.goBack();
  await expect(page).toHaveURL(/\/quiz$/);
  await page.locator('html[data-hydrated]').waitFor();
  expect(errors).toEqual([]);
});
