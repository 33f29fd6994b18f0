import { SiteKitError } from '../errors.ts';
import { parse } from './args.ts';
import { UsageError, type CliIo } from './io.ts';

/**
 * What a refusal code means and what to do about it, for the refusals a site meets once its players
 * renew (issue: renewals on every player). Data, so that a new code is one entry.
 */
interface Explanation {
  title: string;
  /** Where the code comes from: the service's guide, or the project's own (the guide has none). */
  source: string;
  meaning: string[];
  fix: string[];
}

const EXPLANATIONS: Record<string, Explanation> = {
  '6003': {
    title: 'concurrent stream limit reached (STREAM_LIMIT_REACHED)',
    source:
      "the project's own code: the service's public table has none for it; the emulator's errorCodes setting renames it",
    meaning: [
      'The user already has as many streams as the token\'s "max_stream_per_user" allows, and this',
      'license request would start one more. The service counts a stream while its player renews the',
      'license at the renewal interval ("renewal_duration"); a stream that stops renewing stops counting',
      "after that interval plus a grace (the emulator's streamGraceSeconds, default 30 s). A renewal of",
      'a counted stream (same user, same device, same cid) is never refused for the count.',
    ],
    fix: [
      'Viewer: stop playback on another screen, or wait the interval plus the grace after it stopped.',
      'Site, to allow more screens: raise playback_policy.max_stream_per_user in the v2 policy (leave it',
      'out for no limit), e.g.',
      '  multidrm token create --cid CID --policy \'{"policy_version":2,"playback_policy":{"max_stream_per_user":3,"renewal_duration":60}}\'',
      'One screen refused while it plays: its renewals came too late or were not renewals. The player',
      'must renew within renewal_duration (the token endpoint answers x-renewal-interval with it:',
      'createTokenHandler does), each time with a fresh token, from the same device for the same cid.',
      'App: the player reports it as a typed error that names the limit; show "too many screens" and',
      'offer to stop another one. Retrying at once gets 6003 again.',
    ],
  },
  '7011': {
    title: 'token expired (TOKEN_EXPIRED)',
    source: "the service's guide",
    meaning: [
      "The token's timestamp is outside the validity window (600 s after it by default, a few seconds",
      'before it for clock skew). A renewal comes long after the first license: a token reused for it',
      'is refused once the window has passed.',
    ],
    fix: [
      'Give every license request, renewals included, a fresh token from the token endpoint.',
      "Check the site server's clock (NTP): multidrm token inspect TOKEN --now TIME shows the window.",
    ],
  },
  '8711': {
    title: 'playback period over (LICENSE_EXPIRED)',
    source: "the service's guide",
    meaning: [
      'A duration of the policy has run out: license_duration (v1: duration) since the first license',
      'of the stream, playback_duration or rental_duration since the first license of user and cid,',
      'or expire_date. Renewing does not extend them.',
    ],
    fix: [
      'Site: grant a longer duration, or none, in the policy if the viewer may go on; else show that',
      'the rental or the period is over. A fresh token with the same policy is refused again.',
    ],
  },
};

const KNOWN = Object.keys(EXPLANATIONS).join(', ');

/** `multidrm explain CODE`: the code alone, or a refusal answer `{"errorCode":…}` as the player got it. */
export async function explain(argv: string[], io: CliIo): Promise<void> {
  const { positionals } = parse(argv, {}, 'explain');
  if (positionals.length !== 1) {
    throw new UsageError(
      `give exactly one CODE (${KNOWN}), a refusal answer {"errorCode":…}, or - to read standard input`,
    );
  }
  const given = positionals[0] === '-' ? await io.readStdin() : (positionals[0] as string);
  const code = codeOf(given.trim());
  const entry = EXPLANATIONS[code];
  if (entry === undefined) {
    throw new SiteKitError(
      'INVALID_INPUT',
      `no explanation for code ${JSON.stringify(code.slice(0, 20))}: multidrm explains ${KNOWN} (the emulator's README lists every code).`,
    );
  }
  const indent = (lines: string[]) => lines.map((line) => `  ${line}\n`).join('');
  io.stdout(
    `${code}  ${entry.title}\n      ${entry.source}\n\nWhat it means:\n${indent(entry.meaning)}\nHow to fix it:\n${indent(entry.fix)}`,
  );
}

/** The code of a refusal answer (errorCode a string or a number), or the text itself. */
function codeOf(text: string): string {
  if (!text.startsWith('{')) return text;
  try {
    const answer: unknown = JSON.parse(text);
    const code = (answer as { errorCode?: unknown } | null)?.errorCode;
    if (typeof code === 'string' || typeof code === 'number') return String(code);
  } catch {
    // Not JSON: said below, as a code nobody knows.
  }
  throw new SiteKitError(
    'INVALID_INPUT',
    'the refusal answer must be JSON with an errorCode, as the license service sends it: {"errorCode":"6003","message":"…"}.',
  );
}
