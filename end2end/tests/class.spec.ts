import { test, expect, LabPage, noteSeed } from './lab-page';
import type { Browser, Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

/** No serious or critical accessibility fault on the page. */
async function accessible(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => v.id), page.url()).toEqual([]);
}

// A class (docs/reference.md §10): an instructor makes one, three students join (by the link
// and by typing the code on the front page), and the instructor's view follows each of them:
// their chapter, their steps, the harm their meter shows. Every person is a browser context of
// their own, as in a classroom. A student's sandbox is made by the join with a drawn seed; the
// test notes it, so a failing run names the seeds to replay.

function step(page: Page, k: number) {
  return page.locator(`[data-testid="chapter-step"][data-step="${k}"]`);
}

/** Page errors and Rust panics on every page a person of this file opened (each person is a
 * browser context of their own, which the shared fixture does not see); a test that opens
 * people checks it is empty at its end. */
const troubles: string[] = [];
function watch(page: Page) {
  page.on('pageerror', (e) => troubles.push(`${page.url()}: ${e}`));
  page.on('console', (m) => {
    if (/panicked at|RuntimeError|unreachable/.test(m.text())) troubles.push(`${page.url()}: ${m.text()}`);
  });
}

/** A person with a browser of their own. */
async function person(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  watch(page);
  return page;
}

/** Notes the seed of the student's sandbox (the join drew it). */
async function noteStudentSeed(page: Page, lab: LabPage) {
  const state = await page.request.get(`/api/sandboxes/${lab.sandboxId()}/state`);
  noteSeed((await state.json()).seed);
}

/** Fills in a name on the join page and lands in chapter 01 of a lab of one's own. */
async function joinAs(page: Page, name: string): Promise<LabPage> {
  await page.locator('html[data-hydrated]').waitFor();
  await page.getByTestId('join-name').fill(name);
  await page.getByTestId('join-go').click();
  await page.waitForURL(/\/lab\/[0-9a-f-]{36}\?chapter=1$/);
  const lab = new LabPage(page);
  await lab.hydrated();
  await expect(page.getByTestId('chapter')).toHaveAttribute('data-chapter', '1');
  await noteStudentSeed(page, lab);
  return lab;
}

/** Makes a class; returns the instructor's page on its view, its code and its join link. */
async function makeClass(browser: Browser) {
  const teacher = await person(browser);
  await teacher.goto('/teach');
  await teacher.locator('html[data-hydrated]').waitFor();
  await teacher.getByTestId('class-create').click();
  await teacher.waitForURL(/\/teach\/[0-9a-f-]{36}$/);
  await teacher.locator('html[data-hydrated]').waitFor();
  const code = (await teacher.getByTestId('class-code').getAttribute('data-code'))!;
  expect(code).toMatch(/^[A-Z0-9]{6}$/);
  const link = (await teacher.getByTestId('class-join-link').getAttribute('href'))!;
  expect(link).toMatch(new RegExp(`/join/${code}$`));
  await expect(teacher.locator('.class-qr svg')).toHaveCount(1);
  await expect(teacher.getByTestId('class-live')).toHaveAttribute('data-live', 'true');
  return { teacher, code, link, classUrl: teacher.url() };
}

function row(teacher: Page, name: string) {
  return teacher.locator(`[data-testid="class-student"][data-name="${name}"]`);
}

