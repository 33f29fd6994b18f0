/** The v2 token's `response_format` values; leaving the member out means `original`. */
export const RESPONSE_FORMATS = ['original', 'json', 'custom'] as const;
/** What the license service answers: the license itself, or JSON holding it (`custom` is deprecated). */
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];
