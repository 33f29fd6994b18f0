import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type * as z from 'zod/mini';
import {
  externalKeySchema,
  playbackPolicySchema,
  securityPolicySchema,
  tokenPolicySchema,
} from '../../src/index.ts';
import { upperCaseHexPaths } from '../../src/schemas/hex-case.ts';
import {
  tokenPolicyText,
  writeExternalKey,
  writePlaybackPolicy,
  writeSecurityPolicy,
} from '../../src/token/policy-v1-text.ts';
import { brokenPolicyArb, policyArb, timestampArb } from '../support/arbitraries.ts';

// The hand-written v1 policy walk must agree with the schemas byte for byte whenever it answers:
// the same copy (members, order) and JSON.stringify's text of it. When unsure it answers nothing and
// the schema decides; it must never accept what the schema refuses.
vi.setConfig({ testTimeout: 30_000 });

type Json = Record<string, unknown>;

/** What the issuer's schema path gives: the parse and its text, or undefined when it refuses. */
function slowToken(policy: unknown): { parsed: unknown; json: string } | undefined {
  if (typeof policy === 'object' && policy !== null && 'policy_version' in policy) return undefined;
  const parsed = tokenPolicySchema.safeParse(policy ?? {});
  if (!parsed.success) return undefined;
  if (upperCaseHexPaths(parsed.data.external_key).length > 0) return undefined;
  return { parsed: parsed.data, json: JSON.stringify(parsed.data) };
}

function slowPart(
  schema: z.ZodMiniType,
  value: unknown,
): { parsed: unknown; json: string } | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success ? { parsed: parsed.data, json: JSON.stringify(parsed.data) } : undefined;
}

/** Deep equality that also holds the member order, as JSON.stringify writes it. */
function expectSameData(actual: unknown, expected: unknown): void {
  expect(actual).toStrictEqual(expected);
  expect(keyOrder(actual)).toStrictEqual(keyOrder(expected));
}
function keyOrder(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return null;
  return Object.entries(value).map(([k, v]) => [k, keyOrder(v)]);
}

function expectAgrees(policy: unknown): boolean {
  const fast = tokenPolicyText(policy);
  if (fast === undefined) return false;
  const slow = slowToken(policy);
  expect(
    slow,
    `the walk accepted what the schema refuses: ${String(JSON.stringify(policy))}`,
  ).toBeDefined();
  expect(fast.json).toBe(slow!.json);
  expectSameData(fast.parsed, slow!.parsed);
  return true;
}

const hex = (chars: number) =>
  fc.string({
    unit: fc.constantFrom(...'0123456789abcdefABCDEF'),
    minLength: chars,
    maxLength: chars,
  });
// Values that pass, nearly pass or plainly fail some member's rule.
const memberValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.boolean(),
  fc.constantFrom(0, 1, 2, 3, 150, 2000, -1, -0, 0.5, 2 ** 53, Number.NaN, Infinity),
  fc.integer(),
  fc.nat(),
  timestampArb,
  fc.constantFrom('2026-02-30T00:00:00Z', '2026-01-01 00:00:00Z', 'true', ''),
  hex(32),
  hex(64),
  hex(31),
  fc.constantFrom(null, undefined, [], {}),
);
const names = [
  'limit',
  'persistent',
  'duration',
  'expire_date',
  'hardware_drm',
  'output_protect',
  'allow_external_display',
  'control_hdcp',
  'allow_mobile_abnormal_device',
  'playready_security_level',
  'mpeg_cenc',
  'hls_aes',
  'ncg',
  'key_id',
  'key',
  'iv',
  'cek',
  'playback_policy',
  'security_policy',
  'external_key',
  'unknown',
];
const nearPolicy: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    memberValue,
    fc.dictionary(fc.constantFrom(...names), tie('node'), { maxKeys: 5 }),
  ),
})).node;

/** A valid policy with one member changed, added or removed somewhere. */
const mutatedPolicy = fc
  .tuple(policyArb, fc.constantFrom(...names), memberValue, fc.nat())
  .map(([policy, name, value, pick]) => {
    const copy = structuredClone(policy) as Json;
    const objects: Json[] = [copy];
    for (const part of Object.values(copy)) {
      if (typeof part !== 'object' || part === null) continue;
      objects.push(part as Json);
      for (const inner of Object.values(part))
        if (typeof inner === 'object' && inner !== null) objects.push(inner as Json);
    }
    const target = objects[pick % objects.length] as Json;
    if (pick % 3 === 0 && Object.keys(target).length > 0) {
      delete target[Object.keys(target)[0] as string];
    } else target[name] = value;
    return copy;
  });