test('an instructor and three students: join by link and by code, and the view follows each', async ({ browser }) => {
  test.setTimeout(120_000);
  const { teacher, code, link, classUrl } = await makeClass(browser);

  // Shimul and Imran open the link; Tithi types the code on the front page, as she heard it.
  const shimul = await person(browser);
  await shimul.goto(link);
  const shimulLab = await joinAs(shimul, 'Shimul');

  const tithi = await person(browser);
  await tithi.goto('/');
  await tithi.locator('html[data-hydrated]').waitFor();
  await tithi.getByTestId('join-code').fill(`${code.slice(0, 3).toLowerCase()} ${code.slice(3)}`);
  await tithi.getByTestId('join-submit').click();
  await tithi.waitForURL(new RegExp(`/join/${code}$`));
  const tithiLab = await joinAs(tithi, 'Tithi');

  const imran = await person(browser);
  await imran.goto(link);
  await joinAs(imran, 'Imran');

  // A name is one person's in a class.
  const again = await person(browser);
  await again.goto(link);
  await again.locator('html[data-hydrated]').waitFor();
  await again.getByTestId('join-name').fill('Imran');
  await again.getByTestId('join-go').click();
  await expect(again.getByTestId('join-problem')).not.toBeEmpty();
  expect(again.url()).toMatch(/\/join\//);
  await accessible(again);

  // The view has all three, each in chapter 01 with no step done and no harm.
  await expect(teacher.getByTestId('class-student')).toHaveCount(3);
  for (const name of ['Shimul', 'Tithi', 'Imran']) {
    await expect(row(teacher, name)).toHaveAttribute('data-chapter', '1');
    await expect(row(teacher, name)).toHaveAttribute('data-steps-done', '0');
    await expect(row(teacher, name)).toHaveAttribute('data-damage', 'none');
  }
  await expect(teacher.locator('[data-testid="class-count"][data-chapter="1"]')).toHaveAttribute('data-count', '3');

  // Shimul does chapter 01 as it says: the scenario, a tap, a look at the meter, the loss
  // switched off, a second tap — charged twice. His row follows every step and then the harm.
  await shimul.getByTestId('preset-load').click();
  await expect(step(shimul, 1)).toHaveAttribute('data-done', 'true');
  await expect(row(teacher, 'Shimul')).toHaveAttribute('data-steps-done', '1');
  await shimulLab.speedUp(`/api/sandboxes/${shimulLab.sandboxId()}`, 10);
  await shimulLab.send.click();
  await expect(step(shimul, 2)).toHaveAttribute('data-done', 'true', { timeout: 20_000 });
  await expect(row(teacher, 'Shimul')).toHaveAttribute('data-steps-done', '2');
  await shimulLab.damage.click();
  await expect(step(shimul, 3)).toHaveAttribute('data-done', 'true');
  await shimulLab.setFault('response_loss_pct', 0);
  await expect(step(shimul, 4)).toHaveAttribute('data-done', 'true');
  await shimulLab.send.click();
  await expect(shimulLab.figure('double_charges')).toHaveAttribute('data-value', '1', { timeout: 20_000 });
  await expect(row(teacher, 'Shimul')).toHaveAttribute('data-steps-done', '5');
  await expect(row(teacher, 'Shimul')).toHaveAttribute('data-damage', 'money');
  await expect(row(teacher, 'Shimul').locator('.class-last')).not.toHaveText(/^\s*$/);

  // Tithi moves on to chapter 02; her row says so. Imran stays where he was.
  await tithi.getByTestId('chapter-next').click();
  await expect(tithi.getByTestId('chapter')).toHaveAttribute('data-chapter', '2');
  await expect(row(teacher, 'Tithi')).toHaveAttribute('data-chapter', '2');
  await expect(row(teacher, 'Tithi')).toHaveAttribute('data-steps-done', '0');
  await expect(row(teacher, 'Imran')).toHaveAttribute('data-steps-done', '0');
  await expect(teacher.locator('[data-testid="class-count"][data-chapter="1"]')).toHaveAttribute('data-count', '2');

  // Coming back: a reload of the view has everyone where they were, and Shimul's reload does
  // not set his row back.
  await teacher.reload();
  await teacher.locator('html[data-hydrated]').waitFor();
  await expect(row(teacher, 'Shimul')).toHaveAttribute('data-steps-done', '5');
  await expect(row(teacher, 'Shimul')).toHaveAttribute('data-damage', 'money');
  await expect(row(teacher, 'Tithi')).toHaveAttribute('data-chapter', '2');
  await shimul.reload();
  await shimulLab.hydrated();
  await expect(step(shimul, 5)).toHaveAttribute('data-done', 'true');
  await expect(row(teacher, 'Shimul')).toHaveAttribute('data-steps-done', '5');
  void tithiLab;

  await accessible(teacher);

  // Ordered by harm, Shimul comes first.
  await teacher.getByTestId('class-order').selectOption('harm');
  await expect(teacher.getByTestId('class-student').first()).toHaveAttribute('data-name', 'Shimul');

  // A student's browser holds no key to the class view.
  const refused = await imran.goto(classUrl);
  expect(refused?.status()).toBe(403);
  await expect(imran.getByTestId('class-refused')).toBeVisible();
  const stream = await imran.request.get(`${new URL(classUrl).pathname}/events`);
  expect(stream.status()).toBe(403);
});

test('a wrong code gets a clear page and a way to try again, never a 500', async ({ page }) => {
  const res = await page.goto('/join/HKM479');
  expect(res?.status()).toBe(404);
  await expect(page.getByTestId('join-refused')).toContainText('HKM479');
  // The front page's field: a code with letters codes never use lands on that page too.
  await page.goto('/');
  await page.getByTestId('join-code').fill('OOO 000');
  await page.getByTestId('join-submit').click();
  await page.waitForURL(/\/join\/OOO000$/);
  await expect(page.getByTestId('join-refused')).toContainText('OOO000');
  const bad = await page.goto('/join/not-a-code');
  expect(bad?.status()).toBe(404);
  await expect(page.getByTestId('join-refused')).toBeVisible();
  const unknown = await page.goto('/teach/00000000-0000-4000-8000-000000000000');
  expect(unknown?.status()).toBe(404);
  await expect(page.getByTestId('class-refused')).toBeVisible();
  await page.goto('/teach');
  await accessible(page);
});

test('a push reaches every student: a scenario, a safeguard, frozen clocks, a reset asked twice', async ({ browser }) => {
  test.setTimeout(120_000);
  const { teacher, link } = await makeClass(browser);
  const labs: { page: Page; lab: LabPage }[] = [];
  for (const name of ['Shimul', 'Tithi', 'Imran']) {
    const page = await person(browser);
    await page.goto(link);
    labs.push({ page, lab: await joinAs(page, name) });
  }
  await expect(teacher.getByTestId('class-student')).toHaveCount(3);
  const report = teacher.getByTestId('class-push-report');
  const state = async (l: { page: Page; lab: LabPage }) =>
    (await (await l.page.request.get(`/api/sandboxes/${l.lab.sandboxId()}/state`)).json());

  // Scenario 1 with its guards off, in every lab at once.
  await teacher.getByTestId('class-preset').selectOption('1-unguarded');
  await teacher.getByTestId('class-push-preset').click();
  await expect(report).toHaveAttribute('data-took', '3');
  await expect(report).toHaveAttribute('data-of', '3');
  for (const l of labs) {
    const s = await state(l);
    expect(s.safeguards.key_persistence, l.lab.sandboxId()).toBe(false);
    expect(s.safeguards.idempotency_table).toBe(false);
    // The student's own screen hears of it: the switch is off there too.
    await expect(l.lab.safeguard('key_persistence')).not.toBeChecked();
  }

  // One safeguard back on for everyone.
  await teacher.getByTestId('class-safeguard').selectOption('idempotency_table');
  await teacher.getByTestId('class-push-safeguard-on').click();
  for (const l of labs) await expect.poll(async () => (await state(l)).safeguards.idempotency_table).toBe(true);
  await expect(report).toHaveAttribute('data-took', '3');

  // Every clock frozen, then running again; the students' clocks show it, and a second
  // window of the instructor's (the projector's laptop, say) shows the same freeze and lock.
  const second = await teacher.context().newPage();
  await second.goto(teacher.url());
  await second.locator('html[data-hydrated]').waitFor();
  await expect(second.getByTestId('class-live')).toHaveAttribute('data-live', 'true');
  await teacher.getByTestId('class-freeze').click();
  await expect(teacher.getByTestId('class-freeze')).toHaveAttribute('data-frozen', 'true');
  await expect(second.getByTestId('class-freeze')).toHaveAttribute('data-frozen', 'true');
  for (const l of labs) await expect(l.lab.clock).toHaveAttribute('data-mode', 'paused');
  // Frozen means frozen: a student's own clock change is refused, and the clock stays.
  const own = await labs[0].page.request.post(`/api/sandboxes/${labs[0].lab.sandboxId()}/clock`, {
    data: { advance_seconds: 86400 },
  });
  expect(own.status()).toBe(423);
  expect((await own.json()).type).toBe('urn:pocketpay-lab:problem:frozen-by-class');
  await second.reload();
  await second.locator('html[data-hydrated]').waitFor();
  await expect(second.getByTestId('class-freeze')).toHaveAttribute('data-frozen', 'true');
  await teacher.getByTestId('class-freeze').click();
  await expect(teacher.getByTestId('class-freeze')).toHaveAttribute('data-frozen', 'false');
  await expect(second.getByTestId('class-freeze')).toHaveAttribute('data-frozen', 'false');
  for (const l of labs) await expect(l.lab.clock).toHaveAttribute('data-mode', 'live');
  await second.getByTestId('class-lock').click();
  await expect(teacher.getByTestId('class-lock')).toHaveAttribute('data-locked', 'true');
  await second.getByTestId('class-lock').click();
  await expect(teacher.getByTestId('class-lock')).toHaveAttribute('data-locked', 'false');
  await second.close();

  // A reset asks first; "No" changes nothing, "Yes" resets all three.
  await teacher.getByTestId('class-reset-all').click();
  await teacher.getByTestId('class-reset-cancel').click();
  expect((await state(labs[0])).safeguards.key_persistence).toBe(false);
  await teacher.getByTestId('class-reset-all').click();
  await teacher.getByTestId('class-reset-confirm').click();
  for (const l of labs) await expect.poll(async () => (await state(l)).safeguards.key_persistence).toBe(true);
  await expect(report).toHaveAttribute('data-took', '3');
});

/** Every control inside the lab's panels that a click could still use. */
async function enabledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.lab-grid :is(button, input, select, textarea)')]
      .filter((el) => !el.matches(':disabled'))
      .map((el) => el.outerHTML.slice(0, 80)),
  );
}

