import { jsonString } from '../token/issue-rules.ts';
import {
  writeExternalKey,
  writePlaybackPolicy,
  writeSecurityPolicy,
} from '../token/policy-v1-text.ts';
import { SUCCESS_CODE } from './answer.ts';
import { isPlainObject, onlyKnown } from '../schemas/plain-object.ts';

// The answer to a JSON request, for the decisions sites usually make, checked and written by hand:
// gatewayDecisionSchema's parse, buildAnswer and serializeGatewayAnswer cost a gateway request as
// much as its crypto. It answers only when sure: anything else (an XML extra, upper-case hex, an
// unknown member, a broken rule) gives undefined and takes the schema's path, which words the
// error. When it answers, the text is the one that path writes (test/gateway/fast-answer.test.ts).

/** A decision checked by hand and the plaintext of its JSON answer. */
export interface JsonAnswerText {
  allow: boolean;
  /** "0000" for allow, else the site's code. */
  error_code: string;
  text: string;
}

type Json = Record<string, unknown>;

const ALLOW = new Set([
  'allow',
  'playback_policy',
  'security_policy',
  'external_key',
  'response_user_id',
]);
const REFUSE = new Set(['allow', 'error_code', 'error_message']);
const DIGITS = /^\d+$/;

/** The decision's JSON answer to a request with this nonce, or undefined when not sure. */
export function jsonAnswerText(decision: unknown, nonce: string): JsonAnswerText | undefined {
  if (!isPlainObject(decision)) return undefined;
  const allow = decision['allow'];
  if (allow === true) return allowText(decision, nonce);
  if (allow === false) return refusalText(decision, nonce);
  return undefined;
}

function allowText(decision: Json, nonce: string): JsonAnswerText | undefined {
  const {
    playback_policy: playback,
    security_policy: security,
    external_key: keys,
    response_user_id: userId,
  } = decision;
  // The copies the writers make are not needed: the text is all the answer is.
  const parts: Json = {};
  const playbackText = writePlaybackPolicy(playback, parts, 'p');
  if (playbackText === undefined) return undefined;
  let count = 2;
  let text = '{"error_code":"0000","error_message":"success"';
  if (userId !== undefined) {
    if (typeof userId !== 'string' || userId.length === 0) return undefined;
    text += `,"response_user_id":${jsonString(userId)}`;
    count++;
  }
  text += `,"playback_policy":${playbackText}`;
  if (security !== undefined) {
    const securityText = writeSecurityPolicy(security, parts, 's');
    if (securityText === undefined) return undefined;
    text += `,"security_policy":${securityText}`;
    count++;
  }
  if (keys !== undefined) {
    const keysText = writeExternalKey(keys, parts, 'k');
    if (keysText === undefined) return undefined;
    text += `,"external_key":${keysText}`;
    count++;
  }
  if (!onlyKnown(decision, count, ALLOW)) return undefined;
  return { allow: true, error_code: SUCCESS_CODE, text: `${text},"nonce":${jsonString(nonce)}}` };
}

function refusalText(decision: Json, nonce: string): JsonAnswerText | undefined {
  const { error_code: code, error_message: message } = decision;
  if (typeof code !== 'string' || !DIGITS.test(code) || code === SUCCESS_CODE) return undefined;
  if (typeof message !== 'string' || message.length === 0) return undefined;
  if (!onlyKnown(decision, 3, REFUSE)) return undefined;
  // A refusal carries the spec's default playback_policy (see REFUSAL_PLAYBACK_POLICY).
  const text = `{"error_code":"${code}","error_message":${jsonString(message)},"playback_policy":{"limit":false,"persistent":false},"nonce":${jsonString(nonce)}}`;
  return { allow: false, error_code: code, text };
}
