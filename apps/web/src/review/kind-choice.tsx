import { useId } from 'react';
import { FieldErrors } from './field-errors.tsx';
import { MAIN } from './use-review-form.ts';
import type { KindOption, ReviewForm } from './use-review-form.ts';
import { codeLabel } from './words.ts';

/**
 * "What is it?": the kinds of the installed profiles by their labels, each with one line of what
 * it is (the pack's description). The note's own kind is chosen when a profile has it, else a
 * finding.
 */
export function KindChoice({ form }: { form: ReviewForm }) {
  const id = useId();
  const errors = [...form.at(MAIN, 'profile'), ...form.at(MAIN, 'kind')];
  const profiles = [...new Set(form.options.map((o) => o.profileTitle))];
  return (
    <fieldset className="wb-row plain" aria-describedby={errors.length > 0 ? `${id}-err` : undefined}>
      <legend className="wb-label">What is it?</legend>
      <div>
        {profiles.map((title) => (
          <div key={title} className="kind-group">
            {profiles.length > 1 && <p className="small muted">{title}</p>}
            <div className="kind-options">
              {form.options
                .filter((o) => o.profileTitle === title)
                .map((o) => (
                  <KindRadio key={o.key} option={o} checked={form.chosen?.key === o.key} form={form} />
                ))}
            </div>
          </div>
        ))}
        <FieldErrors id={`${id}-err`} messages={errors} />
      </div>
    </fieldset>
  );
}

function KindRadio({ option, checked, form }: { option: KindOption; checked: boolean; form: ReviewForm }) {
  const id = useId();
  return (
    <div className={`kind-option${checked ? ' chosen' : ''}`}>
      <input
        type="radio"
        id={id}
        name="kind"
        value={option.key}
        checked={checked}
        aria-describedby={`${id}-desc`}
        onChange={() => form.chooseKind(option.key)}
      />
      <label htmlFor={id}>{codeLabel(option.kind.name)}</label>
      <span className="kind-desc" id={`${id}-desc`}>
        {option.kind.description}
      </span>
    </div>
  );
}