test('the instructor watches a lab read-only, locks the switches, and ends with a summary', async ({ browser }) => {
  test.setTimeout(150_000);
  const { teacher, link } = await makeClass(browser);
  const students: Record<string, { page: Page; lab: LabPage }> = {};
  for (const name of ['Shimul', 'Tithi', 'Imran']) {
    const page = await person(browser);
    await page.goto(link);
    students[name] = { page, lab: await joinAs(page, name) };
  }
  const { page: tithi, lab: tithiLab } = students.Tithi;
  const { page: shimul, lab: shimulLab } = students.Shimul;
  const teacherErrors: string[] = [];
  teacher.on('pageerror', (e) => teacherErrors.push(String(e)));
  teacher.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) teacherErrors.push(m.text());
  });

  // Tithi types an amount on her phone; the instructor opens her lab read-only and sees it.
  await tithiLab.amount.fill('750');
  const opened = teacher.context().waitForEvent('page');
  await row(teacher, 'Tithi').getByTestId('class-student-open').click();
  const mirror = await opened;
  const watched = new LabPage(mirror);
  await watched.hydrated();
  // The mirror's token starts with the class's route, as Tithi's sandbox does.
  expect(mirror.url()).toContain(`/watch/${tithiLab.sandboxId().slice(0, 9)}`);
  expect(mirror.url()).not.toContain(tithiLab.sandboxId().slice(9));
  await expect(mirror.getByTestId('lab')).toHaveAttribute('data-readonly', 'true');
  await expect(mirror.getByTestId('amount')).toHaveValue('750');
  // Every control is disabled; a forced click on Send sends nothing.
  expect(await enabledControls(mirror)).toEqual([]);
  const events = async () =>
    (await (await tithi.request.get(`/api/sandboxes/${tithiLab.sandboxId()}/state`)).json()).tables['lab.events'].length;
  const before = await events();
  await mirror.getByTestId('send-button').click({ force: true });
  await mirror.waitForTimeout(500);
  expect(await events(), 'a mirror taps nothing').toBe(before);
  // Tithi sends; the mirror follows her phone and her timeline.
  await tithiLab.speedUp(`/api/sandboxes/${tithiLab.sandboxId()}`, 10);
  await tithiLab.send.click();
  await expect(tithiLab.phoneMessage).toHaveAttribute('data-state', 'receipt', { timeout: 20_000 });
  await expect(watched.phoneMessage).toHaveAttribute('data-state', 'receipt', { timeout: 5_000 });
  await expect(watched.key).toHaveText((await tithiLab.key.textContent())!);
  await expect(watched.events.first()).toBeVisible();
  // A reload of the mirror comes back read-only, with the phone.
  await mirror.reload();
  await watched.hydrated();
  await expect(mirror.getByTestId('lab')).toHaveAttribute('data-readonly', 'true');
  await expect(watched.phoneMessage).toHaveAttribute('data-state', 'receipt');
  expect(await enabledControls(mirror)).toEqual([]);
  watched.expectNoErrors();

  // The lock: Shimul's switches go grey and the server refuses them; Send still works.
  await teacher.getByTestId('class-lock').click();
  await expect(teacher.getByTestId('class-lock')).toHaveAttribute('data-locked', 'true');
  await expect(shimul.getByTestId('lab-locked')).toBeVisible();
  await expect(shimulLab.safeguard('idempotency_table')).toBeDisabled();
  await expect(shimulLab.send).toBeEnabled();
  const put = await shimul.request.put(`/api/sandboxes/${shimulLab.sandboxId()}/safeguards`, {
    data: { idempotency_table: false },
  });
  expect(put.status()).toBe(423);
  // A reload keeps the lock; unlocking gives the switches back.
  await shimul.reload();
  await shimulLab.hydrated();
  await expect(shimul.getByTestId('lab-locked')).toBeVisible();
  await teacher.getByTestId('class-lock').click();
  await expect(teacher.getByTestId('class-lock')).toHaveAttribute('data-locked', 'false');
  await expect(shimul.getByTestId('lab-locked')).toHaveCount(0);
  await expect(shimulLab.safeguard('idempotency_table')).toBeEnabled();

  // Shimul ticks chapter 01's first step and shares a quiz answer; Tithi moves to chapter 02.
  await shimul.getByTestId('preset-load').click();
  await expect(step(shimul, 1)).toHaveAttribute('data-done', 'true');
  await expect(row(teacher, 'Shimul')).toHaveAttribute('data-steps-done', '1');
  await tithi.getByTestId('chapter-next').click();
  await expect(row(teacher, 'Tithi')).toHaveAttribute('data-chapter', '2');
  await shimul.goto('/quiz');
  await shimul.locator('html[data-hydrated]').waitFor();
  const q = shimul.getByTestId('quiz-question').filter({ has: shimul.getByTestId('quiz-option') }).first();
  await q.getByTestId('quiz-option').first().check();
  await q.getByTestId('quiz-check').click();
  const score = shimul.getByTestId('quiz-score');
  await expect(score).toHaveAttribute('data-answered', '1');
  const right = (await score.getAttribute('data-right'))!;
  await shimul.getByTestId('quiz-share').click();
  await expect(shimul.getByTestId('quiz-shared')).toContainText(/[1১]/);

  // The summary: three students, all opened chapter 01, one ticked its first step, one
  // reached chapter 02, one shared a score.
  await teacher.getByTestId('class-summary-open').click();
  const chapter = (n: number) => teacher.locator(`[data-testid="class-summary-chapter"][data-chapter="${n}"]`);
  await expect(chapter(1)).toHaveAttribute('data-reached', '3');
  await expect(chapter(1).locator('[data-testid="class-summary-step"][data-step="1"]')).toHaveAttribute('data-done', '1');
  await expect(chapter(2)).toHaveAttribute('data-reached', '1');
  await expect(chapter(3)).toHaveAttribute('data-reached', '0');
  await expect(teacher.getByTestId('class-summary-shared')).toHaveAttribute('data-shared', '1');
  await expect(teacher.getByTestId('class-summary-score')).toHaveAttribute('data-right', right);
  // The CSV says the same, one line per student.
  const href = (await teacher.getByTestId('class-summary-csv').getAttribute('href'))!;
  const csv = await (await teacher.request.get(href)).text();
  // A byte order mark first, so a spreadsheet reads the names as UTF-8.
  expect(csv.startsWith('\uFEFF')).toBe(true);
  const lines = csv.trim().split('\r\n');
  expect(lines).toHaveLength(4);
  expect(lines[0]).toContain(',harm_seen,harm_now,quiz_');
  expect(lines.find((l) => l.startsWith('Shimul,'))).toMatch(new RegExp(`^Shimul,1,1,.*,${right},1,none,none(,[01]?)+$`));
  expect(lines.find((l) => l.startsWith('Tithi,'))).toMatch(/^Tithi,2,0,0,/);
  // A student's browser gets no summary.
  expect((await shimul.request.get(href)).status()).toBe(403);
  await accessible(teacher);
  // On a phone the view and the summary fit its width: wide tables scroll in their own box.
  await teacher.setViewportSize({ width: 390, height: 844 });
  expect(await teacher.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  // No page of the class, the students' labs or the mirror failed on the way.
  expect(teacherErrors).toEqual([]);
  for (const { lab } of Object.values(students)) lab.expectNoErrors();
});

