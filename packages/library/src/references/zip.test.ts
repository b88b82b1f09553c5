import { makePdf } from '@sponge/testing/pdf-fixtures';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { isLibraryError } from '../errors.ts';
import { readExportZip } from './zip.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);

async function refusal(bytes: Uint8Array): Promise<string> {
  try {
    await readExportZip(bytes);
  } catch (err) {
    if (isLibraryError(err)) return `${err.reason}: ${err.message}`;
    throw err;
  }
  return 'accepted';
}

describe('readExportZip', () => {
  it("reads Zotero's export folder: the bibliography and its PDFs, nothing else unpacked", async () => {
    const pdf = await makePdf(['Global warming and recurrent mass bleaching of corals']);
    const zip = zipSync({
      'Exported Items/Exported Items.bib': utf8('@article{a, title = {A}}'),
      'Exported Items/files/12/Hughes et al. - 2017.pdf': pdf,
      'Exported Items/files/13/nature21707.html': utf8('<html></html>'),
      '__MACOSX/Exported Items/._Exported Items.bib': utf8('resource fork'),
    });
    const read = await readExportZip(zip);
    expect(read.bibliography).toMatchObject({
      path: 'Exported Items/Exported Items.bib',
      name: 'Exported Items.bib',
    });
    expect(new TextDecoder().decode(read.bibliography.bytes)).toBe('@article{a, title = {A}}');
    expect(read.files).toEqual([
      {
        path: 'Exported Items/files/12/Hughes et al. - 2017.pdf',
        name: 'Hughes et al. - 2017.pdf',
        bytes: pdf,
      },
    ]);
  });

  it('refuses what is not an export folder: not a zip, no bibliography, two of them, a path out of the folder', async () => {
    expect(await refusal(utf8('PK but not really'))).toMatch(/^invalid_input: The file is not a zip archive/);
    expect(await refusal(zipSync({ 'a.pdf': utf8('%PDF') }))).toMatch(
      /^invalid_input: The zip holds no bibliography \(\.bib, \.ris or \.json\)/,
    );
    expect(await refusal(zipSync({ 'a.bib': utf8('@misc{a,}'), 'b.ris': utf8('TY  - GEN') }))).toMatch(
      /^invalid_input: The zip holds more than one bibliography \(a\.bib, b\.ris\)/,
    );
    expect(await refusal(zipSync({ 'a.bib': utf8('@misc{a,}'), '../../etc/x.pdf': utf8('%PDF') }))).toMatch(
      /^invalid_input: The zip holds a file outside its folder \(\.\.\/\.\.\/etc\/x\.pdf\)/,
    );
    expect(await refusal(zipSync({ 'a.bib': utf8('@misc{a,}'), '/abs/x.pdf': utf8('%PDF') }))).toMatch(
      /outside its folder \(\/abs\/x\.pdf\)/,
    );
  });

  it('refuses a zip bomb by what its directory declares, before inflating it', async () => {
    const zeros = new Uint8Array(64 * 1024 * 1024);
    const bomb = zipSync({ 'a.bib': utf8('@misc{a,}'), 'big.pdf': zeros }, { level: 9 });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(await refusal(bomb)).toMatch(/^too_large: .*big\.pdf unpacks to 64 MiB/);
  });

  it('never inflates past what the directory declares: a lying size gives a cut file, not the bomb', async () => {
    const zeros = new Uint8Array(8 * 1024 * 1024);
    const zip = zipSync({ 'a.bib': utf8('@misc{a,}'), 'x.pdf': zeros }, { level: 9 });
    // Rewrite x.pdf's uncompressed size in the central directory to 1 KiB.
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    let at = zip.length - 22;
    while (view.getUint32(at, true) !== 0x06054b50) at--;
    let entry = view.getUint32(at + 16, true);
    for (let i = 0; i < view.getUint16(at + 10, true); i++) {
      const nameLength = view.getUint16(entry + 28, true);
      const name = new TextDecoder().decode(zip.subarray(entry + 46, entry + 46 + nameLength));
      if (name === 'x.pdf') view.setUint32(entry + 24, 1024, true);
      entry += 46 + nameLength + view.getUint16(entry + 30, true) + view.getUint16(entry + 32, true);
    }
    const read = await readExportZip(zip).catch((err: unknown) => err);
    // Either refused as damaged or cut at what it declared: never 8 MiB in memory.
    if (isLibraryError(read)) expect(read.reason).toBe('invalid_input');
    else
      expect((read as Awaited<ReturnType<typeof readExportZip>>).files[0]?.bytes.length).toBeLessThanOrEqual(
        1024,
      );
  });

  it('refuses a zip of more files than an export folder holds', async () => {
    const many: Record<string, Uint8Array> = { 'a.bib': utf8('@misc{a,}') };
    for (let i = 0; i < 5_001; i++) many[`files/${i}.txt`] = utf8('x');
    expect(await refusal(zipSync(many, { level: 0 }))).toMatch(
      /^invalid_input: The zip holds more than 5,000 files/,
    );
  });
});
