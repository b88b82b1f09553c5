import { useState } from 'react';
import { errorMessage } from '../shared/errors.ts';
import { queryClient, trpc } from '../trpc.ts';

/**
 * "Export reviewed knowledge": downloads the document's reviewed knowledge at its newest revision
 * as the server's canonical JSON file, byte for byte, so every digest in it can be checked.
 */
export function ExportReviewedKnowledge({ documentId }: { documentId: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function exportNow() {
    setBusy(true);
    setError(null);
    try {
      // Always asked afresh: the export names the moment it was made.
      const out = await queryClient.fetchQuery({
        ...trpc.review.export.queryOptions({ documentId }),
        staleTime: 0,
        gcTime: 0,
      });
      download(out.filename, out.json);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div>
      <button type="button" className="button" onClick={() => void exportNow()} disabled={busy}>
        {busy ? 'Exporting…' : 'Export reviewed knowledge'}
      </button>
      {error !== null && (
        <p role="alert" className="small">
          Could not export: {errorMessage(error)}
        </p>
      )}
    </div>
  );
}

/** Saves `text` as a file through a temporary link (the JSON is not re-encoded on the way). */
function download(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  // The click has handed the file to the browser; the URL is not needed after this task.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
