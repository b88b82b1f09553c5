import * as Dialog from '@radix-ui/react-dialog';
import { SPONGE_LIMITS } from '@sponge/contract';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { DragEvent } from 'react';
import { Link } from 'react-router';
import { documentPath } from '../shared/paths.ts';
import { queryClient, trpc, type RouterOutputs } from '../trpc.ts';
import { DuplicateNotice } from './duplicate-notice.tsx';
import { PasteDocumentForm } from './paste-document-form.tsx';
import { addedSummary } from './sections.ts';
import { ACCEPT, formatBytes } from './upload.ts';
import { useUploadQueue } from './use-upload-queue.ts';
import type { QueuedFile } from './use-upload-queue.ts';

type ListedDoc = RouterOutputs['documents']['list'][number];

const invalidateLibrary = () => void queryClient.invalidateQueries({ queryKey: trpc.documents.pathKey() });

/** How often the library's list is read while a sent file is being read by the API. */
const EXTRACTING_POLL_MS = 1000;

/**
 * "Add document" (UI.md "Library"): files through a picker or a drop zone, each its own row with
 * a progress bar and then its outcome in plain words, or a pasted text. The rows follow the new
 * document's indexing from the library's list, which polls while anything is indexing.
 */
export function AddDocumentDialog() {
  const [open, setOpen] = useState(false);
  const [mode, setMode] = useState<'files' | 'paste'>('files');
  const queue = useUploadQueue(invalidateLibrary);
  // Once a file is sent, the API has its document in the library, extracting: the list behind the
  // dialog follows it from then on (it polls by itself only once it has seen such a row).
  useQuery({
    ...trpc.documents.list.queryOptions(),
    refetchInterval: queue.items.some((i) => i.status === 'uploading' && i.progress >= 1)
      ? EXTRACTING_POLL_MS
      : false,
  });
  const modeName = useId();
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        // A fresh start each time, except for uploads still under way.
        if (next) queue.clearFinished();
        setOpen(next);
      }}
    >
      <Dialog.Trigger className="button primary">Add document</Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog wide">
          <Dialog.Title>Add a document</Dialog.Title>
          <Dialog.Description className="small muted">
            A PDF, a plain-text or a Markdown file of up to {formatBytes(SPONGE_LIMITS.uploadBytes)}, or a
            pasted text. Only you can read it until you share or publish it.
          </Dialog.Description>
          <fieldset className="mode-switch">
            <legend className="visually-hidden">How to add it</legend>
            {(
              [
                ['files', 'Upload files'],
                ['paste', 'Paste text'],
              ] as const
            ).map(([value, label]) => (
              <label key={value}>
                <input
                  type="radio"
                  name={modeName}
                  value={value}
                  checked={mode === value}
                  onChange={() => setMode(value)}
                />
                {label}
              </label>
            ))}
          </fieldset>
          {mode === 'files' ? (
            <FilesPane items={queue.items} onFiles={queue.add} />
          ) : (
            <PasteDocumentForm onAdded={invalidateLibrary} />
          )}
          <div className="dialog-actions">
            <Dialog.Close className="button">Close</Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function FilesPane({ items, onFiles }: { items: QueuedFile[]; onFiles: (files: File[]) => void }) {
  const [over, setOver] = useState(false);
  // The list is the library's own query: the same polling tells a row when its document is ready.
  const documents = useQuery(trpc.documents.list.queryOptions());
  const byId = new Map((documents.data ?? []).map((d) => [d.id, d]));
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    if (e.dataTransfer.files.length > 0) onFiles([...e.dataTransfer.files]);
  };
  return (
    <>
      {/* The drop zone is for the mouse; the picker inside it is the way for everyone. */}
      <div
        className={over ? 'drop-zone over' : 'drop-zone'}
        onDragEnter={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragOver={(e) => e.preventDefault()}
        onDragLeave={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
        }}
        onDrop={onDrop}
      >
        <p>Drop PDF, text or Markdown files here, or</p>
        <label className="button file-pick">
          Choose files
          <input
            type="file"
            multiple
            accept={ACCEPT}
            className="visually-hidden"
            onChange={(e) => {
              const files = [...(e.target.files ?? [])];
              // Cleared, so choosing the same file again is a change too.
              e.target.value = '';
              if (files.length > 0) onFiles(files);
            }}
          />
        </label>
      </div>
      {items.length > 0 && (
        <ul className="upload-list" aria-label="Files">
          {items.map((item) => (
            <FileRow
              key={item.key}
              item={item}
              doc={item.document ? byId.get(item.document.id) : undefined}
            />
          ))}
        </ul>
      )}
    </>
  );
}

function FileRow({ item, doc }: { item: QueuedFile; doc: ListedDoc | undefined }) {
  const percent = Math.round(item.progress * 100);
  return (
    <li className={`upload-row ${item.status}`}>
      <div className="upload-head">
        <span className="file-name">{item.name}</span>
        <span className="muted small">{formatBytes(item.size)}</span>
      </div>
      {item.status === 'uploading' && (
        <div
          className="progress"
          role="progressbar"
          aria-label={`Uploading ${item.name}`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
        >
          <span style={{ width: `${percent}%` }} />
        </div>
      )}
      <p className="upload-status small">
        {/* What happened is announced; the indexing progress after it is not, it changes every second. */}
        <span role="status">
          {item.status === 'waiting' && 'Waiting for the files before it…'}
          {item.status === 'uploading' && (percent < 100 ? 'Uploading…' : 'Extracting the text…')}
          {item.status === 'failed' &&
            (item.existingId !== null ? (
              <DuplicateNotice existingId={item.existingId} apiMessage={item.error ?? ''} />
            ) : (
              <span className="field-error">{item.error}</span>
            ))}
          {item.status === 'added' && <span className="ok-text">Added</span>}
        </span>
        {item.status === 'added' && item.document && <Added added={item.document} doc={doc} />}
      </p>
    </li>
  );
}

/** " — indexing… 40%", then " — ready", with the document's title as its link and its final counts. */
function Added({ added, doc }: { added: NonNullable<QueuedFile['document']>; doc: ListedDoc | undefined }) {
  const summary = addedSummary(added, doc);
  return (
    <>
      {' '}
      — <span className={summary.failed ? 'field-error' : ''}>{summary.state}</span>:{' '}
      <Link to={documentPath(added.id)}>{summary.title}</Link>{' '}
      <span className="muted">({summary.facts})</span>
    </>
  );
}
