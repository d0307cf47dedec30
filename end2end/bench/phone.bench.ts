import { test } from '@playwright/test';

// A student's first visit on a phone: Chromium's own emulation of a slow network (1.6 Mbps
// down, 750 kbps up, 150 ms round trip) and a slow CPU (×4), a cold cache, the lab of a new
// sandbox. Measures the time from the start of navigation to the Send button working (Shimul's
// phone hydrated: `html[data-send-ready]`), to the whole lab working (its later panels drawn
// too: `html[data-hydrated]`), and the bytes that crossed the wire, then the same at 9 Mbps.
// Prints, asserts nothing about speed.
// PHONE_RAW=1 asks for every file as it is on disk (`Accept-Encoding: identity`): what the
// server sent every browser before it compressed anything.

const profiles = [
  { name: 'phone, 1.6 Mbps, 150 ms, CPU ×4', down: 1.6e6, up: 750e3, rtt: 150, cpu: 4 },
  { name: 'phone, 9 Mbps, 150 ms, CPU ×4', down: 9e6, up: 9e6, rtt: 150, cpu: 4 },
];

for (const p of profiles) {
  test(`first visit: ${p.name}`, async ({ browser }) => {
    const runs: { ms: number; all: number; first: number; bytes: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const context = await browser.newContext(
        process.env.PHONE_RAW ? { extraHTTPHeaders: { 'Accept-Encoding': 'identity' } } : {},
      );
      const page = await context.newPage();
      const created = await page.request.post('/api/sandboxes', { data: {} });
      const id: string = (await created.json()).id;
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: p.rtt,
        downloadThroughput: p.down / 8,
        uploadThroughput: p.up / 8,
      });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: p.cpu });
      let bytes = 0;
      cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => {
        bytes += e.encodedDataLength;
      });
      const start = Date.now();
      await page.goto(`/lab/${id}`, { waitUntil: 'commit' });
      await page.waitForSelector('html[data-send-ready]', { timeout: 120_000 });
      const ms = Date.now() - start;
      const first = bytes;
      await page.waitForSelector('html[data-hydrated]', { timeout: 120_000 });
      runs.push({ ms, all: Date.now() - start, first, bytes });
      await context.close();
    }
    const secs = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return `${sorted.map((m) => (m / 1000).toFixed(1)).join(' / ')} s (median ${(sorted[1] / 1000).toFixed(1)} s)`;
    };
    const last = runs[runs.length - 1];
    const kb = (b: number) => Math.round(b / 1024);
    console.log(
      `${p.name} (3 cold visits): Send works after ${secs(runs.map((r) => r.ms))} ` +
        `(${kb(last.first)} KB on the wire), the whole lab after ${secs(runs.map((r) => r.all))} ` +
        `(${kb(last.bytes)} KB)`,
    );
  });
}
