/** One task (GET /api/tasks/:id). */
export function TaskPage({ id }: { path: string; id?: string }) {
  return (
    <section aria-labelledby="screen-title" class="screen">
      <h1 id="screen-title">Task {id}</h1>
    </section>
  );
}
