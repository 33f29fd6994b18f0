import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCustomData, decodeGatewayResponse } from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { vectors } from '../../support/vectors.ts';
import { vectorsV2 } from '../../support/vectors-v2.ts';
import { e2eSkipped, SKIP_NOTICE } from '../support/chromium.ts';
import {
  act,
  buildConsole,
  fill,
  openConsole,
  output,
  screenshot,
  tab,
  type ConsolePage,
} from './console-page.ts';

// The browser console, built as a team would host it, driven in Chromium: what it computes is
// checked against the CLI, the vectors and Node's site-kit; and it must make no request once loaded.

const CLI = join(import.meta.dirname, '../../../packages/site-kit/bin/multidrm.js');
const v1 = vectors.token[0]!;
const v2 = vectorsV2.vectors[0]!;
const { common } = vectorsV2;
const after = (timestamp: string, seconds: number) =>
  new Date(Date.parse(timestamp) + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function inspectWithCli(token: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    // Keys through the environment, as the CLI's help advises: never on a command line.
    const child = spawn(
      process.execPath,
      [CLI, 'token', 'inspect', '--json', '--site-id', 'TUTO', '-'],
      {
        env: {
          PATH: process.env['PATH'] ?? '',
          MULTIDRM_SITE_KEY: v1.site_key,
          MULTIDRM_ACCESS_KEY: v1.access_key,
        },
      },
    );
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
    child.stdin.end(token);
  });
}

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

