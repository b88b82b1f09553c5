/**
 * The five agent tools, defined once (SPEC §5, §7b). Two views of each:
 * - the API's: what `agent.load` hands a runtime — the tRPC procedure, how to call it, and the
 *   JSON Schema of the input the API validates;
 * - the model's: what a runtime offers a model — the same name and description, and the JSON
 *   Schema of the arguments a model sends. The runtime owns `basedOn` and `requestId` (a model
 *   that guesses a version or reuses an id would only cause refusals), and explain takes an
 *   `answerId` (or nothing: the latest answer) instead of a long HMAC token a model would have
 *   to copy exactly.
 * Both are generated from the zod schemas the API validates with, so they cannot drift.
 */
import { z } from 'zod';
import {
  LIMITS,
  changeSchema,
  explainInputSchema,
  queryInputSchema,
  readInputSchema,
  recallInputSchema,
  rememberInputSchema,
  textSchema,
} from '@oh/schema';

export const TOOL_NAMES = ['remember', 'query', 'read', 'explain', 'recall'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** A tool as the API describes it (`agent.load`). */
export interface ToolDescriptor {
  name: ToolName;
  /** The tRPC procedure that runs the tool, and how to call it. */
  procedure: `agent.${ToolName}`;
  type: 'query' | 'mutation';
  description: string;
  /** JSON Schema (draft 2020-12) of the procedure's input. */
  inputSchema: Record<string, unknown>;
}

/** A tool as a model is offered it: a name, a description for the model, the JSON Schema of its arguments. */
export interface ModelToolDescriptor {
  name: ToolName;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** The procedures' inputs, as the API validates them. */
export const toolInputSchemas = {
  remember: rememberInputSchema,
  query: queryInputSchema,
  read: readInputSchema,
  explain: explainInputSchema,
  recall: recallInputSchema,
} as const;

/** What a model sends (see the file comment). */
export const toolArgsSchemas = {
  remember: z.strictObject({
    changes: z
      .array(changeSchema)
      .min(1, 'changes needs at least 1 change')
      .max(LIMITS.changesPerCall, `changes takes at most ${LIMITS.changesPerCall} changes per call`),
  }),
  query: queryInputSchema,
  read: readInputSchema,
  explain: z.strictObject({
    row: z.number().int().min(0).max(10_000),
    answerId: textSchema('answerId').min(1).max(200).optional(),
    token: textSchema('token').min(1).max(4_000).optional(),
  }),
  recall: recallInputSchema,
} as const;

export type ToolArgs = { [K in ToolName]: z.input<(typeof toolArgsSchemas)[K]> };

interface ToolText {
  type: 'query' | 'mutation';
  /** For the model and the runtime alike. */
  text: string;
  /** Said to a runtime that calls the procedure itself (the API view). */
  apiNote?: string;
  /** Per-field descriptions, set on the JSON Schemas' properties. */
  fields: Record<string, string>;
}

const TOOLS: Record<ToolName, ToolText> = {
  remember: {
    type: 'mutation',
    text:
      'Write your private working notes for this session: leads, dead ends, things to check. ' +
      'Notes are forgotten within 24 hours and are never evidence; only a person can turn one into a finding. ' +
      `One call adds, replaces or removes 1 to ${LIMITS.changesPerCall} notes, all or nothing. ` +
      'A name is kind:slug, e.g. lead:reef-survey-2016, ruled-out:dataset-2014, todo:check-figure-3.',
    apiNote:
      ' basedOn must be the current memory version (else CONFLICT stale_version with currentVersion); ' +
      'send the same requestId again when retrying the same call.',
    fields: {
      changes:
        'add a new name, replace the content of an existing note, or remove one. text is at most 4,000 characters; ' +
        'data is any JSON value; links point by name to notes or reviewed records in view (depends_on, supports, contradicts).',
    },
  },
  query: {
    type: 'query',
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
    type: 'query',
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
    type: 'query',
    text: "Say why one row of a query answer came back, as of that answer's version, even if memory moved on since. Works for about 10 minutes after the answer.",
    fields: {
      row: 'the row number in that answer.',
      answerId: 'the answerId of the answer; the latest answer when left out.',
      token: 'the explainToken of the answer.',
    },
  },
  recall: {
    type: 'query',
    text:
      'Fuzzy search over your notes by meaning. Answers names, digests and scores only; read a note before using it. ' +
      'In shadow mode no rows come back.',
    fields: {
      text: 'what to look for, in words.',
      limit: `at most ${LIMITS.recallLimitMax} rows.`,
    },
  },
};

function jsonSchema(name: ToolName, schema: z.ZodType): Record<string, unknown> {
  // `unrepresentable: 'any'` keeps refinements (the superRefine cross-field rules) from making
  // the conversion throw; the server still enforces them.
  const out = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const properties = out.properties as Record<string, Record<string, unknown>> | undefined;
  for (const [field, description] of Object.entries(TOOLS[name].fields)) {
    const property = properties?.[field];
    if (property) property.description = description;
  }
  return out;
}

let apiView: ToolDescriptor[] | undefined;
let modelView: ModelToolDescriptor[] | undefined;

/**
 * The five tools as the API describes them to a runtime (`agent.load`).
 *
 * @example
 * toolDescriptors().find((t) => t.name === 'remember')?.procedure; // 'agent.remember'
 */
export function toolDescriptors(): ToolDescriptor[] {
  apiView ??= TOOL_NAMES.map((name) => ({
    name,
    procedure: `agent.${name}` as const,
    type: TOOLS[name].type,
    description: TOOLS[name].text + (TOOLS[name].apiNote ?? ''),
    inputSchema: jsonSchema(name, toolInputSchemas[name]),
  }));
  return apiView;
}

/**
 * The five tools as a model is offered them, named `remember`, `query`, `read`, `explain`,
 * `recall`, with the JSON Schemas of the arguments a model sends.
 *
 * @example
 * modelToolDescriptors()[0]; // { name: 'remember', description: 'Write your private…', inputSchema: { type: 'object', … } }
 */
export function modelToolDescriptors(): ModelToolDescriptor[] {
  modelView ??= TOOL_NAMES.map((name) => ({
    name,
    description:
      TOOLS[name].text +
      (name === 'remember'
        ? ' The memory version and request id are filled in for you. A note made from a passage says where it came from: ' +
          'data.source = { documentId, page, quote }, the quote copied exactly from a passage you read in this run ' +
          '(at most 500 characters); a source whose quote was not read is left out, and the answer says so.'
        : ''),
    inputSchema: jsonSchema(name, toolArgsSchemas[name]),
  }));
  return modelView;
}
