// What the runtime command loads, as Node runs it: apart from the API it talks to, the hosted
// runtime must stay light and store-free (docs/architecture.md, "Packages and data flow").
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN_ENTRY = fileURLToPath(new URL('./main.ts', import.meta.url));

describe('what the runtime command loads', () => {
  it('of the workspace, only the contract, @oh/schema and the Retry-After parser: no adapter, no store', async () => {
    // Every module Node resolves while it loads the command's entry, as Node runs it.
    const probe = [
      "import { registerHooks } from 'node:module';",
      'const seen = new Set();',
      'registerHooks({ resolve: (s, c, next) => { const r = next(s, c); seen.add(r.url); return r; } });',
      // Not through argv: the entry starts the command when it is argv[1].
      'await import(process.env.ENTRY);',
      'process.stdout.write(JSON.stringify([...seen]));',
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', probe], {
      env: { ...process.env, ENTRY: MAIN_ENTRY },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const root = new URL('../../../../', import.meta.url).href;
    const workspace = (JSON.parse(out) as string[])
      .filter((url) => url.startsWith(root) && !url.includes('/node_modules/'))
      .map((url) => url.slice(root.length));
    expect(workspace).toContain('packages/oh/embeddings/dist/retry-after.js');
    const others = workspace.filter(
      (path) =>
        !/^packages\/(agent\/src|contract\/dist|oh\/schema\/dist)\//.test(path) &&
        path !== 'packages/oh/embeddings/dist/retry-after.js',
    );
    expect(others).toEqual([]);
  });
});
