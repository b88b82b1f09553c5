import { useEffect, useState } from 'react';
import type { RefObject } from 'react';
import { Link } from 'react-router';
import { memoryPanelPath } from '../shared/paths.ts';
import { keepSelectedPassage, passageFromSelection } from './selected-passage.ts';

type Kept = { state: 'kept' } | { state: 'error'; message: string } | null;

/**
 * "Cite in a review" for a passage selected in the document text: it keeps `{ documentId,
 * passage }` for the review workbench, which opens later from a working note in a Memory panel.
 * The button shows while a selection lies inside `textRef`; pressing it must not take the
 * selection away, so the mouse press is not allowed to move the focus.
 */
export function CiteSelection({
  documentId,
  textRef,
}: {
  documentId: string;
  textRef: RefObject<HTMLElement | null>;
}) {
  const [selected, setSelected] = useState<{ text: string; page?: number }>({ text: '' });
  const [kept, setKept] = useState<Kept>(null);

  useEffect(() => {
    const onChange = () => {
      const sel = document.getSelection();
      const box = textRef.current;
      const inside =
        !!sel && !sel.isCollapsed && !!box && box.contains(sel.anchorNode) && box.contains(sel.focusNode);
      setSelected(inside ? { text: sel.toString(), page: pageOf(box, sel.anchorNode) } : { text: '' });
    };
    document.addEventListener('selectionchange', onChange);
    return () => document.removeEventListener('selectionchange', onChange);
  }, [textRef]);

  const cite = () => {
    const passage = passageFromSelection(documentId, selected.text, selected.page);
    if ('error' in passage) return setKept({ state: 'error', message: passage.error });
    setKept(
      keepSelectedPassage(passage)
        ? { state: 'kept' }
        : { state: 'error', message: 'This browser keeps nothing for this tab; paste the passage instead.' },
    );
  };

  return (
    <div className="cite-bar">
      {selected.text.trim() && (
        <button
          type="button"
          className="button small-button primary"
          onMouseDown={(e) => e.preventDefault()}
          onClick={cite}
        >
          Cite in a review
        </button>
      )}
      {/* Always in the tree, so what it says is announced. */}
      <p role="status" className="small">
        {kept?.state === 'kept' ? (
          <>
            Passage kept: propose a working note for review in Memory to use it.{' '}
            <Link to={memoryPanelPath(documentId)}>Open Memory</Link>
          </>
        ) : kept?.state === 'error' ? (
          <span className="field-error">{kept.message}</span>
        ) : null}
      </p>
    </div>
  );
}

/** The page (1-based) of the text's `.doc-page` that holds `node`, as the document text lays pages out. */
function pageOf(box: HTMLElement, node: Node | null): number | undefined {
  const element = node instanceof Element ? node : node?.parentElement;
  const page = element?.closest('.doc-page');
  if (!page) return undefined;
  const index = [...box.querySelectorAll('.doc-page')].indexOf(page);
  return index >= 0 ? index + 1 : undefined;
}
