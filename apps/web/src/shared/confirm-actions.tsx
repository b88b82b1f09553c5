import * as Dialog from '@radix-ui/react-dialog';
import type { ReactNode } from 'react';
import { ActionError, BusyButton } from './states.tsx';

/**
 * The end of a dialog that asks before an action that cannot be undone: why the action failed, if
 * it did, then Cancel and the action's button. Neither can be pressed while the action runs.
 */
export function ConfirmActions({
  action,
  onConfirm,
  children,
}: {
  action: { isPending: boolean; error: unknown };
  onConfirm: () => void;
  children: ReactNode;
}) {
  return (
    <>
      <ActionError error={action.error} />
      <div className="dialog-actions">
        <Dialog.Close className="button" disabled={action.isPending}>
          Cancel
        </Dialog.Close>
        <BusyButton busy={action.isPending} type="button" className="button danger-solid" onClick={onConfirm}>
          {children}
        </BusyButton>
      </div>
    </>
  );
}