describe.skipIf(skip)('the console in Chromium', () => {
  let built: Awaited<ReturnType<typeof buildConsole>>;
  let c: ConsolePage;

  beforeAll(async () => {
    built = await buildConsole();
    c = await openConsole(built.dir);
  });
  afterAll(async () => {
    await c?.close();
    await built?.remove();
  });

  const site = (prefix: string, siteId = 'TUTO') => ({
    [`${prefix}.siteId`]: siteId,
    [`${prefix}.siteKey`]: v1.site_key,
    [`${prefix}.accessKey`]: v1.access_key,
  });

  test("the page is built from site-kit's Web Crypto build, with the CSP that forbids connections", async () => {
    const assets = join(built.dir, 'assets');
    const scripts = (await readdir(assets)).filter((name) => name.endsWith('.js'));
    const code = (
      await Promise.all(scripts.map((name) => readFile(join(assets, name), 'utf8')))
    ).join('\n');
    expect(code).toContain('crypto.subtle');
    expect(code).not.toContain('node:crypto');
    const html = await readFile(join(built.dir, 'index.html'), 'utf8');
    expect(html).toContain('connect-src &#39;none&#39;');
  });

  test('loads with a clean console: no error, no failed request (a favicon 404 was one)', () => {
    expect(c.consoleErrors).toEqual([]);
  });

  test('a v2 token created in the page verifies with the CLI, policy and all', async () => {
    const { page } = c;
    await tab(page, 'token');
    await fill(page, {
      ...site('create'),
      'create.version': 'v2',
      'create.cid': 'bigbuckbunny',
      'create.userId': 'console-user',
      'create.drmType': 'Widevine',
      'create.policy':
        '{"policy_version":2,"playback_policy":{"persistent":false,"license_duration":3600}}',
    });
    await act(page, 'create');
    const token = await output(page, '[data-output="create"]');
    expect(await page.getAttribute('[data-output="create"]', 'data-state')).toBe('ok');
    const result = await inspectWithCli(token.trim());
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      version: 2,
      verified: true,
      fields: { site_id: 'TUTO', user_id: 'console-user', cid: 'bigbuckbunny' },
      policy: { policy_version: 2, playback_policy: { persistent: false, license_duration: 3600 } },
    });
  });

  test("the schema's messages stand next to the field they name", async () => {
    const { page } = c;
    await fill(page, {
      'create.cid': '',
      'create.policy': '{"policy_version":2,"playback_policy":{"license_duration":-1}}',
    });
    expect(await output(page, '[data-message="create.policy"]')).toBe(
      'policy.playback_policy.license_duration: must not be negative',
    );
    // Every member of the v2 schema has its row; the message stands on the member's own row.
    expect(await output(page, '[data-member="playback_policy.license_duration"] .message')).toBe(
      'must not be negative',
    );
    expect(await page.locator('[data-member]').count()).toBeGreaterThan(30);
    await page.click('[data-tab="token"] details summary');
    await screenshot(page, 'token-create');
    expect(
      await page.textContent('[data-member="security_policy[].widevine.security_level"]'),
    ).toContain('1 | 2 | 3 | 4 | 5');
    await fill(page, { 'create.policy': '{"policy_version":2}' });
    await act(page, 'create');
    expect(await output(page, '[data-message="create.cid"]')).toBe('must not be empty');
    expect(await page.textContent('[data-output="create"]')).toBe(
      'INVALID_INPUT: cid: must not be empty',
    );
  });

  test('the public v1 and v2 vectors read as accepted, each with its hash reading', async () => {
    const { page } = c;
    await fill(page, {
      'inspect.token': v1.expected.token,
      ...site('inspect'),
      'inspect.now': after(v1.timestamp, 10),
    });
    await act(page, 'inspect');
    expect(await output(page, '[data-output="verdict"]')).toContain('Accepted');
    expect(await page.getAttribute('[data-output="hash"]', 'data-matching')).toBe('hex-text');
    expect(await page.textContent('[data-output="policy"]')).toContain('duration: 3600');
    expect(await page.textContent('[data-output="window"]')).toContain(
      'now is inside the window, 590 s before the expiry',
    );

    await fill(page, {
      'inspect.token': v2.token,
      'inspect.siteKey': common.site_key,
      'inspect.accessKey': common.access_key,
      'inspect.now': after(common.timestamp, 1),
    });
    await act(page, 'inspect');
    expect(await output(page, '[data-output="verdict"]')).toContain('Accepted');
    expect(await page.getAttribute('[data-output="hash"]', 'data-matching')).toBe('raw-digest');
    expect(await page.textContent('[data-output="fields"]')).toContain('response_format');
    await screenshot(page, 'token-inspect');
  });

  test('an expired token, the other hash reading and another site are explained with the service code', async () => {
    const { page } = c;
    const verdict = async (values: Record<string, string>) => {
      await fill(page, { ...site('inspect'), ...values });
      await act(page, 'inspect');
      return {
        text: await output(page, '[data-output="verdict"]'),
        code: await page.getAttribute('[data-output="verdict"]', 'data-code'),
      };
    };
    const expired = await verdict({
      'inspect.token': v1.expected.token,
      'inspect.now': after(v1.timestamp, 700),
    });
    expect(expired.code).toBe('TOKEN_EXPIRED');
    expect(expired.text).toContain('The token expired 100 s ago');
    expect(expired.text).toContain('The license service answers errorCode 7011.');
    expect(await page.textContent('[data-output="window"]')).toContain(
      'now is 100 s after the expiry',
    );

    const reading = await verdict({
      'inspect.token': v1.expected.token_raw_digest,
      'inspect.now': after(v1.timestamp, 10),
    });
    expect(reading.code).toBe('HASH_MISMATCH');
    expect(reading.text).toContain(
      "made with hashEncoding 'raw-digest', but 'hex-text' was expected",
    );
    expect(reading.text).toContain('errorCode 7019');
    expect(await page.textContent('[data-output="hash"]')).toContain(
      "matches the 'raw-digest' reading, but 'hex-text' is expected",
    );

    const otherSite = await verdict({
      'inspect.token': v1.expected.token,
      'inspect.siteId': 'OTHER',
      'inspect.now': after(v1.timestamp, 10),
    });
    expect(otherSite.code).toBe('SITE_MISMATCH');
    expect(otherSite.text).toContain('The token is for site "TUTO"');
    expect(otherSite.text).toContain('errorCode 1003');

    // A short site key is the console user's mistake, not the token's: no refusal code.
    const shortKey = await verdict({
      'inspect.token': v1.expected.token,
      'inspect.siteKey': 'short',
    });
    expect(shortKey.code).toBe('INVALID_SITE_KEY');
    expect(shortKey.text).toMatch(
      /^Cannot check: INVALID_SITE_KEY\. The site key must be exactly 32 bytes/,
    );
    expect(shortKey.text).not.toContain('errorCode');
  });

  test('v1 token data converts to a v2 policy', async () => {
    const { page } = c;
    await fill(page, {
      'convert.policy': '{"playback_policy":{"limit":true,"persistent":false,"duration":3600}}',
    });
    await act(page, 'convert');
    expect(JSON.parse(await output(page, '[data-output="convert"]'))).toEqual({
      policy_version: 2,
      playback_policy: { persistent: false, license_duration: 3600 },
    });
  });

  test('AES in the page reproduces every vector both ways; a wrong key gets one sentence', async () => {
    const { page } = c;
    await tab(page, 'aes');
    for (const v of vectors.aes) {
      await fill(page, {
        'aes.siteKey': v.key,
        'aes.plaintext': v.plaintext,
        'aes.ciphertext': '',
      });
      await act(page, 'encrypt');
      expect(await output(page, '[data-output="aes"]')).toBe('Encrypted.');
      expect(await page.inputValue('[data-field="aes.ciphertext"]'), v.name).toBe(v.ciphertext);
      await fill(page, { 'aes.plaintext': '' });
      await act(page, 'decrypt');
      expect(await output(page, '[data-output="aes"]')).toBe('Decrypted.');
      expect(await page.inputValue('[data-field="aes.plaintext"]'), v.name).toBe(v.plaintext);
    }
    await fill(page, {
      'aes.siteKey': 'b'.repeat(32),
      'aes.ciphertext': vectors.aes[0]!.ciphertext,
    });
    await act(page, 'decrypt');
    expect(await output(page, '[data-output="aes"]')).toBe(
      'DECRYPT_FAILED: Decryption failed (bad PKCS7 padding, or not UTF-8 text): the site key is wrong or the ciphertext was changed.',
    );
    await screenshot(page, 'aes');
  });

  test("a callback's data= reads as its request, and the answer built on it decrypts in Node", async () => {
    const { page } = c;
    const request = vectors.gateway[0]!;
    await tab(page, 'gateway');
    await fill(page, { 'gateway.siteKey': request.site_key, 'gateway.input': request.form_body! });
    await act(page, 'read-callback');
    const read = await output(page, '[data-output="gateway-request"]');
    expect(read).toContain('A JSON gateway request');
    expect(read).toContain('nonce: "3426u3050329384g"');
    await act(page, 'encode-answer');
    const answer = await output(page, '[data-output="gateway-answer"]');
    expect(decodeGatewayResponse(answer, 'json', request.site_key)).toMatchObject({
      error_code: '0000',
      nonce: '3426u3050329384g',
      playback_policy: { limit: true, duration: 3600 },
    });
    await screenshot(page, 'gateway');
  });

  test("a player's custom data reads as its envelope and request; another key gets one sentence", async () => {
    const { page } = c;
    const key = vectors.gateway[0]!.site_key;
    const customData = createCustomData({
      siteId: 'TUTO',
      siteKey: key,
      drmType: 'PlayReady',
      userId: 'member-alice',
      cid: 'movie-1',
      oid: 'order-7',
    });
    await fill(page, { 'gateway.siteKey': key, 'gateway.input': customData });
    await act(page, 'read-custom-data');
    const read = await output(page, '[data-output="gateway-request"]');
    expect(read).toContain('Gateway-mode custom data');
    for (const part of [
      'site_id: "TUTO"',
      'user_id: "member-alice"',
      'cid: "movie-1"',
      'oid: "order-7"',
    ]) {
      expect(read).toContain(part);
    }
    await fill(page, { 'gateway.siteKey': 'b'.repeat(32) });
    await act(page, 'read-custom-data');
    expect(await output(page, '[data-output="gateway-request"]')).toMatch(
      /^DECRYPT_FAILED: [^\n]+\.$/,
    );
  });

  test('the probe in Chromium: ClearKey answers, Widevine and the others do not', async () => {
    const { page } = c;
    await tab(page, 'browser');
    await act(page, 'probe');
    await page.waitForSelector('[data-output="probe"][data-state="done"]');
    const rows = await page.$$eval('[data-row]', (trs) =>
      trs.map((tr) => [tr.getAttribute('data-row'), tr.getAttribute('data-supported')]),
    );
    const supported = Object.fromEntries(rows);
    expect(supported['clearkey']).toBe('true');
    for (const id of [
      'widevine-sw-crypto',
      'widevine-hw-all',
      'playready-3000',
      'fairplay',
      'wiseplay',
    ]) {
      expect(supported[id], id).toBe('false');
    }
    expect(rows).toHaveLength(11);
    await screenshot(page, 'browser');
  });

  test('privacy: no request after load, nothing stored unless asked, no key in the link', async () => {
    const { page, origin } = c;
    // Everything above ran in this page: tokens, AES, gateway, probe.
    expect(c.requestsAfterLoad).toEqual([]);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    await tab(page, 'token');
    await act(page, 'share');
    const link = await page.inputValue('[data-output="share-link"]');
    expect(link.startsWith(`${origin}/#`)).toBe(true);
    expect(link).toContain('create.siteId=TUTO');
    for (const key of [
      v1.site_key,
      v1.access_key,
      common.site_key,
      common.access_key,
      'b'.repeat(32),
    ]) {
      expect(link).not.toContain(key);
    }
    await act(page, 'remember');
    const stored = await page.evaluate(() => localStorage.getItem('multidrm-console') ?? '');
    expect(stored).toContain('inspect.siteId');
    expect(stored).not.toContain(v1.site_key);
    expect(stored).not.toContain(v1.access_key);
    await act(page, 'forget');
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    // The watcher does see what the page asks for: an image of its own origin, which CSP allows.
    await page.evaluate(`new Image().src = ${JSON.stringify(`${origin}/probe.png`)}`);
    await page.waitForFunction(() =>
      performance.getEntriesByType('resource').some((e) => e.name.endsWith('/probe.png')),
    );
    expect(c.requestsAfterLoad).toEqual([`${origin}/probe.png`]);
  });
});
