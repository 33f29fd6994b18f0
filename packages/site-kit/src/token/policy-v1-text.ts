import { parseTimestamp } from '../schemas/timestamp.ts';
import type { TokenPolicy } from '../schemas/policy.ts';
import { utf8Text } from '../encoding/utf8.ts';
import { isPlainObject, onlyKnown } from '../schemas/plain-object.ts';

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
// format, lower-case hex), so no string needs escaping, and the text is ASCII: the walk writes its
// bytes straight into a buffer. The issuer encrypts those bytes; a text built of pieces would cost a
// token more to flatten and write (about 0.3 us) than the walk itself.

type Json = Record<string, unknown>;

// The bytes of the text being written, from 0 to `at`. The largest text the walk accepts (every
// member, the longest values) is under 700 bytes (a test holds it under CAPACITY), so no write checks
// the room left.
const CAPACITY = 1024;
let at = 0;
// A walk reads members, which may be accessors: one that issues a token while the buffer is in use
// finds the walk busy and takes the schema's path instead of writing over the text.
let busy = false;

// Each writer checks one part of a policy, puts the copy a parse would give in `into[name]`, writes
// the part's JSON text at `at` and says whether it was sure. Copies go straight into their parent: a
// policy costs no wrapper objects.
type ByteWriter = (value: unknown, into: Json, name: string) => boolean;

/** A part writer as text (the gateway's answer takes it so): undefined when not sure. */
export type Writer = (value: unknown, into: Json, name: string) => string | undefined;

const ascii = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

// Made at the first walk, not when the module loads: a bundle that never writes a policy pays nothing.
let out = ascii('');

function put(piece: Uint8Array): void {
  out.set(piece, at);
  at += piece.length;
}

/** ASCII text, byte by byte: for the values (time, hex), shorter than a call to `set` is worth. */
function putText(text: string): void {
  for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
}

/** A safe integer >= 0 as JSON writes it (-0 as 0). */
function putInteger(n: number): void {
  let digits = 1;
  for (let p = 10; p <= n; p *= 10) digits++;
  at += digits;
  let end = at;
  let v = n;
  do {
    const digit = v % 10;
    out[--end] = 48 + digit;
    v = (v - digit) / 10;
  } while (v >= 1);
}

// ASCII is UTF-8: the decoder is the quickest portable way from bytes to text.
function text(): string {
  return utf8Text(out.subarray(0, at));
}

function clear(): void {
  out.fill(0, 0, at);
  at = 0;
}

// A member's text opens with `{"name":` (the first) or `,"name":`, both encoded once here, and a
// boolean member's with its value too: a member then costs one or two copies.
interface Member {
  /** By whether it is the first member. */
  open: readonly [first: Uint8Array, next: Uint8Array];
  /** `true` members, then `false` ones, by whether first. */
  yes: readonly [first: Uint8Array, next: Uint8Array];
  no: readonly [first: Uint8Array, next: Uint8Array];
}
function member(name: string): Member {
  const first = `{"${name}":`;
  const next = `,"${name}":`;
  return {
    open: [ascii(first), ascii(next)],
    yes: [ascii(`${first}true`), ascii(`${next}true`)],
    no: [ascii(`${first}false`), ascii(`${next}false`)],
  };
}
const open = (m: Member, count: number): void => put(m.open[count === 0 ? 0 : 1]);
const putBoolean = (m: Member, count: number, value: boolean): void =>
  put((value ? m.yes : m.no)[count === 0 ? 0 : 1]);
const EMPTY = ascii('{}');
const CLOSE = 0x7d;
const QUOTE = 0x22;
function close(count: number): void {
  if (count === 0) put(EMPTY);
  else out[at++] = CLOSE;
}
function putQuoted(value: string): void {
  out[at++] = QUOTE;
  putText(value);
  out[at++] = QUOTE;
}

const LIMIT = member('limit');
const PERSISTENT = member('persistent');
const DURATION = member('duration');
const EXPIRE_DATE = member('expire_date');
const DISPLAY = member('allow_external_display');
const HDCP = member('control_hdcp');
const HARDWARE = member('hardware_drm');
const OUTPUT_PROTECT = member('output_protect');
const ABNORMAL = member('allow_mobile_abnormal_device');
const LEVEL = member('playready_security_level');
const PLAYBACK_POLICY = member('playback_policy');
const SECURITY_POLICY = member('security_policy');
const EXTERNAL_KEY = member('external_key');
const LEVEL_150 = ascii('150');
const LEVEL_2000 = ascii('2000');

const isSeconds = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const HEX16 = /^[0-9a-f]{32}$/;
const HEX32 = /^[0-9a-f]{64}$/;

const PLAYBACK = new Set(['limit', 'persistent', 'duration', 'expire_date']);

