import type { Grant } from './authorization.ts';

const NO_OUTPUT_CONTROL =
  'ClearKey has no security levels and no output protection (HDCP, CGMS-A, analog output), so it is not enforced';

/**
 * What the site asked for that a ClearKey license cannot carry: said in the answer's policy and the
 * events, so that nobody takes a played stream as proof that HDCP or a security level was honoured.
 */
export function notEnforced(grant: Grant): string[] {
  const found: string[] = [];
  const security = grant.security;
  if (Array.isArray(security)) {
    security.forEach((entry: unknown, i) => {
      if (entry === null || typeof entry !== 'object') return;
      const { track_type, ...drms } = entry as Record<string, unknown>;
      for (const [drm, settings] of Object.entries(drms)) {
        if (settings === null || typeof settings !== 'object') continue;
        const members = Object.entries(settings as Record<string, unknown>)
          .map(([name, value]) => `${name} ${String(value)}`)
          .join(', ');
        if (members === '') continue;
        found.push(
          `security_policy[${i}] (${String(track_type ?? 'ALL')}).${drm}: ${members}: ${NO_OUTPUT_CONTROL}`,
        );
      }
    });
  } else if (security !== null && typeof security === 'object') {
    const members = describe(security as Record<string, unknown>);
    if (members !== '') found.push(`security_policy: ${members}: ${NO_OUTPUT_CONTROL}`);
  }
  if (grant.outputControl !== undefined) {
    found.push(`PC: ${describe(grant.outputControl)}: ${NO_OUTPUT_CONTROL}`);
  }
  const tracks = grant.playback.allowed_track_types;
  if (tracks !== undefined && tracks !== 'ALL') {
    found.push(
      `playback_policy.allowed_track_types ${tracks}: a ClearKey request does not say which track a key ID is for, so every requested key is issued`,
    );
  }
  for (const path of grant.unusableKeys ?? []) {
    found.push(`${path}: not used, ClearKey takes only mpeg_cenc keys`);
  }
  if (grant.keyRotation === true) {
    found.push(
      'key_rotation true: the emulator issues the keys it has for the cid, without rotation',
    );
  }
  return found;
}

function describe(settings: Record<string, unknown>): string {
  return Object.entries(settings)
    .map(([name, value]) =>
      value !== null && typeof value === 'object'
        ? `${name} {${describe(value as Record<string, unknown>)}}`
        : `${name} ${String(value)}`,
    )
    .join(', ');
}
