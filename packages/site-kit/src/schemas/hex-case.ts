// Hex case in external keys. The service's current builders refuse upper-case hex in key_id, key, iv
// and cek (their error 1040) and the v2 addendum says lower case, while one builder lets it through:
// a writer refuses it, a reader reads it (hex is hex) and says so.

const HEX_MEMBERS = new Set(['key_id', 'key', 'iv', 'cek']);
const UPPER = /[A-F]/;

/** The member paths (`external_key.mpeg_cenc.0.key`) of hex values holding upper-case digits. */
export function upperCaseHexPaths(externalKey: unknown, root = 'external_key'): string[] {
  const found: string[] = [];
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${path}.${i}`));
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const [name, value] of Object.entries(node)) {
      if (typeof value === 'string') {
        if (HEX_MEMBERS.has(name) && UPPER.test(value)) found.push(`${path}.${name}`);
      } else {
        walk(value, `${path}.${name}`);
      }
    }
  };
  walk(externalKey, root);
  return found;
}
