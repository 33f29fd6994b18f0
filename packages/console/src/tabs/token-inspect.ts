import {
  formatTimestamp,
  inspectLicenseTokenAsync,
  parseTimestamp,
  type HashEncoding,
  type TokenInspection,
} from '@multidrm/site-kit';
import { area, button, errorText, field, h, text, tree, withAction } from '../dom.ts';
import { siteFields } from './site-fields.ts';

// Paste a token and the keys: what the license service would make of it, at a glance. The verdict
// is site-kit's (inspectLicenseTokenAsync); this module only lays it out.

export function tokenInspect(): HTMLElement {
  const token = field('inspect.token', 'Token', area('', 4));
  const site = siteFields(
    'inspect.',
    'Optional: the site these keys belong to (a token for another site is refused). Keys empty: the token is only read.',
  );
  const now = field('inspect.now', 'Now', text('', 'this clock (or 2026-01-02T03:04:05Z)'));
  const validity = field('inspect.validity', 'Validity (s)', text('600'));
  const skew = field('inspect.skew', 'Clock skew (s)', text('0'));
  const report = h('div', { class: 'report', 'data-output': 'inspect' });

  async function inspect(): Promise<void> {
    report.replaceChildren();
    now.say(undefined);
    const nowMs = now.value()
      ? (parseTimestamp(now.value()) ?? Date.parse(now.value()))
      : Date.now();
    if (Number.isNaN(nowMs)) return now.say('an ISO 8601 time such as 2026-01-02T03:04:05Z');
    try {
      const result = await inspectLicenseTokenAsync(token.value().trim(), {
        ...(site.siteKey.value() ? { siteKey: site.siteKey.value() } : {}),
        ...(site.accessKey.value() ? { accessKey: site.accessKey.value() } : {}),
        ...(site.siteId.value() ? { siteId: site.siteId.value() } : {}),
        now: nowMs,
        validitySeconds: Number(validity.value() || 600),
        clockSkewSeconds: Number(skew.value() || 0),
        hashEncoding: site.hashEncoding.value() as HashEncoding,
      });
      report.replaceChildren(...render(result, Boolean(site.siteKey.value())));
    } catch (error) {
      const { code, message } = errorText(error);
      report.replaceChildren(h('p', { class: 'verdict refused' }, `${code}: ${message}`));
    }
  }

  return h(
    'section',
    { class: 'panel' },
    h('h2', {}, 'Inspect a token'),
    token.row,
    site.element,
    h('fieldset', {}, h('legend', {}, 'Check against'), now.row, validity.row, skew.row),
    withAction(button('Inspect', 'inspect'), inspect),
    report,
  );
}

function render(r: TokenInspection, keyed: boolean): Node[] {
  const out: Node[] = [verdict(r, keyed)];
  if (r.read !== undefined) {
    const f = r.read.fields as unknown as Record<string, unknown>;
    out.push(
      h('h3', {}, `Fields (v${r.read.version})`),
      h(
        'table',
        { 'data-output': 'fields' },
        ...Object.entries(f).map(([k, v]) =>
          h('tr', {}, h('th', {}, k), h('td', {}, h('code', {}, String(v)))),
        ),
      ),
    );
  }
  if (r.hash !== undefined) out.push(hashLine(r.hash));
  if (r.window !== undefined) out.push(windowView(r.window));
  if (r.verified !== undefined) {
    out.push(
      h('h3', {}, 'Decrypted policy'),
      h('div', { 'data-output': 'policy' }, tree(r.verified.policy)),
    );
    if (r.verified.version === 2) {
      out.push(
        h(
          'p',
          { class: 'note' },
          `response_format "${r.verified.responseFormat}", key_rotation ${r.verified.keyRotation}: outside the hash, anyone handling the token can change them unnoticed.`,
        ),
      );
    }
  }
  const warnings = [...(r.read?.warnings ?? []), ...(r.verified?.warnings ?? [])];
  const unique = [...new Set(warnings)];
  if (unique.length > 0) {
    out.push(
      h('h3', {}, 'Warnings'),
      h('ul', { 'data-output': 'warnings' }, ...unique.map((w) => h('li', {}, w))),
    );
  }
  return out;
}