describe('the v1 policy walk', () => {
  it('answers every valid policy with the parse and JSON.stringify of it', () => {
    fc.assert(
      fc.property(policyArb, (policy) => {
        expect(expectAgrees(policy)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with the schema on mutated, broken and arbitrary policies, or leaves them to it', () => {
    let answered = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          mutatedPolicy,
          nearPolicy,
          brokenPolicyArb.map((b) => b.policy),
        ),
        (p) => {
          if (expectAgrees(p)) answered++;
        },
      ),
      { numRuns: 2000 },
    );
    // Both kinds occur: the mutations leave many policies valid.
    expect(answered).toBeGreaterThan(100);
  });

  it('answers each part as its own schema does', () => {
    const parts = [
      [writePlaybackPolicy, playbackPolicySchema, 'playback_policy'],
      [writeSecurityPolicy, securityPolicySchema, 'security_policy'],
      [writeExternalKey, externalKeySchema, 'external_key'],
    ] as const;
    fc.assert(
      fc.property(fc.oneof(policyArb, mutatedPolicy), (policy) => {
        for (const [write, schema, name] of parts) {
          const value = (policy as Json)[name];
          const into: Json = {};
          const json = write(value, into, name);
          if (json === undefined) continue;
          const slow = slowPart(schema, value);
          expect(slow).toBeDefined();
          expect(json).toBe(slow!.json);
          expectSameData(into[name], slow!.parsed);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('agrees on the edges of every rule', () => {
    const numbers = [
      -1,
      -0,
      0,
      0.5,
      1,
      2,
      3,
      149,
      150,
      2000,
      2 ** 53 - 1,
      2 ** 53,
      Number.NaN,
      Infinity,
    ];
    const values = [
      ...numbers,
      true,
      false,
      null,
      '1',
      '2026-01-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
    ];
    const cases: unknown[] = [];
    for (const v of values) {
      cases.push(
        { playback_policy: { limit: true, duration: v } },
        { playback_policy: { limit: v, duration: 60 } },
        { playback_policy: { limit: true, expire_date: v } },
        { playback_policy: { limit: v, persistent: v } },
        { security_policy: { playready_security_level: v, hardware_drm: v } },
        { security_policy: { output_protect: { control_hdcp: v, allow_external_display: v } } },
        { security_policy: { allow_mobile_abnormal_device: v } },
      );
    }
    let answered = 0;
    for (const policy of cases) if (expectAgrees(policy)) answered++;
    expect(answered).toBeGreaterThan(10);
  });

  it('reads no policy as {} and leaves v2 policies to their schema', () => {
    expect(tokenPolicyText(undefined)).toStrictEqual({ parsed: {}, json: '{}' });
    expect(tokenPolicyText(null)).toStrictEqual({ parsed: {}, json: '{}' });
    expect(tokenPolicyText({ policy_version: 2 })).toBeUndefined();
    expect(tokenPolicyText({ policy_version: 1 })).toBeUndefined();
  });

  it('leaves to the schema what it cannot be sure of', () => {
    const valid = { limit: true, duration: 60 };
    class Policy {
      playback_policy = valid;
    }
    const inherited = Object.create({ hardware_drm: true }) as Json;
    const polluted = Object.create({ extra: 1 }) as Json;
    polluted['limit'] = true;
    const unsure: unknown[] = [
      new Policy(),
      { playback_policy: polluted },
      { security_policy: inherited },
      { playback_policy: { ...valid, persistent: undefined } },
      { external_key: { ncg: { cek: 'AB'.repeat(32) } } },
      { playback_policy: valid, extra: 1 },
      [],
      'policy',
    ];
    for (const policy of unsure) expect(tokenPolicyText(policy)).toBeUndefined();
  });

  it('reads accessors once, as the schema does, and writes what it read', () => {
    let reads = 0;
    const playback = { limit: true };
    Object.defineProperty(playback, 'duration', {
      get: () => 60 + reads++,
      enumerable: true,
    });
    const text = tokenPolicyText({ playback_policy: playback });
    expect(reads).toBe(1);
    expect(text?.json).toBe('{"playback_policy":{"limit":true,"duration":60}}');
  });

  it('takes objects without a prototype and writes -0 as JSON does', () => {
    const bare = Object.assign(Object.create(null) as Json, { limit: true, duration: -0 });
    expect(expectAgrees({ playback_policy: bare })).toBe(true);
    expect(tokenPolicyText({ playback_policy: bare })?.json).toBe(
      '{"playback_policy":{"limit":true,"duration":0}}',
    );
  });
});
