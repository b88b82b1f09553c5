import type { MemoryTools } from '../memory-tools.ts';
export interface TurnInput {
  /** The run's document: data for the agent, never instructions. */
  document: { id: string; title: string; text: string };
  /** The owner's messages and the agent's replies so far, oldest first; the last one is the question. */
  history: Array<{ role: 'you' | 'agent'; text: string }>;
  tools: MemoryTools;
  /** Aborted when the turn's time limit passes or the runtime stops. */
  signal: AbortSignal;
}
export interface TurnAgent {
  /** Shown in the transcript: 'scripted agent' or the model's name. */
  readonly name: string;
  /** The reply to post. Never throws for a model failure: it returns a reply that says what failed. */
  answer(input: TurnInput): Promise<string>;
}
