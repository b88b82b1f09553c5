/**
 * The extractor as the built library runs it: this folder compiled to JavaScript the way
 * `tsc -p tsconfig.build.json` compiles it (same options, .ts imports rewritten to .js), then
 * loaded by plain Node in a child process, with no TypeScript file anywhere near it. This is what
 * proves the thread's module is found as pdf-worker.js after a build.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeEncryptedPdf, makePdf } from '@sponge/testing/pdf-fixtures';

const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = join(here, '../..');
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sponge-extract-built-'));
  const config = ts.getParsedCommandLineOfConfigFile(
    join(packageRoot, 'tsconfig.build.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.build.json could not be read');
  const sources = (await readdir(here)).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  for (const file of sources) {
    const { outputText } = ts.transpileModule(await readFile(join(here, file), 'utf8'), {
      compilerOptions: config.options,
      fileName: file,
    });
    await writeFile(join(dir, file.replace(/\.ts$/, '.js')), outputText);
  }
  // Packages resolve from the library's own node_modules, as they do for dist/.
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }');
  await symlink(join(packageRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs extractDocument from the compiled files in a fresh `node`, on the PDF at `pdfPath`. */
async function extractInNode(pdfPath: string): Promise<unknown> {
  const script = `
    import { readFile } from 'node:fs/promises';
    import { extractDocument, DocumentRejected } from './index.js';
    const bytes = new Uint8Array(await readFile(${JSON.stringify(pdfPath)}));
    try {
      console.log(JSON.stringify(await extractDocument({ bytes, filename: 'a.pdf', mediaType: 'application/pdf' })));
    } catch (e) {
      if (!(e instanceof DocumentRejected)) throw e;
      console.log(JSON.stringify({ reason: e.reason, message: e.message }));
    }`;
  // A file, not `node -e`: a thread inherits the process's flags, and --input-type is refused there.
  await writeFile(join(dir, 'run.mjs'), script);
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['run.mjs'], { cwd: dir });
  expect(stderr).toBe('');
  return JSON.parse(stdout) as unknown;
}

it('compiles without a TypeScript file left in the import graph', async () => {
  const files = await readdir(dir);
  expect(files).toEqual(
    expect.arrayContaining(['index.js', 'extract.js', 'pdf-thread.js', 'pdf-worker.js', 'read-pdf.js']),
  );
  expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
  for (const file of files.filter((f) => f.endsWith('.js')))
    expect(await readFile(join(dir, file), 'utf8')).not.toMatch(/from '\.\/[^']*\.ts'/);
});

it('reads a PDF on the compiled thread, silently', async () => {
  const pdfPath = join(dir, 'ok.pdf');
  await writeFile(pdfPath, await makePdf(['Built page one.', 'Built page two.'], { title: 'Built' }));
  expect(await extractInNode(pdfPath)).toEqual({
    source: 'pdf',
    pages: ['Built page one.', 'Built page two.'],
    title: 'Built',
    scanned: [],
    metadata: { title: 'Built' },
  });
});

it('refuses password-protected and damaged PDFs from the compiled thread, without pdf.js warnings', async () => {
  const locked = join(dir, 'locked.pdf');
  await writeFile(locked, makeEncryptedPdf());
  expect(await extractInNode(locked)).toEqual({
    reason: 'invalid_document',
    message: 'This PDF is password-protected; remove the password and upload it again.',
  });
  // Cut short, pdf.js prints "Warning: Indexing all PDF objects" unless told to be quiet.
  const pdf = await makePdf(['Cut short.']);
  const damaged = join(dir, 'damaged.pdf');
  await writeFile(damaged, pdf.slice(0, pdf.length - 30));
  expect(await extractInNode(damaged)).toEqual({
    reason: 'invalid_document',
    message: 'This PDF is damaged or incomplete and cannot be read.',
  });
});
