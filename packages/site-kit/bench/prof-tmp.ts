import { createTokenIssuer } from '../src/index.ts';
import { compare } from './measure.ts';
const issuer = createTokenIssuer({
  siteId: 'TUTO',
  siteKey: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC',
  accessKey: 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20',
});
const p = issuer.preparePolicy({
  playback_policy: { limit: true, persistent: false, duration: 5 },
  security_policy: {
    hardware_drm: false,
    output_protect: { control_hdcp: 1 },
    playready_security_level: 150,
  },
});
compare(
  {
    a: () =>
      issuer.issue({
        cid: 'movie',
        userId: 'user',
        drmType: 'Widevine',
        policy: p,
        timestamp: '2026-01-02T03:04:05Z',
      }),
  },
  { rounds: 30 },
);
