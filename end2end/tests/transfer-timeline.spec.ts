import { test, expect, LabPage } from './lab-page';

test('a lost response and its retry appear on the timeline, lane by lane', async ({ page }) => {
  const lab = new LabPage(page);
  const id = await lab.open();
  const api = `/api/sandboxes/${id}`;
  // Ten times faster, so the phone's 5 s timeout passes in half a second.
  expect((await page.request.post(`${api}/clock`, { data: { speed: 10 } })).ok()).toBeTruthy();
  expect((await page.request.put(`${api}/faults`, { data: { response_loss_pct: 100 } })).ok()).toBeTruthy();
  const send = () =>
    page.request.post(`${api}/transfers`, {
      headers: {
        Authorization: 'Bearer shimul',
        'Idempotency-Key': '7c0e2b1a-5f0e-4d6b-9a51-1c2d3e4f5a6b',
        'Lab-Intent': '0b9c6a52-7f3e-4c1d-9e8a-5d2f1b7c3a60',
      },
      data: { to: 'tithi', amount: 500 },
    });

  const lost = await send();
  expect(lost.status()).toBe(504);
  await expect(page.locator('[data-kind="response_lost"][data-layer="network"][data-outcome="lost"]')).toHaveCount(1);
  await expect(page.locator('[data-kind="caller_timed_out"][data-layer="app"][data-outcome="unknown"]')).toHaveCount(1);

  expect((await page.request.put(`${api}/faults`, { data: { response_loss_pct: 0 } })).ok()).toBeTruthy();
  const retry = await send();
  expect(retry.status()).toBe(201);
  expect(retry.headers()['idempotent-replayed']).toBe('true');
  expect((await retry.json()).txn).toBe('TXN-88412');

  await expect(page.locator('[data-kind="response_replayed"][data-layer="api"][data-outcome="caught"]')).toHaveCount(1);
  await expect(page.locator('[data-kind="debited"][data-layer="ledger"]')).toHaveCount(1);
  await expect(page.locator('[data-kind="debited"]')).toHaveAttribute('data-outcome', 'ok');
});
