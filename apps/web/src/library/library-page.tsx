import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { documentPath, memoryPanelPath } from '../shared/paths.ts';
import { ErrorState, SkeletonRows } from '../shared/states.tsx';
import { useNow } from '../shared/use-now.ts';
import { useTitle } from '../shared/use-title.ts';
import { trpc, type RouterOutputs } from '../trpc.ts';
import { AddDocumentDialog } from './add-document-dialog.tsx';
import { selectionWords } from './cite.ts';
import { CiteMenu } from './cite-menu.tsx';
import { ImportDialog } from './import-dialog.tsx';
import { IndexState } from './index-state.tsx';
import { LibrarySearch } from './library-search.tsx';
import { authorYear, tagLabel } from './paper-words.ts';
import { accessLabel, activityLabel, anyIndexing, holdsMemory, memoryLabel, pollMs } from './row-words.ts';
import { LIST_PAGE, librarySections, moreRows, ownTags, withTag } from './sections.ts';

type Doc = RouterOutputs['documents']['list'][number];

/** The library (UI.md): the caller's documents, most recently active first (the API's order). */
export default function LibraryPage() {
  useTitle('Library');
  const documents = useQuery({
    ...trpc.documents.list.queryOptions(),
    // While a document is indexed its row counts up; once none is, the list stops asking.
    refetchInterval: (query) =>
      anyIndexing(query.state.data) ? pollMs(query.state.data?.length ?? 0, 500) : false,
  });
  const [tag, setTag] = useState<string | null>(null);
  const tags = ownTags(documents.data ?? []);
  // A tag gone from every document (edited away) filters nothing any more.
  const shownTag = tag !== null && tags.some((t) => t.toLowerCase() === tag.toLowerCase()) ? tag : null;
  return (
    <>
      <div className="page-head">
        <h1>Library</h1>
        <div className="head-actions">
          <AddDocumentDialog />
          <ImportDialog />
        </div>
      </div>
      <LibrarySearch documents={documents.data} tag={shownTag}>
        {tags.length > 0 && <TagFilter tags={tags} tag={shownTag} onTag={setTag} />}
      </LibrarySearch>
      {documents.isPending ? (
        <div className="box" aria-busy="true">
          <span className="visually-hidden">Loading documents…</span>
          <SkeletonRows rows={4} />
        </div>
      ) : documents.isError ? (
        <ErrorState
          error={documents.error}
          onRetry={() => void documents.refetch()}
          title="Could not load the library"
        />
      ) : (
        <Sections docs={documents.data} tag={shownTag} />
      )}
    </>
  );
}

/** "Tag [ all ▾ ]": narrows the list and the search to the owner's documents with one tag. */
function TagFilter({
  tags,
  tag,
  onTag,
}: {
  tags: string[];
  tag: string | null;
  onTag: (tag: string | null) => void;
}) {
  const id = useId();
  return (
    <span className="tag-filter">
      <label htmlFor={id}>Tag</label>{' '}
      <select
        id={id}
        value={tag ?? ''}
        onChange={(e) => onTag(e.target.value === '' ? null : e.target.value)}
      >
        <option value="">all</option>
        {tags.map((t) => (
          <option key={t} value={t}>
            {tagLabel(t)}
          </option>
        ))}
      </select>
    </span>
  );
}

/**
 * The owner's own documents, then what others share or publish under their own headings: a new
 * account's library is empty even when someone's published document is there to read. With a
 * tag chosen, only the owner's documents with it. Rows can be selected to cite together.
 */
