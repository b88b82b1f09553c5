import { useQueries } from '@tanstack/react-query';
import { trpc } from '../trpc.ts';
import type { FieldInWords, FieldSpecs } from './fields-in-words.ts';

/** A record's fields in words, one line each ("Effect: 37 %"); the pack's description on hover. */
export function FieldsList({ lines, label }: { lines: readonly FieldInWords[]; label: string }) {
  return (
    <ul className="links fields" aria-label={label}>
      {lines.map((line) => (
        <li key={line.name}>
          <span className="rel" title={line.help ?? undefined}>
            {line.label}
          </span>
          : {line.words}
        </li>
      ))}
    </ul>
  );
}

/**
 * The field specs of the packs `profiles` name (`profiles.preview`, read once: a shipped pack does
 * not change while the page is open), as a lookup by profile and kind; null while a preview loads
 * or for a pack no longer shipped, and the fields are then read by their shape.
 */
export function useFieldSpecs(
  profiles: readonly string[],
): (profile: string | null, kind: string) => FieldSpecs | null {
  const names = [...new Set(profiles)].sort();
  const previews = useQueries({
    queries: names.map((name) => ({
      ...trpc.profiles.preview.queryOptions({ name }),
      staleTime: Infinity,
      retry: false,
    })),
  });
  return (profile, kind) => {
    if (profile === null) return null;
    const preview = previews[names.indexOf(profile)]?.data;
    return preview?.kinds.find((k) => k.name === kind)?.fields ?? null;
  };
}