test('a projector mirrors the presenter’s lab, phone included, and a reset asks first', async ({ page, browser }) => {
  const lab = new LabPage(page);
  await lab.open();
  await page.getByTestId('amount').fill('1200');
  await page.getByTestId('mirror-make').click();
  const link = await page.getByTestId('mirror-link').inputValue();
  expect(link).toMatch(/\/watch\/[0-9a-f-]{36}$/);
  expect(link).not.toContain(lab.sandboxId());
  const projector = await person(browser);
  await projector.setViewportSize({ width: 1920, height: 1080 });
  await projector.goto(link);
  const shown = new LabPage(projector);
  await shown.hydrated();
  await expect(projector.getByTestId('amount')).toHaveValue('1200');
  expect(await enabledControls(projector)).toEqual([]);
  // The presenter layout: the phone, the meter and the timeline on one 1920×1080 screen.
  await projector.getByTestId('mirror-presenter').click();
  await expect(projector.locator('.lab.presenter')).toHaveCount(1);
  for (const id of ['send-button', 'damage-meter', 'timeline']) {
    const box = (await projector.getByTestId(id).first().boundingBox())!;
    expect(box.y + Math.min(box.height, 200), id).toBeLessThanOrEqual(1080);
    expect(box.x + box.width, id).toBeLessThanOrEqual(1920);
  }
  // Every scenario, guarded and unguarded (7 has no guard to take off), and 8 at most once, is one pick away.
  const options = page.getByTestId('lab-preset').locator('option');
  await expect(options).toHaveCount(24);
  await page.getByTestId('lab-preset').selectOption('4-unguarded');
  await page.getByTestId('lab-preset-load').click();
  await expect(lab.safeguard('fingerprint_check')).not.toBeChecked();
  // A reset asks first: "keep" changes nothing.
  await lab.reset.click();
  await page.getByTestId('reset-cancel').click();
  await expect(lab.safeguard('fingerprint_check')).not.toBeChecked();
  await lab.resetLab();
  await expect(lab.safeguard('fingerprint_check')).toBeChecked();
  shown.expectNoErrors();
});

