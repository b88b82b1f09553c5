import { useId, useState } from 'react';
import { Link, useParams } from 'react-router';
import { markReviewOpen } from '../review/open-timing.ts';
import { reviewHistoryPath } from '../shared/paths.ts';
import type { FieldInWords } from '../review/fields-in-words.ts';
import { CitedPassage } from '../review/cited-passage.tsx';
import { FieldsList } from '../review/fields-list.tsx';
import { formatWhen } from '../shared/time.ts';
import type { RouterOutputs } from '../trpc.ts';
import { noteReviewWords } from './panel-words.ts';

type Panel = RouterOutputs['memory']['panel'];
type Note = Panel['workingNotes'][number];
type Reviewed = Panel['reviewedInView'][number];

type Conflict = Note['conflicts'][number];

type Props =
  | { kind: 'note'; rows: Note[]; onPropose?: ((note: Note) => void) | undefined }
  | {
      kind: 'reviewed';
      rows: Reviewed[];
      reviewerName: (rec: Reviewed) => string;
      /** The record's profile fields in words (review/fields-in-words.ts). */
      fieldsOf: (rec: Reviewed) => FieldInWords[];
    };

/** A list of disclosure rows: each opens to the record's text, data, links (and review). */
export function MemoryRows(props: Props) {
  return (
    <ul className="rows">
      {props.kind === 'note'
        ? props.rows.map((note) => <NoteRow key={note.name} note={note} onPropose={props.onPropose} />)
        : props.rows.map((rec) => (
            <ReviewedRow
              key={rec.name}
              rec={rec}
              reviewerName={props.reviewerName(rec)}
              fields={props.fieldsOf(rec)}
            />
          ))}
    </ul>
  );
}

function NoteRow({ note, onPropose }: { note: Note; onPropose?: ((note: Note) => void) | undefined }) {
  const nameId = useId();
  return (
    <Row
      record={note}
      nameId={nameId}
      action={onPropose && <ReviewAction note={note} nameId={nameId} onPropose={onPropose} />}
      by={
        <span title={`${note.author}, ${note.updatedAt}`}>
          {shortAuthor(note.author)} · {formatWhen(note.updatedAt)}
        </span>
      }
    >
      <Field label="Author">{note.author}</Field>
      <Field label="Written">
        <time dateTime={note.createdAt} title={note.createdAt}>
          {formatWhen(note.createdAt)}
        </time>
        {note.updatedAt !== note.createdAt && (
          <>
            {' '}
            · changed{' '}
            <time dateTime={note.updatedAt} title={note.updatedAt}>
              {formatWhen(note.updatedAt)}
            </time>
          </>
        )}
      </Field>
    </Row>
  );
}

/**
 * *Propose for review* on every working note, or, once the note was decided, what became of it
 * (panel-words.ts `noteReviewWords`): accepted links to the review history, where the record is;
 * rejected offers *Propose again*. The buttons are plain buttons, not dialog triggers: no
 * aria-expanded, so the row's disclosure button stays the only expandable control of the row;
 * their description names the note.
 */
function ReviewAction({
  note,
  nameId,
  onPropose,
}: {
  note: Note;
  nameId: string;
  onPropose: (note: Note) => void;
}) {
  const { id: documentId = '' } = useParams();
  const review = note.review;
  const { state, propose } = noteReviewWords(review);
  const button = propose && (
    <button
      type="button"
      className="button small-button"
      onClick={() => {
        markReviewOpen();
        onPropose(note);
      }}
      aria-describedby={nameId}
    >
      {propose}
    </button>
  );
  if (review?.decision === 'accept') {
    return (
      <Link
        className="review-state accepted small"
        to={reviewHistoryPath(documentId)}
        aria-describedby={nameId}
      >
        <span aria-hidden="true">✓ </span>
        {state} <span aria-hidden="true">→</span>
      </Link>
    );
  }
  return state ? (
    <span className="review-state rejected small">
      {state} {button}
    </span>
  ) : (
    button
  );
}

function ReviewedRow({
  rec,
  reviewerName,
  fields,
}: {
  rec: Reviewed;
  reviewerName: string;
  fields: FieldInWords[];
}) {
  return (
    <Row
      record={rec}
      dataView={
        fields.length === 0 ? (
          <span className="faint">None</span>
        ) : (
          <FieldsList lines={fields} label={`Fields of ${rec.name}`} />
        )
      }
      by={
        <span title={rec.createdAt}>
          reviewed by {reviewerName} · rev {rec.revision}
        </span>
      }
    >
      <Field label="Cited passage">
        <CitedPassage passage={rec.passage} source={rec.source} />
      </Field>
      {/* Only accepted reviews make a revision, so every record in view was accepted. */}
      <Field label="Decision">
        Accepted by {reviewerName} ·{' '}
        <time dateTime={rec.createdAt} title={rec.createdAt}>
          {formatWhen(rec.createdAt)}
        </time>
      </Field>
      <Field label="Comment">{rec.comment || <span className="faint">No comment</span>}</Field>
      <Field label="Revision">{rec.revision}</Field>
    </Row>
  );
}

