/**
 * Input schemas of the owner's actions (SPEC §6, §7): the API validates with them and the web
 * app can check a form with the very same rules before sending it.
 */
import { z } from 'zod';
import { KIND_RE, LIMITS, jsonProblem, nameSchema, textSchema } from '@oh/schema';
import { SPONGE_LIMITS } from './limits.ts';
import {
  abstractSchema,
  doiSchema,
  documentYearSchema,
  tagSchema,
  tagsSchema,
  venueSchema,
} from './metadata.ts';

export const idSchema = textSchema('the id')
  .min(1, 'must not be empty')
  .max(SPONGE_LIMITS.idChars, `is at most ${SPONGE_LIMITS.idChars} characters`);

const RUN_MODES = ['chat', 'staged'] as const;
export type RunMode = (typeof RUN_MODES)[number];

export const messageTextSchema = textSchema('text', 'body')
  .min(1, 'text must not be empty')
  .max(
    SPONGE_LIMITS.messageChars,
    `text is at most ${SPONGE_LIMITS.messageChars.toLocaleString('en')} characters`,
  );

/**
 * A reviewed record's profile fields. A `__proto__` field is refused before the record parser
 * sees it: the parser would silently drop it. Every string in them, field names included, follows
 * the text rules, as in a record's data (they become its data). (Typed as the record it is, for
 * the clients.)
 */
const fieldsSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
      ctx.addIssue({
        code: 'custom',
        message: 'the field name "__proto__" is not allowed',
        path: ['__proto__'],
      });
      return;
    }
    const problem = jsonProblem(value, 'fields');
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
  })
  .pipe(
    z.record(textSchema('a field name').max(64, 'a field name is at most 64 characters'), z.unknown()),
  ) as unknown as z.ZodType<Record<string, unknown>, Record<string, unknown>>;

const packNameSchema = textSchema('name')
  .min(1, 'name must not be empty')
  .max(64, 'name is at most 64 characters');

const documentId = z.strictObject({ documentId: idSchema });

export const documentTitleSchema = textSchema('title', 'line')
  .trim()
  .min(1, 'title must not be empty')
  .max(SPONGE_LIMITS.titleChars, `title is at most ${SPONGE_LIMITS.titleChars} characters`);

const documentAuthorsSchema = z
  .array(
    textSchema('an author', 'line')
      .trim()
      .min(1, 'an author must not be empty')
      .max(SPONGE_LIMITS.authorChars, `an author is at most ${SPONGE_LIMITS.authorChars} characters`),
  )
  .max(SPONGE_LIMITS.authors, `at most ${SPONGE_LIMITS.authors} authors`);

/** Formats a document can be added in (SPEC §6b); a PDF only by upload. */
export type DocumentSource = 'text' | 'markdown' | 'pdf';

/** The fields of `documents.upload`'s form besides `file` (sent as strings in multipart/form-data). */
export const uploadFieldsSchema = z.strictObject({ title: documentTitleSchema.optional() });

/**
 * Password rules for real accounts (SPEC §6c), shown on the sign-up page and enforced by the
 * server. Length is what makes a password hard to guess; no composition rules (NIST SP 800-63B).
 * The upper bound keeps one hash cheap enough that sign-in cannot be turned into a CPU sink.
 */
export const PASSWORD_RULES = { minLength: 10, maxLength: 128 } as const;

/** An email address as accounts store it: trimmed and lowercased, so one person has one account. */
export const emailSchema = textSchema('email')
  .trim()
  .toLowerCase()
  .max(254, 'email is at most 254 characters')
  .pipe(z.email('email: expected an address like name@example.org'));

export const passwordSchema = textSchema('password')
  .min(PASSWORD_RULES.minLength, `password: at least ${PASSWORD_RULES.minLength} characters`)
  .max(PASSWORD_RULES.maxLength, `password: at most ${PASSWORD_RULES.maxLength} characters`);

export const personNameSchema = textSchema('name', 'line')
  .trim()
  .min(1, 'name must not be empty')
  .max(100, 'name is at most 100 characters');

const reviewTextSchema = textSchema('text').max(
  LIMITS.textChars,
  `text is at most ${LIMITS.textChars.toLocaleString('en')} characters`,
);
const passageSchema = textSchema('passage', 'body').max(
  SPONGE_LIMITS.passageChars,
  `passage is at most ${SPONGE_LIMITS.passageChars.toLocaleString('en')} characters`,
);

/** A record decided with the main one of `review.decide` (a finding's new study, its publication). */
const groupRecordSchema = z.strictObject({
  kind: textSchema('kind').regex(KIND_RE, 'a kind is [a-z][a-z0-9-]{0,31}'),
  name: nameSchema,
  text: reviewTextSchema,
  fields: fieldsSchema,
  /** The passage this record cites in the same source; the main record's when absent. */
  passage: passageSchema.optional(),
});

