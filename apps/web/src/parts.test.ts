// The web's product parts import only downwards (apps/web/README.md): a part may import itself and
// the parts below it, never one above, so no two parts need each other. Checked on every import of
// the source, tests included; the second test shows the check failing on an import that goes up.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** Each part's height: a file may import files of its own part or of a lower one. */
const HEIGHT: Record<string, number> = {
  shared: 0,
  'styles.css': 0,
  'trpc.ts': 1,
  account: 2,
  library: 2,
  document: 3,
  review: 4,
  'memory-panel': 5,
  // The app's frame: the shell around every page, the routes and the entry.
  'app-shell.tsx': 6,
  'app.tsx': 7,
  'main.tsx': 8,
};

/** The part a file (a path under src/) belongs to: its folder, or the file itself at the root. */
const partOf = (path: string): string => path.split('/')[0] ?? path;

/** Every import that goes up, as `from -> to`, of the given files (paths under src/, with their source). */
function importsGoingUp(files: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [from, source] of Object.entries(files)) {
    for (const [, spec] of source.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      const to = posix.normalize(posix.join(posix.dirname(from), spec!));
      const [a, b] = [partOf(from), partOf(to)];
      if (HEIGHT[a] === undefined) found.push(`${from}: no height for ${a}`);
      else if (HEIGHT[b] === undefined) found.push(`${from} -> ${to}: no height for ${b}`);
      else if (a !== b && HEIGHT[b] >= HEIGHT[a]) found.push(`${from} -> ${to}`);
    }
  }
  return found;
}

const src = dirname(fileURLToPath(import.meta.url));

function sources(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(out, sources(path));
    // This file's own samples go up on purpose.
    else if (/\.tsx?$/.test(entry.name) && path !== fileURLToPath(import.meta.url))
      out[relative(src, path).split('\\').join('/')] = readFileSync(path, 'utf8');
  }
  return out;
}

describe('the web parts', () => {
  it('import only downwards', () => {
    const files = sources(src);
    expect(Object.keys(files).length).toBeGreaterThan(50);
    expect(importsGoingUp(files)).toEqual([]);
  });

  it('are caught importing upwards, or from a folder of no known height', () => {
    expect(
      importsGoingUp({
        'shared/paths.ts': "import { trpc } from '../trpc.ts';\n",
        'library/upload.ts': "import type { Share } from '../account/account-forms.ts';\n",
        'document/chat.ts': "export const page = () => import('../review/review-form.ts');\n",
        'document/quote.ts': "import { x } from './pages.ts';\nimport { y } from '../shared/time.ts';\n",
        'stray/thing.ts': "import { y } from '../shared/time.ts';\n",
      }),
    ).toEqual([
      'shared/paths.ts -> trpc.ts',
      'library/upload.ts -> account/account-forms.ts',
      'document/chat.ts -> review/review-form.ts',
      'stray/thing.ts: no height for stray',
    ]);
  });
});
