import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideWithin, readDecision, readDecisionBySchema } from '../../src/proxy/decision.ts';
import { ProxyFailure } from '../../src/proxy/errors.ts';
import { readQuery } from '../../src/proxy/request.ts';

// The license proxy reads a plain query and a plain decision by hand, and the schema or
// URLSearchParams reads the rest; both readings must agree on every input.

const NAMES = ['drmType', 'cid', 'mode', 'drm', ''];

describe('readQuery', () => {
  // Queries built from the pieces that matter: names, separators, escapes, '+', '?', non-ASCII.
  const piece = fc.constantFrom(
    'drmType',
    'cid',
    'mode',
    'drm',
    '=',
    '&',
    '?',
    '+',
    '%',
    '%41',
    '%zz',
    '%E2%82%AC',
    'widevine',
    'movie-1',
    ' ',
    '#',
    'é',
    '\u0000',
    '\ud800',
  );
  const query = fc.oneof(
    fc.array(piece, { maxLength: 12 }).map((p) => p.join('')),
    fc.string(),
  );

  it('reads every name as URLSearchParams does (get and getAll)', () => {
    fc.assert(
      fc.property(query, (text) => {
        const ours = readQuery(text);
        const theirs = new URLSearchParams(text);
        for (const name of NAMES.filter((n) => n !== '')) {
          expect(ours.getAll(name)).toEqual(theirs.getAll(name));
          expect(ours.get(name)).toBe(theirs.get(name));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('splits at the first "=", keeps a bare name as "" and skips empty parts', () => {
    const read = readQuery('&&cid=a=b&drmType&cid=&drmTypeX=1&');
    expect(read.getAll('cid')).toEqual(['a=b', '']);
    expect(read.getAll('drmType')).toEqual(['']);
    expect(read.get('mode')).toBeNull();
  });
});

describe('readDecision', () => {
  const member = fc.oneof(
    fc.constant(undefined),
    fc.boolean(),
    fc.constantFrom(401, 403, 200, 0, '', 'user-1', 'Sign in first.'),
    fc.string({ maxLength: 4 }),
    fc.integer(),
    fc.constant(null),
    fc.constant({ policy_version: 2 }),
    fc.constant('json'),
  );
  const decisionLike = fc.oneof(
    fc.record(
      {
        allow: fc.oneof(fc.boolean(), fc.constant('true')),
        userId: member,
        policy: member,
        responseFormat: member,
        keyRotation: member,
        status: member,
        reason: member,
        other: member,
      },
      { requiredKeys: [] },
    ),
    fc.anything(),
  );

  it('reads a decision as the schema does, or words the same problem', () => {
    fc.assert(
      fc.property(decisionLike, (value) => {
        // Absent and undefined members are the same to the proxy (it reads `=== undefined`).
        const plain = (v: unknown) => (typeof v === 'string' ? v : JSON.parse(JSON.stringify(v)));
        expect(plain(readDecision(value))).toEqual(plain(readDecisionBySchema(value)));
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses a class instance or an extra member through the schema, with its sentence', () => {
    expect(readDecision({ allow: true, extra: 1 })).toMatch(/breaks its shape/);
    expect(readDecision({ allow: false, status: 500, reason: 'x' })).toMatch(/401 or 403/);
    expect(readDecision({ allow: true, userId: '' })).toMatch(/must not be empty/);
  });
});

describe('decideWithin', () => {
  it('returns a decision given at once as it is, not as a promise', () => {
    const decision = { allow: true as const };
    expect(decideWithin(() => decision, 10)).toBe(decision);
  });

  it('lets a synchronous throw through to the caller', () => {
    expect(() =>
      decideWithin(() => {
        throw new Error('no session store');
      }, 10),
    ).toThrow('no session store');
  });

  it('waits for a promise, and rejects one past the deadline with SITE_TIMEOUT', async () => {
    await expect(decideWithin(() => Promise.resolve('late enough'), 1_000)).resolves.toBe(
      'late enough',
    );
    const never = decideWithin(() => new Promise<never>(() => undefined), 5);
    await expect(never).rejects.toBeInstanceOf(ProxyFailure);
    await expect(never).rejects.toMatchObject({ code: 'SITE_TIMEOUT', status: 503 });
  });

  it('takes any thenable as a promise', async () => {
    const thenable: PromiseLike<string> = {
      then: (resolve) => Promise.resolve('thenable').then(resolve),
    };
    const decided = decideWithin(() => thenable, 1_000);
    expect(decided).toBeInstanceOf(Promise);
    await expect(decided).resolves.toBe('thenable');
  });
});
