import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializeGatewayAnswer } from '../../src/gateway/answer.ts';
import { buildAnswer } from '../../src/gateway/build-answer.ts';
import { gatewayDecisionSchema, type GatewayDecision } from '../../src/gateway/decision.ts';
import { jsonAnswerText } from '../../src/gateway/fast-answer.ts';
import { policyArb } from '../support/arbitraries.ts';

// The JSON answer written by hand must be, whenever it is written, the one the schema, buildAnswer
// and serializeGatewayAnswer write; for any other decision it must leave the answer to them.
function slowText(decision: unknown, nonce: string) {
  const parsed = gatewayDecisionSchema.safeParse(decision);
  if (!parsed.success) return undefined;
  const built = buildAnswer(parsed.data as GatewayDecision, 'json', nonce, 0);
  if (!built.ok) return undefined;
  const d = parsed.data as GatewayDecision;
  return {
    allow: d.allow,
    error_code: d.allow ? '0000' : d.error_code,
    text: serializeGatewayAnswer(built.answer),
  };
}

function expectAgrees(decision: unknown, nonce: string): boolean {
  const fast = jsonAnswerText(decision, nonce);
  if (fast === undefined) return false;
  expect(fast).toStrictEqual(slowText(decision, nonce));
  return true;
}

const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('', '"', '\\', '\u0000', '\ud800', 'é'),
);
const odd = fc.constantFrom(undefined, null, 0, true, {}, [], 'x', '0000', '4031', 'ABCD');
const allow = fc
  .tuple(policyArb, fc.option(fc.oneof(text, odd), { nil: undefined }), fc.nat(9))
  .map(([policy, userId, extra]) => {
    const decision: Record<string, unknown> = {
      allow: true,
      playback_policy: policy.playback_policy ?? {},
      ...policy,
    };
    delete decision['playback_policy'];
    decision['playback_policy'] = policy.playback_policy ?? {};
    if (userId !== undefined) decision['response_user_id'] = userId;
    if (extra === 0) decision['xml'] = { cgms_a: 1 };
    if (extra === 1) decision['unknown'] = 1;
    if (extra === 2) delete decision['playback_policy'];
    if (extra === 3) decision['playback_policy'] = { limit: false, duration: 5 };
    if (extra === 4 && decision['external_key'] !== undefined)
      decision['external_key'] = { ncg: { cek: 'AB'.repeat(32) } };
    return decision;
  });
const refuse = fc.record(
  {
    allow: fc.constantFrom(false, 'false', 0),
    error_code: fc.oneof(fc.stringMatching(/^\d{1,6}$/), odd, text),
    error_message: fc.oneof(text, odd),
    extra: odd,
  },
  { requiredKeys: ['allow', 'error_code', 'error_message'] },
);

describe('the JSON answer written by hand', () => {
  it('is the schema path answer, or none', () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.oneof(allow, refuse), text, (decision, nonce) => {
        if (expectAgrees(decision, nonce)) answered++;
      }),
      { numRuns: 2000 },
    );
    expect(answered).toBeGreaterThan(200);
  });

  it('answers the usual decisions', () => {
    const nonce = 'n"\\';
    expect(
      expectAgrees({ allow: true, playback_policy: { limit: true, duration: 60 } }, nonce),
    ).toBe(true);
    expect(
      expectAgrees({ allow: false, error_code: '4031', error_message: 'no "rights"' }, nonce),
    ).toBe(true);
    expect(
      jsonAnswerText({ allow: false, error_code: '0000', error_message: 'x' }, nonce),
    ).toBeUndefined();
    expect(jsonAnswerText({ allow: true, playback_policy: {}, xml: {} }, nonce)).toBeUndefined();
    expect(
      jsonAnswerText(
        Object.assign(Object.create({ allow: true }) as object, { playback_policy: {} }),
        nonce,
      ),
    ).toBeUndefined();
  });
});
