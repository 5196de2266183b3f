/**
 * Debian's Chromium driven by playwright-core, for the console's browser tests. Headless, as root
 * without the sandbox, background networking off (this machine's network is closed), a fresh
 * profile directory per launch. Without a browser the suite skips with one line; with
 * ARBOR_REQUIRE_ALL=1 (CI) that skip is a failure instead.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = process.env.ARBOR_CHROMIUM ?? '/usr/bin/chromium';

export const chromiumPresent = (): boolean => fs.existsSync(CHROMIUM);

/** `describe` when Chromium is there; otherwise one clear skip line (or a failure in CI). */
export const describeWithBrowser = (name: string, body: () => void): void => {
  if (chromiumPresent()) {
    describe(name, body);
    return;
  }
  const why = `${name}: skipped, no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
  if (process.env.ARBOR_REQUIRE_ALL === '1') {
    describe(name, () => {
      it('needs Chromium (ARBOR_REQUIRE_ALL=1)', () => {
        throw new Error(why);
      });
    });
    return;
  }
  console.log(why);
  describe.skip(name, body);
};

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export const launchBrowser = async (): Promise<Browser> => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    acceptDownloads: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
};
