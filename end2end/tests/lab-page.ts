import { test as base, expect, type Locator, type Page, type TestInfo } from '@playwright/test';

/** Every spec's `test`: a sandbox's seed is noted on the test as it is made, and a failing test
 * prints every seed it used, so the run can be replayed (`/lab?seed=N`). */
export const test = base.extend<{ seeds: void; noPanics: void }>({
  // Every page the test opens in its context, whatever it checks: an uncaught script error or a
  // Rust panic in the console (a hydration that found other markup than the server drew, say)
  // fails the test.
  noPanics: [
    async ({ context }, use) => {
      const seen: string[] = [];
      const watch = (p: Page) => {
        p.on('pageerror', (e) => seen.push(`${p.url()}: ${e}`));
        p.on('console', (m) => {
          if (/panicked at|RuntimeError|unreachable/.test(m.text())) seen.push(`${p.url()}: ${m.text()}`);
        });
      };
      context.pages().forEach(watch);
      context.on('page', watch);
      await use();
      expect(seen, 'page errors or panics on the pages this test opened').toEqual([]);
    },
    { auto: true },
  ],
  seeds: [
    async ({}, use, info) => {
      await use();
      if (info.status !== info.expectedStatus) {
        const seeds = info.annotations.filter((a) => a.type === 'seed').map((a) => a.description);
        if (seeds.length) console.log(`${info.title}: failed with seed ${seeds.join(', ')}`);
      }
    },
    { auto: true },
  ],
});
export { expect };

/** A fixed seed for the `n`th sandbox a test makes, from the test's own name: the same test
 * always gets the same sandbox. */
