import * as z from 'zod/mini';

/**
 * zod's English wording, for the few schemas that give no message of their own. zod/mini loads no
 * locale and words every such issue "Invalid input"; loading zod's English locale would set it for
 * the whole application (the locale is global). So these schemas keep the words classic zod gave
 * them, and the error texts stay what they were.
 */
export function english(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      const received = z.util.parsedType(issue.input);
      const name =
        received === 'nan'
          ? 'NaN'
          : received === 'number' && !Number.isFinite(issue.input)
            ? String(issue.input)
            : received;
      return `Invalid input: expected ${issue.expected}, received ${name}`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `Invalid input: expected ${z.util.stringifyPrimitive(issue.values[0])}`
        : `Invalid option: expected one of ${z.util.joinValues(issue.values, '|')}`;
    case 'invalid_format':
      return issue.format === 'regex'
        ? `Invalid string: must match pattern ${issue.pattern}`
        : `Invalid ${issue.format}`;
    case 'unrecognized_keys':
      return `Unrecognized key${issue.keys.length > 1 ? 's' : ''}: ${z.util.joinValues(issue.keys, ', ')}`;
    default:
      return 'Invalid input';
  }
}
