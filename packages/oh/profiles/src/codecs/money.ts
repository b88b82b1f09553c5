/**
 * ISO 4217 currency codes, and money: an exact decimal amount in one of them.
 */
import { code as currencyByCode } from 'currency-codes';
import type { RawIssue } from '../errors.ts';
import { checkParts, fail, pass, show, typeOf } from './checked.ts';
import type { Checked } from './checked.ts';
import { checkDecimal } from './numbers.ts';
import type { CurrencySpec, Money, MoneySpec } from './spec.ts';

/** `null` when `code` is a current ISO 4217 currency, else why not. */
export function currencyProblem(code: string): string | null {
  if (!/^[A-Za-z]{3}$/.test(code))
    return `${show(code)} is not an ISO 4217 currency code (three letters, e.g. EUR)`;
  const upper = code.toUpperCase();
  // XXX (no currency) and XTS (testing) are in the standard but are not money.
  if (upper === 'XXX' || upper === 'XTS')
    return `${upper} is an ISO 4217 code for ${upper === 'XXX' ? 'no currency' : 'testing'}, not a currency`;
  if (!currencyByCode(upper)) return `"${code}" is not an ISO 4217 currency code`;
  return null;
}

export function checkCurrency(input: unknown, spec: CurrencySpec): Checked<string> {
  if (typeof input !== 'string') return fail(`expected an ISO 4217 code such as "EUR", got ${typeOf(input)}`);
  const problem = currencyProblem(input);
  if (problem) return fail(problem);
  const code = input.toUpperCase();
  if (spec.currencies && !spec.currencies.includes(code))
    return fail(`${code} is not one of: ${spec.currencies.join(', ')}`);
  return pass(code);
}

export function checkMoney(input: unknown, spec: MoneySpec): Checked<Money> {
  const parts = checkParts(input, ['amount', 'currency'], 'such as {"amount":"12.50","currency":"EUR"}');
  if (!parts.ok) return parts;
  const issues: RawIssue[] = [];
  const amount = checkDecimal(parts.value.amount, spec, 'an exact amount');
  if (!amount.ok) issues.push(...amount.issues.map((i) => ({ ...i, path: ['amount', ...i.path] })));
  const currency = parts.value.currency;
  const code = checkCurrency(currency, {
    type: 'currency',
    ...(spec.currencies && { currencies: spec.currencies }),
  });
  if (!code.ok) issues.push(...code.issues.map((i) => ({ ...i, path: ['currency', ...i.path] })));
  if (!amount.ok || !code.ok) return { ok: false, issues };
  return pass({ amount: amount.value, currency: code.value });
}
