/**
 * What the review dialog's flows share (issue 39): an owner's own tRPC calls from the browser's
 * context (its session cookie, the app's origin), a fresh document, the dialog counted as it
 * opens, and the check that no label of the dialog speaks the pack's language.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';
import type { RouterInputs, RouterOutputs } from '@sponge/api';

type Procedure<R> = { [G in keyof R]: `${G & string}.${keyof R[G] & string}` }[keyof R];
type Path = Procedure<RouterOutputs>;
type Out<P extends Path> = P extends `${infer G}.${infer N}`
  ? G extends keyof RouterOutputs
    ? N extends keyof RouterOutputs[G]
      ? RouterOutputs[G][N]
      : never
    : never
  : never;
type In<P extends Path> = P extends `${infer G}.${infer N}`
  ? G extends keyof RouterInputs
    ? N extends keyof RouterInputs[G]
      ? RouterInputs[G][N]
      : never
    : never
  : never;

/** A query as the signed-in page's owner (GET, the session cookie). */
export async function ownerQuery<P extends Path>(page: Page, path: P, input: In<P>): Promise<Out<P>> {
  const url = `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`;
  const response = await page.request.get(url);
  expect(response.status(), `${path}: ${await response.text()}`).toBe(200);
  return ((await response.json()) as { result: { data: Out<P> } }).result.data;
}

/** A mutation as the signed-in page's owner (POST from the app's own origin). */
export async function ownerMutation<P extends Path>(page: Page, path: P, input: In<P>): Promise<Out<P>> {
  const origin = new URL(page.url()).origin;
  const response = await page.request.post(`${origin}/trpc/${path}`, { data: input, headers: { origin } });
  expect(response.status(), `${path}: ${await response.text()}`).toBe(200);
  return ((await response.json()) as { result: { data: Out<P> } }).result.data;
}

/**
 * Counts the dialogs the page opens from now on (each `role="dialog"` element that appears, once),
 * on this page load: the review of a finding with its study and publication is one dialog.
 */
export async function countDialogs(page: Page): Promise<() => Promise<number>> {
  await page.evaluate(() => {
    const seen = new Set<Element>();
    const scan = () => document.querySelectorAll('[role="dialog"]').forEach((d) => seen.add(d));
    new MutationObserver(scan).observe(document.body, { childList: true, subtree: true });
    (window as unknown as { seenDialogs: Set<Element> }).seenDialogs = seen;
  });
  return () => page.evaluate(() => (window as unknown as { seenDialogs: Set<Element> }).seenDialogs.size);
}

/** The pack's own language, which no label of the dialog may show. */
const PACK_WORDS: ReadonlyArray<[string, RegExp]> = [
  ['a kind:slug name', /\b[a-z][a-z0-9-]*:[a-z0-9][a-z0-9.-]*\b/u],
  ['UCUM', /UCUM/u],
  ['JSON', /JSON/u],
  ['a camelCase name', /\b[a-z]+[A-Z][A-Za-z]*\b/u],
];

/**
 * The visible words of the dialog — its title, labels, legends, buttons, hints, the kinds' lines,
 * the outcome, and the names given by aria-label — none in the pack's language. What the reviewer
 * types, the choices of a select and the source's own text are not labels.
 */
export async function expectLabelsInWords(dialog: Locator): Promise<string[]> {
  const labels = await dialog.evaluate((box) => {
    const out: string[] = [];
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('select, textarea, .source-text') || parent.getClientRects().length === 0)
        continue;
      const text = (node.textContent ?? '').replace(/\s+/g, ' ').trim();
      if (text) out.push(text);
    }
    for (const el of box.querySelectorAll('[aria-label]')) {
      if (el.getClientRects().length > 0) out.push(el.getAttribute('aria-label') ?? '');
    }
    return out;
  });
  expect(labels.length, 'the dialog has labels to check').toBeGreaterThan(10);
  for (const label of labels) {
    for (const [what, pattern] of PACK_WORDS) expect(label, `a label shows ${what}`).not.toMatch(pattern);
  }
  return labels;
}

/** Presses Tab until `target` has the focus, as a keyboard user moves through the page. */
export async function tabTo(page: Page, target: Locator, most = 120): Promise<void> {
  for (let i = 0; i < most; i++) {
    if (await target.evaluate((el) => el === document.activeElement).catch(() => false)) return;
    await page.keyboard.press('Tab');
  }
  await expect(target, `Tab reaches ${target.toString()}`).toBeFocused();
}

/**
 * A screenshot of the whole dialog, however long its form: the window is made as tall as the
 * dialog's content for the picture, then put back.
 */
export async function keepDialogScreenshot(page: Page, dialog: Locator, name: string): Promise<void> {
  const size = page.viewportSize() ?? { width: 1280, height: 720 };
  const height = await dialog.evaluate((el) => el.scrollHeight);
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, height + 80) });
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-results', 'screenshots');
  mkdirSync(dir, { recursive: true });
  await dialog.screenshot({ path: join(dir, `${name}.png`), animations: 'disabled' });
  // …and in parts a person can read at full size.
  const box = await dialog.boundingBox();
  if (box) {
    for (let y = 0, part = 1; y < box.height; y += 900, part++) {
      const clip = { x: box.x, y: box.y + y, width: box.width, height: Math.min(900, box.height - y) };
      await page.screenshot({ path: join(dir, `${name}-${part}.png`), clip, animations: 'disabled' });
    }
  }
  await page.setViewportSize(size);
}
