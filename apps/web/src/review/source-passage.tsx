import { SPONGE_LIMITS } from '@sponge/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { DocumentText } from '../document/document-text.tsx';
import { findQuote } from '../document/quote.ts';
import { keptSelectedPassage } from '../document/selected-passage.ts';
import { trpc } from '../trpc.ts';
import { FieldErrors } from './field-errors.tsx';
import { OPEN_MARK, SHOWN_MARK, OPEN_MEASURE } from './open-timing.ts';
import { MAIN } from './use-review-form.ts';
import { passageCheck, showsNoteSource } from './review-form.ts';
import type { ReviewForm } from './use-review-form.ts';

/**
 * The evidence: a library document, one page of it at a time (`documents.page`, never the whole
 * text, so the dialog opens at once whatever the document's size), and a passage of it with a
 * live "found" check. A note that carries its source arrives on its page with its passage marked;
 * one that does not starts with no source and says so. The check is a convenience; the API
 * re-checks against the whole document.
 */
export function SourcePassage({ form }: { form: ReviewForm }) {
  const ids = { source: useId(), passage: useId(), check: useId(), page: useId(), none: useId() };
  const { sourceId, passage, pageState } = form;
  const at = (path: string) => form.at(MAIN, path);
  const documents = useQuery(trpc.documents.list.queryOptions());
  const fromNote = showsNoteSource(form.noteSource, sourceId, passage);
  const check = passageCheck({ passage, page: pageState, fromNote: fromNote !== null });
  const listed = documents.data?.some((d) => d.id === sourceId);
  const shown = 'text' in pageState ? pageState : null;
  const title = documents.data?.find((d) => d.id === sourceId)?.title;
  const found = check.tone === 'ok';
  const highlight = useMemo(
    () => (found && shown ? findQuote(shown.text, null, null, passage) : null),
    [found, shown, passage],
  );
  // A passage the reviewer chose with "Cite in a review" on a document page, read once per dialog.
  const [kept] = useState(keptSelectedPassage);
  const keptTitle = kept && documents.data?.find((d) => d.id === kept.documentId)?.title;

  const sourceBox = useRef<HTMLDivElement>(null);
  const markAt = highlight?.start;
  useEffect(() => {
    const box = sourceBox.current;
    const mark = box?.querySelector<HTMLElement>('mark.quoted');
    if (markAt === undefined || !box || !mark) return;
    // Only the source box scrolls to the mark, never the dialog.
    box.scrollTop +=
      mark.getBoundingClientRect().top - box.getBoundingClientRect().top - box.clientHeight / 3;
  }, [markAt, shown?.page]);
  // How long the dialog took from the click to the cited passage on screen (bench/README.md).
  const shownOnce = useRef(false);
  useEffect(() => {
    if (shownOnce.current || !shown || (form.noteSource && markAt === undefined && found)) return;
    shownOnce.current = true;
    if (performance.getEntriesByName(OPEN_MARK, 'mark').length === 0) return;
    performance.mark(SHOWN_MARK);
    performance.measure(OPEN_MEASURE, OPEN_MARK, SHOWN_MARK);
  }, [shown, markAt, found, form.noteSource]);

  // Selecting text in the page fills the passage (keyboard users paste, or select with Shift+arrows).
  const takeSelection = () => {
    const sel = window.getSelection();
    const box = sourceBox.current;
    if (!sel || sel.isCollapsed || !box) return;
    if (!box.contains(sel.anchorNode) || !box.contains(sel.focusNode)) return;
    const picked = sel.toString().trim();
    if (picked) form.editPassage(picked);
  };
  const [pageInput, setPageInput] = useState<string | null>(null);

  return (
    <>
      <div className="wb-row">
        <label htmlFor={ids.source}>Source</label>
        <div>
          <select
            id={ids.source}
            value={sourceId}
            aria-invalid={at('sourceDocumentId').length > 0 || undefined}
            aria-describedby={sourceId === '' ? ids.none : undefined}
            onChange={(e) => form.chooseSource(e.target.value)}
          >
            {sourceId === '' && <option value="">Choose the document…</option>}
            {(documents.data ?? []).map((d) => (
              <option key={d.id} value={d.id}>
                {d.title}
              </option>
            ))}
            {!documents.data && sourceId !== '' && <option value={sourceId}>Loading the library…</option>}
            {/* The note's source may have been removed since: the select must not show another title. */}
            {documents.data && sourceId !== '' && !listed && (
              <option value={sourceId}>A document not in your library</option>
            )}
          </select>
          {sourceId === '' && (
            <p className="field-hint" id={ids.none}>
              This note does not say where it came from: choose the document, then select or paste the
              passage.
            </p>
          )}
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
              {title ? ` of “${title}”` : ''}.
            </p>
          )}
          <FieldErrors id={`${ids.passage}-err`} messages={at('passage')} />
          {kept && !passage.trim() && (kept.documentId === sourceId || keptTitle) && (
            <button
              type="button"
              className="link-button small"
              onClick={() => {
                if (kept.documentId !== sourceId) form.chooseSource(kept.documentId);
                if (kept.page) form.goToPage(kept.page);
                form.editPassage(kept.passage);
              }}
            >
              {kept.documentId === sourceId
                ? 'Use the passage you selected on the document page'
                : `Use the passage you selected in “${keptTitle}”`}
            </button>
          )}
          {shown && (
            <>
              {shown.pages > 1 && (
                <nav className="page-nav small" aria-label="Pages of the source">
                  <button
                    type="button"
                    className="button small-button"
                    disabled={shown.page <= 1}
                    onClick={() => form.goToPage(shown.page - 1)}
                  >
                    Previous page
                  </button>
                  <label htmlFor={ids.page}>Page</label>
                  <input
                    id={ids.page}
                    className="page-input"
                    inputMode="numeric"
                    value={pageInput ?? String(shown.page)}
                    onChange={(e) => setPageInput(e.target.value)}
                    onBlur={() => setPageInput(null)}
                    onKeyDown={(e) => {
                      if (e.key !== 'Enter') return;
                      // Enter goes to the page, not to "Record decision".
                      e.preventDefault();
                      const n = Number(pageInput);
                      if (Number.isInteger(n) && n >= 1 && n <= shown.pages) form.goToPage(n);
                      setPageInput(null);
                    }}
                  />
                  <span>of {shown.pages.toLocaleString()}</span>
                  <button
                    type="button"
                    className="button small-button"
                    disabled={shown.page >= shown.pages}
                    onClick={() => form.goToPage(shown.page + 1)}
                  >
                    Next page
                  </button>
                </nav>
              )}
              <div
                className="source-text"
                ref={sourceBox}
                role="region"
                aria-label={`Source text: ${title ?? 'the source'}${shown.pages > 1 ? `, page ${shown.page}` : ''}`}
                tabIndex={0}
                onMouseUp={takeSelection}
                onKeyUp={takeSelection}
              >
                {shown.ocr && <p className="ocr-mark">Text recognised by OCR — check it against the scan.</p>}
                <DocumentText text={shown.text} highlight={highlight} />
              </div>
            </>
          )}
        </div>
      </div>
    </>
  );
}
