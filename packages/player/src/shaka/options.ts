import type { EngineOptions } from '../engine/options.ts';
import type { DrmInfo, ShakaRequest } from './shaka-types.ts';

export type { FairPlayOptions } from '../engine/options.ts';

/** The cid for a license request, when it depends on the content (FairPlay falls back to `skd://`). */
export type GetContentId = (
  drmInfo: DrmInfo,
  request: ShakaRequest,
) => string | undefined | Promise<string | undefined>;

export interface LicenseAuthOptions extends EngineOptions {
  getContentId?: GetContentId;
  /**
   * How often one DRM session whose license request failed for a passing reason (the site or the
   * network) is started again with `player.retryLicensing()`, when Shaka would otherwise drop it
   * silently (several sessions). Default 1.
   */
  sessionRetries?: number;
}
