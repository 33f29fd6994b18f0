import { decryptAsync, encryptAsync } from '@multidrm/site-kit';
import { area, button, errorText, field, h, secret, withAction } from '../dom.ts';

// The spec's AES-256-CBC (IV "0123456789abcdef", PKCS7, base64), as site-kit runs it.

export function aesTab(): HTMLElement {
  const key = field('aes.siteKey', 'Site key', secret('32 characters'));
  const plain = field('aes.plaintext', 'Plain text (UTF-8)', area('', 4));
  const cipher = field('aes.ciphertext', 'Ciphertext (base64)', area('', 4));
  const result = h('p', { class: 'verdict', 'data-output': 'aes' });

  function clear(): void {
    for (const f of [key, plain, cipher]) f.say(undefined);
    result.textContent = '';
    result.className = 'verdict';
  }

  function fail(error: unknown, target: typeof cipher): void {
    const { code, message } = errorText(error);
    if (code === 'INVALID_SITE_KEY') key.say(message);
    else target.say(message);
    result.className = 'verdict refused';
    result.dataset['code'] = code;
    result.textContent = `${code}: ${message}`;
  }

  async function encrypt(): Promise<void> {
    clear();
    try {
      cipher.input.value = await encryptAsync(plain.value(), key.value());
      result.dataset['code'] = 'OK';
      result.textContent = 'Encrypted.';
    } catch (error) {
      fail(error, plain);
    }
  }

  async function decrypt(): Promise<void> {
    clear();
    try {
      plain.input.value = await decryptAsync(cipher.value().trim(), key.value());
      result.dataset['code'] = 'OK';
      result.textContent = 'Decrypted.';
    } catch (error) {
      fail(error, cipher);
    }
  }

  return h(
    'section',
    { class: 'panel' },
    h('h2', {}, 'AES-256-CBC'),
    h(
      'p',
      { class: 'note' },
      'IV "0123456789abcdef", PKCS7 padding, base64, UTF-8; the key is the 32 bytes of the site key.',
    ),
    key.row,
    plain.row,
    h(
      'div',
      { class: 'actions' },
      withAction(button('Encrypt ↓', 'encrypt'), encrypt),
      withAction(button('Decrypt ↑', 'decrypt'), decrypt),
    ),
    cipher.row,
    result,
  );
}
