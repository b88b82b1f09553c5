import { SPONGE_LIMITS } from '@sponge/contract';
import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../shared/errors.ts';
import { documentPath } from '../shared/paths.ts';
import { trpc, type RouterOutputs } from '../trpc.ts';
import { DuplicateNotice, duplicateOf } from './duplicate-notice.tsx';

type Added = RouterOutputs['documents']['add'];
type Format = 'text' | 'markdown';

/** What is wrong with the inputs before sending, in the words the API would use; null when fine. */
function problems(title: string, text: string): { title?: string; text?: string } | null {
  const found: { title?: string; text?: string } = {};
  if (!title.trim()) found.title = 'Give the document a title.';
  else if (title.trim().length > SPONGE_LIMITS.titleChars)
    found.title = `A title is at most ${SPONGE_LIMITS.titleChars} characters.`;
  if (!text.trim()) found.text = 'Paste the text of the document.';
  else if (text.length > SPONGE_LIMITS.documentChars) {
    found.text = `The text has ${text.length.toLocaleString('en')} characters; a document has at most ${SPONGE_LIMITS.documentChars.toLocaleString('en')}.`;
  }
  return found.title || found.text ? found : null;
}

/** The paste half of Add document: a title, the text, and whether it is Markdown (`documents.add`). */
export function PasteDocumentForm({ onAdded }: { onAdded: () => void }) {
  const ids = { title: useId(), text: useId(), format: useId() };
  const [title, setTitle] = useState('');
  const [text, setText] = useState('');
  const [format, setFormat] = useState<Format>('text');
  const [shown, setShown] = useState<{ title?: string; text?: string } | null>(null);
  const [added, setAdded] = useState<Added | null>(null);
  const add = useMutation(
    trpc.documents.add.mutationOptions({
      onSuccess: (doc) => {
        setAdded(doc);
        setTitle('');
        setText('');
        onAdded();
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const wrong = problems(title, text);
    setShown(wrong);
    if (wrong) return;
    setAdded(null);
    add.mutate({ title: title.trim(), text, format });
  };
  return (
    <form className="paste-form" onSubmit={submit} noValidate>
      <label htmlFor={ids.title}>Title</label>
      <input
        id={ids.title}
        value={title}
        maxLength={SPONGE_LIMITS.titleChars}
        aria-invalid={shown?.title ? true : undefined}
        aria-describedby={shown?.title ? `${ids.title}-err` : undefined}
        onChange={(e) => setTitle(e.target.value)}
      />
      {shown?.title && (
        <p className="field-error" id={`${ids.title}-err`}>
          {shown.title}
        </p>
      )}
      <label htmlFor={ids.text}>Text</label>
      <textarea
        id={ids.text}
        rows={8}
        value={text}
        aria-invalid={shown?.text ? true : undefined}
        aria-describedby={shown?.text ? `${ids.text}-err` : undefined}
        onChange={(e) => setText(e.target.value)}
      />
      {shown?.text && (
        <p className="field-error" id={`${ids.text}-err`}>
          {shown.text}
        </p>
      )}
      <fieldset className="radios">
        <legend>Format</legend>
        <label>
          <input
            type="radio"
            name={ids.format}
            checked={format === 'text'}
            onChange={() => setFormat('text')}
          />
          Plain text
        </label>
        <label>
          <input
            type="radio"
            name={ids.format}
            checked={format === 'markdown'}
            onChange={() => setFormat('markdown')}
          />
          Markdown
        </label>
      </fieldset>
      <div className="paste-actions">
        <button
          type="submit"
          className="button primary"
          disabled={add.isPending}
          aria-busy={add.isPending || undefined}
        >
          Add text
        </button>
      </div>
      <p role="status" className="small">
        {add.isError && duplicateOf(add.error) !== null ? (
          <DuplicateNotice existingId={duplicateOf(add.error)!} apiMessage={add.error.message} />
        ) : add.isError ? (
          <span className="field-error">{errorMessage(add.error)}</span>
        ) : added ? (
          <>
            Added: <Link to={documentPath(added.id)}>{added.title}</Link> (
            {added.characters.toLocaleString('en')} characters). It is being indexed for search.
          </>
        ) : null}
      </p>
    </form>
  );
}
