import { SPONGE_LIMITS } from '@sponge/contract';
import { useMutation, useQueries, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorIssues } from '../shared/errors.ts';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';
import {
  assembleGroup,
  emptyValues,
  issuesAt,
  issuesOfRecord,
  newRef,
  passageOnPage,
  prefill,
  reviewedChoices,
  sourcePrefill,
  statementOf,
} from './review-form.ts';
import type { Draft, FieldPreview, FormValues, KindPreview, PageState } from './review-form.ts';
import { orderKinds } from './words.ts';

export type Note = RouterOutputs['memory']['panel']['workingNotes'][number];
export type Installed = RouterOutputs['profiles']['installed'];
type Outcome = RouterOutputs['review']['decide'];
type Issue = { path: string; message: string };

export interface KindOption {
  key: string;
  profile: string;
  profileTitle: string;
  kind: KindPreview;
}

/** The main record's draft id; the records made inline get their own. */
export const MAIN = 'main';

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

/** A record made inline for a reference field of another record. */
interface Dependent extends Draft {
  parent: { draftId: string; path: string };
}

/**
 * The review dialog's state, apart from its markup: the kinds of the installed profiles, the main
 * record and the records made inline for its references, the source and passage (one page of the
 * source at a time), the server's per-field messages and the `review.decide` call. Editing an
 * input clears the server's messages about it, so what is still shown is still wrong.
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
      ? orderKinds(q.data.kinds).map((kind) => ({
          key: `${q.data.name}/${kind.name}`,
          profile: q.data.name,
          profileTitle: q.data.title,
          kind,
        }))
      : [],
  );
  // Reviewed records a reference may pick, and the names a new record must keep clear of.
  const history = useQuery(trpc.review.history.queryOptions({ documentId }));
  const choices = reviewedChoices(history.data?.decisions ?? []);
  const taken = new Set(choices.map((c) => c.name));

  const [kindKey, setKindKey] = useState('');
  const [edited, setEdited] = useState<Record<string, FormValues>>({});
  const [mainName, setMainName] = useState<string | null>(null);
  const [mainText, setMainText] = useState<string | null>(null);
  const [dependents, setDependents] = useState<Record<string, Dependent>>({});
  const [nextId, setNextId] = useState(1);

  // The note's own kind when a profile has it, else a finding, else the first kind there is.
  const chosen =
    options.find((o) => o.key === kindKey) ??
    options.find((o) => o.kind.name === note.kind) ??
    options.find((o) => o.kind.name === 'finding') ??
    options[0];
  const kindFields = (kind: string): readonly FieldPreview[] =>
    options.find((o) => o.profile === chosen?.profile && o.kind.name === kind)?.kind.fields ?? [];
  const mainValues = chosen ? (edited[chosen.key] ?? prefill(chosen.kind.fields, note)) : {};
  const drafts: Record<string, Draft> = {
    ...dependents,
    ...(chosen
      ? { [MAIN]: { kind: chosen.kind.name, values: mainValues, name: mainName, text: mainText } }
      : {}),
  };
  const group = chosen ? assembleGroup({ mainId: MAIN, drafts, kindFields, taken }) : null;
  const groupIds = group ? [group.main.draftId, ...group.with.map((r) => r.draftId)] : [];

  // Where the note says it came from: its document and page, checked; never another document.
  const [initial] = useState(() => sourcePrefill(note));
  const [sourceId, setSourceId] = useState(initial.sourceId);
  const [page, setPage] = useState(initial.page);
  const [editedPassage, setPassage] = useState<string | null>(null);
  const shown = useQuery({
    ...trpc.documents.page.queryOptions({ documentId: sourceId, page }),
    enabled: sourceId !== '',
    staleTime: 60_000,
  });
  const notePage = useQuery({
    ...trpc.documents.page.queryOptions({
      documentId: initial.noteSource?.documentId ?? '',
      page: initial.noteSource?.page ?? 1,
    }),
    enabled: initial.noteSource !== null,
    staleTime: 60_000,
  });
  // Null until the reviewer edits it: the note's quote, as its page spells it once that is read
  // (the API checks a passage exactly; the agent's quote was judged ignoring case and spacing).
  const passage =
    editedPassage ??
    (initial.noteSource && notePage.data
      ? passageOnPage(notePage.data.text, initial.noteSource.quote)
      : initial.passage);
  const pageState: PageState =
    sourceId === ''
      ? { state: 'none' }
      : shown.data
        ? { text: shown.data.text, page: shown.data.page, pages: shown.data.pages, ocr: shown.data.ocr }
        : shown.isError
          ? shown.error.data?.code === 'NOT_FOUND'
            ? { state: 'missing' }
            : { state: 'error', message: shown.error.message }
          : { state: 'loading' };

  const [decision, setDecision] = useState<'accept' | 'reject'>('accept');
  const [comment, setComment] = useState('');
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  // The records as sent, for the outcome: names regenerate once the history holds them.
  const [submitted, setSubmitted] = useState<Array<{ kind: string; label: string }>>([]);

  // The server's per-field messages; a field's own go away once the person edits it.
  const [issues, setIssues] = useState<Issue[]>([]);
  const clearIssues = (draftId: string, ...paths: string[]) => {
    const index = groupIds.indexOf(draftId);
    const prefix = index > 0 ? `with.${index - 1}.` : '';
    setIssues((all) => all.filter((i) => !paths.some((p) => under(i.path, `${prefix}${p}`))));
  };
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

  const setValues = (draftId: string, change: (values: FormValues) => FormValues) => {
    if (draftId === MAIN) {
      if (!chosen) return;
      setEdited((all) => ({ ...all, [chosen.key]: change(all[chosen.key] ?? mainValues) }));
    } else {
      setDependents((all) => {
        const d = all[draftId];
        return d ? { ...all, [draftId]: { ...d, values: change(d.values) } } : all;
      });
    }
  };
  const recordIssues = (draftId: string): Issue[] => {
    const index = groupIds.indexOf(draftId);
    return index < 0 ? [] : issuesOfRecord(issues, index === 0 ? null : index - 1);
  };

  return {
    options,
    chosen,
    loadingKinds: previews.some((q) => q.isPending),
    choices,
    drafts,
    group,
    kindFields,
    /** Whether another record may be made inline (the group's limit). */
    canAddRecord: groupIds.length - 1 < SPONGE_LIMITS.reviewGroup,
    sourceId,
    page,
    pageState,
    passage,
    /** Where the note says it came from, if it says. */
    noteSource: initial.noteSource,
    decision,
    comment,
    outcome,
    submitted,
    decide,
    issues,
    /** The server's messages for one record's input path (and its parts). */
    at: (draftId: string, path: string, exact = false) => issuesAt(recordIssues(draftId), path, exact),
    unplaced: issues.filter((i) => !PLACED.some((p) => under(i.path.replace(/^with\.\d+\./, ''), p))),

    chooseKind: (key: string) => {
      setKindKey(key);
      clearIssues(MAIN, 'profile', 'kind', 'fields', 'name', 'text');
    },
    editField: (draftId: string, path: string, value: string) => {
      setValues(draftId, (values) => ({ ...values, [path]: value }));
      clearIssues(draftId, `fields.${path.split('.')[0] ?? path}`);
    },
    setValues,
    editName: (draftId: string, value: string) => {
      if (draftId === MAIN) setMainName(value);
      else
        setDependents((all) =>
          all[draftId] ? { ...all, [draftId]: { ...all[draftId], name: value } } : all,
        );
      clearIssues(draftId, 'name');
    },
    editText: (draftId: string, value: string) => {
      if (draftId === MAIN) setMainText(value);
      else
        setDependents((all) =>
          all[draftId] ? { ...all, [draftId]: { ...all[draftId], text: value } } : all,
        );
      clearIssues(draftId, 'text');
    },
    /** A new record of `kind` for the reference at `path` of a record; returns its draft id. */
    addRecord: (parentId: string, path: string, kind: string): string => {
      const id = `new${nextId}`;
      setNextId((n) => n + 1);
      setDependents((all) => ({
        ...all,
        [id]: {
          kind,
          values: emptyValues(kindFields(kind)),
          name: null,
          text: null,
          parent: { draftId: parentId, path },
        },
      }));
      setValues(parentId, (values) => ({ ...values, [path]: newRef(id) }));
      clearIssues(parentId, `fields.${path.split('.')[0] ?? path}`);
      return id;
    },
    /** The records made inline for the reference at `path` of a record. */
    madeFor: (parentId: string, path: string): string | null =>
      Object.entries(dependents).find(
        ([, d]) => d.parent.draftId === parentId && d.parent.path === path,
      )?.[0] ?? null,
    removeRecord: (draftId: string) => {
      const d = dependents[draftId];
      if (!d) return;
      setDependents((all) => Object.fromEntries(Object.entries(all).filter(([id]) => id !== draftId)));
      setValues(d.parent.draftId, (values) => ({ ...values, [d.parent.path]: '' }));
    },
    /** A record of the group by its statement, for a reference's choices ("New study: …"). */
    draftLabel: (draftId: string): string => {
      const d = drafts[draftId];
      return d ? statementOf(kindFields(d.kind), d.values) : '';
    },

    chooseSource: (id: string) => {
      setSourceId(id);
      setPage(id === initial.noteSource?.documentId ? initial.noteSource.page : 1);
      clearIssues(MAIN, 'sourceDocumentId', 'passage');
    },
    goToPage: (n: number) => setPage(n),
    editPassage: (value: string) => {
      setPassage(value);
      clearIssues(MAIN, 'passage');
    },
    setDecision,
    editComment: (value: string) => {
      setComment(value);
      clearIssues(MAIN, 'comment');
    },

    submit: () => {
      if (!chosen || !group) return;
      if (sourceId === '') {
        setIssues([{ path: 'sourceDocumentId', message: 'Choose the document the passage is from.' }]);
        return;
      }
      setSubmitted(
        [group.main, ...group.with].map((r) => ({
          kind: r.kind,
          label: statementOf(kindFields(r.kind), drafts[r.draftId]?.values ?? {}),
        })),
      );
      const strip = ({ draftId: _, ...record }: (typeof group.with)[number]) => record;
      decide.mutate({
        documentId,
        fromSession: session.id,
        fromNote: note.name,
        profile: chosen.profile,
        kind: group.main.kind,
        fields: group.main.fields,
        name: group.main.name,
        text: group.main.text,
        sourceDocumentId: sourceId,
        passage,
        decision,
        comment,
        ...(group.with.length > 0 ? { with: group.with.map(strip) } : {}),
      });
    },
  };
}

export type ReviewForm = ReturnType<typeof useReviewForm>;
