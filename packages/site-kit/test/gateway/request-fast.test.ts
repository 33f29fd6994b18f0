import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonGatewayRequestSchema, parseJsonGatewayRequest } from '../../src/gateway/request.ts';

// A JSON gateway request is read by hand first and by the schema when the hand is unsure: whatever
// the object, the outcome must be the schema's, down to the order of the members.
function bySchema(value: unknown) {
  const parsed = jsonGatewayRequestSchema.safeParse(value);
  return parsed.success ? { format: 'json', ...parsed.data } : undefined;
}

const order = (value: object) => JSON.stringify(Object.keys(value));
const member = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('', 'Widevine', 'widevine', 'PLAYREADY', 'FairPlay', 'NCG', 'Wiseplay', 'x'),
  fc.constantFrom(undefined, null, 0, 1, true, {}, []),
);
const request = fc.record(
  {
    user_id: member,
    cid: member,
    oid: member,
    nonce: member,
    device_id: member,
    device_type: member,
    drm_type: member,
    extra: member,
  },
  { requiredKeys: [] },
);
const valid = fc.record(
  {
    user_id: fc.string(),
    cid: fc.string({ minLength: 1 }),
    oid: fc.string(),
    nonce: fc.string({ minLength: 1 }),
    device_id: fc.string(),
    device_type: fc.constantFrom('Android', 'iOS', 'Windows', 'OS-X', 'other'),
    drm_type: fc.constantFrom('Widevine', 'playready', 'FAIRPLAY', 'ncg', 'Wiseplay'),
    unknown: fc.jsonValue(),
  },
  { requiredKeys: ['user_id', 'cid', 'nonce', 'drm_type'] },
);

describe('reading a JSON gateway request', () => {
  it('gives what the schema gives, or its refusal', () => {
    fc.assert(
      fc.property(fc.oneof(request, valid), (value) => {
        const expected = bySchema(value);
        const actual = parseJsonGatewayRequest(value);
        expect(actual.success).toBe(expected !== undefined);
        if (actual.success && expected !== undefined) {
          expect(actual.data).toStrictEqual(expected);
          expect(order(actual.data)).toBe(order(expected));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads JSON text, class instances and objects without a prototype as the schema does', () => {
    class Request {
      user_id = 'u';
      cid = 'c';
      nonce = 'n';
      drm_type = 'Widevine';
    }
    const bare = Object.assign(Object.create(null) as object, new Request());
    const texts = ['{"user_id":"u","cid":"c","nonce":"n","drm_type":"widevine","oid":"o"}'];
    for (const value of [new Request(), bare, ...texts.map((t) => JSON.parse(t) as unknown)]) {
      const actual = parseJsonGatewayRequest(value);
      expect(actual.success).toBe(true);
      if (actual.success) expect(order(actual.data)).toBe(order(bySchema(value)!));
      expect(actual.success && actual.data).toStrictEqual(bySchema(value));
    }
  });
});
