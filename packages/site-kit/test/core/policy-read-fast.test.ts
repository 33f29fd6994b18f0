import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenError } from '../../src/index.ts';
import {
  readPolicyV1,
  readPolicyV1BySchema,
  readPolicyV2,
  readPolicyV2BySchema,
} from '../../src/token/read-policy.ts';
import { readPolicyV1Fast, readPolicyV2Fast } from '../../src/token/read-policy-fast.ts';
import { timestampArb } from '../support/arbitraries.ts';

// A decrypted policy is read by hand first and by the schema when the hand is unsure: whatever the
// JSON, the outcome must be the schema's (the policy down to the order of its members and the
// warnings, or the error's code and sentence), and the usual policies must be read by hand.

type Read = { policy: object; warnings: string[] };
type Outcome =
  { ok: true; value: Read; text: string } | { ok: false; code: string; message: string };

function outcome(read: () => Read): Outcome {
  try {
    const value = read();
    // JSON.stringify keeps the members' order (toStrictEqual does not look at it).
    return { ok: true, value, text: JSON.stringify(value.policy) };
  } catch (error) {
    if (!(error instanceof TokenError)) throw error;
    return { ok: false, code: error.code, message: error.message };
  }
}

const secondsArb = fc.oneof(fc.nat(), fc.constantFrom(0, 60, 3600, Number.MAX_SAFE_INTEGER));
const playbackV1Arb = fc.record(
  {
    limit: fc.boolean(),
    persistent: fc.boolean(),
    duration: secondsArb,
    expire_date: timestampArb,
  },
  { requiredKeys: [] },
);
const v1Arb = fc.oneof(
  fc.constant({}),
  playbackV1Arb.map((playback_policy) => ({ playback_policy })),
);
const playbackV2Arb = fc.record(
  {
    persistent: fc.boolean(),
    license_duration: secondsArb,
    expire_date: timestampArb,
    allowed_track_types: fc.constantFrom('ALL', 'SD_ONLY', 'SD_HD', 'SD_UHD1', 'SD_UHD2'),
    rental_duration: secondsArb,
    playback_duration: secondsArb,
    max_stream_per_user: fc.integer({ min: 1, max: 1000 }),
    renewal_duration: fc.oneof(secondsArb, fc.nat().map(String), fc.constantFrom('007', '0')),
  },
  { requiredKeys: [] },
);
const v2Arb = fc.oneof(
  fc.constant({ policy_version: 2 }),
  playbackV2Arb.map((playback_policy) => ({ policy_version: 2, playback_policy })),
  playbackV2Arb.map((playback_policy) => ({ playback_policy, policy_version: 2 })),
);

// An object or array is made afresh for every draw: the test writes into what it draws, and a shared
// `{}` would grow from one run to the next and could come to contain itself.
const wrongArb = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.constantFrom(
      undefined,
      null,
      true,
      0,
      1,
      -1,
      -0,
      1.5,
      2 ** 53,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '',
      '60',
      '-1',
      '6 0',
      '１２',
      'ALL',
      'sd_hd',
      '2026-02-30T00:00:00Z',
      '2026-03-01T12:00:00Z',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom('object', 'array').map((kind) => (kind === 'object' ? {} : [])),
  },
);
const PLAYBACK_MEMBERS = [
  'limit',
  'persistent',
  'duration',
  'expire_date',
  'license_duration',
  'allowed_track_types',
  'rental_duration',
  'playback_duration',
  'max_stream_per_user',
  'renewal_duration',
  'extra',
];
const TOP_MEMBERS = [
  'policy_version',
  'playback_policy',
  'security_policy',
  'external_key',
  'external_policy',
  'extra',
];

