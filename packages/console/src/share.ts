// What a link or the browser's storage may hold: the form's harmless fields only. Keys, tokens,
// plaintexts and gateway messages are never written anywhere; a policy with content keys
// (external_key) is left out too.

const SHAREABLE = new Set([
  'create.siteId',
  'create.version',
  'create.cid',
  'create.userId',
  'create.drmType',
  'create.timestamp',
  'create.responseFormat',
  'create.keyRotation',
  'create.hashEncoding',
  'create.policy',
  'inspect.siteId',
  'inspect.now',
  'inspect.validity',
  'inspect.skew',
  'inspect.hashEncoding',
  'convert.policy',
]);

const STORAGE_KEY = 'multidrm-console';

type Inputs = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

function inputs(root: ParentNode): Inputs[] {
  return [...root.querySelectorAll<Inputs>('[data-field]')];
}

/** The shareable fields' values (empty ones left out). */
export function shareableState(root: ParentNode): Record<string, string> {
  const state: Record<string, string> = {};
  for (const input of inputs(root)) {
    const name = input.dataset['field'] ?? '';
    if (!SHAREABLE.has(name) || input.value === '') continue;
    if (input instanceof HTMLInputElement && input.type === 'password') continue;
    if (/external_key/.test(input.value)) continue;
    state[name] = input.value;
  }
  return state;
}

export function applyState(root: ParentNode, state: Record<string, string>): void {
  for (const input of inputs(root)) {
    const name = input.dataset['field'] ?? '';
    const value = state[name];
    if (SHAREABLE.has(name) && value !== undefined) input.value = value;
  }
}

/** A link to this page with the shareable fields in the fragment (never sent to any server). */
export function shareLink(root: ParentNode, tab: string): string {
  const params = new URLSearchParams({ tab, ...shareableState(root) });
  return `${location.origin}${location.pathname}#${params.toString()}`;
}

export function stateFromFragment(): { tab?: string; state: Record<string, string> } {
  const params = new URLSearchParams(location.hash.slice(1));
  const state = Object.fromEntries(params.entries());
  const tab = state['tab'];
  delete state['tab'];
  return tab === undefined ? { state } : { tab, state };
}

/** Only on the user's request ("Remember"). */
export function remember(root: ParentNode): void {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(shareableState(root)));
}

export function forget(): void {
  localStorage.removeItem(STORAGE_KEY);
}

export function remembered(): Record<string, string> {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}');
    return value !== null && typeof value === 'object' ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
}
