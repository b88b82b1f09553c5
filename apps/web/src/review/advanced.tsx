import { LIMITS } from '@sponge/contract';
import { useId, useState } from 'react';
import { FieldErrors } from './field-errors.tsx';
import { MAIN } from './use-review-form.ts';
import type { ReviewForm } from './use-review-form.ts';
import { codeLabel, fieldLabel } from './words.ts';

/**
 * *Advanced*: what the words above stand for — each record's name (generated from its
 * statement, editable), the text an agent reads, and the raw codes (profile, kinds, unit codes).
 * It opens by itself when the server has something to say about a name or a text.
 */
export function Advanced({ form }: { form: ReviewForm }) {
  const id = useId();
  const [opened, setOpened] = useState(false);
  const records = form.group ? [form.group.main, ...form.group.with] : [];
  const hasIssues = records.some(
    (r) => form.at(r.draftId, 'name').length + form.at(r.draftId, 'text').length > 0,
  );
  const open = opened || hasIssues;
  if (!form.chosen || records.length === 0) return null;
  return (
    <div className="wb-row">
      <span className="wb-label" aria-hidden="true" />
      <div>
        <button
          type="button"
          className="disclosure"
          aria-expanded={open}
          aria-controls={id}
          onClick={() => setOpened(!open)}
        >
          <span className="chev" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>{' '}
          Advanced
        </button>
        <div id={id} className="advanced" hidden={!open}>
          {open && (
            <>
              {records.map((r) => (
                <RecordNaming key={r.draftId} form={form} draftId={r.draftId} />
              ))}
              <p className="small muted">
                Profile <span className="mono">{form.chosen.profile}</span>
                {records.map((r) => (
                  <span key={r.draftId}>
                    {' '}
                    · {codeLabel(r.kind)} <span className="mono">{r.kind}</span>
                  </span>
                ))}
                {unitCodes(form).map(({ label, code }) => (
                  <span key={label}>
                    {' '}
                    · {label} <span className="mono">{code}</span>
                  </span>
                ))}
              </p>
            </>
          )}
        </div>
      </div>
    </div>
  );
}

function RecordNaming({ form, draftId }: { form: ReviewForm; draftId: string }) {
  const ids = { name: useId(), text: useId() };
  const record = [form.group?.main, ...(form.group?.with ?? [])].find((r) => r?.draftId === draftId);
  if (!record) return null;
  const nameErrors = form.at(draftId, 'name');
  const textErrors = form.at(draftId, 'text');
  const whose =
    draftId === MAIN
      ? `The ${codeLabel(record.kind).toLowerCase()}`
      : `The new ${codeLabel(record.kind).toLowerCase()}`;
  return (
    <fieldset className="advanced-record">
      <legend>{whose}</legend>
      <label htmlFor={ids.name}>Record name</label>
      <input
        id={ids.name}
        className="mono"
        maxLength={LIMITS.nameChars}
        value={record.name}
        spellCheck={false}
        aria-invalid={nameErrors.length > 0 || undefined}
        aria-describedby={`${ids.name}-hint${nameErrors.length > 0 ? ` ${ids.name}-err` : ''}`}
        onChange={(e) => form.editName(draftId, e.target.value)}
      />
      <p className="field-hint" id={`${ids.name}-hint`}>
        Made from the statement. A name already reviewed on this document is replaced by this record.
      </p>
      <FieldErrors id={`${ids.name}-err`} messages={nameErrors} />
      <label htmlFor={ids.text}>What an agent reads</label>
      <textarea
        id={ids.text}
        rows={2}
        maxLength={LIMITS.textChars}
        value={record.text}
        aria-invalid={textErrors.length > 0 || undefined}
        aria-describedby={textErrors.length > 0 ? `${ids.text}-err` : undefined}
        onChange={(e) => form.editText(draftId, e.target.value)}
      />
      <FieldErrors id={`${ids.text}-err`} messages={textErrors} />
    </fieldset>
  );
}

/** The unit codes chosen in the group's quantity fields, by field label. */
function unitCodes(form: ReviewForm): Array<{ label: string; code: string }> {
  const out: Array<{ label: string; code: string }> = [];
  for (const { draftId } of form.group ? [form.group.main, ...form.group.with] : []) {
    const draft = form.drafts[draftId];
    if (!draft) continue;
    for (const f of form.kindFields(draft.kind)) {
      const code = draft.values[`${f.name}.unit`];
      if (f.codec.spec.type === 'quantity' && code) {
        out.push({
          label: `${fieldLabel(f.name, draft.kind)} unit${draftId === MAIN ? '' : ` (new ${draft.kind})`}`,
          code,
        });
      }
    }
  }
  return out;
}
