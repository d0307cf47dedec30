import { test, expect } from './lab-page';
import type { Page } from '@playwright/test';

// The settled signal (docs/reference.md §9, "Readiness"), as a test written from outside
// uses it: every wait is on `lab[data-settled="true"]` (or a documented state), never a sleep
// or a look at the lab's internals. Scenario 1, the race attack and the replay trap, each
// run ten times in a row on a CPU slowed four times, as a student's phone would be.

const RUNS = Number(process.env.SETTLED_RUNS ?? 10);

/** Opens a fresh sandbox with a scenario's preset, in English, on a slowed CPU. */
async function open(page: Page, scenario: number, variant: string) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await page.goto(`/lab?fresh=1&scenario=${scenario}&variant=${variant}&lang=en`);
  await page.locator('html[data-hydrated]').waitFor();
  await settled(page);
}

/** Waits until nothing the lab started is still going. */
async function settled(page: Page) {
  await expect(page.getByTestId('lab')).toHaveAttribute('data-settled', 'true', { timeout: 30_000 });
}

const figure = (page: Page, id: string) => page.getByTestId('damage-meter').locator(`[data-figure="${id}"]`);

test('scenario 1 settles after each tap: the lost answer, then the second charge', async ({ page }) => {
  test.setTimeout(RUNS * 30_000);
  for (let run = 0; run < RUNS; run++) {
    await open(page, 1, 'unguarded');
    await page.getByTestId('send-button').click();
    await expect(page.getByTestId('phone-message')).toHaveAttribute('data-request-sent', 'true');
    await settled(page);
    await expect(page.getByTestId('phone-message')).toHaveAttribute('data-state', 'unknown');
    await expect(figure(page, 'debits')).toHaveAttribute('data-value', '1');
    await page.getByTestId('fault-response_loss_pct').fill('0');
    await settled(page);
    await page.getByTestId('send-button').click();
    await settled(page);
    await expect(page.getByTestId('phone-message')).toHaveAttribute('data-state', 'receipt');
    await expect(figure(page, 'double_charges')).toHaveAttribute('data-value', '1');
  }
});

test('the race attack settles with both answers and the double charge in', async ({ page }) => {
  test.setTimeout(RUNS * 30_000);
  for (let run = 0; run < RUNS; run++) {
    await open(page, 3, 'unguarded');
    await page.getByTestId('attack-race').click();
    await settled(page);
    await expect(page.getByTestId('attack-result').locator('li')).toHaveCount(2);
    await expect(figure(page, 'double_charges')).toHaveAttribute('data-value', '1');
  }
});

test('the replay trap settles after the send, each day, and the replay: Tithi credited twice', async ({ page }) => {
  test.setTimeout(RUNS * 45_000);
  for (let run = 0; run < RUNS; run++) {
    await open(page, 11, 'unguarded');
    await page.getByTestId('send-button').click();
    await settled(page);
    await expect(page.getByTestId('tithi-balance')).toHaveAttribute('data-value', '500');
    for (const _ of [1, 2]) {
      await page.getByTestId('jump-day').click();
      await settled(page);
    }
    await page.getByTestId('replay-consumer').selectOption('wallet');
    await page.getByTestId('replay-days').fill('5');
    await page.getByTestId('replay-start').click();
    await settled(page);
    await expect(page.getByTestId('tithi-balance')).toHaveAttribute('data-value', '1000');
    await expect(figure(page, 'double_credits')).toHaveAttribute('data-value', '1');
  }
});
