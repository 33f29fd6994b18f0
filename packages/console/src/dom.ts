// A few DOM helpers so each tab reads as its form and its output, without a framework.

type Child = Node | string | null | undefined | false;
type Props = Record<string, string | boolean | undefined>;

/** An element with attributes (boolean true sets an empty attribute) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child) element.append(child);
  return element;
}

/** A labelled input or textarea with a message slot beside it, addressed by `name`. */
export interface Field {
  row: HTMLElement;
  input: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
  message: HTMLElement;
  value(): string;
  say(text: string | undefined): void;
}

export function field(
  name: string,
  label: string,
  input: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement,
  hint?: string,
): Field {
  input.name = name;
  input.id = `f-${name}-${Math.random().toString(36).slice(2, 8)}`;
  input.dataset['field'] = name;
  const message = h('span', { class: 'message', 'data-message': name, role: 'status' });
  const row = h(
    'div',
    { class: 'field' },
    h('label', { for: input.id }, label),
    input,
    hint ? h('small', {}, hint) : null,
    message,
  );
  return {
    row,
    input,
    message,
    value: () => input.value,
    say(text) {
      message.textContent = text ?? '';
      row.classList.toggle('invalid', Boolean(text));
    },
  };
}

export const text = (value = '', placeholder = '') =>
  h('input', { type: 'text', value, placeholder, spellcheck: 'false', autocomplete: 'off' });

export const secret = (placeholder = '') =>
  h('input', { type: 'password', placeholder, spellcheck: 'false', autocomplete: 'off' });

export const area = (value = '', rows = 4) => {
  const element = h('textarea', { rows: String(rows), spellcheck: 'false' });
  element.value = value;
  return element;
};

export function select(options: readonly string[], value?: string): HTMLSelectElement {
  const element = h('select', {}, ...options.map((o) => h('option', { value: o }, o)));
  if (value !== undefined) element.value = value;
  return element;
}

export const button = (label: string, action: string) =>
  h('button', { type: 'button', 'data-action': action }, label);

/** A nested list of a JSON value, so a policy reads as a tree. */
export function tree(value: unknown): HTMLElement {
  if (value === null || typeof value !== 'object') {
    return h('code', {}, JSON.stringify(value) ?? 'undefined');
  }
  const entries = Array.isArray(value)
    ? value.map((v, i) => [`[${i}]`, v] as const)
    : Object.entries(value as Record<string, unknown>);
  return h(
    'ul',
    { class: 'tree' },
    ...entries.map(([k, v]) => h('li', {}, h('span', { class: 'key' }, `${k}: `), tree(v))),
  );
}

/** The sentence of a thrown error: site-kit's code and message, anything else as a bug. */
export function errorText(error: unknown): { code: string; message: string } {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
    return { code: error.code, message: error.message };
  }
  return { code: 'UNEXPECTED', message: error instanceof Error ? error.message : String(error) };
}

/** Runs an async action on click; each action shows its own errors, so none is left unhandled. */
export function withAction(element: HTMLButtonElement, run: () => Promise<void>): HTMLElement {
  element.addEventListener('click', () => {
    void run();
  });
  return element;
}
