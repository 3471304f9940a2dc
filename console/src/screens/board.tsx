/** The board of a project (GET /api/views/board). */
export function BoardScreen(_props: { path: string }) {
  return (
    <section aria-labelledby="screen-title" class="screen">
      <h1 id="screen-title">Board</h1>
    </section>
  );
}
