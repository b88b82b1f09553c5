import { SPONGE_LIMITS } from '@sponge/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { keptSelectedPassage } from '../document/selected-passage.ts';
import { DocumentText } from '../document/document-text.tsx';
import { findQuote } from '../document/quote.ts';
import { errorMessage, isNotFound } from '../shared/errors.ts';
import { trpc } from '../trpc.ts';
import { FieldErrors } from './field-errors.tsx';
import { passageCheck, showsNoteSource } from './review-form.ts';
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
  // The note's own source while it is still what the form shows.
  const fromNote = showsNoteSource(form.noteSource, sourceId, passage);
  const check = passageCheck({
    passage,
    source: source.data
      ? { text: source.data.text }
      : source.isError
        ? isNotFound(source.error)
          ? { state: 'missing' }
          : { state: 'error', message: errorMessage(source.error) }
        : { state: 'loading' },
    fromNote: fromNote !== null,
  });
  const listed = documents.data?.some((d) => d.id === sourceId);
  // The passage marked in the source text below, once the check finds it.
  const sourceText = source.data?.text;
  const found = check.tone === 'ok';
  const highlight = useMemo(
    () => (found && sourceText !== undefined ? findQuote(sourceText, null, null, passage) : null),
    [found, sourceText, passage],
  );
  // A passage the reviewer chose with "Cite in a review" on a document page, read once per dialog.
  const [kept] = useState(keptSelectedPassage);
  const keptTitle = kept && documents.data?.find((d) => d.id === kept.documentId)?.title;

  const sourceBox = useRef<HTMLDivElement>(null);
  // The note's passage is shown where it is: the source box (only it) scrolls to the mark.
  const markAt = fromNote ? highlight?.start : undefined;
  useEffect(() => {
    const box = sourceBox.current;
    const mark = box?.querySelector<HTMLElement>('mark.quoted');
    if (markAt === undefined || !box || !mark) return;
    box.scrollTop +=
      mark.getBoundingClientRect().top - box.getBoundingClientRect().top - box.clientHeight / 3;
  }, [markAt]);
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
            {/* The note's source may have been removed since: the select must not show another title. */}
            {documents.data && !listed && <option value={sourceId}>A document not in your library</option>}
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
            maxLength={SPONGE_LIMITS.passageChars}
            value={passage}
            placeholder="Select in the source text below, or paste"
            aria-invalid={at('passage').length > 0 || check.tone === 'bad' || undefined}
            aria-describedby={`${ids.check}${at('passage').length > 0 ? ` ${ids.passage}-err` : ''}`}
            onChange={(e) => form.editPassage(e.target.value)}
          />
          <p className={`passage-check ${check.tone}`} id={ids.check} role="status">
            {check.text}
          </p>
          {fromNote && (
            <p className="small muted">
              Filled in from the note’s source: p. {fromNote.page}
              {source.data ? ` of “${source.data.title}”` : ''}.
            </p>
          )}
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
                highlight={highlight}
              />
            </div>
          )}
        </div>
      </div>
    </>
  );
}
