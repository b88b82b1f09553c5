import { PASSWORD_RULES } from '@sponge/contract';
import { describe, expect, it } from 'vitest';
import {
  apiKeyLabelProblem,
  issuesByField,
  passwordRulesText,
  safeNext,
  shareEmailProblem,
  signInProblems,
  signUpProblems,
} from './account-forms.ts';

const rules = { minLength: PASSWORD_RULES.minLength, maxLength: PASSWORD_RULES.maxLength };
const good = { name: 'Ada Lovelace', email: 'ada@example.org', password: 'analytical engine' };

describe('signUpProblems', () => {
  it('lets a complete form through', () => {
    expect(signUpProblems(good, rules)).toBeNull();
    // The contract trims and lowercases an address: spaces around it are no problem.
    expect(signUpProblems({ ...good, email: '  Ada@Example.org ' }, rules)).toBeNull();
  });

  it('says what each empty field needs', () => {
    expect(signUpProblems({ name: ' ', email: '', password: '' }, rules)).toEqual({
      name: 'Enter your name.',
      email: 'Enter your email address.',
      password: 'Choose a password.',
    });
  });

  it('holds the password to the rules, counting characters as a person does', () => {
    expect(signUpProblems({ ...good, password: 'short' }, rules)).toEqual({
      password: 'A password has at least 10 characters; this one has 5.',
    });
    // Nine fish are nine characters (18 UTF-16 units): still too short.
    expect(signUpProblems({ ...good, password: '🐟'.repeat(9) }, rules)?.password).toBe(
      'A password has at least 10 characters; this one has 9.',
    );
    expect(signUpProblems({ ...good, password: 'x'.repeat(129) }, rules)).toEqual({
      password: 'A password has at most 128 characters; this one has 129.',
    });
    expect(signUpProblems({ ...good, password: 'x'.repeat(128) }, rules)).toBeNull();
    expect(signUpProblems({ ...good, password: 'x'.repeat(10) }, rules)).toBeNull();
  });

  it('refuses what the contract refuses, in its words', () => {
    expect(signUpProblems({ ...good, email: 'ada.example.org' }, rules)).toEqual({
      email: 'Enter an email address like name@example.org.',
    });
    expect(signUpProblems({ ...good, email: `${'a'.repeat(250)}@x.org` }, rules)).toEqual({
      email: 'An email address is at most 254 characters.',
    });
    expect(signUpProblems({ ...good, name: 'n'.repeat(101) }, rules)).toEqual({
      name: 'A name is at most 100 characters.',
    });
    const nul = signUpProblems({ ...good, name: 'Ada\u0000' }, rules);
    expect(nul?.name).toMatch(/^Name .+\.$/);
  });
});

describe('signInProblems', () => {
  it('asks only for an address and some password: the server alone judges the password', () => {
    expect(signInProblems({ email: 'ada@example.org', password: 'x' })).toBeNull();
    expect(signInProblems({ email: '', password: '' })).toEqual({
      email: 'Enter your email address.',
      password: 'Enter your password.',
    });
    expect(signInProblems({ email: 'ada', password: 'secret' })).toEqual({
      email: 'Enter an email address like name@example.org.',
    });
  });
});

describe('shareEmailProblem and apiKeyLabelProblem', () => {
  it('speak of the person and of the key', () => {
    expect(shareEmailProblem('')).toBe("Enter the person's email address.");
    expect(shareEmailProblem('grace@example.org')).toBeUndefined();
    expect(apiKeyLabelProblem('  ')).toBe('Give the key a label, so you know later where it is used.');
    expect(apiKeyLabelProblem('l'.repeat(101))).toBe('A label is at most 100 characters.');
    expect(apiKeyLabelProblem('laptop agent')).toBeUndefined();
  });
});

describe('passwordRulesText', () => {
  it('states the server rules', () => {
    expect(passwordRulesText({ minLength: 12, maxLength: 64 })).toMatch(
      /^At least 12 characters \(at most 64\)\./,
    );
  });
});

describe('safeNext', () => {
  const ORIGIN = 'https://sponge.example:8443';
  /** Where a browser goes with what safeNext returns (navigate, replaceState, location.replace). */
  const landsOn = (path: string) => new URL(path, ORIGIN).origin;

  it('keeps a path of this site, with its query and fragment', () => {
    expect(safeNext('/documents/doc-1', ORIGIN)).toBe('/documents/doc-1');
    expect(safeNext('/documents/doc-1/memory?session=s-1', ORIGIN)).toBe(
      '/documents/doc-1/memory?session=s-1',
    );
    expect(safeNext('/documents/doc-1?page=4#page-4', ORIGIN)).toBe('/documents/doc-1?page=4#page-4');
    expect(safeNext('/oauth/authorize?client_id=c&state=s', ORIGIN)).toBe(
      '/oauth/authorize?client_id=c&state=s',
    );
  });

  it('never leads to another origin, however the address is spelled', () => {
    for (const next of [
      null,
      '',
      '\n',
      'https://evil.example',
      'HTTPS://evil.example/',
      '//evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      // Tabs and line breaks are dropped by the URL parser: these are //evil.example to a browser.
      '/\t/evil.example',
      '/\n/evil.example',
      '/\r\n/evil.example',
      '\t//evil.example',
      // Dot segments that leave a path starting with // (a protocol-relative address).
      '/.//evil.example',
      '/..//evil.example',
      '/a/..//evil.example',
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      `${ORIGIN.replace('8443', '9443')}/documents`,
      'https://sponge.example:8443@evil.example/',
    ]) {
      const to = safeNext(next, ORIGIN);
      expect({ next, to }).toEqual({ next, to: '/' });
    }
  });

  it('keeps an escaped character as part of a path of this site', () => {
    // %09 is a tab only once decoded: to the browser this is a path here, not another host.
    for (const next of ['/%09/evil.example', '/%2F%2Fevil.example', '/%5C%5Cevil.example']) {
      const to = safeNext(next, ORIGIN);
      expect({ next, to, at: landsOn(to), protocolRelative: to.startsWith('//') }).toEqual({
        next,
        to: next,
        at: ORIGIN,
        protocolRelative: false,
      });
    }
  });
});

describe('issuesByField', () => {
  it("puts the API's first problem of each field of the form next to it, as a sentence", () => {
    expect(
      issuesByField(
        [
          { path: 'email', message: 'email: expected an address like name@example.org' },
          { path: 'email', message: 'a second problem' },
          { path: 'documentId', message: 'not on this form' },
          { path: 'password', message: 'password: at least 10 characters.' },
        ],
        ['name', 'email', 'password'] as const,
      ),
    ).toEqual({
      email: 'Email: expected an address like name@example.org.',
      password: 'Password: at least 10 characters.',
    });
  });
});
