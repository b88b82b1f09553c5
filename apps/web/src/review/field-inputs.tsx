import { useEffect, useId, useRef } from 'react';
import {
  addRow,
  draftOfRef,
  newRef,
  openKey,
  otherUnitKey,
  primaryTextField,
  removeRow,
  rowCount,
} from './review-form.ts';
import type { CodecSpec, SubField } from './review-form.ts';
import type { ReviewForm } from './use-review-form.ts';
import {
  UNITS,
  codeLabel,
  fieldDescription,
  fieldHelp,
  fieldLabel,
  kindInSentence,
  unitOf,
} from './words.ts';

/** One record's place in the form: whose values an input edits and reads its messages from. */
interface Of {
  form: ReviewForm;
  draftId: string;
  kind: string;
}

/**
 * One record's fields, each by its label with the pack's description as help: text and numbers
 * as inputs, enums as selects of labels, a quantity as a number and a unit picked by name, an
 * optional group (an interval) asked for only once opened, lists as rows to add and remove, and
 * references as a choice of the document's reviewed records or a new record made here, its
 * fields inline below. The record's statement comes first; the rest in the pack's order
 * (required, then optional).
 */
export function RecordFields({ form, draftId }: { form: ReviewForm; draftId: string }) {
  const draft = form.drafts[draftId];
  if (!draft) return null;
  const fields = form.kindFields(draft.kind);
  const primary = primaryTextField(fields);
  const ordered = [...fields.filter((f) => f.name === primary), ...fields.filter((f) => f.name !== primary)];
  const of = { form, draftId, kind: draft.kind };
  return (
    <div className="gen-fields">
      {ordered.map((f) => (
        <FieldInput
          key={f.name}
          of={of}
          path={f.name}
          label={fieldLabel(f.name, draft.kind)}
          field={{
            codec: f.codec.spec,
            required: f.required,
            description: fieldDescription(draft.kind, f.name, f.description),
          }}
          errors={form.at(draftId, `fields.${f.name}`)}
        />
      ))}
      <FieldErrorLine messages={form.at(draftId, 'fields', true)} />
    </div>
  );
}

function FieldErrorLine({ id, messages }: { id?: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <span className="field-error" id={id}>
      {messages.join('; ')}
    </span>
  );
}

function Required({ required }: { required: boolean }) {
  if (!required) return null;
  return (
    <>
      <span className="req" aria-hidden="true">
        {' '}
        *
      </span>
      <span className="visually-hidden"> (required)</span>
    </>
  );
}

