import { field, h, secret, select, text, type Field } from '../dom.ts';

// The site's identity and keys, shared by the token forms. Keys are password inputs that nothing
// stores or puts in a link (see ../share.ts).

export interface SiteFields {
  siteId: Field;
  siteKey: Field;
  accessKey: Field;
  hashEncoding: Field;
  element: HTMLElement;
}

export function siteFields(prefix: string, siteIdHint?: string): SiteFields {
  const siteId = field(`${prefix}siteId`, 'Site ID', text('', 'TUTO'), siteIdHint);
  const siteKey = field(`${prefix}siteKey`, 'Site key', secret('32 characters'));
  const accessKey = field(`${prefix}accessKey`, 'Access key', secret('the hash key'));
  const hashEncoding = field(
    `${prefix}hashEncoding`,
    'v1 hash reading',
    select(['hex-text', 'raw-digest'], 'hex-text'),
    "hex-text: the spec's reading (base64 of the upper-case hex digest); raw-digest: base64 of the 32 digest bytes. v2 tokens always use raw-digest.",
  );
  return {
    siteId,
    siteKey,
    accessKey,
    hashEncoding,
    element: h(
      'fieldset',
      {},
      h('legend', {}, 'Site'),
      siteId.row,
      siteKey.row,
      accessKey.row,
      hashEncoding.row,
    ),
  };
}
