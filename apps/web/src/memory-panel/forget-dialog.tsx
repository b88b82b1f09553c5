import * as Dialog from '@radix-ui/react-dialog';
import { useMutation } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { ConfirmActions } from '../shared/confirm-actions.tsx';
import { queryClient, trpc } from '../trpc.ts';

/**
 * "Forget now" behind a confirmation. Radix traps focus in the dialog and returns it to the
 * trigger on Cancel; after forgetting the trigger is gone, and the panel moves focus to its
 * state line ("Forgotten at …") from `onForgotten`.
 */
export function ForgetDialog({
  sessionId,
  onForgotten,
}: {
  sessionId: string;
  onForgotten: (at: string) => void;
}) {
  const [open, setOpen] = useState(false);
  // A ref, not state: Radix reads it in its unmount handler, after this component's last render.
  const forgotten = useRef(false);
  const forget = useMutation(
    trpc.memory.forget.mutationOptions({
      // The panel, the run list and the transcripts' cards all change at once.
      onSuccess: () => void queryClient.invalidateQueries(),
    }),
  );
  // The ref is set from the click's own callbacks: handed to mutationOptions, which runs during
  // render, it could be read during render (react-hooks/refs).
  const forgetNow = () =>
    forget.mutate(
      { sessionId },
      {
        onSuccess: () => {
          forgotten.current = true;
          setOpen(false);
          onForgotten(new Date().toISOString());
        },
      },
    );

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        if (!forget.isPending) setOpen(next);
        if (next) forget.reset();
      }}
    >
      <Dialog.Trigger className="button danger">Forget now</Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content
          className="dialog"
          onCloseAutoFocus={(event) => {
            // The trigger is gone once the session is forgotten: the panel's state line takes focus.
            if (forgotten.current) event.preventDefault();
          }}
        >
          <Dialog.Title>Forget this session now?</Dialog.Title>
          <Dialog.Description>
            The agent's working notes, their history and their search index are deleted at once. Reviewed
            knowledge is not affected.
          </Dialog.Description>
          <ConfirmActions action={forget} onConfirm={forgetNow}>
            Forget now
          </ConfirmActions>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
