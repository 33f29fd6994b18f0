import * as z from 'zod';
import { mustBe } from './must-be.ts';

/** The `drm_type` values the license service accepts, in exact case. */
export const DRM_TYPES = ['NCG', 'Widevine', 'PlayReady', 'FairPlay'] as const;

/**
 * Validates a `drm_type` (one of {@link DRM_TYPES}, exact case); the message lists the accepted
 * values.
 */
export const drmTypeSchema = z.enum(DRM_TYPES, {
  error: mustBe(`one of ${DRM_TYPES.map((t) => `"${t}"`).join(', ')} (exact case)`),
});
/** One of {@link DRM_TYPES}. A token without `drm_type` means {@link DEFAULT_DRM_TYPE}. */
export type DrmType = z.infer<typeof drmTypeSchema>;

/** The spec's default when a token does not say. */
export const DEFAULT_DRM_TYPE: DrmType = 'PlayReady';
