import * as Dialog from '@radix-ui/react-dialog';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { duplicateOf } from '../library/duplicate-notice.tsx';
import { doiUrl, paperName, tagLabel, yearVenue } from '../library/paper-words.ts';
import { errorIssues, errorMessage } from '../shared/errors.ts';
import { FormField } from '../shared/form-field.tsx';
import { documentPath } from '../shared/paths.ts';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';
import { draftOf, fieldOf, readDraft } from './details-form.ts';
import type { DetailsDraft, DetailsField } from './details-form.ts';

type Doc = RouterOutputs['documents']['get'];

/**
 * What the paper is, under its title (SPEC §6d): its authors, year and venue, its DOI linked at
 * doi.org, and its tags; the abstract is the text's own first box.
 */
export function PaperFacts({ doc }: { doc: Doc }) {
  const where = yearVenue(doc);
  if (doc.authors.length === 0 && where === '' && doc.doi === null && doc.tags.length === 0) return null;
  return (
    <section className="paper-facts" aria-label="About this document">
      {doc.authors.length > 0 && <p className="authors">{doc.authors.join(', ')}</p>}
      {(where !== '' || doc.doi !== null) && (
        <p className="small muted">
          {where}
          {where !== '' && doc.doi !== null && ' · '}
          {doc.doi !== null && (
            <>
              DOI{' '}
              <a href={doiUrl(doc.doi)} rel="noreferrer" target="_blank">
                {doc.doi}
              </a>
            </>
          )}
        </p>
      )}
      {doc.tags.length > 0 && (
        <ul className="tags" aria-label="Tags">
          {doc.tags.map((tag) => (
            <li key={tag} className="tag">
              {tagLabel(tag)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** What the API refused, by field, with the document a DOI clash is about. */
interface Refusal {
  problems: Partial<Record<DetailsField, string>>;
  existingId: string | null;
  general: string | null;
}

function refusalOf(error: unknown): Refusal {
  const existingId = duplicateOf(error);
  if (existingId !== null)
    return { problems: { doi: 'Another document of your library has this DOI.' }, existingId, general: null };
  const problems: Refusal['problems'] = {};
  for (const issue of errorIssues(error)) {
    const field = fieldOf(issue.path);
    if (field) problems[field] ??= issue.message;
  }
  return {
    problems,
    existingId: null,
    general: Object.keys(problems).length > 0 ? null : errorMessage(error),
  };
}

/**
 * *Edit details*: the owner changes the title, authors, year, DOI, venue, abstract and tags
 * (`documents.update`). Each problem is said under its field; nothing is sent while there is one.
 */
export function EditDetails({ doc }: { doc: Doc }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger className="button">Edit details</Dialog.Trigger>
      {open && <EditDetailsDialog doc={doc} onDone={() => setOpen(false)} />}
    </Dialog.Root>
  );
}

function EditDetailsDialog({ doc, onDone }: { doc: Doc; onDone: () => void }) {
  const [draft, setDraft] = useState<DetailsDraft>(() => draftOf(doc));
  const [problems, setProblems] = useState<Partial<Record<DetailsField, string>>>({});
  const update = useMutation(
    trpc.documents.update.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.documents.pathKey() });
        onDone();
      },
    }),
  );
  const refusal = update.isError ? refusalOf(update.error) : null;
  const shown = { ...refusal?.problems, ...problems };
  const set = (field: DetailsField) => (value: string) => setDraft((d) => ({ ...d, [field]: value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const read = readDraft(draft, doc);
    setProblems(read.problems);
    update.reset();
    if (Object.keys(read.problems).length > 0) return;
    if (Object.keys(read.change).length === 0) return onDone();
    update.mutate({ documentId: doc.id, ...read.change });
  };
  return (
    <Dialog.Portal>
      <Dialog.Overlay className="overlay" />
      <Dialog.Content className="dialog wide scrolls">
        <Dialog.Title>Edit details</Dialog.Title>
        <Dialog.Description className="small muted">
          What this document is: how the library lists it and how it is cited. Its citation key,{' '}
          <code>{doc.citationKey}</code>, stays as it is.
        </Dialog.Description>
        <form className="account-form details-form" onSubmit={submit} noValidate>
          <FormField label="Title" value={draft.title} onValueChange={set('title')} error={shown.title} />
          <TextAreaField
            label="Authors"
            hint="One a line, as “Family, Given” or “Given Family”."
            rows={4}
            value={draft.authors}
            onValueChange={set('authors')}
            error={shown.authors}
          />
          <div className="field-row">
            <FormField
              label="Year"
              inputMode="numeric"
              value={draft.year}
              onValueChange={set('year')}
              error={shown.year}
            />
            <FormField label="Venue" value={draft.venue} onValueChange={set('venue')} error={shown.venue} />
          </div>
          <FormField
            label="DOI"
            hint="Like 10.1038/nature21707, or its https://doi.org/ link."
            value={draft.doi}
            onValueChange={set('doi')}
            error={shown.doi}
          />
          {refusal?.existingId && <OpenExisting existingId={refusal.existingId} onOpen={onDone} />}
          <FormField
            label="Tags"
            hint="Separated by commas, like bleaching, reefs."
            value={draft.tags}
            onValueChange={set('tags')}
            error={shown.tags}
          />
          <TextAreaField
            label="Abstract"
            rows={5}
            value={draft.abstract}
            onValueChange={set('abstract')}
            error={shown.abstract}
          />
          {refusal?.general && (
            <p className="notice error" role="alert">
              {refusal.general}
            </p>
          )}
          {Object.keys(shown).length > 0 && !refusal?.general && (
            <p className="field-error" role="alert">
              Nothing was saved: see what is said under the fields.
            </p>
          )}
          <div className="dialog-actions">
            <Dialog.Close className="button" type="button">
              Cancel
            </Dialog.Close>
            <button
              type="submit"
              className="button primary"
              disabled={update.isPending}
              aria-busy={update.isPending || undefined}
            >
              Save
            </button>
          </div>
        </form>
      </Dialog.Content>
    </Dialog.Portal>
  );
}

/** "Open Wernberg and Bennett 2016": the document that has the DOI already. */
function OpenExisting({ existingId, onOpen }: { existingId: string; onOpen: () => void }) {
  const documents = useQuery(trpc.documents.list.queryOptions());
  const existing = documents.data?.find((d) => d.id === existingId);
  return (
    <p className="small">
      <Link to={documentPath(existingId)} onClick={onOpen}>
        Open {existing ? paperName(existing) : 'the document with this DOI'}
      </Link>
    </p>
  );
}

/** A labelled text area whose hint and error are read with it, as FormField's input. */
function TextAreaField({
  label,
  value,
  onValueChange,
  hint,
  error,
  rows,
}: {
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  hint?: string;
  error?: string | undefined;
  rows: number;
}) {
  const id = useId();
  const describedBy = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ');
  return (
    <div className="form-field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        rows={rows}
        value={value}
        onChange={(e) => onValueChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
      />
      {hint && (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