export function seedFor(info: TestInfo, n = 0): number {
  let h = 2166136261;
  for (const c of `${info.titlePath.join(' › ')} #${n}`) {
    h ^= c.charCodeAt(0);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h;
}

/** Notes a sandbox's seed on the running test (printed if it fails). */
export function noteSeed(seed: number) {
  base.info().annotations.push({ type: 'seed', description: String(seed) });
}

/** The lab screen as a student sees it: the phones, the network panel, the clock, the timeline,
 * the damage meter, the inspector and the instructor's panel. */
export class LabPage {
  readonly clock: Locator;
  readonly send: Locator;
  readonly amount: Locator;
  readonly key: Locator;
  readonly shimulBalance: Locator;
  readonly tithiBalance: Locator;
  readonly phoneMessage: Locator;
  readonly smsList: Locator;
  readonly damage: Locator;
  readonly reset: Locator;
  readonly langSwitch: Locator;
  readonly reopenApp: Locator;
  /** Page errors and console errors (an HTTP error status the app handles is not one). */
  readonly errors: string[] = [];
  readonly pause: Locator;
  readonly step: Locator;
  readonly speed: Locator;
  readonly timeline: Locator;
  readonly events: Locator;

  constructor(readonly page: Page) {
    this.clock = page.getByTestId('clock');
    this.pause = page.getByTestId('pause');
    this.step = page.getByTestId('step');
    this.speed = page.getByTestId('speed');
    this.timeline = page.getByTestId('timeline');
    this.events = page.getByTestId('timeline-event');
    this.send = page.getByTestId('send-button');
    this.amount = page.getByTestId('amount');
    this.key = page.getByTestId('idempotency-key');
    this.shimulBalance = page.getByTestId('shimul-balance');
    this.tithiBalance = page.getByTestId('tithi-balance');
    this.phoneMessage = page.getByTestId('phone-message');
    this.smsList = page.getByTestId('sms-list');
    this.damage = page.getByTestId('damage-meter');
    this.reset = page.getByTestId('reset');
    this.langSwitch = page.getByTestId('lang-switch');
    this.reopenApp = page.getByTestId('reopen-app');
    page.on('pageerror', (e) => this.errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) this.errors.push(m.text());
    });
  }

  /** No script error and no refused content (a CSP violation is a console error). */
  expectNoErrors() {
    expect(this.errors).toEqual([]);
  }

  safeguard(id: string): Locator {
    return this.page.getByTestId(`safeguard-${id}`);
  }

  fault(id: string): Locator {
    return this.page.getByTestId(`fault-${id}`);
  }

  /** One figure of the damage meter, e.g. `double_charges`. */
  figure(id: string): Locator {
    return this.damage.locator(`[data-figure="${id}"]`);
  }

  /** Events of one kind on the timeline. */
  kind(kind: string): Locator {
    return this.page.locator(`[data-testid="timeline-event"][data-kind="${kind}"]`);
  }

  /** Switches a safeguard through its control and waits until the server has it. */
  /** Resets the lab as a student does: the button, then "yes" to its question. */
  async resetLab() {
    await this.reset.click();
    await this.page.getByTestId('reset-confirm').click();
  }

  async setSafeguard(id: string, on: boolean) {
    const before = await this.kind('safeguards_changed').count();
    await this.safeguard(id).setChecked(on);
    await expect(this.kind('safeguards_changed')).toHaveCount(before + 1);
    await expect(this.safeguard(id)).toBeChecked({ checked: on });
  }

  /** Moves a fault's slider and waits until the server has the new value. */
  async setFault(id: string, value: number) {
    const before = await this.kind('faults_changed').count();
    await this.fault(id).fill(String(value));
    await expect(this.kind('faults_changed')).toHaveCount(before + 1);
  }

  /** Switches a fault (`lb_retry`) and waits until the server has it. */
  async setFaultSwitch(id: string, on: boolean) {
    const before = await this.kind('faults_changed').count();
    await this.fault(id).setChecked(on);
    await expect(this.kind('faults_changed')).toHaveCount(before + 1);
  }

  /** Runs the clock ten times faster, so the phone's 5 s timeout passes in half a second. */
  async fast() {
    await this.speed.selectOption('10');
    await expect(this.page.locator('.clock-mode')).toContainText(/10|১০/);
  }

  /** Sets a crash point (`off`, `once`, `always`, `0.5`) and waits until the server has it. */
  async setCrash(point: string, mode: string) {
    const before = await this.kind('faults_changed').count();
    await this.page.getByTestId(`crash-${point}`).selectOption(mode);
    await expect(this.kind('faults_changed')).toHaveCount(before + 1);
  }

  /** Types a window (hours) into a safeguard's field and waits until the server has it. */
  async setHours(id: string, hours: number) {
    if ((await this.safeguard(id).inputValue()) === String(hours)) return;
    const before = await this.kind('safeguards_changed').count();
    await this.safeguard(id).fill(String(hours));
    await this.safeguard(id).press('Enter');
    await this.safeguard(id).blur();
    await expect(this.kind('safeguards_changed')).toHaveCount(before + 1);
  }

  /** Taps Send and waits until the app has an outcome or has given up (not sending any more). */
  async tap(): Promise<string> {
    await expect(this.send).toBeEnabled();
    const taps = Number(await this.phoneMessage.getAttribute('data-taps'));
    await this.send.click();
    await expect(this.phoneMessage).toHaveAttribute('data-taps', String(taps + 1));
    await expect(this.phoneMessage).not.toHaveAttribute('data-state', /^(ready|sending|backoff|unfinished)$/);
    return (await this.phoneMessage.getAttribute('data-state'))!;
  }

  /** Waits for the phone's message to reach a state (`receipt`, `unknown`, …). */
  async phoneSays(state: string) {
    await expect(this.phoneMessage).toHaveAttribute('data-state', state);
  }

  /** Makes a sandbox with a fixed seed through the API, opens its lab and waits for hydration;
   * returns the sandbox's API path. */
  async openSeeded(seed: number): Promise<string> {
    noteSeed(seed);
    const created = await this.page.request.post('/api/sandboxes', { data: { seed } });
    expect(created.status(), `seed ${seed}`).toBe(201);
    const id: string = (await created.json()).id;
    await this.page.goto(`/lab/${id}`);
    await this.hydrated();
    return `/api/sandboxes/${id}`;
  }

  /** Sets faults through the API (the body of `PUT …/faults`). */
  async putFaults(api: string, faults: Record<string, number | boolean>) {
    const res = await this.page.request.put(`${api}/faults`, { data: faults });
    expect(res.ok(), `PUT faults ${JSON.stringify(faults)}`).toBeTruthy();
  }

  /** Sets the clock's speed through the API. */
  async speedUp(api: string, speed: number) {
    const res = await this.page.request.post(`${api}/clock`, { data: { speed } });
    expect(res.ok(), `clock speed ${speed}`).toBeTruthy();
  }

  /** Opens a new sandbox through the entrance with this test's fixed seed (`/lab?seed=N`),
   * and waits for hydration. */
  async open(chapter?: number): Promise<string> {
    const info = base.info();
    const made = info.annotations.filter((a) => a.type === 'seed').length;
    const seed = seedFor(info, made);
    noteSeed(seed);
    await this.page.goto(`/lab?seed=${seed}${chapter ? `&chapter=${chapter}` : ''}`);
    await this.page.waitForURL(/\/lab\/[0-9a-f-]{36}(\?chapter=\d+)?$/);
    await this.hydrated();
    return this.sandboxId();
  }

  async hydrated() {
    await this.page.locator('html[data-hydrated]').waitFor();
  }

  sandboxId(): string {
    return new URL(this.page.url()).pathname.split('/').pop()!;
  }

  /** The virtual time the server last reported, in ms. */
  async nowMs(): Promise<number> {
    return Number(await this.clock.getAttribute('data-now-ms'));
  }

  async mode(): Promise<string | null> {
    return this.clock.getAttribute('data-mode');
  }

  async jump(what: 'minute' | 'hour' | 'day') {
    await this.page.getByTestId(`jump-${what}`).click();
  }
}
