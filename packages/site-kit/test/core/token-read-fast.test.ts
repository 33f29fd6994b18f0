import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenError } from '../../src/index.ts';
import {
  readLicenseToken,
  readTokenBySchema,
  readTokenTimed,
  type TimedRead,
} from '../../src/token/decode.ts';
import { readTokenFast } from '../../src/token/read-token-fast.ts';
import { timestampArb } from '../support/arbitraries.ts';

// The token JSON is read by hand first and by the schema when the hand is unsure: whatever the
// object, the outcome must be the schema's (its result down to the order of the members, or its
// error's code, field and sentence), and the usual token must be read by hand.

type Json = Record<string, unknown>;
type Outcome =
  | { ok: true; value: TimedRead; order: string }
  | { ok: false; code: string; field: string | undefined; message: string };

function outcome(read: () => TimedRead): Outcome {
  try {
    const value = read();
    return { ok: true, value, order: JSON.stringify(Object.keys(value.read.fields)) };
  } catch (error) {
    if (!(error instanceof TokenError)) throw error;
    return { ok: false, code: error.code, field: error.field, message: error.message };
  }
}

const base64Arb = fc
  .uint8Array({ minLength: 1, maxLength: 40 })
  .map((b) => Buffer.from(b).toString('base64'));
const textArb = fc.string({ minLength: 1, maxLength: 12 });
const drmTypeArb = fc.constantFrom(
  'Widevine',
  'widevine',
  'WIDEVINE',
  'PlayReady',
  'playready',
  'FairPlay',
  'fairPlay',
  'NCG',
  'ncg',
  'Wiseplay',
  'WisePlay',
);
const common = {
  drm_type: drmTypeArb,
  site_id: textArb,
  user_id: fc.oneof(textArb, fc.constant('LICENSETOKEN')),
  cid: textArb,
  timestamp: timestampArb,
  hash: base64Arb,
};
const v1Arb: fc.Arbitrary<Json> = fc.record(
  { ...common, token: base64Arb },
  { requiredKeys: ['site_id', 'user_id', 'cid', 'token', 'timestamp', 'hash'] },
);
const v2Arb: fc.Arbitrary<Json> = fc.record(
  {
    ...common,
    policy: base64Arb,
    response_format: fc.constantFrom('original', 'json', 'custom'),
    key_rotation: fc.boolean(),
  },
  { requiredKeys: ['site_id', 'user_id', 'cid', 'policy', 'timestamp', 'hash'] },
);
// The members in another order than the schema's: the output is in the schema's order all the same.
const shuffled = (arb: fc.Arbitrary<Json>) =>
  arb.chain((json) =>
    fc
      .shuffledSubarray(Object.keys(json), { minLength: Object.keys(json).length })
      .map((keys) => Object.fromEntries(keys.map((k) => [k, json[k]]))),
  );
const validArb = fc.oneof(v1Arb, v2Arb, shuffled(v1Arb), shuffled(v2Arb));

// Values each member might wrongly hold; `undefined` removes the member.
const wrongArb = fc.constantFrom(
  undefined,
  null,
  0,
  1,
  true,
  false,
  '',
  ' ',
  'x',
  'not base64!',
  'YWJj',
  'YWI=',
  'YQ',
  'widevine',
  'Widevine ',
  'original',
  'JSON',
  '2026-02-30T00:00:00Z',
  '2026-01-01 00:00:00',
  '2026-01-01T00:00:00.000Z',
  '0099-01-01T00:00:00Z',
  {},
  [],
  ['YWJj'],
);
const MEMBERS = [
  'drm_type',
  'site_id',
  'user_id',
  'cid',
  'token',
  'policy',
  'response_format',
  'key_rotation',
  'timestamp',
  'hash',
  'extra',
  'Token',
  'toString',
  '__proto__',
];

