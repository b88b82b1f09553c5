import { SPONGE_LIMITS } from '@sponge/contract';
import type { TranscriptItem } from '@sponge/contract';
import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { queryClient, trpc } from '../trpc.ts';
import { chatKeyAction } from './chat-keys.ts';
import { askErrorMessage } from './chat.ts';

/**
 * The owner's question box. Without `runId` asking starts a new chat run; with the id of a live
 * chat run it adds a turn there ("Ask a follow-up"). The hosted runtime answers; the run's
 * transcript shows the question, the agent's memory cards and its reply as they arrive.
 */
export function AskForm({
  documentId,
  runId,
  onAsked,
  onNewChat,
  autoFocus = false,
}: {
  documentId: string;
  runId?: string | undefined;
  /** The run the question went to: the page then looks at it, so the next question follows up. */
  onAsked: (runId: string) => void;
  /** Leaves the run for a new one; absent when no new run may start. */
  onNewChat?: (() => void) | undefined;
  /** Takes the focus when it appears: after a new run's first question, the box moves into that run. */
  autoFocus?: boolean;
}) {
  const textId = useId();
  const errorId = useId();
  const [text, setText] = useState('');
  const ask = useMutation(
    trpc.chat.ask.mutationOptions({
      onSuccess: async (asked, sent) => {
        // The question at once, before the refetch confirms it.
        const key = trpc.chat.transcript.queryKey({ runId: asked.runId });
        const question: TranscriptItem = {
          type: 'message',
          role: 'you',
          text: sent.text,
          at: new Date().toISOString(),
        };
        queryClient.setQueryData(key, (old) => [...(old ?? []), question]);
        // Held until the run list has the new run, so the question never blinks out between the
        // form and the run's transcript.
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.runs.list.queryKey({ documentId }) }),
          queryClient.invalidateQueries({ queryKey: key }),
        ]);
        setText('');
        onAsked(asked.runId);
      },
    }),
  );
  const followUp = runId !== undefined;
  const label = followUp ? 'Ask a follow-up' : 'Ask about this document';
  const question = text.trim();

  return (
    <form
      className="ask"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        if (!question || ask.isPending) return;
        ask.mutate({ documentId, text: question, ...(followUp ? { runId } : {}) });
      }}
    >
      <label htmlFor={textId}>{label}</label>
      <textarea
        id={textId}
        rows={3}
        required
        maxLength={SPONGE_LIMITS.messageChars}
        autoFocus={autoFocus}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          // Enter sends, Shift+Enter makes a new line; an input method's Enter only confirms what it composed.
          const { key, shiftKey, altKey, nativeEvent } = e;
          const { isComposing, keyCode } = nativeEvent;
          if (chatKeyAction({ key, shiftKey, altKey, isComposing, keyCode }) !== 'send') return;
          e.preventDefault();
          // An empty box sends nothing (and raises no "fill out this field" bubble).
          if (question) e.currentTarget.form?.requestSubmit();
        }}
        readOnly={ask.isPending}
        aria-invalid={ask.isError || undefined}
        aria-describedby={ask.isError ? errorId : undefined}
      />
      {ask.isPending && (
        <p className="msg pending">
          <span className="msg-who">you:</span> {ask.variables.text}
        </p>
      )}
      <p className="visually-hidden" role="status">
        {ask.isPending ? 'Sending your question…' : ''}
      </p>
      {ask.isError && (
        <p className="notice error" role="alert" id={errorId}>
          {askErrorMessage(ask.error)}
        </p>
      )}
      <div className="ask-actions">
        <span className="ask-hint small muted">Enter sends · Shift+Enter for a new line</span>
        {onNewChat && (
          <button
            type="button"
            className="button"
            onClick={() => {
              ask.reset();
              onNewChat();
            }}
          >
            New chat
          </button>
        )}
        <button type="submit" className="button primary" disabled={ask.isPending}>
          {ask.isPending ? 'Asking…' : 'Ask'}
        </button>
      </div>
    </form>
  );
}
