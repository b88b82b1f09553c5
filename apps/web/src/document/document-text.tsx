import { pagesOf, type Paragraph } from './pages.ts';
import type { Span } from './quote.ts';

/**
 * A document's text as a reader sees it: paragraphs split on blank lines and, for a PDF, a small
 * "Page N" marker before each page (cut at the API's `pageStarts`). The same rendering on the
 * document page and in the review workbench's source viewer, so a passage is found where it was
 * seen. Each paragraph is a `<p>` holding only its text, which keeps selections clean; the
 * markers cannot be selected (CSS), so a passage across pages reads as the text itself.
 */
export function DocumentText({
  text,
  source,
  pageStarts,
  ocrPages,
  markerLevel = 2,
  anchors = false,
  highlight = null,
}: {
  text: string;
  source?: string;
  pageStarts?: readonly number[] | null;
  /** Pages whose text OCR recognised from a scan: each says so, to be checked against the scan. */
  ocrPages?: readonly number[] | null;
  /** Page markers are headings, for jumping page to page with a screen reader. */
  markerLevel?: 2 | 3 | 4;
  /** Gives page markers ids (`page-3`), so a search hit can link to its page; once per screen. */
  anchors?: boolean;
  /** A stretch of `text` to mark (a cited quote), in `<mark class="quoted">` in every paragraph it touches. */
  highlight?: Span | null;
}) {
  const paged = source === 'pdf';
  const pages = pagesOf(text, paged ? pageStarts : null);
  const Marker = `h${markerLevel}` as const;
  return (
    <>
      {pages.map((page) => (
        <div className="doc-page" key={page.number}>
          {paged && (
            <Marker className="page-no" id={anchors ? `page-${page.number}` : undefined}>
              Page {page.number}
            </Marker>
          )}
          {paged && ocrPages?.includes(page.number) && (
            <p className="ocr-mark">Text recognised by OCR — check it against the scan.</p>
          )}
          {page.paragraphs.length === 0 && paged ? (
            <p className="page-empty">This page has no text.</p>
          ) : (
            page.paragraphs.map((p, i) => <p key={i}>{marked(p, highlight)}</p>)
          )}
        </div>
      ))}
    </>
  );
}

/** The paragraph's text, with the part of it inside `span` marked. */
function marked(p: Paragraph, span: Span | null): React.ReactNode {
  if (!span) return p.text;
  const from = Math.max(span.start - p.start, 0);
  const to = Math.min(span.end - p.start, p.text.length);
  if (from >= to) return p.text;
  return (
    <>
      {p.text.slice(0, from)}
      <mark className="quoted">{p.text.slice(from, to)}</mark>
      {p.text.slice(to)}
    </>
  );
}
