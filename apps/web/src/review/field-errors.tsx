/** The server's messages for one input, tied to it by `id` through aria-describedby. */
export function FieldErrors({ id, messages }: { id?: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <p className="field-error" id={id}>
      {messages.join('; ')}
    </p>
  );
}
