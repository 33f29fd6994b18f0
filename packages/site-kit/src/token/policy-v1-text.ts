import { parseTimestamp } from '../schemas/timestamp.ts';
import type { TokenPolicy } from '../schemas/policy.ts';

// The strict v1 policy rules (schemas/policy.ts) written out by hand for the common, well-formed
// policy: one walk checks it, copies it as the schema's parse would (members in shape order, absent
// ones left out) and writes its JSON text, the text JSON.stringify gives for that copy. A token with
// a new policy object cost a zod parse and a JSON.stringify beyond its crypto; this walk costs less
// than the JSON.stringify alone.
//
// It answers only when it is sure: anything unusual (an unknown or inherited member, a member set to
// undefined, a class instance, upper-case hex, a broken rule) gives undefined, and the caller runs
// the schema, which then accepts it or words the error. So it never accepts what the schema refuses
// and never changes what is written (test/core/policy-v1-text.test.ts holds it to both).
//
// Every value it writes comes from a closed alphabet (booleans, safe integers, the spec's time
// format, lower-case hex), so no string needs escaping.

type Json = Record<string, unknown>;

// Each writer checks one part of a policy, puts the copy a parse would give in `into[name]` and
// returns the part's JSON text, or undefined when not sure. Copies go straight into their parent:
// a policy costs no wrapper objects.
type Writer = (value: unknown, into: Json, name: string) => string | undefined;

