import { test, expect, LabPage, noteSeed } from './lab-page';

// The damage meter is calm while money is on its way (a debit whose event still waits in the
// outbox or the log), and says "damage" only once nothing can bring the money any more.

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

  // A transfer on the paused clock, stepped until Shimul is debited and no further: its event
  // waits in the outbox for the relay.
  const send = (key: string) =>
    page.request.post(`${api}/transfers`, {
      headers: { Authorization: 'Bearer shimul', 'Idempotency-Key': key },
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
  await expect(lab.figure('money_created')).not.toHaveClass(/bad/);
  await expect(lab.figure('in_flight')).toHaveAttribute('data-value', '1');

  // The pipeline drains: Tithi is paid, nothing is in flight, still no damage.
  expect((await page.request.post(`${api}/clock`, { data: { advance_seconds: 60 } })).ok()).toBeTruthy();
  expect((await first).status()).toBe(201);
  await expect(lab.figure('credits')).toHaveAttribute('data-value', '1');
  await expect(lab.damage).toHaveAttribute('data-in-flight', 'false');
  await expect(lab.damage).toHaveAttribute('data-harmed', 'false');

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
  lab.expectNoErrors();
});
