import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCustomDataHandler,
  createGatewayHandler,
  createTokenHandler,
  decodeGatewayResponse,
  DRM_TYPES,
  encodeGatewayRequest,
  encrypt,
  toNodeListener,
  type GatewayFormat,
} from '../../src/index.ts';
import { listen, type TestServer } from './server.ts';

// Every handler gets >= 1000 generated malformed requests on a real node:http server. Whatever the
// input: a 4xx, or (gateway only) a well-formed encrypted error; never a stack trace or a key. A
// site endpoint refuses a body that is not application/json with 415 before reading it.

const SITE_KEY = 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC';
const ACCESS_KEY = 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20';
const RUNS = 1000;
const SECRETS = [SITE_KEY, ACCESS_KEY, Buffer.from(SITE_KEY).toString('base64')];

let gateway: TestServer;
let token: TestServer;
let customData: TestServer;

beforeAll(async () => {
  // The gateway refuses everything it can read, so any 200 it gives must be an encrypted error.
  gateway = await listen(
    toNodeListener(
      createGatewayHandler({
        siteKey: SITE_KEY,
        authorize: () => ({ allow: false, error_code: '4999', error_message: 'fuzz' }),
      }),
    ),
  );
  token = await listen(
    toNodeListener(
      createTokenHandler({
        siteId: 'FUZZ',
        siteKey: SITE_KEY,
        accessKey: ACCESS_KEY,
        authorize: () => ({ allow: true, userId: 'u' }),
      }),
    ),
  );
  customData = await listen(
    toNodeListener(
      createCustomDataHandler({
        siteId: 'FUZZ',
        siteKey: SITE_KEY,
        authorize: () => ({ allow: true, userId: 'u' }),
      }),
    ),
  );
});

afterAll(async () => {
  await Promise.all([gateway.close(), token.close(), customData.close()]);
});

interface Case {
  method: string;
  body?: string | Uint8Array<ArrayBuffer>;
  contentType?: string;
}

const METHODS = ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

const deep = fc
  .tuple(fc.integer({ min: 100, max: 20000 }), fc.constantFrom('[', '{"a":', '<a>'))
  .map(([n, open]) => open.repeat(n) + (open === '[' ? ']'.repeat(n) : ''));

const post = (body: string | Uint8Array<ArrayBuffer>, contentType?: string): Case => ({
  method: 'POST',
  body,
  contentType,
});

const validData = fc
  .record({
    user_id: fc.string(),
    cid: fc.string({ minLength: 1 }),
    nonce: fc.string({ minLength: 1 }),
    format: fc.constantFrom<GatewayFormat>('json', 'xml'),
  })
  .map(
    (r) =>
      new URLSearchParams(
        encodeGatewayRequest(
          r.format === 'json' ? { ...r, format: 'json', drm_type: 'NCG' } : { ...r, format: 'xml' },
          SITE_KEY,
        ),
      ).get('data') as string,
  );

const gatewayCase: fc.Arbitrary<Case> = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }).map((b) => post(b, 'application/octet-stream')),
  fc.string({ maxLength: 500 }).map((s) => post(`data=${s}`)),
  // Truncated ciphertexts.
  fc
    .tuple(validData, fc.nat())
    .map(([d, n]) => post(`data=${encodeURIComponent(d.slice(0, n % d.length))}`)),
  // Mis-padded or mis-alphabeted base64.
  fc
    .tuple(validData, fc.constantFrom('', '=', '==', '-', '_', '*', '%00'), fc.nat())
    .map(([d, junk, n]) => {
      const at = n % d.length;
      return post(`data=${encodeURIComponent(d.replace(/=+$/, '')).slice(0, at)}${junk}`);
    }),
  // Ciphertexts with one byte flipped: bad padding or garbage plaintext.
  fc.tuple(validData, fc.nat(), fc.integer({ min: 1, max: 255 })).map(([d, n, x]) => {
    const bytes = Buffer.from(d, 'base64');
    const at = n % bytes.length;
    bytes[at] = (bytes[at] as number) ^ x;
    return post(`data=${encodeURIComponent(bytes.toString('base64'))}`);
  }),
  // Valid encryption of garbage, of wrong types and of deep structures.
  fc
    .string({ maxLength: 300 })
    .map((s) => post(`data=${encodeURIComponent(encrypt(s, SITE_KEY))}`)),
  fc
    .record({
      user_id: fc.anything(),
      cid: fc.anything(),
      nonce: fc.anything(),
      drm_type: fc.anything(),
    })
    .map((r) => post(`data=${encodeURIComponent(encrypt(JSON.stringify(r), SITE_KEY))}`)),
  fc
    .dictionary(fc.constantFrom('USERID', 'CID', 'OID', 'NONCE', 'X'), fc.string({ maxLength: 20 }))
    .map((r) => {
      const inner = Object.entries(r)
        .map(([k, v]) => `<${k}>${v}</${k}>`)
        .join('');
      return post(`data=${encodeURIComponent(encrypt(`<RES>${inner}</RES>`, SITE_KEY))}`);
    }),
  deep.map((s) => post(`data=${encodeURIComponent(encrypt(s, SITE_KEY))}`)),
  // Wrong methods, oversized bodies.
  fc.tuple(fc.constantFrom(...METHODS), validData).map(([method, d]) => ({
    method,
    body: method === 'GET' || method === 'HEAD' ? undefined : `data=${encodeURIComponent(d)}`,
  })),
  fc.integer({ min: 64 * 1024 + 1, max: 200 * 1024 }).map((n) => post(`data=${'A'.repeat(n)}`)),
);

