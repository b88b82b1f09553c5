import { useRef, useState } from 'react';
import { checkFile, uploadDocument } from './upload.ts';
import type { UploadedDocument } from './upload.ts';

export interface QueuedFile {
  key: string;
  name: string;
  size: number;
  status: 'waiting' | 'uploading' | 'added' | 'failed';
  /** Share sent so far, 0..1, while uploading. */
  progress: number;
  document: UploadedDocument | null;
  error: string | null;
  /** The document the library already has, when the file was refused as a duplicate. */
  existingId: string | null;
}

let counter = 0;

/**
 * Files chosen or dropped in the Add document dialog, uploaded one after another (one request
 * at a time keeps a 20 MB PDF from starving the others, and each row's progress means what it
 * says). A file the API would refuse for its size or kind fails here, before anything is sent.
 * The queue lives with the page, not the dialog: closing the dialog does not lose an upload.
 */
export function useUploadQueue(onAdded: (doc: UploadedDocument) => void) {
  const [items, setItems] = useState<QueuedFile[]>([]);
  const pending = useRef<Array<{ key: string; file: File }>>([]);
  const busy = useRef(false);
  const update = (key: string, patch: Partial<QueuedFile>) =>
    setItems((all) => all.map((item) => (item.key === key ? { ...item, ...patch } : item)));

  const drain = async () => {
    if (busy.current) return;
    busy.current = true;
    try {
      for (let next = pending.current.shift(); next; next = pending.current.shift()) {
        const { key, file } = next;
        update(key, { status: 'uploading', progress: 0 });
        const outcome = await uploadDocument(file, { onProgress: (progress) => update(key, { progress }) });
        if (outcome.ok) {
          update(key, { status: 'added', progress: 1, document: outcome.document });
          onAdded(outcome.document);
        } else {
          update(key, {
            status: 'failed',
            error: outcome.message,
            existingId: outcome.reason === 'duplicate' ? outcome.existingId : null,
          });
        }
      }
    } finally {
      busy.current = false;
    }
  };

  return {
    items,
    busy: items.some((i) => i.status === 'waiting' || i.status === 'uploading'),
    add: (files: Iterable<File>) => {
      const added: QueuedFile[] = [];
      for (const file of files) {
        const key = `file-${++counter}`;
        const refusal = checkFile(file);
        added.push({
          key,
          name: file.name,
          size: file.size,
          status: refusal ? 'failed' : 'waiting',
          progress: 0,
          document: null,
          error: refusal,
          existingId: null,
        });
        if (!refusal) pending.current.push({ key, file });
      }
      setItems((all) => [...all, ...added]);
      void drain();
    },
    /** Forgets the rows that are done (added or failed); uploads under way stay. */
    clearFinished: () =>
      setItems((all) => all.filter((i) => i.status === 'waiting' || i.status === 'uploading')),
  };
}
