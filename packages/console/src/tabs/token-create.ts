import {
  createTokenIssuerAsync,
  describeIssues,
  DRM_TYPES,
  RESPONSE_FORMATS,
  tokenPolicySchema,
  tokenPolicyV2Schema,
  type AnyTokenPolicy,
  type DrmType,
  type HashEncoding,
  type ResponseFormat,
} from '@multidrm/site-kit';
import { area, button, errorText, field, h, select, text, withAction, type Field } from '../dom.ts';
import { memberPath, policyMembers } from '../policy-members.ts';
import { siteFields } from './site-fields.ts';

// Create a token in the page. The rules are site-kit's: the live check is its zod schema, the
// final word its issuer's; each message goes next to the field it names.

const TEMPLATES = {
  v2: '{\n  "policy_version": 2,\n  "playback_policy": { "persistent": false, "license_duration": 3600 }\n}',
  v1: '{\n  "playback_policy": { "limit": true, "persistent": false, "duration": 3600 }\n}',
};

export function tokenCreate(): HTMLElement {
  const site = siteFields('create.');
  const version = field('create.version', 'Token version', select(['v2', 'v1'], 'v2'));
  const cid = field('create.cid', 'Content ID (cid)', text('', 'bigbuckbunny'));
  const userId = field('create.userId', 'User ID', text('', 'LICENSETOKEN (default)'));
  const drmType = field('create.drmType', 'DRM type', select(DRM_TYPES, 'Widevine'));
  const timestamp = field(
    'create.timestamp',
    'Timestamp',
    text('', 'now (or 2026-01-02T03:04:05Z)'),
  );
  const responseFormat = field(
    'create.responseFormat',
    'response_format (v2)',
    select(RESPONSE_FORMATS, 'original'),
  );
  const keyRotation = field('create.keyRotation', 'key_rotation (v2)', select(['false', 'true']));
  const policy = field('create.policy', 'Policy (JSON)', area(TEMPLATES.v2, 8));
  const members = h('table', { class: 'members', 'data-output': 'members' });
  const output = h('pre', { class: 'output', 'data-output': 'create' });
  const fields: Record<string, Field> = {
    siteId: site.siteId,
    siteKey: site.siteKey,
    accessKey: site.accessKey,
    hashEncoding: site.hashEncoding,
    cid,
    userId,
    drmType,
    timestamp,
    responseFormat,
    keyRotation,
    policy,
  };

  version.input.addEventListener('change', () => {
    policy.input.value = version.value() === 'v1' ? TEMPLATES.v1 : TEMPLATES.v2;
    checkPolicy();
  });
  policy.input.addEventListener('input', checkPolicy);
  checkPolicy();

  /** The schema's messages, one per line, while typing. */
  function checkPolicy(): AnyTokenPolicy | undefined {
    let json: unknown;
    try {
      json = JSON.parse(policy.value());
    } catch {
      policy.say('not JSON: check quotes, commas and braces');
      return undefined;
    }
    const schema = version.value() === 'v1' ? tokenPolicySchema : tokenPolicyV2Schema;
    const parsed = schema.safeParse(json);
    policy.say(parsed.success ? undefined : describeIssues(parsed.error, 'policy'));
    const messages = new Map<string, string[]>();
    for (const issue of parsed.success ? [] : parsed.error.issues) {
      const path = memberPath(issue.path);
      messages.set(path, [...(messages.get(path) ?? []), issue.message]);
    }
    showMembers(members, policyMembers(schema), messages);
    return json as AnyTokenPolicy;
  }

  async function create(): Promise<void> {
    for (const f of Object.values(fields)) f.say(undefined);
    output.textContent = '';
    const json = checkPolicy();
    if (json === undefined) return;
    try {
      const issuer = createTokenIssuerAsync({
        siteId: site.siteId.value(),
        siteKey: site.siteKey.value(),
        accessKey: site.accessKey.value(),
        hashEncoding: site.hashEncoding.value() as HashEncoding,
      });
      const v2 = version.value() === 'v2';
      const token = await issuer.issue({
        cid: cid.value(),
        ...(userId.value() ? { userId: userId.value() } : {}),
        drmType: drmType.value() as DrmType,
        ...(timestamp.value() ? { timestamp: timestamp.value() } : {}),
        ...(v2
          ? {
              responseFormat: responseFormat.value() as ResponseFormat,
              keyRotation: keyRotation.value() === 'true',
            }
          : {}),
        policy: json,
      });
      output.textContent = token;
      output.dataset['state'] = 'ok';
    } catch (error) {
      const { code, message } = errorText(error);
      output.dataset['state'] = 'error';
      output.textContent = `${code}: ${message}`;
      place(code, message, fields);
    }
  }

  return h(
    'section',
    { class: 'panel' },
    h('h2', {}, 'Create a token'),
    site.element,
    h(
      'fieldset',
      {},
      h('legend', {}, 'Token'),
      version.row,
      cid.row,
      userId.row,
      drmType.row,
      timestamp.row,
      responseFormat.row,
      keyRotation.row,
      policy.row,
      h('details', {}, h('summary', {}, 'Every policy member, with its message'), members),
    ),
    withAction(button('Create token', 'create'), create),
    output,
  );
}

/** One row per member the schema defines, with the schema's message beside it when it has one. */
function showMembers(
  table: HTMLElement,
  list: { path: string; kind: string }[],
  messages: Map<string, string[]>,
): void {
  table.replaceChildren(
    h('tr', {}, h('th', {}, 'member'), h('th', {}, 'takes'), h('th', {}, 'message')),
    ...list.map(({ path, kind }) => {
      const message = messages.get(path)?.join('; ');
      return h(
        'tr',
        { 'data-member': path, class: message ? 'invalid' : undefined },
        h('td', {}, h('code', {}, `policy.${path}`)),
        h('td', {}, kind),
        h('td', { class: 'message' }, message ?? ''),
      );
    }),
  );
}

/** Puts each part of a site-kit message next to the field it names ("cid: must not be empty"). */
function place(code: string, message: string, fields: Record<string, Field>): void {
  if (code === 'INVALID_SITE_KEY') return fields['siteKey']?.say(message);
  if (code === 'INVALID_ACCESS_KEY') return fields['accessKey']?.say(message);
  if (code === 'INVALID_POLICY') return fields['policy']?.say(message);
  const named = /^(\w+):/.exec(message)?.[1];
  const target = named === undefined ? undefined : fields[named];
  target?.say(message.slice((named?.length ?? 0) + 1).trim());
}
