// The public surface of @oh/schema: what Oh itself defines for its records and its five memory
// tools (SPEC §3–§5): name rules, limits, the record vocabulary, the tools' input schemas, the
// text rules every string follows and the reasons a refusal carries. It loads zod and nothing
// else (no Node built-in, no driver), so a browser, an agent runtime and the store share it.
export { LIMITS, KIND_RE, NAME_RE, REQUEST_ID_RE, SLUG_RE, kindOf } from './limits.ts';
export {
  LINK_RELS,
  QUESTIONS,
  changeSchema,
  dataSchema,
  explainInputSchema,
  jsonProblem,
  linkSchema,
  nameSchema,
  queryInputSchema,
  readInputSchema,
  recallInputSchema,
  rememberInputSchema,
} from './records.ts';
export type { Change, JsonValue, Link, LinkRel, QueryRow, Question } from './records.ts';
export { ERROR_REASONS } from './errors.ts';
export type { ErrorReason } from './errors.ts';
export { cleanBody, cleanLine, textProblem, textSchema } from './text.ts';
export type { TextKind } from './text.ts';