const notAPlayerRequest = (v: unknown): boolean => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return true;
  const { cid, drm_type } = v as Record<string, unknown>;
  return !(
    typeof cid === 'string' &&
    cid.length > 0 &&
    (DRM_TYPES as readonly unknown[]).includes(drm_type)
  );
};

const siteCase: fc.Arbitrary<Case> = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }).map((b) => post(b, 'application/json')),
  fc.string({ maxLength: 500 }).map((s) => post(s, 'application/json')),
  fc
    .anything()
    .filter(notAPlayerRequest)
    .map((v) => post(JSON.stringify(v) ?? 'undefined', 'application/json')),
  fc
    .record({ cid: fc.anything(), drm_type: fc.anything() }, { requiredKeys: [] })
    .filter(notAPlayerRequest)
    .map((v) => post(JSON.stringify(v), 'application/json')),
  fc
    .record({ cid: fc.string({ minLength: 1 }), drm_type: fc.string() })
    .filter(notAPlayerRequest)
    .map((v) => post(JSON.stringify(v), 'text/plain')),
  deep.map((s) => post(s, 'application/json')),
  fc.constantFrom(...METHODS).map((method) => ({ method })),
  fc
    .integer({ min: 16 * 1024 + 1, max: 100 * 1024 })
    .map((n) => post(`{"cid":"${'c'.repeat(n)}","drm_type":"NCG"}`, 'application/json')),
);

async function send(url: string, c: Case): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/endpoint`, {
    method: c.method,
    body: c.body,
    headers: c.contentType ? { 'content-type': c.contentType } : {},
  });
  return { status: response.status, text: await response.text() };
}

function expectNoLeak(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/\n\s+at |\.ts:\d+|node:internal|Error:/);
}

function isEncryptedError(text: string): boolean {
  for (const format of ['json', 'xml'] as const) {
    try {
      const answer = decodeGatewayResponse(text, format, SITE_KEY);
      return (answer.format === 'json' ? answer.error_code : answer.ERROR) !== '0000';
    } catch {
      // Try the other format.
    }
  }
  return false;
}

describe('fuzz', () => {
  it(`gateway: ${RUNS} malformed requests get a 4xx or an encrypted error, and it keeps serving`, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(gatewayCase, async (c) => {
        const { status, text } = await send(gateway.url, c);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        expectNoLeak(text);
        if (status === 200) expect(isEncryptedError(text)).toBe(true);
        else expect(status).toBeOneOf([400, 405, 413]);
      }),
      { numRuns: RUNS },
    );
    // The generators reach every kind of answer, not only one.
    expect([...statuses.keys()].sort()).toEqual([200, 400, 405, 413]);
    const body = encodeGatewayRequest(
      { format: 'json', user_id: 'u', cid: 'c', nonce: 'n', drm_type: 'NCG' },
      SITE_KEY,
    );
    const after = await send(gateway.url, post(body));
    expect(decodeGatewayResponse(after.text, 'json', SITE_KEY)).toMatchObject({
      error_code: '4999',
      nonce: 'n',
    });
  }, 120_000);

  for (const [name, server] of [
    ['token', () => token],
    ['custom data', () => customData],
  ] as const) {
    it(`${name}: ${RUNS} malformed requests get a 4xx with a reason, and it keeps serving`, async () => {
      const statuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(siteCase, async (c) => {
          const { status, text } = await send(server().url, c);
          statuses.add(status);
          expectNoLeak(text);
          expect(status).toBeOneOf([400, 405, 413, 415]);
          if (c.method !== 'HEAD') expect(text.length).toBeGreaterThan(0);
        }),
        { numRuns: RUNS },
      );
      expect([...statuses].sort()).toEqual([400, 405, 413, 415]);
      const after = await send(
        server().url,
        post('{"cid":"c","drm_type":"NCG"}', 'application/json'),
      );
      expect(after.status).toBe(200);
    }, 120_000);
  }
});