test('the class shows what the server saw: a forged chapter and a forged score change nothing', async ({ browser }) => {
  test.setTimeout(120_000);
  const { teacher, link } = await makeClass(browser);
  // Two students join; the lab tells the server which chapter is open, and the test learns
  // the address of that call from the page itself.
  const mallory = await person(browser);
  const reportUrl = mallory.waitForRequest(/\/rpc\/report_progress/);
  await mallory.goto(link);
  const malloryLab = await joinAs(mallory, 'Mallory');
  const reportPath = new URL((await reportUrl).url()).pathname;
  const tithi = await person(browser);
  await tithi.goto(link);
  await joinAs(tithi, 'Tithi');
  await expect(teacher.getByTestId('class-student')).toHaveCount(2);

  // Tithi does chapter 01's first step; the view shows it, as her sandbox does.
  await tithi.getByTestId('preset-load').click();
  await expect(step(tithi, 1)).toHaveAttribute('data-done', 'true');
  await expect(row(teacher, 'Tithi')).toHaveAttribute('data-steps-done', '1');

  // Mallory's browser claims chapter 09 finished, as the lab once let it: refused.
  const post = (path: string, data: unknown) =>
    mallory.evaluate(
      async ([path, data]) => {
        const r = await fetch(path as string, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(data),
        });
        return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
      },
      [path, data],
    );
  const claim = await post(reportPath, {
    sandbox: malloryLab.sandboxId(),
    progress: { chapter: 9, steps_done: 6, ticked: 63 },
  });
  expect(claim.status).toBe(400);
  expect(claim.type).toContain('application/problem+json');
  // The chapter open is the browser's to say; its steps are the sandbox's: none done.
  const open = await post(reportPath, {
    sandbox: malloryLab.sandboxId(),
    report: { chapter: 9, looked: ['damage-meter', 'event-fraud_crashed', 'table-fraud.audit'] },
    steps_done: 6,
    ticked: 63,
  });
  expect(open.status).toBe(200);
  await expect(row(teacher, 'Mallory')).toHaveAttribute('data-chapter', '9');
  await expect(row(teacher, 'Mallory')).toHaveAttribute('data-steps-done', '0');

  // A perfect score sent as a total is refused; the quiz is marked from answers alone.
  const shareUrl = mallory.waitForRequest(/\/rpc\/share_quiz/);
  await mallory.goto('/quiz');
  await mallory.locator('html[data-hydrated]').waitFor();
  const q = mallory.getByTestId('quiz-question').filter({ has: mallory.getByTestId('quiz-option') }).first();
  await q.getByTestId('quiz-option').first().check();
  await q.getByTestId('quiz-check').click();
  await mallory.getByTestId('quiz-share').click();
  await expect(mallory.getByTestId('quiz-shared')).toContainText(/[1১]/);
  const sharePath = new URL((await shareUrl).url()).pathname;
  const total = await post(sharePath, { correct: 18, answered: 18 });
  expect(total.status).toBe(400);

  // The instructor's view and summary, after a reload: what the server saw.
  await teacher.reload();
  await teacher.locator('html[data-hydrated]').waitFor();
  await expect(row(teacher, 'Mallory')).toHaveAttribute('data-steps-done', '0');
  await expect(row(teacher, 'Tithi')).toHaveAttribute('data-steps-done', '1');
  await teacher.getByTestId('class-summary-open').click();
  const chapter = (n: number) => teacher.locator(`[data-testid="class-summary-chapter"][data-chapter="${n}"]`);
  await expect(chapter(9)).toHaveAttribute('data-reached', '1');
  for (let k = 1; k <= 6; k++) {
    const cell = chapter(9).locator(`[data-testid="class-summary-step"][data-step="${k}"]`);
    if (await cell.count()) await expect(cell).toHaveAttribute('data-done', '0');
  }
  await expect(chapter(1).locator('[data-testid="class-summary-step"][data-step="1"]')).toHaveAttribute('data-done', '1');
  await expect(teacher.getByTestId('class-summary-score')).toHaveAttribute('data-answered', '1');
});

