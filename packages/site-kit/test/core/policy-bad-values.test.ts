import { describe, expect, it } from 'vitest';
import {
  createTokenIssuer,
  createTokenIssuerAsync,
  SiteKitError,
  type TokenPolicy,
} from '../../src/index.ts';
import { failure } from '../support/failure.ts';
import { TUTO } from '../support/site.ts';

// Whatever a site's code puts in a policy (a bigint, a symbol, a function, an object that contains
// itself), issuing answers INVALID_POLICY naming the member, never a raw TypeError or RangeError;
// also for a policy object issued once and changed in place afterwards (the issuer remembers it).

type Json = Record<string, unknown>;
const cyclic = (): Json => {
  const object: Json = { a: 1 };
  object['self'] = object;
  return object;
};
const BAD: [string, () => unknown][] = [
  ['a bigint', () => 1n],
  ['a symbol', () => Symbol('x')],
  ['a function', () => () => 1],
  ['an object that contains itself', cyclic],
  [
    'an array that contains itself',
    () => {
      const array: unknown[] = [];
      array.push(array);
      return array;
    },
  ],
];

const V1 = (): Json => ({ playback_policy: { limit: true, duration: 600 } });
const V2 = (): Json => ({ policy_version: 2, playback_policy: { license_duration: 600 } });
// Where a bad value goes: [base, path].
const PATHS: [() => Json, string[]][] = [
  [V1, ['playback_policy']],
  [V1, ['playback_policy', 'duration']],
  [V1, ['playback_policy', 'limit']],
  [V1, ['security_policy']],
  [V1, ['external_key']],
  [V2, ['policy_version']],
  [V2, ['playback_policy']],
  [V2, ['playback_policy', 'license_duration']],
  [V2, ['playback_policy', 'renewal_duration']],
  [V2, ['security_policy']],
  [V2, ['external_key']],
];

function put(policy: Json, path: string[], value: unknown): Json {
  let target = policy;
  for (const key of path.slice(0, -1)) target = target[key] as Json;
  target[path.at(-1) as string] = value;
  return policy;
}

const site = createTokenIssuer(TUTO);

function expectInvalidPolicy(issue: () => unknown, path: string[]): void {
  const error = failure(issue);
  expect(error).toBeInstanceOf(SiteKitError);
  expect((error as SiteKitError).code).toBe('INVALID_POLICY');
  expect(error.message).toContain(`policy.${path.join('.')}`);
}

describe('a policy with a value JSON has no word for', () => {
  for (const [base, path] of PATHS) {
    for (const [kind, value] of BAD) {
      it(`${kind} at ${path.join('.')} (${base === V1 ? 'v1' : 'v2'}): INVALID_POLICY naming it`, async () => {
        const policy = put(base(), path, value()) as TokenPolicy;
        expectInvalidPolicy(() => site.issue({ cid: 'c', policy }), path);
        // The same object again (the issuer remembers objects it has seen), and changed in place
        // after it was issued once.
        expectInvalidPolicy(() => site.issue({ cid: 'c', policy }), path);
        const fine = base();
        site.issue({ cid: 'c', policy: fine as TokenPolicy });
        put(fine, path, value());
        expectInvalidPolicy(() => site.issue({ cid: 'c', policy: fine as TokenPolicy }), path);
        await expect(
          createTokenIssuerAsync(TUTO).issue({ cid: 'c', policy }),
        ).rejects.toMatchObject({ code: 'INVALID_POLICY' });
      });
    }
  }

  it('names the value: policy_version 1n is "must be 2, got bigint 1"', () => {
    expect(
      failure(() => site.issue({ cid: 'c', policy: { policy_version: 1n } as never })).message,
    ).toBe('policy.policy_version: must be 2, got bigint 1');
  });
});