// A valid token with one or two members changed, removed or added.
const nearMissArb: fc.Arbitrary<Json> = fc
  .tuple(
    validArb,
    fc.array(fc.tuple(fc.constantFrom(...MEMBERS), wrongArb), { minLength: 1, maxLength: 2 }),
  )
  .map(([json, changes]) => {
    const out: Json = { ...json };
    for (const [key, value] of changes) {
      if (value === undefined && key !== 'extra') delete out[key];
      else
        Object.defineProperty(out, key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return out;
  });

const base64OfJson = (json: unknown) => Buffer.from(JSON.stringify(json)).toString('base64');

describe('reading the token JSON by hand', () => {
  it('reads every usual token, as the schema does', () => {
    fc.assert(
      fc.property(validArb, (json) => {
        const fast = readTokenFast(json);
        expect(fast).toBeDefined();
        const bySchema = outcome(() => readTokenBySchema(json));
        expect(outcome(() => fast as TimedRead)).toStrictEqual(bySchema);
      }),
      { numRuns: 1500 },
    );
  });

  it('gives what the schema gives for near misses, or leaves them to it', () => {
    fc.assert(
      fc.property(nearMissArb, (json) => {
        const bySchema = outcome(() => readTokenBySchema(json));
        const fast = readTokenFast(json);
        if (!bySchema.ok) expect(fast).toBeUndefined();
        if (fast !== undefined) expect(outcome(() => fast)).toStrictEqual(bySchema);
        // The verifiers' read (an object handed in) and the public one (base64 text).
        expect(outcome(() => readTokenTimed('', json))).toStrictEqual(bySchema);
        const viaText = outcome(() => ({
          read: readLicenseToken(base64OfJson(json)),
          issuedMs: 0,
        }));
        const schemaViaText = outcome(() =>
          readTokenBySchema(JSON.parse(JSON.stringify(json)) as Json),
        );
        if (viaText.ok && schemaViaText.ok) {
          expect(viaText.value.read).toStrictEqual(schemaViaText.value.read);
          expect(viaText.order).toBe(schemaViaText.order);
        } else {
          expect(viaText).toStrictEqual(schemaViaText);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a token of each version with and without its optional members by hand', () => {
    const v1 = {
      drm_type: 'widevine',
      site_id: 'TUTO',
      user_id: 'u',
      cid: 'c',
      token: 'YWJj',
      timestamp: '2026-03-01T12:00:00Z',
      hash: 'YWI=',
    };
    const { drm_type: _drm, ...bare } = v1;
    const { token: _token, ...rest } = v1;
    const v2 = { ...rest, policy: 'YWJj', response_format: 'json', key_rotation: true };
    for (const json of [v1, bare, v2, { ...bare, token: undefined, policy: 'YWJj' }]) {
      const expected = outcome(() => readTokenBySchema(json));
      const fast = readTokenFast(json);
      if ('token' in json && json.token === undefined) {
        // A member present but undefined is the schema's to read.
        expect(fast).toBeUndefined();
        continue;
      }
      expect(fast).toBeDefined();
      expect(outcome(() => fast as TimedRead)).toStrictEqual(expected);
      expect(fast?.issuedMs).toBe(Date.UTC(2026, 2, 1, 12));
    }
    expect(readTokenFast(v1)?.read.warnings).toEqual([
      'drm_type: "widevine" read as "Widevine" (writers write that spelling; the hash covers the text as sent)',
    ]);
  });

  it('leaves class instances and objects with a prototype of their own to the schema', () => {
    class Token {
      site_id = 'TUTO';
      user_id = 'u';
      cid = 'c';
      token = 'YWJj';
      timestamp = '2026-03-01T12:00:00Z';
      hash = 'YWI=';
    }
    const inherited = Object.create({ extra: 1 }) as Json;
    Object.assign(inherited, { ...new Token() });
    expect(readTokenFast(new Token() as unknown as Json)).toBeUndefined();
    expect(readTokenFast(inherited)).toBeUndefined();
    const bare = Object.assign(Object.create(null) as Json, { ...new Token() });
    expect(readTokenFast(bare)).toBeDefined();
    expect(outcome(() => readTokenFast(bare) as TimedRead)).toStrictEqual(
      outcome(() => readTokenBySchema(bare)),
    );
  });

  it('refuses a handed-in JSON that is not a plain object as MALFORMED_TOKEN', () => {
    for (const json of [null, 'x', 1, [], ['a'], new Date(0)]) {
      expect(outcome(() => readTokenTimed('', json))).toMatchObject({
        ok: false,
        code: 'MALFORMED_TOKEN',
        message:
          'The token holds JSON that is not an object: a token is base64 of the token JSON object.',
      });
    }
  });
});
