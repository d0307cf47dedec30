import { defineConfig } from '@playwright/test';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';

// Playwright starts the release server itself (built by `cargo leptos build --release
// --precompress --split`) on its own port with a throw-away data folder, and waits until it
// answers before any test runs.
const port = Number(process.env.LAB_E2E_PORT ?? 3457);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pocketpay-e2e-'));

export default defineConfig({
  testDir: './tests',
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: 'retain-on-failure',
    launchOptions: {
      // Playwright cannot download its own browser here: use Debian's.
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: './target/release/pocketpay-lab',
    cwd: '..',
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      LEPTOS_SITE_ADDR: `127.0.0.1:${port}`,
      // LAB_E2E_SITE_ROOT: another copy of the site (the phone benchmark's files sent raw).
      LEPTOS_SITE_ROOT: process.env.LAB_E2E_SITE_ROOT ?? 'target/site',
      LAB_DATA_DIR: dataDir,
      // The release server checks its invariants after every step here too: a breach stops it.
      LAB_CHECK_INVARIANTS: '1',
      RUST_LOG: 'warn',
    },
  },
});