test('a push opens the chapter that teaches it, a message reaches every screen, and the view counts the step', async ({ browser }) => {
  test.setTimeout(150_000);
  const { teacher, link } = await makeClass(browser);
  const labs: { page: Page; lab: LabPage }[] = [];
  for (const [name, phone] of [['Shimul', false], ['Tithi', false], ['Imran', true]] as const) {
    const context = await browser.newContext(phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : {});
    const page = await context.newPage();
    watch(page);
    await page.goto(link);
    labs.push({ page, lab: await joinAs(page, name) });
  }
  await expect(teacher.getByTestId('class-student')).toHaveCount(3);
  // A ghost row (a second join under another name): renamed, then taken off, asked first.
  const ghost = await person(browser);
  await ghost.goto(link);
  await joinAs(ghost, 'Imran  2');
  await expect(teacher.getByTestId('class-student')).toHaveCount(4);
  await row(teacher, 'Imran 2').getByTestId('class-student-rename').click();
  await teacher.getByTestId('class-student-rename-text').fill('imran');
  await teacher.getByTestId('class-student-rename-save').click();
  await expect(teacher.getByTestId('class-student-rename-error')).toBeVisible();
  await teacher.getByTestId('class-student-rename-text').fill('Imran again');
  await teacher.getByTestId('class-student-rename-save').click();
  await expect(row(teacher, 'Imran again')).toHaveCount(1);
  await expect(row(teacher, 'Imran 2')).toHaveCount(0);
  await row(teacher, 'Imran again').getByTestId('class-student-remove').click();
  await row(teacher, 'Imran again').getByTestId('class-student-remove-cancel').click();
  await expect(teacher.getByTestId('class-student')).toHaveCount(4);
  await row(teacher, 'Imran again').getByTestId('class-student-remove').click();
  await row(teacher, 'Imran again').getByTestId('class-student-remove-confirm').click();
  await expect(teacher.getByTestId('class-student')).toHaveCount(3);
  await teacher.reload();
  await teacher.locator('html[data-hydrated]').waitFor();
  await expect(teacher.getByTestId('class-student')).toHaveCount(3);

  // A line to every screen, as typed.
  await teacher.getByTestId('class-message-text').fill('অধ্যায় ০৮ খুলছি: replay-এর ফাঁদ');
  await teacher.getByTestId('class-message-send').click();
  for (const l of labs) await expect(l.page.getByTestId('class-message')).toContainText('অধ্যায় ০৮ খুলছি: replay-এর ফাঁদ');
  await expect(teacher.getByTestId('class-message-text')).toHaveValue('');

  // The replay trap with a 24-hour inbox: chapter 08 opens on every screen at its step 5,
  // the steps before it not asked for, the replay's controls there to use.
  await teacher.getByTestId('class-preset').selectOption('11-unguarded');
  await teacher.getByTestId('class-push-preset').click();
  await expect(teacher.getByTestId('class-push-report')).toHaveAttribute('data-took', '3');
  for (const l of labs) {
    await l.page.waitForURL(/\?chapter=8$/);
    await expect(l.page.getByTestId('chapter')).toHaveAttribute('data-chapter', '8');
    await expect(step(l.page, 4)).toHaveAttribute('data-skipped', 'true');
    await expect(l.page.getByTestId('chapter-pushed')).toHaveAttribute('data-step', '5');
    await expect(step(l.page, 5)).toHaveClass(/current/);
    await expect(l.page.getByTestId('replay-start')).toBeAttached();
    // The message stays until the next one.
    await expect(l.page.getByTestId('class-message')).toBeVisible();
  }
  // On the phone, the lock is said in the bar that stays in view while the student scrolls.
  const imranPhone = labs[2].page;
  await teacher.getByTestId('class-lock').click();
  await imranPhone.getByTestId('send-button').scrollIntoViewIfNeeded();
  await expect(imranPhone.getByTestId('summary-locked')).toBeInViewport();
  await teacher.getByTestId('class-lock').click();
  await expect(imranPhone.getByTestId('summary-locked')).toHaveCount(0);
  // A reload stays in chapter 08 at step 5, and is not pulled anywhere again.
  const shimul = labs[0];
  await shimul.page.reload();
  await shimul.lab.hydrated();
  await expect(shimul.page.getByTestId('chapter')).toHaveAttribute('data-chapter', '8');
  await expect(step(shimul.page, 5)).toHaveClass(/current/);

  // Shimul does the trap: Send, two days on, the wallet replayed from 5 days back.
  const { page, lab } = shimul;
  await lab.send.click();
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
  await lab.jump('day');
  await lab.jump('day');
  await page.getByTestId('replay-consumer').selectOption('wallet');
  await page.getByTestId('replay-days').fill('5');
  await page.getByTestId('replay-start').click();
  await lab.jump('minute');
  await expect(step(page, 5)).toHaveAttribute('data-done', 'true', { timeout: 20_000 });
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '1000');
  // The instructor's view: chapter 08, one step done (as the server saw it), credited twice.
  const r = row(teacher, 'Shimul');
  await expect(r).toHaveAttribute('data-chapter', '8');
  await expect(r).toHaveAttribute('data-steps-done', '1');
  await expect(r).toHaveAttribute('data-damage', 'money');
  // The totals, no names: three joined, one credited Tithi twice.
  const total = (kind: string) => teacher.locator(`[data-testid="class-total"][data-kind="${kind}"]`);
  await expect(total('joined')).toHaveAttribute('data-count', '3');
  await expect(total('credited_twice')).toHaveAttribute('data-count', '1');
  await expect(total('charged_twice')).toHaveAttribute('data-count', '0');
  // The projector's layout: the code and the totals, no names.
  await teacher.getByTestId('class-present').click();
  await expect(teacher.getByTestId('class-totals')).toBeVisible();
  await expect(teacher.getByTestId('class-code')).toBeVisible();
  await expect(teacher.getByTestId('class-student').first()).toBeHidden();
  await expect(teacher.getByText('Shimul', { exact: true })).toBeHidden();
  await teacher.getByTestId('class-present').click();
  await expect(teacher.getByTestId('class-student').first()).toBeVisible();
  // Imran opens the join link again on his phone: he continues as himself, in his own lab.
  const imran = labs[2];
  const imranId = imran.lab.sandboxId();
  await imran.page.goto(link);
  await imran.page.locator('html[data-hydrated]').waitFor();
  await expect(imran.page.getByTestId('join-continue')).toContainText('Imran');
  await imran.page.getByTestId('join-continue').click();
  await imran.page.waitForURL(new RegExp(`/lab/${imranId}`));
  await imran.lab.hydrated();
  await expect(imran.page.getByTestId('class-message')).toBeVisible();
  // The history: the message, the push, the lock and the unlock, newest first, with how many took each.
  const sent = teacher.getByTestId('class-sent');
  await expect(sent).toHaveCount(4);
  await expect(sent.first()).toHaveAttribute('data-took', '3');
  await teacher.reload();
  await teacher.locator('html[data-hydrated]').waitFor();
  await expect(teacher.getByTestId('class-sent')).toHaveCount(4);
  // The summary: chapter 08's step 5 done by one, as the server saw it.
  await teacher.getByTestId('class-summary-open').click();
  const trap = teacher.locator('[data-testid="class-summary-chapter"][data-chapter="8"] [data-testid="class-summary-step"][data-step="5"]');
  await expect(trap).toHaveAttribute('data-done', '1');

  // The lecture-hall PC takes the class by a one-time link, and sees the same view.
  await teacher.getByTestId('class-hand-over-name').fill('Hall PC');
  await teacher.getByTestId('class-hand-over').click();
  const handOver = (await teacher.getByTestId('class-hand-over-link').getAttribute('href'))!;
  expect(handOver).toMatch(/\/take\/[0-9a-f]{64}$/);
  await expect(teacher.locator('[data-testid="class-holder"][data-name="Hall PC"]')).toHaveAttribute('data-taken', 'false');
  const hall = await person(browser);
  await hall.goto(handOver);
  await hall.locator('html[data-hydrated]').waitFor();
  await expect(hall.getByTestId('take-what')).toContainText('Hall PC');
  await hall.getByTestId('take-class').click();
  await hall.waitForURL(/\/teach\/[0-9a-f-]{36}$/);
  await hall.locator('html[data-hydrated]').waitFor();
  await expect(hall.getByTestId('class-student')).toHaveCount(3);
  await expect(row(hall, 'Shimul')).toHaveAttribute('data-damage', 'money');
  await expect(hall.locator('[data-testid="class-total"][data-kind="credited_twice"]')).toHaveAttribute('data-count', '1');
  await expect(teacher.locator('[data-testid="class-holder"][data-name="Hall PC"]')).toHaveAttribute('data-taken', 'true');
  await hall.reload();
  await expect(hall.getByTestId('class-student')).toHaveCount(3);
  // The link is spent: another browser opening it is told so.
  const late = await person(browser);
  await late.goto(handOver);
  await late.locator('html[data-hydrated]').waitFor();
  await expect(late.getByTestId('take-spent')).toBeVisible();
  // The projector's own page needs no key: the code and the numbers, no names.
  const show = (await teacher.getByTestId('class-show-link').getAttribute('href'))!;
  const projector = await person(browser);
  await projector.goto(show);
  await projector.locator('html[data-hydrated]').waitFor();
  await expect(projector.getByTestId('class-show')).toHaveAttribute('data-live', 'true');
  await expect(projector.locator('[data-testid="class-total"][data-kind="joined"]')).toHaveAttribute('data-count', '3');
  await expect(projector.getByText('Shimul')).toHaveCount(0);
  // Withdrawn, the hall PC's key opens nothing more.
  await teacher.getByTestId('class-holder-withdraw').click();
  await expect(teacher.getByTestId('class-holder')).toHaveCount(0);
  await hall.reload();
  await expect(hall.getByTestId('class-refused')).toBeVisible();
  for (const l of labs) l.lab.expectNoErrors();
  expect(troubles).toEqual([]);
});

