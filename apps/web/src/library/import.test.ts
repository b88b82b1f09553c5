import { describe, expect, it } from 'vitest';
import { checkImport, importLines, importSummary, readImportAnswer } from './import.ts';

const MiB = 1024 * 1024;

describe('checkImport', () => {
  it('lets an export with its PDFs through', () => {
    expect(
      checkImport({ name: 'My Library.bib', size: 2000 }, [{ name: 'hughes.PDF', size: MiB }]),
    ).toBeNull();
    expect(checkImport({ name: 'export.zip', size: 150 * MiB }, [])).toBeNull();
  });

  it('says in words what would be refused', () => {
    expect(checkImport(null, [])).toMatch(/^Choose the exported file/);
    expect(checkImport({ name: 'refs.docx', size: 10 }, [])).toMatch(
      /“refs.docx” is not an export Sponge reads/,
    );
    expect(checkImport({ name: 'refs.bib', size: 6 * MiB }, [])).toBe(
      '“refs.bib” is 6 MB; a bibliography can be at most 5 MB.',
    );
    expect(checkImport({ name: 'refs.ris', size: 10 }, [{ name: 'notes.txt', size: 1 }])).toMatch(
      /is not a PDF/,
    );
    expect(checkImport({ name: 'refs.ris', size: 10 }, [{ name: 'big.pdf', size: 21 * MiB }])).toBe(
      '“big.pdf” is 21 MB; a PDF can be at most 20 MB.',
    );
    const many = Array.from({ length: 11 }, (_, i) => ({ name: `p${i}.pdf`, size: 19 * MiB }));
    expect(checkImport({ name: 'refs.json', size: 10 }, many)).toMatch(/one import can be at most 200 MB/);
  });
});

describe('the import’s result', () => {
  const answer = {
    added: [
      { id: 'd1', title: 'Global warming and recurrent mass bleaching of corals' },
      { id: 'd2', title: 'Kelp canopies', missingFile: 'kelp.pdf' },
    ],
    duplicates: [{ entry: 'Reef recovery after the 2016 bleaching', existingId: 'd0' }],
    failed: [
      { entry: 'hughes2018', reason: 'no_text' },
      { entry: 'Kelp notes', reason: 'the entry has neither a file nor an abstract' },
      { entry: 'x', reason: 'weird_code' },
    ],
  };

  it('sums up, in words', () => {
    expect(importSummary(answer)).toBe('2 added, 1 already in your library, 3 not added.');
    expect(importSummary({ added: [], duplicates: [], failed: [] })).toBe('0 added.');
  });

  it('says what happened to each entry, never a code', () => {
    expect(importLines(answer)).toEqual([
      { kind: 'added', id: 'd1', title: 'Global warming and recurrent mass bleaching of corals', note: null },
      {
        kind: 'added',
        id: 'd2',
        title: 'Kelp canopies',
        note: 'without its PDF: kelp.pdf was not among the files sent',
      },
      { kind: 'duplicate', entry: 'Reef recovery after the 2016 bleaching', existingId: 'd0' },
      { kind: 'failed', entry: 'hughes2018', why: 'its PDF has no text to read (scanned pages need OCR)' },
      { kind: 'failed', entry: 'Kelp notes', why: 'the entry has neither a file nor an abstract' },
      { kind: 'failed', entry: 'x', why: 'it could not be added' },
    ]);
  });

  it('reads the answer, or the refusal in the API’s words', () => {
    expect(readImportAnswer(200, JSON.stringify({ result: { data: answer } }))).toEqual({ ok: true, answer });
    const refusal = JSON.stringify({
      error: {
        message: 'file: expected a BibTeX, RIS or CSL-JSON file',
        data: { reason: 'invalid_input', httpStatus: 400 },
      },
    });
    expect(readImportAnswer(400, refusal)).toEqual({
      ok: false,
      message: 'file: expected a BibTeX, RIS or CSL-JSON file',
    });
    expect(readImportAnswer(502, '<html>Bad gateway</html>')).toEqual({
      ok: false,
      message: 'The server could not add the file (HTTP 502). Try again later.',
    });
  });
});
