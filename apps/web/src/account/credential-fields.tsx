import { FormField } from '../shared/form-field.tsx';

interface CredentialProps {
  value: string;
  onValueChange: (value: string) => void;
  hint?: string;
  error?: string | undefined;
}

/** An account's email, as signing in and signing up ask for it (the browser may fill it in). */
export function EmailField(props: CredentialProps) {
  return <FormField {...props} label="Email" type="email" name="email" autoComplete="email" />;
}

/**
 * An account's password: the one it has (`current`, which a password manager fills in), or the
 * one it is given (`new`, which a password manager may make up).
 */
export function PasswordField({ which, ...props }: CredentialProps & { which: 'current' | 'new' }) {
  return (
    <FormField
      {...props}
      label="Password"
      type="password"
      name="password"
      autoComplete={`${which}-password`}
    />
  );
}
