import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createGatewayHandler,
  createTokenIssuer,
  createTokenVerifier,
  encodeGatewayRequest,
  type GatewayEvent,
} from '../../src/index.ts';
import * as web from '../../src/web/index.ts';
import { TUTO } from '../support/site.ts';

// The padding-oracle attack on the last byte of a block, against the gateway handler (node:crypto and
// Web Crypto) and the token verifier, as a test of the code path, not of the clock: for each of the
// 256 guesses it records the answer, the events and which checks ran (each UTF-8 check is counted).
// A check that ran only for a right padding (`padded && isUtf8(body)`) cost ~5 us that ranked the
// right guess first over HTTP; here it shows as a guess whose path differs. 256 calls per attack.

const utf8Checks = { node: 0, web: 0 };

vi.mock('node:buffer', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:buffer')>();
  return {
    ...actual,
    isUtf8: (input: Parameters<typeof actual.isUtf8>[0]) => {
      utf8Checks.node++;
      return actual.isUtf8(input);
    },
  };
});
vi.mock('../../src/encoding/utf8.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/encoding/utf8.ts')>();
  return {
    ...actual,
    isUtf8Of: (bytes: Uint8Array, text: string) => {
      utf8Checks.web++;
      return actual.isUtf8Of(bytes, text);
    },
  };
});

const IV = Buffer.from('0123456789abcdef');
const KEY = Buffer.from(TUTO.siteKey);

beforeEach(() => {
  utf8Checks.node = 0;
  utf8Checks.web = 0;
});
afterEach(() => {
  vi.restoreAllMocks();
});

function paddingIsValid(ciphertext: Buffer): boolean {
  const decipher = createDecipheriv('aes-256-cbc', KEY, IV);
  try {
    Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    return true;
  } catch {
    return false;
  }
}

function encryptRaw(plain: Buffer): string {
  const cipher = createCipheriv('aes-256-cbc', KEY, IV);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
}

/**
 * Runs the attack on the last byte of the block before `target`: `observe` sends one crafted
 * ciphertext and says what an attacker (with a view of the code path) sees. Returns the groups of
 * guesses that saw the same thing, and how many guesses had a right padding.
 */
async function attack(
  target: Buffer,
  observe: (ciphertext: string) => Promise<string>,
): Promise<{ groups: number[][]; rightGuesses: number }> {
  const prefix = randomBytes(16);
  const seen = new Map<string, number[]>();
  let rightGuesses = 0;
  for (let guess = 0; guess < 256; guess++) {
    prefix[15] = guess;
    const crafted = Buffer.concat([prefix, target]);
    if (paddingIsValid(crafted)) rightGuesses++;
    const observed = await observe(crafted.toString('base64'));
    seen.set(observed, [...(seen.get(observed) ?? []), guess]);
  }
  return { groups: [...seen.values()], rightGuesses };
}

const gatewayTarget = () => {
  const body = encodeGatewayRequest(
    { format: 'json', user_id: 'victim', cid: 'movie-1', nonce: 'n-1', drm_type: 'Widevine' },
    TUTO.siteKey,
  );
  const data = new URLSearchParams(body).get('data') as string;
  return Buffer.from(data, 'base64').subarray(16, 32);
};

describe.each([
  ['node:crypto', createGatewayHandler],
  ['Web Crypto', web.createGatewayHandler],
] as const)('the gateway handler on %s', (_name, create) => {
  function gateway() {
    const events: GatewayEvent[] = [];
    const handler = create({
      siteKey: TUTO.siteKey,
      authorize: () => ({ allow: true, playback_policy: { limit: false, persistent: false } }),
      onEvent: (e) => events.push(e),
    });
    const send = async (data: string) => {
      const before = { ...utf8Checks };
      const from = events.length;
      const response = await handler(
        new Request('http://site.test/gateway', {
          method: 'POST',
          body: `data=${encodeURIComponent(data)}`,
        }),
      );
      return JSON.stringify({
        status: response.status,
        headers: [...response.headers],
        body: await response.text(),
        events: events.slice(from),
        utf8Checks: [utf8Checks.node - before.node, utf8Checks.web - before.web],
      });
    };
    return { send };
  }

  it('a padding-oracle attacker learns nothing from the answer, the events or the checks that ran', async () => {
    const { send } = gateway();
    const { groups, rightGuesses } = await attack(gatewayTarget(), send);
    expect(rightGuesses).toBeGreaterThan(0);
    expect(groups).toHaveLength(1);
    // Each guess ran the UTF-8 check exactly once, right padding or not.
    const last = JSON.parse(await send(gatewayTarget().toString('base64'))) as {
      utf8Checks: [number, number];
    };
    expect(last.utf8Checks[0] + last.utf8Checks[1]).toBe(1);
  });

  it('a bad padding whose bytes parse as schema-breaking JSON gets the uniform 400, not an encrypted 9001', async () => {
    const { send } = gateway();
    // 0x20 is no PKCS#7 pad byte: the padding is bad, and all 32 bytes are JSON that breaks the spec.
    const badPaddingJson = encryptRaw(Buffer.from('{"user_id":1,"nonce":"n"}'.padEnd(32)));
    const garbage = encryptRaw(Buffer.alloc(32, 0x7f));
    const [json, plain] = [await send(badPaddingJson), await send(garbage)];
    expect(JSON.parse(json)).toMatchObject({ status: 400 });
    expect(json).toBe(plain);
  });
});

describe('the token verifier', () => {
  it('an attacker holding the access key learns nothing about the policy from the error or the checks that ran', async () => {
    const issuer = createTokenIssuer(TUTO);
    const verifier = createTokenVerifier(TUTO);
    const real = issuer.issue({ cid: 'movie-1', policy: { policy_version: 2 } });
    const fields = JSON.parse(Buffer.from(real, 'base64').toString()) as Record<string, string>;
    const target = Buffer.from(fields['policy'] as string, 'base64').subarray(0, 16);

    const send = async (policy: string) => {
      const token: Record<string, string> = { ...fields, policy };
      const s =
        TUTO.accessKey +
        [token['drm_type'], token['site_id'], token['user_id'], token['cid'], policy].join('') +
        token['timestamp'];
      token['hash'] = hash('sha256', s, 'base64');
      const before = utf8Checks.node;
      let error = '';
      try {
        verifier.verify(Buffer.from(JSON.stringify(token)).toString('base64'));
      } catch (e) {
        error = `${(e as { code: string }).code}: ${(e as Error).message}`;
      }
      return JSON.stringify({ error, utf8Checks: utf8Checks.node - before });
    };
    const { groups, rightGuesses } = await attack(target, send);
    expect(rightGuesses).toBeGreaterThan(0);
    expect(groups).toHaveLength(1);
    expect(JSON.parse(await send(encryptRaw(Buffer.alloc(16, 1))))).toEqual({
      error: expect.stringMatching(/^DECRYPT_FAILED: /),
      utf8Checks: 1,
    });
  });
});
