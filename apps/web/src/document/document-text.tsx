import { paragraphSpans, type Paragraph } from './pages.ts';
import type { Span } from './quote.ts';

// A document's text as a reader sees it: paragraphs split on blank lines, each a `<p>` holding
// only its text, which keeps selections clean, and for a PDF a small "Page N" marker before each
// page, which cannot be selected (CSS), so a passage across pages reads as the text itself. The
// same pieces on the document page (windowed-text.tsx, a long text a few screens at a time) and in
// the review workbench's source viewer (one page), so a passage is found where it was seen.

/** A stretch of text (one page of a document) as its paragraphs, `highlight` marked in it. */
export function DocumentText({ text, highlight = null }: { text: string; highlight?: Span | null }) {
  return (
    <div className="doc-page">
      <Paragraphs paragraphs={paragraphSpans(text, 0)} highlight={highlight} />
    </div>
  );
}

/**
 * A page's marker, "Page N" — a heading, for jumping page to page with a screen reader, with the
 * id `page-N` a link can scroll to — and the OCR notice of a page recognised from a scan.
 */
export function PageHead({ number, ocr }: { number: number; ocr: boolean }) {
  return (
    <>
      <h2 className="page-no" id={`page-${number}`}>
        Page {number}
      </h2>
      {ocr && <p className="ocr-mark">Text recognised by OCR — check it against the scan.</p>}
    </>
  );
}

/**
 * Paragraphs of the text, each a `<p>` holding only its text, the part inside `highlight` (a cited
 * quote) in `<mark class="quoted">` in every paragraph it touches.
 */
export function Paragraphs({ paragraphs, highlight }: { paragraphs: Paragraph[]; highlight: Span | null }) {
  return paragraphs.map((p) => <p key={p.start}>{marked(p, highlight)}</p>);
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
