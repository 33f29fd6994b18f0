import { tokenPolicySchema, describeIssues, type TokenPolicy } from '@multidrm/site-kit';
import type { DemoError, Mode, PolicyInput } from '../../shared/contract.ts';

export type PolicyResult = { ok: true; policy: TokenPolicy } | { ok: false; error: DemoError };

/**
 * Turns the page's controls into the spec's policy, checked with the strict rules that a site's
 * token issuer and gateway apply. The content key is added here, in main, when the external key is on.
 */
export function buildPolicy(
  input: PolicyInput,
  mode: Mode,
  contentKey: { kid: string; key: string },
): PolicyResult {
  const playback: NonNullable<TokenPolicy['playback_policy']> = { limit: input.limit };
  if (input.persistent) playback.persistent = true;
  if (input.timeRule === 'duration') playback.duration = input.durationSeconds ?? 0;
  if (input.timeRule === 'expire_date') {
    if (input.expireDate === undefined) {
      return refusal(
        'expire_date is chosen but no date is given.',
        'Enter a date or pick another time rule.',
      );
    }
    playback.expire_date = input.expireDate;
  }
  const policy: TokenPolicy = { playback_policy: playback };
  const security: NonNullable<TokenPolicy['security_policy']> = {};
  if (input.hdcp !== null) security.output_protect = { control_hdcp: input.hdcp };
  if (input.securityLevel !== null) security.playready_security_level = input.securityLevel;
  if (Object.keys(security).length > 0) policy.security_policy = security;
  if (input.externalKey) {
    policy.external_key = { mpeg_cenc: { key_id: contentKey.kid, key: contentKey.key } };
  }

  const parsed = tokenPolicySchema.safeParse(policy);
  if (!parsed.success) {
    return refusal(
      `The policy breaks the spec: ${describeIssues(parsed.error, 'policy')}.`,
      'Turn "limit" on to use a duration or an expire_date, or set the time rule to none.',
    );
  }
  if (mode === 'gateway-xml') {
    const lost: string[] = [];
    if (input.persistent) lost.push('persistent');
    if (input.securityLevel === 2000) lost.push('security level 2000');
    if (lost.length > 0) {
      return refusal(
        `The XML gateway answer (old specification) cannot carry ${lost.join(' or ')}.`,
        'Turn it off, or use the gateway JSON mode.',
      );
    }
    if (input.limit && input.timeRule === 'none') {
      return refusal(
        'The XML gateway answer needs an end of the playback period when limit is on.',
        'Pick a duration or an expire_date, or turn limit off.',
      );
    }
  }
  return { ok: true, policy: parsed.data };
}

function refusal(message: string, fix: string): PolicyResult {
  return { ok: false, error: { code: 'INVALID_POLICY', message, fix } };
}