/** `playback_policy` by playbackPolicySchema, the "applied only when" rules included. */
const playbackBytes: ByteWriter = (value, into, name) => {
  if (!isPlainObject(value)) return false;
  const { limit, persistent, duration, expire_date } = value;
  const parsed: Json = {};
  let count = 0;
  if (limit !== undefined) {
    if (typeof limit !== 'boolean') return false;
    parsed['limit'] = limit;
    putBoolean(LIMIT, count, limit);
    count++;
  }
  if (persistent !== undefined) {
    if (typeof persistent !== 'boolean') return false;
    parsed['persistent'] = persistent;
    putBoolean(PERSISTENT, count, persistent);
    count++;
  }
  if (duration !== undefined) {
    if (!isSeconds(duration) || limit !== true) return false;
    parsed['duration'] = duration;
    open(DURATION, count);
    putInteger(duration);
    count++;
  }
  if (expire_date !== undefined) {
    if (typeof expire_date !== 'string' || limit !== true || duration !== undefined) return false;
    if (parseTimestamp(expire_date) === undefined) return false;
    parsed['expire_date'] = expire_date;
    open(EXPIRE_DATE, count);
    putQuoted(expire_date);
    count++;
  }
  if (!onlyKnown(value, count, PLAYBACK)) return false;
  close(count);
  into[name] = parsed;
  return true;
};

const OUTPUT = new Set(['allow_external_display', 'control_hdcp']);

const outputProtectBytes: ByteWriter = (value, into, name) => {
  if (!isPlainObject(value)) return false;
  const { allow_external_display: display, control_hdcp: hdcp } = value;
  const parsed: Json = {};
  let count = 0;
  if (display !== undefined) {
    if (typeof display !== 'boolean') return false;
    parsed['allow_external_display'] = display;
    putBoolean(DISPLAY, count, display);
    count++;
  }
  if (hdcp !== undefined) {
    if (hdcp !== 0 && hdcp !== 1 && hdcp !== 2) return false;
    parsed['control_hdcp'] = hdcp;
    open(HDCP, count);
    out[at++] = 48 + hdcp;
    count++;
  }
  if (!onlyKnown(value, count, OUTPUT)) return false;
  close(count);
  into[name] = parsed;
  return true;
};

const SECURITY = new Set([
  'hardware_drm',
  'output_protect',
  'allow_mobile_abnormal_device',
  'playready_security_level',
]);

/** `security_policy` by securityPolicySchema. */
const securityBytes: ByteWriter = (value, into, name) => {
  if (!isPlainObject(value)) return false;
  const {
    hardware_drm: hardware,
    output_protect: output,
    allow_mobile_abnormal_device: abnormal,
    playready_security_level: level,
  } = value;
  const parsed: Json = {};
  let count = 0;
  if (hardware !== undefined) {
    if (typeof hardware !== 'boolean') return false;
    parsed['hardware_drm'] = hardware;
    putBoolean(HARDWARE, count, hardware);
    count++;
  }
  if (output !== undefined) {
    open(OUTPUT_PROTECT, count);
    if (!outputProtectBytes(output, parsed, 'output_protect')) return false;
    count++;
  }
  if (abnormal !== undefined) {
    if (typeof abnormal !== 'boolean') return false;
    parsed['allow_mobile_abnormal_device'] = abnormal;
    putBoolean(ABNORMAL, count, abnormal);
    count++;
  }
  if (level !== undefined) {
    if (level !== 150 && level !== 2000) return false;
    parsed['playready_security_level'] = level;
    open(LEVEL, count);
    put(level === 150 ? LEVEL_150 : LEVEL_2000);
    count++;
  }
  if (!onlyKnown(value, count, SECURITY)) return false;
  close(count);
  into[name] = parsed;
  return true;
};

/** A writer of an object of hex members (`names` in shape order, each matching `pattern`). */
function hexMembers(names: readonly string[], pattern: RegExp): ByteWriter {
  const known = new Set(names);
  const members = names.map(member);
  return (value, into, name) => {
    if (!isPlainObject(value)) return false;
    const parsed: Json = {};
    let count = 0;
    for (let i = 0; i < names.length; i++) {
      const key = names[i] as string;
      const hex = value[key];
      if (hex === undefined) continue;
      if (typeof hex !== 'string' || !pattern.test(hex)) return false;
      parsed[key] = hex;
      open(members[i] as Member, count);
      putQuoted(hex);
      count++;
    }
    if (!onlyKnown(value, count, known)) return false;
    close(count);
    into[name] = parsed;
    return true;
  };
}

