import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { refusalSchema, tokenGrantSchema } from '../../src/http/decision-schemas.ts';
import { readRefusal } from '../../src/http/site-endpoint.ts';
import { parsePlayerRequest } from '../../src/http/site-request.ts';
import { readGrant } from '../../src/http/token-handler.ts';

// The token endpoint reads the usual decision and body by hand and leaves the rest to the schemas:
// whatever the value, the outcome must be the schema's.
const setMembers = (value: object) =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));

const member = fc.oneof(
  fc.string({ maxLength: 5 }),
  fc.constantFrom(undefined, null, true, false, 0, 401, 403, 500, '', {}, [], 'Widevine', 'ncg'),
);
const grant = fc.record(
  {
    allow: fc.constant(true),
    userId: fc.oneof(fc.string({ minLength: 1 }), fc.constant(undefined)),
    policy: fc.jsonValue(),
    responseFormat: member,
    keyRotation: fc.boolean(),
  },
  { requiredKeys: ['allow'] },
);
const refusal = fc.record(
  {
    allow: fc.constant(false),
    status: fc.constantFrom(401, 403),
    reason: fc.string({ minLength: 1 }),
  },
  { requiredKeys: ['allow', 'status', 'reason'] },
);
const anyDecision = fc.record(
  {
    allow: fc.constantFrom(true, false, 'true', undefined),
    userId: member,
    policy: member,
    responseFormat: member,
    keyRotation: member,
    status: member,
    reason: member,
    extra: member,
  },
  { requiredKeys: [] },
);
const decision = fc.oneof(anyDecision, grant, refusal);

describe('the token endpoint read by hand', () => {
  it('reads a grant as tokenGrantSchema does, or leaves it to the schema', () => {
    let answered = 0;
    fc.assert(
      fc.property(decision, (value) => {
        const fast = readGrant(value);
        if (fast === undefined) return;
        answered++;
        const slow = tokenGrantSchema.safeParse(value);
        expect(slow.success).toBe(true);
        expect(setMembers(fast)).toStrictEqual(setMembers(slow.data!));
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(20);
  });

  it('reads a refusal as refusalSchema does, or leaves it to the schema', () => {
    let answered = 0;
    fc.assert(
      fc.property(decision, (value) => {
        const fast = readRefusal(value);
        if (fast === undefined) return;
        answered++;
        expect(fast).toStrictEqual(refusalSchema.parse(value));
      }),
      { numRuns: 3000 },
    );
    expect(readRefusal({ allow: false, status: 403, reason: 'no' })).toStrictEqual({
      allow: false,
      status: 403,
      reason: 'no',
    });
    expect(answered).toBeGreaterThan(0);
  });

  it('reads the player body by hand only when the schema agrees', () => {
    const body = fc.record({ cid: member, drm_type: member, extra: member }, { requiredKeys: [] });
    fc.assert(
      fc.property(body, (value) => {
        const read = parsePlayerRequest(JSON.stringify(value));
        const valid =
          typeof value.cid === 'string' &&
          value.cid.length > 0 &&
          typeof value.drm_type === 'string' &&
          ['widevine', 'ncg'].includes(value.drm_type.toLowerCase());
        expect(read.ok).toBe(valid);
        if (read.ok) expect(read.value.cid).toBe(value.cid);
      }),
      { numRuns: 1000 },
    );
  });
});
