import * as z from 'zod';
import { mustBe } from './must-be.ts';

export const DRM_TYPES = ['NCG', 'Widevine', 'PlayReady', 'FairPlay'] as const;

export const drmTypeSchema = z.enum(DRM_TYPES, {
  error: mustBe(`one of ${DRM_TYPES.map((t) => `"${t}"`).join(', ')} (exact case)`),
});
export type DrmType = z.infer<typeof drmTypeSchema>;

/** The spec's default when a token does not say. */
export const DEFAULT_DRM_TYPE: DrmType = 'PlayReady';
