import { afterEach, describe, expect, test } from 'vitest';
import {
  ChromiumMissingError,
  DEFAULT_CHROMIUM,
  e2eSkipped,
  findChromium,
} from './support/chromium.ts';
import { openSession } from './support/session.ts';

// How the suite finds its browser, and how it fails without one. No browser is started here.

describe('finding Chromium', () => {
  const saved = process.env['CHROME_PATH'];
  afterEach(() => {
    if (saved === undefined) delete process.env['CHROME_PATH'];
    else process.env['CHROME_PATH'] = saved;
  });

  test('CHROME_PATH wins over the Debian default', () => {
    expect(findChromium({ CHROME_PATH: process.execPath })).toBe(process.execPath);
  });

  test('a CHROME_PATH that is no executable fails with how to install Chromium and how to skip', () => {
    const run = () => findChromium({ CHROME_PATH: '/nonexistent/chromium' });
    expect(run).toThrow(ChromiumMissingError);
    expect(run).toThrow(
      'The end-to-end tests need Chromium, but CHROME_PATH is "/nonexistent/chromium", which is not an executable file. ' +
        "Install Debian's package (`sudo apt-get install -y chromium`), or set CHROME_PATH to a Chromium or Chrome binary; " +
        'to skip these tests explicitly, run with MULTIDRM_E2E=skip.',
    );
  });

  test('without CHROME_PATH the Debian path is used, and named when nothing is there', () => {
    expect(DEFAULT_CHROMIUM).toBe('/usr/bin/chromium');
    expect(() => findChromium({}, '/nonexistent/usr/bin/chromium')).toThrow(
      'The end-to-end tests need Chromium, but no Chromium at /nonexistent/usr/bin/chromium and CHROME_PATH is not set.',
    );
    expect(findChromium({ CHROME_PATH: '  ' }, process.execPath)).toBe(process.execPath);
  });

  test('a session fails with that message before it starts any server or browser', async () => {
    process.env['CHROME_PATH'] = '/nonexistent/chromium';
    await expect(openSession()).rejects.toMatchObject({
      code: 'CHROMIUM_MISSING',
      message: expect.stringContaining('MULTIDRM_E2E=skip'),
    });
  });

  test('only MULTIDRM_E2E=skip skips the browser tests', () => {
    expect(e2eSkipped({ MULTIDRM_E2E: 'skip' })).toBe(true);
    expect(e2eSkipped({ MULTIDRM_E2E: ' SKIP ' })).toBe(true);
    expect(e2eSkipped({})).toBe(false);
    expect(e2eSkipped({ MULTIDRM_E2E: '0' })).toBe(false);
    expect(e2eSkipped({ MULTIDRM_E2E: 'false' })).toBe(false);
  });
});