function FieldInput({
  of,
  path,
  label,
  field,
  errors,
  labelHidden = false,
}: {
  of: Of;
  path: string;
  label: string;
  field: SubField;
  errors: string[];
  /** The label is read out but not shown: a list's one row, which its legend already names. */
  labelHidden?: boolean;
}) {
  const id = useId();
  const { form, draftId } = of;
  const values = form.drafts[draftId]?.values ?? {};
  const spec = field.codec;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const help = fieldHelp(field.description, spec);
  const describedBy =
    [help ? hintId : '', errors.length > 0 ? errorId : ''].filter(Boolean).join(' ') || undefined;
  const invalid = errors.length > 0 || undefined;
  const hint = help ? (
    <span className="field-hint" id={hintId}>
      {help}
    </span>
  ) : null;
  const errorLine = <FieldErrorLine id={errorId} messages={errors} />;
  const set = (p: string, v: string) => form.editField(draftId, p, v);

  if (spec.type === 'quantity' || spec.type === 'money') {
    return (
      <fieldset className="gen-field pair" aria-describedby={describedBy}>
        <legend>
          {label}
          <Required required={field.required} />
        </legend>
        {spec.type === 'quantity' ? (
          <QuantityInputs of={of} path={path} label={label} units={spec.units} invalid={invalid} />
        ) : (
          <>
            <label>
              <span className="visually-hidden">{label} </span>Amount
              <input
                value={values[`${path}.amount`] ?? ''}
                inputMode="decimal"
                aria-invalid={invalid}
                onChange={(e) => set(`${path}.amount`, e.target.value)}
              />
            </label>
            <label>
              <span className="visually-hidden">{label} </span>Currency
              <input
                value={values[`${path}.currency`] ?? ''}
                maxLength={3}
                aria-invalid={invalid}
                onChange={(e) => set(`${path}.currency`, e.target.value.toUpperCase())}
              />
            </label>
          </>
        )}
        {hint}
        {errorLine}
      </fieldset>
    );
  }

  if (spec.type === 'object') {
    const parts = orderParts(Object.entries(spec.fields as Record<string, SubField>));
    const open = field.required || values[openKey(path)] === '1';
    const group = (
      <fieldset className="gen-field group" aria-describedby={describedBy} id={`${id}-group`}>
        {/* Under its disclosure the group is named already: its legend is only read out. */}
        <legend className={field.required ? undefined : 'visually-hidden'}>
          {label}
          <Required required={field.required} />
        </legend>
        {hint}
        <div className="gen-fields">
          {parts.map(([name, sub]) => (
            <FieldInput
              key={name}
              of={of}
              path={`${path}.${name}`}
              label={fieldLabel(name)}
              field={sub}
              errors={form.at(draftId, `fields.${path}.${name}`)}
            />
          ))}
        </div>
        {errorLine}
      </fieldset>
    );
    if (field.required) return group;
    // An optional group asks for its parts only once it is opened; closed again, none is sent.
    return (
      <div className="gen-field group">
        <button
          type="button"
          className="disclosure"
          aria-expanded={open}
          aria-controls={`${id}-group`}
          onClick={() => set(openKey(path), open ? '' : '1')}
        >
          <span className="chev" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>{' '}
          {label} (optional)
        </button>
        {open ? group : !field.required && errors.length > 0 && errorLine}
      </div>
    );
  }

  if (spec.type === 'list') {
    return (
      <ListInput
        of={of}
        path={path}
        label={label}
        field={field}
        hint={hint}
        errorLine={errorLine}
        describedBy={describedBy}
      />
    );
  }

  if (spec.type === 'ref') {
    return (
      <RefInput
        of={of}
        path={path}
        label={label}
        kinds={spec.kinds}
        required={field.required}
        hint={hint}
        errorLine={errorLine}
        describedBy={describedBy}
        invalid={invalid}
        labelHidden={labelHidden}
      />
    );
  }

  const value = values[path] ?? '';
  const common = {
    id,
    value,
    'aria-describedby': describedBy,
    'aria-invalid': invalid,
    'aria-required': field.required || undefined,
  };
  let control: React.ReactNode;
  if (spec.type === 'enum') {
    control = (
      <select {...common} onChange={(e) => set(path, e.target.value)}>
        <option value="">{field.required ? 'Choose…' : '—'}</option>
        {spec.values.map((v) => (
          <option key={v} value={v}>
            {codeLabel(v)}
          </option>
        ))}
      </select>
    );
  } else if (spec.type === 'text' && spec.maxLength > 1000) {
    control = <textarea {...common} rows={2} onChange={(e) => set(path, e.target.value)} />;
  } else {
    control = (
      <input
        {...common}
        inputMode={spec.type === 'integer' || spec.type === 'decimal' ? 'decimal' : undefined}
        type={spec.type === 'url' ? 'url' : 'text'}
        onChange={(e) => set(path, e.target.value)}
      />
    );
  }
  const wide = spec.type === 'text' && spec.maxLength > 300;
  return (
    <div className={`gen-field${wide ? ' wide' : ''}`}>
      <label htmlFor={id} className={labelHidden ? 'visually-hidden' : undefined}>
        {label}
        <Required required={field.required} />
      </label>
      {control}
      {hint}
      {errorLine}
    </div>
  );
}

/** Parts as a sentence reads them (an interval: low, high, level); the pack keeps them by name. */
const PART_ORDER = ['low', 'high', 'level'];

function orderParts<T>(parts: Array<[string, T]>): Array<[string, T]> {
  const rank = (name: string) => {
    const i = PART_ORDER.indexOf(name);
    return i === -1 ? PART_ORDER.length : i;
  };
  return [...parts].sort(([a], [b]) => rank(a) - rank(b));
}

