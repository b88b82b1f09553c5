import { useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { documentPath, documentQuotePath } from '../shared/paths.ts';
import { ErrorState } from '../shared/states.tsx';
import { trpc, type RouterOutputs } from '../trpc.ts';
import { authorYear, tagLabel } from './paper-words.ts';
import { pageLabel, excerpt, highlight } from './row-words.ts';

type Doc = RouterOutputs['documents']['list'][number];

/**
 * `documents.search`: the caller's own documents only (the form says so), ranked by keywords and
 * meaning, with the passage that matched, its matched terms marked; a hit opens the document at
 * its page.
 */
export function LibrarySearch({
  documents,
  tag,
  children,
}: {
  documents: Doc[] | undefined;
  /** Narrows the search to the owner's documents with this tag. */
  tag: string | null;
  /** The Tag filter, beside the search box. */
  children?: ReactNode;
}) {
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState('');
  const results = useQuery({
    ...trpc.documents.search.queryOptions(tag === null ? { query } : { query, tag }),
    enabled: query !== '',
  });
  const sourceOf = (id: string) => documents?.find((d) => d.id === id)?.source;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setQuery(draft.trim());
  };
  return (
    <section className="box library-search" aria-labelledby="library-search-label">
      <form role="search" onSubmit={submit}>
        {children}
        <label id="library-search-label" htmlFor="library-search-input">
          Search your documents
        </label>{' '}
        <input
          id="library-search-input"
          type="search"
          value={draft}
          maxLength={1000}
          placeholder="Ask a question or name a topic"
          aria-describedby="library-search-scope"
          onChange={(e) => setDraft(e.target.value)}
        />{' '}
        <button type="submit" className="button">
          Search
        </button>
      </form>
      <p id="library-search-scope" className="small muted">
        {tag === null
          ? 'Searches only the documents you own, not those shared with you or published by others.'
          : `Searches only the documents you own tagged ${tagLabel(tag)}.`}
      </p>
      {query === '' ? null : results.isPending ? (
        <p className="small muted" aria-live="polite">
          Searching…
        </p>
      ) : results.isError ? (
        <ErrorState error={results.error} onRetry={() => void results.refetch()} title="Search failed" />
      ) : (
        <SearchHits query={query} hits={results.data} sourceOf={sourceOf} tag={tag} />
      )}
    </section>
  );
}

type Hit = RouterOutputs['documents']['search'][number];

/** What a hit's score is (packages/library/README.md, "What a search answers"). */
const SCORE_MEANS =
  'The chance, 0 to 1, that this passage is what you searched for, from the words it shares with your ' +
  'search and how close it is in meaning: of the hits scored 0.9 on Sponge’s test set, about 9 in 10 were.';

/**
 * Where a hit opens: its document at the passage, highlighted, by the link a citation chip uses
 * (`?page=&quote=`); a passage of the abstract (no span in the text) opens the document.
 */
function hitPath(hit: Hit): string {
  return hit.end > hit.start ? documentQuotePath(hit.id, hit.page, hit.passage) : documentPath(hit.id);
}

/** What a search found: each hit with its passage, its matched words marked, or that none matched. */
export function SearchHits({
  query,
  hits,
  sourceOf,
  tag = null,
}: {
  query: string;
  hits: readonly Hit[];
  sourceOf: (documentId: string) => string | undefined;
  tag?: string | null;
}) {
  return hits.length === 0 ? (
    <p className="small muted" aria-live="polite">
      No passage of your library{tag === null ? '' : ` tagged ${tagLabel(tag)}`} matches “{query}”. Documents
      still being indexed are not searched yet.
    </p>
  ) : (
    <ol className="hit-list" aria-label="Search results">
      {hits.map((hit) => {
        const page = pageLabel(hit.page, sourceOf(hit.id));
        return (
          <li key={`${hit.id}/${hit.chunk}`}>
            <div className="hit-head">
              <span>
                {/* The paper it is from, as the library's rows say it. */}
                {authorYear(hit) !== null && `${authorYear(hit)} · `}
                <Link to={hitPath(hit)}>{hit.title}</Link>
                {hit.venue !== '' && <span className="muted"> · {hit.venue}</span>}
              </span>
              {page && <span className="small muted">{page}</span>}
              <span className="small faint" title={SCORE_MEANS}>
                <span className="visually-hidden">Score </span>
                {hit.score.toFixed(2)}
              </span>
            </div>
            <p className="small hit-passage">
              {highlight(excerpt(hit.passage, hit.terms), hit.terms).map((piece, i) =>
                piece.mark ? <mark key={i}>{piece.text}</mark> : piece.text,
              )}
            </p>
          </li>
        );
      })}
    </ol>
  );
}
