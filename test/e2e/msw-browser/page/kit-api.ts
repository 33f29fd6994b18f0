// The contract between the msw test page (in the browser) and its tests (in Node): `window.kit`.
// Everything that crosses is plain JSON, faults included: they are data.
import type { EmulatorConfigInput, FaultInput } from '@multidrm/emulator/msw';

export interface KitSetup {
  /** The license service's config, as the CLI's config file would hold it. */
  config: EmulatorConfigInput;
  faults?: FaultInput[];
  /** The site's credentials, for siteHandlers (token and custom-data endpoints). */
  site: { siteId: string; siteKey: string; accessKey: string };
  manifestUrl: string;
  contentId: string;
  /** token: the player fetches license tokens; gateway: custom data, and the service calls back. */
  mode: 'token' | 'gateway';
}

/** An error as the app sees it: Shaka's code and the one @multidrm/player raised inside it. */
export interface KitError {
  shakaCode: number | undefined;
  name: string | undefined;
  errorCode: string | undefined;
  siteErrorCode: string | undefined;
  message: string | undefined;
}

export interface KitStatus {
  currentTime: number;
  errors: KitError[];
  /** The license service's flow events in the page (type, and errorCode of refusals). */
  flow: { type: string; errorCode?: string; fault?: string }[];
  /** How many tokens or custom data the player asked the site for. */
  credentialsAsked: number;
  /** Whether a service worker controls the page: msw/browser answers through it. */
  controlled: boolean;
}

export interface KitPage {
  start(setup: KitSetup): Promise<{ licenseUrl: string }>;
  status(): KitStatus;
  /** Pauses, seeks to `seconds` and resolves once that frame is on screen, with its media time. */
  showFrame(seconds: number): Promise<number>;
}
