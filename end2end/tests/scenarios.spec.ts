import { test, expect, LabPage } from './lab-page';
import type { Page } from '@playwright/test';

// docs/reference.md §7, through the screen a student uses (scenario 1 has its own file; 3 and 4
// are the network panel's crafted attacks, in screen.spec.ts; 7 and 8 need the lessons).

async function openFast(page: Page): Promise<LabPage> {
  const lab = new LabPage(page);
  await lab.open();
  await lab.fast();
  return lab;
}

const caughtIn = (lab: LabPage, layer: string) =>
  lab.page.locator(`[data-testid="timeline-event"][data-layer="${layer}"][data-outcome="caught"]`);

test('scenario 2: the library auto-retry and the load balancer multiply requests; the table catches each', async ({ page }) => {
  const lab = await openFast(page);
  await lab.setFault('auto_retries', 2);
  await lab.setFault('retry_backoff_ms', 500);
  await lab.setFaultSwitch('lb_retry', true);
  await lab.setFault('gateway_latency_ms', 1500);
  await lab.setFault('response_loss_pct', 100);

  expect(await lab.tap()).toBe('unknown');
  await expect(lab.kind('request_sent')).toHaveCount(3);
  await expect(lab.kind('lb_retried').first()).toBeVisible();
  await expect(caughtIn(lab, 'api').first()).toBeVisible();
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');

  await lab.setFault('response_loss_pct', 0);
  expect(await lab.tap()).toBe('receipt');
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  await expect(lab.figure('double_charges')).toHaveAttribute('data-value', '0');
});

test('scenario 5: a crash after the claim is 409 until recovery, then the right answer', async ({ page }) => {
  const lab = await openFast(page);
  await lab.setCrash('api_after_claim', 'once');
  expect(await lab.tap()).toBe('unknown');
  await expect(lab.kind('instance_crashed')).toHaveCount(1);
  await expect(page.locator('[data-table="payments.idempotency_keys"] .status-in_progress')).toHaveCount(1);
  expect(await lab.tap()).toBe('in-progress');
  await expect(lab.kind('key_in_progress')).toHaveAttribute('data-outcome', 'caught');

  await lab.jump('minute');
  await expect(lab.kind('stuck_key_released')).toHaveCount(1);
  expect(await lab.tap()).toBe('receipt');
  await expect(lab.phoneMessage).toContainText('TXN-88412');
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
});

test('scenario 6: a retry after 49 h runs as new against a 48 h window; the ledger stops it', async ({ page }) => {
  const lab = await openFast(page);
  await lab.setFault('response_loss_pct', 100);
  expect(await lab.tap()).toBe('unknown');
  await lab.setFault('response_loss_pct', 0);
  await lab.jump('day');
  await lab.jump('day');
  await lab.jump('hour');
  await expect(lab.kind('partitions_dropped').first()).toBeVisible();
  expect(await lab.tap()).toBe('receipt');
  await expect(lab.kind('ledger_duplicate')).toHaveAttribute('data-outcome', 'caught');
  await expect(lab.figure('debits')).toHaveAttribute('data-value', '1');
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '1500');
});

test('scenario 9: a lost ack is deduplicated; a fraud-check crash is contained, its audit row is not', async ({ page }) => {
  const lab = await openFast(page);
  await lab.setCrash('broker_ack_lost', 'once');
  expect(await lab.tap()).toBe('receipt');
  await expect(lab.kind('resend_dropped')).toHaveAttribute('data-outcome', 'caught');
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');

  await lab.setCrash('fraud_before_commit', 'once');
  expect(await lab.tap()).toBe('receipt');
  await expect(lab.kind('transaction_aborted')).toHaveAttribute('data-outcome', 'caught');
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '1000');
  // Two transfers, three audit rows: the outside side effect repeated.
  await page.locator('[data-table="fraud.audit"] > summary').click();
  await expect(page.locator('[data-table="fraud.audit"] tbody tr')).toHaveCount(3);
  await expect(lab.figure('double_credits')).toHaveAttribute('data-value', '0');
});

