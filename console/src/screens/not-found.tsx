/** What an address the console has no screen for shows (the router's default). */
export function NotFound(_props: { default: boolean }) {
  return (
    <section aria-labelledby="screen-title" class="screen">
      <h1 id="screen-title">Not found</h1>
      <p>
        The console has no screen at this address. <a href="/">Go to the Inbox</a>.
      </p>
    </section>
  );
}
