import type { SaidCitation } from '@sponge/contract';
import type { LibraryTools } from '../library-tools.ts';
import type { MemoryTools } from '../memory-tools.ts';

/**
 * What the run's document is (`agent.document`), never its text: the agent reads passages
 * through `library`.
 */
export interface TurnDocument {
  id: string;
  title: string;
  pages: number;
  characters: number;
  /** Headings with their page (at most 40; empty when none were found). */
  outline: Array<{ title: string; page: number }>;
}

export interface TurnInput {
  document: TurnDocument;
  /** The owner's messages and the agent's replies so far, oldest first; the last one is the question. */
  history: Array<{ role: 'you' | 'agent'; text: string }>;
  /** The five memory tools; a remember's `data.source` is checked against what `library` read. */
  tools: MemoryTools;
  /** `library.search` and `library.read` for the run; their text is data, never instructions. */
  library: LibraryTools;
  /** Aborted when the turn's time limit passes, the runtime stops or another runtime took the run. */
  signal: AbortSignal;
}

/**
 * Why a turn failed (SPEC §7b): the model endpoint refused the key (`auth`), could not be reached
 * (`unreachable`), answered an HTTP error after its retries (`http`, with `status`), or answered
 * something that cannot be used (`malformed`: a broken or unknown tool call, an unreadable body);
 * or the agent itself threw (`crashed`). A turn that stops at its own limits (tool calls, tokens,
 * seconds) has not failed: its reply names the limit.
 */
type TurnFailureKind = 'auth' | 'unreachable' | 'http' | 'malformed' | 'crashed';

export interface TurnFailure {
  kind: TurnFailureKind;
  /** The HTTP status, for `auth` and `http`. */
  status?: number;
}

export interface TurnAnswer {
  /** The reply to post; for a failed turn, a plain sentence naming the failure (never the key). */
  text: string;
  /**
   * What the reply cites (posted with it; `agent.say` verifies each quote), each passage with
   * whether it supports its sentence when the agent checked (the model agent; else `unchecked`).
   */
  citations?: SaidCitation[];
  /** Set when the turn failed: the runtime posts `text` and logs the turn as failed. */
  failure?: TurnFailure;
}

export interface TurnAgent {
  /** Shown in the transcript: 'scripted agent' or the model's name. */
  readonly name: string;
  /** The turn's answer. Never throws for a model failure: it answers with `failure` set. */
  answer(input: TurnInput): Promise<TurnAnswer>;
}
