// zod compiles its object parsers with `new Function` where it may, and finds out by trying once.
// The page's CSP allows no eval, so that try is refused, and Chromium logs the refusal as an error
// in the console of every visitor. zod reads `jitless` from this global (its `z.config`), created
// before zod loads: this module is imported first, so zod never tries.
const scope = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
scope.__zod_globalConfig = { ...scope.__zod_globalConfig, jitless: true };

export {};
