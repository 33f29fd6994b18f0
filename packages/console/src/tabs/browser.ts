import { button, h, withAction } from '../dom.ts';
import { probe, type ProbeResult } from '../probe/key-systems.ts';

// This browser, this machine or this Electron build: which DRM it can play at all.

export function browserTab(): HTMLElement {
  const table = h('div', { 'data-output': 'probe' });
  const status = h(
    'p',
    { class: 'note' },
    'Asks requestMediaKeySystemAccess for each row; nothing leaves the page.',
  );

  async function run(): Promise<void> {
    status.textContent = 'Asking…';
    const results = await probe();
    table.replaceChildren(render(results));
    status.textContent = `${navigator.userAgent}`;
    table.dataset['state'] = 'done';
  }

  return h(
    'section',
    { class: 'panel' },
    h('h2', {}, 'What this browser can play'),
    withAction(button('Probe key systems', 'probe'), run),
    status,
    table,
  );
}

function render(results: ProbeResult[]): HTMLElement {
  const yes = (value: boolean | undefined) => (value === undefined ? '—' : value ? 'yes' : 'no');
  return h(
    'table',
    { class: 'probe' },
    h(
      'tr',
      {},
      ...[
        'DRM',
        'key system',
        'robustness',
        'answers',
        'persistent license',
        'HDCP (getStatusForPolicy)',
        'what it means',
      ].map((t) => h('th', {}, t)),
    ),
    ...results.map((r) =>
      h(
        'tr',
        { 'data-row': r.id, 'data-supported': String(r.supported) },
        h('td', {}, r.system),
        h('td', {}, h('code', {}, r.keySystem)),
        h('td', {}, r.robustness || '—'),
        h('td', { class: r.supported ? 'yes' : 'no' }, yes(r.supported)),
        h('td', {}, yes(r.persistent)),
        h('td', {}, r.hdcp),
        h('td', {}, r.meaning),
      ),
    ),
  );
}
