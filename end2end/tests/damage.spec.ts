import type { Page } from '@playwright/test';
import { test, expect, LabPage, noteSeed } from './lab-page';

// The damage meter is calm while money is on its way (a debit whose event still waits in the
// outbox or the log), and says "damage" only once nothing can bring the money any more. Its
// headline (`data-verdict`) names the worst thing that happened: money wrong, an effect twice
// (a receipt replayed for another body), a stuck key, money in flight, nothing yet, or exactly
// once; and the timeline never marks that harm as caught.

const SEED = 31_337;

test.afterEach(async ({}, info) => {
  if (info.status !== info.expectedStatus) console.log(`failed with seed ${SEED}`);
});

test('money in flight is not damage; an event lost for good is', async ({ page }) => {
  noteSeed(SEED);
  const created = await page.request.post('/api/sandboxes', { data: { seed: SEED, paused: true } });
  expect(created.status(), `seed ${SEED}`).toBe(201);
  const id: string = (await created.json()).id;
  const api = `/api/sandboxes/${id}`;
  const state = async () => (await page.request.get(`${api}/state`)).json();
  const lab = new LabPage(page);
  await page.goto(`/lab/${id}`);
  await lab.hydrated();
  await expect(lab.damage).toHaveAttribute('data-verdict', 'nothing_moved');

  // A transfer on the paused clock, stepped until Shimul is debited and no further: its event
  // waits in the outbox for the relay. A scripted run on a paused clock asks to be waited for.
  const send = (key: string) =>
    page.request.post(`${api}/transfers`, {
      headers: { Authorization: 'Bearer shimul', 'Idempotency-Key': key, Prefer: 'wait=300' },
      data: { to: 'tithi', amount: 500 },
    });
  const first = send('in-flight-1');
  for (let i = 0; i < 50 && (await state()).damage.debits < 1; i++) {
    expect((await page.request.post(`${api}/clock`, { data: { step: true } })).ok()).toBeTruthy();
  }
  const during = (await state()).damage;
  expect(during, `seed ${SEED}`).toMatchObject({ debits: 1, credits: 0, in_flight: 1, money_in_flight: 500 });
  expect(during.money_created).toBe(-500);
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  await expect(lab.damage).toHaveAttribute('data-in-flight', 'true');
  await expect(lab.damage).toHaveAttribute('data-harmed', 'false');
  await expect(lab.damage).toHaveAttribute('data-verdict', 'in_flight');
  await expect(lab.figure('money_created')).not.toHaveClass(/bad/);
  await expect(lab.figure('in_flight')).toHaveAttribute('data-value', '1');

  // The pipeline drains: Tithi is paid, nothing is in flight, still no damage.
  expect((await page.request.post(`${api}/clock`, { data: { advance_seconds: 60 } })).ok()).toBeTruthy();
  expect((await first).status()).toBe(201);
  await expect(lab.figure('credits')).toHaveAttribute('data-value', '1');
  await expect(lab.damage).toHaveAttribute('data-in-flight', 'false');
  await expect(lab.damage).toHaveAttribute('data-harmed', 'false');
  await expect(lab.damage).toHaveAttribute('data-verdict', 'exactly_once');

  // Without the outbox, a crash right after the debit's commit loses the event for good.
  expect((await page.request.put(`${api}/safeguards`, { data: { outbox: false } })).ok()).toBeTruthy();
  expect(
    (await page.request.put(`${api}/faults`, { data: { crash: { api_after_commit: 'once' } } })).ok(),
  ).toBeTruthy();
  const second = send('lost-1');
  for (let i = 0; i < 50 && (await state()).damage.debits < 2; i++) {
    expect((await page.request.post(`${api}/clock`, { data: { step: true } })).ok()).toBeTruthy();
  }
  expect((await page.request.post(`${api}/clock`, { data: { advance_seconds: 60 } })).ok()).toBeTruthy();
  expect((await second).status()).toBe(504);
  expect((await state()).damage, `seed ${SEED}`).toMatchObject({ debits: 2, credits: 1, lost_events: 1, in_flight: 0 });
  await expect(lab.figure('lost_events')).toHaveAttribute('data-value', '1');
  await expect(lab.damage).toHaveAttribute('data-harmed', 'true');
  await expect(lab.figure('money_created')).toHaveClass(/bad/);
  await expect(lab.damage).toHaveAttribute('data-verdict', 'money_wrong');
  lab.expectNoErrors();
});

