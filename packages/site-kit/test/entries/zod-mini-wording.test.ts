import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
// Only modules of the token entries' graph: classic zod, which installs its English locale when it
// is loaded, must not be in this file's process, or the wording below would come from it.
import * as webToken from '../../src/web/token.ts';
import { describeIssues } from '../../src/schemas/issues.ts';
import { playbackPolicyV2Schema } from '../../src/schemas/policy-v2.ts';
import { refusalSchema, tokenGrantSchema } from '../../src/http/decision-schemas.ts';
import { issueSchema } from '../../src/token/issue-rules.ts';

// zod/mini loads no locale: an issue whose schema words no message is "Invalid input". The schemas
// that relied on classic zod's English word it themselves (schemas/english.ts), so the errors a site
// sees are the same whether or not anything in its bundle loads classic zod.
const wording = (schema: z.ZodMiniType, value: unknown) => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a refusal');
  return describeIssues(parsed.error, 'x');
};

describe('the token graph words its errors without a zod locale', () => {
  it('runs with no locale loaded (this file reaches no classic zod)', () => {
    expect(Object.keys(webToken)).toContain('createTokenHandler');
    expect(z.config().localeError).toBeUndefined();
  });

  it("keeps classic zod's English for the decision shapes", () => {
    expect(wording(tokenGrantSchema, 'yes')).toBe(
      'x: Invalid input: expected object, received string',
    );
    expect(wording(tokenGrantSchema, { allow: 1 })).toBe('x.allow: Invalid input: expected true');
    expect(wording(refusalSchema, { allow: true, status: 401, reason: 'r' })).toBe(
      'x.allow: Invalid input: expected false',
    );
    expect(wording(refusalSchema, null)).toBe('x: Invalid input: expected object, received null');
    expect(
      (tokenGrantSchema.safeParse({ allow: true, a: 1, b: 2 }).error?.issues ?? []).map(
        (i) => i.message,
      ),
    ).toEqual(['Unrecognized keys: "a", "b"']);
  });

  it("keeps classic zod's English inside unions", () => {
    const nested = (issue: z.core.$ZodIssue | undefined) =>
      issue?.code === 'invalid_union' && issue.errors.flat().map((i) => i.message);
    const renewal = playbackPolicyV2Schema.safeParse({ renewal_duration: '6o' }).error?.issues[0];
    expect(renewal?.message).toBe(
      'must be a whole number of seconds (or a string of digits), got the string "6o"',
    );
    expect(nested(renewal)).toEqual([
      'must be a number of seconds, got the string "6o"',
      'Invalid string: must match pattern /^\\d+$/',
    ]);
    expect(
      nested(playbackPolicyV2Schema.safeParse({ renewal_duration: null }).error?.issues[0]),
    ).toContain('Invalid input: expected string, received null');
    const union = issueSchema.safeParse({ cid: 'c', timestamp: Number.NaN }).error?.issues[0];
    expect(nested(union)).toEqual([
      'Invalid input: expected string, received NaN',
      'Invalid input: expected date, received NaN',
    ]);
  });
});