test('a class has a name, and /teach lists the classes this browser made', async ({ browser }) => {
  const teacher = await person(browser);
  await teacher.goto('/teach');
  await teacher.locator('html[data-hydrated]').waitFor();
  await expect(teacher.getByTestId('teach-class')).toHaveCount(0);
  await teacher.getByTestId('class-name').fill('CSE 311, সেকশন B');
  await teacher.getByTestId('class-create').click();
  await teacher.waitForURL(/\/teach\/[0-9a-f-]{36}$/);
  await teacher.locator('html[data-hydrated]').waitFor();
  await expect(teacher.getByTestId('class-title-name')).toHaveText('CSE 311, সেকশন B');
  const code = (await teacher.getByTestId('class-code').getAttribute('data-code'))!;
  // Back on /teach (a link in, then a reload): the class is listed with its name and code.
  await teacher.goto('/teach');
  await teacher.locator('html[data-hydrated]').waitFor();
  const listed = teacher.getByTestId('teach-class');
  await expect(listed).toHaveCount(1);
  await expect(listed).toHaveAttribute('data-code', code);
  await expect(listed).toContainText('CSE 311, সেকশন B');
  await teacher.reload();
  await expect(teacher.getByTestId('teach-class')).toHaveCount(1);
  await listed.locator('a').click();
  await teacher.waitForURL(/\/teach\/[0-9a-f-]{36}$/);
  await expect(teacher.getByTestId('class-code')).toHaveAttribute('data-code', code);
  // Another browser holds no key: it lists nothing.
  const other = await person(browser);
  await other.goto('/teach');
  await other.locator('html[data-hydrated]').waitFor();
  await expect(other.getByTestId('teach-class')).toHaveCount(0);
});
