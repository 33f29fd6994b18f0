import { decrypt, encrypt } from '../crypto/aes.ts';
import { parse, required, secret } from './args.ts';
import { UsageError, type CliIo } from './io.ts';

export async function crypt(mode: 'encrypt' | 'decrypt', argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parse(argv, { 'site-key': { type: 'string' } }, mode);
  const siteKey = required(
    secret(values, 'site-key', 'MULTIDRM_SITE_KEY', io),
    'site-key',
    'MULTIDRM_SITE_KEY',
  );
  if (positionals.length !== 1) {
    throw new UsageError(
      `give exactly one ${mode === 'encrypt' ? 'TEXT' : 'BASE64'} argument, or - to read standard input`,
    );
  }
  let input = positionals[0] as string;
  if (input === '-') input = (await io.readStdin()).replace(/\r?\n$/, '');
  io.stdout(`${mode === 'encrypt' ? encrypt(input, siteKey) : decrypt(input.trim(), siteKey)}\n`);
}
