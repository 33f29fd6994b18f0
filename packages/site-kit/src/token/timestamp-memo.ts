import { SiteKitError } from '../errors.ts';
import { describeIssues } from '../schemas/issues.ts';
import { formatTimestamp, parseTimestamp, timestampSchema } from '../schemas/timestamp.ts';

/**
 * Turns an issue call's timestamp (text, Date or none = now) into the spec's text. Tokens issued
 * together share their second, so the last answer is kept: checking and formatting a time costs more
 * than hashing the token.
 */
export function createTimestampText(
  now: () => number = Date.now,
): (value?: string | Date) => string {
  let lastText = '';
  let lastSecond = Number.NaN;
  return (value) => {
    if (typeof value === 'string') {
      if (value === lastText) return value;
      if (parseTimestamp(value) === undefined) {
        const error = timestampSchema.safeParse(value).error as NonNullable<
          ReturnType<typeof timestampSchema.safeParse>['error']
        >;
        throw new SiteKitError('INVALID_INPUT', describeIssues(error, 'timestamp'));
      }
      lastSecond = Number.NaN;
      return (lastText = value);
    }
    const ms = value === undefined ? now() : value.getTime();
    const second = Math.floor(ms / 1000);
    if (second !== lastSecond) {
      lastSecond = second;
      lastText = formatTimestamp(second * 1000);
    }
    return lastText;
  };
}
