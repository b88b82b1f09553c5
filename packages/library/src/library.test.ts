import { describe, expect, it } from 'vitest';
import { pastedDocument } from './library.ts';

describe('pastedDocument', () => {
  it('stores a pasted text as an uploaded text file is read: no byte order mark, LF lines, no blank space around it', () => {
    expect(
      pastedDocument({
        title: 'Kelp',
        text: '\uFEFF\n  # Kelp canopy\r\n\rCanopy loss.\r\n\n ',
        format: 'markdown',
      }),
    ).toEqual({ title: 'Kelp', authors: [], source: 'markdown', pages: ['# Kelp canopy\n\nCanopy loss.'] });
  });

  it('is plain text without a format, by the authors given', () => {
    expect(pastedDocument({ title: 'T', authors: ['A. Author'], text: 'body' })).toEqual({
      title: 'T',
      authors: ['A. Author'],
      source: 'text',
      pages: ['body'],
    });
  });
});
