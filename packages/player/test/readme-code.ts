// The README's TypeScript blocks as programs a compiler can check, for the README test (against
// src/) and the packaging test (against the packed .d.ts): a block that imports starts a program;
// a block without imports goes on from the program before it (it uses what that one declared), in
// a block scope of its own, so that it may declare a name again.

/** What the examples take from the page around them. */
export const PAGE_DECLARATIONS =
  'declare const video: HTMLVideoElement;\ndeclare const manifestUrl: string;\n' +
  'declare const nextManifestUrl: string;\n' +
  'declare function showMessage(message: string | undefined): void;\n';

/** A browser app's compiler settings, as a Vite app has them. */
export const BROWSER_COMPILER_OPTIONS = {
  target: 'ES2022',
  module: 'ESNext',
  moduleResolution: 'Bundler',
  lib: ['ES2023', 'DOM', 'DOM.Iterable'],
  types: [],
  strict: true,
  noEmit: true,
  skipLibCheck: true,
};

export interface ReadmeProgram {
  /** `readme-<line of its last block>.ts` */
  file: string;
  code: string;
}

export function readmePrograms(readme: string): ReadmeProgram[] {
  const programs: ReadmeProgram[] = [];
  let imports: string[] = [];
  let body = '';
  for (const match of readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)) {
    const lines = (match[1] ?? '').split('\n');
    const own = lines.filter((line) => /^import\b/.test(line));
    const rest = lines.filter((line) => !/^import\b/.test(line)).join('\n');
    if (own.length > 0) {
      imports = own;
      body = rest;
    } else {
      body += `\n{\n${rest}\n}`;
    }
    const line = readme.slice(0, match.index).split('\n').length;
    programs.push({
      file: `readme-${line}.ts`,
      code: `${imports.join('\n')}\n${body}\nexport {};\n`,
    });
  }
  return programs;
}
