import { convertPolicyToV2 } from '@multidrm/site-kit';
import { area, button, errorText, field, h, withAction } from '../dom.ts';

// v1 token data to the v2 policy that means the same, with site-kit's warning for every rule v2
// cannot say exactly.

export function tokenConvert(): HTMLElement {
  const v1 = field(
    'convert.policy',
    'v1 token data (JSON)',
    area('{"playback_policy":{"limit":true,"persistent":false,"duration":3600}}', 4),
  );
  const output = h('pre', { class: 'output', 'data-output': 'convert' });
  const warnings = h('ul', { 'data-output': 'convert-warnings' });

  async function convert(): Promise<void> {
    v1.say(undefined);
    warnings.replaceChildren();
    output.textContent = '';
    let json: unknown;
    try {
      json = JSON.parse(v1.value());
    } catch {
      return v1.say('not JSON: check quotes, commas and braces');
    }
    try {
      const result = convertPolicyToV2(json as Parameters<typeof convertPolicyToV2>[0]);
      output.textContent = JSON.stringify(result.policy, null, 2);
      warnings.replaceChildren(...result.warnings.map((w) => h('li', {}, w)));
    } catch (error) {
      const { code, message } = errorText(error);
      v1.say(`${code}: ${message}`);
    }
  }

  return h(
    'section',
    { class: 'panel' },
    h('h2', {}, 'Convert v1 token data to a v2 policy'),
    v1.row,
    withAction(button('Convert', 'convert'), convert),
    output,
    warnings,
  );
}
