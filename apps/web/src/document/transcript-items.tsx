import type { Citation } from '@sponge/contract';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { memoryPanelPath } from '../shared/paths.ts';
import { memoryCardHeadline, type MemoryCard } from './memory-card.ts';
import { citationView, libraryCardView, type LibraryCard } from './transcript-views.ts';

/** "Searched the library for “…” — 5 hits", "Read p. 4 of “…”" (a link to what was read). */
export function LibraryCardView({ card }: { card: LibraryCard }) {
  const { text, href } = libraryCardView(card);
  return (
    <div className="library-card">
      <p>
        {card.action === 'searched' ? <SearchIcon /> : <PageIcon />}
        {href ? <Link to={href}>{text}</Link> : text}
      </p>
    </div>
  );
}

/**
 * "Remembered 3 notes: …" (or "Removed 2 notes: …") with a link to the panel at that session;
 * nothing named once the session is closed for good, which reads "Memory forgotten" (Forget now)
 * or "Memory purged" (the worker, after it expired), the words the library and the panel use.
 */
export function MemoryCardView({
  card,
  documentId,
  closedAs = 'forgotten',
}: {
  card: MemoryCard;
  documentId: string;
  closedAs?: 'forgotten' | 'purged';
}) {
  const href = memoryPanelPath(documentId, card.sessionId);
  if (card.forgotten) {
    return (
      <div className="memory-card forgotten">
        <p>
          <MemoryIcon />
          Memory {closedAs}
        </p>
        <Link to={href}>View in Memory</Link>
      </div>
    );
  }
  return (
    <div className="memory-card">
      <p>
        <MemoryIcon />
        {memoryCardHeadline(card)}
        {card.names.length > 0 && (
          <>
            : <span className="names">{card.names.join(', ')}</span>
          </>
        )}
      </p>
      <Link to={href}>
        View in Memory <span aria-hidden="true">→</span>
      </Link>
    </div>
  );
}

/**
 * What an agent's reply cites, numbered as its sentences mark them ([1]): a verified quote is a
 * link to the passage highlighted (the quote itself is its description) that says what was
 * checked — the quote found on that page, and whether the passage supports the sentence, with a
 * warning when it does not; an unverified one, or one whose document is gone, is plain text
 * saying so; a working note says it is not evidence and links to the Memory panel.
 */
export function Citations({
  citations,
  memoryHref,
}: {
  citations: readonly Citation[];
  /** The Memory panel at the run's session, or null when the run has no memory. */
  memoryHref: string | null;
}) {
  return (
    <ol className="citations" aria-label="Citations">
      {citations.map((c, i) => {
        const view = citationView(c, memoryHref);
        const no = <span className="cite-no">[{i + 1}]</span>;
        switch (view.kind) {
          case 'verified': {
            const support = view.support.kind;
            return (
              <li key={i}>
                <Link
                  className={`cite-chip verified${support === 'unsupported' ? ' unsupported' : ''}`}
                  to={view.href}
                  title={`“${view.quote}”`}
                >
                  {no} {view.label} · <span aria-hidden="true">✓</span> {view.found} ·{' '}
                  <span className={`cite-support ${support}`}>
                    {support === 'unsupported' && <span aria-hidden="true">⚠ </span>}
                    {view.support.words}
                  </span>
                </Link>
              </li>
            );
          }
          case 'note':
            return (
              <li key={i}>
                <span className="cite-chip note">
                  {no}{' '}
                  {view.label !== null &&
                    (view.href ? (
                      <>
                        <Link to={view.href} title="View in Memory">
                          {view.label}
                        </Link>{' '}
                      </>
                    ) : (
                      <>
                        <span className="cite-note">{view.label}</span>{' '}
                      </>
                    ))}
                  <span className="cite-why">{view.why}</span>
                </span>
              </li>
            );
          default:
            return (
              <li key={i}>
                <span
                  className="cite-chip unverified"
                  title={view.kind === 'unverified' && view.quote ? `“${view.quote}”` : undefined}
                >
                  {no} <span aria-hidden="true">⚠</span> {view.label}{' '}
                  <span className="cite-why">— {view.why}</span>
                </span>
              </li>
            );
        }
      })}
    </ol>
  );
}

// Small glyphs that need no emoji font (CI's Chromium has none), each on the same 16-unit grid
// drawn at 14 px, hidden from assistive technology (the card's words say what it is).
function CardIcon({ children }: { children: ReactNode }) {
  return (
    <svg
      className="card-icon"
      viewBox="0 0 16 16"
      width="14"
      height="14"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}

function SearchIcon() {
  return (
    <CardIcon>
      <circle cx="7" cy="7" r="4.3" fill="none" stroke="currentColor" strokeWidth="1.4" />
      <path d="m10.2 10.2 3.6 3.6" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
    </CardIcon>
  );
}

function PageIcon() {
  return (
    <CardIcon>
      <path
        d="M4 1.8h5.2L12.5 5v9.2H4Zm5 0V5h3.4M6 8h4.5M6 10.5h4.5"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.2"
        strokeLinejoin="round"
      />
    </CardIcon>
  );
}

function MemoryIcon() {
  return (
    <CardIcon>
      <path
        d="M8 2.5a3 3 0 0 0-5.6 1.5A2.8 2.8 0 0 0 2 9.3 2.8 2.8 0 0 0 5 13.5h6a2.8 2.8 0 0 0 3-4.2A2.8 2.8 0 0 0 13.6 4 3 3 0 0 0 8 2.5Zm0 0v11"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.3"
        strokeLinejoin="round"
      />
    </CardIcon>
  );
}
