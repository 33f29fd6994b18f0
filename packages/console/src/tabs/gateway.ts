import {
  decodeGatewayRequestAsync,
  encodeGatewayAnswerAsync,
  parseCustomDataAsync,
  readCustomDataEnvelope,
  type GatewayAnswer,
  type GatewayRequest,
} from '@multidrm/site-kit';
import { area, button, errorText, field, h, secret, tree, withAction } from '../dom.ts';

// A callback's `data=` value or a player's gateway-mode custom data, read with the site key; and an
// answer built and encrypted as the gateway would send it. site-kit does the reading and writing.

export function gatewayTab(): HTMLElement {
  const key = field('gateway.siteKey', 'Site key', secret('32 characters'));
  const input = field(
    'gateway.input',
    'Callback body or custom data',
    area('', 4),
    'The whole form body (data=...), its data value (URL-encoded or not), or the custom data a player sends.',
  );
  const request = h('div', { class: 'report', 'data-output': 'gateway-request' });
  const answer = field('gateway.answer', 'Answer (JSON, with "format")', area('', 8));
  const encrypted = h('pre', { class: 'output', 'data-output': 'gateway-answer' });

  function fail(target: HTMLElement, error: unknown): void {
    const { code, message } = errorText(error);
    target.replaceChildren(
      h('p', { class: 'verdict refused', 'data-code': code }, `${code}: ${message}`),
    );
  }

  async function readCallback(): Promise<void> {
    request.replaceChildren();
    const value = input.value().trim();
    try {
      // site-kit reads a form body or bare base64; a URL-encoded value alone becomes a form body.
      const body = value.includes('%') && !value.startsWith('data=') ? `data=${value}` : value;
      const read = await decodeGatewayRequestAsync(body, key.value());
      request.replaceChildren(
        h(
          'p',
          { class: 'verdict accepted', 'data-code': 'OK' },
          `A ${read.format.toUpperCase()} gateway request:`,
        ),
        tree(read),
      );
      answer.input.value = JSON.stringify(template(read), null, 2);
    } catch (error) {
      fail(request, error);
    }
  }

  async function readCustomData(): Promise<void> {
    request.replaceChildren();
    const value = input.value().trim();
    try {
      // The envelope needs no key: it is how the license service finds the site.
      const envelope = readCustomDataEnvelope(value);
      const parsed = await parseCustomDataAsync(value, { siteKey: key.value() });
      request.replaceChildren(
        h('p', { class: 'verdict accepted', 'data-code': 'OK' }, 'Gateway-mode custom data:'),
        tree({ envelope, decrypted: parsed }),
      );
    } catch (error) {
      fail(request, error);
    }
  }

  async function encode(): Promise<void> {
    encrypted.textContent = '';
    answer.say(undefined);
    let json: unknown;
    try {
      json = JSON.parse(answer.value());
    } catch {
      return answer.say('not JSON: check quotes, commas and braces');
    }
    try {
      encrypted.textContent = await encodeGatewayAnswerAsync(json as GatewayAnswer, key.value());
    } catch (error) {
      const { code, message } = errorText(error);
      answer.say(`${code}: ${message}`);
    }
  }

  return h(
    'section',
    { class: 'panel' },
    h('h2', {}, 'Gateway messages and custom data'),
    key.row,
    input.row,
    h(
      'div',
      { class: 'actions' },
      withAction(button('Read callback', 'read-callback'), readCallback),
      withAction(button('Read custom data', 'read-custom-data'), readCustomData),
    ),
    request,
    h('h3', {}, 'Answer'),
    answer.row,
    withAction(button('Encrypt answer', 'encode-answer'), encode),
    encrypted,
  );
}

/** An allowing answer to the request just read, to edit. */
function template(request: GatewayRequest): GatewayAnswer {
  return request.format === 'json'
    ? {
        format: 'json',
        error_code: '0000',
        error_message: 'success',
        nonce: request.nonce,
        playback_policy: { limit: true, persistent: false, duration: 3600 },
      }
    : { format: 'xml', ERROR: '0000', ERRMSG: 'success', NONCE: request.nonce, LIMIT: 'N' };
}