function plain(value: unknown): value is Json {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Whether the object's enumerable members (own and inherited, as `for in` sees them) are `count`
 * members all named in `known`: with the shape's members read and counted, nothing else is there.
 */
function onlyKnown(value: Json, count: number, known: ReadonlySet<string>): boolean {
  let seen = 0;
  for (const key in value) {
    if (!known.has(key)) return false;
    seen++;
  }
  return seen === count;
}

// A member's text opens with `{"name":` (the first) or `,"name":`, both written once here: the text
// is then made of few pieces, and writing it (which flattens it) costs half of what it did with a
// piece per comma and name. (Slicing a leading comma off instead would flatten it once per level.)
type Opening = readonly [first: string, next: string];
const opening = (name: string): Opening => [`{"${name}":`, `,"${name}":`];
const open = (member: Opening, count: number): string => member[count === 0 ? 0 : 1];
const close = (json: string, count: number): string => (count === 0 ? '{}' : `${json}}`);

const LIMIT = opening('limit');
const PERSISTENT = opening('persistent');
const DURATION = opening('duration');
const EXPIRE_DATE = opening('expire_date');
const DISPLAY = opening('allow_external_display');
const HDCP = opening('control_hdcp');
const HARDWARE = opening('hardware_drm');
const OUTPUT_PROTECT = opening('output_protect');
const ABNORMAL = opening('allow_mobile_abnormal_device');
const LEVEL = opening('playready_security_level');
const PLAYBACK_POLICY = opening('playback_policy');
const SECURITY_POLICY = opening('security_policy');
const EXTERNAL_KEY = opening('external_key');

const isSeconds = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const HEX16 = /^[0-9a-f]{32}$/;
const HEX32 = /^[0-9a-f]{64}$/;

const PLAYBACK = new Set(['limit', 'persistent', 'duration', 'expire_date']);

/** `playback_policy` by playbackPolicySchema, the "applied only when" rules included. */
export const writePlaybackPolicy: Writer = (value, into, name) => {
  if (!plain(value)) return undefined;
  const { limit, persistent, duration, expire_date } = value;
  const parsed: Json = {};
  let json = '';
  let count = 0;
  if (limit !== undefined) {
    if (typeof limit !== 'boolean') return undefined;
    parsed['limit'] = limit;
    json += open(LIMIT, count) + (limit ? 'true' : 'false');
    count++;
  }
  if (persistent !== undefined) {
    if (typeof persistent !== 'boolean') return undefined;
    parsed['persistent'] = persistent;
    json += open(PERSISTENT, count) + (persistent ? 'true' : 'false');
    count++;
  }
  if (duration !== undefined) {
    if (!isSeconds(duration) || limit !== true) return undefined;
    parsed['duration'] = duration;
    json += open(DURATION, count) + duration;
    count++;
  }
  if (expire_date !== undefined) {
    if (typeof expire_date !== 'string' || limit !== true || duration !== undefined)
      return undefined;
    if (parseTimestamp(expire_date) === undefined) return undefined;
    parsed['expire_date'] = expire_date;
    json += open(EXPIRE_DATE, count) + `"${expire_date}"`;
    count++;
  }
  if (!onlyKnown(value, count, PLAYBACK)) return undefined;
  into[name] = parsed;
  return close(json, count);
};

const OUTPUT = new Set(['allow_external_display', 'control_hdcp']);

const writeOutputProtect: Writer = (value, into, name) => {
  if (!plain(value)) return undefined;
  const { allow_external_display: display, control_hdcp: hdcp } = value;
  const parsed: Json = {};
  let json = '';
  let count = 0;
  if (display !== undefined) {
    if (typeof display !== 'boolean') return undefined;
    parsed['allow_external_display'] = display;
    json += open(DISPLAY, count) + (display ? 'true' : 'false');
    count++;
  }
  if (hdcp !== undefined) {
    if (hdcp !== 0 && hdcp !== 1 && hdcp !== 2) return undefined;
    parsed['control_hdcp'] = hdcp;
    json += open(HDCP, count) + hdcp;
    count++;
  }
  if (!onlyKnown(value, count, OUTPUT)) return undefined;
  into[name] = parsed;
  return close(json, count);
};

const SECURITY = new Set([
  'hardware_drm',
  'output_protect',
  'allow_mobile_abnormal_device',
  'playready_security_level',
]);

/** `security_policy` by securityPolicySchema. */
export const writeSecurityPolicy: Writer = (value, into, name) => {
  if (!plain(value)) return undefined;
  const {
    hardware_drm: hardware,
    output_protect: output,
    allow_mobile_abnormal_device: abnormal,
    playready_security_level: level,
  } = value;
  const parsed: Json = {};
  let json = '';
  let count = 0;
  if (hardware !== undefined) {
    if (typeof hardware !== 'boolean') return undefined;
    parsed['hardware_drm'] = hardware;
    json += open(HARDWARE, count) + (hardware ? 'true' : 'false');
    count++;
  }
  if (output !== undefined) {
    const text = writeOutputProtect(output, parsed, 'output_protect');
    if (text === undefined) return undefined;
    json += open(OUTPUT_PROTECT, count) + text;
    count++;
  }
  if (abnormal !== undefined) {
    if (typeof abnormal !== 'boolean') return undefined;
    parsed['allow_mobile_abnormal_device'] = abnormal;
    json += open(ABNORMAL, count) + (abnormal ? 'true' : 'false');
    count++;
  }
  if (level !== undefined) {
    if (level !== 150 && level !== 2000) return undefined;
    parsed['playready_security_level'] = level;
    json += open(LEVEL, count) + (level === 150 ? '150' : '2000');
    count++;
  }
  if (!onlyKnown(value, count, SECURITY)) return undefined;
  into[name] = parsed;
  return close(json, count);
};

/** A writer of an object of hex members (`names` in shape order, each matching `pattern`). */
function hexMembers(names: readonly string[], pattern: RegExp): Writer {
  const known = new Set(names);
  const openings = names.map(opening);
  return (value, into, name) => {
    if (!plain(value)) return undefined;
    const parsed: Json = {};
    let json = '';
    let count = 0;
    for (let i = 0; i < names.length; i++) {
      const member = names[i] as string;
      const hex = value[member];
      if (hex === undefined) continue;
      if (typeof hex !== 'string' || !pattern.test(hex)) return undefined;
      parsed[member] = hex;
      json += open(openings[i] as Opening, count) + `"${hex}"`;
      count++;
    }
    if (!onlyKnown(value, count, known)) return undefined;
    into[name] = parsed;
    return close(json, count);
  };
}

const EXTERNAL: readonly (readonly [string, Opening, Writer])[] = [
  ['mpeg_cenc', opening('mpeg_cenc'), hexMembers(['key_id', 'key', 'iv'], HEX16)],
  ['hls_aes', opening('hls_aes'), hexMembers(['key', 'iv'], HEX16)],
  ['ncg', opening('ncg'), hexMembers(['cek'], HEX32)],
];
const EXTERNAL_NAMES = new Set(EXTERNAL.map(([name]) => name));

/** `external_key` by externalKeySchema, lower-case hex only (upper case goes to the schema). */
export const writeExternalKey: Writer = (value, into, name) => {
  if (!plain(value)) return undefined;
  const parsed: Json = {};
  let json = '';
  let count = 0;
  for (const [member, memberOpening, write] of EXTERNAL) {
    const part = value[member];
    if (part === undefined) continue;
    const text = write(part, parsed, member);
    if (text === undefined) return undefined;
    json += open(memberOpening, count) + text;
    count++;
  }
  if (!onlyKnown(value, count, EXTERNAL_NAMES)) return undefined;
  into[name] = parsed;
  return close(json, count);
};

const TOKEN = new Set(['playback_policy', 'security_policy', 'external_key']);

/** v1 token data checked by the strict rules: the parse's copy and JSON.stringify of it. */
export interface PolicyText {
  parsed: TokenPolicy;
  json: string;
}

/**
 * The v1 token data (tokenPolicySchema, lower-case hex) and its canonical text. No policy
 * (undefined or null) reads as `{}`; a `policy_version` member makes a v2 policy, left to the schema.
 */
export function tokenPolicyText(value: unknown): PolicyText | undefined {
  if (value === undefined || value === null) return { parsed: {}, json: '{}' };
  if (!plain(value) || 'policy_version' in value) return undefined;
  const { playback_policy: playback, security_policy: security, external_key: keys } = value;
  const parsed: Json = {};
  let json = '';
  let count = 0;
  if (playback !== undefined) {
    const text = writePlaybackPolicy(playback, parsed, 'playback_policy');
    if (text === undefined) return undefined;
    json += open(PLAYBACK_POLICY, count) + text;
    count++;
  }
  if (security !== undefined) {
    const text = writeSecurityPolicy(security, parsed, 'security_policy');
    if (text === undefined) return undefined;
    json += open(SECURITY_POLICY, count) + text;
    count++;
  }
  if (keys !== undefined) {
    const text = writeExternalKey(keys, parsed, 'external_key');
    if (text === undefined) return undefined;
    json += open(EXTERNAL_KEY, count) + text;
    count++;
  }
  if (!onlyKnown(value, count, TOKEN)) return undefined;
  return { parsed: parsed as TokenPolicy, json: close(json, count) };
}
