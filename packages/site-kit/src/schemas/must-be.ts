/**
 * zod error function for a wrong type: "is required" when the member is absent, else
 * "must be <what>, got <kind>". zod does not keep the input on issues, so this is decided here.
 */
export function mustBe(what: string): (issue: { input?: unknown }) => string {
  return (issue) =>
    issue.input === undefined ? 'is required' : `must be ${what}, got ${kindOf(issue.input)}`;
}

/** What a value is, for an error sentence, whatever it is (no JSON.stringify: a bigint or a cycle). */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
