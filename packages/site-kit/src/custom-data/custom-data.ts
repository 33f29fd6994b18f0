import { decryptWithKey, encryptWithKey } from '../crypto/aes.ts';
import { toAesKey } from '../crypto/aes-key.ts';
import type { SiteKeyInput } from '../crypto/site-key.ts';
import {
  customDataParts,
  customDataText,
  parsedCustomData,
  readCustomDataEnvelope,
  type CustomDataOptions,
  type ParsedCustomData,
} from './custom-data-rules.ts';

export {
  readCustomDataEnvelope,
  type CustomDataEnvelope,
  type CustomDataOptions,
  type ParsedCustomData,
} from './custom-data-rules.ts';

/** Builds the custom data string a player sends with its license request in gateway mode. */
export function createCustomData(options: CustomDataOptions): string {
  const key = toAesKey(options?.siteKey);
  const parts = customDataParts(options);
  return customDataText(parts, encryptWithKey(parts.inner, key));
}

/** Full read with the site's key. Throws SiteKitError INVALID_CUSTOM_DATA or DECRYPT_FAILED. */
export function parseCustomData(
  value: string,
  options: { siteKey: SiteKeyInput },
): ParsedCustomData {
  const key = toAesKey(options?.siteKey);
  const envelope = readCustomDataEnvelope(value);
  return parsedCustomData(envelope, decryptWithKey(envelope.data, key));
}
