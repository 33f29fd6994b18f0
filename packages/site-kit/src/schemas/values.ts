import * as z from 'zod/mini';
import { mustBe } from './must-be.ts';

// Building blocks shared by the v1 and v2 policy schemas. Every refusal names what is allowed.

export const obj = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.strictObject(shape, { error: mustBe('an object') });

export const flag = z.boolean({ error: mustBe('true or false') });

export const seconds = z
  .number({ error: mustBe('a number of seconds') })
  .check(z.int('must be a whole number of seconds'), z.nonnegative('must not be negative'));

export const hex = (bytes: number) =>
  z
    .string({ error: mustBe(`a hex string of ${bytes} bytes`) })
    .check(
      z.regex(
        new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`),
        `must be exactly ${bytes * 2} hex characters (${bytes} bytes)`,
      ),
    );

/** One of a closed list of strings or numbers; the error lists them. */
export const oneOf = <const T extends readonly [string | number, ...(string | number)[]]>(
  values: T,
  meaning?: string,
) =>
  z.literal(values, {
    error: mustBe(
      `one of ${values.map((v) => (typeof v === 'string' ? `"${v}"` : String(v))).join(', ')}${meaning ? ` (${meaning})` : ''}`,
    ),
  });
