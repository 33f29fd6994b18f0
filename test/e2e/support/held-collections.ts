// What an object in the page holds, read the way DevTools' debugger reads it: every Map, Set and
// Array reachable from it through plain objects and the closures of its functions, with its size.
// A handle that keeps something per load shows it as a collection that grows with the loads,
// whatever the garbage collector does with the rest of the page. Functions kept in a collection
// (listeners, callbacks) are counted, not entered: what their closures hold is the app's.
import type { CDPSession, Page } from 'playwright-core';

/** A collection found, by the way it was reached (`load > [[Closure createEngine]] > sessions`). */
export interface HeldCollection {
  path: string;
  kind: 'Map' | 'Set' | 'Array';
  size: number;
}

interface RemoteObject {
  type: string;
  subtype?: string;
  className?: string;
  description?: string;
  objectId?: string;
}
interface Property {
  name: string;
  value?: RemoteObject;
}
interface Properties {
  result: Property[];
  internalProperties?: Property[];
}

const GROUP = 'held-collections';
const KINDS: Record<string, HeldCollection['kind']> = { map: 'Map', set: 'Set', array: 'Array' };
// The closures of named functions (the package's factories: createEngine, attachLicenseAuth, ...)
// and their blocks. An unnamed closure is a bundle's or a compiled player's top level (Shaka's
// holds all of its state), and the page's module and the window hold everything else.
const OWN_SCOPE = /^(Closure \(.+\)|Block|Local)/;
const MAX_DEPTH = 10;

/**
 * Every collection reachable from the value of `expression` in the page, through plain objects
 * (class instances, the players' among them, are not entered) and closure scopes.
 */
export async function heldCollections(page: Page, expression: string): Promise<HeldCollection[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Runtime.evaluate', {
      expression: 'globalThis.__heldCollectionsSeen = new WeakSet()',
    });
    const { result } = (await cdp.send('Runtime.evaluate', {
      expression,
      objectGroup: GROUP,
    })) as { result: RemoteObject };
    const found: HeldCollection[] = [];
    await walk(cdp, result, expression, 0, found);
    return found;
  } finally {
    // The walk's references must not keep what it walked alive.
    await cdp.send('Runtime.releaseObjectGroup', { objectGroup: GROUP }).catch(() => undefined);
    await cdp.detach().catch(() => undefined);
  }
}

/** The page's V8 heap in use once garbage collection no longer frees anything. */
export async function heapUsedAfterGc(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    let used = Infinity;
    for (let round = 0; round < 10; round++) {
      await cdp.send('HeapProfiler.collectGarbage');
      const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
      if (usedSize >= used) return used;
      used = usedSize;
    }
    return used;
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

async function walk(
  cdp: CDPSession,
  value: RemoteObject | undefined,
  path: string,
  depth: number,
  found: HeldCollection[],
): Promise<void> {
  if (!value?.objectId || depth > MAX_DEPTH) return;
  if (value.type !== 'function' && value.type !== 'object') return;
  const kind = value.subtype ? KINDS[value.subtype] : undefined;
  const plain = value.type === 'object' && !value.subtype && value.className === 'Object';
  if (value.type === 'object' && !kind && !plain) return;
  if (!(await firstVisit(cdp, value.objectId))) return;
  const { result, internalProperties = [] } = await propertiesOf(cdp, value.objectId);
  if (kind) {
    const size = Number(/\((\d+)\)/.exec(value.description ?? '')?.[1] ?? 0);
    found.push({ path, kind, size });
    const entries = internalProperties.find((p) => p.name === '[[Entries]]')?.value;
    const items = entries ? await entriesOf(cdp, entries) : result.map((p) => p.value);
    for (const [i, item] of items.entries()) {
      // A function kept in a collection is a callback given to the handle (an app's listener):
      // what its closure holds is the giver's.
      if (item?.type !== 'function') await walk(cdp, item, `${path}[${i}]`, depth + 1, found);
    }
    return;
  }
  for (const property of result) {
    await walk(cdp, property.value, `${path}.${property.name}`, depth + 1, found);
  }
  const scopes = internalProperties.find((p) => p.name === '[[Scopes]]')?.value;
  if (!scopes?.objectId) return;
  const list = await propertiesOf(cdp, scopes.objectId);
  for (const scope of list.result) {
    const name = scope.value?.description ?? '';
    if (!scope.value?.objectId || !OWN_SCOPE.test(name)) continue;
    const variables = await propertiesOf(cdp, scope.value.objectId);
    for (const variable of variables.result) {
      await walk(cdp, variable.value, `${path} > [[${name}]] ${variable.name}`, depth + 1, found);
    }
  }
}

/** The keys and values of a Map's or Set's `[[Entries]]`. */
async function entriesOf(cdp: CDPSession, entries: RemoteObject): Promise<RemoteObject[]> {
  if (!entries.objectId) return [];
  const { result } = await propertiesOf(cdp, entries.objectId);
  const out: RemoteObject[] = [];
  for (const entry of result) {
    if (!entry.value?.objectId || entry.value.subtype !== 'internal#entry') continue;
    const parts = await propertiesOf(cdp, entry.value.objectId);
    for (const part of parts.result) if (part.value) out.push(part.value);
  }
  return out;
}

/** An object's own properties, and its internal ones (`[[Scopes]]`, `[[Entries]]`). */
function propertiesOf(cdp: CDPSession, objectId: string): Promise<Properties> {
  return cdp.send('Runtime.getProperties', {
    objectId,
    ownProperties: true,
  }) as Promise<Properties>;
}

/** Marks the object in the page (a WeakSet: nothing kept alive); false when it was marked before. */
async function firstVisit(cdp: CDPSession, objectId: string): Promise<boolean> {
  const { result } = (await cdp.send('Runtime.callFunctionOn', {
    objectId,
    functionDeclaration: `function () {
      const seen = (globalThis.__heldCollectionsSeen ??= new WeakSet());
      if (seen.has(this)) return false;
      seen.add(this);
      return true;
    }`,
    returnByValue: true,
  })) as { result: { value: boolean } };
  return result.value;
}
