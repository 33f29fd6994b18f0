import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's Chromium: H.264, AAC and ClearKey work in it headless, with no download at test time. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
];

export class ChromiumMissingError extends Error {
  override name = 'ChromiumMissingError';
  readonly code = 'CHROMIUM_MISSING';
}

/**
 * `MULTIDRM_E2E=skip` is the one way to leave the real-browser tests out; any other value, or none,
 * runs them, and a missing browser then fails them rather than passing in silence.
 */
export function e2eSkipped(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['MULTIDRM_E2E']?.trim().toLowerCase() === 'skip';
}

export const SKIP_NOTICE =
  'MULTIDRM_E2E=skip: the real-browser end-to-end tests are SKIPPED; nothing proves decrypted playback in this run.';

/** The Chromium to drive: CHROME_PATH when set, else Debian's. Throws a sentence that says how to get one. */
export function findChromium(
  env: NodeJS.ProcessEnv = process.env,
  defaultPath: string = DEFAULT_CHROMIUM,
): string {
  const given = env['CHROME_PATH']?.trim();
  const path = given || defaultPath;
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    const where = given
      ? `CHROME_PATH is ${JSON.stringify(given)}, which is not an executable file`
      : `no Chromium at ${defaultPath} and CHROME_PATH is not set`;
    throw new ChromiumMissingError(
      `The end-to-end tests need Chromium, but ${where}. Install Debian's package ` +
        '(`sudo apt-get install -y chromium`), or set CHROME_PATH to a Chromium or Chrome binary; ' +
        'to skip these tests explicitly, run with MULTIDRM_E2E=skip.',
    );
  }
}

export interface LaunchedChromium {
  context: BrowserContext;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile, a 1:1 pixel ratio (screenshots compare pixel for pixel). */
export async function launchChromium(
  options: { viewport?: { width: number; height: number } } = {},
): Promise<LaunchedChromium> {
  const executablePath = findChromium();
  const profile = await mkdtemp(join(tmpdir(), 'multidrm-e2e-profile-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: FLAGS,
      viewport: options.viewport ?? { width: 680, height: 800 },
      deviceScaleFactor: 1,
      timeout: 30_000,
    });
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    context,
    async close() {
      try {
        await context.close();
      } finally {
        // Chromium's helpers may still be writing to the profile for a moment after it quits.
        await rm(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      }
    },
  };
}
