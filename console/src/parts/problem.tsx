/** What went wrong, announced as an alert; nothing when nothing did. */
export function Problem({ text }: { text: string | undefined }) {
  return text ? (
    <p role="alert" class="problem">
      {text}
    </p>
  ) : null;
}
