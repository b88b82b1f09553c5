import { useMutation, useQueries, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorIssues } from '../shared/errors.ts';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';
import {
  buildFields,
  issuesAt,
  passageFromSource,
  prefill,
  proposedName,
  sourcePrefill,
} from './review-form.ts';
import type { FormValues, KindPreview } from './review-form.ts';

export type Note = RouterOutputs['memory']['panel']['workingNotes'][number];
export type Installed = RouterOutputs['profiles']['installed'];
type Outcome = RouterOutputs['review']['decide'];
type Issue = { path: string; message: string };

interface KindOption {
  key: string;
  profile: string;
  kind: KindPreview;
}

/** Inputs with a place of their own for the server's messages; the rest go in the alert. */
const PLACED = [
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

const under = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}.`);

/**
 * The workbench's state, apart from its markup: the kinds of the installed profiles, the inputs,
 * the server's per-field messages and the `review.decide` call. Editing an input clears the
 * server's messages about it, so what is still shown is still wrong.
 */
export function useReviewForm({
  documentId,
  session,
  note,
  installed,
}: {
  documentId: string;
  session: { id: string; pinnedRevision: number };
  note: Note;
  installed: Installed;
}) {
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
          profile: q.data.name,
          kind,
        }))
      : [],
  );

  const [kindKey, setKindKey] = useState('');
  const [edited, setEdited] = useState<Record<string, FormValues>>({});
  const [name, setName] = useState<string | null>(null);
  const [text, setText] = useState(note.text);
  // A note made from a passage (its data.source) arrives with its source and passage filled in.
  const [initial] = useState(() => sourcePrefill(note, documentId));
  const [sourceId, setSourceId] = useState(initial.sourceId);
  // Null until the reviewer edits it: the note's quote, as its source document spells it once
  // that is read (the API checks a passage exactly; the agent's quote was judged ignoring case).
  const [editedPassage, setPassage] = useState<string | null>(null);
  const noteSourceDoc = useQuery({
    ...trpc.documents.get.queryOptions({ documentId: initial.noteSource?.documentId ?? '' }),
    enabled: initial.noteSource !== null,
  });
  const passage =
    editedPassage ??
    (initial.noteSource && noteSourceDoc.data
      ? passageFromSource(noteSourceDoc.data, initial.noteSource)
      : initial.passage);
  const [decision, setDecision] = useState<'accept' | 'reject'>('accept');
  const [comment, setComment] = useState('');
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  // The note's own kind when a profile has it, else a finding, else the first kind there is.
  const chosen =
    options.find((o) => o.key === kindKey) ??
    options.find((o) => o.kind.name === note.kind) ??
    options.find((o) => o.kind.name === 'finding') ??
    options[0];
  const values = chosen ? (edited[chosen.key] ?? prefill(chosen.kind.fields, note)) : {};
  const recordName = name ?? (chosen ? proposedName(chosen.kind.name, note.name) : note.name);

  // The server's per-field messages; a field's own go away once the person edits it.
  const [issues, setIssues] = useState<Issue[]>([]);
  const clearIssues = (...paths: string[]) =>
    setIssues((all) => all.filter((i) => !paths.some((p) => under(i.path, p))));
  const decide = useMutation(
    trpc.review.decide.mutationOptions({
      onMutate: () => setIssues([]),
      onError: (error) => setIssues(errorIssues(error)),
      onSuccess: async (out) => {
        setOutcome(out);
        await queryClient.invalidateQueries({ queryKey: trpc.review.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.memory.pathKey() });
      },
    }),
  );

  return {
    previews,
    options,
    chosen,
    loadingKinds: previews.some((q) => q.isPending),
    values,
    recordName,
    text,
    sourceId,
    passage,
    /** Where the note says it came from, if it says. */
    noteSource: initial.noteSource,
    decision,
    comment,
    outcome,
    decide,
    issues,
    /** The server's messages for one input path (and its parts). */
    at: (path: string) => issuesAt(issues, path),
    unplaced: issues.filter((i) => !PLACED.some((p) => under(i.path, p))),

    chooseKind: (key: string) => {
      setKindKey(key);
      clearIssues('profile', 'kind', 'fields', 'name');
    },
    editName: (value: string) => {
      setName(value);
      clearIssues('name');
    },
    editField: (path: string, value: string) => {
      if (!chosen) return;
      setEdited((all) => ({ ...all, [chosen.key]: { ...values, [path]: value } }));
      clearIssues(`fields.${path.split('.')[0] ?? path}`);
    },
    editText: (value: string) => {
      setText(value);
      clearIssues('text');
    },
    chooseSource: (id: string) => {
      setSourceId(id);
      clearIssues('sourceDocumentId', 'passage');
    },
    editPassage: (value: string) => {
      setPassage(value);
      clearIssues('passage');
    },
    setDecision,
    editComment: (value: string) => {
      setComment(value);
      clearIssues('comment');
    },

    submit: () => {
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
    },
  };
}

export type ReviewForm = ReturnType<typeof useReviewForm>;
