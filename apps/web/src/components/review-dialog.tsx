import * as Dialog from '@radix-ui/react-dialog';
import { useMutation, useQueries, useQuery } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { errorIssues, errorMessage } from '../lib/errors.ts';
import { passageOccursIn } from '../lib/passage.ts';
import { buildFields, issuesAt, prefill, proposedName } from '../lib/review-form.ts';
import type { FormValues, KindPreview } from '../lib/review-form.ts';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';
import { FieldInputs } from './field-inputs.tsx';

type Note = RouterOutputs['memory']['panel']['workingNotes'][number];
type Installed = RouterOutputs['profiles']['installed'];
type Outcome = RouterOutputs['review']['decide'];

interface KindOption {
  key: string;
  label: string;
  profile: string;
  kind: KindPreview;
}

/**
 * The review workbench (UI.md): from a working note, pick a kind of an installed profile, fill
 * its fields, cite a passage of a library document, and record accept or reject with a comment.
 * The passage check here is a convenience; the API re-checks everything and its per-field
 * messages are shown next to the fields.
 */
export function ReviewDialog({
  documentId,
  session,
  note,
  installed,
  knownNames,
  onClose,
}: {
  documentId: string;
  session: { id: string; pinnedRevision: number };
  /** The note being proposed; null keeps the dialog closed. */
  note: Note | null;
  installed: Installed;
  knownNames: readonly string[];
  onClose: () => void;
}) {
  return (
    <Dialog.Root open={note !== null} onOpenChange={(open) => !open && onClose()}>
      {note && (
        <Workbench
          key={`${session.id}/${note.name}`}
          documentId={documentId}
          session={session}
          note={note}
          installed={installed}
          knownNames={knownNames}
        />
      )}
    </Dialog.Root>
  );
}

