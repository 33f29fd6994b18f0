import type { RealServiceInput, RealServiceView } from '../../shared/contract.ts';

export interface RealServiceSettings {
  enabled: boolean;
  licenseUrl: string;
  siteId: string;
  header: string;
  siteKey: string;
  accessKey: string;
}

export const DEFAULT_HEADER = 'x-drm-custom-data';

/**
 * Settings to point the same app at a real license cloud. They live only in main: the renderer can
 * write them, and read back whether the keys are set, never the keys.
 */
export function createRealServiceStore(initial?: Partial<RealServiceSettings>) {
  let settings: RealServiceSettings = {
    enabled: false,
    licenseUrl: '',
    siteId: '',
    header: DEFAULT_HEADER,
    siteKey: '',
    accessKey: '',
    ...initial,
  };
  return {
    get: (): Readonly<RealServiceSettings> => settings,
    view: (): RealServiceView => ({
      enabled: settings.enabled,
      licenseUrl: settings.licenseUrl,
      siteId: settings.siteId,
      header: settings.header,
      siteKeySet: settings.siteKey !== '',
      accessKeySet: settings.accessKey !== '',
    }),
    update(input: RealServiceInput): void {
      settings = {
        enabled: input.enabled,
        licenseUrl: input.licenseUrl,
        siteId: input.siteId,
        header: input.header,
        siteKey: input.siteKey || settings.siteKey,
        accessKey: input.accessKey || settings.accessKey,
      };
    },
  };
}

export type RealServiceStore = ReturnType<typeof createRealServiceStore>;

/** Why the settings cannot be used yet, or undefined when they can. */
export function realServiceProblem(settings: Readonly<RealServiceSettings>): string | undefined {
  const missing = [
    settings.licenseUrl === '' && 'the license URL',
    settings.siteId === '' && 'the site ID',
    Buffer.byteLength(settings.siteKey, 'utf8') !== 32 && 'a 32-character site key',
    settings.accessKey === '' && 'the access key',
  ].filter(Boolean);
  return missing.length === 0 ? undefined : `missing ${missing.join(', ')}`;
}

/**
 * Initial settings from the environment, read by main only: MULTIDRM_LICENSE_URL, MULTIDRM_SITE_ID,
 * MULTIDRM_SITE_KEY, MULTIDRM_ACCESS_KEY, MULTIDRM_HEADER. A license URL turns the real service on.
 */
export function realServiceFromEnv(env: NodeJS.ProcessEnv): Partial<RealServiceSettings> {
  const read = (name: string) => env[name]?.trim() || undefined;
  const settings: Partial<RealServiceSettings> = {};
  const licenseUrl = read('MULTIDRM_LICENSE_URL');
  if (licenseUrl !== undefined) Object.assign(settings, { licenseUrl, enabled: true });
  const siteId = read('MULTIDRM_SITE_ID');
  if (siteId !== undefined) settings.siteId = siteId;
  const siteKey = read('MULTIDRM_SITE_KEY');
  if (siteKey !== undefined) settings.siteKey = siteKey;
  const accessKey = read('MULTIDRM_ACCESS_KEY');
  if (accessKey !== undefined) settings.accessKey = accessKey;
  const header = read('MULTIDRM_HEADER');
  if (header !== undefined) settings.header = header;
  return settings;
}
