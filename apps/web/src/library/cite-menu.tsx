import * as Menu from '@radix-ui/react-dropdown-menu';
import { Fragment, useState } from 'react';
import { errorMessage } from '../shared/errors.ts';
import { queryClient, trpc } from '../trpc.ts';
import { CITE_CHOICES, citeInput, copiedWords } from './cite.ts';
import type { CiteChoice } from './cite.ts';

type Said =
  { kind: 'copied' | 'failed'; words: string } | { kind: 'manual'; words: string; text: string } | null;

/**
 * Puts the references on the clipboard. The text is asked for after the click, so it is handed to
 * the clipboard as a promise (ClipboardItem): a browser keeps the click's permission for it, where
 * writeText after the answer could be refused as too late. Without ClipboardItem, writeText.
 */
async function copyText(text: Promise<string>): Promise<void> {
  if (typeof ClipboardItem !== 'undefined' && navigator.clipboard?.write) {
    const blob = text.then((t) => new Blob([t], { type: 'text/plain' }));
    await navigator.clipboard.write([new ClipboardItem({ 'text/plain': blob })]);
    return;
  }
  await navigator.clipboard.writeText(await text);
}

/**
 * *Cite ▾* (SPEC §6d): the documents' references in a format or a style, copied to the clipboard
 * (`documents.cite`). What happened is said beside it; where the clipboard refuses, the text is
 * shown to copy by hand.
 */
export function CiteMenu({
  documentIds,
  label = 'Cite',
  disabled = false,
}: {
  documentIds: readonly string[];
  label?: string;
  disabled?: boolean;
}) {
  const [said, setSaid] = useState<Said>(null);
  const [busy, setBusy] = useState(false);
  const cite = (choice: CiteChoice) => {
    setBusy(true);
    setSaid(null);
    const text = queryClient
      .fetchQuery(trpc.documents.cite.queryOptions(citeInput(documentIds, choice)))
      .then((answer) => answer.text);
    copyText(text)
      .then(() => setSaid({ kind: 'copied', words: copiedWords(choice, documentIds.length) }))
      .catch(async (error: unknown) => {
        // The references came but the clipboard refused them: shown, to copy by hand.
        const got = await text.catch(() => null);
        setSaid(
          got === null
            ? { kind: 'failed', words: `Could not cite: ${errorMessage(error)}` }
            : { kind: 'manual', words: 'The clipboard refused the text: copy it from here.', text: got },
        );
      })
      .finally(() => setBusy(false));
  };
  return (
    <span className="cite">
      <Menu.Root modal={false}>
        <Menu.Trigger className="button" disabled={disabled || busy || documentIds.length === 0}>
          {label} <span aria-hidden="true">▾</span>
        </Menu.Trigger>
        <Menu.Content className="menu" align="start" sideOffset={4}>
          {CITE_CHOICES.map((choice, i) => (
            <Fragment key={choice.label}>
              {/* The reference managers' formats, then the styles of a text to paste. */}
              {choice.style && !CITE_CHOICES[i - 1]?.style && <Menu.Separator className="menu-separator" />}
              <Menu.Item className="menu-item" onSelect={() => cite(choice)}>
                {choice.style ? `${choice.label} text` : choice.label}
              </Menu.Item>
            </Fragment>
          ))}
        </Menu.Content>
      </Menu.Root>
      <span role="status" className={said?.kind === 'failed' ? 'small field-error' : 'small'}>
        {said?.words}
      </span>
      {said?.kind === 'manual' && (
        <textarea className="cite-text mono" readOnly value={said.text} aria-label="References" rows={6} />
      )}
    </span>
  );
}