function Sections({ docs, tag }: { docs: Doc[]; tag: string | null }) {
  const { own, others } = librarySections(docs);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  // Only what is listed counts: a removed or filtered-out document is not cited unseen.
  const listed = tag === null ? docs : withTag(own, tag);
  const selected = listed.filter((d) => chosen.has(d.id)).map((d) => d.id);
  const selection = selectionWords(selected.length);
  const toggle = (id: string) =>
    setChosen((now) => {
      const next = new Set(now);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const rows = { selected: chosen, onToggle: toggle };
  return (
    <>
      {docs.length > 0 && (
        <div className="selection-bar" role="group" aria-label="Selected documents">
          <span className="small muted" aria-live="polite">
            {selection.words}
          </span>
          {/* Keyed by the selection: what was copied is not said of another selection. */}
          <CiteMenu
            key={selected.join(' ')}
            documentIds={selected}
            label="Cite selected"
            disabled={!selection.citable}
          />
          {selected.length > 0 && (
            <button type="button" className="button small-button" onClick={() => setChosen(new Set())}>
              Clear selection
            </button>
          )}
        </div>
      )}
      {own.length === 0 ? (
        <div className="box state-block">
          <strong>Your library is empty</strong>
          <p>
            Use <em>Add document</em> to upload a PDF, a plain-text or a Markdown file, or to paste a text, or{' '}
            <em>Import</em> what a reference manager exported. The agent then works inside it, and you can
            cite its passages in reviews.
          </p>
        </div>
      ) : tag !== null ? (
        <DocumentList docs={withTag(own, tag)} label={`Your documents tagged ${tagLabel(tag)}`} {...rows} />
      ) : (
        <DocumentList docs={own} label="Your documents" {...rows} />
      )}
      {tag === null &&
        others.map((section) => (
          <section key={section.heading} className="library-section" aria-label={section.heading}>
            <h2>{section.heading}</h2>
            <DocumentList
              docs={section.docs}
              label={`Documents ${section.heading.toLowerCase()}`}
              {...rows}
            />
          </section>
        ))}
    </>
  );
}

/**
 * One list of the library, its first LIST_PAGE rows and then as many more as asked for: a
 * library of thousands of papers opens with a page of them, not a page of thousands of rows.
 */
export function DocumentList({
  docs,
  label,
  selected,
  onToggle,
}: {
  docs: Doc[];
  label: string;
  selected: ReadonlySet<string>;
  onToggle: (id: string) => void;
}) {
  // Minutes are the finest unit in the list; the Memory panel has the ticking countdown.
  const now = useNow(30_000);
  const [shown, setShown] = useState(LIST_PAGE);
  const more = moreRows(docs.length, shown);
  return (
    <>
      <ul className="doc-list" aria-label={label}>
        {docs.slice(0, shown).map((doc) => {
          const memory = memoryLabel(doc.memory, now);
          // The row's links and buttons say which document they are about through its title.
          const titleId = `doc-title-${doc.id}`;
          const who = authorYear(doc);
          return (
            <li key={doc.id} className="doc-row">
              <input
                type="checkbox"
                className="doc-select"
                checked={selected.has(doc.id)}
                onChange={() => onToggle(doc.id)}
                aria-label={`Select “${doc.title}”`}
              />
              <div className="doc-main">
                {/* "Hughes et al. 2017 · Global warming and … · Nature  #bleaching" (UI.md) */}
                {who !== null && <span className="paper-who">{who} · </span>}
                <Link to={documentPath(doc.id)} id={titleId}>
                  {doc.title}
                </Link>
                {doc.venue !== '' && <span className="muted"> · {doc.venue}</span>}
                {doc.tags.length > 0 && (
                  <ul className="tags" aria-label="Tags">
                    {doc.tags.map((t) => (
                      <li key={t} className="tag">
                        {tagLabel(t)}
                      </li>
                    ))}
                  </ul>
                )}
              </div>
              <span className={`access ${doc.access}`}>
                <span className="visually-hidden">Access: </span>
                {accessLabel(doc.access, doc.ownerName)}
              </span>
              <span className="small muted activity" title={doc.lastActivityAt}>
                {activityLabel(doc, now)}
              </span>
              <div className="doc-state">
                {memory && doc.memory && (
                  <Link
                    className={holdsMemory(doc.memory) ? 'memory-link holds' : 'memory-link'}
                    to={memoryPanelPath(doc.id, doc.memory.sessionId)}
                    aria-describedby={titleId}
                  >
                    {memory} <span aria-hidden="true">→</span>
                  </Link>
                )}
                {doc.access === 'owner' && (
                  <IndexState documentId={doc.id} index={doc.index} describedBy={titleId} />
                )}
              </div>
            </li>
          );
        })}
      </ul>
      {more !== null && (
        <p className="list-more">
          <span className="small muted">{more.words}</span>{' '}
          <button type="button" className="button small-button" onClick={() => setShown(shown + more.next)}>
            Show {more.next.toLocaleString('en')} more
          </button>
        </p>
      )}
    </>
  );
}