/** A number and its unit by name; "other" takes the unit's code. */
function QuantityInputs({
  of: { form, draftId },
  path,
  label,
  units,
  invalid,
}: {
  of: Of;
  path: string;
  label: string;
  units: readonly string[] | undefined;
  invalid: true | undefined;
}) {
  const values = form.drafts[draftId]?.values ?? {};
  const code = values[`${path}.unit`] ?? '';
  const listed = units ? units.map((c) => unitOf(c) ?? { label: c, code: c }) : UNITS;
  const other = values[otherUnitKey(path)] === '1' || (code !== '' && !listed.some((u) => u.code === code));
  const set = (p: string, v: string) => form.editField(draftId, p, v);
  return (
    <>
      <label>
        <span className="visually-hidden">{label} </span>Value
        <input
          value={values[`${path}.value`] ?? ''}
          inputMode="decimal"
          aria-invalid={invalid}
          onChange={(e) => set(`${path}.value`, e.target.value)}
        />
      </label>
      <label>
        <span className="visually-hidden">{label} </span>Unit
        <select
          value={other ? '#other' : code}
          aria-invalid={invalid}
          onChange={(e) => {
            const v = e.target.value;
            form.setValues(draftId, (all) => ({
              ...all,
              [otherUnitKey(path)]: v === '#other' ? '1' : '',
              [`${path}.unit`]: v === '#other' ? '' : v,
            }));
          }}
        >
          <option value="">Choose a unit…</option>
          {listed.map((u) => (
            <option key={u.code} value={u.code}>
              {u.label}
            </option>
          ))}
          {!units && <option value="#other">other…</option>}
        </select>
      </label>
      {other && (
        <label className="span-2">
          <span className="visually-hidden">{label} </span>Unit code
          <input
            value={code}
            className="mono"
            spellCheck={false}
            aria-invalid={invalid}
            onChange={(e) => set(`${path}.unit`, e.target.value.trim())}
          />
          <span className="field-hint">The unit’s standard code, for example mm[Hg] or ug/L.</span>
        </label>
      )}
    </>
  );
}

