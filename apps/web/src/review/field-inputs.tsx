import { kindOf } from '@sponge/contract';
import { useId } from 'react';
import { isScalar, listByLines } from './review-form.ts';
import type { CodecSpec, FieldPreview, FormValues, SubField } from './review-form.ts';

interface Props {
  fields: readonly FieldPreview[];
  values: FormValues;
  onChange: (path: string, value: string) => void;
  /** Server messages per top-level field name. */
  errors: (field: string) => string[];
  /** Record names the reference inputs suggest (notes and reviewed records in view). */
  knownNames: readonly string[];
}

/**
 * One labelled input per field of a profile kind, generated from its value codec: text and
 * scalars as inputs (long text as a textarea), enums as selects, quantities and money as a value
 * and a unit/currency, objects as a group of their fields, lists one item per line (or JSON).
 * Each field's description and the server's messages are tied to it with aria-describedby.
 */
export function FieldInputs({ fields, values, onChange, errors, knownNames }: Props) {
  return (
    <div className="gen-fields">
      {fields.map((f) => (
        <FieldInput
          key={f.name}
          path={f.name}
          label={f.name}
          field={{ codec: f.codec.spec, required: f.required, description: f.description }}
          summary={f.codec.summary}
          values={values}
          onChange={onChange}
          errors={errors(f.name)}
          knownNames={knownNames}
        />
      ))}
    </div>
  );
}

function FieldInput({
  path,
  label,
  field,
  summary,
  values,
  onChange,
  errors,
  knownNames,
}: {
  path: string;
  label: string;
  field: SubField;
  summary?: string;
  values: FormValues;
  onChange: (path: string, value: string) => void;
  errors: string[];
  knownNames: readonly string[];
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const spec = field.codec;
  const describedBy = [hintId, errors.length > 0 ? errorId : ''].filter(Boolean).join(' ');
  const invalid = errors.length > 0 || undefined;
  // The codec's summary says how to write the value; a select or a group of inputs shows it already.
  const showSummary = summary && spec.type !== 'enum' && spec.type !== 'object';
  const hint = (
    <span className="field-hint" id={hintId}>
      {field.description}
      {showSummary ? ` — ${summary}` : ''}
    </span>
  );
  const errorLine =
    errors.length > 0 ? (
      <span className="field-error" id={errorId}>
        {errors.join('; ')}
      </span>
    ) : null;
  const required = field.required ? (
    <span className="req" aria-hidden="true">
      {' '}
      *
    </span>
  ) : null;

  if (spec.type === 'quantity' || spec.type === 'money') {
    const [a, b] =
      spec.type === 'quantity' ? (['value', 'unit'] as const) : (['amount', 'currency'] as const);
    return (
      <fieldset className="gen-field pair" aria-describedby={describedBy}>
        <legend>
          {label}
          {required}
          {field.required && <span className="visually-hidden"> (required)</span>}
        </legend>
        <label>
          <span className="visually-hidden">{label} </span>
          {a}
          <input
            value={values[`${path}.${a}`] ?? ''}
            inputMode="decimal"
            placeholder={spec.type === 'quantity' ? 'e.g. 1.10' : 'e.g. 12.50'}
            aria-invalid={invalid}
            onChange={(e) => onChange(`${path}.${a}`, e.target.value)}
          />
        </label>
        <label>
          <span className="visually-hidden">{label} </span>
          {b}
          <input
            value={values[`${path}.${b}`] ?? ''}
            placeholder={spec.type === 'quantity' ? 'Cel, %, mg/dL' : 'EUR'}
            aria-invalid={invalid}
            onChange={(e) => onChange(`${path}.${b}`, e.target.value)}
          />
        </label>
        {hint}
        {errorLine}
      </fieldset>
    );
  }

  if (spec.type === 'object') {
    return (
      <fieldset className="gen-field group" aria-describedby={describedBy}>
        <legend>
          {label}
          {required}
          {field.required && <span className="visually-hidden"> (required)</span>}
        </legend>
        {hint}
        {Object.entries(spec.fields as Record<string, SubField>).map(([name, sub]) => (
          <FieldInput
            key={name}
            path={`${path}.${name}`}
            label={`${label} ${name}`}
            field={sub}
            values={values}
            onChange={onChange}
            errors={[]}
            knownNames={knownNames}
          />
        ))}
        {errorLine}
      </fieldset>
    );
  }

  const value = values[path] ?? '';
  const common = {
    id,
    value,
    'aria-describedby': describedBy,
    'aria-invalid': invalid,
    required: false,
    'aria-required': field.required || undefined,
  };
  let control: React.ReactNode;
  if (spec.type === 'enum') {
    control = (
      <select {...common} onChange={(e) => onChange(path, e.target.value)}>
        <option value="">{field.required ? 'Choose…' : '—'}</option>
        {spec.values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    );
  } else if (spec.type === 'list' || (spec.type === 'text' && spec.maxLength > 300)) {
    control = (
      <textarea
        {...common}
        rows={spec.type === 'list' ? 3 : 2}
        placeholder={spec.type === 'list' ? (listByLines(spec) ? 'One per line' : 'JSON list') : undefined}
        onChange={(e) => onChange(path, e.target.value)}
      />
    );
  } else {
    const listId = spec.type === 'ref' ? `${id}-names` : undefined;
    const suggestions = spec.type === 'ref' ? knownNames.filter((n) => spec.kinds.includes(kindOf(n))) : [];
    control = (
      <>
        <input
          {...common}
          list={suggestions.length > 0 ? listId : undefined}
          inputMode={spec.type === 'integer' || spec.type === 'decimal' ? 'decimal' : undefined}
          placeholder={placeholder(spec)}
          onChange={(e) => onChange(path, e.target.value)}
        />
        {suggestions.length > 0 && (
          <datalist id={listId}>
            {suggestions.map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
        )}
      </>
    );
  }
  return (
    <div className={`gen-field${isScalar(spec) ? '' : ' wide'}`}>
      <label htmlFor={id}>
        {label}
        {required}
        {field.required && <span className="visually-hidden"> (required)</span>}
      </label>
      {control}
      {hint}
      {errorLine}
    </div>
  );
}

function placeholder(spec: CodecSpec): string | undefined {
  switch (spec.type) {
    case 'date':
      return 'YYYY-MM-DD';
    case 'ref':
      return `${spec.kinds[0] ?? 'kind'}:slug`;
    case 'doi':
      return '10.1000/xyz123';
    case 'url':
      return 'https://';
    case 'language':
      return 'en-GB';
    case 'currency':
      return 'EUR';
    case 'decimal':
      return 'e.g. 1.10';
    default:
      return undefined;
  }
}
