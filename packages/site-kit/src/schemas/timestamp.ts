import * as z from 'zod';
import { mustBe } from './must-be.ts';

const FORMAT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** Milliseconds since the epoch of a `yyyy-mm-ddThh:mm:ssZ` time, or undefined when it is not a real one. */
export function parseTimestamp(value: string): number | undefined {
  const m = FORMAT.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const date = new Date(ms);
  // Date.UTC rolls 2026-02-30 over to March; a round trip tells real calendar dates from rolled ones.
  const real =
    date.getUTCFullYear() === y &&
    date.getUTCMonth() === mo - 1 &&
    date.getUTCDate() === d &&
    date.getUTCHours() === h &&
    date.getUTCMinutes() === mi &&
    date.getUTCSeconds() === s;
  return real ? ms : undefined;
}

/** `yyyy-mm-ddThh:mm:ssZ` in UTC, whole seconds, as the spec writes times. */
export function formatTimestamp(time: Date | number): string {
  const iso = new Date(time).toISOString();
  return `${iso.slice(0, 19)}Z`;
}

/**
 * Validates a spec time: `yyyy-mm-ddThh:mm:ssZ` in UTC, whole seconds, and a real calendar date (no
 * 2026-02-30).
 */
export const timestampSchema = z.string({ error: mustBe('a string') }).superRefine((value, ctx) => {
  if (parseTimestamp(value) !== undefined) return;
  ctx.addIssue({
    code: 'custom',
    input: value,
    message: FORMAT.test(value)
      ? `must be a real UTC date and time, got "${value}"`
      : `must have the format yyyy-mm-ddThh:mm:ssZ (UTC, whole seconds), got ${JSON.stringify(value)}`,
  });
});
