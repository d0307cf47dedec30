import { test, expect, type Page } from '@playwright/test';

// From a server event to its mark on the screen, with 5,000 events already on the timeline.
// The stream stamps each event with the wall time it was written (`sent_ms`); the page notes
// when each mark first appears in the DOM. Same machine, same clock.

async function transfers(page: Page, api: string, from: number, n: number) {
  const calls = [];
  for (let i = from; i < from + n; i++) {
    calls.push(page.request.post(`${api}/transfers`, {
      headers: { Authorization: 'Bearer shimul', 'Idempotency-Key': `bench-${i}` },
      data: { to: 'tithi', amount: 1 },
      timeout: 120_000,
    }));
  }
  return calls;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

test('event-to-mark latency with 5,000 events on the timeline', async ({ page }) => {
  await page.goto('/lab');
  await page.waitForURL(/\/lab\/[0-9a-f-]{36}$/);
  await page.locator('html[data-hydrated]').waitFor();
  const id = page.url().split('/').pop();
  const api = `/api/sandboxes/${id}`;
  const rows = page.getByTestId('timeline');

  // 1. Fill the timeline: transfers queued on a paused clock, then one jump runs them all.
  await page.request.post(`${api}/clock`, { data: { mode: 'paused' } });
  let sent = 0;
  const fillStart = Date.now();
  while (Number(await rows.getAttribute('data-count')) < 5_000) {
    const calls = await transfers(page, api, sent, 140);
    sent += 140;
    await page.waitForTimeout(1_500);
    await page.request.post(`${api}/clock`, { data: { advance_seconds: 60 } });
    await Promise.all(calls);
    await page.waitForTimeout(2_000);
  }
  // Let the page take in the whole burst before measuring.
  let filled = -1;
  while (filled !== Number(await rows.getAttribute('data-count'))) {
    filled = Number(await rows.getAttribute('data-count'));
    await page.waitForTimeout(1_000);
  }
  const fillMs = Date.now() - fillStart;

  // 2. Watch marks appear, then send transfers live, one after another.
  await page.evaluate(() => {
    const w = window as unknown as { seen: Map<string, number> };
    w.seen = new Map();
    const since = Date.now();
    new MutationObserver((records) => {
      const now = Date.now();
      for (const r of records) {
        r.addedNodes.forEach((n) => {
          if (!(n instanceof HTMLElement)) return;
          const mark = n.querySelector<HTMLElement>('[data-testid="timeline-event"]');
          const sentMs = Number(mark?.dataset.sentMs);
          const eventId = mark?.dataset.eventId;
          // Only events written after measuring began: the live ones.
          if (eventId && sentMs >= since && !w.seen.has(eventId)) w.seen.set(eventId, now - sentMs);
        });
      }
    }).observe(document.querySelector('[data-testid="timeline"]')!, { childList: true });
  });
  await page.request.post(`${api}/clock`, { data: { mode: 'live', speed: 10 } });
  const first = Number(await rows.getAttribute('data-count'));
  for (let i = 0; i < 60; i++) {
    await Promise.all(await transfers(page, api, 100_000 + i, 1));
  }
  await page.waitForTimeout(2_000);
  const latencies: number[] = await page.evaluate(() =>
    [...(window as unknown as { seen: Map<string, number> }).seen.values()]);
  latencies.sort((a, b) => a - b);
  const last = Number(await rows.getAttribute('data-count'));
  const report = {
    events_on_timeline_before: filled,
    fill_ms: fillMs,
    live_events_measured: latencies.length,
    live_events_total: last - first,
    p50_ms: pct(latencies, 50),
    p95_ms: pct(latencies, 95),
    max_ms: latencies[latencies.length - 1],
    marks_in_dom: await page.getByTestId('timeline-event').count(),
  };
  console.log('event-to-DOM latency:', JSON.stringify(report));
  expect(latencies.length).toBeGreaterThan(0);
});
