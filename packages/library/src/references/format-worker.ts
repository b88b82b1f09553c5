/**
 * The references thread's entry (started by format-thread.ts): formats each bibliography it is
 * sent as text by its CSL style and answers with it, one at a time, for as long as it is kept.
 *
 * Loaded with Node's type stripping when the API runs from source: erasable TypeScript only.
 */
import { parentPort } from 'node:worker_threads';
import type { CitableDocument } from './entries.ts';
import { formatReferences } from './format.ts';
import type { CiteStyle } from './format.ts';

export type FormatThreadAnswer = { text: string } | { error: string };

if (!parentPort) throw new Error('format-worker runs only as a worker thread (see format-thread.ts)');
const port = parentPort;

port.on('message', ({ docs, style }: { docs: CitableDocument[]; style: CiteStyle }) => {
  let answer: FormatThreadAnswer;
  try {
    answer = { text: formatReferences(docs, 'text', style) };
  } catch (err) {
    answer = { error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(answer);
});
