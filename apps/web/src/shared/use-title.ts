import { useEffect } from 'react';

/** Sets the tab title to "<parts> — Sponge". */
export function useTitle(...parts: (string | undefined)[]): void {
  const title = [...parts.filter(Boolean), 'Sponge'].join(' — ');
  useEffect(() => {
    document.title = title;
  }, [title]);
}
