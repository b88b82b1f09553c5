import { LIMITS } from '@sponge/contract';
import { useId } from 'react';
import { FieldErrors } from './field-errors.tsx';
import { FieldInputs } from './field-inputs.tsx';
import { issuesAt } from './review-form.ts';
import type { ReviewForm } from './use-review-form.ts';

/**
 * What the reviewed record will be: a kind of an installed profile, its name, the kind's fields
 * (generated from their codecs) and the text an agent reads.
 */
export function RecordInputs({ form, knownNames }: { form: ReviewForm; knownNames: readonly string[] }) {
  const ids = { kind: useId(), name: useId(), text: useId() };
  const { chosen, at } = form;
  const kindErrors = [...at('profile'), ...at('kind')];
  return (
    <>
      <div className="wb-row">
        <label htmlFor={ids.kind}>Profile kind</label>
        <div>
          {form.loadingKinds ? (
            <span className="muted">Loading profiles…</span>
          ) : form.options.length === 0 ? (
            <span className="notice warn">No profile is installed on this document.</span>
          ) : (
            <select
              id={ids.kind}
              value={chosen?.key ?? ''}
              aria-invalid={kindErrors.length > 0 || undefined}
              aria-describedby={kindErrors.length > 0 ? `${ids.kind}-err` : undefined}
              onChange={(e) => form.chooseKind(e.target.value)}
            >
              {form.previews.map((q) =>
                q.data ? (
                  <optgroup key={q.data.name} label={q.data.title}>
                    {q.data.kinds.map((k) => (
                      <option key={k.name} value={`${q.data.name}/${k.name}`}>
                        {`${q.data.title} › ${k.name}`}
                      </option>
                    ))}
                  </optgroup>
                ) : null,
              )}
            </select>
          )}
          {chosen && <p className="field-hint">{chosen.kind.description}</p>}
          <FieldErrors id={`${ids.kind}-err`} messages={kindErrors} />
        </div>
      </div>

      <div className="wb-row">
        <label htmlFor={ids.name}>Record name</label>
        <div>
          <input
            id={ids.name}
            className="mono"
            maxLength={LIMITS.nameChars}
            value={form.recordName}
            spellCheck={false}
            aria-invalid={at('name').length > 0 || undefined}
            aria-describedby={`${ids.name}-hint${at('name').length > 0 ? ` ${ids.name}-err` : ''}`}
            onChange={(e) => form.editName(e.target.value)}
          />
          <p className="field-hint" id={`${ids.name}-hint`}>
            kind:slug — a record with a name already reviewed replaces it in the new revision.
          </p>
          <FieldErrors id={`${ids.name}-err`} messages={at('name')} />
        </div>
      </div>

      {chosen && (
        <div className="wb-row">
          <span className="wb-label" id={`${ids.kind}-fields`}>
            Fields
          </span>
          <div role="group" aria-labelledby={`${ids.kind}-fields`}>
            <FieldInputs
              fields={chosen.kind.fields}
              values={form.values}
              onChange={form.editField}
              errors={(field) => at(`fields.${field}`)}
              knownNames={knownNames}
            />
            <FieldErrors messages={issuesAt(form.issues, 'fields', true)} />
          </div>
        </div>
      )}

      <div className="wb-row">
        <label htmlFor={ids.text}>Record text</label>
        <div>
          <textarea
            id={ids.text}
            rows={2}
            maxLength={LIMITS.textChars}
            value={form.text}
            aria-invalid={at('text').length > 0 || undefined}
            aria-describedby={`${ids.text}-hint${at('text').length > 0 ? ` ${ids.text}-err` : ''}`}
            onChange={(e) => form.editText(e.target.value)}
          />
          <p className="field-hint" id={`${ids.text}-hint`}>
            What an agent reads for this record.
          </p>
          <FieldErrors id={`${ids.text}-err`} messages={at('text')} />
        </div>
      </div>
    </>
  );
}
