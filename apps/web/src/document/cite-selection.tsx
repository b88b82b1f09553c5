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
  const [selected, setSelected] = useState('');
  const [kept, setKept] = useState<Kept>(null);

  useEffect(() => {
    const onChange = () => {
      const sel = document.getSelection();
      const box = textRef.current;
      const inside =
        !!sel && !sel.isCollapsed && !!box && box.contains(sel.anchorNode) && box.contains(sel.focusNode);
      setSelected(inside ? sel.toString() : '');
    };
    document.addEventListener('selectionchange', onChange);
    return () => document.removeEventListener('selectionchange', onChange);
  }, [textRef]);

  const cite = () => {
    const passage = passageFromSelection(documentId, selected);
    if ('error' in passage) return setKept({ state: 'error', message: passage.error });
    setKept(
      keepSelectedPassage(passage)
        ? { state: 'kept' }
        : { state: 'error', message: 'This browser keeps nothing for this tab; paste the passage instead.' },
    );
  };

  return (
    <div className="cite-bar">
      {selected.trim() && (
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
