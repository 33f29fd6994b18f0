import type { AsyncCrypto } from '../crypto/async-crypto.ts';
import { damaged } from '../crypto/cbc-rules.ts';
import type { SiteKeyInput } from '../crypto/site-key.ts';
import {
  customDataParts,
  customDataText,
  parsedCustomData,
  readCustomDataEnvelope,
  type CustomDataOptions,
  type ParsedCustomData,
} from './custom-data-rules.ts';

/** `createCustomData` on the given crypto. */
export async function createCustomDataWith<K>(
  crypto: AsyncCrypto<K>,
  options: CustomDataOptions,
): Promise<string> {
  const key = crypto.key(options?.siteKey);
  return customDataWithCryptoKey(crypto, options, key);
}

/** `createCustomData` with a key made by `crypto.key`. */
export async function customDataWithCryptoKey<K>(
  crypto: AsyncCrypto<K>,
  options: Omit<CustomDataOptions, 'siteKey'>,
  key: K,
): Promise<string> {
  const parts = customDataParts(options);
  return customDataText(parts, await crypto.encrypt(parts.inner, key));
}

/** `parseCustomData` on the given crypto. */
export async function parseCustomDataWith<K>(
  crypto: AsyncCrypto<K>,
  value: string,
  options: { siteKey: SiteKeyInput },
): Promise<ParsedCustomData> {
  const key = crypto.key(options?.siteKey);
  const envelope = readCustomDataEnvelope(value);
  const opened = await crypto.open(envelope.data, key);
  if (!opened.intact) throw damaged();
  return parsedCustomData(envelope, opened.text);
}
