import { beforeEach, onTestFailed } from 'vitest';
import type { VirtualConsolePrinter } from 'happy-dom';
import { PAGE_CONSOLE } from './happy-dom-environment.ts';

/**
 * A setup file: what the page printed during a test is shown when that test fails, and nowhere else
 * (a passing test's expected refusals stay out of the run's output).
 */
beforeEach(() => {
  const printer = (globalThis as { [PAGE_CONSOLE]?: VirtualConsolePrinter })[PAGE_CONSOLE];
  if (!printer) return;
  printer.clear();
  onTestFailed(() => {
    const text = printer.readAsString().trim();
    if (text) console.error(`What the page's console printed during this test:\n${text}`);
  });
});