type Json = Record<string, unknown>;
const put = (object: Json, key: string, value: unknown): void => {
  if (value === undefined && key !== 'extra') delete object[key];
  else
    Object.defineProperty(object, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
};

// A valid policy with one or two members changed, removed or added, in playback_policy or above it.
const nearMiss = (valid: fc.Arbitrary<Json>) =>
  fc
    .tuple(
      valid,
      fc.array(
        fc.tuple(fc.boolean(), fc.constantFrom(...PLAYBACK_MEMBERS, ...TOP_MEMBERS), wrongArb),
        { minLength: 1, maxLength: 2 },
      ),
    )
    .map(([json, changes]) => {
      const out: Json = { ...json };
      const playback = out['playback_policy'];
      if (typeof playback === 'object' && playback !== null)
        out['playback_policy'] = { ...playback };
      for (const [inner, key, value] of changes) {
        const target = out['playback_policy'];
        if (inner && typeof target === 'object' && target !== null) put(target as Json, key, value);
        else put(out, key, value);
      }
      return out;
    });

const readers = [
  {
    name: 'v1',
    valid: v1Arb,
    read: readPolicyV1,
    schema: readPolicyV1BySchema,
    fast: readPolicyV1Fast,
  },
  {
    name: 'v2',
    valid: v2Arb,
    read: readPolicyV2,
    schema: readPolicyV2BySchema,
    fast: readPolicyV2Fast,
  },
] as const;

describe.each(readers)('reading a $name policy by hand', ({ valid, read, schema, fast }) => {
  it('reads every usual policy by hand, as the schema does', () => {
    fc.assert(
      fc.property(valid, (json: Json) => {
        expect(fast(json)).toBeDefined();
        expect(outcome(() => read(json))).toStrictEqual(outcome(() => schema(json)));
      }),
      { numRuns: 1500 },
    );
  });

  it('gives what the schema gives for near misses, or leaves them to it', () => {
    fc.assert(
      fc.property(nearMiss(valid), (json) => {
        const bySchema = outcome(() => schema(json));
        if (!bySchema.ok) expect(fast(json)).toBeUndefined();
        expect(outcome(() => read(json))).toStrictEqual(bySchema);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves what is not a plain object to the schema', () => {
    class Policy {
      policy_version = 2;
    }
    for (const json of [null, undefined, 2, 'x', [], [{}], new Policy(), Object.create({ a: 1 })]) {
      expect(fast(json)).toBeUndefined();
      expect(outcome(() => read(json))).toStrictEqual(outcome(() => schema(json)));
    }
  });
});

describe('the usual policies', () => {
  it('v1: none, and a playback_policy whose rules the reader only warns of', () => {
    expect(readPolicyV1Fast({})).toStrictEqual({});
    const json = { playback_policy: { expire_date: '2026-03-01T12:00:00Z', duration: 60 } };
    expect(JSON.stringify(readPolicyV1Fast(json))).toBe(
      '{"playback_policy":{"duration":60,"expire_date":"2026-03-01T12:00:00Z"}}',
    );
    expect(readPolicyV1(json).warnings).toEqual([
      'playback_policy.duration is applied only when limit is true; set "limit": true or remove duration',
      'playback_policy.expire_date is applied only when limit is true; set "limit": true or remove expire_date',
      'playback_policy.expire_date must not be used together with duration (duration wins); keep only one',
    ]);
  });

  it("v2: the digit-string renewal_duration becomes a number, the notes are the schema path's", () => {
    const json = {
      playback_policy: {
        renewal_duration: '0060',
        rental_duration: 10,
        license_duration: 5,
        expire_date: '2026-03-01T12:00:00Z',
      },
      policy_version: 2,
    };
    const fast = readPolicyV2Fast(json);
    expect(JSON.stringify(fast)).toBe(
      '{"policy_version":2,"playback_policy":{"license_duration":5,"expire_date":"2026-03-01T12:00:00Z","rental_duration":10,"renewal_duration":60}}',
    );
    expect(readPolicyV2(json).warnings).toEqual(readPolicyV2BySchema(json).warnings);
    expect(readPolicyV2(json).warnings).toHaveLength(2);
  });

  it('v2: an empty or signed renewal_duration string is no number of seconds: left to the schema, which refuses it', () => {
    for (const renewal of ['', '-5', '+5', ' 5', '5s']) {
      const json = { policy_version: 2, playback_policy: { renewal_duration: renewal } };
      expect(readPolicyV2Fast(json)).toBeUndefined();
      expect(() => readPolicyV2(json)).toThrow(TokenError);
    }
  });

  it('leaves security_policy, external_key and the aliases to the schema', () => {
    for (const json of [
      { security_policy: {} },
      { external_key: { ncg: { cek: 'ab'.repeat(32) } } },
      { policy_version: 2, security_policy: [] },
      { policy_version: 2, external_policy: {} },
      { policy_version: 2, playback_policy: {}, extra: 1 },
    ]) {
      expect(readPolicyV1Fast(json)).toBeUndefined();
      expect(readPolicyV2Fast(json)).toBeUndefined();
    }
  });
});
