import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideWithin, readDecision, readDecisionBySchema } from '../../src/proxy/decision.ts';
import { ProxyFailure } from '../../src/proxy/errors.ts';
import { proxyDrms } from '../../src/proxy/drm.ts';
import { proxyRequestReader, readProxyRequest, readQuery } from '../../src/proxy/request.ts';
import { jsonObject, readAnswer, readAnswerWith } from '../../src/proxy/unwrap.ts';
import type { UpstreamAnswer } from '../../src/proxy/upstream.ts';

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

describe('proxyRequestReader', () => {
  const drms = proxyDrms();
  // Either what was read or the failure thrown, as plain data.
  const outcome = (read: () => unknown) => {
    try {
      return { read: read() };
    } catch (error) {
      return { threw: error };
    }
  };
  const url = fc.oneof(
    fc.constantFrom(
      '/drm/license?drmType=widevine&cid=movie-1',
      '/drm/license?drmType=Widevine&cid=movie-2',
      '/drm/license?drmType=widevine',
      '/drm/license?drmType=ncg&mode=getserverinfo',
      '/drm/license?drmType=clearkey&cid=a%20b',
      '/drm/license?drmType=nope&cid=x',
      '/drm/license?drmType=fairplay&cid=x&cid=y',
      'https://site.example/drm/license?cid=movie-1&drmType=playready',
      `/drm/license?drmType=widevine&cid=${'c'.repeat(200)}&pad=${'p'.repeat(400)}`,
    ),
    fc.string({ maxLength: 30 }).map((q) => `/drm/license?${q}`),
  );
  const method = fc.constantFrom('POST', 'GET', 'PUT', 'OPTIONS');

  it('reads what readProxyRequest reads, the first time and every time after', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(method, url), { maxLength: 40 }), (asks) => {
        const reader = proxyRequestReader(drms);
        for (const [m, u] of [...asks, ...asks]) {
          expect(outcome(() => reader(m, u))).toEqual(outcome(() => readProxyRequest(m, u, drms)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('hands out what it remembers frozen, and stays right past the URLs it keeps', () => {
    const reader = proxyRequestReader(drms);
    const ask = (i: number) => `/drm/license?drmType=widevine&cid=movie-${i}`;
    const first = reader('POST', ask(0));
    expect(Object.isFrozen(first)).toBe(true);
    expect(reader('POST', ask(0))).toBe(first);
    for (let i = 1; i < 600; i++) expect(reader('POST', ask(i)).cid).toBe(`movie-${i}`);
    expect(reader('POST', ask(0))).toEqual({ kind: 'license', drm: first.drm, cid: 'movie-0' });
  });
});

describe('readAnswer', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  // Bodies built from what matters: the two member names, plain and escaped, the values the
  // proxy reads, JSON's punctuation and blanks, and bytes that are not UTF-8.
  const piece = fc.constantFrom(
    '{',
    '}',
    '[',
    ']',
    ':',
    ',',
    ' ',
    '\n',
    '"errorCode"',
    '"license"',
    '"\\u0065rrorCode"',
    '"lic\\u0065nse"',
    '"device_info"',
    '"errorcode"',
    '"licenses"',
    '7011',
    '"7011"',
    '"0a0bFF"',
    '"Q0tDCg=="',
    '""',
    'null',
    '{"x":1}',
    '"\\""',
    'é',
  );
  // Well-formed objects whose names are the ones read, plain or escaped, or others.
  const name = fc.constantFrom(
    '"errorCode"',
    '"\\u0065rrorCode"',
    '"license"',
    '"lic\\u0065nse"',
    '"device_info"',
    '"keys"',
    '"errorcode"',
  );
  const value = fc.constantFrom(
    '7011',
    '"7011"',
    '"0a0bFF"',
    '"Q0tDCg=="',
    '""',
    'null',
    '[]',
    'true',
  );
  const object = fc
    .array(fc.tuple(name, value), { maxLength: 4 })
    .map((members) => bytes(` {${members.map(([n, v]) => `${n}:${v}`).join(',')}}`));
  const body = fc.oneof(
    object,
    fc.array(piece, { maxLength: 14 }).map((p) => bytes(p.join(''))),
    fc.json().map(bytes),
    fc
      .dictionary(fc.constantFrom('errorCode', 'license', 'device_info', 'keys'), fc.jsonValue())
      .map((o) => bytes(JSON.stringify(o))),
    fc.uint8Array({ maxLength: 12 }).map((b) => new Uint8Array([0x7b, ...b])),
  );
  const answer = fc.record({
    status: fc.constantFrom(200, 403, 500),
    contentType: fc.constantFrom(null, 'application/json', 'text/html', 'application/octet-stream'),
    bytes: body,
  }) as fc.Arbitrary<UpstreamAnswer>;

  it('reads every answer as it reads it with every JSON-looking body parsed', () => {
    fc.assert(
      fc.property(
        answer,
        fc.constantFrom('Widevine', 'FairPlay'),
        fc.boolean(),
        (upstream, drmType, unwrap) => {
          expect(readAnswer(upstream, drmType, unwrap)).toEqual(
            readAnswerWith(upstream, drmType, unwrap, jsonObject),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('finds a member whose name is escaped, and leaves a JSON license without either as it came', () => {
    const refusal = bytes('{"\\u0065rrorCode":7011}');
    const read = readAnswer(
      { status: 200, contentType: 'application/json', bytes: refusal },
      'Widevine',
      false,
    );
    expect(read).toMatchObject({ errorCode: '7011' });
    const keys = bytes('{"keys":[{"kty":"oct","k":"Dx4tPEtaaXiHlqW0w9Lh8A"}],"type":"temporary"}');
    const relayed = { status: 200, contentType: 'application/json', bytes: keys };
    expect(readAnswer(relayed, 'Widevine', true)).toEqual({ answer: relayed });
  });
});
