import { ERROR_CODES } from '@multidrm/emulator';
import { DRM_TYPE_REFUSAL_CODE, TOKEN_REFUSAL_CODES } from '@multidrm/site-kit/token';
import { describe, expect, it } from 'vitest';

// The console tells a site which refusal code the license service would send for a token; the
// emulator is what sends it in tests. The two tables must say the same.
describe('the refusal codes site-kit reports for a token', () => {
  it('are the codes the emulator answers for the same failures', () => {
    const emulatorReason = {
      MALFORMED_TOKEN: 'MALFORMED_TOKEN',
      INVALID_FIELD: 'INVALID_TOKEN_FIELD',
      HASH_MISMATCH: 'HASH_MISMATCH',
      TOKEN_EXPIRED: 'TOKEN_EXPIRED',
      TOKEN_NOT_YET_VALID: 'TOKEN_NOT_YET_VALID',
      DECRYPT_FAILED: 'TOKEN_DECRYPT_FAILED',
      INVALID_POLICY: 'INVALID_POLICY',
      SITE_MISMATCH: 'UNKNOWN_SITE',
    } as const;
    for (const [code, reason] of Object.entries(emulatorReason)) {
      expect(TOKEN_REFUSAL_CODES[code as keyof typeof TOKEN_REFUSAL_CODES]?.code, code).toBe(
        ERROR_CODES[reason].serviceCode,
      );
    }
    expect(Object.keys(TOKEN_REFUSAL_CODES).sort()).toEqual(Object.keys(emulatorReason).sort());
    expect(DRM_TYPE_REFUSAL_CODE).toBe(ERROR_CODES.INVALID_DRM_TYPE.serviceCode);
  });
});
