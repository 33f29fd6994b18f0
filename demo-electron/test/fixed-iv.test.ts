import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { playRequest } from './support/play-request.ts';
import { CONTENT_DIR, pageHeaders, startTestStack } from './support/stack.ts';

// The spec's AES-CBC has a fixed IV: the same custom data encrypts to the same bytes, and a copy
// replays. The demo shows the fact, and the three READMEs' security sections say it and what a
// site does about it.

const README = (path: string) => readFile(new URL(path, import.meta.url), 'utf8');

/** The section under `heading` (up to the next heading of the same or a higher level). */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`${heading}\n`);
  if (start < 0) return '';
  const level = /^#+/.exec(heading)?.[0].length ?? 2;
  const rest = markdown.slice(start + heading.length);
  const end = rest.search(new RegExp(`\\n#{1,${level}} `));
  return end < 0 ? rest : rest.slice(0, end);
}

describe('the fixed IV, in the demo', () => {
  let web: Awaited<ReturnType<typeof startTestStack>>;
  beforeAll(async () => {
    web = await startTestStack('web');
  });
  afterAll(() => web?.close());

  test('the same custom data comes out byte for byte the same, and a copy gets a second license', async () => {
    const asPage = await pageHeaders(web.stack);
    const plan = await web.stack.api.preparePlay(playRequest({ mode: 'gateway-json' }));
    if (!plan.ok) throw new Error(plan.error.message);
    const customData = async () => {
      const answer = await fetch(plan.value.customDataUrl as string, {
        method: 'POST',
        headers: { ...asPage, 'content-type': 'application/json' },
        body: JSON.stringify({ cid: 'free-sample', drm_type: 'Widevine' }),
      });
      return answer.text();
    };
    const first = await customData();
    expect(await customData()).toBe(first);
    const { kid } = JSON.parse(await readFile(join(CONTENT_DIR, 'keys.json'), 'utf8')) as {
      kid: string;
    };
    const license = () =>
      fetch(plan.value.licenseUrl, {
        method: 'POST',
        headers: { [plan.value.header]: first },
        body: JSON.stringify({
          kids: [Buffer.from(kid, 'hex').toString('base64url')],
          type: 'temporary',
        }),
      }).then((r) => r.json() as Promise<{ keys?: unknown[] }>);
    // The copy is not told apart from the original: both get the content key.
    expect((await license()).keys).toHaveLength(1);
    expect((await license()).keys).toHaveLength(1);
  });
});

describe("the READMEs' security sections", () => {
  test.each([
    ['../../README.md', '## Security'],
    ['../../packages/site-kit/README.md', '## Security: the fixed IV'],
    ['../README.md', '### The fixed IV'],
  ])('%s says what the fixed IV means and what a site does about it', async (path, heading) => {
    const text = section(await README(path), heading).replace(/\s+/g, ' ');
    expect(text, `${path}: no "${heading}" section`).not.toBe('');
    expect(text).toMatch(/fixed IV/);
    expect(text).toMatch(/same (custom data|plaintext)[^.]* encrypts to the same bytes/);
    expect(text).toMatch(/replay/);
    expect(text).toMatch(/short-lived tokens/);
    expect(text).toMatch(/nonce/);
  });
});
