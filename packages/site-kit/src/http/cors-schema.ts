import * as z from 'zod/mini';
import { mustBe } from '../schemas/must-be.ts';

/**
 * The CORS option fields the site endpoints and the license proxy both take: an allow-list of exact
 * origins, credentials, and the preflight's cache time. Checked by one schema so the two cannot
 * drift; what each answers with them differs (see http/cors.ts and proxy/cors.ts). `originRule`
 * is each one's own wording of what an origin is (the proxy also names `*`).
 */
export function corsOptionFields(originRule: string) {
  return {
    origins: z.array(
      z
        .string({ error: mustBe('an origin string') })
        .check(z.refine((o) => URL.canParse(o) && new URL(o).origin === o, { error: originRule })),
      { error: mustBe('an array of origins') },
    ),
    credentials: z.optional(z.boolean({ error: mustBe('true or false') })),
    maxAgeSeconds: z.optional(
      z.number({ error: mustBe('a number') }).check(z.int(), z.nonnegative()),
    ),
  };
}