/** "Authors" → "author", for the rows' buttons. */
function itemNoun(label: string, spec: CodecSpec): string {
  if (spec.type === 'list' && spec.of.type === 'ref' && spec.of.kinds[0])
    return codeLabel(spec.of.kinds[0]).toLowerCase();
  const word = label.toLowerCase();
  return word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

function ListInput({
  of,
  path,
  label,
  field,
  hint,
  errorLine,
  describedBy,
}: {
  of: Of;
  path: string;
  label: string;
  field: SubField;
  hint: React.ReactNode;
  errorLine: React.ReactNode;
  describedBy: string | undefined;
}) {
  const { form, draftId } = of;
  const spec = field.codec;
  if (spec.type !== 'list') return null;
  const values = form.drafts[draftId]?.values ?? {};
  const rows = rowCount(values, path);
  const noun = itemNoun(label, spec);
  const max = spec.maxItems;
  return (
    <fieldset className="gen-field group" aria-describedby={describedBy}>
      <legend>
        {label}
        <Required required={field.required} />
      </legend>
      {hint}
      {rows > 0 && (
        <ol className="list-rows">
          {Array.from({ length: rows }, (_, i) => (
            <li key={i}>
              <FieldInput
                of={of}
                path={`${path}.${i}`}
                label={rows > 1 || spec.of.type !== 'ref' ? `${label} ${i + 1}` : label}
                labelHidden={rows === 1}
                field={{
                  codec: spec.of,
                  required: spec.of.type === 'object' || (field.required && i === 0),
                  description: '',
                }}
                errors={form.at(draftId, `fields.${path}.${i}`)}
              />
              {!(field.required && rows === 1) && (
                <button
                  type="button"
                  className="link-button small"
                  aria-label={`Remove ${noun} ${i + 1}`}
                  onClick={() => form.setValues(draftId, (all) => removeRow(all, path, i))}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ol>
      )}
      {(max === undefined || rows < max) && (
        <button
          type="button"
          className="link-button small"
          onClick={() => form.setValues(draftId, (all) => addRow(all, path))}
        >
          + Add {rows > 0 ? 'another ' : ''}
          {noun}
        </button>
      )}
      {errorLine}
    </fieldset>
  );
}

/**
 * A reference: one of the document's reviewed records of the kind, by its title, or a record of
 * this decision (made here), or "+ New study…", whose fields then follow inline.
 */
function RefInput({
  of,
  path,
  label,
  kinds,
  required,
  hint,
  errorLine,
  describedBy,
  invalid,
  labelHidden,
}: {
  of: Of;
  path: string;
  label: string;
  kinds: readonly string[];
  required: boolean;
  hint: React.ReactNode;
  errorLine: React.ReactNode;
  describedBy: string | undefined;
  invalid: true | undefined;
  labelHidden: boolean;
}) {
  const id = useId();
  const { form, draftId } = of;
  const value = form.drafts[draftId]?.values[path] ?? '';
  const reviewed = form.choices.filter((c) => kinds.includes(c.kind));
  const inGroup = (form.group ? [form.group.main, ...form.group.with] : []).filter(
    (r) => r.draftId !== draftId && kinds.includes(r.kind),
  );
  const made = form.madeFor(draftId, path);
  const pointsAt = draftOfRef(value);
  const unknown = value !== '' && pointsAt === null && !reviewed.some((c) => c.name === value);
  const what = kinds.length === 1 ? kindInSentence(kinds[0]!) : 'a record';
  return (
    <div className="gen-field wide ref-field">
      <label htmlFor={id} className={labelHidden ? 'visually-hidden' : undefined}>
        {label}
        <Required required={required} />
      </label>
      <div className="ref-choice">
        <select
          id={id}
          value={value}
          aria-describedby={describedBy}
          aria-invalid={invalid}
          aria-required={required || undefined}
          onChange={(e) => {
            if (made) form.removeRecord(made);
            form.editField(draftId, path, e.target.value);
          }}
        >
          <option value="">
            {reviewed.length > 0 || inGroup.length > 0
              ? `Choose ${what}…`
              : `No ${codeLabel(kinds[0] ?? 'record').toLowerCase()} reviewed yet`}
          </option>
          {reviewed.map((c) => (
            <option key={c.name} value={c.name}>
              {kinds.length > 1 ? `${codeLabel(c.kind)}: ${c.label}` : c.label}
            </option>
          ))}
          {inGroup.map((r) => (
            <option key={r.draftId} value={newRef(r.draftId)}>
              {`New ${codeLabel(r.kind).toLowerCase()}: ${form.draftLabel(r.draftId) || 'untitled'}`}
            </option>
          ))}
          {unknown && <option value={value}>A record not reviewed on this document</option>}
        </select>
        {!made &&
          form.canAddRecord &&
          kinds.map((k) => (
            <button
              key={k}
              type="button"
              className="button small-button"
              onClick={() => form.addRecord(draftId, path, k)}
            >
              + New {codeLabel(k).toLowerCase()}…
            </button>
          ))}
      </div>
      {hint}
      {errorLine}
      {made && <NewRecord form={form} draftId={made} />}
    </div>
  );
}

/** A record made in this dialog for a reference: its fields, inline, and the way to drop it. */
function NewRecord({ form, draftId }: { form: ReviewForm; draftId: string }) {
  const box = useRef<HTMLFieldSetElement>(null);
  const kind = form.drafts[draftId]?.kind ?? '';
  // The keyboard goes on where the new record's fields are.
  useEffect(() => {
    box.current?.querySelector<HTMLElement>('input, textarea, select')?.focus();
  }, []);
  return (
    <fieldset className="new-record" ref={box}>
      <legend>New {codeLabel(kind).toLowerCase()}</legend>
      <RecordFields form={form} draftId={draftId} />
      <button type="button" className="link-button small" onClick={() => form.removeRecord(draftId)}>
        Remove the new {codeLabel(kind).toLowerCase()}
      </button>
    </fieldset>
  );
}
