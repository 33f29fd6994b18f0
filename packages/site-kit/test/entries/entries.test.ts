import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as nodeRoot from '../../src/index.ts';
import * as nodeToken from '../../src/token.ts';
import * as nodeGateway from '../../src/gateway.ts';
import * as webRoot from '../../src/web/index.ts';
import * as webToken from '../../src/web/token.ts';
import * as webGateway from '../../src/web/gateway.ts';
import * as nodeProxy from '../../src/proxy.ts';
import * as webProxy from '../../src/web/proxy.ts';

// What each entry loads, read from the sources' import statements: a Worker bundle holds exactly
// the modules its entry reaches, and workerd without nodejs_compat cannot load a node: import.
const pkg = join(import.meta.dirname, '../..');
const src = join(pkg, 'src');
const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  sideEffects: unknown;
  publishConfig: { exports: Record<string, unknown> };
};

/** Every module an entry reaches through value imports, and the packages it imports. */
function graph(entry: string): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (modules.has(file)) return;
    modules.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      let specifier: string | undefined;
      if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) {
        const named = statement.importClause?.namedBindings;
        const onlyTypes =
          statement.importClause?.name === undefined &&
          named !== undefined &&
          ts.isNamedImports(named) &&
          named.elements.every((e) => e.isTypeOnly);
        if (!onlyTypes) specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
      } else if (
        ts.isExportDeclaration(statement) &&
        statement.moduleSpecifier &&
        !statement.isTypeOnly
      ) {
        const named = statement.exportClause;
        const onlyTypes =
          named !== undefined &&
          ts.isNamedExports(named) &&
          named.elements.every((e) => e.isTypeOnly);
        if (!onlyTypes) specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
      }
      if (specifier === undefined) continue;
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else packages.add(specifier);
    }
  };
  visit(join(src, entry));
  return { modules: new Set([...modules].map((m) => relative(src, m))), packages };
}

const webEntries = ['web/index.ts', 'web/token.ts', 'web/gateway.ts', 'web/proxy.ts', 'schemas.ts'];

describe('package.json', () => {
  const web = ['workerd', 'edge-light', 'browser'];
  it.each([
    ['.', 'index.ts', 'web/index.ts'],
    ['./token', 'token.ts', 'web/token.ts'],
    ['./gateway', 'gateway.ts', 'web/gateway.ts'],
    ['./proxy', 'proxy.ts', 'web/proxy.ts'],
  ])(
    'maps %s to the Web Crypto build under workerd, edge-light and browser, else to the Node one',
    (path, nodeFile, webFile) => {
      const entry = manifest.exports[path] as Record<string, string>;
      for (const condition of web) expect(entry[condition]).toBe(`./src/${webFile}`);
      expect(entry['default']).toBe(`./src/${nodeFile}`);
      const published = manifest.publishConfig.exports[path] as Record<
        string,
        { types: string; default: string }
      >;
      for (const condition of web) {
        expect(published[condition]).toEqual({
          types: `./dist/${webFile.replace(/\.ts$/, '.d.ts')}`,
          default: `./dist/${webFile.replace(/\.ts$/, '.js')}`,
        });
      }
      expect(published['default']).toBe(`./dist/${nodeFile.replace(/\.ts$/, '.js')}`);
    },
  );

  it('resolves ./node nowhere but on a server runtime, and ./schemas everywhere', () => {
    const nodeEntry = manifest.exports['./node'] as Record<string, string | null>;
    for (const condition of web) expect(nodeEntry[condition]).toBeNull();
    expect(nodeEntry['default']).toBe('./src/node.ts');
    expect(manifest.exports['./schemas']).toBe('./src/schemas.ts');
  });

  it('declares the package free of side effects', () => {
    expect(manifest.sideEffects).toBe(false);
  });
});

