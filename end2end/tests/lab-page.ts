import { expect, type Locator, type Page } from '@playwright/test';

/** The lab screen as a student sees it: the clock panel and the timeline. */
export class LabPage {
  readonly clock: Locator;
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
  }

  /** Opens /lab (which finds or makes this browser's sandbox) and waits for hydration. */
  async open(): Promise<string> {
    await this.page.goto('/lab');
    await this.page.waitForURL(/\/lab\/[0-9a-f-]{36}$/);
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
