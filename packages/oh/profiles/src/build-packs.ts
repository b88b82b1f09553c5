/**
 * Seal the pack definitions into canonical-JSON files: `tsx src/profiles/build-packs.ts`.
 * With `--check` it writes nothing and fails when a file is missing or stale (for CI).
 *
 * The files are what ships and what the registry loads; the definitions are where packs are
 * edited. `registry.test.ts` fails when the two drift apart, so a forgotten rebuild is caught.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { PACK_DEFINITIONS } from './definitions/index.ts';
import { createPack, packJson } from './pack.ts';

export function packFileUrl(name: string): URL {
  return new URL(`./packs/${name}.json`, import.meta.url);
}

/** Each shipped pack's file name and the exact text it must hold. */
export function builtPacks(): Array<{ name: string; text: string }> {
  return PACK_DEFINITIONS.map((definition) => {
    const pack = createPack(definition);
    return { name: pack.name, text: packJson(pack) };
  });
}

async function main(check: boolean): Promise<number> {
  let stale = 0;
  for (const { name, text } of builtPacks()) {
    const url = packFileUrl(name);
    const current = await readFile(url, 'utf8').catch(() => null);
    if (current === text) continue;
    stale++;
    if (check) console.error(`${fileURLToPath(url)} is ${current === null ? 'missing' : 'stale'}`);
    else {
      await writeFile(url, text);
      console.log(`wrote ${fileURLToPath(url)}`);
    }
  }
  return check && stale ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.includes('--check'));
}
