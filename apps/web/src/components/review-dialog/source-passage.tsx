import { LIMITS, passageOccursIn } from '@sponge/contract';
import { useQuery } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { keptCitation } from '../../lib/citation.ts';
import { errorMessage } from '../../lib/errors.ts';
import { trpc } from '../../trpc.ts';
import { DocumentText } from '../document-text.tsx';
import { FieldErrors } from './field-errors.tsx';
import type { ReviewForm } from './use-review-form.ts';

/**
 * The evidence: a library document and a passage of it, with a live "found in the source" check
 * and the source text to select the passage in. The check is a convenience; the API re-checks.
 */
export function SourcePassage({ form }: { form: ReviewForm }) {
  const ids = { source: useId(), passage: useId(), check: useId() };
  const { at, sourceId, passage } = form;
  const documents = useQuery(trpc.documents.list.queryOptions());
  const source = useQuery(trpc.documents.get.queryOptions({ documentId: sourceId }));
  const found = passage.trim() && source.data ? passageOccursIn(passage, source.data.text) : null;
  // A passage the reviewer chose with "Cite in a review" on a document page, read once per dialog.
  const [kept] = useState(keptCitation);
  const keptTitle = kept && documents.data?.find((d) => d.id === kept.documentId)?.title;

  const sourceBox = useRef<HTMLDivElement>(null);
  // Selecting text in the source fills the passage (keyboard users paste, or select with Shift+arrows).
  const takeSelection = () => {
    const sel = window.getSelection();
    const box = sourceBox.current;
    if (!sel || sel.isCollapsed || !box) return;
    if (!box.contains(sel.anchorNode) || !box.contains(sel.focusNode)) return;
    const picked = sel.toString().trim();
    if (picked) form.editPassage(picked);
  };

  return (
    <>
      <div className="wb-row">
        <label htmlFor={ids.source}>Source</label>
        <div>
          <select
            id={ids.source}
            value={sourceId}
            aria-invalid={at('sourceDocumentId').length > 0 || undefined}
            onChange={(e) => form.chooseSource(e.target.value)}
          >
            {(documents.data ?? []).map((d) => (
              <option key={d.id} value={d.id}>
                {d.title}
              </option>
            ))}
            {!documents.data && <option value={sourceId}>Loading the library…</option>}
          </select>
          <FieldErrors messages={at('sourceDocumentId')} />
        </div>
      </div>

      <div className="wb-row">
        <label htmlFor={ids.passage}>Passage</label>
        <div>
          <textarea
            id={ids.passage}
            rows={3}
            maxLength={LIMITS.passageChars}
            value={passage}
            placeholder="Select in the source text below, or paste"
            aria-invalid={at('passage').length > 0 || found === false || undefined}
            aria-describedby={`${ids.check}${at('passage').length > 0 ? ` ${ids.passage}-err` : ''}`}
            onChange={(e) => form.editPassage(e.target.value)}
          />
          <p
            className={`passage-check ${found === true ? 'ok' : found === false ? 'bad' : ''}`}
            id={ids.check}
            role="status"
          >
            {!passage.trim()
              ? 'Cite the passage that supports the record.'
              : source.isPending
                ? 'Checking the source…'
                : source.isError
                  ? `Could not load the source: ${errorMessage(source.error)}`
                  : found
                    ? '✓ passage found in the source'
                    : '✗ passage not found in the source'}
          </p>
          <FieldErrors id={`${ids.passage}-err`} messages={at('passage')} />
          {kept && !passage.trim() && (kept.documentId === sourceId || keptTitle) && (
            <button
              type="button"
              className="link-button small"
              onClick={() => {
                if (kept.documentId !== sourceId) form.chooseSource(kept.documentId);
                form.editPassage(kept.passage);
              }}
            >
              {kept.documentId === sourceId
                ? 'Use the passage you selected on the document page'
                : `Use the passage you selected in “${keptTitle}”`}
            </button>
          )}
          {source.data && (
            <div
              className="source-text"
              ref={sourceBox}
              role="region"
              aria-label={`Source text: ${source.data.title}`}
              tabIndex={0}
              onMouseUp={takeSelection}
              onKeyUp={takeSelection}
            >
              <DocumentText
                text={source.data.text}
                source={source.data.source}
                pageStarts={source.data.pageStarts}
                markerLevel={3}
              />
            </div>
          )}
        </div>
      </div>
    </>
  );
}
