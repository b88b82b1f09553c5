import * as Dialog from '@radix-ui/react-dialog';
import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { documentPath } from '../shared/paths.ts';
import { queryClient, trpc } from '../trpc.ts';
import {
  BIBLIOGRAPHY_ACCEPT,
  checkImport,
  importLines,
  importReferences,
  importSummary,
  PDF_ACCEPT,
} from './import.ts';
import type { ImportAnswer } from './import.ts';

type State =
  | { step: 'choosing'; problem: string | null }
  | { step: 'sending'; progress: number }
  | { step: 'done'; answer: ImportAnswer };

/**
 * "Import from Zotero, BibTeX, RIS…" (UI.md): the export a reference manager writes and the PDFs
 * it names, or a .zip of its folder; then what became of each entry, in words, each added or
 * already-there document linked.
 */
export function ImportDialog() {
  const [open, setOpen] = useState(false);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger className="button">Import from Zotero, BibTeX, RIS…</Dialog.Trigger>
      {open && <ImportForm />}
    </Dialog.Root>
  );
}

function ImportForm() {
  const [file, setFile] = useState<File | null>(null);
  const [pdfs, setPdfs] = useState<File[]>([]);
  const [state, setState] = useState<State>({ step: 'choosing', problem: null });
  const fileId = useId();
  const pdfsId = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const problem = checkImport(file, pdfs);
    if (problem || !file) return setState({ step: 'choosing', problem });
    setState({ step: 'sending', progress: 0 });
    void importReferences(file, pdfs, {
      onProgress: (progress) => setState({ step: 'sending', progress }),
    }).then((outcome) => {
      if (!outcome.ok) return setState({ step: 'choosing', problem: outcome.message });
      setState({ step: 'done', answer: outcome.answer });
      void queryClient.invalidateQueries({ queryKey: trpc.documents.pathKey() });
    });
  };
  return (
    <Dialog.Portal>
      <Dialog.Overlay className="overlay" />
      <Dialog.Content className="dialog wide scrolls">
        <Dialog.Title>Import from a reference manager</Dialog.Title>
        <Dialog.Description className="small muted">
          Export from Zotero, Mendeley or JabRef as BibTeX, RIS or CSL-JSON, and choose that file with the
          PDFs it names — or a .zip of the export folder. Each entry becomes a document with its authors, year
          and tags; one without a PDF keeps its abstract as its text.
        </Dialog.Description>
        {state.step === 'done' ? (
          <ImportResult answer={state.answer} />
        ) : (
          <form className="import-form" onSubmit={submit} noValidate>
            <div className="form-field">
              <label htmlFor={fileId}>Exported file (.bib, .ris, .json or .zip)</label>
              <input
                id={fileId}
                type="file"
                accept={BIBLIOGRAPHY_ACCEPT}
                onChange={(e) => setFile(e.target.files?.[0] ?? null)}
              />
            </div>
            <div className="form-field">
              <label htmlFor={pdfsId}>Its PDFs (optional)</label>
              <input
                id={pdfsId}
                type="file"
                multiple
                accept={PDF_ACCEPT}
                onChange={(e) => setPdfs([...(e.target.files ?? [])])}
              />
              <p className="field-hint">Matched to the entries by their file names.</p>
            </div>
            {state.step === 'choosing' && state.problem && (
              <p className="field-error" role="alert">
                {state.problem}
              </p>
            )}
            {state.step === 'sending' && (
              <p className="small" role="status">
                {state.progress < 1
                  ? `Sending… ${Math.round(state.progress * 100)}%`
                  : 'Reading the entries and their PDFs…'}
              </p>
            )}
            <div className="dialog-actions">
              <Dialog.Close className="button" type="button">
                Cancel
              </Dialog.Close>
              <button
                type="submit"
                className="button primary"
                disabled={state.step === 'sending'}
                aria-busy={state.step === 'sending' || undefined}
              >
                Import
              </button>
            </div>
          </form>
        )}
      </Dialog.Content>
    </Dialog.Portal>
  );
}

function ImportResult({ answer }: { answer: ImportAnswer }) {
  return (
    <>
      <p role="status">
        <strong>{importSummary(answer)}</strong>
      </p>
      <ul className="import-result" aria-label="Entries">
        {importLines(answer).map((line, i) => (
          <li key={i} className={line.kind === 'failed' ? 'field-error' : undefined}>
            {line.kind === 'added' ? (
              <>
                Added: <Link to={documentPath(line.id)}>{line.title}</Link>
                {line.note !== null && <> — {line.note}.</>}
              </>
            ) : line.kind === 'duplicate' ? (
              <>
                Already in your library: “{line.entry}” —{' '}
                <Link to={documentPath(line.existingId)}>open it</Link>?
              </>
            ) : (
              <>
                Not added: “{line.entry}” — {line.why}.
              </>
            )}
          </li>
        ))}
      </ul>
      <div className="dialog-actions">
        <Dialog.Close className="button">Close</Dialog.Close>
      </div>
    </>
  );
}