const EXTERNAL: readonly (readonly [string, Member, ByteWriter])[] = [
  ['mpeg_cenc', member('mpeg_cenc'), hexMembers(['key_id', 'key', 'iv'], HEX16)],
  ['hls_aes', member('hls_aes'), hexMembers(['key', 'iv'], HEX16)],
  ['ncg', member('ncg'), hexMembers(['cek'], HEX32)],
];
const EXTERNAL_NAMES = new Set(EXTERNAL.map(([name]) => name));

/** `external_key` by externalKeySchema, lower-case hex only (upper case goes to the schema). */
const externalKeyBytes: ByteWriter = (value, into, name) => {
  if (!isPlainObject(value)) return false;
  const parsed: Json = {};
  let count = 0;
  for (const [key, keyMember, write] of EXTERNAL) {
    const part = value[key];
    if (part === undefined) continue;
    open(keyMember, count);
    if (!write(part, parsed, key)) return false;
    count++;
  }
  if (!onlyKnown(value, count, EXTERNAL_NAMES)) return false;
  close(count);
  into[name] = parsed;
  return true;
};

const TOKEN = new Set(['playback_policy', 'security_policy', 'external_key']);

const tokenBytes = (value: unknown, into: Json, name: string): boolean => {
  if (value === undefined || value === null) {
    put(EMPTY);
    into[name] = {};
    return true;
  }
  if (!isPlainObject(value) || 'policy_version' in value) return false;
  const { playback_policy: playback, security_policy: security, external_key: keys } = value;
  const parsed: Json = {};
  let count = 0;
  if (playback !== undefined) {
    open(PLAYBACK_POLICY, count);
    if (!playbackBytes(playback, parsed, 'playback_policy')) return false;
    count++;
  }
  if (security !== undefined) {
    open(SECURITY_POLICY, count);
    if (!securityBytes(security, parsed, 'security_policy')) return false;
    count++;
  }
  if (keys !== undefined) {
    open(EXTERNAL_KEY, count);
    if (!externalKeyBytes(keys, parsed, 'external_key')) return false;
    count++;
  }
  if (!onlyKnown(value, count, TOKEN)) return false;
  close(count);
  into[name] = parsed;
  return true;
};

/** Runs a byte writer from the buffer's start; the text stays there when it was sure. */
function walk(write: ByteWriter, value: unknown, into: Json, name: string): boolean {
  if (busy) return false;
  if (out.length === 0) out = new Uint8Array(CAPACITY);
  busy = true;
  at = 0;
  let sure = false;
  try {
    sure = write(value, into, name);
    return sure;
  } finally {
    if (!sure) {
      clear();
      busy = false;
    }
  }
}

function asText(write: ByteWriter): Writer {
  return (value, into, name) => {
    if (!walk(write, value, into, name)) return undefined;
    const json = text();
    clearPolicyBytes();
    return json;
  };
}

/** `playback_policy` by playbackPolicySchema, the "applied only when" rules included. */
export const writePlaybackPolicy: Writer = asText(playbackBytes);
/** `security_policy` by securityPolicySchema. */
export const writeSecurityPolicy: Writer = asText(securityBytes);
/** `external_key` by externalKeySchema, lower-case hex only (upper case goes to the schema). */
export const writeExternalKey: Writer = asText(externalKeyBytes);

/** v1 token data checked by the strict rules: the parse's copy and JSON.stringify of it. */
export interface PolicyText {
  parsed: TokenPolicy;
  json: string;
}

/** v1 token data checked by the strict rules: the parse's copy, and the ASCII bytes of its JSON. */
export interface PolicyBytes {
  parsed: TokenPolicy;
  /** A shared buffer, valid until {@link clearPolicyBytes}: the text is `bytes[0, length)`. */
  bytes: Uint8Array;
  length: number;
}

/**
 * The v1 token data (tokenPolicySchema, lower-case hex) and the bytes of its canonical text. No
 * policy (undefined or null) reads as `{}`; a `policy_version` member makes a v2 policy, left to the
 * schema. When it answers, the caller uses the bytes and then calls {@link clearPolicyBytes} (a
 * policy can carry content keys); until then every walk leaves its policy to the schema.
 */
export function tokenPolicyBytes(value: unknown): PolicyBytes | undefined {
  const into: Json = {};
  if (!walk(tokenBytes, value, into, 'p')) return undefined;
  return { parsed: into['p'] as TokenPolicy, bytes: out, length: at };
}

/** Zeroes the text of the last walk and frees the buffer for the next one. */
export function clearPolicyBytes(): void {
  clear();
  busy = false;
}

/** {@link tokenPolicyBytes} as text. */
export function tokenPolicyText(value: unknown): PolicyText | undefined {
  const bytes = tokenPolicyBytes(value);
  if (bytes === undefined) return undefined;
  const json = text();
  clearPolicyBytes();
  return { parsed: bytes.parsed, json };
}