/** One schema per owner (and hosted-runtime) procedure, keyed `router.procedure`. */
export const ownerInputs = {
  'auth.login': z.strictObject({ userId: idSchema }),
  'auth.signUp': z.strictObject({ name: personNameSchema, email: emailSchema, password: passwordSchema }),
  /**
   * Any password up to the bound is checked against the account: the length rules are the sign-up
   * page's, and saying "too short" here would tell a guesser something about the account.
   */
  'auth.signIn': z.strictObject({
    email: emailSchema,
    password: textSchema('password')
      .min(1, 'password must not be empty')
      .max(PASSWORD_RULES.maxLength, 'wrong email or password'),
  }),
  'auth.createApiKey': z.strictObject({
    label: textSchema('label', 'line')
      .trim()
      .min(1, 'label must not be empty')
      .max(100, 'label is at most 100 characters'),
  }),
  'auth.revokeApiKey': z.strictObject({ id: idSchema }),
  /** An API key's id or an OAuth client's, as `auth.connectedAgents` lists them (SPEC §6c). */
  'auth.revokeConnectedAgent': z.strictObject({ id: idSchema }),
  'documents.get': documentId,
  /** One page's text of a document the caller may read (the review dialog's cited page). */
  'documents.page': z.strictObject({
    documentId: idSchema,
    page: z
      .number()
      .int('page is a whole number')
      .min(1, 'page is at least 1')
      .max(100_000, 'page is at most 100,000'),
  }),
  'documents.search': z.strictObject({
    query: textSchema('query')
      .trim()
      .min(1, 'query must not be empty')
      .max(1_000, 'query is at most 1,000 characters'),
    limit: z.number().int().min(1).max(50).optional(),
    /** Narrows to one of the caller's own documents; any other finds nothing (never an error). */
    documentId: idSchema.optional(),
    /** Narrows to the caller's documents with this tag (case and a leading `#` aside). */
    tag: tagSchema.optional(),
  }),
  /** Pasted text or Markdown (SPEC §6b); the upload of a file is `documents.upload` (FormData). */
  'documents.add': z.strictObject({
    title: documentTitleSchema,
    authors: documentAuthorsSchema.optional(),
    text: textSchema('text', 'body')
      .max(
        SPONGE_LIMITS.documentChars,
        `text is at most ${SPONGE_LIMITS.documentChars.toLocaleString('en')} characters`,
      )
      .refine((t) => t.trim() !== '', 'text must not be empty'),
    format: z.enum(['text', 'markdown']).optional(),
  }),
  /**
   * The owner's edit of what a document is (SPEC §6d): each field given replaces the stored one
   * (`year`/`doi` null or an emptied DOI clear them, `tags` replaces the whole set); the citation
   * key never changes.
   */
  'documents.update': z
    .strictObject({
      documentId: idSchema,
      title: documentTitleSchema.optional(),
      authors: documentAuthorsSchema.optional(),
      year: documentYearSchema.nullable().optional(),
      doi: doiSchema.nullable().optional(),
      venue: venueSchema.optional(),
      abstract: abstractSchema.optional(),
      tags: tagsSchema.optional(),
    })
    .refine(
      (v) => Object.keys(v).some((k) => k !== 'documentId'),
      'give at least one of title, authors, year, doi, venue, abstract or tags to change',
    ),
  /**
   * References of documents the caller may read (SPEC §6d): BibTeX, RIS, CSL-JSON, or text by a
   * CSL style (APA when none is named). Any document the caller may not read: `not_found`.
   */
  'documents.cite': z.strictObject({
    documentIds: z
      .array(idSchema)
      .min(1, 'name at least one document')
      .max(SPONGE_LIMITS.citeDocuments, `at most ${SPONGE_LIMITS.citeDocuments} documents at once`),
    format: z.enum(['bibtex', 'ris', 'csl-json', 'text'], {
      error: 'format is bibtex, ris, csl-json or text',
    }),
    style: z
      .enum(['apa', 'vancouver', 'harvard1'], { error: 'style is apa, vancouver or harvard1' })
      .optional(),
  }),
  /** Indexes a document again after its indexing failed. */
  'documents.reindex': documentId,
  /**
   * Share with a person by account id (the demo's people picker) or by email. By email the answer
   * is the same whether or not an account has that address (SPEC §6c): the share waits for it.
   */
  'documents.share': z
    .strictObject({ documentId: idSchema, userId: idSchema.optional(), email: emailSchema.optional() })
    .refine((v) => (v.userId === undefined) !== (v.email === undefined), 'give either userId or email'),
  /** The owner's shares of a document, waiting or granted (SPEC §6c). */
  'documents.shares': documentId,
  /** Grants a waiting share by email to the account that now holds the address. */
  'documents.confirmShare': z.strictObject({ documentId: idSchema, email: emailSchema }),
  /** A one-use, expiring invitation link for a waiting share by email. */
  'documents.inviteLink': z.strictObject({ documentId: idSchema, email: emailSchema }),
  /** The token of an invitation link (`/invite/<token>`), accepted by whoever is signed in. */
  'documents.acceptInvite': z.strictObject({
    token: textSchema('token').min(1, 'token must not be empty').max(100, 'token is at most 100 characters'),
  }),
  'documents.publish': documentId,
  'documents.remove': documentId,
  'runs.accept': z.strictObject({ documentId: idSchema, mode: z.enum(RUN_MODES) }),
  'runs.list': documentId,
  'runs.finish': z.strictObject({ runId: idSchema }),
  'runs.settings': z.strictObject({ documentId: idSchema, memoryInStagedRuns: z.boolean() }),
  'chat.transcript': z.strictObject({ runId: idSchema }),
  'chat.say': z.strictObject({ runId: idSchema, text: messageTextSchema }),
  /** Without runId: a new chat run whose first turn is text; with the runId of a live chat run: a turn. */
  'chat.ask': z.strictObject({ documentId: idSchema, text: messageTextSchema, runId: idSchema.optional() }),
  /**
   * Without input, the pending runs now. With `waitSeconds`, a long poll: it answers as soon as a
   * run not in `ignore` (the caller's runs in progress or backing off) is pending, else after that
   * long, with every pending run either way.
   */
  'runtime.pending': z
    .strictObject({
      waitSeconds: z
        .number()
        .min(0, 'waitSeconds is at least 0')
        .max(25, 'waitSeconds is at most 25')
        .optional(),
      ignore: z.array(idSchema).max(100, 'ignore takes at most 100 run ids').optional(),
    })
    .optional(),
  'runtime.claim': z.strictObject({ runId: idSchema }),
  'runtime.finish': z.strictObject({ runId: idSchema }),
  /** The claim's run token proves which claim renews or lets go of the lease (SPEC §7b). */
  'runtime.renew': z.strictObject({ runId: idSchema, runToken: idSchema }),
  'runtime.release': z.strictObject({ runId: idSchema, runToken: idSchema }),
  'memory.panel': z.strictObject({ documentId: idSchema, sessionId: idSchema.optional() }),
  'memory.forget': z.strictObject({ sessionId: idSchema }),
  'memory.sessions': documentId,
  'profiles.list': z.strictObject({ documentId: idSchema.optional() }).optional(),
  'profiles.preview': z.strictObject({ name: packNameSchema }),
  'profiles.install': z.strictObject({ documentId: idSchema, name: packNameSchema }),
  'profiles.installed': documentId,
  'review.decide': z
    .strictObject({
      documentId: idSchema,
      /** Where the proposal came from: a session of this document and one of its working notes. */
      fromSession: idSchema.optional(),
      fromNote: nameSchema.optional(),
      profile: textSchema('profile').regex(KIND_RE, 'a profile name is [a-z][a-z0-9-]{0,31}'),
      kind: textSchema('kind').regex(KIND_RE, 'a kind is [a-z][a-z0-9-]{0,31}'),
      /** The kind's fields, validated by the profile's value codecs. */
      fields: fieldsSchema,
      /** The reviewed record's name, `kind:slug`, of the chosen kind. */
      name: nameSchema,
      text: reviewTextSchema,
      sourceDocumentId: idSchema,
      passage: passageSchema,
      decision: z.enum(['accept', 'reject']),
      comment: textSchema('comment', 'body').max(
        SPONGE_LIMITS.commentChars,
        `comment is at most ${SPONGE_LIMITS.commentChars.toLocaleString('en')} characters`,
      ),
      /**
       * Records decided together with this one (SPEC §7: a finding with its new study and the
       * study's new publication is one decision): the same profile, source document, decision and
       * comment; each its own passage, the main one when absent. References may name any record of
       * the group; an accept makes one revision holding them all, or nothing.
       */
      with: z
        .array(groupRecordSchema)
        .max(SPONGE_LIMITS.reviewGroup, `with takes at most ${SPONGE_LIMITS.reviewGroup} records`)
        .optional(),
    })
    .superRefine((input, ctx) => {
      // One name per record of the group: the second would silently replace the first.
      const seen = new Set([input.name]);
      input.with?.forEach((record, i) => {
        if (seen.has(record.name))
          ctx.addIssue({
            code: 'custom',
            message: `${record.name} is named twice in this decision`,
            path: ['with', i, 'name'],
          });
        seen.add(record.name);
      });
    }),
  'review.history': documentId,
  /** The records in view at a revision (the newest when absent), with provenance, as canonical JSON. */
  'review.export': z.strictObject({
    documentId: idSchema,
    revision: z.number().int('revision is a whole number').min(0, 'revision is at least 0').optional(),
  }),
} as const;

type OwnerProcedure = keyof typeof ownerInputs;
export type OwnerInput<P extends OwnerProcedure> = z.infer<(typeof ownerInputs)[P]>;
export type ReviewDecideInput = OwnerInput<'review.decide'>;
/** A record of `review.decide`'s group (`with`). */
export type ReviewGroupRecord = NonNullable<ReviewDecideInput['with']>[number];
