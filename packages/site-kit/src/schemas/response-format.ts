export const RESPONSE_FORMATS = ['original', 'json', 'custom'] as const;
/** What the license service answers: the license itself, or JSON holding it (`custom` is deprecated). */
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];
