import { z } from 'zod';
import { LIMITS, changeSchema, queryInputSchema, readInputSchema, recallInputSchema } from '@sponge/memory';

export const TOOL_NAMES = ['remember', 'query', 'read', 'explain', 'recall'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** A tool as a model is given it: a name, a description for the model, and a JSON Schema of its input. */
export interface ToolDescriptor {
  name: ToolName;
  description: string;
  inputSchema: Record<string, unknown>;
}

/*
 * What a model sends, which is not always what the API takes: the runtime owns `basedOn` and
 * `requestId` (a model that guesses a version or reuses an id would only cause refusals), and
 * explain takes an `answerId` (or nothing: the latest answer) instead of a long HMAC token a model
 * would have to copy exactly. `row` stays, because the model reads it off the answer.
 */
const rememberArgs = z.strictObject({
  changes: z
    .array(changeSchema)
    .min(1, 'changes needs at least 1 change')
    .max(LIMITS.changesPerCall, `changes takes at most ${LIMITS.changesPerCall} changes per call`),
});

const explainArgs = z.strictObject({
  row: z.number().int().min(0).max(10_000),
  answerId: z.string().min(1).max(200).optional(),
  token: z.string().min(1).max(4_000).optional(),
});

export const toolArgsSchemas = {
  remember: rememberArgs,
  query: queryInputSchema,
  read: readInputSchema,
  explain: explainArgs,
  recall: recallInputSchema,
} as const;

export type ToolArgs = { [K in ToolName]: z.input<(typeof toolArgsSchemas)[K]> };

const DESCRIPTIONS: Record<ToolName, { text: string; fields: Record<string, string> }> = {
  remember: {
    text:
      'Write your private working notes for this session: leads, dead ends, things to check. ' +
      'Notes are forgotten within 24 hours and are never evidence; only a person can turn one into a finding. ' +
      `One call adds, replaces or removes 1 to ${LIMITS.changesPerCall} notes, all or nothing. ` +
      'A name is kind:slug, e.g. lead:reef-survey-2016, ruled-out:dataset-2014, todo:check-figure-3. ' +
      'The memory version and request id are filled in for you; if memory moved since you last looked, ' +
      'the call is retried on the new version unless a note you change was changed by someone else.',
    fields: {
      changes:
        'add a new name, replace the content of an existing note, or remove one. text is at most 4,000 characters; ' +
        'data is any JSON value; links point by name to notes or reviewed records in view (depends_on, supports, contradicts).',
    },
  },
  query: {
    text:
      'Ask one question from a fixed menu about your notes and the reviewed knowledge in view. ' +
      'Rows carry names and digests only, each marked note (yours, unreviewed) or reviewed; use read for content. ' +
      'Conflicting rows list each other. The answer has an answerId for explain.',
    fields: {
      question:
        'current_notes: every note, newest change first, then reviewed records in view. related_to (needs name): rows linked to or from it. ' +
        'supports (needs name): rows with a supports link to it. conflicts: rows in conflict. changed_since (needs sinceVersion): notes changed after that version.',
      name: 'the note or reviewed record the question is about (related_to, supports).',
      sinceVersion: 'a memory version (changed_since).',
      limit: `rows per page, 1..${LIMITS.queryLimitMax}, default ${LIMITS.queryLimitDefault}.`,
      cursor: 'nextCursor of the previous page of the same question.',
    },
  },
  read: {
    text:
      'Read one note or reviewed record in full (text, data, links, author, times). The server checks it against its digest first. ' +
      'Without source, notes are looked at first, then reviewed records in view.',
    fields: {
      name: 'kind:slug of the record.',
      source: 'note or reviewed, when a name exists as both.',
      digest: 'the digest you saw in an answer; if the record changed since, the read is refused as stale.',
    },
  },
  explain: {
    text: "Say why one row of a query answer came back, as of that answer's version, even if memory moved on since. Works for about 10 minutes after the answer.",
    fields: {
      row: 'the row number in that answer.',
      answerId: 'the answerId of the answer; the latest answer when left out.',
      token: 'the explainToken of the answer, instead of answerId.',
    },
  },
  recall: {
    text:
      'Fuzzy search over your notes by meaning. Answers names, digests and scores only; read a note before using it. ' +
      'In shadow mode no rows come back.',
    fields: {
      text: 'what to look for, in words.',
      limit: `at most ${LIMITS.recallLimitMax} rows.`,
    },
  },
};

function toJsonSchema(name: ToolName): Record<string, unknown> {
  const schema = z.toJSONSchema(toolArgsSchemas[name], { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  for (const [field, description] of Object.entries(DESCRIPTIONS[name].fields)) {
    const property = properties?.[field];
    if (property) property.description = description;
  }
  return schema;
}

/**
 * The five tools as JSON-schema descriptors for a model, built from the store's zod schemas so
 * they cannot drift from what the API validates.
 *
 * @example
 * const tools = buildToolDescriptors();
 * // → [{ name: 'remember', description: 'Write your private…', inputSchema: { type: 'object', … } }, …]
 */
export function buildToolDescriptors(): ToolDescriptor[] {
  return TOOL_NAMES.map((name) => ({
    name,
    description: DESCRIPTIONS[name].text,
    inputSchema: toJsonSchema(name),
  }));
}
