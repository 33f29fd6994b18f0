import * as z from 'zod/mini';
import { mustBe } from './must-be.ts';

/** The canonical spellings, as writers write them; `Wiseplay` comes from the newest builders (2026). */
export const DRM_TYPES = ['NCG', 'Widevine', 'PlayReady', 'FairPlay', 'Wiseplay'] as const;
/** One of {@link DRM_TYPES}. A token without `drm_type` means {@link DEFAULT_DRM_TYPE}. */
export type DrmType = (typeof DRM_TYPES)[number];

const BY_LOWER_CASE = new Map<string, DrmType>(DRM_TYPES.map((t) => [t.toLowerCase(), t]));

/**
 * The canonical spelling of a drm_type written in any case, or undefined for no drm_type at all.
 * The service's own player samples ship demo tokens with `"widevine"`, so readers take any case.
 */
export function canonicalDrmType(value: unknown): DrmType | undefined {
  return typeof value === 'string' ? BY_LOWER_CASE.get(value.toLowerCase()) : undefined;
}

const LIST = DRM_TYPES.map((t) => `"${t}"`).join(', ');

/**
 * A drm_type as readers take it: any case, read as the canonical spelling (which writers write).
 * A reader that must say so (the token reader) compares the input with the output.
 */
export const drmTypeSchema = z.pipe(
  z.string({ error: mustBe(`one of ${LIST}`) }),
  // zod/mini's transform gets the bare parse payload (no addIssue): the issue goes on its list.
  z.transform((value: string, payload): DrmType => {
    const canonical = canonicalDrmType(value);
    if (canonical !== undefined) return canonical;
    payload.issues.push({
      code: 'custom',
      input: value,
      message: `must be one of ${LIST} (any case), got ${JSON.stringify(value.slice(0, 40))}`,
    });
    return z.NEVER;
  }),
);

/** The spec's default when a token does not say. */
export const DEFAULT_DRM_TYPE: DrmType = 'PlayReady';