interface RecordLike {
  kind: string;
  name: string;
  digest: string;
  text: string;
  data: unknown;
  links: Note['links'];
  conflicts: Conflict[];
}

function Row({
  record,
  by,
  action,
  nameId,
  dataView,
  children,
}: {
  record: RecordLike;
  nameId?: string;
  by: React.ReactNode;
  /** A reviewed record's fields in words, shown instead of its data. */
  dataView?: React.ReactNode;
  /** A control beside the row (Propose for review); never inside the disclosure button. */
  action?: React.ReactNode;
  children: React.ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const detailId = useId();
  // Corrections and retractions are marks of their own; the rest are conflicts between two rows.
  const conflicts = record.conflicts.filter(
    (c) => c.reason === 'different_content' || c.reason === 'contradicts',
  );
  const revisions = record.conflicts.filter((c) => !conflicts.includes(c));
  return (
    <li>
      <div className="row-line">
        <button
          type="button"
          className="row-button"
          aria-expanded={open}
          aria-controls={detailId}
          onClick={() => setOpen((o) => !o)}
        >
          <span className="chev" aria-hidden="true">
            ▸
          </span>
          <span className="row-kind">{record.kind}</span>
          <span className="row-name" id={nameId}>
            {record.name}
          </span>
          <span className="row-digest" title={record.digest}>
            {shortDigest(record.digest)}
          </span>
          <span className="row-by">{by}</span>
          <span className="conflict">{rowMarks(revisions, conflicts.length)}</span>
        </button>
        {action && <div className="row-action">{action}</div>}
      </div>
      <div className="row-detail" id={detailId} hidden={!open}>
        {open && (
          <dl>
            <Field label="Text">
              <div className="text">{record.text}</div>
            </Field>
            {dataView !== undefined ? (
              <Field label="Fields">{dataView}</Field>
            ) : (
              <Field label="Data">
                {record.data === null || record.data === undefined ? (
                  <span className="faint">None</span>
                ) : (
                  <pre>{JSON.stringify(record.data, null, 2)}</pre>
                )}
              </Field>
            )}
            <Field label="Links">
              {record.links.length === 0 ? (
                <span className="faint">None</span>
              ) : (
                <ul className="links">
                  {record.links.map((link, i) => (
                    <li key={i}>
                      <span className="rel">{link.rel.replace('_', ' ')}</span> →{' '}
                      <span className="mono">{link.to}</span>
                    </li>
                  ))}
                </ul>
              )}
            </Field>
            {conflicts.length > 0 && (
              <Field label="Conflicts with">
                <ul className="links">
                  {conflicts.map((c, i) => (
                    <li key={i}>
                      <span className="mono">{c.name}</span>{' '}
                      <span className="rel">
                        ({c.source === 'note' ? 'working note' : 'reviewed'},{' '}
                        {c.reason === 'contradicts' ? 'a contradicts link' : 'same name, different content'})
                      </span>
                    </li>
                  ))}
                </ul>
              </Field>
            )}
            {revisions.length > 0 && (
              <Field label="Corrections">
                <ul className="links">
                  {revisions.map((c, i) => (
                    <li key={i}>{describeRevision(record.name, c)}</li>
                  ))}
                </ul>
              </Field>
            )}
            {children}
            <Field label="Digest">
              <span className="mono">{record.digest}</span>
            </Field>
          </dl>
        )}
      </div>
    </li>
  );
}

/**
 * The row's warning: `⚠ retracted` or `⚠ corrected` when a correction or retraction touches the
 * record (a correction itself is not warned about), then how many rows it conflicts with.
 */
function rowMarks(revisions: Conflict[], conflicts: number): string {
  const parts: string[] = [];
  if (revisions.some((c) => c.reason === 'retracted')) parts.push('⚠ retracted');
  else if (revisions.some((c) => c.reason === 'corrected')) parts.push('⚠ corrected');
  if (conflicts > 0) parts.push(`${parts.length ? '' : '⚠ '}conflicts with ${conflicts}`);
  return parts.join(' · ');
}

/** "corrected by correction:x", "depends on study:s, retracted by correction:y", "corrects finding:z"… */
function describeRevision(self: string, c: Conflict): React.ReactNode {
  const name = <span className="mono">{c.name}</span>;
  if (c.reason === 'corrects') return <>corrects {name}</>;
  const verb = c.reason === 'retracted' ? 'retracted' : 'corrected';
  // A publication retracted by its own status names itself.
  const by =
    c.name === (c.via ?? self) ? (
      <>{verb} (its status says so)</>
    ) : (
      <>
        {verb} by {name}
      </>
    );
  if (c.via === undefined) return by;
  return (
    <>
      depends on <span className="mono">{c.via}</span>, {by}
    </>
  );
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

/** SPEC §3: the first 4 hex digits and "...". */
function shortDigest(digest: string): string {
  return `${digest.slice(0, 4)}...`;
}

/** "agent:run-3f…" reads as "agent" in the row; the opened row has it in full. */
function shortAuthor(author: string): string {
  return author.split(':')[0] || author;
}
