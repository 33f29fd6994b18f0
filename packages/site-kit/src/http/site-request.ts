import * as z from 'zod';
import { drmTypeSchema, type DrmType } from '../schemas/drm-type.ts';
import { describeIssues } from '../schemas/issues.ts';
import { mustBe } from '../schemas/must-be.ts';

/** What a player asks the site for: the default protocol's JSON body `{"cid","drm_type"}`. */
export interface PlayerRequest {
  cid: string;
  drmType: DrmType;
}

const bodySchema = z.object(
  {
    cid: z.string({ error: mustBe('a string') }).min(1, 'must not be empty (the content ID)'),
    drm_type: drmTypeSchema,
  },
  { error: mustBe('a JSON object {"cid","drm_type"}') },
);

export type PlayerRequestResult =
  { ok: true; value: PlayerRequest } | { ok: false; reason: string };

/** Reads `{"cid","drm_type"}`; the reason names the field, for a 400 answer. */
export function parsePlayerRequest(text: string): PlayerRequestResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {
      ok: false,
      reason: 'The body must be JSON: {"cid":"<content ID>","drm_type":"<DRM>"}.',
    };
  }
  const parsed = bodySchema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: `${describeIssues(parsed.error, '')}.` };
  return { ok: true, value: { cid: parsed.data.cid, drmType: parsed.data.drm_type } };
}