/** Sends ৳`amount` to Tithi as Shimul with this key, on a live clock, and returns the answer. */
async function pay(page: Page, api: string, key: string, amount: number) {
  return page.request.post(`${api}/transfers`, {
    headers: { Authorization: 'Bearer shimul', 'Idempotency-Key': key },
    data: { to: 'tithi', amount },
  });
}

test('a receipt replayed for another body is an effect twice, escaped on the timeline', async ({ page }) => {
  const lab = new LabPage(page);
  const api = await lab.openSeeded(SEED + 1);
  expect((await page.request.put(`${api}/safeguards`, { data: { fingerprint_check: false } })).ok()).toBeTruthy();
  const first = await pay(page, api, 'reused-key', 500);
  expect(first.status(), `seed ${SEED + 1}`).toBe(201);
  // The same key with another body: the ৳5,000 request gets the ৳500 receipt.
  const wrong = await pay(page, api, 'reused-key', 5000);
  expect(wrong.status()).toBe(201);
  expect(wrong.headers()['idempotent-replayed']).toBe('true');
  expect(await wrong.json()).toEqual(await first.json());

  await expect(lab.kind('response_replayed')).toHaveCount(1);
  await expect(lab.kind('response_replayed')).toHaveAttribute('data-outcome', 'escaped');
  await expect(page.locator('[data-testid="timeline-event"][data-kind="response_replayed"][data-outcome="caught"]')).toHaveCount(0);
  await expect(lab.figure('wrong_replays')).toHaveAttribute('data-value', '1');
  await expect(lab.figure('wrong_replays')).toHaveClass(/bad/);
  await expect(lab.damage).toHaveAttribute('data-verdict', 'effect_twice');
  await expect(lab.damage).toHaveAttribute('data-harmed', 'true');
  // The money itself is right: one debit of ৳500, no double charge.
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  await expect(lab.figure('double_charges')).toHaveAttribute('data-value', '0');
  lab.expectNoErrors();
});

test('a claim whose instance died, with recovery off, is a stuck key', async ({ page }) => {
  const lab = new LabPage(page);
  const api = await lab.openSeeded(SEED + 2);
  expect((await page.request.put(`${api}/safeguards`, { data: { stuck_recovery: false } })).ok()).toBeTruthy();
  expect(
    (await page.request.put(`${api}/faults`, { data: { crash: { api_after_claim: 'once' } } })).ok(),
  ).toBeTruthy();
  // The instance dies after its claim: the phone waits out its timeout.
  expect((await pay(page, api, 'stuck-key', 500)).status(), `seed ${SEED + 2}`).toBe(504);
  await expect(lab.figure('stuck_keys')).toHaveAttribute('data-value', '1');
  await expect(lab.figure('stuck_keys')).toHaveClass(/bad/);
  await expect(lab.damage).toHaveAttribute('data-verdict', 'stuck');
  await expect(lab.damage).toHaveAttribute('data-harmed', 'true');
  // Every retry of the key now gets 409, and nothing moved.
  expect((await pay(page, api, 'stuck-key', 500)).status()).toBe(409);
  // That 409 is no catch: nothing will ever finish the key, and the timeline says so.
  await expect(lab.kind('key_in_progress')).toHaveAttribute('data-outcome', 'lost');
  await expect(lab.kind('key_in_progress')).toHaveAttribute('title', /IN_PROGRESS/);
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '0');
  await expect(lab.damage).toHaveAttribute('data-verdict', 'stuck');
  lab.expectNoErrors();
});