test('scenario 10: a relay crash publishes twice and both inboxes catch it', async ({ page }) => {
  const lab = await openFast(page);
  await lab.setCrash('relay_after_publish', 'once');
  expect(await lab.tap()).toBe('receipt');
  await expect(lab.kind('relay_crashed')).toHaveCount(1);
  await expect(caughtIn(lab, 'wallet').first()).toBeVisible();
  await expect(caughtIn(lab, 'sms').first()).toBeVisible();
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
  await expect(lab.smsList.locator('li')).toHaveCount(1);
  // The money is right, but the fraud check (no inbox) approved the copy again: the meter says
  // an effect happened twice, not "exactly once".
  for (const figure of ['double_credits', 'duplicate_sms', 'money_created']) {
    await expect(lab.figure(figure)).toHaveAttribute('data-value', '0');
  }
  await expect(lab.figure('duplicate_approvals')).toHaveAttribute('data-value', '1');
  await expect(lab.damage).toHaveAttribute('data-verdict', 'effect_twice');
});

for (const [hours, credited, doubles] of [[24, '2000', '2'], [168, '1000', '0']] as const) {
  test(`scenario 11: a replay from 5 days back with a ${hours} h inbox window`, async ({ page }) => {
    const lab = await openFast(page);
    await lab.setHours('inbox_window_hours', hours);
    expect(await lab.tap()).toBe('receipt');
    await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
    await lab.jump('day');
    await lab.jump('day');
    expect(await lab.tap()).toBe('receipt');
    await expect(lab.tithiBalance).toHaveAttribute('data-value', '1000');
    await lab.jump('day');
    await lab.jump('day');
    await page.getByTestId('replay-consumer').selectOption('wallet');
    await page.getByTestId('replay-days').fill('5');
    await page.getByTestId('replay-start').click();
    await expect(lab.kind('replay_started')).toHaveCount(1);
    await lab.jump('minute');
    await expect(lab.tithiBalance).toHaveAttribute('data-value', credited);
    await expect(lab.figure('double_credits')).toHaveAttribute('data-value', doubles);
  });
}

test('scenario 12: every guard on, a storm of every fault, the money exactly once', async ({ page }) => {
  test.setTimeout(90_000);
  const lab = await openFast(page);
  await lab.setFault('request_loss_pct', 30);
  await lab.setFault('response_loss_pct', 30);
  await lab.setFault('auto_retries', 2);
  await lab.setFaultSwitch('lb_retry', true);
  for (const point of ['api_after_claim', 'api_after_commit', 'relay_after_publish', 'broker_ack_lost',
    'fraud_before_commit', 'consumer_before_offset_commit']) {
    await lab.setCrash(point, 'once');
  }
  // Shimul keeps tapping (the app keeps its key) until he sees a receipt.
  let outcome = await lab.tap();
  for (let i = 0; outcome !== 'receipt' && i < 12; i++) {
    if (outcome === 'in-progress') await lab.jump('minute');
    outcome = await lab.tap();
  }
  expect(outcome).toBe('receipt');
  await lab.setFault('request_loss_pct', 0);
  await lab.setFault('response_loss_pct', 0);
  await lab.jump('hour');
  await expect(lab.tithiBalance).toHaveAttribute('data-value', '500');
  await expect(lab.shimulBalance).toHaveAttribute('data-value', '1500');
  await expect(lab.smsList.locator('li')).toHaveCount(1);
  for (const figure of ['double_charges', 'double_credits', 'duplicate_sms', 'lost_events', 'money_created',
    'support_tickets', 'wrong_replays', 'stuck_keys']) {
    await expect(lab.figure(figure)).toHaveAttribute('data-value', '0');
  }
  // The fraud check's crash before its commit approves the batch again after its restart: its
  // audit row sits outside the broker's transaction, so no guard stops that second approval.
  await expect(lab.figure('duplicate_approvals')).not.toHaveAttribute('data-value', '0');
  await expect(lab.damage).toHaveAttribute('data-verdict', 'effect_twice');
});
