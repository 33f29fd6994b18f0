import * as z from 'zod/mini';
import { mustBe } from './must-be.ts';

const FORMAT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** Milliseconds since the epoch of a `yyyy-mm-ddThh:mm:ssZ` time, or undefined when it is not a real one. */
export function parseTimestamp(value: string): number | undefined {
  // Read by character codes: every license verifies one, and the regex's match array, its Number
  // maps and a Date round trip cost more than the rest of reading the token's fields.
  if (value.length !== 20 || !SHAPE.test(value)) return undefined;
  const y = digits(value, 0, 4);
  const mo = digits(value, 5, 2);
  const d = digits(value, 8, 2);
  const h = digits(value, 11, 2);
  const mi = digits(value, 14, 2);
  const s = digits(value, 17, 2);
  // What a Date.UTC round trip accepts: Date.UTC reads years 0-99 as 1900-1999, and rolls a day,
  // hour, minute or second past its end over into the next (2026-02-30 is March 2).
  if (y < 100 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59) {
    return undefined;
  }
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

const SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

function digits(text: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return n;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
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
export const timestampSchema = z.string({ error: mustBe('a string') }).check(
  z.superRefine((value: string, ctx) => {
    if (parseTimestamp(value) !== undefined) return;
    ctx.addIssue({
      code: 'custom',
      input: value,
      message: FORMAT.test(value)
        ? `must be a real UTC date and time, got "${value}"`
        : `must have the format yyyy-mm-ddThh:mm:ssZ (UTC, whole seconds), got ${JSON.stringify(value)}`,
    });
  }),
);
