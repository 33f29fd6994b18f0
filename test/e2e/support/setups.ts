import type { PlaySetup, SerializableAuthOptions } from '../page/harness-api.ts';
import type { Stack } from './stack.ts';
import { SAMPLE } from './site.ts';

export interface FlowSetup {
  id: string;
  /** Site path of the token (token mode) or custom data (gateway mode) endpoint, query included. */
  tokenPath?: string;
  customDataPath?: string;
  contentId?: string;
  /** Default the sample's manifest. */
  manifestUrl?: string;
  options?: Partial<SerializableAuthOptions>;
  shaka?: PlaySetup['shaka'];
}

/**
 * A player set up as an app would: @multidrm/player with the site's endpoint and the emulator as
 * license server for ClearKey (the key system this browser has; the player sends drm_type Widevine).
 */
export function flowSetup(stack: Stack, setup: FlowSetup): PlaySetup {
  const endpoint =
    setup.tokenPath !== undefined
      ? { tokenUrl: `${stack.site.url}${setup.tokenPath}` }
      : { customDataUrl: `${stack.site.url}${setup.customDataPath ?? '/custom-data'}` };
  return {
    id: setup.id,
    manifestUrl: setup.manifestUrl ?? stack.manifestUrl,
    ...(setup.shaka === undefined ? {} : { shaka: setup.shaka }),
    auth: {
      mode: 'license-auth',
      options: {
        contentId: setup.contentId ?? SAMPLE.cid,
        ...endpoint,
        licenseServer: { 'org.w3.clearkey': stack.licenseUrl },
        ...setup.options,
      },
    },
  };
}
