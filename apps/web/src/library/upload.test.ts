import { SPONGE_LIMITS } from '@sponge/contract';
import { describe, expect, it } from 'vitest';
import { checkFile, formatBytes, readUploadAnswer } from './upload.ts';

const MiB = 1024 * 1024;
const errorBody = (reason: string, message: string, httpStatus: number) =>
  JSON.stringify({ error: { message, code: -32600, data: { code: 'BAD_REQUEST', httpStatus, reason } } });

describe('formatBytes', () => {
  it('reads as bytes, KB or MB', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(14 * 1024 + 300)).toBe('14 KB');
    expect(formatBytes(3.44 * MiB)).toBe('3.4 MB');
    expect(formatBytes(SPONGE_LIMITS.uploadBytes)).toBe('20 MB');
    expect(formatBytes(25.4 * MiB)).toBe('25 MB');
  });
});

describe('checkFile', () => {
  it('lets PDF, text and Markdown files within the limit through', () => {
    expect(checkFile({ name: 'paper.PDF', size: 10, type: '' })).toBeNull();
    expect(checkFile({ name: 'notes.md', size: 10, type: '' })).toBeNull();
    expect(checkFile({ name: 'notes', size: 10, type: 'text/plain' })).toBeNull();
    expect(
      checkFile({ name: 'max.pdf', size: SPONGE_LIMITS.uploadBytes, type: 'application/pdf' }),
    ).toBeNull();
  });
  it('refuses a file over the limit, naming both sizes', () => {
    expect(checkFile({ name: 'big.pdf', size: SPONGE_LIMITS.uploadBytes + 1, type: 'application/pdf' })).toBe(
      'This file is 20 MB; a file can be at most 20 MB.',
    );
    expect(checkFile({ name: 'big.pdf', size: 31 * MiB, type: 'application/pdf' })).toBe(
      'This file is 31 MB; a file can be at most 20 MB.',
    );
  });
  it('refuses other kinds of files', () => {
    expect(checkFile({ name: 'photo.png', size: 10, type: 'image/png' })).toBe(
      'Only PDF, plain-text (.txt) and Markdown (.md) files can be added.',
    );
  });
});

describe('readUploadAnswer', () => {
  it('reads the added document', () => {
    const data = { id: 'doc_1', title: 'Kelp', pages: 2, characters: 1200 };
    expect(readUploadAnswer(200, JSON.stringify({ result: { data } }))).toEqual({ ok: true, document: data });
  });
  it("shows the API's own words for the document refusals", () => {
    const ocr = 'This PDF has no text layer — scanned pages need OCR first.';
    expect(readUploadAnswer(400, errorBody('no_text', ocr, 400))).toEqual({
      ok: false,
      reason: 'no_text',
      message: ocr,
    });
    expect(
      readUploadAnswer(400, errorBody('invalid_document', 'This file is not a PDF.', 400)),
    ).toMatchObject({
      reason: 'invalid_document',
      message: 'This file is not a PDF.',
    });
    expect(readUploadAnswer(413, errorBody('too_large', 'A file is at most 20 MiB.', 413))).toMatchObject({
      reason: 'too_large',
      message: 'A file is at most 20 MiB.',
    });
  });
  it('says a busy server in words, with when to try again', () => {
    const busy = JSON.stringify({
      error: {
        message: 'The queue of files waiting to be read is full. The server is busy; try again in 17 s.',
        code: -32029,
        data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429, reason: 'busy', retryAfterSeconds: 17 },
      },
    });
    expect(readUploadAnswer(429, busy)).toEqual({
      ok: false,
      reason: 'busy',
      message: 'The server is busy; try again in 17 s.',
    });
    // A 429 from a proxy, without tRPC's answer.
    expect(readUploadAnswer(429, 'Too Many Requests')).toEqual({
      ok: false,
      reason: 'busy',
      message: 'The server is busy; try again in a moment.',
    });
  });
  it("shows the API's words for a full library, which name the limit", () => {
    const words =
      'Your library holds 1,000 documents; the limit is 1,000 documents. Remove one to add another.';
    expect(readUploadAnswer(429, errorBody('quota', words, 429))).toEqual({
      ok: false,
      reason: 'quota',
      message: words,
    });
  });
  it("shows the API's words for a body that stopped arriving", () => {
    const words =
      'The upload stopped arriving: less than 64 KiB in 10 s. Send the file again over a steadier connection.';
    expect(readUploadAnswer(408, errorBody('too_slow', words, 408))).toMatchObject({
      ok: false,
      message: words,
    });
  });
  it('says a signed-out upload in plain words', () => {
    expect(readUploadAnswer(401, errorBody('unauthenticated', 'No credential.', 401))).toMatchObject({
      reason: 'unauthenticated',
      message: 'You are signed out. Sign in again, then add the file once more.',
    });
  });
  it("says an answer that is not tRPC's by its status", () => {
    expect(readUploadAnswer(413, '<html>Request Entity Too Large</html>')).toEqual({
      ok: false,
      reason: 'too_large',
      message: 'The file is larger than the server accepts (at most 20 MB).',
    });
    expect(readUploadAnswer(502, 'Bad Gateway')).toEqual({
      ok: false,
      reason: 'server',
      message: 'The server could not add the file (HTTP 502). Try again later.',
    });
  });
  it('never takes a malformed success for a document', () => {
    expect(readUploadAnswer(200, JSON.stringify({ result: { data: { id: 'doc_1' } } }))).toMatchObject({
      ok: false,
      reason: 'server',
    });
  });
});

describe('a duplicate upload', () => {
  it('comes back with the id of the document the library already has', () => {
    const message = 'Already in your library: Hughes et al. 2017 — "Global warming and…"';
    const body = JSON.stringify({
      error: {
        message,
        code: -32009,
        data: { code: 'CONFLICT', httpStatus: 409, reason: 'duplicate', existingId: 'doc_9' },
      },
    });
    expect(readUploadAnswer(409, body)).toEqual({
      ok: false,
      reason: 'duplicate',
      message,
      existingId: 'doc_9',
    });
  });

  it('is an ordinary refusal when the answer names no document', () => {
    const outcome = readUploadAnswer(409, errorBody('duplicate', 'Already in your library.', 409));
    expect(outcome).toEqual({ ok: false, reason: 'server', message: 'Already in your library.' });
  });
});
