// Debian's Chromium, headless, through playwright-core (which downloads no browser of its own), with a
// fresh profile each time; script errors and console errors of its pages are collected.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const EXECUTABLE = process.env.CHROMIUM ?? '/usr/bin/chromium';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A browser with one page; `close()` ends it and deletes its profile. `errors` lists what went wrong in pages. */
export async function launch() {
  // Playwright takes the profile (--user-data-dir) as the persistent context's directory.
  const profile = mkdtempSync(join(tmpdir(), 'pekquitto-chromium-'));
  const close = async (context) => {
    try {
      await context?.close();
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  };
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: EXECUTABLE, headless: true, args: ARGS, timeout: 30_000,
      viewport: { width: 1100, height: 900 },
    });
  } catch (error) {
    await close(context);
    throw error;
  }
  const page = context.pages()[0] ?? await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(`script error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return { page, errors, close: () => close(context) };
}
