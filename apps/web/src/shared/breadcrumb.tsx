import { Link } from 'react-router';

/**
 * "Library › Reef recovery › Memory": the way back up from a page, as a navigation landmark a
 * screen reader can jump to, the page itself marked as the current one.
 *
 * @example <Breadcrumb trail={[{ label: 'Library', to: '/' }]} current={doc.title} />
 */
export function Breadcrumb({
  trail,
  current,
}: {
  trail: ReadonlyArray<{ label: string; to: string }>;
  current: string;
}) {
  return (
    <nav className="breadcrumb" aria-label="Breadcrumb">
      <ol>
        {trail.map((step) => (
          <li key={step.to}>
            <Link to={step.to}>{step.label}</Link>
          </li>
        ))}
        <li>
          <span aria-current="page">{current}</span>
        </li>
      </ol>
    </nav>
  );
}
