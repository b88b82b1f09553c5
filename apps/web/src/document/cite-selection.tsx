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
    const onChange = () => setSelected(selectedIn(textRef.current) ?? { text: '' });
    document.addEventListener('selectionchange', onChange);
    return () => document.removeEventListener('selectionchange', onChange);
  }, [textRef]);

  const cite = () => {
    // Read again: a long text draws the blocks between a selection's ends after it changed.
    const now = selectedIn(textRef.current) ?? selected;
    const passage = passageFromSelection(documentId, now.text, now.page);
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

/** The text selected inside `box`, with the page it starts on, or null when none is. */
function selectedIn(box: HTMLElement | null): { text: string; page?: number } | null {
  const sel = document.getSelection();
  const inside =
    !!sel && !sel.isCollapsed && !!box && box.contains(sel.anchorNode) && box.contains(sel.focusNode);
  return inside ? { text: sel.toString(), page: pageOf(sel.anchorNode) } : null;
}

/** The page (1-based) of the text that holds `node`, as the document text marks its blocks. */
function pageOf(node: Node | null): number | undefined {
  const element = node instanceof Element ? node : node?.parentElement;
  const page = Number(element?.closest<HTMLElement>('[data-page]')?.dataset.page);
  return Number.isInteger(page) && page >= 1 ? page : undefined;
}
