/// <reference types="vite/client" />
import './style.css';
import { button, h } from './dom.ts';
import { applyState, forget, remember, remembered, shareLink, stateFromFragment } from './share.ts';
import { aesTab } from './tabs/aes.ts';
import { browserTab } from './tabs/browser.ts';
import { gatewayTab } from './tabs/gateway.ts';
import { tokenConvert } from './tabs/token-convert.ts';
import { tokenCreate } from './tabs/token-create.ts';
import { tokenInspect } from './tabs/token-inspect.ts';

// The console: four tabs over site-kit's Web Crypto build. Everything runs in this page. The demo
// mounts it as one of its tabs; ./main.ts mounts it as a page of its own.

const TABS = {
  token: {
    label: 'Token',
    build: () => h('div', {}, tokenCreate(), tokenInspect(), tokenConvert()),
  },
  aes: { label: 'AES', build: aesTab },
  gateway: { label: 'Gateway and custom data', build: gatewayTab },
  browser: { label: 'This browser', build: browserTab },
} as const;
type TabId = keyof typeof TABS;
const isTab = (id: string | undefined): id is TabId => id !== undefined && id in TABS;

export function mountConsole(root: HTMLElement): void {
  root.classList.add('mdc');
  const panels = Object.fromEntries(
    Object.entries(TABS).map(([id, tab]) => {
      const panel = tab.build();
      panel.dataset['tab'] = id;
      return [id, panel];
    }),
  ) as Record<TabId, HTMLElement>;
  const buttons = Object.entries(TABS).map(([id, tab]) => {
    const b = h('button', { type: 'button', role: 'tab', 'data-tab-button': id }, tab.label);
    b.addEventListener('click', () => show(id as TabId));
    return b;
  });
  let current: TabId = 'token';
  function show(id: TabId): void {
    current = id;
    for (const [name, panel] of Object.entries(panels)) panel.hidden = name !== id;
    for (const b of buttons) b.setAttribute('aria-selected', String(b.dataset['tabButton'] === id));
  }

  const link = h('input', { type: 'text', readonly: true, 'data-output': 'share-link' });
  const share = button('Link to these fields (no keys)', 'share');
  share.addEventListener('click', () => {
    link.value = shareLink(root, current);
    link.select();
  });
  const keep = button('Remember fields in this browser (no keys)', 'remember');
  keep.addEventListener('click', () => remember(root));
  const drop = button('Forget', 'forget');
  drop.addEventListener('click', forget);

  root.replaceChildren(
    h(
      'header',
      {},
      h('h1', {}, 'multidrm console'),
      h(
        'p',
        { class: 'note' },
        'Tokens, AES, gateway messages and this browser’s DRM, computed in this page: no request leaves it, nothing is stored unless you ask.',
      ),
      h('nav', { role: 'tablist' }, ...buttons),
    ),
    ...Object.values(panels),
    h('footer', {}, share, link, keep, drop),
  );
  applyState(root, remembered());
  const fragment = stateFromFragment();
  applyState(root, fragment.state);
  show(isTab(fragment.tab) ? fragment.tab : 'token');
}