function verdict(r: TokenInspection, keyed: boolean): HTMLElement {
  if (r.error !== undefined && r.refusal === undefined) {
    // No refusal code: the keys or settings given here are unusable, the token was not judged.
    return h(
      'p',
      { class: 'verdict refused', 'data-output': 'verdict', 'data-code': r.error.code },
      h('strong', {}, `Cannot check: ${r.error.code}. `),
      r.error.message,
    );
  }
  if (r.error !== undefined) {
    const code = r.refusal
      ? ` The license service answers errorCode ${r.refusal.code}${r.refusal.own ? " (the project's own code: the service's guide has none)" : ''}.`
      : '';
    return h(
      'p',
      { class: 'verdict refused', 'data-output': 'verdict', 'data-code': r.error.code },
      h('strong', {}, `Refused: ${r.error.code}. `),
      `${r.error.message}${code}`,
    );
  }
  if (r.verified !== undefined) {
    return h(
      'p',
      { class: 'verdict accepted', 'data-output': 'verdict', 'data-code': 'OK' },
      h('strong', {}, 'Accepted: '),
      `the hash matches, the policy decrypts and now is inside the window (valid until ${formatTimestamp(r.verified.expiresAt.getTime())}).`,
    );
  }
  return h(
    'p',
    { class: 'verdict', 'data-output': 'verdict', 'data-code': 'READ' },
    keyed
      ? 'Read only: give both the site key and the access key to verify.'
      : 'Read only: the fields below prove nothing until the site key and access key check them.',
  );
}

function hashLine(hash: {
  expected: HashEncoding;
  matching: HashEncoding | undefined;
}): HTMLElement {
  const text =
    hash.matching === hash.expected
      ? `Hash: matches with the '${hash.expected}' reading this token's version expects.`
      : hash.matching === undefined
        ? `Hash: matches no reading with this access key (expected '${hash.expected}'): wrong access key, or a field changed after hashing.`
        : `Hash: matches the '${hash.matching}' reading, but '${hash.expected}' is expected: the builder used the other hash reading.`;
  return h('p', { 'data-output': 'hash', 'data-matching': hash.matching ?? 'none' }, text);
}

type Window = NonNullable<TokenInspection['window']>;

/** The validity window as a bar from not-before to expiry, with now marked. */
function windowView(w: Window): HTMLElement {
  const start = Math.min(w.notBeforeMs, w.nowMs);
  const end = Math.max(w.expiresMs, w.nowMs);
  const span = Math.max(end - start, 1);
  const pct = (ms: number) => `${(((ms - start) / span) * 100).toFixed(1)}%`;
  const seconds = (ms: number) => Math.round(ms / 1000);
  const where =
    w.nowMs > w.expiresMs
      ? `now is ${seconds(w.nowMs - w.expiresMs)} s after the expiry`
      : w.nowMs < w.notBeforeMs
        ? `now is ${seconds(w.notBeforeMs - w.nowMs)} s before the token becomes valid`
        : `now is inside the window, ${seconds(w.expiresMs - w.nowMs)} s before the expiry`;
  // Positions through the CSSOM, not style attributes: the demo's CSP (style-src 'self') refuses those.
  const valid = h('span', { class: 'valid' });
  valid.style.left = pct(w.notBeforeMs);
  valid.style.width = `calc(${pct(w.expiresMs)} - ${pct(w.notBeforeMs)})`;
  const now = h('span', { class: 'now', title: 'now' });
  now.style.left = pct(w.nowMs);
  const bar = h('div', { class: 'bar' }, valid, now);
  return h(
    'div',
    { class: 'window', 'data-output': 'window' },
    h('h3', {}, 'Validity window'),
    bar,
    h(
      'p',
      {},
      `timestamp ${formatTimestamp(w.issuedMs)}, valid from ${formatTimestamp(w.notBeforeMs)} (skew) until ${formatTimestamp(w.expiresMs)}; now ${formatTimestamp(w.nowMs)}: ${where}.`,
    ),
  );
}