describe('what each entry loads', () => {
  it.each(webEntries)(
    '%s imports no node: module and never names Buffer outside the feature check',
    (entry) => {
      const { modules, packages } = graph(entry);
      expect([...packages].filter((p) => p.startsWith('node:'))).toEqual([]);
      for (const module of modules) {
        if (module === 'encoding/node-buffer.ts') continue;
        const text = readFileSync(join(src, module), 'utf8').replace(
          /\/\/.*$|\/\*[\s\S]*?\*\//gm,
          '',
        );
        expect(text, module).not.toMatch(/\bBuffer\b|\bprocess\./);
      }
    },
  );

  // zod/mini and not zod: classic zod's methods sit on its schemas' prototypes, so a bundle that
  // reaches it takes all of it (about 17 KB gzip more, past the 40 KB a token Worker may weigh).
  it.each(['token.ts', 'web/token.ts'])(
    '%s loads no gateway module, no custom data, no XML parser and no classic zod',
    (entry) => {
      const { modules, packages } = graph(entry);
      expect([...modules].filter((m) => /^(gateway|custom-data|cli)\//.test(m))).toEqual([]);
      expect([...packages].sort()).toEqual(
        entry === 'token.ts' ? ['node:buffer', 'node:crypto', 'zod/mini'] : ['zod/mini'],
      );
    },
  );

  it.each(['proxy.ts', 'web/proxy.ts'])(
    '%s loads no gateway module, no custom data and no XML parser',
    (entry) => {
      const { modules } = graph(entry);
      expect([...modules].filter((m) => /^(gateway|custom-data|cli)\//.test(m))).toEqual([]);
    },
  );

  it('./schemas loads the schemas and their helpers only', () => {
    const { modules, packages } = graph('schemas.ts');
    expect(
      [...modules].filter((m) => !/^(schemas\/|schemas\.ts$|encoding\/|errors\.ts$)/.test(m)),
    ).toEqual([]);
    expect([...packages]).toEqual(['zod/mini']);
  });

  it('./node loads the node:http adapter, not the token or gateway code', () => {
    const { modules } = graph('node.ts');
    expect([...modules].filter((m) => /^(token|gateway|custom-data|crypto)\//.test(m))).toEqual([]);
  });
});

describe('the entries in every runtime', () => {
  const syncOnly = [
    'createTokenIssuer',
    'createLicenseToken',
    'createTokenVerifier',
    'verifyLicenseToken',
    'encrypt',
    'decrypt',
    'encodeGatewayRequest',
    'decodeGatewayRequest',
    'encodeGatewayAnswer',
    'decodeGatewayResponse',
    'createCustomData',
    'parseCustomData',
    'toNodeListener',
    'createWriteBatch',
  ];
  it.each([
    ['the root', nodeRoot, webRoot],
    ['./token', nodeToken, webToken],
    ['./gateway', nodeGateway, webGateway],
    ['./proxy', nodeProxy, webProxy],
  ])(
    '%s exports the same names on Web Crypto, less the synchronous functions',
    (_name, nodeEntry, webEntry) => {
      const nodeNames = Object.keys(nodeEntry).filter((n) => !syncOnly.includes(n));
      expect(Object.keys(webEntry).sort()).toEqual(nodeNames.sort());
    },
  );
});

describe('importing a module does nothing', () => {
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.ts') && !f.startsWith('cli'),
  );
  const allowedNew = new Set(['Map', 'Set', 'WeakMap']);
  it.each(files)(
    '%s runs no statement and makes no object but an empty collection when loaded',
    (file) => {
      const source = ts.createSourceFile(
        file,
        readFileSync(join(src, file), 'utf8'),
        ts.ScriptTarget.Latest,
      );
      const problems: string[] = [];
      const check = (node: ts.Node) => {
        if (
          ts.isNewExpression(node) &&
          !(ts.isIdentifier(node.expression) && allowedNew.has(node.expression.text))
        ) {
          problems.push(`new ${node.expression.getText(source)}`);
        }
        if (ts.isAwaitExpression(node)) problems.push('top-level await');
        if (ts.isFunctionLike(node) || ts.isClassLike(node)) return; // runs when called, not when loaded
        ts.forEachChild(node, check);
      };
      for (const statement of source.statements) {
        if (ts.isExpressionStatement(statement))
          problems.push(statement.getText(source).slice(0, 60));
        else if (ts.isVariableStatement(statement)) check(statement);
      }
      expect(problems).toEqual([]);
    },
  );
});
