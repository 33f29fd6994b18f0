import { createSecretKey } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { encryptBytesWithKey, encryptWithKey } from '../../src/crypto/aes.ts';
import { createTokenIssuer, type AnyTokenPolicy } from '../../src/index.ts';
import {
  clearPolicyBytes,
  tokenPolicyBytes,
  tokenPolicyText,
} from '../../src/token/policy-v1-text.ts';
import { policyArb } from '../support/arbitraries.ts';
import { TUTO } from '../support/site.ts';

// The issuer encrypts the bytes the v1 policy walk writes into a shared buffer, without a text
// between: the bytes must be the text's, the buffer must hold every policy the walk accepts, be
// zeroed after use, and a walk started while it is in use (an accessor issuing a token) must not
// write over it.
vi.setConfig({ testTimeout: 30_000 });

const TS = '2026-03-01T12:00:00Z';
const issueWith = (issuer: ReturnType<typeof createTokenIssuer>, policy: unknown) =>
  issuer.issue({ cid: 'm', userId: 'u', policy: policy as AnyTokenPolicy, timestamp: TS });

const hex = (n: number) => 'abcdef0123456789'.repeat(8).slice(0, n);
/** Every member, each with its longest value. */
const largest = (playback: Record<string, unknown>) => ({
  playback_policy: playback,
  security_policy: {
    hardware_drm: false,
    output_protect: { allow_external_display: false, control_hdcp: 2 },
    allow_mobile_abnormal_device: false,
    playready_security_level: 2000,
  },
  external_key: {
    mpeg_cenc: { key_id: hex(32), key: hex(32), iv: hex(32) },
    hls_aes: { key: hex(32), iv: hex(32) },
    ncg: { cek: hex(64) },
  },
});

function bytesOf(policy: unknown): { text: string; zeroed: boolean } | undefined {
  const written = tokenPolicyBytes(policy);
  if (written === undefined) return undefined;
  const text = Buffer.from(written.bytes.subarray(0, written.length)).toString('latin1');
  clearPolicyBytes();
  return { text, zeroed: written.bytes.every((b) => b === 0) };
}

describe('the v1 policy bytes', () => {
  it('are the UTF-8 bytes of the policy text, and zero once cleared', () => {
    fc.assert(
      fc.property(policyArb, (policy) => {
        const text = tokenPolicyText(policy);
        const bytes = bytesOf(policy);
        expect(bytes?.text).toBe(text?.json);
        expect(bytes?.zeroed).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('hold the largest policy the walk accepts', () => {
    const longest = [
      { limit: true, persistent: true, duration: Number.MAX_SAFE_INTEGER },
      { limit: true, persistent: false, expire_date: '2026-12-31T23:59:59Z' },
    ];
    for (const playback of longest) {
      const policy = largest(playback);
      expect(bytesOf(policy)?.text).toBe(JSON.stringify(policy));
    }
  });

  it('encrypt to the field the text encrypts to', () => {
    const key = createSecretKey(Buffer.from(TUTO.siteKey));
    fc.assert(
      fc.property(policyArb, (policy) => {
        const written = tokenPolicyBytes(policy)!;
        let field: string;
        try {
          field = encryptBytesWithKey(written.bytes, written.length, key);
        } finally {
          clearPolicyBytes();
        }
        expect(field).toBe(encryptWithKey(tokenPolicyText(policy)!.json, key));
      }),
      { numRuns: 200 },
    );
  });

  it('are zeroed when the walk gives up half way', () => {
    const broken = { ...largest({ limit: true }), extra: 1 };
    expect(tokenPolicyBytes(broken)).toBeUndefined();
    const after = tokenPolicyBytes(undefined)!;
    expect(after.bytes.subarray(after.length).every((b) => b === 0)).toBe(true);
    clearPolicyBytes();
  });

  it('are not written over by a token issued from an accessor during the walk', () => {
    const issuer = createTokenIssuer(TUTO);
    const inner = { playback_policy: { limit: true, duration: 5 } };
    let innerToken = '';
    const security: Record<string, unknown> = { playready_security_level: 150 };
    Object.defineProperty(security, 'hardware_drm', {
      get: () => {
        innerToken = issueWith(issuer, inner);
        return true;
      },
      enumerable: true,
    });
    const outer = { playback_policy: { limit: true, duration: 60 }, security_policy: security };
    const token = issueWith(issuer, outer);
    const plainOuter = {
      playback_policy: { limit: true, duration: 60 },
      security_policy: { hardware_drm: true, playready_security_level: 150 },
    };
    expect(token).toBe(issueWith(createTokenIssuer(TUTO), plainOuter));
    expect(innerToken).toBe(issueWith(createTokenIssuer(TUTO), inner));
  });
});
