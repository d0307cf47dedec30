import { defineConfig } from '@playwright/test';
import base from './playwright.config';

// Benchmarks, not tests: they measure and print, and assert nothing about speed.
// Run after a release build: `npm run bench` (in end2end/).
export default defineConfig({
  ...base,
  testDir: './bench',
  testMatch: /.*\.bench\.ts/,
  timeout: 600_000,
});