function Workbench({
  documentId,
  session,
  note,
  installed,
  knownNames,
}: {
  documentId: string;
  session: { id: string; pinnedRevision: number };
  note: Note;
  installed: Installed;
  knownNames: readonly string[];
}) {
  const ids = {
    kind: useId(),
    name: useId(),
    text: useId(),
    source: useId(),
    passage: useId(),
    check: useId(),
    comment: useId(),
  };
  const previews = useQueries({
    queries: installed.map((p) => ({
      ...trpc.profiles.preview.queryOptions({ name: p.name }),
      staleTime: Infinity,
    })),
  });
  const options: KindOption[] = previews.flatMap((q) =>
    q.data
      ? q.data.kinds.map((kind) => ({
          key: `${q.data.name}/${kind.name}`,
          label: `${q.data.title} › ${kind.name}`,
          profile: q.data.name,
          kind,
        }))
      : [],
  );
  const documents = useQuery(trpc.documents.list.queryOptions());

  const [kindKey, setKindKey] = useState('');
  const [edited, setEdited] = useState<Record<string, FormValues>>({});
  const [name, setName] = useState<string | null>(null);
  const [text, setText] = useState(note.text);
  const [sourceId, setSourceId] = useState(documentId);
  const [passage, setPassage] = useState('');
  const [decision, setDecision] = useState<'accept' | 'reject'>('accept');
  const [comment, setComment] = useState('');
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const closeRef = useRef<HTMLButtonElement>(null);

  // The note's own kind when a profile has it, else a finding, else the first kind there is.
  const chosen =
    options.find((o) => o.key === kindKey) ??
    options.find((o) => o.kind.name === note.kind) ??
    options.find((o) => o.kind.name === 'finding') ??
    options[0];
  const values = chosen ? (edited[chosen.key] ?? prefill(chosen.kind.fields, note)) : {};
  const recordName = name ?? (chosen ? proposedName(chosen.kind.name, note.name) : note.name);

  const source = useQuery(trpc.documents.get.queryOptions({ documentId: sourceId }));
  const found = passage.trim() && source.data ? passageOccursIn(passage, source.data.text) : null;

  // The server's per-field messages; a field's own go away once the person edits it.
  const [issues, setIssues] = useState<Array<{ path: string; message: string }>>([]);
  const clearIssues = (...paths: string[]) =>
    setIssues((all) => all.filter((i) => !paths.some((p) => i.path === p || i.path.startsWith(`${p}.`))));
  const decide = useMutation(
    trpc.review.decide.mutationOptions({
      onMutate: () => setIssues([]),
      onError: (error) => setIssues(errorIssues(error)),
      onSuccess: async (out) => {
        setOutcome(out);
        await queryClient.invalidateQueries({ queryKey: trpc.review.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.memory.pathKey() });
        closeRef.current?.focus();
      },
    }),
  );
  const at = (path: string) => issuesAt(issues, path);
  const placed = [
    'profile',
    'kind',
    'fields',
    'name',
    'text',
    'sourceDocumentId',
    'passage',
    'decision',
    'comment',
  ];
  const unplaced = issues.filter((i) => !placed.some((p) => i.path === p || i.path.startsWith(`${p}.`)));

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!chosen) return;
    decide.mutate({
      documentId,
      fromSession: session.id,
      fromNote: note.name,
      profile: chosen.profile,
      kind: chosen.kind.name,
      fields: buildFields(chosen.kind.fields, values),
      name: recordName,
      text,
      sourceDocumentId: sourceId,
      passage,
      decision,
      comment,
    });
  };

  const sourceBox = useRef<HTMLDivElement>(null);
  // Selecting text in the source fills the passage (keyboard users paste, or select with Shift+arrows).
  const takeSelection = () => {
    const sel = window.getSelection();
    const box = sourceBox.current;
    if (!sel || sel.isCollapsed || !box) return;
    if (!box.contains(sel.anchorNode) || !box.contains(sel.focusNode)) return;
    const picked = sel.toString().trim();
    if (picked) {
      setPassage(picked);
      clearIssues('passage');
    }
  };

  const title = `Propose for review: ${note.name}`;
  if (outcome) {
    return (
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title>{title}</Dialog.Title>
          <Dialog.Description asChild>
            <p role="status">
              {outcome.decision === 'accept' && outcome.revision !== null
                ? `Revision ${outcome.revision} created. New runs will see it; running sessions keep revision ${session.pinnedRevision}.`
                : 'Rejection recorded. No revision was created; the decision stays in the review history.'}
            </p>
          </Dialog.Description>
          <p className="small muted">
            {outcome.name} · {outcome.decision === 'accept' ? 'accepted' : 'rejected'}
          </p>
          <div className="dialog-actions">
            <Link className="button" to={`/documents/${encodeURIComponent(documentId)}/reviews`}>
              Review history
            </Link>
            <Dialog.Close className="button primary" ref={closeRef}>
              Close
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    );
  }

  const loadingKinds = previews.some((q) => q.isPending);
  const kindErrors = [...at('profile'), ...at('kind')];
  return (
    <Dialog.Portal>
      <Dialog.Overlay className="overlay" />
      <Dialog.Content className="dialog wide">
        <Dialog.Title>{title}</Dialog.Title>
        <Dialog.Description className="small muted">
          A reviewed record needs a kind of an installed profile with valid fields, a passage of a library
          document, and your decision. The note itself is never evidence.
        </Dialog.Description>
        <form className="workbench" onSubmit={submit} noValidate>
          <div className="wb-row">
            <label htmlFor={ids.kind}>Profile kind</label>
            <div>
              {loadingKinds ? (
                <span className="muted">Loading profiles…</span>
              ) : options.length === 0 ? (
                <span className="notice warn">No profile is installed on this document.</span>
              ) : (
                <select
                  id={ids.kind}
                  value={chosen?.key ?? ''}
                  aria-invalid={kindErrors.length > 0 || undefined}
                  aria-describedby={kindErrors.length > 0 ? `${ids.kind}-err` : undefined}
                  onChange={(e) => {
                    setKindKey(e.target.value);
                    clearIssues('profile', 'kind', 'fields', 'name');
                  }}
                >
                  {previews.map((q) =>
                    q.data ? (
                      <optgroup key={q.data.name} label={q.data.title}>
                        {q.data.kinds.map((k) => (
                          <option key={k.name} value={`${q.data.name}/${k.name}`}>
                            {`${q.data.title} › ${k.name}`}
                          </option>
                        ))}
                      </optgroup>
                    ) : null,
                  )}
                </select>
              )}
              {chosen && <p className="field-hint">{chosen.kind.description}</p>}
              <FieldErrors id={`${ids.kind}-err`} messages={kindErrors} />
            </div>
          </div>

          <div className="wb-row">
            <label htmlFor={ids.name}>Record name</label>
            <div>
              <input
                id={ids.name}
                className="mono"
                value={recordName}
                spellCheck={false}
                aria-invalid={at('name').length > 0 || undefined}
                aria-describedby={`${ids.name}-hint${at('name').length > 0 ? ` ${ids.name}-err` : ''}`}
                onChange={(e) => {
                  setName(e.target.value);
                  clearIssues('name');
                }}
              />
              <p className="field-hint" id={`${ids.name}-hint`}>
                kind:slug — a record with a name already reviewed replaces it in the new revision.
              </p>
              <FieldErrors id={`${ids.name}-err`} messages={at('name')} />
            </div>
          </div>

          {chosen && (
            <div className="wb-row">
              <span className="wb-label" id={`${ids.kind}-fields`}>
                Fields
              </span>
              <div role="group" aria-labelledby={`${ids.kind}-fields`}>
                <FieldInputs
                  fields={chosen.kind.fields}
                  values={values}
                  onChange={(path, v) => {
                    setEdited((all) => ({ ...all, [chosen.key]: { ...values, [path]: v } }));
                    clearIssues(`fields.${path.split('.')[0] ?? path}`);
                  }}
                  errors={(field) => at(`fields.${field}`)}
                  knownNames={knownNames}
                />
                <FieldErrors messages={issuesAt(issues, 'fields', true)} />
              </div>
            </div>
          )}

          <div className="wb-row">
            <label htmlFor={ids.text}>Record text</label>
            <div>
              <textarea
                id={ids.text}
                rows={2}
                value={text}
                aria-invalid={at('text').length > 0 || undefined}
                aria-describedby={`${ids.text}-hint${at('text').length > 0 ? ` ${ids.text}-err` : ''}`}
                onChange={(e) => {
                  setText(e.target.value);
                  clearIssues('text');
                }}
              />
              <p className="field-hint" id={`${ids.text}-hint`}>
                What an agent reads for this record.
              </p>
              <FieldErrors id={`${ids.text}-err`} messages={at('text')} />
            </div>
          </div>

          <div className="wb-row">
            <label htmlFor={ids.source}>Source</label>
            <div>
              <select
                id={ids.source}
                value={sourceId}
                aria-invalid={at('sourceDocumentId').length > 0 || undefined}
                onChange={(e) => {
                  setSourceId(e.target.value);
                  clearIssues('sourceDocumentId', 'passage');
                }}
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
                value={passage}
                placeholder="Select in the source text below, or paste"
                aria-invalid={at('passage').length > 0 || found === false || undefined}
                aria-describedby={`${ids.check}${at('passage').length > 0 ? ` ${ids.passage}-err` : ''}`}
                onChange={(e) => {
                  setPassage(e.target.value);
                  clearIssues('passage');
                }}
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
                  {source.data.text
                    .split(/\n\s*\n/)
                    .map((p) => p.trim())
                    .filter(Boolean)
                    .map((p, i) => (
                      <p key={i}>{p}</p>
                    ))}
                </div>
              )}
            </div>
          </div>

          <fieldset className="wb-row plain">
            <legend className="wb-label">Decision</legend>
            <div className="radios">
              <label>
                <input
                  type="radio"
                  name="decision"
                  value="accept"
                  checked={decision === 'accept'}
                  onChange={() => setDecision('accept')}
                />{' '}
                Accept
              </label>
              <label>
                <input
                  type="radio"
                  name="decision"
                  value="reject"
                  checked={decision === 'reject'}
                  onChange={() => setDecision('reject')}
                />{' '}
                Reject
              </label>
            </div>
          </fieldset>

          <div className="wb-row">
            <label htmlFor={ids.comment}>Comment</label>
            <div>
              <textarea
                id={ids.comment}
                rows={2}
                value={comment}
                aria-invalid={at('comment').length > 0 || undefined}
                aria-describedby={at('comment').length > 0 ? `${ids.comment}-err` : undefined}
                onChange={(e) => {
                  setComment(e.target.value);
                  clearIssues('comment');
                }}
              />
              <FieldErrors id={`${ids.comment}-err`} messages={at('comment')} />
            </div>
          </div>

          {decide.isError && (
            <p className="notice error" role="alert">
              {errorIssues(decide.error).length > 0
                ? 'The decision was not recorded: see the messages next to the fields.'
                : errorMessage(decide.error)}
              {unplaced.length > 0 && ` ${unplaced.map((i) => `${i.path}: ${i.message}`).join('; ')}`}
            </p>
          )}
          <div className="dialog-actions">
            <Dialog.Close className="button" type="button" disabled={decide.isPending}>
              Cancel
            </Dialog.Close>
            <button
              type="submit"
              className="button primary"
              disabled={!chosen || decide.isPending}
              aria-busy={decide.isPending || undefined}
            >
              Record decision
            </button>
          </div>
        </form>
      </Dialog.Content>
    </Dialog.Portal>
  );
}

function FieldErrors({ id, messages }: { id?: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <p className="field-error" id={id}>
      {messages.join('; ')}
    </p>
  );
}
