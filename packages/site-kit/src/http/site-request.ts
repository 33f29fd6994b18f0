import * as z from 'zod/mini';
import { CID_CONTROL, isPlayerCid, MAX_CID } from '../schemas/content-id.ts';
import { canonicalDrmType, drmTypeSchema, type DrmType } from '../schemas/drm-type.ts';
import { describeIssues } from '../schemas/issues.ts';
import { mustBe } from '../schemas/must-be.ts';
import { isPlainObject } from '../schemas/plain-object.ts';

/** What a player asks the site for: the default protocol's JSON body `{"cid","drm_type"}`. */
export interface PlayerRequest {
  cid: string;
  drmType: DrmType;
}

const bodySchema = z.object(
  {
    cid: z.string({ error: mustBe('a string') }).check(
      z.minLength(1, 'must not be empty (the content ID)'),
      z.maxLength(MAX_CID, `must be at most ${MAX_CID} characters (the content ID)`),
      z.refine(
        (cid) => !CID_CONTROL.test(cid),
        'must not contain control characters (CR, LF, NUL, ...)',
      ),
    ),
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
  const known = readPlain(json);
  if (known !== undefined) return { ok: true, value: known };
  const parsed = bodySchema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: `${describeIssues(parsed.error, '')}.` };
  return { ok: true, value: { cid: parsed.data.cid, drmType: parsed.data.drm_type } };
}

/** The schema's reading of a plain, well-formed body, by hand; undefined leaves it to the schema. */
function readPlain(json: unknown): PlayerRequest | undefined {
  if (!isPlainObject(json)) return undefined;
  const { cid, drm_type } = json as Record<string, unknown>;
  const drmType = canonicalDrmType(drm_type);
  if (typeof cid !== 'string' || !isPlayerCid(cid) || drmType === undefined) return undefined;
  return { cid, drmType };
}
