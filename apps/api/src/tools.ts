/**
 * The five agent tools as descriptors an LLM can be given (SPEC §5): name, a description written
 * for the model, and the input's JSON Schema generated from the very zod schemas the server
 * validates with, so the two can never drift apart.
 */
import { z } from 'zod';
import {
  explainInputSchema,
  queryInputSchema,
  readInputSchema,
  recallInputSchema,
  rememberInputSchema,
} from '@sponge/memory';

export interface ToolDescriptor {
  name: 'remember' | 'query' | 'read' | 'explain' | 'recall';
  /** The tRPC procedure that runs the tool, and how to call it. */
  procedure: `agent.${string}`;
  type: 'query' | 'mutation';
  description: string;
  /** JSON Schema (draft 2020-12) of the input. */
  inputSchema: Record<string, unknown>;
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  // `unrepresentable: 'any'` keeps refinements (the superRefine cross-field rules) from making
  // the conversion throw; the server still enforces them.
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

let cached: ToolDescriptor[] | undefined;

export function toolDescriptors(): ToolDescriptor[] {
  cached ??= [
    {
      name: 'remember',
      procedure: 'agent.remember',
      type: 'mutation',
      description:
        'Write private working notes for this run: 1..64 changes (add | replace | remove), applied all or nothing. ' +
        'basedOn must be the current memory version; reuse the same requestId when retrying the same call. ' +
        'Names are kind:slug, e.g. lead:reef-survey-2016. Notes are forgotten after the session ends; they are not findings.',
      inputSchema: jsonSchema(rememberInputSchema),
    },
    {
      name: 'query',
      procedure: 'agent.query',
      type: 'query',
      description:
        'Ask one question from a fixed menu: current_notes, related_to (name), supports (name), conflicts, ' +
        'changed_since (sinceVersion). Rows carry names and digests only, labelled note or reviewed; use read for content.',
      inputSchema: jsonSchema(queryInputSchema),
    },
    {
      name: 'read',
      procedure: 'agent.read',
      type: 'query',
      description:
        'Read one record by name: working notes first, then reviewed knowledge in view. Pass digest to insist on the version you saw.',
      inputSchema: jsonSchema(readInputSchema),
    },
    {
      name: 'explain',
      procedure: 'agent.explain',
      type: 'query',
      description: 'Say why a row came back in an earlier answer, using that answer\'s explainToken (valid up to 10 minutes).',
      inputSchema: jsonSchema(explainInputSchema),
    },
    {
      name: 'recall',
      procedure: 'agent.recall',
      type: 'query',
      description: 'Find working notes similar in meaning to a text. Returns names, digests and scores only.',
      inputSchema: jsonSchema(recallInputSchema),
    },
  ];
  return cached;
}
