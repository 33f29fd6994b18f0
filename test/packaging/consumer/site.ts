// The server side of a site outside this repository, written against the packed packages only (the
// packaging test installs the tarballs next to a copy of this file, type-checks it and runs it).
// Argument: JSON {siteId, siteKey, accessKey, cid, userId, drmType, policy, timestamp}.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEmulator } from '@multidrm/emulator';
import {
  createTokenHandler,
  createTokenIssuer,
  toNodeListener,
  verifyLicenseToken,
  type DrmType,
  type TokenPolicy,
} from '@multidrm/site-kit';

interface Input {
  siteId: string;
  siteKey: string;
  accessKey: string;
  cid: string;
  userId: string;
  drmType: DrmType;
  policy: TokenPolicy;
  timestamp: string;
}
const { siteId, siteKey, accessKey, ...playback } = JSON.parse(process.argv[2] ?? '{}') as Input;
const site = { siteId, siteKey, accessKey };

// A token issued directly.
const issuer = createTokenIssuer(site);
console.log(`token ${issuer.issue(playback)}`);

// The site's token endpoint, as the player calls it.
const endpoint = createServer(
  toNodeListener(createTokenHandler({ ...site, authorize: () => ({ allow: true, userId: 'u' }) })),
);
await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
const { port } = endpoint.address() as AddressInfo;
const answer = await fetch(`http://127.0.0.1:${port}/`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ cid: 'movie-1', drm_type: 'Widevine' }),
});
const verified = verifyLicenseToken(await answer.text(), site);
console.log(`endpoint ${answer.status} ${verified.cid} ${verified.drmType}`);
endpoint.close();

// The license-service emulator, for local playback.
const emulator = await startEmulator({ sites: [site], keys: {} });
const health = await fetch(`${emulator.url}/health`);
console.log(`emulator ${health.status}`);
await emulator.close();

export function typeCheckOnly(): string {
  // @ts-expect-error a token needs a cid: the types are the package's own, not `any`
  return issuer.issue({ userId: 'u' });
}
